"""Every ClusterQueue's ETA Estimator kept ready, so that no question replays a queue's history.

A queue's ETA rests on a replay of its recent past (bot.forecast.replay: every ten minutes, every job waiting
then), made once per queue and minute and kept in the view's memo (bot.forecast.estimators). Whoever asks first
about a queue in a minute would pay for it, and on a live bot, where questions come a few a minute, nearly every
question is such a first one.

The warmer makes them instead, on the event loop between questions (`estimators.prepare` for every queue with
jobs waiting, in slices of `slice_seconds` with the loop's turn between them):

- when the cluster changed (the cache's change listener; wakes during the settling delay or a pass make one more
  pass): a queue's Estimator is made again only where its sources changed (its order, its Workloads or its
  recorded admissions), the others are found in the memo;
- `lead_seconds` before each minute: the next minute's, so that the turn of the minute finds them made (kept
  beside the current minute's: both answer their own minute exactly as a question's own would); just after the
  turn, a pass lets the past minute's go (and finds the new one's made).

A queue's calibration (what widens or narrows its intervals; the longer its jobs wait, the longer it takes) is
made ahead too, step by step within the same slices (`estimators.calibrations`), but only where a question read
the calibration in the last hour (`estimators.CALIBRATED_AHEAD_FOR`): all queues' every minute would cost more
than every question. A question that reads one not made yet makes it in slices before its answer
(bot.service.explaining, bot.pacing).

Every job waiting gets its ETA estimate made too (`estimators.estimates_ahead`: the waits near its place for its
amount and their central share), once per Estimator, so once a minute and after a change of the queue's order.

Two more things a question reads first are made in the same pass, where they changed: the running totals and
priorities along each queue's order (`position.prepare_order`: a first question about a place deep in a queue
would sum the demand of every Workload ahead) and who holds what a job waits for in each cohort tree
(`holdings.preparing`: a tree's holders, made a queue's part a step, then merged). Without them the first
question about each cohort tree paid for its whole tree, and the trace grew with the queues' length.

What it costs is in `stats()` (/metrics: `kueue_bot_eta_warmer_*`; bench/: `warmer_*`), nothing for queues
nobody waits in; bench/README.md has the figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime

from bot.forecast import estimators
from bot.pacing import Pacer
from bot.service.base import ServiceBase
from bot.service.tasks import stop_task
from bot.trace import holdings, position

log = logging.getLogger(__name__)
TURN_SECONDS = 0.5  # the pass at the turn of a minute comes this long after it


class Warmer:
    """The ETA Estimators of one service's cluster, made ahead of the questions (see the module's docstring)."""

    def __init__(
        self,
        service: ServiceBase,
        *,
        lead_seconds: float = 15.0,
        settle_seconds: float = 1.0,
        slice_seconds: float = 0.005,
        ready_poll_seconds: float = 1.0,
        timer: Callable[[], float] = time.perf_counter,
        cpu_timer: Callable[[], float] = time.process_time,
    ) -> None:
        self.service = service
        self.lead_seconds = lead_seconds
        self.settle_seconds = settle_seconds
        self.slice_seconds = slice_seconds
        self.ready_poll_seconds = ready_poll_seconds
        self._timer = timer
        self._cpu_timer = cpu_timer
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self.passes = 0
        self.made = 0  # Estimators made, every pass
        self.forgotten = 0  # Estimators of minutes past let go
        self.cpu_seconds = 0.0  # the passes' CPU time, slice by slice (not what ran between them)
        self.longest_slice_seconds = 0.0
        self.calibration_steps = 0  # steps of the calibrations made ahead (where questions read the last ones')
        self.estimate_steps = 0  # steps of the waiting jobs' estimates made ahead (estimators.estimates_ahead)
        self.holders_steps = 0  # cohort trees' holders made ahead: a queue's part or a tree's merge a step
        self.pass_done = asyncio.Condition()

    # --- lifecycle ----------------------------------------------------------------------------------

    def wake(self) -> None:
        """The cluster changed (the cache's change listener): a pass soon."""
        self._wake.set()

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="kueue-bot-warmer")

    async def stop(self) -> None:
        await stop_task(self._task)
        self._task = None

    def _until_next(self, now: datetime) -> float:
        """Seconds until the next minute's Estimators are due (`lead_seconds` before it; 0: now)."""
        return max(0.0, (estimators.next_estimate_at(now) - now).total_seconds() - self.lead_seconds)

    def _delay(self, now: datetime) -> float:
        """Until the next pass: the lead before the next minute, or, within it (the next minute's made), just
        after the turn of the minute (the past minute's let go; the pass finds the new one's made)."""
        until = self._until_next(now)
        return until if until > 0 else (estimators.next_estimate_at(now) - now).total_seconds() + TURN_SECONDS

    async def _run(self) -> None:
        while True:
            try:
                await self.run_pass()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("warmer: a pass failed")
            delay = self._delay(self.service.clock())
            if not self.service.source.ready:  # its sync may end in a batch that changes nothing: no wake
                delay = min(delay, self.ready_poll_seconds)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)
            if self._wake.is_set() and self.settle_seconds > 0:
                await asyncio.sleep(self.settle_seconds)  # a burst of changes: one pass after it
            self._wake.clear()

    async def wait_for_pass(self, count: int, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """For tests and the bench: wait until `count` passes have completed."""
        async with asyncio.timeout(timeout), self.pass_done:
            await self.pass_done.wait_for(lambda: self.passes >= count)

    # --- one pass -----------------------------------------------------------------------------------

    async def run_pass(self) -> int:
        """Every queue's Estimators as of now's minute, and the next minute's once within `lead_seconds` of
        it; how many were made. Nothing while the source is not ready. Passes never overlap."""
        async with self._lock:
            made = 0
            try:
                made = await self._pass() if self.service.source.ready else 0
            finally:  # a pass that failed (logged by the loop) counts as one
                self.made += made
                async with self.pass_done:
                    self.passes += 1
                    self.pass_done.notify_all()
            return made

    async def _pass(self) -> int:
        service = self.service
        made = 0
        slices = Pacer(
            self.slice_seconds, freeze=service.source.freezes_gc, timer=self._timer, cpu_timer=self._cpu_timer
        )
        try:
            snapshot = await service.source.snapshot()
            now = service.clock()
            moments = [now]
            if self._until_next(now) == 0:
                moments.append(estimators.next_estimate_at(now))
            self.forgotten += estimators.forget_before(snapshot, now)
            trees: set[tuple[str, str, str]] = set()  # the cohort trees' holders seen in this pass
            for name in [queue.name for queue in snapshot.cluster_queues()]:
                # Read each time: the loop turned (the cache may have renewed its memo, the recorder its History).
                history = service.history() if service.history is not None else None
                for moment in moments:
                    made += estimators.prepare(snapshot, name, history=history, now=moment)
                    due = estimators.calibrations(snapshot, name, history=history, now=moment)
                    self.calibration_steps += await slices.run(due)  # their steps, a few ms each
                    # Each waiting job's estimate at its place, as a question about it reads it first.
                    self.estimate_steps += await slices.run(
                        [estimators.estimates_ahead(snapshot, name, history=history, now=moment)]
                    )
                # What else a question about a job waiting here reads first: its order's running totals, and
                # who holds what it waits for in its cohort tree (one queue's part a step).
                position.prepare_order(snapshot, name)
                self.holders_steps += await slices.run([holdings.preparing(snapshot, name, trees)])
                await slices.step()
        finally:
            slices.end()
            self.longest_slice_seconds = max(self.longest_slice_seconds, slices.longest_seconds)
            self.cpu_seconds += slices.cpu_seconds
        return made

    def stats(self) -> dict[str, float]:
        """For /metrics and the bench."""
        return {
            "passes": self.passes,
            "made": self.made,
            "forgotten": self.forgotten,
            "cpu_seconds": self.cpu_seconds,
            "longest_slice_seconds": self.longest_slice_seconds,
            "calibration_steps": self.calibration_steps,
            "holders_steps": self.holders_steps,
            "estimate_steps": self.estimate_steps,
        }
