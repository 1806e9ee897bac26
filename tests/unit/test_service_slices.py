"""bot.service.slices: long pure work on the event loop in slices, and `explained`, the answer of `explain` with
its ETA's calibrations made first in slices (a queue's calibration held the loop up to a second at once).
No timing here: a fake timer decides when a slice has run its time."""

from __future__ import annotations

import asyncio
import gc

from bot.service import collector
from bot.service.slices import Slices, explained
from bot.trace import outlook
from bot.trace.explain import Query, explain
from bot.trace.snapshot import Snapshot

from tests.builders import NOW, resource_flavor
from tests.cache_support import cache_of
from tests.contention import base, dense_admissions, gpu_queue, lq, running, waiting
from tests.loop_support import Turns


async def test_the_loop_turns_once_a_slice_has_run_its_time_and_what_ran_is_counted() -> None:
    clock = [0.0]
    cpu = [0.0]
    slices = Slices(1.0, timer=lambda: clock[0], cpu_timer=lambda: cpu[0])
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
        before = collector.stats()["collections"]
        slices = Slices(0.0)
        await slices.step()  # the turn: the collection asked for then runs at it
        await asyncio.sleep(0)
        assert collector.stats()["collections"] > before
    finally:
        if not was:
            gc.disable()


def _view() -> Snapshot:
    objects = base(
        gpu_queue("cq-0", ("a100", 4)),
        namespaces=("team-a",),
        flavors=[resource_flavor("a100", labels={"gpu": "a100"})],
    )
    objects += [lq("gpus", "team-a", "cq-0")]
    objects += running("big", "team-a", "cq-0", gpus_per_pod=4)
    for n in range(3):
        objects += waiting(f"w{n}", "team-a", gpus_per_pod=2, minutes=40 - 10 * n)
    return cache_of(objects).view("team-a", [])


async def test_explained_makes_the_calibration_in_slices_and_answers_as_explain() -> None:
    view, history = _view(), dense_admissions()
    async with Turns() as turns:
        answer = await explained(view, Query("team-a", "w2", "Job"), now=NOW, history=history, slice_seconds=0)
    assert answer.eta is not None and answer.eta.status == "estimate"
    assert answer == explain(_view(), Query("team-a", "w2", "Job"), now=NOW, history=history)
    assert turns.count > 5  # a turn after each step (slices of 0 s)
    again = Turns()
    async with again:  # made: the next question about the queue turns no more
        await explained(view, Query("team-a", "w1", "Job"), now=NOW, history=history, slice_seconds=0)
    assert again.count == 0
    assert outlook.calibrations(view, "cq-0", history=history, now=NOW) == []
    without = await explained(view, Query("team-a", "w2", "Job"), now=NOW, history=history, what_if=False)
    assert without.what_if is None and without.eta == answer.eta
