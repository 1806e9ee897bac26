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
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from itertools import accumulate, compress, groupby, repeat
from operator import itemgetter, mul, not_, truediv
from typing import Final

WINDOW = timedelta(hours=24)  # the history an estimate rests on, at least
MAX_WINDOW = timedelta(hours=72)  # ... at most: a queue whose waits last hours is looked at over longer
WAITS_PER_WINDOW = 16  # the window spans at least this many typical (median) waits
MIN_ADMISSIONS = 8  # fewer admissions in the window: "no estimate yet"
MIN_SAMPLES = 24  # fewer remaining-wait samples near the position: "no estimate yet"
CONFIDENCE = 80  # percent, the level the answer states
STEP = timedelta(minutes=10)  # the replayed moments' spacing
MAX_REPLAYED = 300  # the most recent admissions replayed
_ORIGINS = 12  # calibration: the last twelve hours, one origin each
_FACTORS = tuple(0.5 + 0.05 * i for i in range(71))  # 0.5 .. 4.0: the widening factors tried
# The calibration's steps (`Estimator.calibration`) end once they have read this many samples or waits (what
# its time follows: an origin's known samples gathered, the waits near each question's position, each
# question's Kaplan-Meier curve), or after each factor tried: a few ms at most (bench/README.md).
_READ_PER_STEP = 8192

# Eta.status values (JSON `eta.status`).
ESTIMATE = "estimate"
NO_ESTIMATE = "no-estimate"
NEVER = "never"
# Eta.reason values for NO_ESTIMATE / NEVER.
THIN_HISTORY = "thin-history"
NEVER_FITS = "never-fits"


@dataclass(frozen=True, slots=True)
class Observed:
    """One admission the bot saw: a Workload that waited in `cluster_queue` from `queued_at` and got its
    quota in `flavor` at `admitted_at`."""

    cluster_queue: str
    flavor: str
    queued_at: datetime
    admitted_at: datetime
    amount: Decimal | None = None  # what it asked for of the resource its flavor was contested for
    workload: str = ""  # its UID: a Workload admitted in two flavors is one admission


@dataclass(frozen=True, slots=True)
class Waiting:
    """A Workload waiting now in the ClusterQueue (its wait so far is a lower bound of its whole wait)."""

    queued_at: datetime
    amount: Decimal | None = None


@dataclass(frozen=True, slots=True)
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

    # The admissions by ClusterQueue, made when first asked (a field, not a cached_property: the compiled
    # engine's classes keep no instance dict).
    _by_queue: dict[str, tuple[Observed, ...]] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_queue", None)  # (a default alone leaves a compiled instance without it)

    def admissions_in(self, cluster_queue: str) -> tuple[Observed, ...]:
        """The admissions of one ClusterQueue, in the history's order. A recorded history holds every queue's
        (up to thousands each): the index is made once per History, not one scan of it all per queue."""
        index = self._by_queue
        if index is None:
            found: dict[str, list[Observed]] = {}
            for admission in self.admissions:
                found.setdefault(admission.cluster_queue, []).append(admission)
            index = {queue: tuple(admissions) for queue, admissions in found.items()}
            object.__setattr__(self, "_by_queue", index)
        return index.get(cluster_queue, ())

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


# One waiting job at one replayed moment: (position, remaining, amount, moment, censored) — its place, the
# wait it had left then in seconds (at least that when censored: still waiting now), how much it asked for,
# the moment (a POSIX timestamp). A plain tuple of plain values: a replay makes thousands and an Estimator is
# kept, and only an exact tuple of such values leaves the garbage collector's sight (2.1 million tracked
# samples held the questions of bench/ 1.8 s in full collections at 50,000 Workloads).
Sample = tuple[int, float, Decimal | None, float, bool]
POSITION: Final = 0
REMAINING: Final = 1
AMOUNT: Final = 2
MOMENT: Final = 3
CENSORED: Final = 4


def replay(
    admissions: Sequence[Observed],
    *,
    now: datetime,
    pending: Sequence[Waiting] = (),
    since: datetime | None = None,
    step: timedelta = STEP,
) -> list[Sample]:
    """Every `step` back from `now` to `since` (default: the window), every Workload waiting then: its
    position and its wait left (see the module's docstring)."""
    return Replay(admissions, now=now, pending=pending, since=since, step=step).samples()


def _queued_first(waiting: tuple[float, Decimal | None]) -> tuple[float, bool, Decimal]:
    """Those waiting by when they were queued, then by amount (none known last: two queued in the same second,
    as Kubernetes' whole-second times often have them, one asking for none of the main resource)."""
    since, amount = waiting
    return (since, amount is None, amount if amount is not None else _NONE)


_NONE: Final = Decimal(0)


# One job of a replay: (queued, index, waiting until, wait ends, amount, censored).
_Job = tuple[float, int, float, float, Decimal | None, bool]


class Replay:
    """`replay` kept by moment: at each moment (the latest first) the ranks in queue order of the jobs waiting
    then. A question reads a few positions (a queue's replay holds thousands of samples): a position's column
    (its moments and the job at that position at each) is made when first read, its samples or waits when
    asked, every sample only for the calibration. What it keeps is a few tuples of plain numbers (the moments'
    ranks end to end in one), not a tuple per moment or per sample: each new container counts towards the next
    young collection, and a replay made per queue would bring thousands. A tuple of plain numbers leaves the
    collector's sight at its first collection (a list would be walked, number by number, by every collection
    of its generation)."""

    def __init__(
        self,
        admissions: Sequence[Observed],
        *,
        now: datetime,
        pending: Sequence[Waiting] = (),
        since: datetime | None = None,
        step: timedelta = STEP,
    ) -> None:
        end = now.timestamp()
        first_moment = (since or now - WINDOW).timestamp()
        ordered = sorted(admissions, key=lambda a: a.admitted_at)
        still = sorted([(w.queued_at.timestamp(), w.amount) for w in pending if w.queued_at <= now], key=_queued_first)
        # Every job once, in queue order (when it was queued, then the admissions before the ones still
        # waiting): its rank there. At a moment, those waiting are those queued by then and not admitted yet.
        jobs: list[_Job] = []
        for j, a in enumerate(ordered):
            admitted = a.admitted_at.timestamp()
            jobs.append((min(a.queued_at.timestamp(), admitted), j, admitted, admitted, a.amount, False))
        for index, (since_at, amount) in enumerate(still):
            jobs.append((since_at, len(ordered) + index, math.inf, end, amount, True))
        jobs.sort()
        self._ends = tuple([job[3] for job in jobs])  # when each job's wait ends (now, when censored)
        self.amounts: tuple[Decimal | None, ...] = tuple([job[4] for job in jobs])
        self._censored: tuple[bool, ...] = tuple([job[5] for job in jobs])
        # Back from now, moment by moment: a job waits at a moment from when it was queued (inclusive) until
        # its admission; its rank joins those waiting (kept sorted) as the moments pass below its admission,
        # and leaves once they pass below when it was queued.
        queued, until = [job[0] for job in jobs], [job[2] for job in jobs]
        count = len(jobs)
        joining = sorted(range(count), key=until.__getitem__, reverse=True)
        leaving = sorted(range(count), key=queued.__getitem__, reverse=True)
        waiting: list[int] = []
        joined = left = 0
        times: list[float] = []
        flat: list[int] = []  # the moments' ranks, end to end
        starts = [0]
        # How many moments each job waited through: the moments kept when it joined and when it left (every
        # moment it waits at is kept, it is there); those still there at the end leave after the last.
        entered, stayed = [0] * count, [0] * count
        seconds = step.total_seconds()
        moment = end - seconds
        while moment >= first_moment:
            while joined < count and until[joining[joined]] > moment:
                job = joining[joined]
                bisect.insort(waiting, job)
                entered[job] = len(times)
                joined += 1
            while left < count and queued[leaving[left]] > moment:
                job = leaving[left]  # (it joined: queued by its admission, it waits until then)
                del waiting[bisect.bisect_left(waiting, job)]
                stayed[job] = len(times) - entered[job]
                left += 1
            if waiting:
                times.append(moment)
                flat += waiting
                starts.append(len(flat))
            moment -= seconds
        for job in waiting:
            stayed[job] = len(times) - entered[job]
        self._times = tuple(times)
        self._waiting, self._starts = tuple(flat), tuple(starts)  # moment i's ranks: flat[starts[i]:starts[i + 1]]
        lengths = [starts[i + 1] - starts[i] for i in range(len(times))]
        self.top = max(lengths, default=0)  # the last position with samples
        self._spans = tuple(lengths)  # how many wait at each moment
        self._columns: dict[int, tuple[tuple[float, ...], tuple[int, ...]]] = {}
        self._waits: dict[int, Waits] = {}
        # How many samples each amount has (a job's amount once per moment it waited through), in order.
        weights: dict[Decimal, int] = {}
        for amount, many in zip(self.amounts, stayed, strict=True):
            if amount is not None and many > 0:
                weights[amount] = weights.get(amount, 0) + many
        self._amounts = sorted(weights)
        self._counts = [0, *accumulate(weights[amount] for amount in self._amounts)]
        # Each job's amount as its rank among the distinct amounts (-1: none): a pool of amounts between two
        # bounds is a range of ranks, its jobs marked in C (`alike_of`).
        self._levels = tuple(sorted({amount for amount in self.amounts if amount is not None}))
        rank = {amount: index for index, amount in enumerate(self._levels)}
        self._level_of = tuple([-1 if amount is None else rank[amount] for amount in self.amounts])

    def levels(self, low: Decimal, high: Decimal) -> tuple[int, int]:
        """The ranks of the distinct amounts from `low` to `high` (a range: [first, end))."""
        return bisect.bisect_left(self._levels, low), bisect.bisect_right(self._levels, high)

    def alike_of(self, levels: tuple[int, int]) -> bytes:
        """For each job, 1 when its amount's rank is in the range `levels` (as `levels` gives it), else 0."""
        return bytes(map(range(*levels).__contains__, self._level_of))

    def column(self, position: int) -> tuple[tuple[float, ...], tuple[int, ...]]:
        """The moments with a job at `position` (the latest first) and that job's rank at each."""
        found = self._columns.get(position)
        if found is None:
            if not 1 <= position <= self.top:
                return _NO_COLUMN
            index = position - 1
            times, waiting, starts, spans = self._times, self._waiting, self._starts, self._spans
            chosen = [i for i in range(len(spans)) if spans[i] > index]  # the moments with that many waiting
            found = self._columns[position] = (
                tuple([times[i] for i in chosen]),
                tuple([waiting[starts[i] + index] for i in chosen]),
            )
        return found

    def let_go_of_waits(self) -> None:
        """Let go of the columns and waits kept per position (`Estimator.let_go_of_waits`)."""
        self._columns.clear()
        self._waits.clear()

    def waits(self, position: int) -> Waits:
        """The waits left at `position`, the latest moment first (kept: a question reads a few positions)."""
        found = self._waits.get(position)
        if found is None:
            found = self._waits[position] = self.waits_of(position)
        return found

    def waits_of(self, position: int, alike: bytes | None = None) -> Waits:
        """The waits left at `position` of the jobs `alike` marks (every job without it), the latest first."""
        times, ranks = self.column(position)
        ends, censored = self._ends, self._censored
        if alike is None:
            return tuple([ends[j] - m for m, j in zip(times, ranks, strict=True)]), tuple([censored[j] for j in ranks])
        waits: list[float] = []
        flags: list[bool] = []
        # By index, not zip: compiled, a native loop (the warmer reads every waiting job's: estimates_ahead).
        for k in range(len(ranks)):
            j = ranks[k]
            if alike[j]:
                waits.append(ends[j] - times[k])
                flags.append(censored[j])
        return tuple(waits), tuple(flags)

    def samples(self) -> list[Sample]:
        """Every sample: moment by moment (the latest first), each moment's by position."""
        ends, amounts, censored, waiting, starts = self._ends, self.amounts, self._censored, self._waiting, self._starts
        return [
            (position, ends[j] - moment, amounts[j], moment, censored[j])
            for i, moment in enumerate(self._times)
            for position, j in enumerate(waiting[starts[i] : starts[i + 1]], start=1)
        ]

    @property
    def size(self) -> int:
        """How many samples it holds."""
        return len(self._waiting)

    def between(self, low: Decimal, high: Decimal) -> int:
        """How many samples asked for `low` to `high`."""
        lower = bisect.bisect_left(self._amounts, low)
        return self._counts[bisect.bisect_right(self._amounts, high)] - self._counts[lower]


_NO_COLUMN: tuple[tuple[float, ...], tuple[int, ...]] = ((), ())


Value = tuple[float, bool]  # a wait left, censored or not
Waits = tuple[tuple[float, ...], tuple[bool, ...]]  # waits left, and whether each is censored


_first = itemgetter(0)
_second = itemgetter(1)


def km_curve(values: Sequence[Value]) -> tuple[list[float], list[float]]:
    """Kaplan-Meier's estimate of the waits' distribution (a censored wait is at least that long): the
    waits at which it steps, and its value (the share ended by then) at each."""
    # map/itemgetter in C: the pairs' own float objects (compiled, typed reads may make new ones).
    return km_curve_of(list(map(_first, values)), list(map(_second, values)))


def km_curve_of(waits: Sequence[float], flags: Sequence[bool]) -> tuple[list[float], list[float]]:
    """`km_curve` of the waits `waits`, each censored where `flags` says."""
    # At each wait some ended at, those at risk are those whose wait (ended or censored) was not shorter: the
    # curve steps only there, so only the distinct ended waits are visited (sorted in C, each run of equal
    # ones counted in one native loop: a Counter's Python code was a fifth of the warmer's estimates).
    ended = sorted(compress(waits, map(not_, flags)))
    censored_waits = sorted(compress(waits, flags))
    total = len(waits)
    survival = 1.0
    xs: list[float] = []
    cdf: list[float] = []
    before = 0  # ended at a shorter wait
    index, size = 0, len(ended)
    while index < size:
        wait = ended[index]
        end = index + 1
        while end < size and ended[end] == wait:
            end += 1
        count = end - index
        survival *= 1 - count / (total - before - bisect.bisect_left(censored_waits, wait))
        xs.append(wait)
        cdf.append(1 - survival)
        before += count
        index = end
    return xs, cdf


def km_quantiles(values: Sequence[Value], levels: Sequence[float]) -> list[float | None]:
    """The smallest wait at which Kaplan-Meier's estimate reaches each level (None when the censored waits
    leave it short of it)."""
    xs, cdf = km_curve(values)
    found: list[float | None] = []
    for level in levels:
        index = bisect.bisect_left(cdf, level - 1e-9)
        found.append(xs[index] if index < len(xs) else None)
    return found


def _share_by(xs: Sequence[float], cdf: Sequence[float], wait: float) -> float:
    index = bisect.bisect_right(xs, wait)
    return cdf[index - 1] if index else 0.0


def _central_of(xs: Sequence[float], cdf: Sequence[float], confidence: float) -> tuple[float, float, float] | None:
    """(low, median, high): the central `confidence` share of the waits whose Kaplan-Meier curve is (xs, cdf),
    and their median (None when the censored waits leave the curve short of the highest)."""
    tail = (1 - confidence) / 2
    found = []
    for level in (tail, 0.5, 1 - tail):
        index = bisect.bisect_left(cdf, level - 1e-9)
        if index >= len(xs):
            return None
        found.append(xs[index])
    return found[0], found[1], found[2]


def widen(low: float, median: float, high: float, factor: float) -> tuple[float, float]:
    """The interval stretched (factor > 1) or shrunk around the median, on a log scale (ratios, not
    minutes: a wait of hours is as uncertain in proportion as one of minutes)."""
    middle = max(median, 1.0)
    return middle * (max(low, 1.0) / middle) ** factor, middle * (max(high, 1.0) / middle) ** factor


def alike(samples: Sequence[Sample], amount: Decimal | None, minimum: int = MIN_SAMPLES) -> Sequence[Sample]:
    """The samples of past jobs that asked for about as much (half to twice `amount`), when there are
    enough of them: a large job waits longer than a small one at the same position."""
    if amount is None or amount <= 0:
        return samples
    low, high = amount / 2, amount * 2
    similar = [s for s in samples if s[AMOUNT] is not None and low <= s[AMOUNT] <= high]
    return similar if len(similar) >= minimum * 4 else samples


_EVERY: Final[tuple[Decimal | None, ...]] = (None,)  # `_alike_amounts`: every sample


def _alike_amounts(
    by_amount: Mapping[Decimal | None, Sequence[Sample]], amount: Decimal | None
) -> tuple[Decimal | None, ...]:
    """`alike` over samples gathered by amount: the amounts whose samples it keeps (_EVERY: all of them)."""
    if amount is None or amount <= 0:
        return _EVERY
    low, high = amount / 2, amount * 2
    chosen = tuple(sorted(a for a in by_amount if a is not None and low <= a <= high))
    return chosen if sum(len(by_amount[a]) for a in chosen) >= MIN_SAMPLES * 4 else _EVERY


def near(
    samples: Sequence[Sample], position: int, minimum: int = MIN_SAMPLES, amount: Decimal | None = None
) -> list[Value]:
    """Waits left at `position` (of jobs of about `amount`, when known); neighbouring positions, scaled
    to it, until there are enough."""
    return near_grouped(by_position(alike(samples, amount, minimum)), position, minimum)


def near_grouped(grouped: Mapping[int, Sequence[Sample]], position: int, minimum: int = MIN_SAMPLES) -> list[Value]:
    """`near` over samples already grouped `by_position` (the calibration asks many positions of one pool)."""

    def waits(at: int) -> Waits:
        found = grouped.get(at, ())
        # map/itemgetter in C: the samples' own float objects (compiled, typed reads may make new ones).
        return tuple(map(_remaining, found)), tuple(map(_censored, found))

    return near_in(waits, max(grouped, default=0), position, minimum)


def by_position(samples: Iterable[Sample]) -> dict[int, tuple[Sample, ...]]:
    """The samples by position, each position's in their order (a stable sort, then runs: no loop in Python);
    tuples of plain tuples, out of the collector's sight as the samples are."""
    ordered = sorted(samples, key=_position)
    return {position: tuple(run) for position, run in groupby(ordered, key=_position)}


_position = itemgetter(POSITION)
_remaining = itemgetter(REMAINING)
_censored = itemgetter(CENSORED)


def near_in(
    at: Callable[[int], Waits], top: int | Callable[[], int], position: int, minimum: int = MIN_SAMPLES
) -> list[Value]:
    """`near` over waits grouped by position: `at(p)` gives the waits left at position p (and whether each is
    censored), `top` the last position that has any (or how to find it, asked only when the neighbours above
    are needed). The pairs are made here, for the question: what is kept is two tuples of plain values a
    position, not a pair a sample (each new container counts towards the next young collection)."""
    found, flags = near_lists(at, top, position, minimum)
    return list(zip(found, flags, strict=True))


def near_lists(
    at: Callable[[int], Waits],
    top: int | Callable[[], int],
    position: int,
    minimum: int = MIN_SAMPLES,
    beyond: int | None = None,
) -> tuple[list[float], list[bool]]:
    """`near_in` as two lists, the waits and whether each is censored (what `km_curve_of` reads): no pair made
    a sample, the lists extended in C (a question reads a few positions of tens of waits each). `beyond`: a
    position no position above has waits at (`top` itself when it is a number): from a place further down than
    that, the neighbours nearer than it on both sides are above it, none is read (a job thousands of places
    behind every one the history saw read them one by one, and the warmer makes every waiting job's)."""
    waits, censored = at(position)
    found, flags = list(waits), list(censored)
    spread = 1
    last = top if isinstance(top, int) else None
    empty_above = last if last is not None else beyond
    if empty_above is not None and position - empty_above > spread:
        spread = position - empty_above  # the first spread that reaches a position with waits
    while len(found) < minimum:
        if position - spread < 1:  # only the positions above are left
            if last is None:
                last = top() if callable(top) else top
            if position + spread > last:
                break
        for other in (position - spread, position + spread):
            if other >= 1 and other != position:
                waits, censored = at(other)
                found.extend(map(truediv, map(mul, waits, repeat(position)), repeat(other)))  # wait * position / other
                flags.extend(censored)
        spread += 1
    return found, flags


class _Alike:
    """The jobs of about one amount (`alike`'s pool when it has enough): a question reads the waits of those
    of them at the positions around its own."""

    def __init__(self, replay: Replay, levels: tuple[int, int]) -> None:
        self.replay = replay
        self.alike = replay.alike_of(levels)
        self.kept: dict[int, Waits] = {}
        self._top: int | None = None  # the last position with any of them, when first asked

    def waits(self, position: int) -> Waits:
        found = self.kept.get(position)
        if found is None:
            found = self.kept[position] = self.replay.waits_of(position, self.alike)
        return found

    def top(self) -> int:
        if self._top is None:
            alike, column = self.alike, self.replay.column
            self._top = next((p for p in range(self.replay.top, 0, -1) if any(map(alike.__getitem__, column(p)[1]))), 0)
        return self._top


def _as_of(samples: Sequence[Sample], origin: float) -> list[Sample]:
    """The samples the bot had at `origin`: the moments before it, a wait not over by then censored there."""
    found = []
    for s in samples:
        if s[MOMENT] >= origin:
            continue
        if s[MOMENT] + s[REMAINING] > origin:
            found.append((s[POSITION], origin - s[MOMENT], s[AMOUNT], s[MOMENT], True))
        else:
            found.append(s)
    return found


Curve = tuple[tuple[float, ...], tuple[float, ...]]  # Kaplan-Meier's (xs, cdf): `km_curve`
Test = tuple[tuple[float, ...], tuple[float, ...], float, bool]  # a calibration question: its curve, wait left
_NO_CURVE: Curve = ((), ())


# A calibration question's interval at one confidence: (low, median, high), its wait left, whether censored,
# and its curve when censored (what the share of it ended inside an interval reads).
_Interval = tuple[tuple[float, float, float], float, bool, Curve]


def _intervals(tests: Sequence[Test], start: int, target: float, intervals: list[_Interval]) -> int:
    """The intervals at `target` of the questions from `start` on, added to `intervals` until _READ_PER_STEP
    waits were read; where it stopped."""
    read = 0
    index = start
    while index < len(tests) and read <= _READ_PER_STEP:
        xs, cdf, left, censored = tests[index]
        central = _central_of(xs, cdf, target)
        if central is not None:
            intervals.append((central, left, censored, (xs, cdf) if censored else _NO_CURVE))
        read += len(xs)
        index += 1
    return index


def _inside(intervals: Sequence[_Interval], factor: float) -> float:
    """How many of the questions' waits fell inside their intervals widened by `factor`: a wait not over yet
    counts as a miss once it outlasted its interval, else by the chance, on its own estimate, that it ends
    inside."""
    inside = 0.0
    for (low, median, high), left, censored, (xs, cdf) in intervals:
        lower, upper = widen(low, median, high, factor)
        if not censored:
            inside += lower <= left <= upper
        elif left < upper:
            still = 1 - _share_by(xs, cdf, left)
            if still > 1e-9:
                ended = _share_by(xs, cdf, upper) - _share_by(xs, cdf, max(left, lower))
                inside += max(0.0, ended) / still
    return inside


class _Origin:
    """The calibration's questions at one origin: the samples known then, gathered by amount, and each pool of
    them (`alike` of an amount asked) grouped by position once (not a scan and a sort per job asked): the same
    samples a position as `near(alike(known, amount), position)`, in another order, which no use of them
    depends on (a curve)."""

    def __init__(self, known: list[Sample]) -> None:
        self.known = known
        self.by_amount: dict[Decimal | None, list[Sample]] = {}
        for s in known:
            self.by_amount.setdefault(s[AMOUNT], []).append(s)
        self.pools: dict[Decimal | None, Mapping[int, Sequence[Sample]]] = {}
        self.grouped: dict[tuple[Decimal | None, ...], Mapping[int, Sequence[Sample]]] = {}

    def ask(self, asked: Sequence[Sample], start: int, tests: list[Test], read: int) -> tuple[int, int]:
        """The questions of `asked` from `start` on, added to `tests` (as their waits' curves) until `read`
        passes _READ_PER_STEP samples or waits read; where it stopped, and `read` then."""
        index = start
        while index < len(asked) and read <= _READ_PER_STEP:
            sample = asked[index]
            amount = sample[AMOUNT]
            pool = self.pools.get(amount)
            if pool is None:
                chosen = _alike_amounts(self.by_amount, amount)
                pool = self.grouped.get(chosen)
                if pool is None:
                    pool = self.grouped[chosen] = by_position(
                        self.known if chosen == _EVERY else [s for a in chosen for s in self.by_amount[a]]
                    )
                    read += len(self.known)  # (grouped by position: a sort of them)
                self.pools[amount] = pool
            values = near_grouped(pool, sample[POSITION])
            if len(values) >= MIN_SAMPLES:
                # Kept as its waits' curve (what every confidence's factor reads), tuples of plain numbers: not
                # the waits (hundreds of thousands of pairs a queue that the collector would walk while kept).
                xs, cdf = km_curve(values)
                tests.append((tuple(xs), tuple(cdf), sample[REMAINING], sample[CENSORED]))
            read += len(values)
            index += 1
        return index, read


class _Calibration:
    """What an Estimator's calibration has made so far (twins share one: the same replay): the questions asked
    (`tests`, made by `asking` in steps), each confidence's factor once found, and those being found."""

    def __init__(self) -> None:
        self.tests: list[Test] = []
        self.asking: Iterator[None] | None = None
        self.factors: dict[int, float] = {}
        self.running: dict[int, Iterator[None]] = {}


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
        self.origins = max(_ORIGINS, self.window_hours // 2)  # calibration: the window's second half, hourly
        self._calibration = _Calibration()
        self._alike: dict[tuple[int, int], _Alike] = {}  # per range of amounts asked with enough samples
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
                    pool = self._alike[levels] = _Alike(found, levels)
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
        # A generator only drives the steps; the loops are in plain functions (`_Origin.ask`, `_intervals`,
        # `_inside`), which end a step by what they read.
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
            if read + len(before) > _READ_PER_STEP:
                read = 0
                yield
            origin_questions = _Origin(_as_of(before, origin))
            read += len(before)
            done = 0
            while done < len(asked):
                done, read = origin_questions.ask(asked, done, tests, read)
                if read > _READ_PER_STEP:
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
        intervals: list[_Interval] = []
        done = 0
        while done < len(made.tests):
            done = _intervals(made.tests, done, target, intervals)
            yield
        chosen, before = 1.0, 0.0
        if len(intervals) >= MIN_SAMPLES:
            for factor in _FACTORS:
                share = _inside(intervals, factor) / len(intervals)
                if share >= target:  # the first factor that reaches it, or the one before when that was closer
                    chosen = factor if share - target <= target - before or factor == _FACTORS[0] else factor - 0.05
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
        made of them for every waiting job is ~2.5 KB a job (new floats), its estimates ~0.3 KB; a question
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
            central = _central_of(*km_curve_of(waits, flags), confidence / 100) if len(waits) >= MIN_SAMPLES else None
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


def window(history: History, cluster_queue: str, now: datetime) -> timedelta:
    """How far back an estimate looks: 24 h, or WAITS_PER_WINDOW typical waits of the queue when they are
    longer (a queue whose waits last hours holds only a few of them in a day, and its state persists for
    longer than the calibration's hours would see), up to MAX_WINDOW, in whole hours. The typical wait is the
    median of the waits of the admissions of the last 24 h."""
    since = now - WINDOW
    waits = sorted(
        (a.admitted_at - a.queued_at).total_seconds()
        for a in history.admissions_in(cluster_queue)
        if since <= a.admitted_at <= now
    )
    if not waits:
        return WINDOW
    typical = waits[len(waits) // 2]
    hours = math.ceil(WAITS_PER_WINDOW * typical / 3600)
    return min(MAX_WINDOW, max(WINDOW, timedelta(hours=hours)))


def flavor_counts(history: History, cluster_queue: str, flavor: str, now: datetime) -> tuple[int, int]:
    """The admissions in the queue's window of `flavor`, and of the whole queue. With fewer than MIN_ADMISSIONS
    of its own, an Estimator for the flavor is the queue's (`flavor=""`: the same replay, the same answers); with
    all of the queue's, its replay is the queue's (`Estimator(twin=...)`)."""
    since = now - window(history, cluster_queue, now)
    mine = every = 0
    for admission in history.admissions_in(cluster_queue):
        if since <= admission.admitted_at <= now:
            every += 1
            mine += admission.flavor == flavor
    return mine, every


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
