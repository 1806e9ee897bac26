"""What the real-server suite writes, as the cluster's admin: a read-only identity bound to deploy/'s
ClusterRole, Kueue's objects and Jobs in namespaces of their own, and their removal (no garbage collector
on the kit's cluster: Workloads are deleted by hand, finalizers stripped, namespaces finalized)."""

from __future__ import annotations

import contextlib
import copy
import itertools
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from bot.errors import BotError
from bot.kube.client import JSON_PATCH, KubeClient, NotFound

KUEUE = "/apis/kueue.x-k8s.io"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
FINALIZERS = [{"op": "replace", "path": "/metadata/finalizers", "value": []}]


@dataclass
class Queues:
    """A 2-CPU ClusterQueue fed by a LocalQueue in a namespace of its own, and the Jobs made there."""

    namespace: str
    flavor: str
    cluster_queue: str
    local_queue: str = "lq"


class Cluster:
    def __init__(self, admin: KubeClient, run_id: str) -> None:
        self.admin = admin
        self.run_id = run_id
        self.reader_namespace = f"kueue-bot-real-{run_id}"
        self.reader_path = Path()
        self.kueue_version = admin.served_version("kueue.x-k8s.io", ("v1beta2", "v1beta1")) or "v1beta1"
        self.kueue_running = admin.served_version("visibility.kueue.x-k8s.io", ("v1beta2", "v1beta1")) is not None

    # --- the read-only identity -------------------------------------------------------------------

    def reader_kubeconfig(self, cluster_role: Mapping[str, Any], path: Path) -> Path:
        """A ServiceAccount bound to `cluster_role` (renamed for this run) and a kubeconfig with its token."""
        name = f"kueue-bot-real-{self.run_id}"
        role = copy.deepcopy(dict(cluster_role))
        role["metadata"] = {"name": name}
        self.admin.create("/api/v1/namespaces", _namespace(self.reader_namespace))
        self.admin.create(
            f"/api/v1/namespaces/{self.reader_namespace}/serviceaccounts",
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "reader"}},
        )
        self.admin.create(f"{RBAC}/clusterroles", role)
        self.admin.create(
            f"{RBAC}/clusterrolebindings",
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRoleBinding",
                "metadata": {"name": name},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
                "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": self.reader_namespace}],
            },
        )
        answer = self.admin.create(
            f"/api/v1/namespaces/{self.reader_namespace}/serviceaccounts/reader/token",
            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 7200}},
        )
        configuration = self.admin.api_client.configuration
        cluster: dict[str, Any] = {"server": configuration.host}
        if configuration.ssl_ca_cert:
            cluster["certificate-authority"] = configuration.ssl_ca_cert
        path.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [{"name": "real", "cluster": cluster}],
                    "users": [{"name": "reader", "user": {"token": answer["status"]["token"]}}],
                    "contexts": [{"name": "reader", "context": {"cluster": "real", "user": "reader"}}],
                    "current-context": "reader",
                }
            )
        )
        return path

    def remove_reader(self) -> None:
        name = f"kueue-bot-real-{self.run_id}"
        self._quietly_delete(f"{RBAC}/clusterrolebindings/{name}")
        self._quietly_delete(f"{RBAC}/clusterroles/{name}")
        # No namespace controller here: what a deleted namespace holds stays unless deleted itself.
        self._quietly_delete(f"/api/v1/namespaces/{self.reader_namespace}/serviceaccounts/reader")
        self.remove_namespace(self.reader_namespace)

    # --- Kueue's objects and Jobs -----------------------------------------------------------------

    def kueue_path(self, plural: str, namespace: str = "", name: str = "") -> str:
        base = f"{KUEUE}/{self.kueue_version}"
        where = f"{base}/namespaces/{namespace}/{plural}" if namespace else f"{base}/{plural}"
        return f"{where}/{name}" if name else where

    def create_namespace(self, name: str) -> None:
        self.admin.create("/api/v1/namespaces", _namespace(name))

    def flavor(self, name: str) -> None:
        self.admin.create(self.kueue_path("resourceflavors"), self._kueue("ResourceFlavor", name, {}))

    def cluster_queue(self, name: str, flavor: str, cpu: str) -> dict[str, Any]:
        spec = {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [{"name": flavor, "resources": [{"name": "cpu", "nominalQuota": cpu}]}],
                }
            ],
        }
        return self.admin.create(self.kueue_path("clusterqueues"), self._kueue("ClusterQueue", name, spec))

    def set_quota(self, name: str, cpu: str) -> None:
        patch = [{"op": "replace", "path": "/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota", "value": cpu}]
        self.admin.patch(self.kueue_path("clusterqueues", name=name), patch, content_type=JSON_PATCH)

    def local_queue(self, namespace: str, name: str, cluster_queue: str) -> None:
        body = self._kueue("LocalQueue", name, {"clusterQueue": cluster_queue}) | {}
        body["metadata"]["namespace"] = namespace
        self.admin.create(self.kueue_path("localqueues", namespace), body)

    def job(
        self, namespace: str, name: str, queue: str, cpu: str, *, annotations: dict[str, str] | None = None
    ) -> dict[str, Any]:
        container = {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}
        metadata = {"name": name, "namespace": namespace, "labels": {"kueue.x-k8s.io/queue-name": queue}}
        body = {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {**metadata, "annotations": annotations or {}},
            "spec": {
                "suspend": True,
                "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
            },
        }
        return self.admin.create(f"/apis/batch/v1/namespaces/{namespace}/jobs", body)

    def _kueue(self, kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
        return {
            "apiVersion": f"kueue.x-k8s.io/{self.kueue_version}",
            "kind": kind,
            "metadata": {"name": name},
            "spec": spec,
        }

    # --- removal ----------------------------------------------------------------------------------

    def remove_namespace(self, namespace: str) -> None:
        """Its Jobs, Workloads (finalizers stripped), LocalQueues, then the namespace (finalized)."""
        for path in (
            f"/apis/batch/v1/namespaces/{namespace}/jobs",
            self.kueue_path("workloads", namespace),
            self.kueue_path("localqueues", namespace),
        ):
            for item in self._items(path):
                self._strip_and_delete(f"{path}/{item['metadata']['name']}")
        self._quietly_delete(f"/api/v1/namespaces/{namespace}")
        try:
            current = self.admin.get(f"/api/v1/namespaces/{namespace}")
        except NotFound:
            return
        current["spec"] = {"finalizers": []}
        self._quietly(lambda: self.admin.replace(f"/api/v1/namespaces/{namespace}/finalize", current))

    def remove_cluster_scoped(self, plural: str, name: str) -> None:
        self._strip_and_delete(self.kueue_path(plural, name=name))

    def _items(self, path: str) -> list[dict[str, Any]]:
        try:
            return list(self.admin.list(path))
        except BotError:
            return []

    def _strip_and_delete(self, path: str) -> None:
        self._quietly_delete(path)
        self._quietly(lambda: self.admin.patch(path, FINALIZERS, content_type=JSON_PATCH))

    def _quietly_delete(self, path: str) -> None:
        self._quietly(lambda: self.admin.delete(path))

    @staticmethod
    def _quietly(call: Any) -> None:
        with contextlib.suppress(BotError):  # already gone, or nothing to strip
            call()


def _namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


# --- a `kubectl get -o yaml` dump loaded into the real server (apiserver mode) ------------------------

# Created in this order: what others point at first; Workloads after their Jobs (owner uids), Events last.
LOAD_ORDER = (
    "Namespace",
    "WorkloadPriorityClass",
    "ResourceFlavor",
    "AdmissionCheck",
    "Topology",
    "Cohort",
    "ClusterQueue",
    "LocalQueue",
    "Node",
    "Job",
    "Workload",
    "Pod",
    "Event",
)
# What the server sets itself and refuses or ignores from a client.
SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink", "finalizers")
# Labels the Job controller's defaulting writes from the old uid; the server makes them again.
JOB_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name")


@dataclass
class Loaded:
    """What a dump made on the server, to remove it afterwards; `differences` says what could not be copied;
    `clock` maps a time of the dump onto the server's time line (see DumpLoader)."""

    namespaces: list[str] = field(default_factory=list)
    cluster_scoped: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    anchors: list[tuple[datetime, datetime]] = field(default_factory=list)

    def clock(self, moment: datetime) -> datetime:
        """Monotonic and piecewise linear through (dump creation, server creation) of every Workload; after the
        last creation a time keeps its distance to it, as before the first."""
        points = sorted(dict(sorted(self.anchors, reverse=True)).items())
        if not points:
            return moment
        if moment <= points[0][0]:
            return points[0][1] - (points[0][0] - moment)
        for (d0, l0), (d1, l1) in itertools.pairwise(points):
            if moment <= d1:
                return l0 + (l1 - l0) * ((moment - d0) / (d1 - d0))
        return points[-1][1] + (moment - points[-1][0])

    def shifted(self, text: str) -> str:
        """`text` moved, in its own format (MicroTime keeps its microseconds: the server insists)."""
        return _stamp(self.clock(_parse(text)), micro="." in text)


def dump_objects(path: Path) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    for document in yaml.safe_load_all(path.read_text()):
        if not document:
            continue
        items = document.get("items") if document.get("kind") == "List" else [document]
        objects.extend(item for item in items or [] if isinstance(item, dict))
    return objects


class DumpLoader:
    """Creates every object of a dump through the API, then writes its status through `/status`, as Kueue and
    the Job controller would have; owner and event uids are rewritten to the new objects' uids.

    A real server stamps `creationTimestamp` itself, so the dump's times are moved onto the server's time line:
    objects are created in their dump's creation order, Workloads of different creation times a second apart,
    and every time written in a status or an Event (and the question's `--now`) goes through `Loaded.clock`,
    which keeps the order of all times (an eviction between two creations stays between them). Orders and
    verdicts are the dump's; lengths of time between creations are not (hours become seconds)."""

    def __init__(self, cluster: Cluster, sleep: Any = time.sleep) -> None:
        self.cluster = cluster
        self.sleep = sleep

    def load(self, path: Path) -> Loaded:
        loaded = Loaded()
        try:
            return self._load(path, loaded)
        except BaseException:
            self.remove(loaded)
            raise

    def _load(self, path: Path, loaded: Loaded) -> Loaded:
        uids: dict[str, str] = {}
        objects = [o for o in dump_objects(path) if o.get("kind") in LOAD_ORDER]
        objects.sort(key=lambda o: (LOAD_ORDER.index(o["kind"]), o.get("metadata", {}).get("creationTimestamp") or ""))
        statuses: list[tuple[str, dict[str, Any], Any]] = []
        previous_stamp = None
        for original in objects:
            body = copy.deepcopy(original)
            meta = body.setdefault("metadata", {})
            old_uid = meta.get("uid")
            stamp = meta.get("creationTimestamp")
            if body["kind"] == "Workload" and previous_stamp is not None and stamp != previous_stamp:
                self.sleep(1.05)  # the server stamps creation to the second
            if body["kind"] == "Workload":
                previous_stamp = stamp
            for key in SERVER_FIELDS:
                meta.pop(key, None)
            for owner in meta.get("ownerReferences", []):
                owner["uid"] = uids.get(owner.get("uid", ""), owner.get("uid", ""))
            if body["kind"] == "Event":
                involved = body.get("involvedObject", {})
                involved["uid"] = uids.get(involved.get("uid", ""), involved.get("uid", ""))
                involved.pop("resourceVersion", None)
                body = {k: (_shift_times(v, loaded) if k != "metadata" else v) for k, v in body.items()}
            if body["kind"] == "Job":
                _fresh_job(body)
            status = body.pop("status", None)
            collection = self.path_of(body)
            made = self.cluster.admin.create(collection, body)
            name = meta["name"]
            if old_uid:
                uids[old_uid] = made["metadata"]["uid"]
            if stamp and body["kind"] == "Workload":  # created in their dump order: monotonic
                loaded.anchors.append((_parse(stamp), _parse(made["metadata"]["creationTimestamp"])))
            namespace = meta.get("namespace")
            if body["kind"] == "Namespace":
                loaded.namespaces.append(name)
            elif not namespace:
                loaded.cluster_scoped.append(f"{collection}/{name}")
            if status and body["kind"] not in ("Namespace", "Event"):
                statuses.append((f"{collection}/{name}", made, status))
        for path_, made, status in statuses:  # once every creation time is known
            current = self.cluster.admin.get(path_)
            current["status"] = _shift_times(status, loaded)
            try:
                self.cluster.admin.replace(f"{path_}/status", current)
            except BotError as error:
                loaded.differences.append(f"{made['kind']} {made['metadata']['name']}: status refused ({error})")
        return loaded

    def path_of(self, body: Mapping[str, Any]) -> str:
        api_version = body["apiVersion"]
        group, _, version = api_version.rpartition("/")
        resource = RESOURCES[body["kind"]]
        namespace = body["metadata"].get("namespace")
        base = f"/apis/{group}/{version}" if group else f"/api/{version}"
        return f"{base}/namespaces/{namespace}/{resource}" if namespace else f"{base}/{resource}"

    def remove(self, loaded: Loaded) -> None:
        for namespace in loaded.namespaces:
            for plural in ("pods", "events"):  # pods at once: no kubelet confirms a graceful deletion
                for item in self.cluster._items(f"/api/v1/namespaces/{namespace}/{plural}"):
                    path = f"/api/v1/namespaces/{namespace}/{plural}/{item['metadata']['name']}"
                    self.cluster._quietly(
                        lambda path=path: self.cluster.admin.call(
                            "DELETE", path, query={"gracePeriodSeconds": 0}, writing=True
                        )
                    )
            self.cluster.remove_namespace(namespace)
        for path in reversed(loaded.cluster_scoped):
            self.cluster._strip_and_delete(path)


RESOURCES = {
    "Namespace": "namespaces",
    "Node": "nodes",
    "Pod": "pods",
    "Event": "events",
    "Job": "jobs",
    "Workload": "workloads",
    "LocalQueue": "localqueues",
    "ClusterQueue": "clusterqueues",
    "ResourceFlavor": "resourceflavors",
    "Cohort": "cohorts",
    "AdmissionCheck": "admissionchecks",
    "WorkloadPriorityClass": "workloadpriorityclasses",
    "Topology": "topologies",
}


TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def _parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _stamp(moment: datetime, *, micro: bool = False) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ" if micro else "%Y-%m-%dT%H:%M:%SZ")


def _shift_times(value: Any, loaded: Loaded) -> Any:
    """Every RFC 3339 time inside `value`, moved onto the server's time line."""
    if isinstance(value, dict):
        return {k: _shift_times(v, loaded) for k, v in value.items()}
    if isinstance(value, list):
        return [_shift_times(v, loaded) for v in value]
    if isinstance(value, str) and TIME.match(value):
        return loaded.shifted(value)
    return value


def _fresh_job(body: dict[str, Any]) -> None:
    """A Job as a client sends it: no selector made from the old uid (the server makes a new one)."""
    spec = body.get("spec", {})
    if not spec.get("manualSelector"):
        spec.pop("selector", None)
        labels = spec.get("template", {}).get("metadata", {}).get("labels", {})
        for key in JOB_LABELS:
            labels.pop(key, None)
    labels = body["metadata"].get("labels", {})
    for key in JOB_LABELS:
        labels.pop(key, None)
