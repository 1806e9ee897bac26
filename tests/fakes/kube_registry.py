"""The kinds the fake Kubernetes API server knows: group, versions, plural, scope.

Built-in kinds are always served. The Kueue kinds are read from the real CRDs (so plural, scope and
short names are Kueue's own); the job CRDs of the other integrations are optional, as on a real cluster.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import yaml

from tests.paths import KUEUE_CRDS

KUEUE_GROUP = "kueue.x-k8s.io"
VISIBILITY_GROUP = "visibility.kueue.x-k8s.io"
AUTHORIZATION_GROUP = "authorization.k8s.io"
KUEUE_VERSIONS = ("v1beta2", "v1beta1")
CRDS_DIR = KUEUE_CRDS

ALL_VERBS = ("create", "delete", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True)
class ResourceType:
    """One kind as the API server serves it."""

    kind: str
    group: str
    versions: tuple[str, ...]
    plural: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    has_status: bool = True
    builtin: bool = False  # built-in lists omit kind/apiVersion on their items
    # fields a fieldSelector may use besides metadata.name and metadata.namespace
    selectable_fields: tuple[str, ...] = ()

    def api_version(self, version: str) -> str:
        return f"{self.group}/{version}" if self.group else version

    def with_versions(self, versions: Iterable[str]) -> ResourceType:
        wanted = set(versions)
        return replace(self, versions=tuple(v for v in self.versions if v in wanted))


def _builtin(
    kind: str, group: str, plural: str, namespaced: bool, short: tuple[str, ...] = (), fields: tuple[str, ...] = ()
) -> ResourceType:
    """A built-in kind: all of them are served at v1 (core v1, batch/v1, apps/v1, coordination.k8s.io/v1)."""
    return ResourceType(kind, group, ("v1",), plural, namespaced, short, builtin=True, selectable_fields=fields)


_EVENT_FIELDS = (
    *(
        f"involvedObject.{f}"
        for f in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")
    ),
    *("reason", "reportingComponent", "source", "type"),
)
_POD_FIELDS = (
    *("spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName"),
    *("status.phase", "status.podIP", "status.nominatedNodeName"),
)

BUILTIN_TYPES: tuple[ResourceType, ...] = (
    _builtin("Namespace", "", "namespaces", False, ("ns",), ("status.phase",)),
    _builtin("Node", "", "nodes", False, ("no",), ("spec.unschedulable",)),
    _builtin("Pod", "", "pods", True, ("po",), _POD_FIELDS),
    _builtin("Event", "", "events", True, ("ev",), _EVENT_FIELDS),
    _builtin("ConfigMap", "", "configmaps", True, ("cm",)),
    _builtin("Secret", "", "secrets", True, (), ("type",)),
    _builtin("Job", "batch", "jobs", True, (), ("status.successful",)),
    _builtin("StatefulSet", "apps", "statefulsets", True, ("sts",)),
    _builtin("Deployment", "apps", "deployments", True, ("deploy",)),
    _builtin("ReplicaSet", "apps", "replicasets", True, ("rs",)),
    _builtin("Lease", "coordination.k8s.io", "leases", True),
)

JOB_CRD_TYPES: tuple[ResourceType, ...] = (
    ResourceType("JobSet", "jobset.x-k8s.io", ("v1alpha2",), "jobsets", True),
    ResourceType("RayJob", "ray.io", ("v1",), "rayjobs", True),
    ResourceType("RayCluster", "ray.io", ("v1",), "rayclusters", True),
    ResourceType("RayService", "ray.io", ("v1",), "rayservices", True),
    ResourceType("PyTorchJob", "kubeflow.org", ("v1",), "pytorchjobs", True),
    ResourceType("TFJob", "kubeflow.org", ("v1",), "tfjobs", True),
    ResourceType("PaddleJob", "kubeflow.org", ("v1",), "paddlejobs", True),
    ResourceType("XGBoostJob", "kubeflow.org", ("v1",), "xgboostjobs", True),
    ResourceType("JAXJob", "kubeflow.org", ("v1",), "jaxjobs", True),
    ResourceType("MPIJob", "kubeflow.org", ("v2beta1",), "mpijobs", True),
    ResourceType("TrainJob", "trainer.kubeflow.org", ("v1alpha1",), "trainjobs", True),
    ResourceType("LeaderWorkerSet", "leaderworkerset.x-k8s.io", ("v1",), "leaderworkersets", True),
    ResourceType("AppWrapper", "workload.codeflare.dev", ("v1beta2",), "appwrappers", True),
    ResourceType("SparkApplication", "sparkoperator.k8s.io", ("v1beta2",), "sparkapplications", True),
)
JOB_CRD_KINDS: frozenset[str] = frozenset(t.kind for t in JOB_CRD_TYPES)


@cache
def kueue_types(crds_dir: Path = CRDS_DIR) -> tuple[ResourceType, ...]:
    """The Kueue kinds as their CRDs declare them (all served versions)."""
    types = []
    for path in sorted(crds_dir.glob("*.yaml")):
        crd = yaml.load(path.read_text(), Loader=yaml.CSafeLoader)
        spec, names = crd["spec"], crd["spec"]["names"]
        # the storage version first: it is the preferred one in discovery
        served = sorted((v for v in spec["versions"] if v.get("served")), key=lambda v: not v.get("storage"))
        types.append(
            ResourceType(
                kind=names["kind"],
                group=spec["group"],
                versions=tuple(v["name"] for v in served),
                plural=names["plural"],
                namespaced=spec["scope"] == "Namespaced",
                short_names=tuple(names.get("shortNames", ())),
                has_status=any("status" in v.get("subresources", {}) for v in served),
                selectable_fields=tuple(
                    {f["jsonPath"].lstrip("."): None for v in served for f in v.get("selectableFields", ())}
                ),
            )
        )
    return tuple(types)


class Registry:
    """The kinds one fake server serves, looked up by kind or by (group, plural)."""

    def __init__(self, kueue_versions: Collection[str], job_kinds: Collection[str]) -> None:
        unknown = set(job_kinds) - JOB_CRD_KINDS
        if unknown:
            raise ValueError(f"unknown job kinds {sorted(unknown)}; known: {sorted(JOB_CRD_KINDS)}")
        kueue = [t.with_versions(kueue_versions) for t in kueue_types()]
        jobs = [t for t in JOB_CRD_TYPES if t.kind in job_kinds]
        self._types = [t for t in (*BUILTIN_TYPES, *kueue, *jobs) if t.versions]
        self._by_kind = {t.kind: t for t in self._types}
        self._by_resource = {(t.group, t.plural): t for t in self._types}

    def __iter__(self) -> Iterator[ResourceType]:
        return iter(self._types)

    def by_kind(self, kind: str) -> ResourceType | None:
        return self._by_kind.get(kind)

    def by_resource(self, group: str, version: str, plural: str) -> ResourceType | None:
        found = self._by_resource.get((group, plural))
        return found if found is not None and version in found.versions else None

    def for_object(self, api_version: str, kind: str) -> ResourceType | None:
        """The served type of an object's apiVersion+kind, or None."""
        group, _, version = api_version.rpartition("/")
        found = self._by_kind.get(kind)
        return found if found is not None and found.group == group and version in found.versions else None

    def group_versions(self) -> dict[str, list[str]]:
        """Served group -> versions, preferred first, in registration order ("" is the core group)."""
        groups: dict[str, list[str]] = {}
        for t in self._types:
            versions = groups.setdefault(t.group, [])
            versions.extend(v for v in t.versions if v not in versions)
        return groups
