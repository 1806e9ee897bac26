"""Explaining a job, the one way: why it is (or is not) pending (bot.trace.explain) and what comes after, beside
it (its Outlook: when it will likely run, who holds what it waits for, what would admit it; bot.forecast.outlook),
from a snapshot, at `now`, with the admissions the notifier observed (`history`, the ETA's basis).

    explanation, outlook = explain_job(snapshot, query, now=now, history=history)  # in one go
    explanation, outlook = await explain_job_in_slices(snapshot, query, now=now, history=history)  # on the loop

The same answer either way: on the event loop, the ETA's calibrations that answer reads are made first, in
slices (bot.pacing.Pacer), so that a queue's calibration does not hold the loop. Every reader of an answer
comes here: the service's questions (Slack, the demo's chat) and the watcher in slices; the CLI in one go; the
admins' view in one go too, handed `explain_job` by whoever builds it (the view sits beside the service, not
above it). Only the dry run (bot.fit, under the service) explains its overlay of a job not yet created itself
(tests/unit/test_explaining.py says so).
"""

from __future__ import annotations

from datetime import datetime

from bot.forecast.estimators import calibrations_for
from bot.forecast.history import History
from bot.forecast.outlook import Outlook, explain_with_outlook, outlook_of
from bot.pacing import SLICE_SECONDS, Pacer
from bot.trace import holdings
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation
from bot.trace.snapshot import Snapshot


def explain_job(
    snapshot: Snapshot,
    query: Query,
    *,
    now: datetime,
    history: History | None = None,
    what_if: bool = True,
    eta: bool = True,
) -> tuple[Explanation, Outlook]:
    """The job `query` names, explained, with its outlook: its ETA from `history` when given (none when `eta` is
    False: the admins' view shows none), what would admit it unless `what_if` is False."""
    return explain_with_outlook(snapshot, query, now=now, history=history, what_if=what_if, eta=eta)


async def explain_job_in_slices(
    snapshot: Snapshot,
    query: Query,
    *,
    now: datetime,
    history: History | None,
    what_if: bool = True,
    freeze: bool = False,
    slice_seconds: float = SLICE_SECONDS,
) -> tuple[Explanation, Outlook]:
    """`explain_job`'s answer, on the event loop: the trace, then, in slices where they are not made yet, the
    holders of its ClusterQueue's cohort tree (bot.trace.holdings.preparing, as the warmer makes them: a queue's
    part a step) and the calibrations of the ETA Estimators its answer reads (calibrations_for), then the
    outlook, which finds them made; without holding the loop while they are made (`freeze`, `slice_seconds`: as
    bot.pacing.Pacer's; `freeze` where the source freezes the collector's view, as the production cache does)."""
    traced = explain(snapshot, query, now=now)
    steps = calibrations_for(snapshot, traced, history=history, now=now)
    if traced.workload is not None and traced.cluster_queue and traced.verdict.waits_for_capacity:  # its holders
        steps.insert(0, holdings.preparing(snapshot, traced.cluster_queue, set()))
    if steps:
        sliced = Pacer(slice_seconds, freeze=freeze)
        await sliced.run(steps)
        sliced.end()
    return traced, outlook_of(snapshot, traced, history=history, now=now, with_what_if=what_if)
