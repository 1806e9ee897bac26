"""Clocks that move only when a test moves them (time is injected: nothing under test reads the real one)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

START = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)


class Clock:
    """A wall clock: `clock()` is `clock.now`; the test sets `now` or calls `advance`."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class MonotonicClock:
    """A monotonic clock in seconds (what `time.monotonic` is replaced by)."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
