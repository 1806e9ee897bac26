"""bot.service.collector: a question's young objects are collected at the event loop's next turn, between two
questions, not in the middle of the next one."""

from __future__ import annotations

import asyncio
import gc
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
    was = gc.isenabled()
    gc.enable()
    gc.collect()
    yield
    if not was:
        gc.disable()


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
    before = collector.stats()["collections"]
    collector.after_question()  # the CLI's one question: no loop, no error
    assert collector.stats()["collections"] == before

    async def in_a_loop() -> None:  # nothing was left marked as scheduled: the next loop's question is served
        collector.after_question()
        await asyncio.sleep(0)

    asyncio.run(in_a_loop())
    assert collector.stats()["collections"] == before + 1


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
