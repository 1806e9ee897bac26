"""The informer cache: the Kueue objects of the cluster, kept up to date by watches, as a `Snapshot`.

Threads. One informer thread per kind (LIST then WATCH, `bot.kube.informer`) decodes each object as it
arrives (and shares its repeated parts, `bot.kube.compact`), then hands the decoded change to the
event loop: changes go into an inbox under a lock, and one `call_soon_threadsafe` schedules a drain
`coalesce` seconds later (5 ms) when none is pending, so that a burst of updates wakes the loop once per
batch, not once per update (each wake-up is a write to the loop's self-pipe and a hand-over of the GIL,
more than the update itself costs). The drain runs on the loop thread and applies at most `batch`
changes per call (then yields to the loop), so a relist of 50,000 objects never holds the loop for long.

Indexes. Every change updates, incrementally: Workloads by namespace and name, by owner name, by
LocalQueue, by the ClusterQueue they are admitted in; LocalQueues by namespace and by
ClusterQueue; and the queue ORDER: per ClusterQueue and per LocalQueue, a sorted list
(`sortedcontainers.SortedList`) of the order keys of the Workloads waiting there (Kueue's order,
`queue_order_key`, then namespace/name; one key tuple shared by both lists). `position_in()` is two
bisections: O(log n), nothing sorted per question. A watch update that leaves a Workload's queue, order
key and owners as they were only swaps the object in the indexes that hold it.

Consistency. All state is changed on the loop thread only, by the drain. So:
  * `ClusterCache` itself is a live `Snapshot` that is consistent for code that runs synchronously on the
    loop thread (between two drains): call `explain(cache, ...)` there, without awaiting in between.
  * `ClusterCache.view(namespace, extras)` is a detached, immutable `Snapshot` for one question, built on
    the loop thread by copying references (no object is copied): the small kinds (ClusterQueues,
    LocalQueues, flavors, cohorts, checks, priority classes), the Workloads of that namespace, and the
    queue order of the ClusterQueues its LocalQueues feed. It can be read from any thread
    (`asyncio.to_thread(explain, view, ...)`) while events go on. It answers for its namespace and those
    queues; on-demand objects (the job, pods, events, ...) come in as `extras`.

Views. What a question copies is kept until a change touches it: the small kinds together, each
namespace's Workloads and LocalQueue orders, each ClusterQueue's pending Workloads in order.

Garbage collector. Once the cache is first ready, `gc.freeze()` moves every object alive then (the
synced cache, most of the process) out of the collector's sight (`freeze_gc=True`): a
collection no longer walks a million cached objects, which otherwise puts milliseconds into the tail of
questions and stalls watch updates. Frozen objects are still freed by reference counting when the cache
drops them; only a reference cycle alive at that moment that becomes garbage later is never collected
(the cache's own objects hold no cycles). It is process-wide, so it is off by default and the production
source (`bot.kube.ondemand.CacheSource.connect`) turns it on.

Freshness. `taken_at` is the last time every informer was known in sync with the API server (the oldest
of their last event, bookmark or LIST). `ready` once every informer has synced its first LIST. When the
API server goes away the cache keeps answering from its last state; `stale_seconds(now)` says how old.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import threading
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sortedcontainers import SortedList  # type: ignore[import-untyped,unused-ignore]

from bot.errors import NotServed
from bot.kube import kinds
from bot.kube.client import KubeClient
from bot.kube.compact import Interner
from bot.kube.informer import Change, Informer, InformerSettings, Key, default_decoder, wait_all
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
    ResourceFlavor,
    Workload,
)
from bot.trace.snapshot import MemorySnapshot, queue_order_key, waits_in_queue

log = logging.getLogger(__name__)

CACHED_KINDS = (
    "Workload",
    "LocalQueue",
    "ClusterQueue",
    "ResourceFlavor",
    "Cohort",
    "AdmissionCheck",
    "WorkloadPriorityClass",
    "Topology",
)
OPTIONAL_KINDS = frozenset({"Cohort", "Topology"})

OrderKey = tuple[int, datetime, str, str, str]


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


def _waiting_key(workload: Workload) -> OrderKey | None:
    """The Workload's order key when it waits in its LocalQueue's order, else None."""
    return order_key(workload) if workload.queue_name and waits_in_queue(workload) else None


class ClusterCache:
    """The Kueue objects of a cluster, kept by informers; a live `Snapshot` (see the module's doc)."""

    def __init__(
        self,
        client: KubeClient,
        *,
        clock: Callable[[], datetime],
        settings: InformerSettings | None = None,
        kinds_cached: Sequence[str] = CACHED_KINDS,
        compact: bool = True,
        batch: int = 2000,
        coalesce: float = 0.005,
        stop_timeout: float = 10.0,
        freeze_gc: bool = False,
    ) -> None:
        self.client = client
        self.clock = clock
        self.settings = settings or InformerSettings()
        self.kinds_cached = tuple(kinds_cached)
        self.interner = Interner() if compact else None
        self.batch = batch
        self.coalesce = coalesce
        self.stop_timeout = stop_timeout
        self.freeze_gc = freeze_gc
        self.gc_frozen = 0  # objects gc.freeze() took out of the collector's sight when first ready
        self.version = ""
        self.informers: dict[str, Informer] = {}
        self.generation = 0  # changes applied so far
        self.applied: dict[str, int] = dict.fromkeys(self.kinds_cached, 0)  # upserts and deletes, per kind
        self.errors: dict[str, str] = {}  # the last error per kind, until it recovers
        self._served: dict[str, bool] = {}
        self._synced: set[str] = set()
        self._contact: dict[str, datetime] = {}
        self._relisting: dict[str, set[Key]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inbox: list[Change] = []
        self._inbox_lock = threading.Lock()
        self._scheduled = False
        self._stopped = False
        self._was_ready = False
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        self._listeners: list[Callable[[], None]] = []  # told after each batch that changed something
        self._told = 0  # the generation the listeners last heard of
        # stores
        self._wl_ns: dict[str, dict[str, Workload]] = {}  # the Workloads, by namespace then name
        self._wl_owner: dict[str, Few] = {}  # owner name -> Workload(s), any namespace
        self._wl_lq: dict[Key, dict[str, Workload]] = {}
        self._wl_admitted: dict[str, dict[Key, Workload]] = {}
        self._cq_order: dict[str, Any] = {}  # cq -> SortedList[OrderKey]
        self._lq_order: dict[Key, Any] = {}  # (ns, lq) -> SortedList[OrderKey]
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

    # --- lifecycle ----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Find the Kueue API version served and start the informers. Raises NotServed without Kueue,
        ClusterUnavailable when the API server cannot be reached."""
        self._loop = asyncio.get_running_loop()
        version = await asyncio.to_thread(self.client.served_version, kinds.KUEUE_GROUP, kinds.KUEUE_VERSIONS)
        if version is None:
            raise NotServed("this cluster does not serve Kueue's API (kueue.x-k8s.io): is Kueue installed?")
        self.version = version
        for kind in self.kinds_cached:
            decoder = default_decoder(kind) if self.interner is None else default_decoder(kind, self.interner)
            self.informers[kind] = Informer(
                self.client,
                kinds.KUEUE[kind],
                version,
                self._sink,
                settings=self.settings,
                decoder=decoder,
                optional=kind in OPTIONAL_KINDS,
            )
        for informer in self.informers.values():
            informer.start()
        log.info("informer cache started", extra={"version": version, "kinds": len(self.informers)})

    async def stop(self) -> None:
        """Stop every informer and join its thread (in a worker thread: the loop never waits on a join)."""
        self._stopped = True
        informers = list(self.informers.values())
        if informers:
            stuck = await asyncio.to_thread(wait_all, informers, self.stop_timeout)
            if stuck:
                log.warning("informer threads still running after stop", extra={"kinds": stuck})
        with self._inbox_lock:
            self._inbox.clear()
        for _, future in self._waiters:
            if not future.done():
                future.cancel()
        self._waiters.clear()

    async def __aenter__(self) -> ClusterCache:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # --- from the informer threads to the loop ------------------------------------------------------

    def _sink(self, changes: Sequence[Change]) -> None:
        """Called from informer threads."""
        if not changes:
            return
        with self._inbox_lock:
            self._inbox.extend(changes)
            if self._scheduled or self._stopped:
                return
            self._scheduled = True
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is listening any more
                loop.call_soon_threadsafe(self._drain_later)

    def _drain_later(self) -> None:
        if self.coalesce > 0 and self._loop is not None:
            self._loop.call_later(self.coalesce, self._drain)
        else:
            self._drain()

    def _drain(self) -> None:
        with self._inbox_lock:
            if len(self._inbox) <= self.batch:
                changes, self._inbox = self._inbox, []
                self._scheduled = False
                more = False
            else:
                changes = self._inbox[: self.batch]
                del self._inbox[: self.batch]
                more = True
        if self._stopped:
            return
        for change in changes:
            self._apply(change)
        if more and self._loop is not None:
            self._loop.call_soon(self._drain)
        self._wake()

    def apply(self, changes: Iterable[Change]) -> None:
        """Apply changes as the informers hand them over (on the loop thread; replays and tests)."""
        for change in changes:
            self._apply(change)
        self._wake()

    def _first_ready(self) -> None:
        """Once, when every informer has first synced (see "Garbage collector" in the module's doc)."""
        self._was_ready = True
        if self.freeze_gc:
            before = gc.get_freeze_count()
            gc.freeze()
            self.gc_frozen = gc.get_freeze_count() - before
        log.info("informer cache ready", extra={"workloads": self.counts()["Workload"], "gc_frozen": self.gc_frozen})

    def _apply(self, change: Change) -> None:
        kind, op = change.kind, change.op
        if op == "upsert" or op == "delete":
            self.generation += 1
            self.applied[kind] = self.applied.get(kind, 0) + 1
            self._contact[kind] = self.clock()
            relisting = self._relisting.get(kind)
            if relisting is not None:
                relisting.add(change.key)
            if op == "upsert":
                self._put(kind, change.key, change.obj)
            else:
                self._delete(kind, change.key)
        elif op == "bookmark":
            self._contact[kind] = self.clock()
            self.errors.pop(kind, None)
        elif op == "list-start":
            self._relisting[kind] = set()
        elif op == "list-end":
            seen = self._relisting.pop(kind, set())
            for key in [k for k in self._keys(kind) if k not in seen]:
                self.generation += 1
                self._delete(kind, key)
            self._served[kind] = True
            self._synced.add(kind)
            self._contact[kind] = self.clock()
            self.errors.pop(kind, None)
        elif op == "not-served":
            self._served[kind] = False
            self._synced.add(kind)
        elif op == "error":
            self.errors[kind] = str(change.obj)

    # --- waiting on the cache (tests, bench, readiness probes) ---------------------------------------

    def add_listener(self, listener: Callable[[], None]) -> None:
        """Call `listener()` on the loop thread after each batch of changes that changed an object (once per
        batch, however many objects: the notifier's wake-up)."""
        self._listeners.append(listener)

    def _wake(self) -> None:
        if not self._was_ready and self.ready:
            self._first_ready()
        if self._listeners and self._told != self.generation:
            self._told = self.generation
            for listener in list(self._listeners):
                try:
                    listener()
                except Exception:
                    log.exception("cache: a change listener failed")
        if not self._waiters:
            return
        still = []
        for predicate, future in self._waiters:
            if future.done():
                continue
            if predicate():
                future.set_result(None)
            else:
                still.append((predicate, future))
        self._waiters = still

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Until predicate() holds, checked after every batch of changes; TimeoutError after `timeout`."""
        if predicate():
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        try:
            async with asyncio.timeout(timeout):
                await future
        finally:
            self._waiters = [(p, f) for p, f in self._waiters if f is not future]

    async def wait_ready(self, timeout: float = 30.0) -> None:  # noqa: ASYNC109
        await self.wait_for(lambda: self.ready, timeout)

    # --- state --------------------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """Every informer has synced its first LIST (or found its kind not served)."""
        return bool(self.informers) and all(kind in self._synced for kind in self.informers)

    def served(self, kind: str) -> bool | None:
        return self._served.get(kind)

    @property
    def taken_at(self) -> datetime | None:
        """The last time the whole cache was known in sync: the oldest of the kinds' last contact."""
        if not self.ready:
            return None
        times = [self._contact[kind] for kind in self.informers if self._served.get(kind) and kind in self._contact]
        return min(times) if times else None

    def stale_seconds(self, now: datetime) -> float | None:
        """How old the cache's view is at `now` (None: never synced)."""
        taken = self.taken_at
        return None if taken is None else max(0.0, (now - taken).total_seconds())

    def counts(self) -> dict[str, int]:
        return {
            "Workload": sum(len(bucket) for bucket in self._wl_ns.values()),
            "LocalQueue": len(self._lqs),
            "ClusterQueue": len(self._cqs),
            "ResourceFlavor": len(self._flavors),
            "Cohort": len(self._cohorts),
            "AdmissionCheck": len(self._checks),
            "WorkloadPriorityClass": len(self._priorities),
            **{kind: len(store) for kind, store in self._others.items()},
        }

    def resource_version(self, kind: str) -> str:
        informer = self.informers.get(kind)
        return informer.resource_version if informer is not None else ""

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
            self._views.pop(_SMALL, None)
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
            self._views.pop(_SMALL, None)
            return
        self._others.get(kind, {}).pop(key, None)

    def _cq_of(self, namespace: str, queue: str) -> str | None:
        local_queue = self._lqs.get((namespace, queue))
        return local_queue.cluster_queue if local_queue is not None else None

    def _forget_views(self, namespace: str, *cluster_queues: str | None) -> None:
        views = self._views
        views.pop(("ns", namespace), None)
        for cq in cluster_queues:
            if cq is not None:
                views.pop(("cq", cq), None)
                views.pop(("pending", cq), None)

    def _index_workload(self, key: Key, workload: Workload) -> None:
        namespace, name = key
        _add_to(self._wl_ns, namespace, name, workload)
        for owner in _owner_names(workload):
            _add_few(self._wl_owner, owner, workload)
        queue = workload.queue_name
        cq = self._cq_of(namespace, queue) if queue else None
        if queue:
            _add_to(self._wl_lq, (namespace, queue), name, workload)
            waiting = _waiting_key(workload)
            if waiting is not None:
                self._enqueue(namespace, queue, cq, waiting)
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
            waiting = _waiting_key(workload)
            if waiting is not None:
                self._dequeue(namespace, queue, cq, waiting)
        admitted_in = workload.admission.cluster_queue if workload.admission is not None else None
        if admitted_in is not None:
            _remove_from(self._wl_admitted, admitted_in, key)
        self._forget_views(namespace, cq, admitted_in)

    def _update_workload(self, key: Key, old: Workload, new: Workload) -> None:
        """`old` (indexed under `key`) becomes `new`: only what differs moves, the rest swaps the object."""
        namespace, name = key
        self._wl_ns[namespace][name] = new
        new_owners = _owner_names(new)
        if old.meta.owners is not new.meta.owners:
            for owner in _owner_names(old):
                if owner not in new_owners:
                    _remove_few(self._wl_owner, owner, old)
        for owner in new_owners:
            _add_few(self._wl_owner, owner, new)
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
        old_waiting, waiting = _waiting_key(old), _waiting_key(new)
        if old_waiting != waiting or queue != old_queue:
            if old_waiting is not None:
                self._dequeue(namespace, old_queue, old_cq, old_waiting)
            if waiting is not None:
                self._enqueue(namespace, queue, cq, waiting)
        old_admitted = old.admission.cluster_queue if old.admission is not None else None
        admitted_in = new.admission.cluster_queue if new.admission is not None else None
        if old_admitted is not None and old_admitted != admitted_in:
            _remove_from(self._wl_admitted, old_admitted, key)
        if admitted_in is not None:
            _add_to(self._wl_admitted, admitted_in, key, new)
        self._forget_views(namespace, old_cq, cq, old_admitted, admitted_in)

    def _enqueue(self, namespace: str, queue: str, cq: str | None, waiting: OrderKey) -> None:
        """Into its LocalQueue's order and, when that LocalQueue is known, its ClusterQueue's (one key)."""
        order = self._lq_order.get((namespace, queue))
        if order is None:
            order = self._lq_order[(namespace, queue)] = _new_order()
        order.add(waiting)
        if cq is not None:
            self._order_of_cq(cq).add(waiting)

    def _dequeue(self, namespace: str, queue: str, cq: str | None, waiting: OrderKey) -> None:
        self._discard_from(self._lq_order, (namespace, queue), waiting)
        if cq is not None:
            self._discard_from(self._cq_order, cq, waiting)

    def _order_of_cq(self, cq: str) -> Any:
        order = self._cq_order.get(cq)
        if order is None:
            order = self._cq_order[cq] = _new_order()
        return order

    @staticmethod
    def _discard_from(orders: dict[Any, Any], key: Any, waiting: OrderKey) -> None:
        order = orders.get(key)
        if order is None:
            return
        order.discard(waiting)
        if not order:
            del orders[key]

    def _put_local_queue(self, key: Key, local_queue: LocalQueue) -> None:
        old = self._lqs.get(key)
        old_cq = old.cluster_queue if old is not None else None
        if old is not None:
            _remove_from(self._lq_cq, old.cluster_queue, key)
        namespace, name = key
        self._lqs[key] = local_queue
        _add_to(self._lq_ns, namespace, name, local_queue)
        _add_to(self._lq_cq, local_queue.cluster_queue, key, local_queue)
        if old_cq != local_queue.cluster_queue:
            for waiting in list(self._lq_order.get(key) or ()):
                if old_cq is not None:
                    self._discard_from(self._cq_order, old_cq, waiting)
                self._order_of_cq(local_queue.cluster_queue).add(waiting)
        self._views.clear()

    def _delete_local_queue(self, key: Key) -> None:
        old = self._lqs.pop(key, None)
        if old is None:
            return
        _remove_from(self._lq_ns, key[0], key[1])
        _remove_from(self._lq_cq, old.cluster_queue, key)
        for waiting in list(self._lq_order.get(key) or ()):
            self._discard_from(self._cq_order, old.cluster_queue, waiting)
        self._views.clear()

    def _in_order(self, order: Iterable[OrderKey]) -> tuple[Workload, ...]:
        """The Workloads of an order's keys, in that order."""
        by_namespace = self._wl_ns
        return tuple([by_namespace[waiting[3]][waiting[4]] for waiting in order])

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

    def nodes(self) -> Sequence[Node]:
        return ()

    def pending_entry(self, namespace: str, name: str) -> PendingEntry | None:
        return None

    def pending_in(self, cluster_queue: str) -> Sequence[Workload]:
        view: tuple[Workload, ...] | None = self._views.get(("pending", cluster_queue))
        if view is None:
            view = self._views[("pending", cluster_queue)] = self._in_order(self._cq_order.get(cluster_queue) or ())
        return view

    def position_in(self, cluster_queue: str, workload: Workload) -> tuple[int, int] | None:
        order = self._cq_order.get(cluster_queue)
        if order is None:
            return None
        in_cq = _position_in_keys(order, workload)
        if in_cq is None:
            return None
        in_lq = self.local_queue_position(workload)
        return (in_cq, in_lq if in_lq is not None else 0)

    # --- a detached view for one question -----------------------------------------------------------

    def _small_view(self) -> _Small:
        small: _Small | None = self._views.get(_SMALL)
        if small is None:
            small = self._views[_SMALL] = _Small(self)
        return small

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
            )
        return view

    def view(self, namespace: str, extras: Iterable[object] = ()) -> CacheView:
        """An immutable Snapshot for a question about `namespace` (call on the loop thread; read it anywhere).
        `extras`: on-demand objects (jobs, pods, events, namespaces, nodes, pending-workloads entries)."""
        small = self._small_view()
        workloads, _, admitted_in, lq_orders = self._namespace_view(namespace)
        focus = {lq.cluster_queue for lq in small.lqs_by_ns.get(namespace, ())}
        focus.update(admitted_in)
        in_cq = {cq: tuple(self.workloads_in_cluster_queue(cq)) for cq in small.unreported_around(focus)}
        return CacheView(
            taken_at=self.taken_at,
            namespace=namespace,
            workloads=workloads,
            local_queues=small.local_queues,
            lqs_by_ns=small.lqs_by_ns,
            lqs_by_cq=small.lqs_by_cq,
            cluster_queues=small.cluster_queues,
            flavors=small.flavors,
            cohorts=small.cohorts,
            checks=small.checks,
            priorities=small.priorities,
            cq_orders={cq: tuple(self.pending_in(cq)) for cq in focus},
            lq_orders=lq_orders,
            in_cluster_queue=in_cq,
            extras=MemorySnapshot(extras),
        )


_SMALL = ("small", "")
# A namespace's part of a view: its Workloads by name, as a tuple, the ClusterQueues they are admitted in,
# and the order of each of its LocalQueues.
_NamespaceView = tuple[dict[str, Workload], tuple[Workload, ...], frozenset[str], dict[Key, tuple[Workload, ...]]]


class _Small:
    """Copies of the small kinds for views (shared by every view until one of them changes), and the
    cohort trees: which ClusterQueues share a tree, and which of those report no reservation."""

    def __init__(self, cache: ClusterCache) -> None:
        self.local_queues = dict(cache._lqs)
        self.lqs_by_ns = {ns: tuple(bucket.values()) for ns, bucket in cache._lq_ns.items()}
        self.lqs_by_cq = {cq: tuple(bucket.values()) for cq, bucket in cache._lq_cq.items()}
        self.cluster_queues = dict(cache._cqs)
        self.flavors = dict(cache._flavors)
        self.cohorts = dict(cache._cohorts)
        self.checks = dict(cache._checks)
        self.priorities = dict(cache._priorities)
        self._root_of = {name: _root(cq.cohort, self.cohorts) for name, cq in self.cluster_queues.items() if cq.cohort}
        self._unreported_in: dict[str, list[str]] = {}
        for name, root in self._root_of.items():
            if self.cluster_queues[name].reservation is None:
                self._unreported_in.setdefault(root, []).append(name)

    def unreported_around(self, focus: Iterable[str]) -> set[str]:
        """The ClusterQueues sharing a cohort tree with any of `focus` (themselves included) that are
        unknown or report no reservation (a view counts their Workloads itself)."""
        found = set()
        for name in focus:
            known = self.cluster_queues.get(name)
            if known is None or known.reservation is None:
                found.add(name)
            root = self._root_of.get(name)
            if root is not None:
                found.update(self._unreported_in.get(root, ()))
        return found


def _position_in_keys(order: Any, workload: Workload) -> int | None:
    """Where `workload` is in a live order (a SortedList of order keys), or None."""
    index = order.bisect_left(order_key(workload))
    if index < len(order):
        found = order[index]
        if found[4] == workload.name and found[3] == workload.namespace:
            return int(index)
    return None


def _index_in(order: tuple[Workload, ...], workload: Workload) -> int | None:
    """Where `workload` is in a view's order (a tuple of Workloads sorted by order_key), or None."""
    index = bisect_left(order, order_key(workload), key=order_key)
    if index < len(order):
        found = order[index]
        if found.name == workload.name and found.namespace == workload.namespace:
            return index
    return None


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
    ) -> None:
        self._taken_at = taken_at
        self.focus = namespace
        self._workloads = workloads
        self._workload_list = tuple(workloads.values())  # the trace asks for these sequences many times
        self._local_queues = local_queues
        self._lqs_by_ns = lqs_by_ns
        self._lqs_by_cq = lqs_by_cq
        self._cluster_queues = cluster_queues
        self._cluster_queue_list = tuple(cluster_queues.values())
        self._flavors = flavors
        self._cohorts = cohorts
        self._cohort_list = tuple(cohorts.values())
        self._checks = checks
        self._priorities = priorities
        self._cq_orders = cq_orders
        self._lq_orders = lq_orders
        self._in_cq = in_cluster_queue
        self.extras = extras

    @property
    def taken_at(self) -> datetime | None:
        return self._taken_at

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

    def workloads_in_cluster_queue(self, cluster_queue: str) -> Sequence[Workload]:
        return self._in_cq.get(cluster_queue, ())

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

    def nodes(self) -> Sequence[Node]:
        return self.extras.nodes()

    def pending_entry(self, namespace: str, name: str) -> PendingEntry | None:
        return self.extras.pending_entry(namespace, name)

    def pending_in(self, cluster_queue: str) -> Sequence[Workload]:
        return self._cq_orders.get(cluster_queue, ())

    def position_in(self, cluster_queue: str, workload: Workload) -> tuple[int, int] | None:
        order = self._cq_orders.get(cluster_queue)
        if not order:
            return None
        in_cq = _index_in(order, workload)
        if in_cq is None:
            return None
        in_lq = None
        lq_order = self._lq_orders.get((workload.namespace, workload.queue_name))
        if lq_order:
            in_lq = _index_in(lq_order, workload)
        return (in_cq, in_lq if in_lq is not None else 0)
