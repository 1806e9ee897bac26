"""bot.service.explaining: `explain_job_in_slices`, the answer of `explain` with what its outlook reads (its
cohort tree's holders, its ETA's calibrations) made first in slices of the event loop (bot.pacing.Pacer)."""

from __future__ import annotations

from bot.forecast import estimators
from bot.forecast.outlook import explain_with_outlook
from bot.service.explaining import explain_job_in_slices
from bot.trace.explain import Query
from bot.trace.snapshot import Snapshot

from tests.builders import NOW, resource_flavor
from tests.cache_support import cache_of
from tests.contention import base, dense_admissions, gpu_queue, gpu_waiters, lq, running, waiting
from tests.loop_support import Turns


async def test_explained_makes_the_calibration_in_slices_and_answers_as_explain() -> None:
    view, history = gpu_waiters(), dense_admissions()
    async with Turns() as turns:
        answer = await explain_job_in_slices(
            view, Query("team-a", "w2", "Job"), now=NOW, history=history, slice_seconds=0
        )
    assert answer[1].eta is not None and answer[1].eta.status == "estimate"
    assert answer == explain_with_outlook(gpu_waiters(), Query("team-a", "w2", "Job"), now=NOW, history=history)
    assert turns.count > 5  # a turn after each step (slices of 0 s)
    again = Turns()
    async with again:  # made: the next question about the queue turns no more
        await explain_job_in_slices(view, Query("team-a", "w1", "Job"), now=NOW, history=history, slice_seconds=0)
    assert again.count == 0
    assert estimators.calibrations(view, "cq-0", history=history, now=NOW) == []
    without = await explain_job_in_slices(view, Query("team-a", "w2", "Job"), now=NOW, history=history, what_if=False)
    assert without[1].what_if is None and without[1].eta == answer[1].eta


def _cohort_view(queues: int) -> Snapshot:
    """A cohort of `queues` ClusterQueues of 4 GPUs each, every one full; two jobs wait in the first."""
    objects = base(
        *(gpu_queue(f"cq-{n}", ("a100", 4), cohort_name="research") for n in range(queues)),
        namespaces=("team-a",),
        flavors=[resource_flavor("a100", labels={"gpu": "a100"})],
    )
    for n in range(queues):
        objects += [lq(f"q{n}", "team-a", f"cq-{n}")]
        objects += running(f"r{n}", "team-a", f"cq-{n}", queue=f"q{n}", gpus_per_pod=4)
    for n in range(2):
        objects += waiting(f"w{n}", "team-a", queue="q0", gpus_per_pod=2, minutes=40 - 10 * n)
    return cache_of(objects).view("team-a", [])


async def test_explained_makes_the_cohort_tree_s_holders_a_queue_at_a_time_and_answers_as_explain() -> None:
    view = _cohort_view(6)
    async with Turns() as turns:
        answer = await explain_job_in_slices(view, Query("team-a", "w1", "Job"), now=NOW, history=None, slice_seconds=0)
    assert answer[1].holders is not None
    assert answer == explain_with_outlook(_cohort_view(6), Query("team-a", "w1", "Job"), now=NOW, history=None)
    assert turns.count >= 6  # a turn after each queue's part of the tree (slices of 0 s), none at once
    again = Turns()
    async with again:  # made: the next question in the tree turns no more
        await explain_job_in_slices(view, Query("team-a", "w0", "Job"), now=NOW, history=None, slice_seconds=0)
    assert again.count == 0
