"""bot.service.collector: a question's young objects are collected at the event loop's next turn, between two
questions, not in the middle of the next one."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from bot.kube.dump import read_dump
from bot.service import StaticSource, collector
from bot.service.base import ServiceBase

from tests.paths import SCENARIOS

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


async def test_the_collection_comes_at_the_next_turn_of_the_loop_once() -> None:
    before = collector.stats()["collections"]
    kept = _young(300)
    assert gc.get_count()[0] >= 300
    collector.after_question()
    collector.after_question()  # a second question before the turn: still one collection
    assert gc.get_count()[0] >= 300  # not now: the answer is not sent yet
    await asyncio.sleep(0)
    assert gc.get_count()[0] < 50
    assert collector.stats()["collections"] == before + 1
    assert len(kept) == 300


async def test_the_older_young_generation_is_collected_when_it_is_due() -> None:
    threshold = gc.get_threshold()[1]
    for _ in range(threshold):
        gc.collect(0)  # each counts towards the next collection of generation 1
    assert gc.get_count()[1] >= threshold
    collector.after_question()
    await asyncio.sleep(0)
    assert gc.get_count()[1] == 0


async def test_nothing_is_collected_while_the_collector_is_off() -> None:
    before = collector.stats()["collections"]
    kept = _young(300)
    gc.disable()
    collector.after_question()
    await asyncio.sleep(0)
    assert gc.get_count()[0] >= 300
    assert collector.stats()["collections"] == before
    assert kept


def test_outside_a_running_loop_nothing_is_scheduled() -> None:
    before, frozen = collector.stats()["collections"], gc.get_freeze_count()
    collector.after_question(freeze=True)  # the CLI's one question: no loop, no error
    assert collector.stats()["collections"] == before

    async def in_a_loop() -> None:  # nothing was left scheduled or armed: the next loop's question is served
        _full_collection_due()
        collector.after_question()
        await asyncio.sleep(0)

    asyncio.run(in_a_loop())
    assert collector.stats()["collections"] == before + 1
    assert gc.get_freeze_count() == frozen  # the first question's freezing did not carry over to this one


def test_the_collection_is_asked_of_the_loop_that_runs_in_this_thread() -> None:
    """The loop of the last question is remembered (bot.service.collector._running_loop): a question asked in
    a new loop, or in a thread where none runs while that loop still runs in another, is not sent to it."""
    before = collector.stats()["collections"]

    async def question() -> asyncio.AbstractEventLoop:
        collector.after_question()
        await asyncio.sleep(0)
        return asyncio.get_running_loop()

    first = asyncio.run(question())
    second = asyncio.run(question())  # the first loop is closed: a call_soon on it would raise
    assert first is not second
    assert collector.stats()["collections"] == before + 2

    asked_elsewhere: list[BaseException] = []

    async def while_another_thread_asks() -> None:
        collector.after_question()
        await asyncio.sleep(0)  # this loop is now the one remembered, and runs (in this thread)

        def elsewhere() -> None:
            try:
                collector.after_question()  # no loop runs in that thread: nothing is asked of this one
            except BaseException as error:  # noqa: BLE001 - reported by the assertion below
                asked_elsewhere.append(error)

        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        await asyncio.sleep(0)

    asyncio.run(while_another_thread_asks())
    assert not asked_elsewhere
    assert collector.stats()["collections"] == before + 3  # the thread's question scheduled nothing


async def test_explaining_a_job_asks_for_the_collection() -> None:
    source = StaticSource(read_dump(SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml").snapshot)
    service = ServiceBase(source, clock=lambda: NOW)
    before = collector.stats()
    explanation = await service.explain_job("ml-vision", "segformer-finetune", None)
    assert explanation.position is not None
    await asyncio.sleep(0)
    after = collector.stats()
    assert after["collections"] == before["collections"] + 1
    assert after["seconds"] > before["seconds"] and after["longest_seconds"] >= after["seconds"] - before["seconds"]


async def test_where_the_view_is_frozen_a_due_full_collection_freezes_what_is_alive_instead() -> None:
    before, frozen = collector.stats()["freezes"], gc.get_freeze_count()
    kept = _young(300)
    _full_collection_due()
    collector.after_question(freeze=True)
    await asyncio.sleep(0)
    assert gc.get_freeze_count() >= frozen + 300  # the answer's memos (here: kept) out of the collector's sight
    assert gc.get_count()[2] == 0  # the full collection that was due ran, over nothing old
    assert collector.stats()["freezes"] == before + 1
    assert len(kept) == 300


async def test_without_freezing_or_before_it_is_due_nothing_is_frozen() -> None:
    frozen, before = gc.get_freeze_count(), collector.stats()["freezes"]
    _full_collection_due()
    collector.after_question()  # a dump or the CLI: full collections stay the collector's
    await asyncio.sleep(0)
    assert gc.get_freeze_count() == frozen
    assert gc.get_count()[2] >= gc.get_threshold()[2]  # the full collection left to the collector, still due
    gc.collect()
    collector.after_question(freeze=True)  # no full collection due yet
    await asyncio.sleep(0)
    assert gc.get_freeze_count() == frozen
    assert collector.stats()["freezes"] == before


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
