"""`explained`: `explain_with_outlook` with what its outlook reads first made in slices of the event loop
(bot.pacing.Pacer): who holds what the job waits for in its cohort tree, and the ETA calibrations its answer reads.
The same answer, without holding the loop while a cohort tree's holders or a queue's calibration are made."""

from __future__ import annotations

from datetime import datetime

from bot.forecast.estimators import calibrations_for
from bot.forecast.history import History
from bot.forecast.outlook import Outlook, outlook_of
from bot.pacing import SLICE_SECONDS, Pacer
from bot.trace import holdings
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation
from bot.trace.snapshot import Snapshot


async def explained(
    snapshot: Snapshot,
    query: Query,
    *,
    now: datetime,
    history: History | None,
    what_if: bool = True,
    freeze: bool = False,
    slice_seconds: float = SLICE_SECONDS,
) -> tuple[Explanation, Outlook]:
    """`explain_with_outlook(snapshot, query, ...)`: the trace, then, in slices where they are not made yet, the
    holders of its ClusterQueue's cohort tree (bot.trace.holdings.preparing, as the warmer makes them: a queue's
    part a step) and the calibrations of the ETA Estimators its answer reads (calibrations_for), then the
    outlook, which finds them made. The same answer as `explain_with_outlook`'s, without holding the loop while
    they are made (`freeze`, `slice_seconds`: as bot.pacing.Pacer's)."""
    traced = explain(snapshot, query, now=now)
    steps = calibrations_for(snapshot, traced, history=history, now=now)
    if traced.workload is not None and traced.cluster_queue and traced.verdict.waits_for_capacity:  # its holders
        steps.insert(0, holdings.preparing(snapshot, traced.cluster_queue, set()))
    if steps:
        sliced = Pacer(slice_seconds, freeze=freeze)
        await sliced.run(steps)
        sliced.end()
    return traced, outlook_of(snapshot, traced, history=history, now=now, with_what_if=what_if)
