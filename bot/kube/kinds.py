"""Where each kind lives in the Kubernetes API: group, versions to try (newest first), plural, scope."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Resource:
    kind: str
    group: str
    versions: tuple[str, ...]
    plural: str
    namespaced: bool = True

    def path(self, version: str, namespace: str | None = None, name: str | None = None) -> str:
        base = f"/api/{version}" if not self.group else f"/apis/{self.group}/{version}"
        scope = f"/namespaces/{namespace}" if self.namespaced and namespace else ""
        tail = f"/{name}" if name else ""
        return f"{base}{scope}/{self.plural}{tail}"


KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_VERSIONS = ("v1beta2", "v1beta1")
VISIBILITY_GROUP = "visibility.kueue.x-k8s.io"
VISIBILITY_VERSIONS = ("v1beta2", "v1beta1")

KUEUE = {
    kind: Resource(kind, KUEUE_GROUP, KUEUE_VERSIONS, plural, namespaced)
    for kind, plural, namespaced in (
        ("Workload", "workloads", True),
        ("LocalQueue", "localqueues", True),
        ("ClusterQueue", "clusterqueues", False),
        ("ResourceFlavor", "resourceflavors", False),
        ("Cohort", "cohorts", False),
        ("AdmissionCheck", "admissionchecks", False),
        ("WorkloadPriorityClass", "workloadpriorityclasses", False),
        ("Topology", "topologies", False),
    )
}

# The cluster autoscaler's ProvisioningRequest, which Kueue's provisioning admission check makes; and the
# check's parameters. Neither is cached: both are read for a question about a Workload the check holds.
PROVISIONING_REQUEST = Resource(
    "ProvisioningRequest", "autoscaling.x-k8s.io", ("v1", "v1beta1"), "provisioningrequests"
)
PROVISIONING_CONFIG = Resource(
    "ProvisioningRequestConfig", KUEUE_GROUP, KUEUE_VERSIONS, "provisioningrequestconfigs", namespaced=False
)

CORE = {
    "Pod": Resource("Pod", "", ("v1",), "pods"),
    "Event": Resource("Event", "", ("v1",), "events"),
    "Namespace": Resource("Namespace", "", ("v1",), "namespaces", namespaced=False),
    "Node": Resource("Node", "", ("v1",), "nodes", namespaced=False),
}

# Every job kind Kueue integrates (FACTS §2.2).
JOBS = {
    resource.kind: resource
    for resource in (
        Resource("Job", "batch", ("v1",), "jobs"),
        Resource("JobSet", "jobset.x-k8s.io", ("v1alpha2",), "jobsets"),
        Resource("RayJob", "ray.io", ("v1", "v1alpha1"), "rayjobs"),
        Resource("RayCluster", "ray.io", ("v1", "v1alpha1"), "rayclusters"),
        Resource("RayService", "ray.io", ("v1", "v1alpha1"), "rayservices"),
        Resource("PyTorchJob", "kubeflow.org", ("v1",), "pytorchjobs"),
        Resource("TFJob", "kubeflow.org", ("v1",), "tfjobs"),
        Resource("PaddleJob", "kubeflow.org", ("v1",), "paddlejobs"),
        Resource("XGBoostJob", "kubeflow.org", ("v1",), "xgboostjobs"),
        Resource("JAXJob", "kubeflow.org", ("v1",), "jaxjobs"),
        Resource("MPIJob", "kubeflow.org", ("v2beta1", "v1"), "mpijobs"),
        Resource("TrainJob", "trainer.kubeflow.org", ("v1alpha1",), "trainjobs"),
        Resource("AppWrapper", "workload.codeflare.dev", ("v1beta2",), "appwrappers"),
        Resource("SparkApplication", "sparkoperator.k8s.io", ("v1beta2",), "sparkapplications"),
        Resource("StatefulSet", "apps", ("v1",), "statefulsets"),
        Resource("Deployment", "apps", ("v1",), "deployments"),
        Resource("LeaderWorkerSet", "leaderworkerset.x-k8s.io", ("v1",), "leaderworkersets"),
        Resource("Pod", "", ("v1",), "pods"),
    )
}
