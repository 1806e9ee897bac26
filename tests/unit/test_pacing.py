"""bot.pacing, the one pacer: long work shares the event loop in slices (`Pacer`); a question's or a slice's
young garbage is collected at the loop's next turn, not inside the next question (`collect_soon`); full
collections wait while a watcher pass runs (`full_collections_wait`); and no other module imports `gc`.
No timing here: a fake timer decides when a slice has run its time."""

from __future__ import annotations

import ast
import asyncio
import gc
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from bot import pacing
from bot.kube.dump import read_dump
from bot.pacing import Pacer
from bot.service.base import ServiceBase
from bot.service.ports import StaticSource

from tests.loop_probe import turns_during
from tests.loop_support import Turns
from tests.paths import ROOT, SCENARIOS

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    was, frozen = gc.isenabled(), gc.get_freeze_count()
    gc.enable()
    gc.collect()
    yield
    if gc.get_freeze_count() > frozen:
        gc.unfreeze()  # what a test froze goes back to the collector (with anything frozen before: harmless)
    if not was:
        gc.disable()


def _full_collection_due() -> None:
    for _ in range(gc.get_threshold()[2]):
        gc.collect(1)  # each counts towards the next full collection
    assert gc.get_count()[2] >= gc.get_threshold()[2]


def _young(count: int) -> list[list[int]]:
    """`count` tracked objects kept alive: the young generation's count rises by as many."""
    return [[i] for i in range(count)]


def test_no_module_but_the_pacer_imports_the_garbage_collector() -> None:
    importers = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module == "gc":
                names = ["gc"]
            if "gc" in names:
                importers.append(path.relative_to(ROOT).as_posix())
    assert importers == ["bot/pacing.py"]


def test_full_collections_wait_while_any_pass_runs_then_resume_as_they_were() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(before[0], before[1], 7)
        with pacing.full_collections_wait():
            assert gc.get_threshold()[2] > 1_000_000
            with pacing.full_collections_wait():  # another cluster's pass meanwhile
                assert gc.get_threshold()[2] > 1_000_000
            assert gc.get_threshold()[2] > 1_000_000  # the first still runs
            gc.set_threshold(123, before[1], gc.get_threshold()[2])  # the cache's sync sets the youngest one
        assert gc.get_threshold() == (123, before[1], 7)  # its own kept; the oldest one as it was
    finally:
        gc.set_threshold(*before)


def test_a_pass_that_fails_still_lets_full_collections_resume() -> None:
    before = gc.get_threshold()
    try:
        with pacing.full_collections_wait():
            raise RuntimeError("the pass failed")
    except RuntimeError:
        pass
    assert gc.get_threshold() == before


def test_with_freeze_what_is_alive_at_the_end_is_out_of_the_collector_s_sight() -> None:
    kept = [[index] for index in range(1000)]  # tracked containers, alive after the pass
    try:
        with pacing.full_collections_wait(freeze=True):
            pass
        assert gc.get_freeze_count() >= len(kept)
        watched = {id(o) for o in gc.get_objects()}
        assert not any(id(item) in watched for item in kept)
    finally:
        gc.unfreeze()


def test_with_freeze_a_pass_leaves_no_full_collection_due() -> None:
    """Left due, the full collection that waited during the pass would come at the next allocation of any thread
    (an informer's), over everything the passes kept; without freeze it is the collector's."""
    due = gc.get_threshold()[2]  # young collections until a full one is due, outside a pass
    try:
        with pacing.full_collections_wait(freeze=True):
            for _ in range(due):
                gc.collect(1)  # each counts towards the next full collection
        assert gc.get_count()[2] < due
        with pacing.full_collections_wait():
            for _ in range(due):
                gc.collect(1)
        assert gc.get_count()[2] >= due
    finally:
        gc.unfreeze()


async def test_paced_work_lets_the_event_loop_run() -> None:
    def slow(item: int) -> int:
        time.sleep(0.0002)  # 200 µs an item: 500 items hold the loop 0.1 s in one go
        return item * 2

    result, turns = await turns_during(pacing.paced(slow, range(500)))
    assert result == [item * 2 for item in range(500)]
    assert turns > 5


async def test_a_pass_collects_its_young_objects_when_it_yields_and_only_a_pass_does() -> None:
    """A pass frees old memos as it builds new ones, and freed objects delay the young collections: one came
    after some 24,000 survivors and held the loop 20-30 ms. Each yield of a pass collects the young
    generations instead, while they hold a few milliseconds' work; outside a pass, the collector's own pace."""
    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    def slow(item: int) -> int:
        time.sleep(0.0002)
        return item

    gc.callbacks.append(seen)
    try:
        await pacing.paced(slow, range(500))
        outside = collections.count(1)
        collections.clear()
        with pacing.full_collections_wait():
            await pacing.paced(slow, range(500))
        during = collections.count(1)
    finally:
        gc.callbacks.remove(seen)
    assert outside <= 1 and during >= 5  # outside: at most one of the collector's own


async def test_the_loop_turns_once_a_slice_has_run_its_time_and_what_ran_is_counted() -> None:
    clock = [0.0]
    cpu = [0.0]
    slices = Pacer(1.0, timer=lambda: clock[0], cpu_timer=lambda: cpu[0])
    async with Turns() as turns:
        for step in range(6):  # steps of 0.4 s: the slice has run its time after the third, then the sixth
            clock[0] += 0.4
            cpu[0] += 0.3
            await slices.step()
            assert slices.turns == (step >= 2) + (step >= 5)
        slices.end()
    assert turns.count == 2
    assert abs(slices.longest_seconds - 1.2) < 1e-9
    assert abs(slices.cpu_seconds - 1.8) < 1e-9


async def test_a_slice_s_garbage_is_asked_for_at_its_turn() -> None:
    was = gc.isenabled()
    gc.enable()
    try:
        before = pacing.stats()["collections"]
        slices = Pacer(0.0)
        await slices.step()  # the turn: the collection asked for then runs at it
        await asyncio.sleep(0)
        assert pacing.stats()["collections"] > before
    finally:
        if not was:
            gc.disable()


async def test_the_collection_comes_at_the_next_turn_of_the_loop_once() -> None:
    before = pacing.stats()["collections"]
    kept = _young(300)
    assert gc.get_count()[0] >= 300
    pacing.collect_soon()
    pacing.collect_soon()  # a second question before the turn: still one collection
    assert gc.get_count()[0] >= 300  # not now: the answer is not sent yet
    await asyncio.sleep(0)
    assert gc.get_count()[0] < 50
    assert pacing.stats()["collections"] == before + 1
    assert len(kept) == 300


async def test_the_older_young_generation_is_collected_when_it_is_due() -> None:
    threshold = gc.get_threshold()[1]
    for _ in range(threshold):
        gc.collect(0)  # each counts towards the next collection of generation 1
    assert gc.get_count()[1] >= threshold
    pacing.collect_soon()
    await asyncio.sleep(0)
    assert gc.get_count()[1] == 0


async def test_nothing_is_collected_while_the_collector_is_off() -> None:
    before = pacing.stats()["collections"]
    kept = _young(300)
    gc.disable()
    pacing.collect_soon()
    await asyncio.sleep(0)
    assert gc.get_count()[0] >= 300
    assert pacing.stats()["collections"] == before
    assert kept


def test_outside_a_running_loop_nothing_is_scheduled() -> None:
    before, frozen = pacing.stats()["collections"], gc.get_freeze_count()
    pacing.collect_soon(freeze=True)  # the CLI's one question: no loop, no error
    assert pacing.stats()["collections"] == before

    async def in_a_loop() -> None:  # nothing was left scheduled or armed: the next loop's question is served
        _full_collection_due()
        pacing.collect_soon()
        await asyncio.sleep(0)

    asyncio.run(in_a_loop())
    assert pacing.stats()["collections"] == before + 1
    assert gc.get_freeze_count() == frozen  # the first question's freezing did not carry over to this one


def test_the_collection_is_asked_of_the_loop_that_runs_in_this_thread() -> None:
    """The loop of the last question is remembered (bot.pacing._running_loop): a question asked in
    a new loop, or in a thread where none runs while that loop still runs in another, is not sent to it."""
    before = pacing.stats()["collections"]

    async def question() -> asyncio.AbstractEventLoop:
        pacing.collect_soon()
        await asyncio.sleep(0)
        return asyncio.get_running_loop()

    first = asyncio.run(question())
    second = asyncio.run(question())  # the first loop is closed: a call_soon on it would raise
    assert first is not second
    assert pacing.stats()["collections"] == before + 2

    asked_elsewhere: list[BaseException] = []

    async def while_another_thread_asks() -> None:
        pacing.collect_soon()
        await asyncio.sleep(0)  # this loop is now the one remembered, and runs (in this thread)

        def elsewhere() -> None:
            try:
                pacing.collect_soon()  # no loop runs in that thread: nothing is asked of this one
            except BaseException as error:  # noqa: BLE001 - reported by the assertion below
                asked_elsewhere.append(error)

        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        await asyncio.sleep(0)

    asyncio.run(while_another_thread_asks())
    assert not asked_elsewhere
    assert pacing.stats()["collections"] == before + 3  # the thread's question scheduled nothing


async def test_explaining_a_job_asks_for_the_collection() -> None:
    source = StaticSource(read_dump(SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml").snapshot)
    service = ServiceBase(source, clock=lambda: NOW)
    before = pacing.stats()
    explanation, _ = await service.explain_job("ml-vision", "segformer-finetune", None)
    assert explanation.position is not None
    await asyncio.sleep(0)
    after = pacing.stats()
    assert after["collections"] >= before["collections"] + 1  # (and one at each turn of its slices, if any)
    assert after["seconds"] > before["seconds"] and after["longest_seconds"] > 0


async def test_where_the_view_is_frozen_a_due_full_collection_freezes_what_is_alive_instead() -> None:
    before, frozen = pacing.stats()["freezes"], gc.get_freeze_count()
    kept = _young(300)
    _full_collection_due()
    pacing.collect_soon(freeze=True)
    await asyncio.sleep(0)
    assert gc.get_freeze_count() >= frozen + 300  # the answer's memos (here: kept) out of the collector's sight
    assert gc.get_count()[2] == 0  # the full collection that was due ran, over nothing old
    assert pacing.stats()["freezes"] == before + 1
    assert len(kept) == 300


async def test_without_freezing_or_before_it_is_due_nothing_is_frozen() -> None:
    frozen, before = gc.get_freeze_count(), pacing.stats()["freezes"]
    _full_collection_due()
    pacing.collect_soon()  # a dump or the CLI: full collections stay the collector's
    await asyncio.sleep(0)
    assert gc.get_freeze_count() == frozen
    assert gc.get_count()[2] >= gc.get_threshold()[2]  # the full collection left to the collector, still due
    gc.collect()
    pacing.collect_soon(freeze=True)  # no full collection due yet
    await asyncio.sleep(0)
    assert gc.get_freeze_count() == frozen
    assert pacing.stats()["freezes"] == before


async def test_explaining_a_job_freezes_where_its_source_freezes_the_view() -> None:
    class Frozen(StaticSource):
        freezes_gc = True  # as bot.kube.ondemand.CacheSource over the production cache

    source = Frozen(read_dump(SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml").snapshot)
    service = ServiceBase(source, clock=lambda: NOW)
    frozen = gc.get_freeze_count()
    _full_collection_due()
    await service.explain_job("ml-vision", "segformer-finetune", None)
    await asyncio.sleep(0)
    assert gc.get_freeze_count() > frozen
