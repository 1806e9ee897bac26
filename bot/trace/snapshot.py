"""What the engine reads: a consistent view of the cluster, as a Protocol, and an in-memory implementation.

The informer cache (`bot.kube.cache`) implements the same Protocol with incremental indexes; a dump file
and the tests use `MemorySnapshot`.
"""

from __future__ import annotations

import operator
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from bot.trace.model import (
    JOB_UID_LABEL,
    AdmissionCheck,
    ClusterQueue,
    Cohort,
    Event,
    Job,
    LocalQueue,
    Namespace,
    Node,
    PendingEntry,
    Pod,
    PriorityClass,
    ProvisioningConfig,
    ProvisioningRequest,
    ResourceFlavor,
    Workload,
)
from bot.trace.unreadable import Unreadable

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ORDER_EVICTIONS = frozenset({"PodsReadyTimeout", "AdmissionCheck"})


def queue_order_time(workload: Workload) -> datetime:
    """Kueue's queue-order timestamp: the eviction time after a PodsReady-timeout or admission-check
    eviction, else the creation time (FACTS §5.1)."""
    evicted = workload.condition("Evicted")
    if evicted is not None and evicted.is_true and evicted.reason in _ORDER_EVICTIONS and evicted.since:
        return evicted.since
    return workload.meta.created or _EPOCH


def queue_order_key(workload: Workload) -> tuple[int, datetime, str]:
    """Higher priority first, then older queue-order time, then UID."""
    return (-workload.priority, queue_order_time(workload), workload.meta.uid or workload.name)


def on_hold(workload: Workload) -> bool:
    """Kueue v0.20 released the Workload's quota on purpose (QuotaReserved=False, reason OnHold: a StatefulSet
    scaled to zero): not admissible, so not in any queue until the hold ends (FACTS §3.1, workload.go
    IsAdmissible)."""
    reserved = workload.condition("QuotaReserved")
    return reserved is not None and reserved.is_false and reserved.reason == "OnHold"


def waits_in_queue(workload: Workload) -> bool:
    """Whether Kueue keeps this Workload in its ClusterQueue's pending list (heap or parked): IsAdmissible
    (pkg/workload/workload.go) leaves out the gated, the finished, the inactive, the reserved, the ones on
    hold and a pod group waiting for replacement pods."""
    if not workload.active or workload.finished or workload.is_true("QuotaReserved"):
        return False
    if workload.meta.annotations.get("kueue.x-k8s.io/admission-gated-by"):
        return False
    if on_hold(workload) or workload.is_true("WaitingForReplacementPods"):
        return False
    requeued = workload.condition("Requeued")
    return not (requeued is not None and requeued.is_false)


def holds_admission(workload: Workload) -> bool:
    """Whether waitForPodsReady.blockAdmission waits on this Workload: it holds quota (QuotaReserved=True,
    admitted or not yet), is not finished, and its PodsReady condition is not True (Kueue's cache puts every
    reservation in its ClusterQueue's WorkloadsNotReady until then: upstream pkg/cache/scheduler/
    clusterqueue.go:497-499, v0.14 pkg/cache/clusterqueue.go:438-441)."""
    return workload.is_true("QuotaReserved") and not workload.finished and not workload.is_true("PodsReady")


def in_queue_order(local_queue: LocalQueue) -> bool:
    """Whether Kueue's queue manager holds this LocalQueue's Workloads: a LocalQueue with a stopPolicy
    (Hold or HoldAndDrain) is never added to it (pkg/controller/core/localqueue_controller.go Create:
    `AddLocalQueue` only when `StopPolicy == None`; Update: `DeleteLocalQueue` when it stops), so its
    Workloads have no position and nobody waits behind them."""
    return local_queue.stop_policy in ("", "None")


class Snapshot(Protocol):
    """A read-only, consistent view of the cluster objects the trace needs."""

    @property
    def taken_at(self) -> datetime | None:
        """When the view was last known to match the cluster (None: a dump of unknown age)."""

    @property
    def read_scope(self) -> str | None:
        """The one namespace whose Workloads and LocalQueues were read, when those of the others could not be
        (None: every namespace). A queue order computed from such a view is a lower bound within that
        namespace, and a count of LocalQueues counts that namespace's only."""

    def jobs_named(self, namespace: str, name: str) -> Sequence[Job]: ...
    def jobs_in(self, namespace: str) -> Sequence[Job]: ...
    def workload(self, namespace: str, name: str) -> Workload | None: ...
    def workloads_in(self, namespace: str) -> Sequence[Workload]: ...
    def workloads_for_job_uid(self, namespace: str, uid: str) -> Sequence[Workload]: ...
    def workloads_of_owner(self, namespace: str, name: str) -> Sequence[Workload]:
        """The namespace's Workloads with an owner reference of that name (any kind), from an index."""

    def workloads_in_cluster_queue(self, cluster_queue: str) -> Sequence[Workload]: ...
    def unreadable_in(self, namespace: str) -> Sequence[Unreadable]:
        """The namespace's objects the bot could not read (bot.trace.unreadable)."""

    def sequences_token(self) -> object | None:
        """An object two views return only while `workloads_in_cluster_queue` gives both the same sequence for
        every ClusterQueue (a memo read from many of them checks it once, not each); None when there is none."""

    def local_queue(self, namespace: str, name: str) -> LocalQueue | None: ...
    def local_queues_in(self, namespace: str) -> Sequence[LocalQueue]: ...
    def local_queues_of(self, cluster_queue: str) -> Sequence[LocalQueue]: ...
    def cluster_queue(self, name: str) -> ClusterQueue | None: ...
    def cluster_queues(self) -> Sequence[ClusterQueue]: ...
    def flavor(self, name: str) -> ResourceFlavor | None: ...
    def cohort(self, name: str) -> Cohort | None: ...
    def cohorts(self) -> Sequence[Cohort]: ...
    def admission_check(self, name: str) -> AdmissionCheck | None: ...
    def provisioning_config(self, name: str) -> ProvisioningConfig | None:
        """A ProvisioningRequestConfig, when the source read it (None: absent or not read)."""

    def provisioning_requests_in(self, namespace: str) -> Sequence[ProvisioningRequest]:
        """The namespace's ProvisioningRequests the source read ([] when it reads none)."""

    def priority_class(self, name: str) -> PriorityClass | None: ...
    def namespace(self, name: str) -> Namespace | None: ...
    def namespaces(self) -> Sequence[Namespace]: ...
    def pods_in(self, namespace: str) -> Sequence[Pod]: ...
    def events_about(self, namespace: str, kind: str, name: str) -> Sequence[Event]: ...
    def events_in(self, namespace: str) -> Sequence[Event]:
        """Every event the source read in the namespace, oldest first (the events of pods that are gone, whose
        names the source does not know: a job evicted for the PodsReady timeout has its pods deleted)."""

    def nodes(self) -> Sequence[Node]: ...
    def pending_entry(self, namespace: str, name: str) -> PendingEntry | None:
        """The Workload's row in a pending-workloads API answer, when one is known."""

    def workloads_not_ready(self) -> Sequence[Workload]:
        """Every Workload, of any namespace and ClusterQueue, that waitForPodsReady.blockAdmission waits on
        (`holds_admission`), when the source knows them."""

    def pending_in(self, cluster_queue: str) -> Sequence[Workload]:
        """The Workloads waiting in a ClusterQueue, in Kueue's order (computed)."""

    def position_in(self, cluster_queue: str, workload: Workload) -> tuple[int, int] | None:
        """0-based (position in the ClusterQueue, position in its LocalQueue), computed; None if absent."""

    def memos(self) -> dict[object, object]:
        """Where the trace keeps what it derives from this view (the cohort quota trees, running totals of
        demand): kept by the source while its ClusterQueues, Cohorts, LocalQueues, flavors, checks and
        priority classes stay as they are, a new one after any change to them (with what `carry_over`
        keeps of the old one). What also depends on other objects (Workloads, queue orders) is checked
        against them by identity: a sequence this view hands out is the same object for as long as it is
        unchanged."""


# --- memos that outlive a renewal of the small kinds ---------------------------------------------------------
#
# On a live cluster a ClusterQueue's status changes with every admission (its reservation, its pending count),
# and the source renews `memos()` with it: what the trace derived from a queue's Workloads alone (its ETA
# Estimator, the running totals of its demand, the holders of its tree) would be rebuilt for the next question
# though none of it changed. Such a memo is a `LastingTable` in `memos()`, which knows which of its entries
# still hold: a new `memos()` starts with those whose source sequences are still the ones the source hands
# out (`live`), so that what was derived from Workloads gone or changed is let go (a kept entry holds its
# sequence alive). A memo that is a `HandedOver` goes to the next `memos()`'s builder instead. Nothing is
# registered anywhere else: a memo's policy lives in it, and dies with the `memos()` that holds it.

Live = Mapping[int, object]  # the sequences the source hands out now, by id
Keep = Callable[[Any, Live], bool]


class LastingTable(dict[Any, Any]):
    """A memo table of `memos()` that outlives a renewal: `keep(entry, live)` tells whether an entry still
    holds (`still_handed_out(live, sequence)`: whether the source still hands out that sequence)."""

    __slots__ = ("keep",)

    def __init__(self, keep: Keep) -> None:
        super().__init__()
        self.keep = keep

    def carried(self, live: Live | None) -> LastingTable:
        """The table a new `memos()` starts with: the entries that still hold; every one when `live` is None
        (the source tells that none of the sequences it handed out was let go since the last renewal)."""
        table = LastingTable(self.keep)
        if live is None:
            table.update(self)
        elif self.keep is read_current:  # the most entries (a part per queue and resource): read here, not called
            table.update({k: entry for k, entry in self.items() if live.get(id(entry[0])) is entry[0]})
        else:
            keep = self.keep
            table.update({k: entry for k, entry in self.items() if keep(entry, live)})
        return table


def lasting_table(memos: dict[object, object], name: str, keep: Keep) -> LastingTable:
    """The LastingTable kept under `name` in `memos` (a view's `memos()`), made empty on first use."""
    table = memos.get(name)
    if not isinstance(table, LastingTable):
        table = memos[name] = LastingTable(keep)
    return table


class HandedOver:
    """A memo of `memos()` that a renewal does not keep but hands to the next one's builder, under the key
    `previous(name)` (what of it still holds, the builder tells)."""

    __slots__ = ()


def previous(name: str) -> tuple[str, str]:
    return ("previous", name)


def same_objects(old: Sequence[object], new: Sequence[object]) -> bool:
    """The same objects, one by one (how a memo checks the sequences it was derived from)."""
    return len(old) == len(new) and all(map(operator.is_, old, new))


def still_handed_out(live: Live, sequence: object) -> bool:
    return live.get(id(sequence)) is sequence


def read_current(entry: Any, live: Live) -> bool:
    """`keep` for an entry (sequence it was derived from, ...): while the source hands out that sequence."""
    return live.get(id(entry[0])) is entry[0]


def reads_all_current(entry: Any, live: Live) -> bool:
    """`keep` for an entry (sequences it was derived from, ...): while the source hands out every one."""
    return all(live.get(id(sequence)) is sequence for sequence in entry[0])


def carry_over(memos: dict[object, object], live: Live | None) -> dict[object, object]:
    """What a new `memos()` starts with: of the old one's memos, each LastingTable's entries that still hold
    (every one of them when `live` is None: see `LastingTable.carried`), and each HandedOver under
    `previous(its key)`."""
    kept: dict[object, object] = {}
    for key, value in memos.items():
        if isinstance(value, LastingTable):
            kept[key] = value.carried(live)
        elif isinstance(value, HandedOver) and isinstance(key, str):
            kept[previous(key)] = value
    return kept


@dataclass(frozen=True)
class _Order:
    workloads: tuple[Workload, ...]
    positions: dict[tuple[str, str], tuple[int, int]]


class MemorySnapshot:
    """A Snapshot over lists of decoded objects, indexed once. Cheap to query, immutable once built."""

    def __init__(
        self,
        objects: Iterable[object],
        *,
        taken_at: datetime | None = None,
        read_scope: str | None = None,
    ) -> None:
        self._taken_at = taken_at
        self._read_scope = read_scope
        self._jobs: dict[tuple[str, str], list[Job]] = defaultdict(list)
        self._jobs_by_ns: dict[str, list[Job]] = defaultdict(list)
        self._workloads: dict[tuple[str, str], Workload] = {}
        self._workloads_by_ns: dict[str, list[Workload]] = defaultdict(list)
        self._by_job_uid: dict[tuple[str, str], list[Workload]] = defaultdict(list)
        self._by_owner: dict[tuple[str, str], list[Workload]] = defaultdict(list)
        self._in_cluster_queue: dict[str, tuple[Workload, ...]] = {}
        self._memos: dict[object, object] = {}
        self._local_queues: dict[tuple[str, str], LocalQueue] = {}
        self._lqs_by_ns: dict[str, list[LocalQueue]] = defaultdict(list)
        self._lqs_by_cq: dict[str, list[LocalQueue]] = defaultdict(list)
        self._cluster_queues: dict[str, ClusterQueue] = {}
        self._flavors: dict[str, ResourceFlavor] = {}
        self._cohorts: dict[str, Cohort] = {}
        self._checks: dict[str, AdmissionCheck] = {}
        self._provisioning_configs: dict[str, ProvisioningConfig] = {}
        self._provisioning_requests: dict[str, list[ProvisioningRequest]] = defaultdict(list)
        self._priorities: dict[str, PriorityClass] = {}
        self._namespaces: dict[str, Namespace] = {}
        self._pods: dict[str, list[Pod]] = defaultdict(list)
        self._events: dict[tuple[str, str, str], list[Event]] = defaultdict(list)
        self._events_by_ns: dict[str, list[Event]] = defaultdict(list)
        self._nodes: list[Node] = []
        self._pending: dict[tuple[str, str], PendingEntry] = {}
        self._orders: dict[str, _Order] = {}
        self._not_ready: tuple[Workload, ...] | None = None
        self._unreadable: dict[str, list[Unreadable]] = defaultdict(list)
        for item in objects:
            self._add(item)
        for events in (*self._events.values(), *self._events_by_ns.values()):
            events.sort(key=lambda event: event.last_seen or _EPOCH)

    def _add(self, item: object) -> None:
        """Index one decoded object by its kind; objects of other kinds are ignored (a subclass is its kind)."""
        for kind in type(item).__mro__:
            add = _ADDERS.get(kind)
            if add is not None:
                add(self, item)
                return

    def _add_workload(self, item: Workload) -> None:
        self._workloads[(item.namespace, item.name)] = item
        self._workloads_by_ns[item.namespace].append(item)
        uid = item.meta.labels.get(JOB_UID_LABEL)
        if uid:
            self._by_job_uid[(item.namespace, uid)].append(item)
        for owner in dict.fromkeys(o.name for o in item.meta.owners):
            self._by_owner[(item.namespace, owner)].append(item)

    def _add_job(self, item: Job) -> None:
        namespace = item.meta.namespace or ""
        self._jobs[(namespace, item.meta.name)].append(item)
        self._jobs_by_ns[namespace].append(item)

    def _add_local_queue(self, item: LocalQueue) -> None:
        namespace = item.meta.namespace or ""
        self._local_queues[(namespace, item.name)] = item
        self._lqs_by_ns[namespace].append(item)
        self._lqs_by_cq[item.cluster_queue].append(item)

    def _add_cluster_queue(self, item: ClusterQueue) -> None:
        self._cluster_queues[item.name] = item

    def _add_flavor(self, item: ResourceFlavor) -> None:
        self._flavors[item.name] = item

    def _add_cohort(self, item: Cohort) -> None:
        self._cohorts[item.name] = item

    def _add_check(self, item: AdmissionCheck) -> None:
        self._checks[item.meta.name] = item

    def _add_provisioning_config(self, item: ProvisioningConfig) -> None:
        self._provisioning_configs[item.meta.name] = item

    def _add_provisioning_request(self, item: ProvisioningRequest) -> None:
        self._provisioning_requests[item.meta.namespace or ""].append(item)

    def _add_priority(self, item: PriorityClass) -> None:
        self._priorities[item.name] = item

    def _add_namespace(self, item: Namespace) -> None:
        self._namespaces[item.meta.name] = item

    def _add_pod(self, item: Pod) -> None:
        self._pods[item.meta.namespace or ""].append(item)

    def _add_event(self, item: Event) -> None:
        self._events[(item.namespace, item.involved_kind, item.involved_name)].append(item)
        self._events_by_ns[item.namespace].append(item)

    def _add_node(self, item: Node) -> None:
        self._nodes.append(item)

    def _add_pending(self, item: PendingEntry) -> None:
        self._pending[(item.namespace, item.name)] = item

    @property
    def taken_at(self) -> datetime | None:
        return self._taken_at

    @property
    def read_scope(self) -> str | None:
        return self._read_scope

    def jobs_named(self, namespace: str, name: str) -> Sequence[Job]:
        return self._jobs.get((namespace, name), [])

    def jobs_in(self, namespace: str) -> Sequence[Job]:
        return self._jobs_by_ns.get(namespace, [])

    def workload(self, namespace: str, name: str) -> Workload | None:
        return self._workloads.get((namespace, name))

    def workloads_in(self, namespace: str) -> Sequence[Workload]:
        return self._workloads_by_ns.get(namespace, [])

    def workloads_for_job_uid(self, namespace: str, uid: str) -> Sequence[Workload]:
        return self._by_job_uid.get((namespace, uid), [])

    def workloads_of_owner(self, namespace: str, name: str) -> Sequence[Workload]:
        return self._by_owner.get((namespace, name), [])

    def unreadable_in(self, namespace: str) -> Sequence[Unreadable]:
        return self._unreadable.get(namespace, ())

    def _add_unreadable(self, item: Unreadable) -> None:
        self._unreadable[item.namespace].append(item)

    def sequences_token(self) -> object | None:
        return self  # immutable: the same sequence for a ClusterQueue each time (made once, when first asked)

    def workloads_in_cluster_queue(self, cluster_queue: str) -> Sequence[Workload]:
        known = self._in_cluster_queue.get(cluster_queue)
        if known is None:
            known = self._in_cluster_queue[cluster_queue] = tuple(self._in_cluster_queue_now(cluster_queue))
        return known

    def _in_cluster_queue_now(self, cluster_queue: str) -> list[Workload]:
        found: list[Workload] = []
        for local_queue in self._lqs_by_cq.get(cluster_queue, []):
            namespace = local_queue.meta.namespace or ""
            found.extend(w for w in self.workloads_in(namespace) if w.queue_name == local_queue.name)
        known = {(w.namespace, w.name) for w in found}
        found.extend(
            w
            for w in self._workloads.values()
            if w.admission is not None
            and w.admission.cluster_queue == cluster_queue
            and (w.namespace, w.name) not in known
        )
        return found

    def local_queue(self, namespace: str, name: str) -> LocalQueue | None:
        return self._local_queues.get((namespace, name))

    def local_queues_in(self, namespace: str) -> Sequence[LocalQueue]:
        return self._lqs_by_ns.get(namespace, [])

    def local_queues_of(self, cluster_queue: str) -> Sequence[LocalQueue]:
        return self._lqs_by_cq.get(cluster_queue, [])

    def cluster_queue(self, name: str) -> ClusterQueue | None:
        return self._cluster_queues.get(name)

    def cluster_queues(self) -> Sequence[ClusterQueue]:
        return list(self._cluster_queues.values())

    def flavor(self, name: str) -> ResourceFlavor | None:
        return self._flavors.get(name)

    def cohort(self, name: str) -> Cohort | None:
        return self._cohorts.get(name)

    def cohorts(self) -> Sequence[Cohort]:
        return list(self._cohorts.values())

    def admission_check(self, name: str) -> AdmissionCheck | None:
        return self._checks.get(name)

    def provisioning_config(self, name: str) -> ProvisioningConfig | None:
        return self._provisioning_configs.get(name)

    def provisioning_requests_in(self, namespace: str) -> Sequence[ProvisioningRequest]:
        return self._provisioning_requests.get(namespace, ())

    def priority_class(self, name: str) -> PriorityClass | None:
        return self._priorities.get(name)

    def namespace(self, name: str) -> Namespace | None:
        return self._namespaces.get(name)

    def namespaces(self) -> Sequence[Namespace]:
        return list(self._namespaces.values())

    def pods_in(self, namespace: str) -> Sequence[Pod]:
        return self._pods.get(namespace, [])

    def events_about(self, namespace: str, kind: str, name: str) -> Sequence[Event]:
        return self._events.get((namespace, kind, name), [])

    def events_in(self, namespace: str) -> Sequence[Event]:
        return self._events_by_ns.get(namespace, [])

    def nodes(self) -> Sequence[Node]:
        return self._nodes

    def pending_entry(self, namespace: str, name: str) -> PendingEntry | None:
        return self._pending.get((namespace, name))

    def workloads_not_ready(self) -> Sequence[Workload]:
        if self._not_ready is None:
            self._not_ready = tuple(w for w in self._workloads.values() if holds_admission(w))
        return self._not_ready

    def _order(self, cluster_queue: str) -> _Order:
        order = self._orders.get(cluster_queue)
        if order is None:
            waiting: list[Workload] = []
            for local_queue in self._lqs_by_cq.get(cluster_queue, []):
                if not in_queue_order(local_queue):
                    continue
                namespace = local_queue.meta.namespace or ""
                waiting.extend(
                    w for w in self.workloads_in(namespace) if w.queue_name == local_queue.name and waits_in_queue(w)
                )
            waiting.sort(key=queue_order_key)
            positions: dict[tuple[str, str], tuple[int, int]] = {}
            per_queue: dict[tuple[str, str], int] = defaultdict(int)
            for index, workload in enumerate(waiting):
                lq_key = (workload.namespace, workload.queue_name)
                positions[(workload.namespace, workload.name)] = (index, per_queue[lq_key])
                per_queue[lq_key] += 1
            order = _Order(tuple(waiting), positions)
            self._orders[cluster_queue] = order
        return order

    def pending_in(self, cluster_queue: str) -> Sequence[Workload]:
        return self._order(cluster_queue).workloads

    def position_in(self, cluster_queue: str, workload: Workload) -> tuple[int, int] | None:
        return self._order(cluster_queue).positions.get((workload.namespace, workload.name))

    def memos(self) -> dict[object, object]:
        return self._memos  # the snapshot never changes


_ADDERS: dict[type, Callable[[MemorySnapshot, Any], None]] = {
    Workload: MemorySnapshot._add_workload,
    Job: MemorySnapshot._add_job,
    LocalQueue: MemorySnapshot._add_local_queue,
    ClusterQueue: MemorySnapshot._add_cluster_queue,
    ResourceFlavor: MemorySnapshot._add_flavor,
    Cohort: MemorySnapshot._add_cohort,
    AdmissionCheck: MemorySnapshot._add_check,
    ProvisioningConfig: MemorySnapshot._add_provisioning_config,
    ProvisioningRequest: MemorySnapshot._add_provisioning_request,
    PriorityClass: MemorySnapshot._add_priority,
    Namespace: MemorySnapshot._add_namespace,
    Pod: MemorySnapshot._add_pod,
    Event: MemorySnapshot._add_event,
    Node: MemorySnapshot._add_node,
    PendingEntry: MemorySnapshot._add_pending,
    Unreadable: MemorySnapshot._add_unreadable,
}
"""How MemorySnapshot indexes each kind of decoded object."""
