"""Long pure work on the event loop in slices: the ETA warmer's pass over every queue, a queue's calibration.

The trace engine is synchronous and pure; most of what it does for a question is short (bench/: under 2 ms at
p99). Two pieces are not: the warmer's pass over every ClusterQueue (hundreds of ms at 200,000 Workloads) and a
queue's ETA calibration (tens of ms, 0.3-0.4 s for a queue whose jobs wait for hours). Both are made of
steps (a queue, a step of `Estimator.calibration`); `Slices` lets the loop turn once a slice of steps has run
its time, so that a question, a Slack ack or the watcher waiting gets its turn, and asks the collector for the
slice's young garbage at that turn (bot.service.collector), as after a question.

`explained` is `explain` with the ETA calibrations its answer reads made first in slices: the same answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime

from bot.service import collector
from bot.trace.eta import History
from bot.trace.explain import Query, trace
from bot.trace.explanation import Explanation
from bot.trace.outlook import calibrations_for, with_outlook
from bot.trace.snapshot import Snapshot

SLICE_SECONDS = 0.005


class Slices:
    """Steps run back to back for `seconds`, then the loop's turn (`step` after each one); what ran is counted:
    the CPU time of the slices (not what ran between them), the longest slice and the turns taken."""

    def __init__(
        self,
        seconds: float = SLICE_SECONDS,
        *,
        freeze: bool = False,
        timer: Callable[[], float] = time.perf_counter,
        cpu_timer: Callable[[], float] = time.process_time,
    ) -> None:
        self.seconds = seconds
        self.freeze = freeze  # the collector may freeze what is alive at the turn (a source that freezes)
        self._timer = timer
        self._cpu_timer = cpu_timer
        self.cpu_seconds = 0.0
        self.longest_seconds = 0.0
        self.turns = 0
        self._started = timer()
        self._cpu = cpu_timer()

    async def step(self) -> None:
        """A step ended: the loop turns if the slice has run its time."""
        if self._timer() - self._started >= self.seconds:
            self.end()
            # What the slice built is collected at the turn, as a question's is (bot.service.collector), not by
            # a collection that falls inside the next slice (or the next question).
            collector.after_question(freeze=self.freeze)
            await asyncio.sleep(0)
            self.turns += 1
            self._started, self._cpu = self._timer(), self._cpu_timer()

    async def run(self, steps: Iterable[Iterator[None]]) -> int:
        """Run each piece of work of `steps` (a calibration's steps, bot.trace.outlook.calibrations) to its end,
        `step` after each of its steps; how many there were."""
        count = 0
        for work in steps:
            for _ in work:
                await self.step()
                count += 1
        return count

    def end(self) -> None:
        """The slice running now ends (counted); a next `step` starts the next one."""
        now = self._timer()
        self.longest_seconds = max(self.longest_seconds, now - self._started)
        self.cpu_seconds += self._cpu_timer() - self._cpu
        self._started, self._cpu = now, self._cpu_timer()


async def explained(
    snapshot: Snapshot,
    query: Query,
    *,
    now: datetime,
    history: History | None,
    what_if: bool = True,
    freeze: bool = False,
    slice_seconds: float = SLICE_SECONDS,
) -> Explanation:
    """`explain(snapshot, query, ...)`: the trace, then the calibrations of the ETA Estimators its answer reads
    made in slices where they are not made yet (bot.trace.outlook.calibrations_for), then the outlook, which
    finds them made. The same answer as `explain`'s, without holding the loop while a calibration is made
    (`freeze`, `slice_seconds`: as `Slices`')."""
    traced = trace(snapshot, query, now=now)
    steps = calibrations_for(snapshot, traced, history=history, now=now)
    if steps:
        sliced = Slices(slice_seconds, freeze=freeze)
        await sliced.run(steps)
        sliced.end()
    return with_outlook(snapshot, traced, history=history, now=now, with_what_if=what_if)
