"""The admissions and finishes the bot observes (issue 16: what the ETA rests on): read from each Workload's
record, recorded once, bounded, and kept in the state database across restarts."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

from bot.notify.history import (
    MAX_PER_QUEUE,
    RETENTION,
    HistoryRecorder,
    MemoryHistory,
    Seen,
    SQLiteHistory,
    bounded,
    observations,
)
from bot.notify.store import SQLiteStore
from bot.trace.eta import Finished, History, Observed

from tests.builders import NOW, ago, condition, snapshot
from tests.contention import base, gpu_queue, lq, running, waiting

NAMESPACES = ("team-a", "team-b")


def cluster() -> list[dict[str, object]]:
    return [
        *base(gpu_queue("cq", ("a100", 8))),
        lq("gpus", "team-a", "cq"),
        lq("gpus", "team-b", "cq"),
        *running("one", "team-a", "cq", pods=2, minutes=30),
        *running("two", "team-b", "cq", pods=4, minutes=5),
        *waiting("train", pods=1),
    ]


def test_admissions_are_read_from_each_workload_s_record() -> None:
    admissions, finishes, seen = observations(snapshot(cluster()), NAMESPACES, Seen({}), NOW)
    got = sorted(
        (a.cluster_queue, a.flavor, int((a.admitted_at - a.queued_at).total_seconds()), a.amount) for a in admissions
    )
    # running() creates a Workload 5 minutes before its admission
    assert got == [("cq", "a100", 300, Decimal(2)), ("cq", "a100", 300, Decimal(4))]
    assert finishes == [] and len(seen.holding) == 2
    assert all(a.workload for a in admissions)


def test_a_finished_workload_and_one_that_went_away_are_finishes() -> None:
    objects = cluster()
    _, _, seen = observations(snapshot(objects), NAMESPACES, Seen({}), NOW)
    one = next(o for o in objects if o["kind"] == "Workload" and "one" in str(o["metadata"]))
    one["status"]["conditions"].append(condition("Finished", True, "Succeeded", "", ago(1)))  # type: ignore[index]
    without_two = [o for o in objects if not (o["kind"] == "Workload" and "-two-" in str(o["metadata"]))]
    later = NOW + timedelta(minutes=2)
    _, finishes, seen = observations(snapshot(without_two), NAMESPACES, seen, later)
    ends = sorted((f.finished_at - f.admitted_at).total_seconds() / 60 for f in finishes)
    assert ends == [7.0, 29.0]  # two: admitted 5 min before NOW, gone 2 min after; one: finished a minute ago
    assert seen.holding == {}


async def test_the_history_survives_a_restart_and_is_recorded_once(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    store = SQLiteStore(path)  # the notifier's own store shares the file and the schema
    await store.load()
    recorder = HistoryRecorder(SQLiteHistory(path))
    assert await recorder.observe(snapshot(cluster()), NAMESPACES, NOW) == 2
    assert await recorder.observe(snapshot(cluster()), NAMESPACES, NOW + timedelta(seconds=30)) == 0
    await recorder.store.aclose()
    await store.aclose()

    again = HistoryRecorder(SQLiteHistory(path))
    loaded = await again.load()
    assert sorted(a.amount or 0 for a in loaded.admissions) == [2, 4]
    assert loaded == recorder.history
    assert await again.observe(snapshot(cluster()), NAMESPACES, NOW + timedelta(minutes=1)) == 0
    await again.store.aclose()
    db = sqlite3.connect(path)
    try:
        assert db.execute("SELECT count(*) FROM history").fetchone()[0] == 2
    finally:
        db.close()


def _admission(index: int, cq: str = "cq") -> Observed:
    at = NOW - timedelta(minutes=index)
    return Observed(cq, "a100", at - timedelta(minutes=3), at, Decimal(1), f"uid-{index}")


def test_the_history_is_bounded_per_queue_and_in_time() -> None:
    many = History(
        (*(_admission(i) for i in range(MAX_PER_QUEUE + 50)), _admission(1, "other")),
        (Finished("cq", "a100", NOW - RETENTION - timedelta(hours=2), NOW - RETENTION - timedelta(hours=1)),),
    )
    kept = bounded(many, NOW)
    assert sum(1 for a in kept.admissions if a.cluster_queue == "cq") == MAX_PER_QUEUE
    assert (
        min(a.admitted_at for a in kept.admissions if a.cluster_queue == "cq")
        == _admission(MAX_PER_QUEUE - 1).admitted_at
    )
    assert any(a.cluster_queue == "other" for a in kept.admissions)
    assert kept.finishes == ()


async def test_the_database_forgets_what_is_older_than_the_retention(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    store = SQLiteHistory(path)
    old = Observed("cq", "a100", NOW - RETENTION - timedelta(days=1), NOW - RETENTION - timedelta(hours=1), None, "old")
    await store.add([old, _admission(1), _admission(2)], [], NOW)
    loaded = await store.load()
    await store.aclose()
    assert sorted(a.workload for a in loaded.admissions) == ["uid-1", "uid-2"]


async def test_memory_history_starts_empty_and_keeps_what_it_is_given() -> None:
    recorder = HistoryRecorder(MemoryHistory())
    assert await recorder.load() == History()
    assert await recorder.observe(snapshot(cluster()), NAMESPACES, NOW) == 2
    assert len((await recorder.store.load()).admissions) == 2
    assert {a.amount for a in recorder.history.admissions} == {Decimal(2), Decimal(4)}  # GPUs, not cpu


async def test_a_pass_s_observation_lets_the_loop_run_between_namespaces_and_reads_as_observations() -> None:
    """The recorder reads one namespace at a time and yields to the event loop in between (at 50,000 Workloads
    the whole read held it 144 ms): a task waiting to run gets its turns during it; what it records is what
    `observations` reads, gone Workloads included."""
    objects = cluster()
    recorder = HistoryRecorder(MemoryHistory())
    turns: list[int] = []
    stop = False

    async def other() -> None:
        while not stop:
            turns.append(1)
            await asyncio.sleep(0)

    task = asyncio.create_task(other())
    await asyncio.sleep(0)
    before = len(turns)
    assert await recorder.observe(snapshot(objects), NAMESPACES, NOW) == 2
    assert len(turns) - before >= len(NAMESPACES)
    admissions, finishes, _ = observations(snapshot(objects), NAMESPACES, Seen({}), NOW)
    assert set(recorder.history.admissions) == set(admissions) and not finishes

    without_two = [o for o in objects if not (o["kind"] == "Workload" and "-two-" in str(o["metadata"]))]
    later = NOW + timedelta(minutes=2)
    assert await recorder.observe(snapshot(without_two), NAMESPACES, later) == 1  # two went away: a finish
    [finish] = recorder.history.finishes
    assert finish.finished_at == later
    stop = True
    await task
