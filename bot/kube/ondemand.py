"""What the informer cache does not hold, read for one question, in worker threads.

The cache holds Kueue's objects. A question may also need: the job (any integration kind, by its API
group), its pods and their events once its Workload is admitted, the events of a job without a Workload,
the Namespace (only when a ClusterQueue's namespaceSelector looks at its labels), the nodes (only when
admitted pods wait and a flavor names node labels), and Kueue's pending-workloads API for the queue
positions (the LocalQueue endpoint first, then the ClusterQueue's; answers kept `pending_ttl` seconds).

Cost of a question about a pending Workload in steady state: none. The Workload is found in the cache by
its owner reference (or its name), so the job is not read; nothing else is needed before admission; the
position is the cache's own order, or a pending-workloads answer still fresh (one request per queue per
`pending_ttl`, none with `visibility=False`). The job, pods and events are read only once admitted (or
when the cache knows no Workload for that job: to say whether it exists and why it has none; or when
Kueue evicted its Workload for the PodsReady timeout: the job, its pods and events, and the namespace's
Warning events about Pods, whose deleted pods' events say why they never became ready).

`CacheSource` puts the cache and these reads behind the service's SnapshotSource port.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from bot.errors import ClusterUnavailable, Forbidden, NotServed
from bot.kube import kinds
from bot.kube.cache import CacheView, ClusterCache
from bot.kube.client import KubeClient, NotFound
from bot.kube.decode import read_or_unreadable
from bot.kube.reads import Reads
from bot.trace import podsready, rootcause
from bot.trace.model import (
    NOTIFY_ANNOTATION,
    NOTIFY_EMAIL_ANNOTATION,
    PROVISIONING_CONTROLLER,
    QUEUE_NAME_LABEL,
    Job,
    Pod,
    Workload,
)
from bot.trace.unreadable import Unreadable

log = logging.getLogger(__name__)

_METADATA_NAME = "kubernetes.io/metadata.name"
_NEEDS_NAMESPACE = "ondemand.needs-namespace"
# Labels that select a job's pods, per kind (the others: every pod of the namespace).
_POD_LABELS = {
    "Job": "batch.kubernetes.io/job-name",
    "JobSet": "jobset.sigs.k8s.io/jobset-name",
    "LeaderWorkerSet": "leaderworkerset.sigs.k8s.io/name",
    "RayJob": "ray.io/originated-from-cr-name",
}
_PODS_EXAMINED = 3  # the trace looks at the first three waiting pods
_OWNER_CHAIN = 4  # the job and up to three owners above it are read for notify annotations


def _decoded(raw: Mapping[str, Any]) -> list[object]:
    """The objects read, or the record of one the bot cannot read (the answer names it)."""
    decoded = read_or_unreadable(raw)
    for item in decoded:
        if isinstance(item, Unreadable):
            log.info("on-demand object unreadable", extra={"kind": item.kind, "error": item.reason})
    return decoded


def _pick(workloads: list[Workload]) -> Workload | None:
    """As the trace picks: not finished first, then the newest."""
    if not workloads:
        return None
    return sorted(
        workloads, key=lambda w: (w.finished, -(w.meta.created.timestamp() if w.meta.created else 0.0), w.name)
    )[0]


class OnDemand:
    """On-demand reads for questions, beside a ClusterCache. `monotonic` is the clock of the TTLs."""

    def __init__(
        self,
        client: KubeClient,
        cache: ClusterCache,
        *,
        visibility: bool = True,
        pending_ttl: float = 10.0,
        namespace_ttl: float = 60.0,
        monotonic: Callable[[], float] = time.monotonic,
        owners_ttl: float = 600.0,
    ) -> None:
        self.client = client
        self.cache = cache
        self.visibility = visibility
        self.pending_ttl = pending_ttl
        self.namespace_ttl = namespace_ttl
        self.monotonic = monotonic
        self.reads = Reads(client)
        self._pending: dict[tuple[str, str], tuple[float, list[object]]] = {}
        self._namespaces: dict[str, tuple[float, list[object]]] = {}
        self.owners_ttl = owners_ttl
        self._owners: dict[tuple[str, str, str], tuple[float, tuple[str, ...]]] = {}

    # --- blocking reads (worker threads) ------------------------------------------------------------

    def read_job(self, namespace: str, name: str, kind: str | None) -> list[object]:
        """The job (kind None: a batch Job, else the first kind that has one); with a kind and no such
        job, its neighbours in the namespace (for "did you mean"): `bot.kube.reads`."""
        return [
            o for raw in self.reads.job(namespace, name, kind) for o in _decoded(raw) if isinstance(o, Job | Unreadable)
        ]

    def read_events(self, namespace: str, kind: str, name: str) -> list[object]:
        return self._events(namespace, f"involvedObject.kind={kind},involvedObject.name={name}")

    def read_pod_warnings(self, namespace: str) -> list[object]:
        """The namespace's Warning events about Pods: those of a job's pods deleted when Kueue evicted it for
        the PodsReady timeout say why they never became ready (bot.trace.rootcause)."""
        return self._events(namespace, "involvedObject.kind=Pod,type=Warning")

    def _events(self, namespace: str, selector: str) -> list[object]:
        try:
            items = self.client.list(
                kinds.CORE["Event"].path("v1", namespace), {"fieldSelector": selector}, what="events"
            )
            return [obj for item in items for obj in _decoded(item)]
        except (Forbidden, NotFound) as error:
            log.info("events not read", extra={"namespace": namespace, "error": str(error)})
            return []

    def read_pods(self, job: Job, workload: Workload) -> list[object]:
        namespace = job.meta.namespace or ""
        label = _POD_LABELS.get(job.meta.kind)
        query: dict[str, str | int] = {"labelSelector": f"{label}={job.meta.name}"} if label else {}
        try:
            items = self.client.list(kinds.CORE["Pod"].path("v1", namespace), query, what="pods")
            return [obj for item in items for obj in _decoded(item) if isinstance(obj, Pod)]
        except (Forbidden, NotFound) as error:
            log.info("pods not read", extra={"namespace": namespace, "error": str(error)})
            return []

    def read_queued_pods(self, namespace: str, queue: str) -> list[object]:
        """The namespace's pods that name LocalQueue `queue` (label kueue.x-k8s.io/queue-name, which Kueue's
        Deployment webhook puts on the pod template): a Deployment's pods, each with its own Workload before
        v0.20; the trace picks the Deployment's own through their ReplicaSet (bot.trace.resolve)."""
        query: dict[str, str | int] = {"labelSelector": f"{QUEUE_NAME_LABEL}={queue}"}
        try:
            items = self.client.list(kinds.CORE["Pod"].path("v1", namespace), query, what="pods")
            return [obj for item in items for obj in _decoded(item) if isinstance(obj, Pod)]
        except (Forbidden, NotFound) as error:
            log.info("pods not read", extra={"namespace": namespace, "error": str(error)})
            return []

    def read_provisioning(self, workload: Workload) -> list[object]:
        """For a Workload held by a ProvisioningRequest check: the namespace's ProvisioningRequests (any served
        version) and the checks' ProvisioningRequestConfigs. Nothing when they cannot be read."""
        namespace = workload.namespace
        found: list[object] = []
        checks = [self.cache.admission_check(c.name) for c in workload.checks if c.state != "Ready"]
        provisioning = [c for c in checks if c is not None and c.controller == PROVISIONING_CONTROLLER]
        if not provisioning:
            return found
        for version in kinds.PROVISIONING_REQUEST.versions:
            try:
                path = kinds.PROVISIONING_REQUEST.path(version, namespace)
                items = list(self.client.list(path, what="provisioning requests"))
            except (Forbidden, NotFound) as error:
                log.info("provisioning requests not read", extra={"namespace": namespace, "error": str(error)})
                continue
            found.extend(obj for item in items for obj in _decoded(item))
            break
        for name in sorted({c.parameters[1] for c in provisioning if c.parameters[1]}):
            for version in kinds.PROVISIONING_CONFIG.versions:
                try:
                    raw = self.client.get(kinds.PROVISIONING_CONFIG.path(version, name=name), what="the config")
                except (Forbidden, NotFound) as error:
                    log.info("provisioning config not read", extra={"config": name, "error": str(error)})
                    continue
                found.extend(_decoded(raw))
                break
        return found

    def read_nodes(self) -> list[object]:
        try:
            items = self.client.list(kinds.CORE["Node"].path("v1"), what="nodes")
            return [obj for item in items for obj in _decoded(item)]
        except (Forbidden, NotFound) as error:
            log.info("nodes not read", extra={"error": str(error)})
            return []

    def read_multikueue_clusters(self, version: str) -> dict[str, tuple[str, str, str]]:
        """MultiKueueCluster name -> (Active status True|False|Unknown, reason, message). {} when the
        kind is not served or may not be read."""
        path = f"/apis/{kinds.KUEUE_GROUP}/{version or kinds.KUEUE_VERSIONS[0]}/multikueueclusters"
        try:
            items = list(self.client.list(path, what="MultiKueueClusters"))
        except (Forbidden, NotFound, NotServed) as error:
            log.info("MultiKueueClusters not read", extra={"error": str(error)})
            return {}
        found: dict[str, tuple[str, str, str]] = {}
        for item in items:
            name = str((item.get("metadata") or {}).get("name") or "")
            conditions = (item.get("status") or {}).get("conditions") or []
            active = next((c for c in conditions if isinstance(c, dict) and c.get("type") == "Active"), None)
            if not name:
                continue
            if active is None:
                found[name] = ("Unknown", "", "")
            else:
                found[name] = (
                    str(active.get("status", "Unknown")),
                    str(active.get("reason", "")),
                    str(active.get("message", "")),
                )
        return found

    def read_namespace(self, namespace: str) -> list[object]:
        try:
            return _decoded(self.client.get(kinds.CORE["Namespace"].path("v1", name=namespace), what="the namespace"))
        except (Forbidden, NotFound) as error:
            log.info("namespace not read", extra={"namespace": namespace, "error": str(error)})
            return []

    def read_pending(self, namespace: str, local_queue: str, cluster_queue: str) -> list[object]:
        """The pending-workloads API's answer for the LocalQueue, else for the ClusterQueue ([]: none)."""
        summary, notes = self.reads.pending_summary(namespace, local_queue, cluster_queue)
        for note in notes:
            log.info("pending-workloads API not read", extra={"error": note})
        return _decoded(summary) if summary is not None else []

    # --- memoised reads -----------------------------------------------------------------------------

    async def pending_entries(self, namespace: str, local_queue: str, cluster_queue: str) -> list[object]:
        key = (namespace, local_queue)
        now = self.monotonic()
        memo = self._pending.get(key)
        if memo is not None and memo[0] > now:
            return memo[1]
        entries = await asyncio.to_thread(self.read_pending, namespace, local_queue, cluster_queue)
        self._pending[key] = (self.monotonic() + self.pending_ttl, entries)
        return entries

    async def namespace_object(self, namespace: str) -> list[object]:
        now = self.monotonic()
        memo = self._namespaces.get(namespace)
        if memo is not None and memo[0] > now:
            return memo[1]
        found = await asyncio.to_thread(self.read_namespace, namespace)
        self._namespaces[namespace] = (self.monotonic() + self.namespace_ttl, found)
        return found

    # --- a question ---------------------------------------------------------------------------------

    def cached_workload(self, namespace: str, name: str, kind: str | None) -> Workload | None:
        """The job's Workload as the cache knows it, by owner reference (or by name for kind Workload)."""
        if kind == "Workload":
            return self.cache.workload(namespace, name)
        return _pick(self.cache.workloads_owned_by(namespace, kind, name))

    def _needs_namespace(self, namespace: str) -> bool:
        """Whether a ClusterQueue the namespace's LocalQueues feed selects namespaces by labels other than the
        name (then the Namespace object is read). From LocalQueues and ClusterQueues only: kept per namespace in
        the cache's memo of the small kinds, which a change to any of them renews."""
        table = self.cache.memos().setdefault(_NEEDS_NAMESPACE, {})
        assert isinstance(table, dict)
        found = table.get(namespace)
        if found is None:
            found = table[namespace] = self._selects_by_labels(namespace)
        return bool(found)

    def _selects_by_labels(self, namespace: str) -> bool:
        for local_queue in self.cache.local_queues_in(namespace):
            cq = self.cache.cluster_queue(local_queue.cluster_queue)
            selector = cq.namespace_selector if cq is not None else None
            if selector is not None and (set(selector.match_labels) | {r.key for r in selector.expressions}) - {
                _METADATA_NAME
            }:
                return True
        return False

    async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> CacheView:
        """The cache's view for this question plus what it needs read now. Raises ClusterUnavailable,
        Forbidden, NotServed from the reads it cannot do without (the job's kind not served)."""
        workload = self.cached_workload(namespace, name, kind)
        extras = await self._job_extras(namespace, name, kind, workload)
        if workload is not None:
            extras.extend(await self._position_extras(namespace, workload))
            if workload.checks and workload.is_true("QuotaReserved") and not workload.admitted:
                extras.extend(await asyncio.to_thread(self.read_provisioning, workload))
            if podsready.blocked(workload):  # blockAdmission: who holds it back, from every namespace (no request)
                extras.extend(self.cache.workloads_not_ready())
        if self._needs_namespace(namespace):
            extras.extend(await self.namespace_object(namespace))
        return self.cache.view(namespace, extras, owners=(name,) if kind != "Workload" else ())

    async def _job_extras(self, namespace: str, name: str, kind: str | None, workload: Workload | None) -> list[object]:
        """The job, read when the cache knows no Workload for it (with its events: why it has none), when
        its Workload is admitted and running (with its pods, their events and the nodes: what they wait for),
        or when Kueue evicted it for the PodsReady timeout (what kept its pods from being ready)."""
        evicted = workload is not None and not workload.finished and rootcause.evicted_for_pods_ready(workload)
        quiet = workload is not None and (not workload.admitted or workload.finished) and not evicted
        if kind == "Workload" or quiet:  # a pending Workload needs nothing read (but one evicted for its pods)
            return []
        extras: list[object] = list(await asyncio.to_thread(self.read_job, namespace, name, kind))
        job = next((o for o in extras if isinstance(o, Job) and o.meta.name == name), None)
        if job is not None and workload is None:
            extras.extend(await self._without_workload(job))
        if job is not None and workload is not None and evicted and not workload.admitted:
            extras.extend(await self._evicted(job, workload))
        elif job is not None and workload is not None:
            extras.extend(await self._admitted(job, workload))
        return extras

    async def _without_workload(self, job: Job) -> list[object]:
        """A job the cache knows no Workload for: its events (why it has none) and, for a Deployment (a Workload
        per pod before v0.20), the pods that name its queue."""
        namespace = job.meta.namespace or ""
        found = list(await asyncio.to_thread(self.read_events, namespace, job.meta.kind, job.meta.name))
        if job.meta.kind == "Deployment" and job.queue_name:
            found.extend(await asyncio.to_thread(self.read_queued_pods, namespace, job.queue_name))
        return found

    async def _evicted(self, job: Job, workload: Workload) -> list[object]:
        """Evicted for the PodsReady timeout: the pods left, the job's events (FailedCreate) and the namespace's
        Warning events about Pods (the evicted pods are gone; their events say why they never became ready)."""
        namespace = job.meta.namespace or ""
        found: list[object] = list(await asyncio.to_thread(self.read_pods, job, workload))
        found.extend(await asyncio.to_thread(self.read_events, namespace, job.meta.kind, job.meta.name))
        found.extend(await asyncio.to_thread(self.read_pod_warnings, namespace))
        return found

    async def _position_extras(self, namespace: str, workload: Workload) -> list[object]:
        """The pending-workloads answer of a Workload waiting for quota in a known LocalQueue."""
        if not self.visibility or not workload.queue_name or workload.is_true("QuotaReserved") or workload.finished:
            return []
        local_queue = self.cache.local_queue(namespace, workload.queue_name)
        if local_queue is None:
            return []
        return list(await self.pending_entries(namespace, workload.queue_name, local_queue.cluster_queue))

    async def _admitted(self, job: Job, workload: Workload) -> list[object]:
        pods = [p for p in await asyncio.to_thread(self.read_pods, job, workload) if isinstance(p, Pod)]
        found: list[object] = list(pods)
        waiting = [p for p in pods if p.phase == "Pending" and not p.node_name][:_PODS_EXAMINED]
        # the unscheduled pods' events, and those of pods on a node that are not ready (rootcause)
        failing = [p for p in rootcause.not_ready(pods) if p.node_name][:_PODS_EXAMINED]
        for pod in [*waiting, *failing]:
            found.extend(await asyncio.to_thread(self.read_events, pod.meta.namespace or "", "Pod", pod.meta.name))
        if not pods:  # none created: the job's events say why (FailedCreate)
            namespace = job.meta.namespace or ""
            found.extend(await asyncio.to_thread(self.read_events, namespace, job.meta.kind, job.meta.name))
        assignments = workload.admission.assignments if workload.admission else ()
        flavors = {flavor for assignment in assignments for flavor in assignment.flavors.values()}
        labelled = [f for f in flavors if (known := self.cache.flavor(f)) is not None and known.node_labels]
        if waiting and labelled:
            found.extend(await asyncio.to_thread(self.read_nodes))
        return found

    # --- the notifier: the notify annotations of a job and its owners (the cache holds no jobs) ---------

    def _get_job(self, namespace: str, kind: str, name: str) -> Job | None:
        raw = self.reads.job_object(namespace, kind, name)
        return next((o for o in _decoded(raw) if isinstance(o, Job)), None) if raw is not None else None

    def read_job_owners(self, namespace: str, kind: str, name: str) -> tuple[str, ...]:
        """The kueue-bot.io/notify(-email) values on the job and on its owners, up the chain."""
        found: list[str] = []
        todo, seen = [(kind, name)], set[tuple[str, str]]()
        while todo and len(seen) < _OWNER_CHAIN:
            current = todo.pop(0)
            if current in seen:
                continue
            seen.add(current)
            try:
                job = self._get_job(namespace, *current)
            except (Forbidden, NotServed, ClusterUnavailable) as error:
                log.info("a job's owners not read", extra={"job": f"{namespace}/{name}", "error": str(error)})
                break
            if job is None:
                continue
            for key in (NOTIFY_ANNOTATION, NOTIFY_EMAIL_ANNOTATION):
                value = job.meta.annotations.get(key, "").strip()
                if value and value not in found:
                    found.append(value)
            todo += [(o.kind, o.name) for o in job.meta.owners if o.kind in kinds.JOBS]
        return tuple(found)

    async def job_owners(self, namespace: str, kind: str | None, name: str) -> tuple[str, ...]:
        """read_job_owners, remembered `owners_ttl` seconds per job."""
        key = (namespace, kind or "Job", name)
        now = self.monotonic()
        memo = self._owners.get(key)
        if memo is not None and memo[0] > now:
            return memo[1]
        found = await asyncio.to_thread(self.read_job_owners, *key)
        self._owners[key] = (self.monotonic() + self.owners_ttl, found)
        return found


class CacheSource:
    """The informer cache and on-demand reads as the service's snapshot source (start/stop owned here)."""

    tells_changes = True

    def __init__(self, cache: ClusterCache, ondemand: OnDemand) -> None:
        self.cache = cache
        self.ondemand = ondemand

    @classmethod
    def connect(
        cls, client: KubeClient, *, clock: Callable[[], datetime], visibility: bool = True, freeze_gc: bool = True
    ) -> CacheSource:
        """The production source: the cache freezes the garbage collector's view once synced (see
        `bot.kube.cache`, "Garbage collector")."""
        cache = ClusterCache(client, clock=clock, freeze_gc=freeze_gc)
        return cls(cache, OnDemand(client, cache, visibility=visibility))

    async def start(self) -> None:
        await self.cache.start()

    async def stop(self) -> None:
        await self.cache.stop()

    @property
    def ready(self) -> bool:
        return self.cache.ready

    def taken_at(self) -> datetime | None:
        return self.cache.taken_at

    @property
    def freezes_gc(self) -> bool:
        """Whether the cache freezes the collector once synced (production): the notifier then does too."""
        return self.cache.freeze_gc

    @property
    def away(self) -> bool:
        """Synced once, but its API server does not answer now (the cache answers, with its age)."""
        return bool(self.cache.errors)

    async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> CacheView:
        return await self.ondemand.snapshot_for(namespace, name, kind)

    async def multikueue_clusters(self) -> dict[str, tuple[str, str, str]]:
        """For MultiKueue answers: each MultiKueueCluster's Active condition, read now."""
        return await asyncio.to_thread(self.ondemand.read_multikueue_clusters, self.cache.version)

    def add_listener(self, listener: Callable[[], None]) -> None:
        """The cache's change listener (the notifier wakes on cluster changes)."""
        self.cache.add_listener(listener)

    async def job_owners(self, namespace: str, kind: str | None, name: str) -> tuple[str, ...]:
        """For the notifier (bot.service.ports.SnapshotSource.job_owners): who the job's annotations name."""
        return await self.ondemand.job_owners(namespace, kind, name)

    def stats(self) -> dict[str, dict[str, int]]:
        """For /metrics: objects cached per kind; relists, watch restarts and objects skipped as unreadable per
        kind since the start."""
        informers = self.cache.informers
        return {
            "objects": self.cache.counts(),
            "relists": {kind: max(0, informer.lists - 1) for kind, informer in informers.items()},
            "watch_restarts": {kind: max(0, informer.watches - 1) for kind, informer in informers.items()},
            "unreadable": {kind: informer.unreadable for kind, informer in informers.items()},
        }

    async def snapshot(self) -> ClusterCache:
        """The live cache: consistent for code that reads it on the loop thread without awaiting."""
        return self.cache
