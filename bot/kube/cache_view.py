"""One question's detached, immutable view of the informer cache (`ClusterCache.view`), and the copies of
the small kinds that every view shares until one of them changes."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from bot.kube.cache_index import OrderEntry, OrderKey, order_key
from bot.kube.informer import Key
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
from bot.trace.snapshot import MemorySnapshot
from bot.trace.unreadable import Unreadable

if TYPE_CHECKING:
    from bot.kube.cache_index import CacheIndex


class SmallKinds:
    """Copies of the small kinds for views (shared by every view until one of them changes), and the
    cohort trees: which ClusterQueues share a tree, and which of those report no reservation."""

    def __init__(
        self, cache: CacheIndex, memos: dict[object, object] | None = None, previous: SmallKinds | None = None
    ) -> None:
        self.local_queues = dict(cache._lqs)
        self.lqs_by_ns: dict[str, tuple[LocalQueue, ...]]
        self.lqs_by_cq: dict[str, tuple[LocalQueue, ...]]
        if previous is not None and previous.local_queues == self.local_queues:  # the same objects: the same groups
            self.lqs_by_ns, self.lqs_by_cq = previous.lqs_by_ns, previous.lqs_by_cq
        else:
            self.lqs_by_ns = {ns: tuple(bucket.values()) for ns, bucket in cache._lq_ns.items()}
            self.lqs_by_cq = {cq: tuple(bucket.values()) for cq, bucket in cache._lq_cq.items()}
        self.cluster_queues = dict(cache._cqs)
        self.flavors = dict(cache._flavors)
        self.cohorts = dict(cache._cohorts)
        self.checks = dict(cache._checks)
        self.priorities = dict(cache._priorities)
        self.cluster_queue_list = tuple(self.cluster_queues.values())
        self.cohort_list = tuple(self.cohorts.values())
        # the trace's, for every view of these (Snapshot.memos): what the last one's carries over, if given
        self.memos: dict[object, object] = memos if memos is not None else {}
        # The Workloads of every ClusterQueue of the cohort trees a question reads, by `trees_key` (the namespaces
        # whose queues are in the same trees share them; ClusterCache.view, which drops an entry when a
        # ClusterQueue of its trees changes). Here, so that a renewal lets them all go.
        self.trees: dict[TreesKey, dict[str, tuple[Workload, ...]]] = {}
        self._root_of: dict[str, str]
        self._members_of: dict[str, list[str]]
        if previous is not None and previous.cohorts == self.cohorts and _same_cohorts(previous, self):
            # A status update (Kueue's, with every admission): every ClusterQueue in its cohort, the same trees.
            self._root_of, self._members_of = previous._root_of, previous._members_of
        else:
            self._root_of = {
                name: _root(cq.cohort, self.cohorts) for name, cq in self.cluster_queues.items() if cq.cohort
            }
            self._members_of = {}
            for name, root in self._root_of.items():
                self._members_of.setdefault(root, []).append(name)

    def trees_key(self, focus: Iterable[str]) -> TreesKey:
        """What `trees_around(focus)` is made of: the roots of the trees of `focus`, and those of it in none."""
        root_of = self._root_of
        return frozenset([("root", root_of[name]) if name in root_of else ("cluster-queue", name) for name in focus])

    def trees_around(self, focus: Iterable[str]) -> set[str]:
        """The ClusterQueues sharing a cohort tree with any of `focus`, themselves included: a view holds their
        Workloads (who holds the quota a question waits for; the usage of those that report no reservation)."""
        found = set()
        for name in focus:
            found.add(name)
            root = self._root_of.get(name)
            if root is not None:
                found.update(self._members_of.get(root, ()))
        return found


def _index_in(
    order: tuple[Workload, ...], keys: tuple[OrderEntry, ...] | None, workload: Workload, key: OrderKey
) -> int | None:
    """Where `workload` (of order key `key`) is in a view's order (a tuple of Workloads sorted by order_key,
    and their order entries when known: a key sorts just before the entry that starts with it), or None."""
    if keys is not None and len(keys) == len(order):
        index = bisect_left(keys, key)
    else:
        index = bisect_left(order, key, key=order_key)
    if index < len(order):
        found = order[index]
        if found.name == workload.name and found.namespace == workload.namespace:
            return index
    return None


TreesKey = frozenset[tuple[str, str]]


def _same_cohorts(previous: SmallKinds, small: SmallKinds) -> bool:
    """The same ClusterQueues, each in the cohort it was in (the same objects mostly: one read of each)."""
    before = previous.cluster_queues
    if before.keys() != small.cluster_queues.keys():
        return False
    for name, cq in small.cluster_queues.items():
        old = before[name]
        if old is not cq and old.cohort != cq.cohort:
            return False
    return True


def _root(cohort: str, cohorts: Mapping[str, Cohort]) -> str:
    """The root of a cohort's tree (a cycle ends where it closes)."""
    seen = set()
    while cohort and cohort not in seen:
        seen.add(cohort)
        parent = cohorts[cohort].parent if cohort in cohorts else ""
        if not parent:
            return cohort
        cohort = parent
    return cohort


class CacheView:
    """One question's immutable view of the cache (see ClusterCache.view): safe to read from any thread."""

    def __init__(
        self,
        *,
        taken_at: datetime | None,
        namespace: str,
        workloads: dict[str, Workload],
        local_queues: dict[Key, LocalQueue],
        lqs_by_ns: dict[str, tuple[LocalQueue, ...]],
        lqs_by_cq: dict[str, tuple[LocalQueue, ...]],
        cluster_queues: dict[str, ClusterQueue],
        flavors: dict[str, ResourceFlavor],
        cohorts: dict[str, Cohort],
        checks: dict[str, AdmissionCheck],
        priorities: dict[str, PriorityClass],
        cq_orders: dict[str, tuple[Workload, ...]],
        lq_orders: dict[Key, tuple[Workload, ...]],
        in_cluster_queue: dict[str, tuple[Workload, ...]],
        extras: MemorySnapshot,
        owned: dict[str, tuple[Workload, ...]] | None = None,
        memos: dict[object, object] | None = None,
        lists: tuple[tuple[Workload, ...], tuple[ClusterQueue, ...], tuple[Cohort, ...]] | None = None,
        order_keys: tuple[dict[str, tuple[OrderEntry, ...]], dict[Key, tuple[OrderEntry, ...]]] | None = None,
    ) -> None:
        self._taken_at = taken_at
        self.focus = namespace
        self._workloads = workloads
        # The trace asks for these sequences many times (built once, with the parts they come from, if given).
        self._workload_list, self._cluster_queue_list, self._cohort_list = lists or (
            tuple(workloads.values()),
            tuple(cluster_queues.values()),
            tuple(cohorts.values()),
        )
        self._local_queues = local_queues
        self._lqs_by_ns = lqs_by_ns
        self._lqs_by_cq = lqs_by_cq
        self._cluster_queues = cluster_queues
        self._flavors = flavors
        self._cohorts = cohorts
        self._checks = checks
        self._priorities = priorities
        self._cq_orders = cq_orders
        self._lq_orders = lq_orders
        self._in_cq = in_cluster_queue
        # The orders' keys, when given (the cache keeps them with its orders): a place is a bisect of them.
        self._cq_keys, self._lq_keys = order_keys or ({}, {})
        self.extras = extras
        self._owned = owned or {}
        self._memos = memos if memos is not None else {}

    @property
    def taken_at(self) -> datetime | None:
        return self._taken_at

    @property
    def read_scope(self) -> str | None:
        return None

    def jobs_named(self, namespace: str, name: str) -> Sequence[Job]:
        return self.extras.jobs_named(namespace, name)

    def jobs_in(self, namespace: str) -> Sequence[Job]:
        return self.extras.jobs_in(namespace)

    def workload(self, namespace: str, name: str) -> Workload | None:
        return self._workloads.get(name) if namespace == self.focus else None

    def workloads_in(self, namespace: str) -> Sequence[Workload]:
        return self._workload_list if namespace == self.focus else ()

    def workloads_for_job_uid(self, namespace: str, uid: str) -> Sequence[Workload]:
        if namespace != self.focus:
            return ()
        return tuple(w for w in self._workloads.values() if w.meta.labels.get(JOB_UID_LABEL) == uid)

    def unreadable_in(self, namespace: str) -> Sequence[Unreadable]:
        return self.extras.unreadable_in(namespace)

    def workloads_of_owner(self, namespace: str, name: str) -> Sequence[Workload]:
        if namespace != self.focus:
            return ()
        owned = self._owned.get(name)
        if owned is not None:
            return owned
        return tuple(w for w in self._workload_list if any(o.name == name for o in w.meta.owners))

    def workloads_in_cluster_queue(self, cluster_queue: str) -> Sequence[Workload]:
        return self._in_cq.get(cluster_queue, ())

    def sequences_token(self) -> object | None:
        # The cache makes this mapping once and hands it to every view of the same trees until one of their
        # ClusterQueues' Workloads changes (ClusterCache._trees_view): the same mapping, the same sequences.
        return self._in_cq

    def local_queue(self, namespace: str, name: str) -> LocalQueue | None:
        return self._local_queues.get((namespace, name))

    def local_queues_in(self, namespace: str) -> Sequence[LocalQueue]:
        return self._lqs_by_ns.get(namespace, ())

    def local_queues_of(self, cluster_queue: str) -> Sequence[LocalQueue]:
        return self._lqs_by_cq.get(cluster_queue, ())

    def cluster_queue(self, name: str) -> ClusterQueue | None:
        return self._cluster_queues.get(name)

    def cluster_queues(self) -> Sequence[ClusterQueue]:
        return self._cluster_queue_list

    def flavor(self, name: str) -> ResourceFlavor | None:
        return self._flavors.get(name)

    def cohort(self, name: str) -> Cohort | None:
        return self._cohorts.get(name)

    def cohorts(self) -> Sequence[Cohort]:
        return self._cohort_list

    def admission_check(self, name: str) -> AdmissionCheck | None:
        return self._checks.get(name)

    def provisioning_config(self, name: str) -> ProvisioningConfig | None:
        return self.extras.provisioning_config(name)  # read for a question, not cached

    def provisioning_requests_in(self, namespace: str) -> Sequence[ProvisioningRequest]:
        return self.extras.provisioning_requests_in(namespace)

    def priority_class(self, name: str) -> PriorityClass | None:
        return self._priorities.get(name)

    def namespace(self, name: str) -> Namespace | None:
        return self.extras.namespace(name)

    def namespaces(self) -> Sequence[Namespace]:
        return self.extras.namespaces()

    def pods_in(self, namespace: str) -> Sequence[Pod]:
        return self.extras.pods_in(namespace)

    def events_about(self, namespace: str, kind: str, name: str) -> Sequence[Event]:
        return self.extras.events_about(namespace, kind, name)

    def events_in(self, namespace: str) -> Sequence[Event]:
        return self.extras.events_in(namespace)

    def workloads_not_ready(self) -> Sequence[Workload]:
        return self.extras.workloads_not_ready()  # read into the extras for a question that needs them

    def nodes(self) -> Sequence[Node]:
        return self.extras.nodes()

    def pending_entry(self, namespace: str, name: str) -> PendingEntry | None:
        return self.extras.pending_entry(namespace, name)

    def pending_in(self, cluster_queue: str) -> Sequence[Workload]:
        return self._cq_orders.get(cluster_queue, ())

    def memos(self) -> dict[object, object]:
        return self._memos

    def position_in(self, cluster_queue: str, workload: Workload) -> tuple[int, int] | None:
        order = self._cq_orders.get(cluster_queue)
        if not order:
            return None
        key = order_key(workload)
        in_cq = _index_in(order, self._cq_keys.get(cluster_queue), workload, key)
        if in_cq is None:
            return None
        in_lq = None
        lq = (workload.namespace, workload.queue_name)
        lq_order = self._lq_orders.get(lq)
        if lq_order:
            in_lq = _index_in(lq_order, self._lq_keys.get(lq), workload, key)
        return (in_cq, in_lq if in_lq is not None else 0)
