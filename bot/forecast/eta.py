"""When will it run: an interval with honest uncertainty, from what the bot has seen its queue do. Pure.

The history is the admissions the bot observed per ClusterQueue and flavor (when each waited from, when it
was admitted), and the Workloads waiting now. From them the estimator replays the queue's last 24 to 72 h
(its `window`) every ten minutes, as a question would have been asked then: at each moment, every Workload waiting had a
position (1 + those queued before it and still waiting) and a wait left (until its admission; at least
until now for one still waiting: a censored wait, which Kaplan-Meier's estimate counts as such). A job at
position k now gets the central `confidence` share of the waits left at position k (neighbouring positions
scaled to k when k itself is thin; of jobs about its size when there are enough), widened or narrowed by a
factor measured on the queue's own past: "likely between 20 and 45 min (from 37 admissions in this
ClusterQueue in the last 24 h; 80 % of past waits at this position ended within that)".

The factor (calibration by rolling origins): at each of the last twelve hours, the waits left of the jobs
then waiting are predicted from the moments before it only, as the bot would have answered then; the factor
(on a log scale, around the median) is the one at which the stated share of those predictions held. A queue
whose state persists for hours (a long job holding the head) needs wider intervals than independent draws
would; a queue whose position tells little needs narrower ones. bench/eta_calibration.py checks on replayed
queues that the stated share holds (bench/README.md).

Running workloads with maximumExecutionTimeSeconds bound when their quota frees: for the job at the head of
its queue, the moment enough of them must have ended caps the interval. No estimate when the history is thin
or the job can never fit as it is.

Its parts: bot.forecast.history (what the bot saw), replay (the queue's past replayed), kmcurve (the waits'
curve near a position), calibration (the widening factor); here, the Estimator and its Eta.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from bot.forecast.calibration import (
    FACTORS,
    ORIGINS,
    READ_PER_STEP,
    Calibration,
    Interval,
    Origin,
    Test,
    as_of,
    inside,
    intervals_at,
)
from bot.forecast.history import (
    MAX_REPLAYED,
    MIN_ADMISSIONS,
    WINDOW,
    History,
    Waiting,
    window,
)
from bot.forecast.kmcurve import (
    MIN_SAMPLES,
    AmountPool,
    central_of,
    km_curve_of,
    km_quantiles,
    near_lists,
    widen,
)
from bot.forecast.replay import (
    MOMENT,
    Replay,
    Sample,
    Value,
)

CONFIDENCE = 80  # percent, the level the answer states


# Eta.status values (JSON `eta.status`).
ESTIMATE = "estimate"
NO_ESTIMATE = "no-estimate"
NEVER = "never"


# Eta.reason values for NO_ESTIMATE / NEVER.
THIN_HISTORY = "thin-history"
NEVER_FITS = "never-fits"


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


class Estimator:
    """The history of one ClusterQueue (and flavor, when it has enough of its own) and the Workloads
    waiting in it, replayed once as of `now`; then `eta(position)` per question."""

    def __init__(
        self,
        history: History,
        *,
        cluster_queue: str,
        flavor: str,
        now: datetime,
        pending: Sequence[Waiting] = (),
        twin: Estimator | None = None,
    ) -> None:
        self.questioned = False  # a question's estimate read its calibration (`eta`)
        self.ahead = False  # every waiting job's estimate was made ready (bot.forecast.outlook.estimates_ahead)
        self.last_read: datetime | None = None  # when a question last read its predecessors' (bot.forecast.outlook)
        if twin is not None:  # the same admissions replayed (all of the queue's are the flavor's): its replay
            self._twin(twin, "flavor" if flavor else "cluster-queue")
            return
        span = window(history, cluster_queue, now)
        since = now - span
        self.window_hours = int(span.total_seconds() // 3600)
        in_queue = [a for a in history.admissions_in(cluster_queue) if since <= a.admitted_at <= now]
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
        self.now = now
        enough = self.admissions >= MIN_ADMISSIONS
        self._replay = Replay(chosen, now=now, pending=pending, since=since) if enough else None
        self._samples: list[Sample] | None = None  # every sample, when the calibration first asks
        self.origins = max(ORIGINS, self.window_hours // 2)  # calibration: the window's second half, hourly
        self._calibration = Calibration()
        self._alike: dict[tuple[int, int], AmountPool] = {}  # per range of amounts asked with enough samples
        self._centrals: dict[tuple[int, Decimal | None, int], tuple[int, tuple[float, float, float] | None]] = {}

    @property
    def calibrated(self) -> bool:
        """Whether its calibration was read (`factor`): a question got an estimate from it."""
        return bool(self._calibration.factors)

    @property
    def calibrating(self) -> bool:
        """Whether a calibration was begun (`calibration`) and not finished."""
        return bool(self._calibration.running)

    @property
    def estimates(self) -> bool:
        """Whether a question can get an interval from it (enough admissions and samples): one that does reads
        its calibration."""
        return self.admissions >= MIN_ADMISSIONS and self._replay is not None and self._replay.size >= MIN_SAMPLES

    def _twin(self, twin: Estimator, scope: str) -> None:
        self.window_hours, self.scope, self.admissions, self.now = twin.window_hours, scope, twin.admissions, twin.now
        self._replay, self._samples, self.origins = twin._replay, twin._samples, twin.origins
        self._calibration, self._alike = twin._calibration, twin._alike  # shared as made (the same replay)
        self._centrals = twin._centrals
        self.ahead = twin.ahead

    @property
    def samples(self) -> list[Sample]:
        """Every sample of the replay (`replay(...)`)."""
        if self._samples is None:
            self._samples = self._replay.samples() if self._replay is not None else []
        return self._samples

    def _near(self, position: int, amount: Decimal | None) -> list[Value]:
        """`near(self.samples, position, amount=amount)`: the replay's samples made per position, alike's
        count of the similar ones by bisection, and only the positions a question reads filtered by amount."""
        waits, flags = self._near_lists(position, amount)
        return list(zip(waits, flags, strict=True))

    def _near_lists(self, position: int, amount: Decimal | None) -> tuple[list[float], list[bool]]:
        """`_near` as two lists (`near_lists`). The pool of about `amount` is kept per range of the replay's
        distinct amounts it spans: amounts that span the same share it."""
        found = self._replay
        if found is None:
            return [], []
        if amount is not None and amount > 0:
            low, high = amount / 2, amount * 2
            if found.between(low, high) >= MIN_SAMPLES * 4:
                levels = found.levels(low, high)
                pool = self._alike.get(levels)
                if pool is None:
                    pool = self._alike[levels] = AmountPool(found, levels)
                return near_lists(pool.waits, pool.top, position, beyond=found.top)  # a pool's top is lower
        return near_lists(found.waits, found.top, position)

    def _tests(self) -> list[Test]:
        """Calibration questions: at each of the last `origins` hours, each Workload then waiting, the
        curve of the waits near its position as the bot had them then, and its wait left (censored or not)."""
        for _ in self._asking():
            pass
        return self._calibration.tests

    def _asking(self) -> Iterator[None]:
        """`_tests` in steps (resumed where the last driver left it: one for every calibration)."""
        made = self._calibration
        if made.asking is None:
            made.asking = self._ask()
        return made.asking

    def _ask(self) -> Iterator[None]:
        # A generator only drives the steps; the loops are in plain functions (`Origin.ask`, `intervals_at`,
        # `inside`), which end a step by what they read.
        tests = self._calibration.tests
        end = self.now.timestamp()
        samples = self.samples
        back = [-s[MOMENT] for s in samples]  # ascending: the samples are the latest moment first
        yield
        read = 0
        for hour in range(1, self.origins + 1):
            origin = end - hour * 3600
            # The samples at the origin (within a second of it), and those before it (bisected, not scanned).
            asked = samples[bisect.bisect_right(back, -origin - 1) : bisect.bisect_left(back, -origin + 1)]
            if not asked:
                continue
            before = samples[bisect.bisect_right(back, -origin) :]
            if read + len(before) > READ_PER_STEP:
                read = 0
                yield
            origin_questions = Origin(as_of(before, origin))
            read += len(before)
            done = 0
            while done < len(asked):
                done, read = origin_questions.ask(asked, done, tests, read)
                if read > READ_PER_STEP:
                    read = 0
                    yield

    def calibration(self, confidence: int = CONFIDENCE) -> Iterator[None]:
        """The calibration of `confidence` (`factor`) in steps of a few milliseconds each (part of an origin's
        questions, part of their intervals, one factor tried): whoever drives it (the warmer, a question's
        service) lets the event loop turn between them, and `factor` runs what is left. Resumed where the last
        driver left it; nothing left once made. A queue whose jobs wait for hours holds thousands of calibration
        questions: made at once it held the loop for up to a second (bench/README.md)."""
        made = self._calibration
        if confidence in made.factors:
            return iter(())
        running = made.running.get(confidence)
        if running is None:
            running = made.running[confidence] = self._calibrate(confidence)
        return running

    def _calibrate(self, confidence: int) -> Iterator[None]:
        made = self._calibration
        yield from self._asking()
        target = confidence / 100
        intervals: list[Interval] = []
        done = 0
        while done < len(made.tests):
            done = intervals_at(made.tests, done, target, intervals)
            yield
        chosen, before = 1.0, 0.0
        if len(intervals) >= MIN_SAMPLES:
            for factor in FACTORS:
                share = inside(intervals, factor) / len(intervals)
                if share >= target:  # the first factor that reaches it, or the one before when that was closer
                    chosen = factor if share - target <= target - before or factor == FACTORS[0] else factor - 0.05
                    break
                before, chosen = share, factor
                yield
        made.factors[confidence] = chosen
        made.running.pop(confidence, None)

    def factor(self, confidence: int) -> float:
        """The widening factor at which `confidence` % of the calibration questions' waits fell inside
        their intervals (1 when there are too few to tell). A wait not over yet counts as a miss once it
        outlasted its interval, else by the chance, on its own estimate, that it ends inside."""
        found = self._calibration.factors.get(confidence)
        if found is None:
            for _ in self.calibration(confidence):
                pass
            found = self._calibration.factors[confidence]
        return found

    def ready(self, position: int, amount: Decimal | None = None, confidence: int = CONFIDENCE) -> None:
        """Make ahead what `eta(position, amount=amount)` and `reads_factor` read first (the waits near the
        position and their central share, kept): the warmer does it for every job waiting in the queue."""
        if self.admissions >= MIN_ADMISSIONS:
            self._central_near(position, amount, confidence)

    @property
    def estimates_made(self) -> int:
        """How many (position, amount) estimates it keeps made (`ready`, or a question's)."""
        return len(self._centrals)

    def let_go_of_waits(self) -> None:
        """Let go of the waits kept per position (the replay's columns, the pools of alike amounts): what `ready`
        made of them for every waiting job is several times the size of its estimates (new floats); a question
        about a place not made reads its few positions again."""
        if self._replay is not None:
            self._replay.let_go_of_waits()
        self._alike.clear()

    def shares_estimates(self, other: Estimator) -> bool:
        """Whether `other` reads the very estimates it keeps (twins: the same replay)."""
        return self._centrals is other._centrals

    def reads_factor(self, position: int, amount: Decimal | None = None, confidence: int = CONFIDENCE) -> bool:
        """Whether `eta(position, amount=amount)` reads the calibration (it states an interval)."""
        if self.admissions < MIN_ADMISSIONS:
            return False
        return self._central_near(position, amount, confidence)[1] is not None

    def _central_near(
        self, position: int, amount: Decimal | None, confidence: int
    ) -> tuple[int, tuple[float, float, float] | None]:
        """How many waits are near `position` (of jobs of about `amount`) and their central `confidence` share
        (None when too few, or the censored waits leave it short): kept, for the question's calibration check
        (`reads_factor`) and its estimate (`eta`) read it both."""
        key = (position, amount, confidence)
        found = self._centrals.get(key)
        if found is None:
            waits, flags = self._near_lists(position, amount)
            central = central_of(*km_curve_of(waits, flags), confidence / 100) if len(waits) >= MIN_SAMPLES else None
            found = self._centrals[key] = (len(waits), central)
        return found

    def median(self, position: int, amount: Decimal | None = None) -> float | None:
        """The median wait left at `position` (None when unknown)."""
        return km_quantiles(self._near(position, amount), (0.5,))[0]

    def eta(
        self,
        position: int,
        *,
        confidence: int = CONFIDENCE,
        bound_seconds: int | None = None,
        amount: Decimal | None = None,
    ) -> Eta:
        hours = self.window_hours
        thin = Eta(
            NO_ESTIMATE, position, admissions=self.admissions, window_hours=hours, scope=self.scope, reason=THIN_HISTORY
        )
        if self.admissions < MIN_ADMISSIONS:
            return thin
        samples, central = self._central_near(position, amount, confidence)
        if central is None:
            return Eta(
                NO_ESTIMATE, position, admissions=self.admissions, window_hours=hours, scope=self.scope,
                samples=samples, reason=THIN_HISTORY,
            )  # fmt: skip
        self.questioned = True
        low, high = widen(*central, self.factor(confidence))
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
            hours,
            scope=self.scope,
            samples=samples,
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
