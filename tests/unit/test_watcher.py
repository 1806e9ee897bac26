"""The watcher's work is proportional to what changed: a Workload is traced again only when its inputs changed
(its own object, its place in its ClusterQueue's order, the quota state of its cohort tree, who may be told),
never when nobody can be told; between passes it keeps Briefs, not Explanations; it yields to the event loop.
The cluster is a MemorySnapshot rebuilt from the same decoded objects, one replaced where the test changes it
(as the informer cache replaces the object that changed). Counts, not times: no timed assertion here."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from bot.forecast.eta import Eta
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.decode import decode
from bot.kube.informer import Change
from bot.notify.inputs import QuotaStamps
from bot.notify.policy import JobFacts, PolicyConfig, Send
from bot.notify.ports import Closing, workload_key
from bot.notify.state import Subscription
from bot.notify.store import SQLiteStore
from bot.notify.watcher import Notifier, watcher
from bot.pacing import Pacer
from bot.service.ports import Source
from bot.slack import render
from bot.trace.explanation import Explanation
from bot.trace.model import Workload
from bot.trace.snapshot import MemorySnapshot, Snapshot
from kubernetes import client as k8s_client

from tests import builders as b
from tests.cache_support import CacheViews
from tests.loop_probe import turns_during

NOW = datetime(2026, 10, 14, 10, 30, tzinfo=UTC)
OWNER = "U0OWNER01"


def _objects(raws: Iterable[dict[str, Any]]) -> list[object]:
    return [obj for raw in raws for obj in decode(raw)]


def _jobs(count: int, *, prefix: str = "train", queue: str = "user-queue", owner: str | None = OWNER) -> list[Any]:
    raws: list[dict[str, Any]] = []
    for index in range(count):
        job = b.job(
            f"{prefix}-{index:03d}",
            queue=queue,
            spec=b.cpu_spec("1"),
            annotations={"kueue-bot.io/notify": owner} if owner else None,
            created=b.stamp(NOW - timedelta(hours=2, minutes=-index)),
        )
        raws += [job, b.workload(of=job, queue=queue, created=b.stamp(NOW - timedelta(hours=2, minutes=-index)))]
    return raws


class Cluster(Source):
    """A SnapshotSource whose objects the test replaces one at a time."""

    ready = True

    def __init__(self, objects: Sequence[object]) -> None:
        self.objects = list(objects)
        self.current = MemorySnapshot(self.objects)

    def taken_at(self) -> datetime | None:
        return None

    async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> Snapshot:
        return self.current

    async def snapshot(self) -> Snapshot:
        return self.current

    def workload(self, name: str) -> Workload:
        return next(o for o in self.objects if isinstance(o, Workload) and o.name.startswith(f"job-{name}-"))

    def swap(self, old: object, new: object) -> None:
        self.objects[self.objects.index(old)] = new
        self.current = MemorySnapshot(self.objects)

    def add(self, *objects: object) -> None:
        self.objects.extend(objects)
        self.current = MemorySnapshot(self.objects)


class Recorder:
    """The Messenger port, recording."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []
        self.updates = 0

    async def send(
        self, target: str, explanations: Sequence[Explanation], keys: Sequence[str], *, eta: Eta | None = None
    ) -> tuple[str, str]:
        self.sent.append((target, len(keys)))
        return f"D{target[1:]}", f"{len(self.sent)}.000100"

    async def update(
        self, channel: str, ts: str, explanations: Sequence[Explanation], keys: Sequence[str], *, eta: Eta | None = None
    ) -> None:
        self.updates += 1

    async def close(self, channel: str, ts: str, closings: Sequence[Closing], target: str) -> None:
        pass

    async def announce_closed(self, channel: str, ts: str, closings: Sequence[Closing], target: str) -> None:
        pass

    async def announce_never_fits(self, channel: str, ts: str, explanation: Explanation, target: str) -> None:
        pass

    async def find_sent(self, target: str, key: str) -> tuple[str, str] | None:
        return None

    async def user_for_email(self, email: str) -> str | None:
        return None

    async def utc_offset(self, user: str) -> timedelta | None:
        return None


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "state.sqlite3")
    yield store
    await store.aclose()


def _notifier(cluster: Cluster, store: SQLiteStore, messenger: Recorder | None = None) -> Notifier:
    return watcher(cluster, store, messenger or Recorder(), lambda: NOW)


async def _traced(notifier: Notifier) -> int:
    before = notifier.traced
    await notifier.run_pass()
    return notifier.traced - before


async def test_a_steady_pass_traces_nothing_and_keeps_briefs_not_explanations(store: SQLiteStore) -> None:
    cluster = Cluster(_objects([*b.cluster(cpu=4), *_jobs(20)]))
    messenger = Recorder()
    notifier = _notifier(cluster, store, messenger)
    assert await _traced(notifier) == 20
    assert messenger.sent == [(OWNER, 20)]  # one digest
    kept = [item for d in notifier.last_decisions if isinstance(d, Send) for item in d.items]
    assert len(kept) == 20 and all(
        isinstance(item.explanation, JobFacts) for item in kept
    )  # no Explanation outlives its pass
    assert await _traced(notifier) == 0
    assert notifier.last_decisions == []
    assert all(isinstance(seen.facts, JobFacts) for seen in notifier.walker.kept())
    assert not any(isinstance(value, Explanation) for seen in notifier.walker.kept() for value in seen.inputs)


class Rewrites(Recorder):
    """The Recorder, keeping what each update was given."""

    def __init__(self) -> None:
        super().__init__()
        self.rewritten: list[tuple[list[Explanation], list[str]]] = []

    async def update(
        self, channel: str, ts: str, explanations: Sequence[Explanation], keys: Sequence[str], *, eta: Eta | None = None
    ) -> None:
        await super().update(channel, ts, explanations, keys, eta=eta)
        self.rewritten.append((list(explanations), list(keys)))


async def test_a_digest_rewritten_for_one_change_lists_the_others_from_their_briefs(store: SQLiteStore) -> None:
    """One job of a 20-job digest changes verdict: that one is traced again, the others are listed from
    their Briefs, and the digest reads exactly as it would from 20 full traces."""
    cluster = Cluster(_objects([*b.cluster(cpu=4), *_jobs(20)]))
    messenger = Rewrites()
    notifier = _notifier(cluster, store, messenger)
    await notifier.run_pass()
    old = cluster.workload("train-007")
    cluster.swap(old, replace(old, queue_name="no-such-queue"))  # now: its LocalQueue is missing
    assert await _traced(notifier) == 13  # it, and the 12 behind it (they moved up one) for their digest lines
    assert len(messenger.rewritten) == 1
    explanations, keys = messenger.rewritten[0]
    assert len(keys) == 20
    assert notifier._explained == {}  # full Explanations are kept for the pass only
    # Those ahead of it did not move: listed from their Briefs; those behind moved up one (their count
    # ahead changed): traced again.
    assert sum(1 for e in explanations if not e.steps) == 7
    full = [await notifier._explain_key(key, NOW) for key in keys]
    assert all(e is not None for e in full)
    for language in ("en", "fr"):
        assert render.digest(explanations, language=language) == render.digest(
            [e[0] for e in full if e is not None], language=language
        )


async def test_a_job_with_two_workloads_is_traced_once_a_pass(store: SQLiteStore) -> None:
    """A job re-created (or resized) can have two Workloads waiting a moment: the job is explained once."""
    raws = _jobs(1)
    job = raws[0]
    second = b.workload(
        "job-train-000-second",
        of=job,
        created=b.stamp(NOW - timedelta(hours=1)),
        uid="5e5e5e5e-0000-4000-8000-000000000002",
    )
    cluster = Cluster(_objects([*b.cluster(cpu=4), *raws, second]))
    notifier = _notifier(cluster, store)
    assert await _traced(notifier) == 1
    assert await _traced(notifier) == 0


async def test_a_changed_workload_is_traced_again_alone(store: SQLiteStore) -> None:
    cluster = Cluster(_objects([*b.cluster(cpu=4), *_jobs(20)]))
    notifier = _notifier(cluster, store)
    await notifier.run_pass()
    old = cluster.workload("train-007")
    cluster.swap(old, replace(old, meta=replace(old.meta, annotations={"note": "touched"})))
    assert await _traced(notifier) == 1
    assert await _traced(notifier) == 0


async def test_a_change_of_order_moves_the_others_without_tracing_them(store: SQLiteStore) -> None:
    cluster = Cluster(_objects([*b.cluster(cpu=4), *_jobs(20)]))
    notifier = _notifier(cluster, store)
    await notifier.run_pass()
    # train-010 now created just before train-009: the two swap places, nobody else moves.
    old = cluster.workload("train-010")
    earlier = cluster.workload("train-009").meta.created
    assert earlier is not None
    cluster.swap(old, replace(old, meta=replace(old.meta, created=earlier - timedelta(seconds=1))))
    moved = workload_key(cluster.workload("train-009"))
    seen = notifier.walker.seen(moved)
    assert seen is not None and seen.facts.position is not None
    before = seen.facts.position
    assert await _traced(notifier) == 1  # train-010 changed; train-009 only moved back one place: not traced
    seen = notifier.walker.seen(moved)
    assert seen is not None and seen.facts.position == before + 1
    assert await _traced(notifier) == 0


async def test_a_quota_change_traces_its_cohort_tree_only(store: SQLiteStore) -> None:
    raws = [
        *b.cluster(cpu=4),
        b.cluster_queue("other-cq", b.cpu_group(cpu=4)),
        b.local_queue("other-queue", cluster_queue="other-cq"),
        *_jobs(5),
        *_jobs(7, prefix="eval", queue="other-queue"),
    ]
    cluster = Cluster(_objects(raws))
    notifier = _notifier(cluster, store)
    assert await _traced(notifier) == 12
    running = b.job("running", spec=b.cpu_spec("1"), suspend=False)
    admitted = b.workload(of=running, status=b.reserved("cq", b.assignment(default={"cpu": "1"})))
    cluster.add(*_objects([running, admitted]))
    assert await _traced(notifier) == 5  # the five waiting in "cq"; "other-cq" holds no quota with it


async def test_where_the_view_is_frozen_every_pass_freezes_what_it_leaves(store: SQLiteStore) -> None:
    """Not only the first: else the full collection that waited during a pass comes at the next allocation of
    any thread (an informer's), over everything the passes since the first kept (bot.pacing)."""
    cluster = Cluster(_objects([*b.cluster(cpu=4), *_jobs(20)]))
    notifier = Notifier(
        source=cluster, store=store, messenger=Recorder(), clock=lambda: NOW, config=PolicyConfig(), freeze_gc=True
    )
    was = gc.isenabled()
    gc.enable()
    try:
        await notifier.run_pass()
        kept = [[n] for n in range(300)]  # alive when the next pass ends
        await notifier.run_pass()
        watched = {id(o) for o in gc.get_objects()}
        assert not any(id(item) in watched for item in kept)  # frozen: out of the collector's sight
    finally:
        gc.unfreeze()
        if not was:
            gc.disable()


async def test_nobody_to_tell_means_nothing_traced_until_somebody_watches(store: SQLiteStore) -> None:
    cluster = Cluster(_objects([*b.cluster(cpu=4), *_jobs(30, owner=None)]))
    notifier = _notifier(cluster, store)
    assert await _traced(notifier) == 0
    await store.subscribe(Subscription("U0WATCHER", b.NS, "train-004", "Job", NOW))
    messenger = notifier.messenger
    assert await _traced(notifier) == 1
    assert isinstance(messenger, Recorder) and messenger.sent == [("U0WATCHER", 1)]


async def test_a_long_pass_lets_the_event_loop_run(store: SQLiteStore) -> None:
    cluster = Cluster(_objects([*b.cluster(cpu=4), *_jobs(300)]))
    notifier = _notifier(cluster, store)
    _, turns = await turns_during(notifier.run_pass())
    assert turns > 2  # it ran during the pass, not only at its awaits of the store


def test_the_cache_tells_its_listeners_once_per_batch_that_changed_something() -> None:
    cache = ClusterCache(KubeClient(k8s_client.ApiClient()), clock=lambda: NOW)
    heard: list[int] = []
    cache.add_listener(lambda: heard.append(cache.generation))
    objects = _objects(_jobs(3))
    workloads = [o for o in objects if isinstance(o, Workload)]
    cache.apply([Change("Workload", "upsert", w.meta.key, w) for w in workloads])
    assert heard == [3]
    cache.apply([Change("Workload", "bookmark", ("", ""), None)])
    assert heard == [3]  # nothing changed: nobody woken
    cache.apply([Change("Workload", "delete", workloads[0].meta.key)])
    assert heard == [3, 4]


# What the views, the trace's memos and the watcher keep must not hold each other in a reference cycle: the
# production cache freezes the collector over what is alive once synced, and the watcher's passes keep full
# collections waiting, so a cycle is freed late, if ever. (A quota tree once held its view, whose memo held
# the tree: every renewal of the small kinds left such a cycle behind.)
_KEPT_TYPES = {
    "CacheView", "SmallKinds", "QuotaState", "Tree", "Estimator", "History", "AmountPool", "_Ranked", "Seen",
    "JobFacts",
}  # fmt: skip


async def test_views_memos_and_passes_leave_no_reference_cycle(store: SQLiteStore) -> None:
    from bot.forecast.outlook import explain_with_outlook
    from bot.trace.explain import Query

    from tests import contention as c

    raws = [*c.research_cohort(), *c.waiting("later", "team-b", pods=2, minutes=5)]
    cache = ClusterCache(KubeClient(k8s_client.ApiClient()), clock=lambda: NOW)
    decoded: list[tuple[str, Any]] = [
        (raw["kind"], obj) for raw in raws if raw["kind"] not in ("Namespace", "Job") for obj in decode(raw)
    ]
    cache.apply([Change(kind, "upsert", obj.meta.key, obj) for kind, obj in decoded])
    source = CacheViews(cache)
    notifier = Notifier(
        source=source, store=store, messenger=Recorder(), clock=lambda: NOW,
        config=PolicyConfig(), namespace_notify={"team-a": "C0TEAMA", "team-b": "C0TEAMB"},
    )  # fmt: skip
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for step in range(3):
            await notifier.run_pass()
            for namespace, job in (("team-a", "train"), ("team-b", "later")):
                view = await source.snapshot_for(namespace, job, "Job")
                assert explain_with_outlook(view, Query(namespace, job, "Job"), now=NOW)[1].holders is not None
            # a ClusterQueue changes (the small kinds' views and memos are renewed), and a Workload
            queue = next(obj for kind, obj in decoded if kind == "ClusterQueue")
            waiting = next(obj for kind, obj in decoded if kind == "Workload" and obj.name.startswith("job-later"))
            renewed = replace(queue, meta=replace(queue.meta, resource_version=str(step + 2)))
            cache.apply([
                Change("ClusterQueue", "upsert", queue.meta.key, renewed),
                Change("Workload", "upsert", waiting.meta.key, replace(waiting, priority=step)),
            ])  # fmt: skip
        del view
        gc.collect()
        cyclic = sorted({type(o).__qualname__ for o in gc.garbage} & _KEPT_TYPES)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert cyclic == []


async def test_quota_stamps_read_a_queue_s_held_quota_once_while_its_workloads_are_the_same() -> None:
    """A pass with nothing changed compares one object per ClusterQueue (the held quota it read last pass, while
    the snapshot hands out the same sequence of its Workloads); another sequence with the same quota held keeps
    the token (compared by value); a new admission changes it."""

    def admitted(name: str) -> list[Any]:
        job = b.job(name, spec=b.cpu_spec("1"), suspend=False)
        return [job, b.workload(of=job, status=b.reserved("cq", b.assignment(default={"cpu": "1"})))]

    cluster = Cluster(_objects([*b.cluster(cpu=4), *_jobs(3), *admitted("running")]))
    stamps = QuotaStamps()
    first = await stamps.tokens(cluster.current, Pacer())
    held = stamps._held["cq"][1]
    assert len(held) == 1
    assert await stamps.tokens(cluster.current, Pacer()) == first and stamps._held["cq"][1] is held
    old = cluster.workload("train-001")
    cluster.swap(old, replace(old, priority=old.priority + 1))  # another snapshot, the same quota held
    assert await stamps.tokens(cluster.current, Pacer()) == first and stamps._held["cq"][1] is not held
    cluster.add(*_objects(admitted("running-2")))
    assert (await stamps.tokens(cluster.current, Pacer()))["cq"] is not first["cq"]
