"""The watcher's walk skips a namespace whose inputs are what the last pass read (bot.notify.walk), and walks it
again as soon as one of them changes or time alone changes what it would find. The cluster is the informer cache
itself (its views are the sequences it hands out while nothing in them changed), fed decoded objects as its
watches would; the store is a real SQLite file. Counts, not times."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.kube.informer import Change
from bot.notify.ports import workload_key
from bot.notify.state import Subscription
from bot.notify.store import SQLiteStore
from bot.notify.walk import RECHECK
from bot.notify.watcher import Notifier, watcher
from bot.trace.model import Workload

from tests import builders as b
from tests.cache_support import CacheViews, cache_of, put
from tests.unit.test_watcher import Recorder

NOW = datetime(2026, 10, 14, 10, 30, tzinfo=UTC)
OWNER = "U0OWNER01"


class Cluster(CacheViews):
    """The informer cache, fed objects as its watches would (jobs are not cached in production)."""

    def __init__(self, raws: list[dict[str, Any]]) -> None:
        super().__init__(cache_of(r for r in raws if r["kind"] != "Job"))

    def put(self, *raws: dict[str, Any]) -> None:
        put(self.cache, (r for r in raws if r["kind"] != "Job"))

    def replace(self, old: Workload, new: Workload) -> None:
        self.cache.apply([Change("Workload", "upsert", old.meta.key, new)])

    def workload(self, prefix: str) -> Workload:
        return next(w for ns in ("team-a", "team-b") for w in self.cache.workloads_in(ns) if prefix in w.name)


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


def _waiting(
    name: str, namespace: str, *, minutes: int = 120, owner: str | None = OWNER, queue: str = "user-queue"
) -> list[dict[str, Any]]:
    created = b.stamp(NOW - timedelta(minutes=minutes))
    job = b.job(name, namespace, queue=queue, spec=b.cpu_spec("1"), created=created)
    annotations = {"kueue-bot.io/notify": owner} if owner else None
    return [job, b.workload(of=job, namespace=namespace, queue=queue, created=created, annotations=annotations)]


def _admitted(name: str, namespace: str, cluster_queue: str) -> list[dict[str, Any]]:
    job = b.job(name, namespace, spec=b.cpu_spec("1"), suspend=False)
    status = b.reserved(cluster_queue, b.assignment(default={"cpu": "1"}))
    return [job, b.workload(of=job, namespace=namespace, status=status)]


def _cluster(*jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """team-a waits in ClusterQueue "cq", team-c in "cq-c" of the same cohort, team-b in "cq-b" (alone)."""
    return [
        b.namespace("team-a"), b.namespace("team-b"), b.namespace("team-c"), b.resource_flavor(),
        b.cluster_queue("cq", b.cpu_group(cpu=4), cohort="research"), b.cluster_queue("cq-b", b.cpu_group(cpu=4)),
        b.cluster_queue("cq-c", b.cpu_group(cpu=4), cohort="research"),
        b.local_queue("user-queue", namespace="team-a", cluster_queue="cq"),
        b.local_queue("user-queue", namespace="team-b", cluster_queue="cq-b"),
        b.local_queue("user-queue", namespace="team-c", cluster_queue="cq-c"),
        b.local_queue("to-cq", namespace="team-c", cluster_queue="cq"),
        *(raw for pair in jobs for raw in pair),
    ]  # fmt: skip


async def _walked(notifier: Notifier) -> int:
    """Namespaces walked by one pass (not taken from the last one)."""
    before = notifier.walker.namespaces_walked
    await notifier.run_pass()
    return notifier.walker.namespaces_walked - before


def _told(messenger: Recorder) -> int:
    return sum(count for _, count in messenger.sent)


async def test_a_pass_with_nothing_changed_walks_no_namespace_and_decides_the_same(state_store: SQLiteStore) -> None:
    source = Cluster(_cluster(*(_waiting(f"a-{i}", "team-a") for i in range(3)), _waiting("b-0", "team-b")))
    messenger = Recorder()
    notifier = watcher(source, state_store, messenger, Clock())
    assert await _walked(notifier) == 3
    assert _told(messenger) == 4
    traced = notifier.traced
    assert await _walked(notifier) == 0
    assert notifier.traced == traced and notifier.last_decisions == []
    # the candidates taken from the last pass still keep their DMs open: nothing is closed as gone
    assert await _walked(notifier) == 0 and messenger.updates == 0 and notifier.last_decisions == []


async def test_a_changed_workload_walks_its_namespace_only(state_store: SQLiteStore) -> None:
    source = Cluster(_cluster(_waiting("a-0", "team-a"), _waiting("b-0", "team-b")))
    notifier = watcher(source, state_store, Recorder(), Clock())
    await notifier.run_pass()
    old = source.workload("b-0")
    source.replace(old, replace(old, meta=replace(old.meta, annotations={**old.meta.annotations, "note": "x"})))
    traced = notifier.traced
    assert await _walked(notifier) == 1
    assert notifier.traced == traced + 1


async def test_a_workload_that_becomes_due_is_told_though_nothing_changed(state_store: SQLiteStore) -> None:
    """Time alone makes it due (NOTIFY_AFTER): its namespace is walked again at that moment, not before."""
    clock = Clock()
    source = Cluster(_cluster(_waiting("a-0", "team-a"), _waiting("a-new", "team-a", minutes=8)))
    messenger = Recorder()
    notifier = watcher(source, state_store, messenger, clock)
    await notifier.run_pass()
    assert _told(messenger) == 1
    clock.now = NOW + timedelta(minutes=6)
    assert await _walked(notifier) == 0
    assert _told(messenger) == 1
    clock.now = NOW + timedelta(minutes=7)  # created 15 minutes ago
    assert await _walked(notifier) == 1
    assert _told(messenger) == 2


async def test_a_new_watcher_walks_the_namespace_of_its_job(state_store: SQLiteStore) -> None:
    source = Cluster(_cluster(_waiting("a-0", "team-a"), _waiting("b-quiet", "team-b", owner=None)))
    messenger = Recorder()
    notifier = watcher(source, state_store, messenger, Clock())
    await notifier.run_pass()
    await state_store.subscribe(Subscription("U0WATCHER", "team-b", "b-quiet", "Job", NOW))
    assert await _walked(notifier) == 1
    assert ("U0WATCHER", 1) in messenger.sent


async def test_an_admission_in_its_cohort_walks_the_namespace_again(state_store: SQLiteStore) -> None:
    """team-c's Workload takes quota in "cq-c", of the cohort "cq" borrows from: team-a, waiting in "cq", is
    walked again; team-b is not."""
    source = Cluster(_cluster(_waiting("a-0", "team-a"), _waiting("b-0", "team-b")))
    notifier = watcher(source, state_store, Recorder(), Clock())
    await notifier.run_pass()
    source.put(*_admitted("c-running", "team-c", "cq-c"))
    assert await _walked(notifier) == 2  # team-a (its cohort's quota) and team-c (its Workloads)
    assert await _walked(notifier) == 0
    source.put(*_admitted("a-running", "team-b", "cq"))  # into "cq" itself, from another namespace
    assert await _walked(notifier) == 2  # team-a (its queue) and team-b (its Workloads)


async def test_a_closed_dm_walks_its_namespace_again(state_store: SQLiteStore) -> None:
    source = Cluster(_cluster(_waiting("a-0", "team-a"), _waiting("b-0", "team-b")))
    messenger = Recorder()
    notifier = watcher(source, state_store, messenger, Clock())
    await notifier.run_pass()
    assert await _walked(notifier) == 0  # the DMs it opened were about its candidates
    key = next(d.key for d in (await state_store.load()).deliveries if d.key.startswith("team-b/"))
    await state_store.close(key, OWNER, NOW)  # closed by another replica, say
    assert await _walked(notifier) == 1


async def test_every_namespace_is_walked_again_after_a_while(state_store: SQLiteStore) -> None:
    """What no snapshot shows changing (the owners a live cluster reads on demand) is read again."""
    clock = Clock()
    source = Cluster(_cluster(_waiting("a-0", "team-a"), _waiting("b-0", "team-b")))
    notifier = watcher(source, state_store, Recorder(), clock)
    await notifier.run_pass()
    clock.now = NOW + RECHECK - timedelta(seconds=1)
    assert await _walked(notifier) == 0
    clock.now = NOW + RECHECK
    assert await _walked(notifier) == 3


async def test_a_workload_queued_ahead_from_another_namespace_walks_the_namespace_again(
    state_store: SQLiteStore,
) -> None:
    """Nothing of team-a changed, nor any quota: a Workload of team-c queued ahead of it in "cq" moves it back."""
    source = Cluster(_cluster(_waiting("a-0", "team-a"), _waiting("b-0", "team-b")))
    notifier = watcher(source, state_store, Recorder(), Clock())
    await notifier.run_pass()
    await notifier.run_pass()
    key = workload_key(source.workload("a-0"))
    assert (seen := notifier.walker.seen(key)) is not None and seen.facts.position == 1
    source.put(*_waiting("c-early", "team-c", minutes=300, owner=None, queue="to-cq"))
    assert await _walked(notifier) == 2  # team-a (its queue's order) and team-c (its Workloads)
    assert (seen := notifier.walker.seen(key)) is not None and seen.facts.position == 2
