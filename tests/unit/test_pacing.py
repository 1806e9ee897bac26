"""How a watcher pass shares the process (bot.notify.pacing): full collections wait while passes run, and
resume with the threshold they had; the first pass's state can be frozen; long loops yield to the event loop."""

from __future__ import annotations

import gc
import time

from bot.notify.pacing import full_collections_wait, paced

from tests.loop_probe import turns_during


def test_full_collections_wait_while_any_pass_runs_then_resume_as_they_were() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(before[0], before[1], 7)
        with full_collections_wait():
            assert gc.get_threshold()[2] > 1_000_000
            with full_collections_wait():  # another cluster's pass meanwhile
                assert gc.get_threshold()[2] > 1_000_000
            assert gc.get_threshold()[2] > 1_000_000  # the first still runs
            gc.set_threshold(123, before[1], gc.get_threshold()[2])  # the cache's sync sets the youngest one
        assert gc.get_threshold() == (123, before[1], 7)  # its own kept; the oldest one as it was
    finally:
        gc.set_threshold(*before)


def test_a_pass_that_fails_still_lets_full_collections_resume() -> None:
    before = gc.get_threshold()
    try:
        with full_collections_wait():
            raise RuntimeError("the pass failed")
    except RuntimeError:
        pass
    assert gc.get_threshold() == before


def test_with_freeze_what_is_alive_at_the_end_is_out_of_the_collector_s_sight() -> None:
    kept = [[index] for index in range(1000)]  # tracked containers, alive after the pass
    try:
        with full_collections_wait(freeze=True):
            pass
        assert gc.get_freeze_count() >= len(kept)
        watched = {id(o) for o in gc.get_objects()}
        assert not any(id(item) in watched for item in kept)
    finally:
        gc.unfreeze()


async def test_paced_work_lets_the_event_loop_run() -> None:
    def slow(item: int) -> int:
        time.sleep(0.0002)  # 200 µs an item: 500 items hold the loop 0.1 s in one go
        return item * 2

    result, turns = await turns_during(paced(slow, range(500)))
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
        await paced(slow, range(500))
        outside = collections.count(1)
        collections.clear()
        with full_collections_wait():
            await paced(slow, range(500))
        during = collections.count(1)
    finally:
        gc.callbacks.remove(seen)
    assert outside <= 1 and during >= 5  # outside: at most one of the collector's own
