"""`explained`: `explain_with_outlook` with the ETA calibrations its answer reads made first in slices of the
event loop (bot.pacing.Pacer): the same answer, without holding the loop while a queue's calibration is made."""

from __future__ import annotations

from datetime import datetime

from bot.forecast.estimators import calibrations_for
from bot.forecast.history import History
from bot.forecast.outlook import Outlook, outlook_of
from bot.pacing import SLICE_SECONDS, Pacer
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
    """`explain_with_outlook(snapshot, query, ...)`: the trace, then the calibrations of the ETA Estimators its
    answer reads made in slices where they are not made yet (bot.forecast.outlook.calibrations_for), then the
    outlook, which finds them made. The same answer as `explain_with_outlook`'s, without holding the loop while a
    calibration is made (`freeze`, `slice_seconds`: as bot.pacing.Pacer's)."""
    traced = explain(snapshot, query, now=now)
    steps = calibrations_for(snapshot, traced, history=history, now=now)
    if steps:
        sliced = Pacer(slice_seconds, freeze=freeze)
        await sliced.run(steps)
        sliced.end()
    return traced, outlook_of(snapshot, traced, history=history, now=now, with_what_if=what_if)
