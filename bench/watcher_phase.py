"""The watcher phase of `bench/run.py`: the proactive-DM watcher (`bot.notify.watcher.Notifier`) over the
benchmark's synced cache, with a real SQLite store (a file in a temporary directory) and a messenger that
records what it is asked to send (no Slack: that is the Slack phase). Passes are driven one at a time
(`Notifier.run_pass`), with the clock frozen a day after the Workloads were created, so every pending
Workload of an owner is due. As in the server, the watcher runs with the queue-history recorder
(`bot.notify.history`, in the same SQLite database): each pass records the admissions it sees, and every ETA
rests on that history (`watcher_history_admissions`: its size at the end):

  first pass      everything due is told (DMs and digests recorded, intents and deliveries written)
  steady passes   nothing changed in the cluster: CPU seconds per pass (`watcher_steady_cpu_seconds`,
                  the median of `--steady-passes`)
  changed pass    after 1 % of the Workloads changed (priority + 1 through the fake API server, applied by
                  the cache's watch): CPU seconds of the next pass (`watcher_changed_cpu_seconds`)

CPU is this process's (every thread: the loop, SQLite's worker thread, the idle informers). A probe
coroutine sleeps 1 ms at a time during every pass; `loop_lag_max_ms` is the worst it overslept (how long
the event loop was held), over all passes. On a shared machine the oversleep also counts the time the
kernel gave the CPU to other processes, so the same probe also runs over an idle loop for as long as the
steady passes took (`loop_lag_idle_max_ms`, the machine's own lag in this run), and measures the event loop
thread's own CPU between two of its wakes (`loop_hold_max_ms`: how long our code held the loop, whatever
else the machine was doing).
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bot.forecast.eta import Eta
from bot.kube.cache import ClusterCache
from bot.kube.ondemand import CacheSource, OnDemand
from bot.notify.history import HistoryRecorder, SQLiteHistory
from bot.notify.policy import PolicyConfig
from bot.notify.ports import Closing
from bot.notify.store import SQLiteStore
from bot.notify.watcher import Notifier
from bot.trace.explanation import Explanation

PROBE_INTERVAL = 0.001


class RecordingMessenger:
    """The watcher's Messenger port, recording: one DM (or digest) per send, updates and closes counted."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []  # (target, Workloads in the message)
        self.updates = 0
        self.closes = 0

    async def send(
        self, target: str, explanations: Sequence[Explanation], keys: Sequence[str], *, eta: Eta | None = None
    ) -> tuple[str, str]:
        self.sent.append((target, len(keys)))
        return f"D{target[1:]}", f"{len(self.sent)}.000100"

    async def update(
        self, channel: str, ts: str, explanations: Sequence[Explanation], keys: Sequence[str], *, eta: Eta | None = None
    ) -> None:
        self.updates += 1

    async def close(self, channel: str, ts: str, closings: Sequence[Closing], target: str) -> None:
        self.closes += 1

    async def announce_closed(self, channel: str, ts: str, closings: Sequence[Closing], target: str) -> None:
        pass

    async def announce_never_fits(self, channel: str, ts: str, explanation: Explanation, target: str) -> None:
        pass

    async def find_sent(self, target: str, key: str) -> tuple[str, str] | None:
        return None

    async def user_for_email(self, email: str) -> str | None:
        return None

    async def utc_offset(self, user: str) -> timedelta | None:
        return None


class LagProbe:
    """A coroutine that sleeps PROBE_INTERVAL at a time and keeps the worst oversleep while `running`."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.held = 0.0  # the loop thread's CPU between two wakes, the worst
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> LagProbe:
        self.worst = 0.0
        self.held = 0.0
        self._task = asyncio.create_task(self._run())
        await asyncio.sleep(0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _run(self) -> None:
        while True:
            started, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(PROBE_INTERVAL)
            self.worst = max(self.worst, time.perf_counter() - started - PROBE_INTERVAL)
            self.held = max(self.held, time.thread_time() - cpu)


async def idle_lag(seconds: float) -> float:
    """The probe's worst oversleep over an idle event loop (the machine's scheduling alone), in ms."""
    async with LagProbe() as probe:
        await asyncio.sleep(seconds)
    return round(probe.worst * 1000, 2)


async def timed_pass(notifier: Notifier) -> dict[str, float | int]:
    async with LagProbe() as probe:
        cpu, wall = time.process_time(), time.perf_counter()
        decisions = await notifier.run_pass()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {
        "cpu_seconds": round(cpu, 3),
        "wall_seconds": round(wall, 3),
        "lag_max_ms": round(probe.worst * 1000, 2),
        "loop_hold_max_ms": round(probe.held * 1000, 2),
        "decisions": len(decisions),
    }


async def watcher_phase(
    cache: ClusterCache,
    *,
    now: datetime,
    change: Callable[[int], Awaitable[int]],
    changed: int,
    steady_passes: int,
) -> dict[str, Any]:
    """`change(k)` modifies k Workloads in the cluster and returns once the cache applied them."""
    messenger = RecordingMessenger()
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "state.sqlite3")
        source = CacheSource(cache, OnDemand(cache.client, cache, visibility=False))
        # As the server runs it (bot.server): the history recorder beside the state, read at every pass.
        recorder = HistoryRecorder(SQLiteHistory(store.path))
        notifier = Notifier(
            source=source, store=store, messenger=messenger, clock=lambda: now, config=PolicyConfig(),
            max_dms_per_pass=10**9,  # everything told in the first pass: the steady passes then send nothing
            freeze_gc=source.freezes_gc,  # as production (bot.server): with the cache's own freeze_gc
            history=recorder,
        )  # fmt: skip
        try:
            first = await timed_pass(notifier)
            dms_first = len(messenger.sent)
            steady = [await timed_pass(notifier) for _ in range(steady_passes)]
            idle = await idle_lag(max(2.0, sum(float(p["wall_seconds"]) for p in steady)))
            applied = await change(changed)
            after_change = await timed_pass(notifier)
            steady_after = await timed_pass(notifier)
        finally:
            await recorder.store.aclose()
            await store.aclose()
    passes = [first, *steady, after_change, steady_after]
    return {
        "watcher_first_cpu_seconds": first["cpu_seconds"],
        "watcher_steady_cpu_seconds": statistics.median(p["cpu_seconds"] for p in steady) if steady else None,
        "watcher_changed_cpu_seconds": after_change["cpu_seconds"],
        "watcher_changed_workloads": applied,
        "watcher_history_admissions": len(recorder.history.admissions),  # what its ETAs rest on
        "loop_lag_max_ms": max(p["lag_max_ms"] for p in passes),
        "loop_lag_idle_max_ms": idle,
        "loop_hold_max_ms": max(p["loop_hold_max_ms"] for p in passes),
        "watcher_passes": {
            "first": first,
            "steady": steady,
            "changed": after_change,
            "steady_after_change": steady_after,
        },
        "watcher_dms": {
            "first_pass": dms_first,
            "workloads_told_first_pass": sum(n for _, n in messenger.sent[:dms_first]),
            "sent_after": len(messenger.sent) - dms_first,
            "updates": messenger.updates,
            "closes": messenger.closes,
        },
    }
