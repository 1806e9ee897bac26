"""The informer cache: the Kueue objects of the cluster, kept up to date by watches, as a `Snapshot`.

Threads. One informer thread per kind (LIST then WATCH, `bot.kube.informer`) decodes each object as it
arrives (and shares its repeated parts, `bot.kube.compact`), then hands the decoded change to the
event loop: changes go into an inbox under a lock, and one `call_soon_threadsafe` schedules a drain
`coalesce` seconds later when none is pending, so that a burst of updates wakes the loop once per
batch, not once per update (each wake-up is a write to the loop's self-pipe and a hand-over of the GIL,
more than the update itself costs). The drain runs on the loop thread and applies at most `batch`
changes per call (then yields to the loop), so a relist of 50,000 objects never holds the loop for long.

Indexes, queue order and the live Snapshot: `bot.kube.cache_index` (`CacheIndex`, which ClusterCache
extends); one question's detached view: `bot.kube.cache_view` (`CacheView`). This module: the informers'
lifecycle, the inbox from their threads to the loop, readiness and freshness, and the views' assembly.

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

Garbage collector (`freeze_gc=True`, bot.pacing.FirstSync). Until the cache is first ready, the young
generation is collected far less often and what each applied batch built is frozen: the first sync allocates
millions of objects that all live on. Once it is ready, every object alive then (the synced cache, most of the
process) is frozen out of the collector's sight: a collection no longer walks the cached objects. Frozen objects
are still freed by reference counting when the cache drops them (the cache's own objects hold no cycles). It is
process-wide, so it is off by default and the production source (`bot.kube.ondemand.CacheSource.connect`) turns
it on.

Freshness. `taken_at` is how far back the cache could have missed something: now while every informer's
watch is open (a healthy open watch is fresh, however quiet: a real API server sends a quiet kind neither
events nor bookmarks, see `bot.kube.informer`), else the moment the first kind still without a watch lost
its stream (or last finished a LIST). `ready` once every informer has synced its first LIST. When the API
server goes away the cache keeps answering from its last state; `stale_seconds(now)` says how old.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from bot.errors import NotServed
from bot.kube import kinds
from bot.kube.cache_index import SMALL_KEY, CacheIndex, order_key
from bot.kube.cache_view import CacheView, SmallKinds
from bot.kube.client import KubeClient
from bot.kube.compact import Interner
from bot.kube.informer import Change, Informer, InformerSettings, Key, default_decoder, wait_all
from bot.pacing import FirstSync
from bot.trace.model import Workload
from bot.trace.snapshot import MemorySnapshot, carry_over
from bot.trace.unreadable import Unreadable

__all__ = ["CACHED_KINDS", "OPTIONAL_KINDS", "CacheView", "ClusterCache", "order_key"]

log = logging.getLogger(__name__)

_NO_EXTRAS = MemorySnapshot(())  # the extras of a question that read nothing (most): read only, shared

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


class ClusterCache(CacheIndex):
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
        super().__init__()
        self.client = client
        self.clock = clock
        self.settings = settings or InformerSettings()
        self.kinds_cached = tuple(kinds_cached)
        self.interner = Interner() if compact else None
        self.batch = batch
        self.coalesce = coalesce
        self.stop_timeout = stop_timeout
        self.freeze_gc = freeze_gc
        self._first_sync = FirstSync()  # the collector during the first sync (bot.pacing), with `freeze_gc`
        self.version = ""
        self.informers: dict[str, Informer] = {}
        self.generation = 0  # changes applied so far
        self.applied: dict[str, int] = dict.fromkeys(self.kinds_cached, 0)  # upserts and deletes, per kind
        self.errors: dict[str, str] = {}  # the last error per kind, until it recovers
        self._unreadable: dict[tuple[str, str, str], Unreadable] = {}  # (kind, namespace, name): what was not read
        self._served: dict[str, bool] = {}
        self._synced: set[str] = set()
        self._watching: set[str] = set()  # kinds whose watch is open now: the cache misses nothing of them
        self._behind_since: dict[str, datetime] = {}  # the others: since when they may have missed changes
        self._relisting: dict[str, set[Key]] = {}  # the keys a LIST of the kind held so far
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inbox: list[Change] = []
        self._inbox_lock = threading.Lock()
        self._scheduled = False
        self._stopped = False
        self._started = False
        self._was_ready = False
        self._memos: dict[object, object] = {}  # the last views' memos(): what a renewal carries over
        self._carried_at = -1  # `sequences_dropped` at the last renewal (none yet: read them)
        self._last_small: SmallKinds | None = None
        self._observers: list[Callable[[], None]] = []  # told after every batch, and at stop (waits on the cache)
        self._listeners: list[Callable[[], None]] = []  # told after each batch that changed something
        self._told = 0  # the generation the listeners last heard of

    # --- lifecycle ----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Find the Kueue API version served and start the informers. Raises NotServed without Kueue,
        ClusterUnavailable when the API server cannot be reached."""
        if self._started:
            raise RuntimeError("this ClusterCache is already started: a second start() would replay every object")
        self._started = True
        self._loop = asyncio.get_running_loop()
        try:
            version = await asyncio.to_thread(self.client.served_version, kinds.KUEUE_GROUP, kinds.KUEUE_VERSIONS)
            if version is None:
                raise NotServed("this cluster does not serve Kueue's API (kueue.x-k8s.io): is Kueue installed?")
        except BaseException:
            self._started = False  # nothing started: the caller may try again (the server does, with backoff)
            raise
        self.version = version
        if self.freeze_gc:
            self._first_sync.hold()
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
        self._first_sync.release()
        informers = list(self.informers.values())
        if informers:
            stuck = await asyncio.to_thread(wait_all, informers, self.stop_timeout)
            if stuck:
                log.warning("informer threads still running after stop", extra={"kinds": stuck})
        with self._inbox_lock:
            self._inbox.clear()
        for observer in list(self._observers):
            observer()  # a wait on a stopped cache ends now
        self._observers.clear()

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
        if more and self._loop is not None:
            self._loop.call_soon(self._drain)
        self.apply(changes)

    def apply(self, changes: Iterable[Change]) -> None:
        """Apply one batch of changes as the informers hand them over, on the loop thread (the informers'
        batches come through here; replays and tests hand theirs directly)."""
        for change in changes:
            self._apply(change)
        if not self._was_ready:
            self._first_sync.settle()  # with `freeze_gc`, the first sync's objects as they come (bot.pacing)
        self._wake()

    @property
    def gc_frozen(self) -> int:
        """Objects frozen out of the collector's sight when first ready (`freeze_gc`)."""
        return self._first_sync.frozen

    def _first_ready(self) -> None:
        """Once, when every informer has first synced (see "Garbage collector" in the module's doc)."""
        self._was_ready = True
        if self.freeze_gc:
            self._first_sync.freeze()
        log.info("informer cache ready", extra={"workloads": self.counts()["Workload"], "gc_frozen": self.gc_frozen})

    def _apply(self, change: Change) -> None:
        kind, op = change.kind, change.op
        if op == "upsert" or op == "delete" or op == "unreadable":
            self._apply_object(change)
        elif op == "watching":
            self._watching.add(kind)
            self._behind_since.pop(kind, None)
            self.errors.pop(kind, None)
        elif op == "watch-ended":
            self._lost(kind)
        elif op == "list-start":
            if self.counts().get(kind) or any(key[0] == kind for key in self._unreadable):
                self._relisting[kind] = set()  # what the LIST does not hold is forgotten at its end
            # else (the first LIST) nothing can be left out of it: nothing recorded, nothing to forget
        elif op == "list-end":
            self._forget_unlisted(kind)
            self._served[kind] = True
            self._synced.add(kind)
            if kind not in self._watching:
                self._behind_since[kind] = self.clock()  # in sync as of this LIST, until its watch opens
            self.errors.pop(kind, None)
        elif op == "not-served":
            self._served[kind] = False
            self._synced.add(kind)
        elif op == "error":
            self.errors[kind] = str(change.obj)
            self._lost(kind)

    def _apply_object(self, change: Change) -> None:
        kind = change.kind
        self.generation += 1
        self.applied[kind] = self.applied.get(kind, 0) + 1
        relisting = self._relisting.get(kind)
        if relisting is not None:
            relisting.add(change.key)
        self._unreadable.pop((kind, *change.key), None)
        if change.op == "upsert":
            self._put(kind, change.key, change.obj)
            return
        self._delete(kind, change.key)  # an object the bot cannot read is not answered from its last version
        if change.op == "unreadable" and isinstance(change.obj, Unreadable):
            self._unreadable[(kind, *change.key)] = change.obj

    def _forget_unlisted(self, kind: str) -> None:
        """A LIST ended: what it did not hold is gone."""
        seen = self._relisting.pop(kind, None)
        if seen is None:
            return
        for key in [k for k in self._keys(kind) if k not in seen]:
            self.generation += 1
            self._delete(kind, key)
        for gone in [k for k in self._unreadable if k[0] == kind and k[1:] not in seen]:
            del self._unreadable[gone]

    def _lost(self, kind: str) -> None:
        """The kind's watch is gone: from now on the cache may miss its changes (until a watch or LIST)."""
        if kind in self._watching:
            self._watching.discard(kind)
            self._behind_since[kind] = self.clock()

    # --- told of changes (the notifier's wake-up; waits on the cache) ---------------------------------

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
        for observer in list(self._observers):
            observer()

    def observe(self, observer: Callable[[], None]) -> Callable[[], None]:
        """Call `observer()` after every batch of changes (whether it changed an object or not) and once at
        stop; returns the function that ends it. What waits on the cache (tests/cache_support.py) rests on it."""
        self._observers.append(observer)

        def end() -> None:
            if observer in self._observers:
                self._observers.remove(observer)

        return end

    @property
    def stopped(self) -> bool:
        return self._stopped

    # --- state --------------------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """Every informer has synced its first LIST (or found its kind not served)."""
        return bool(self.informers) and all(kind in self._synced for kind in self.informers)

    def served(self, kind: str) -> bool | None:
        return self._served.get(kind)

    @property
    def read_scope(self) -> str | None:
        """The informers read every namespace (a LIST they may not do fails: no partial cache)."""
        return None

    def watching(self) -> frozenset[str]:
        """The kinds whose watch is open now (the cache misses none of their changes)."""
        return frozenset(self._watching)

    @property
    def taken_at(self) -> datetime | None:
        """Since when the cache could have missed something: now while every served kind's watch is open,
        else the oldest moment a kind lost its watch (see "Freshness" in the module's doc)."""
        if not self.ready:
            return None
        times = [
            self._behind_since[kind] for kind in self.informers if self._served.get(kind) and kind in self._behind_since
        ]
        return min(times) if times else self.clock()

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

    # --- a detached view for one question -----------------------------------------------------------

    def _small_view(self) -> SmallKinds:
        small: SmallKinds | None = self._views.get(SMALL_KEY)
        if small is None:
            # Every memo derived from sequences still holds when none was let go since the last renewal (a status
            # update, as Kueue writes with every admission): kept without reading them (reading them, and making
            # the map of what is handed out, cost such a question time that grew with the ClusterQueues).
            live = None if self.sequences_dropped == self._carried_at else self._hands_out()
            small = self._views[SMALL_KEY] = SmallKinds(self, carry_over(self._memos, live), self._last_small)
            self._memos = small.memos
            self._carried_at = self.sequences_dropped
            self._last_small = small  # what the next renewal reads again only where it changed
        return small

    def _hands_out(self) -> dict[int, object]:
        """The sequences the cache hands out now (each ClusterQueue's Workloads and queue order), by id: what a
        memo derived from them still holds for (bot.trace.snapshot.carry_over)."""
        return {id(seq): seq for key, seq in self._views.items() if key[0] in ("cq", "pending")}

    def unreadable_in(self, namespace: str) -> tuple[Unreadable, ...]:
        """The objects of `namespace` the informers could not read (by name, with why)."""
        return tuple(item for key, item in self._unreadable.items() if key[1] == namespace)

    def view(self, namespace: str, extras: Sequence[object] = (), owners: Iterable[str] = ()) -> CacheView:
        """An immutable Snapshot for a question about `namespace` (call on the loop thread; read it anywhere).
        `extras`: on-demand objects (jobs, pods, events, namespaces, nodes, pending-workloads entries);
        `owners`: owner names whose Workloads the view takes from the owner index (others are scanned for)."""
        small = self._small_view()
        unreadable = self.unreadable_in(namespace) if self._unreadable else ()
        workloads, workload_list, admitted_in, lq_orders, lq_keys = self._namespace_view(namespace)
        focus = {lq.cluster_queue for lq in small.lqs_by_ns.get(namespace, ())}
        focus.update(admitted_in)
        in_cq = self._trees_view(small, focus)
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
            order_keys=({cq: self.pending_keys(cq) for cq in focus}, lq_keys),
            in_cluster_queue=in_cq,
            extras=MemorySnapshot([*extras, *unreadable]) if extras or unreadable else _NO_EXTRAS,
            owned={name: tuple(self.workloads_of_owner(namespace, name)) for name in owners},
            memos=small.memos,
            lists=(workload_list, small.cluster_queue_list, small.cohort_list),
        )

    def _trees_view(self, small: SmallKinds, focus: set[str]) -> dict[str, tuple[Workload, ...]]:
        """The Workloads of every ClusterQueue of the cohort trees around `focus` (a namespace's queues and where
        its Workloads are admitted), by ClusterQueue: kept with the small kinds (`SmallKinds.trees`: the trees), shared
        by the namespaces whose queues are in the same trees, while those ClusterQueues' Workloads are the same
        (`_forget_views` lets it go when one of them changes)."""
        key = small.trees_key(focus)
        found = small.trees.get(key)
        if found is None:
            found = small.trees[key] = {cq: self.workloads_in_cluster_queue(cq) for cq in small.trees_around(focus)}  # type: ignore[misc]
            for cq in found:
                self._trees_read_by.setdefault(cq, set()).add(key)
        return found

    def memos(self) -> dict[object, object]:
        return self._small_view().memos
