"""The admissions and finishes the bot observes (issue 16: what the ETA rests on): read from each Workload's
record, recorded once, bounded, and kept in the state database across restarts."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from bot.errors import StoreUnavailable
from bot.forecast.history import Finished, History, Observed
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
from bot.trace.model import Workload
from bot.trace.snapshot import MemorySnapshot

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


class _Read(list[Workload]):
    """A namespace's Workloads that count how often they are read through."""

    reads = 0

    def __iter__(self) -> Iterator[Workload]:
        self.reads += 1
        return super().__iter__()


class _Namespaces(MemorySnapshot):
    """A snapshot whose namespaces' Workload sequences are given (the same object until replaced), as the
    informer cache hands out a namespace's sequence until one of its Workloads changes."""

    def __init__(self, sequences: dict[str, _Read]) -> None:
        super().__init__([])
        self.sequences = sequences

    def workloads_in(self, namespace: str) -> Sequence[Workload]:
        return self.sequences.get(namespace, _Read())


def _workloads(objects: list[dict[str, object]], namespace: str) -> _Read:
    return _Read(snapshot(objects).workloads_in(namespace))


async def test_a_namespace_whose_workloads_are_the_same_sequence_is_not_read_again() -> None:
    """At 50,000 Workloads reading every namespace took 100-144 ms a pass: a namespace whose sequence is the one
    the last pass read is not read again, one that changed is, and what is recorded is what reading them all
    would record."""
    objects = cluster()
    sequences = {ns: _workloads(objects, ns) for ns in NAMESPACES}
    recorder = HistoryRecorder(MemoryHistory())
    assert await recorder.observe(_Namespaces(sequences), NAMESPACES, NOW) == 2
    assert [sequences[ns].reads for ns in NAMESPACES] == [1, 1]
    assert await recorder.observe(_Namespaces(sequences), NAMESPACES, NOW + timedelta(minutes=1)) == 0
    assert [sequences[ns].reads for ns in NAMESPACES] == [1, 1]  # neither read again

    three = [o for o in running("three", "team-b", "cq", pods=1, minutes=3) if o["kind"] == "Workload"]
    team_a = sequences["team-a"]
    sequences["team-b"] = _workloads([*objects, *three], "team-b")  # one of team-b's changed: a new sequence
    later = NOW + timedelta(minutes=2)
    assert await recorder.observe(_Namespaces(sequences), NAMESPACES, later) == 1
    assert team_a.reads == 1 and sequences["team-b"].reads == 1
    admissions, _, _ = observations(snapshot([*objects, *three]), NAMESPACES, Seen({}), later)
    assert set(recorder.history.admissions) == set(admissions)

    sequences["team-a"] = _Read()  # team-a's Workloads went away, unread ones included: their finishes
    assert await recorder.observe(_Namespaces(sequences), NAMESPACES, later) == 1
    [finish] = recorder.history.finishes
    assert finish.finished_at == later and finish.cluster_queue == "cq"


class _FailsOnce(MemoryHistory):
    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    async def add(self, admissions: Sequence[Observed], finishes: Sequence[Finished], now: datetime) -> None:
        if not self.failed:
            self.failed = True
            raise StoreUnavailable("the database is locked")
        await super().add(admissions, finishes, now)


async def test_what_a_pass_could_not_record_is_recorded_by_the_next_one() -> None:
    """The store failed while recording: the namespaces that pass read are read again by the next pass (their
    sequences unchanged), so their admissions are not lost."""
    objects = cluster()
    sequences = {ns: _workloads(objects, ns) for ns in NAMESPACES}
    recorder = HistoryRecorder(_FailsOnce())
    with pytest.raises(StoreUnavailable):
        await recorder.observe(_Namespaces(sequences), NAMESPACES, NOW)
    assert recorder.history == History()
    assert await recorder.observe(_Namespaces(sequences), NAMESPACES, NOW) == 2
    assert len(recorder.history.admissions) == 2


@pytest.mark.parametrize("seed", range(8))
async def test_passes_over_namespaces_that_change_record_what_reading_them_all_records(seed: int) -> None:
    """Random passes: Workloads admitted, finished, gone; namespaces gone; the others' sequences the same
    objects. The recorder (reading only the namespaces that changed) records what `observations` over every
    namespace, pass after pass, records."""
    rng = random.Random(seed)
    namespaces = [f"team-{n}" for n in range(4)]
    raw: dict[str, list[dict[str, object]]] = {ns: [] for ns in namespaces}
    sequences: dict[str, _Read] = {}
    recorder = HistoryRecorder(MemoryHistory())
    reference, seen = History(), Seen({})
    made = 0
    for step in range(12):
        now = NOW + timedelta(minutes=step)
        for ns in rng.sample(namespaces, rng.randint(0, 2)):
            change = rng.choice(("admit", "admit", "finish", "drop", "empty"))
            workloads = [o for o in raw[ns] if o["kind"] == "Workload"]
            if change == "admit" or not workloads:
                made += 1
                minutes = rng.choice([3, 10, 30])
                raw[ns] += [o for o in running(f"j{made}", ns, "cq", minutes=minutes) if o["kind"] == "Workload"]
            elif change == "finish":
                done = rng.choice(workloads)
                done["status"]["conditions"].append(condition("Finished", True, "Succeeded", "", ago(1)))  # type: ignore[index]
            elif change == "drop":
                raw[ns].remove(rng.choice(workloads))
            else:
                raw[ns] = []
            sequences[ns] = _workloads(raw[ns], ns)
        listed = [ns for ns in namespaces if raw[ns] or rng.random() < 0.5]
        await recorder.observe(_Namespaces(sequences), listed, now)
        admissions, finishes, seen = observations(snapshot([o for ns in listed for o in raw[ns]]), listed, seen, now)
        known = {*reference.admissions, *reference.finishes}
        new = History(tuple(a for a in admissions if a not in known), tuple(f for f in finishes if f not in known))
        reference = bounded(reference.union(new), now)
        assert set(recorder.history.admissions) == set(reference.admissions), step
        assert set(recorder.history.finishes) == set(reference.finishes), step
