"""When will it run: an interval with honest uncertainty, from what the bot has seen its queue do. Pure.

The history is the admissions the bot observed per ClusterQueue and flavor (when each waited from, when it
was admitted). From it the estimator replays, for every past admission, the moments of its wait: at a moment
t, k − 1 workloads queued before it were still waiting (its position at t was k), and it waited
(admitted − t) more. The interval for a job at position k now is the central
`confidence` share of those remaining waits at position k (neighbouring positions scaled to k when k itself
is thin): "likely between 20 and 45 min (from 37 admissions in this ClusterQueue in the last 24 h; 80 % of
past waits at this position ended within that)". bench/eta_calibration.py checks on replayed queues that the
stated share holds.

Running workloads with maximumExecutionTimeSeconds bound when their quota frees: for the job at the head of
its queue, the moment enough of them must have ended caps the interval. No estimate when the history is thin
or the job can never fit as it is.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

WINDOW = timedelta(hours=24)
MIN_ADMISSIONS = 8  # fewer admissions in the window: "no estimate yet"
MIN_SAMPLES = 24  # fewer remaining-wait samples near the position: "no estimate yet"
CONFIDENCE = 80  # percent, the level the answer states
_MOMENTS = 6  # moments of each past wait replayed (its start, then evenly spaced)
_LEVEL_STEPS = 7  # bisection steps of the quantile level's search
MAX_REPLAYED = 300  # the most recent admissions replayed (the cost grows with their square)

# Eta.status values (JSON `eta.status`).
ESTIMATE = "estimate"
NO_ESTIMATE = "no-estimate"
NEVER = "never"
# Eta.reason values for NO_ESTIMATE / NEVER.
THIN_HISTORY = "thin-history"
NEVER_FITS = "never-fits"


@dataclass(frozen=True)
class Observed:
    """One admission the bot saw: a Workload that waited in `cluster_queue` from `queued_at` and got its
    quota in `flavor` at `admitted_at`."""

    cluster_queue: str
    flavor: str
    queued_at: datetime
    admitted_at: datetime
    amount: Decimal | None = None  # what it asked for of the resource its flavor was contested for
    workload: str = ""  # its UID: a Workload admitted in two flavors is one admission


@dataclass(frozen=True)
class Finished:
    """A Workload that held quota in `cluster_queue`/`flavor` from `admitted_at` until `finished_at`."""

    cluster_queue: str
    flavor: str
    admitted_at: datetime
    finished_at: datetime


@dataclass(frozen=True)
class History:
    admissions: tuple[Observed, ...] = ()
    finishes: tuple[Finished, ...] = ()

    def union(self, other: History) -> History:
        return History(
            tuple(dict.fromkeys((*self.admissions, *other.admissions))),
            tuple(dict.fromkeys((*self.finishes, *other.finishes))),
        )


@dataclass(frozen=True)
class Eta:
    status: str  # estimate | no-estimate | never
    position: int | None = None
    low_seconds: int | None = None
    high_seconds: int | None = None
    confidence: int = CONFIDENCE
    admissions: int = 0  # admissions in the window the estimate rests on
    window_hours: int = int(WINDOW.total_seconds() // 3600)
    scope: str = ""  # flavor | cluster-queue: which history it rests on
    samples: int = 0
    bound_seconds: int | None = None  # at the latest, by the running workloads' maximum execution times
    reason: str = ""  # thin-history | never-fits, when there is no estimate


@dataclass(frozen=True)
class Sample:
    position: int
    remaining: float  # seconds
    amount: Decimal | None = None
    end: float = 0.0  # when that wait ended (a POSIX timestamp)


def replay(admissions: Sequence[Observed]) -> list[Sample]:
    """The (position, remaining wait) moments of every past wait (see the module's docstring)."""
    ordered = sorted(admissions, key=lambda a: a.admitted_at)
    admitted = [a.admitted_at.timestamp() for a in ordered]
    queued = [a.queued_at.timestamp() for a in ordered]
    found: list[Sample] = []
    for index, end in enumerate(admitted):
        start = min(queued[index], end)
        wait = end - start
        moments = [start + wait * step / _MOMENTS for step in range(_MOMENTS)] if wait > 0 else [start]
        for moment in moments:
            first = bisect.bisect_right(admitted, moment)  # still waiting at the moment: admitted after it
            ahead = sum(
                1 for j in range(first, len(admitted)) if queued[j] < start or (queued[j] == start and j < index)
            )
            found.append(Sample(1 + ahead, end - moment, ordered[index].amount, end))
    return found


def _quantile_interval(values: Sequence[float], confidence: float) -> tuple[float, float]:
    """The central `confidence` interval of `values` by ranks, with the finite-sample margin of split
    conformal prediction (ranks from n + 1), so that a new draw falls inside at least that often."""
    ordered = sorted(values)
    n = len(ordered)
    tail = (1 - confidence) / 2
    low = math.floor(tail * (n + 1)) - 1
    high = math.ceil((1 - tail) * (n + 1)) - 1
    return ordered[max(0, min(n - 1, low))], ordered[max(0, min(n - 1, high))]


def alike(samples: Sequence[Sample], amount: Decimal | None, minimum: int = MIN_SAMPLES) -> Sequence[Sample]:
    """The samples of past jobs that asked for about as much (half to twice `amount`), when there are
    enough of them: a large job waits longer than a small one at the same position."""
    if amount is None or amount <= 0:
        return samples
    similar = [s for s in samples if s.amount is not None and amount / 2 <= s.amount <= amount * 2]
    return similar if len(similar) >= minimum * 4 else samples


def near(
    samples: Sequence[Sample], position: int, minimum: int = MIN_SAMPLES, amount: Decimal | None = None
) -> list[float]:
    """Remaining waits at `position` (of jobs of about `amount`, when known); neighbouring positions,
    scaled to it, until there are enough."""
    by_position: dict[int, list[float]] = {}
    for sample in alike(samples, amount, minimum):
        by_position.setdefault(sample.position, []).append(sample.remaining)
    chosen: list[float] = list(by_position.get(position, []))
    spread = 1
    top = max(by_position, default=0)
    while len(chosen) < minimum and (position - spread >= 1 or position + spread <= top):
        for other in (position - spread, position + spread):
            if other >= 1 and other != position:
                chosen.extend(value * position / other for value in by_position.get(other, []))
        spread += 1
    return chosen


class Estimator:
    """The history of one ClusterQueue (and flavor, when it has enough of its own), replayed once as of
    `now`; then `eta(position)` per question."""

    def __init__(self, history: History, *, cluster_queue: str, flavor: str, now: datetime) -> None:
        since = now - WINDOW
        in_queue = [a for a in history.admissions if a.cluster_queue == cluster_queue and since <= a.admitted_at <= now]
        in_flavor = [a for a in in_queue if a.flavor == flavor] if flavor else []
        if len(in_flavor) >= MIN_ADMISSIONS:
            chosen, self.scope = in_flavor, "flavor"
        else:
            chosen, self.scope = in_queue, "cluster-queue"
        chosen = sorted(chosen, key=lambda a: a.admitted_at)[-MAX_REPLAYED:]
        by_workload = {(a.workload, a.admitted_at) for a in chosen if a.workload}
        self.admissions = len(by_workload) + sum(1 for a in chosen if not a.workload)
        if by_workload:  # one replayed wait per admission, whatever its flavors
            seen: set[tuple[str, datetime]] = set()
            unique = []
            for a in chosen:
                if a.workload and (a.workload, a.admitted_at) in seen:
                    continue
                seen.add((a.workload, a.admitted_at))
                unique.append(a)
            chosen = unique
        self.samples = replay(chosen) if self.admissions >= MIN_ADMISSIONS else []
        self._levels: dict[tuple[int, Decimal | None], float] = {}

    def level(self, confidence: int, amount: Decimal | None = None) -> float:
        """The quantile level that gives `confidence` on this queue's own recent past: the intervals the
        older half of the history gives are checked against the newer half's waits, and the smallest level
        (between 30 points below the stated one and 99 %) at which as many fell inside as stated is used.
        Queues whose state persists (a long job holding the head) need wider intervals than independent
        draws would; this measures by how much."""
        key = (confidence, amount)
        if key in self._levels:
            return self._levels[key]
        target = confidence / 100
        ordered = sorted(self.samples, key=lambda s: s.end)
        older, newer = ordered[: len(ordered) // 2], ordered[len(ordered) // 2 :]
        newer = list(alike(newer, amount))
        chosen = target
        if len(older) >= MIN_SAMPLES and len(newer) >= MIN_SAMPLES:
            # the backtest's coverage grows with the level: the smallest level that reaches the target
            low, high = max(0.05, target - 0.3), 0.99
            if self._backtest(older, newer, high, amount) < target:
                chosen = high
            else:
                for _ in range(_LEVEL_STEPS):
                    middle = (low + high) / 2
                    if self._backtest(older, newer, middle, amount) >= target:
                        high = middle
                    else:
                        low = middle
                chosen = high
        self._levels[key] = chosen
        return chosen

    @staticmethod
    def _backtest(older: Sequence[Sample], newer: Sequence[Sample], level: float, amount: Decimal | None) -> float:
        """The share of the newer waits inside the intervals the older ones give at `level`."""
        intervals: dict[int, tuple[float, float] | None] = {}
        inside = 0
        for sample in newer:
            if sample.position not in intervals:
                values = near(older, sample.position, amount=amount)
                intervals[sample.position] = _quantile_interval(values, level) if len(values) >= MIN_SAMPLES else None
            interval = intervals[sample.position]
            inside += interval is None or interval[0] <= sample.remaining <= interval[1]
        return inside / len(newer)

    def eta(
        self,
        position: int,
        *,
        confidence: int = CONFIDENCE,
        bound_seconds: int | None = None,
        amount: Decimal | None = None,
    ) -> Eta:
        if self.admissions < MIN_ADMISSIONS:
            return Eta(NO_ESTIMATE, position, admissions=self.admissions, scope=self.scope, reason=THIN_HISTORY)
        values = near(self.samples, position, amount=amount)
        if len(values) < MIN_SAMPLES:
            return Eta(
                NO_ESTIMATE,
                position,
                admissions=self.admissions,
                scope=self.scope,
                samples=len(values),
                reason=THIN_HISTORY,
            )
        low, high = _quantile_interval(values, self.level(confidence, amount))
        if bound_seconds is not None:
            high = min(high, bound_seconds)
            low = min(low, high)
        return Eta(
            ESTIMATE,
            position,
            int(low),
            math.ceil(high),
            confidence,
            self.admissions,
            scope=self.scope,
            samples=len(values),
            bound_seconds=bound_seconds,
        )


def never() -> Eta:
    return Eta(NEVER, reason=NEVER_FITS)


def freeing_bound(holders: Iterable[tuple[Decimal, int | None]], needed: Decimal) -> int | None:
    """Seconds until at least `needed` is freed for sure: the running workloads' (amount, seconds left
    under maximumExecutionTimeSeconds) taken soonest first. None when the time-bounded ones cannot free
    enough (a workload without a maximum may run forever)."""
    if needed <= 0:
        return 0
    freed = Decimal(0)
    for amount, left in sorted((h for h in holders if h[1] is not None), key=lambda h: h[1] or 0):
        freed += amount
        if freed >= needed:
            return left
    return None
