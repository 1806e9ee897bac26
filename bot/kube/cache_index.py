"""The informer cache's stores, indexes and queue order (`bot.kube.cache` feeds them; loop thread only).

Every change updates, incrementally: Workloads by namespace and name, by owner name, by LocalQueue, by the
ClusterQueue they are admitted in; LocalQueues by namespace and by ClusterQueue; and the queue ORDER: per
ClusterQueue and per LocalQueue, a sorted list (`sortedcontainers.SortedList`) of the order entries of the
Workloads waiting there (Kueue's order, `queue_order_key`, then namespace/name, then the Workload itself: one
entry tuple shared by both lists; namespace and name make the key total, so the Workload is never compared).
`position_in()` is two bisections: O(log n), nothing sorted per question; a queue's Workloads in order are
read off its entries (no lookup by name). A watch update swaps the object in the indexes that hold it (and
the entry, in the orders). `CacheIndex` is also the live `Snapshot` of those objects (see `bot.kube.cache`
for when it is consistent); what questions copy of it is kept in `_views` until a change touches it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from operator import itemgetter
from typing import Any

from sortedcontainers import SortedList  # type: ignore[import-untyped,unused-ignore]

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
from bot.trace.snapshot import holds_admission, in_queue_order, queue_order_key, waits_in_queue

OrderKey = tuple[int, datetime, str, str, str]
# An order's entry: the key, then the Workload (a bisect by key finds its entry: a key sorts just before the
# entries that start with it).
OrderEntry = tuple[int, datetime, str, str, str, Workload]
_WORKLOAD = itemgetter(5)


def order_key(workload: Workload) -> OrderKey:
    """Kueue's queue order (`queue_order_key`), made total with namespace and name; one flat tuple."""
    priority, since, uid = queue_order_key(workload)
    return (priority, since, uid, workload.namespace, workload.name)


def _new_order() -> Any:
    return SortedList()


def _add_to(index: dict[Any, dict[Any, Any]], key: Any, name: Any, value: Any) -> None:
    bucket = index.get(key)
    if bucket is None:
        index[key] = {name: value}
    else:
        bucket[name] = value


def _remove_from(index: dict[Any, dict[Any, Any]], key: Any, name: Any) -> None:
    bucket = index.get(key)
    if bucket is not None:
        bucket.pop(name, None)
        if not bucket:
            del index[key]


# The index by owner name (any namespace; filtered on lookup): a key almost always has one Workload,
# held alone, else a dict by (namespace, name); a one-entry dict per Workload would cost ~180 bytes each.
Few = Workload | dict[Key, Workload]


def _same(one: Workload, other: Workload) -> bool:
    return one.meta.name == other.meta.name and one.meta.namespace == other.meta.namespace


def _add_few(index: dict[str, Few], token: str, workload: Workload) -> None:
    held = index.get(token)
    if held is None or (isinstance(held, Workload) and _same(held, workload)):
        index[token] = workload
    elif isinstance(held, Workload):
        index[token] = {held.meta.key: held, workload.meta.key: workload}
    else:
        held[workload.meta.key] = workload


def _remove_few(index: dict[str, Few], token: str, workload: Workload) -> None:
    held = index.get(token)
    if held is None:
        return
    if isinstance(held, Workload):
        if _same(held, workload):
            del index[token]
        return
    held.pop(workload.meta.key, None)
    if len(held) == 1:
        index[token] = next(iter(held.values()))


def _few_in(held: Few | None, namespace: str) -> tuple[Workload, ...]:
    if held is None:
        return ()
    if isinstance(held, Workload):
        return (held,) if held.namespace == namespace else ()
    return tuple(w for w in held.values() if w.namespace == namespace)


def _owner_names(workload: Workload) -> tuple[str, ...]:
    owners = workload.meta.owners
    if len(owners) == 1:
        return (owners[0].name,)
    return tuple(dict.fromkeys(owner.name for owner in owners))


_PRIORITIES: dict[int, int] = {}
_MAX_PRIORITIES = 1024


def _waiting_entry(workload: Workload) -> OrderEntry | None:
    """The Workload's order entry when it waits in its LocalQueue's order, else None."""
    if not (workload.queue_name and waits_in_queue(workload)):
        return None
    priority, since, uid = queue_order_key(workload)
    if len(_PRIORITIES) < _MAX_PRIORITIES:  # one int per priority (a few), not one per entry
        priority = _PRIORITIES.setdefault(priority, priority)
    return (priority, since, uid, workload.namespace, workload.name, workload)


SMALL_KEY = ("small", "")
# A namespace's part of a view: its Workloads by name, as a tuple, the ClusterQueues they are admitted in,
# and the order of each of its LocalQueues.
_NamespaceView = tuple[
    dict[str, Workload],
    tuple[Workload, ...],
    frozenset[str],
    dict[Key, tuple[Workload, ...]],
    dict[Key, tuple[OrderEntry, ...]],
]


def _position_in_keys(order: Any, workload: Workload) -> int | None:
    """Where `workload` is in a live order (a SortedList of order keys), or None."""
    index = order.bisect_left(order_key(workload))
    if index < len(order):
        found = order[index]
        if found[4] == workload.name and found[3] == workload.namespace:
            return int(index)
    return None


class CacheIndex:
    """The stores and indexes of the cached kinds, and the live Snapshot over them (loop thread only)."""

    def __init__(self) -> None:
        self._wl_ns: dict[str, dict[str, Workload]] = {}  # the Workloads, by namespace then name
        self._wl_owner: dict[str, Few] = {}  # owner name -> Workload(s), any namespace
        self._wl_lq: dict[Key, dict[str, Workload]] = {}
        self._wl_admitted: dict[str, dict[Key, Workload]] = {}
        self._cq_order: dict[str, Any] = {}  # cq -> SortedList[OrderEntry]
        self._lq_order: dict[Key, Any] = {}  # (ns, lq) -> SortedList[OrderEntry]
        self._lqs: dict[Key, LocalQueue] = {}
        self._lq_ns: dict[str, dict[str, LocalQueue]] = {}
        self._lq_cq: dict[str, dict[Key, LocalQueue]] = {}
        self._cqs: dict[str, ClusterQueue] = {}
        self._flavors: dict[str, ResourceFlavor] = {}
        self._cohorts: dict[str, Cohort] = {}
        self._checks: dict[str, AdmissionCheck] = {}
        self._priorities: dict[str, PriorityClass] = {}
        self._others: dict[str, dict[Key, object]] = {}
        self._views: dict[tuple[str, Any], Any] = {}  # what questions copy, kept until a change touches it
        # How many times a ClusterQueue's Workloads or queue order the cache handed out were let go (a change
        # in them, or every view cleared): a renewal of the small kinds with none let go since the last one
        # keeps every memo derived from them without reading them (ClusterCache._small_view).
        self.sequences_dropped = 0
        self._trees_read_by: dict[str, set[Any]] = {}  # cq -> the keys of the trees (SmallKinds.trees) that hold it

    # --- stores and indexes (loop thread only) ------------------------------------------------------

    def _keys(self, kind: str) -> Iterable[Key]:
        simple = self._simple_store(kind)
        if simple is not None:
            return [("", name) for name in simple]
        if kind == "Workload":
            return [(namespace, name) for namespace, bucket in self._wl_ns.items() for name in bucket]
        if kind == "LocalQueue":
            return self._lqs.keys()
        return self._others.get(kind, {}).keys()

    def _simple_store(self, kind: str) -> dict[str, Any] | None:
        stores: dict[str, dict[str, Any]] = {
            "ClusterQueue": self._cqs,
            "ResourceFlavor": self._flavors,
            "Cohort": self._cohorts,
            "AdmissionCheck": self._checks,
            "WorkloadPriorityClass": self._priorities,
        }
        return stores.get(kind)

    def _put(self, kind: str, key: Key, obj: object) -> None:
        if kind == "Workload" and isinstance(obj, Workload):
            old = self.workload(*key)
            if old is None:
                self._index_workload(key, obj)
            else:
                self._update_workload(key, old, obj)
            return
        if kind == "LocalQueue" and isinstance(obj, LocalQueue):
            self._put_local_queue(key, obj)
            return
        simple = self._simple_store(kind)
        if simple is not None:
            simple[key[1]] = obj
            self._views.pop(SMALL_KEY, None)
            return
        self._others.setdefault(kind, {})[key] = obj

    def _delete(self, kind: str, key: Key) -> None:
        if kind == "Workload":
            old = self.workload(*key)
            if old is not None:
                self._unindex_workload(key, old)
            return
        if kind == "LocalQueue":
            self._delete_local_queue(key)
            return
        simple = self._simple_store(kind)
        if simple is not None:
            simple.pop(key[1], None)
            self._views.pop(SMALL_KEY, None)
            return
        self._others.get(kind, {}).pop(key, None)

    def _cq_of(self, namespace: str, queue: str) -> str | None:
        local_queue = self._lqs.get((namespace, queue))
        return local_queue.cluster_queue if local_queue is not None else None

    def _ordered_cq_of(self, namespace: str, queue: str) -> str | None:
        """The ClusterQueue whose order holds this LocalQueue's Workloads: none while a stopPolicy keeps
        the LocalQueue out of Kueue's queue manager (`in_queue_order`)."""
        local_queue = self._lqs.get((namespace, queue))
        return local_queue.cluster_queue if local_queue is not None and in_queue_order(local_queue) else None

    def _forget_views(self, namespace: str, *cluster_queues: str | None) -> None:
        views = self._views
        views.pop(("ns", namespace), None)
        for cq in cluster_queues:
            if cq is not None:
                workloads = views.pop(("cq", cq), None)
                order = views.pop(("pending", cq), None)
                if workloads is not None or order is not None:
                    self.sequences_dropped += 1
                views.pop(("pending-keys", cq), None)
                readers = self._trees_read_by.pop(cq, ())
                small = views.get(SMALL_KEY) if readers else None
                if small is not None:
                    for reader in readers:
                        small.trees.pop(reader, None)

    def _index_workload(self, key: Key, workload: Workload) -> None:
        namespace, name = key
        _add_to(self._wl_ns, namespace, name, workload)
        for owner in _owner_names(workload):
            _add_few(self._wl_owner, owner, workload)
        queue = workload.queue_name
        cq = self._cq_of(namespace, queue) if queue else None
        if queue:
            _add_to(self._wl_lq, (namespace, queue), name, workload)
            waiting = _waiting_entry(workload)
            if waiting is not None:
                self._enqueue(namespace, queue, self._ordered_cq_of(namespace, queue), waiting)
        admitted_in = workload.admission.cluster_queue if workload.admission is not None else None
        if admitted_in is not None:
            _add_to(self._wl_admitted, admitted_in, key, workload)
        self._forget_views(namespace, cq, admitted_in)

    def _unindex_workload(self, key: Key, workload: Workload) -> None:
        namespace, name = key
        _remove_from(self._wl_ns, namespace, name)
        for owner in _owner_names(workload):
            _remove_few(self._wl_owner, owner, workload)
        queue = workload.queue_name
        cq = self._cq_of(namespace, queue) if queue else None
        if queue:
            _remove_from(self._wl_lq, (namespace, queue), name)
            waiting = _waiting_entry(workload)
            if waiting is not None:
                self._dequeue(namespace, queue, self._ordered_cq_of(namespace, queue), waiting)
        admitted_in = workload.admission.cluster_queue if workload.admission is not None else None
        if admitted_in is not None:
            _remove_from(self._wl_admitted, admitted_in, key)
        self._forget_views(namespace, cq, admitted_in)

    def _update_workload(self, key: Key, old: Workload, new: Workload) -> None:
        """`old` (indexed under `key`) becomes `new`: only what differs moves, the rest swaps the object."""
        namespace, name = key
        self._wl_ns[namespace][name] = new
        self._move_owners(old, new)
        old_cq, cq = self._move_queue(key, old, new)
        old_admitted = old.admission.cluster_queue if old.admission is not None else None
        admitted_in = new.admission.cluster_queue if new.admission is not None else None
        if old_admitted is not None and old_admitted != admitted_in:
            _remove_from(self._wl_admitted, old_admitted, key)
        if admitted_in is not None:
            _add_to(self._wl_admitted, admitted_in, key, new)
        self._forget_views(namespace, old_cq, cq, old_admitted, admitted_in)

    def _move_owners(self, old: Workload, new: Workload) -> None:
        new_owners = _owner_names(new)
        if old.meta.owners is not new.meta.owners:
            for owner in _owner_names(old):
                if owner not in new_owners:
                    _remove_few(self._wl_owner, owner, old)
        for owner in new_owners:
            _add_few(self._wl_owner, owner, new)

    def _move_queue(self, key: Key, old: Workload, new: Workload) -> tuple[str | None, str | None]:
        """The LocalQueue index and the queue orders, from `old` to `new`: (old ClusterQueue, new one)."""
        namespace, name = key
        old_queue, queue = old.queue_name, new.queue_name
        old_cq = self._cq_of(namespace, old_queue) if old_queue else None
        cq = old_cq if queue == old_queue else (self._cq_of(namespace, queue) if queue else None)
        if queue != old_queue:
            if old_queue:
                _remove_from(self._wl_lq, (namespace, old_queue), name)
            if queue:
                _add_to(self._wl_lq, (namespace, queue), name, new)
        elif queue:
            self._wl_lq[(namespace, queue)][name] = new
        old_waiting, waiting = _waiting_entry(old), _waiting_entry(new)
        if old_waiting is not None or waiting is not None:  # a new object: a new entry, even at the same place
            if old_waiting is not None:
                self._dequeue(namespace, old_queue, self._ordered_cq_of(namespace, old_queue), old_waiting)
            if waiting is not None:
                self._enqueue(namespace, queue, self._ordered_cq_of(namespace, queue), waiting)
        return old_cq, cq

    def _enqueue(self, namespace: str, queue: str, cq: str | None, waiting: OrderEntry) -> None:
        """Into its LocalQueue's order and, when that LocalQueue is known, its ClusterQueue's (one key)."""
        order = self._lq_order.get((namespace, queue))
        if order is None:
            order = self._lq_order[(namespace, queue)] = _new_order()
        order.add(waiting)
        if cq is not None:
            self._order_of_cq(cq).add(waiting)

    def _dequeue(self, namespace: str, queue: str, cq: str | None, waiting: OrderEntry) -> None:
        self._discard_from(self._lq_order, (namespace, queue), waiting)
        if cq is not None:
            self._discard_from(self._cq_order, cq, waiting)

    def _order_of_cq(self, cq: str) -> Any:
        order = self._cq_order.get(cq)
        if order is None:
            order = self._cq_order[cq] = _new_order()
        return order

    @staticmethod
    def _discard_from(orders: dict[Any, Any], key: Any, waiting: OrderEntry) -> None:
        order = orders.get(key)
        if order is None:
            return
        order.discard(waiting)
        if not order:
            del orders[key]

    def _put_local_queue(self, key: Key, local_queue: LocalQueue) -> None:
        old = self._lqs.get(key)
        old_cq = old.cluster_queue if old is not None and in_queue_order(old) else None
        new_cq = local_queue.cluster_queue if in_queue_order(local_queue) else None
        if old is not None:
            _remove_from(self._lq_cq, old.cluster_queue, key)
        namespace, name = key
        self._lqs[key] = local_queue
        _add_to(self._lq_ns, namespace, name, local_queue)
        _add_to(self._lq_cq, local_queue.cluster_queue, key, local_queue)
        if old_cq != new_cq:
            for waiting in list(self._lq_order.get(key) or ()):
                if old_cq is not None:
                    self._discard_from(self._cq_order, old_cq, waiting)
                if new_cq is not None:
                    self._order_of_cq(new_cq).add(waiting)
        if old is not None and old.cluster_queue == local_queue.cluster_queue and old_cq == new_cq:
            # Its place in the queues as it was (Kueue writes a LocalQueue's status with every admission in
            # it): only the views' copies of the small kinds are renewed, every order and what the trace
            # derived from them stays.
            self._views.pop(SMALL_KEY, None)
        else:
            self._views.clear()
            self.sequences_dropped += 1

    def _delete_local_queue(self, key: Key) -> None:
        old = self._lqs.pop(key, None)
        if old is None:
            return
        _remove_from(self._lq_ns, key[0], key[1])
        _remove_from(self._lq_cq, old.cluster_queue, key)
        if in_queue_order(old):
            for waiting in list(self._lq_order.get(key) or ()):
                self._discard_from(self._cq_order, old.cluster_queue, waiting)
        self._views.clear()
        self.sequences_dropped += 1

    @staticmethod
    def _in_order(order: Iterable[OrderEntry]) -> tuple[Workload, ...]:
        """The Workloads of an order's entries, in that order (read off them: looking them up by name cost a
        namespace's first question time that grew with the cluster)."""
        return tuple(map(_WORKLOAD, order))

    # --- extra lookups ------------------------------------------------------------------------------

    def workloads_owned_by(self, namespace: str, kind: str | None, name: str) -> list[Workload]:
        """The Workloads whose owner reference names this object (any kind when `kind` is None)."""
        return [
            workload
            for workload in _few_in(self._wl_owner.get(name), namespace)
            if any(o.name == name and (kind is None or o.kind == kind) for o in workload.meta.owners)
        ]

    def local_queue_position(self, workload: Workload) -> int | None:
        order = self._lq_order.get((workload.namespace, workload.queue_name))
        return _position_in_keys(order, workload) if order is not None else None

    # --- the Snapshot protocol (live; see the module's doc for when it is consistent) ---------------

    def jobs_named(self, namespace: str, name: str) -> Sequence[Job]:
        return ()

    def jobs_in(self, namespace: str) -> Sequence[Job]:
        return ()

    def workload(self, namespace: str, name: str) -> Workload | None:
        bucket = self._wl_ns.get(namespace)
        return bucket.get(name) if bucket is not None else None

    def workloads_in(self, namespace: str) -> Sequence[Workload]:
        return self._namespace_view(namespace)[1]

    def workloads_for_job_uid(self, namespace: str, uid: str) -> Sequence[Workload]:
        # Not indexed: the live cache holds no jobs, so the trace never asks it (a view answers for its own).
        return tuple(w for w in self.workloads_in(namespace) if w.meta.labels.get(JOB_UID_LABEL) == uid)

    def workloads_of_owner(self, namespace: str, name: str) -> Sequence[Workload]:
        return _few_in(self._wl_owner.get(name), namespace)

    def sequences_token(self) -> object | None:
        return None  # live: its sequences change with the cluster (a view's token: CacheView)

    def workloads_in_cluster_queue(self, cluster_queue: str) -> Sequence[Workload]:
        view: tuple[Workload, ...] | None = self._views.get(("cq", cluster_queue))
        if view is None:
            found: dict[Key, Workload] = {}
            for (namespace, queue), _ in self._lq_cq.get(cluster_queue, {}).items():
                for name, workload in self._wl_lq.get((namespace, queue), {}).items():
                    found[(namespace, name)] = workload
            for key, workload in self._wl_admitted.get(cluster_queue, {}).items():
                found.setdefault(key, workload)
            view = self._views[("cq", cluster_queue)] = tuple(found.values())
        return view

    def local_queue(self, namespace: str, name: str) -> LocalQueue | None:
        return self._lqs.get((namespace, name))

    def local_queues_in(self, namespace: str) -> Sequence[LocalQueue]:
        return tuple(self._lq_ns.get(namespace, {}).values())

    def local_queues_of(self, cluster_queue: str) -> Sequence[LocalQueue]:
        return tuple(self._lq_cq.get(cluster_queue, {}).values())

    def cluster_queue(self, name: str) -> ClusterQueue | None:
        return self._cqs.get(name)

    def cluster_queues(self) -> Sequence[ClusterQueue]:
        return tuple(self._cqs.values())

    def flavor(self, name: str) -> ResourceFlavor | None:
        return self._flavors.get(name)

    def cohort(self, name: str) -> Cohort | None:
        return self._cohorts.get(name)

    def cohorts(self) -> Sequence[Cohort]:
        return tuple(self._cohorts.values())

    def admission_check(self, name: str) -> AdmissionCheck | None:
        return self._checks.get(name)

    def provisioning_config(self, name: str) -> ProvisioningConfig | None:
        return None  # not cached: read for a question (CacheView's extras)

    def provisioning_requests_in(self, namespace: str) -> Sequence[ProvisioningRequest]:
        return ()

    def priority_class(self, name: str) -> PriorityClass | None:
        return self._priorities.get(name)

    def namespace(self, name: str) -> Namespace | None:
        return None

    def namespaces(self) -> Sequence[Namespace]:
        return ()

    def pods_in(self, namespace: str) -> Sequence[Pod]:
        return ()

    def events_about(self, namespace: str, kind: str, name: str) -> Sequence[Event]:
        return ()

    def events_in(self, namespace: str) -> Sequence[Event]:
        return ()

    def workloads_not_ready(self) -> Sequence[Workload]:
        """The Workloads waitForPodsReady.blockAdmission waits on, from those holding an admission (a scan:
        asked for a question Kueue holds back for them, bot.kube.ondemand)."""
        return tuple(w for held in self._wl_admitted.values() for w in held.values() if holds_admission(w))

    def nodes(self) -> Sequence[Node]:
        return ()

    def pending_entry(self, namespace: str, name: str) -> PendingEntry | None:
        return None

    def pending_in(self, cluster_queue: str) -> Sequence[Workload]:
        view: tuple[Workload, ...] | None = self._views.get(("pending", cluster_queue))
        if view is None:
            view = self._views[("pending", cluster_queue)] = self._in_order(self._cq_order.get(cluster_queue) or ())
        return view

    def pending_keys(self, cluster_queue: str) -> tuple[OrderEntry, ...]:
        """The order entries of `pending_in` (a view's position is a bisect of them by key), kept with it."""
        keys: tuple[OrderEntry, ...] | None = self._views.get(("pending-keys", cluster_queue))
        if keys is None:
            keys = self._views[("pending-keys", cluster_queue)] = tuple(self._cq_order.get(cluster_queue) or ())
        return keys

    def position_in(self, cluster_queue: str, workload: Workload) -> tuple[int, int] | None:
        order = self._cq_order.get(cluster_queue)
        if order is None:
            return None
        in_cq = _position_in_keys(order, workload)
        if in_cq is None:
            return None
        in_lq = self.local_queue_position(workload)
        return (in_cq, in_lq if in_lq is not None else 0)

    def _namespace_view(self, namespace: str) -> _NamespaceView:
        view: _NamespaceView | None = self._views.get(("ns", namespace))
        if view is None:
            workloads = dict(self._wl_ns.get(namespace, {}))
            view = self._views[("ns", namespace)] = (
                workloads,
                tuple(workloads.values()),
                frozenset(w.admission.cluster_queue for w in workloads.values() if w.admission is not None),
                {
                    (namespace, name): self._in_order(self._lq_order.get((namespace, name)) or ())
                    for name in self._lq_ns.get(namespace, {})
                },
                {
                    (namespace, name): tuple(self._lq_order.get((namespace, name)) or ())
                    for name in self._lq_ns.get(namespace, {})
                },
            )
        return view
