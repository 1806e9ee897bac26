"""A queue's past replayed: every STEP back over its window, as a question would have been asked then, every
Workload waiting at that moment with its position (1 + those queued before it and still waiting) and its wait
left (until its admission; at least until now for one still waiting: a censored wait). Pure.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from itertools import accumulate
from typing import Final

from bot.forecast.history import (
    WINDOW,
    Observed,
    Waiting,
)

STEP = timedelta(minutes=10)  # the replayed moments' spacing


# One waiting job at one replayed moment: (position, remaining, amount, moment, censored) — its place, the
# wait it had left then in seconds (at least that when censored: still waiting now), how much it asked for,
# the moment (a POSIX timestamp). A plain tuple of plain values: a replay makes thousands and an Estimator is
# kept, and only an exact tuple of such values leaves the garbage collector's sight (millions of tracked samples
# made every full collection walk them, during the questions).
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


def _jobs(admissions: Sequence[Observed], pending: Sequence[Waiting], now: datetime) -> list[_Job]:
    """Every job once, in queue order (when it was queued, then the admissions before the ones still waiting):
    its rank there. At a moment, those waiting are those queued by then and not admitted yet."""
    end = now.timestamp()
    ordered = sorted(admissions, key=lambda a: a.admitted_at)
    still_waiting = sorted(
        [(w.queued_at.timestamp(), w.amount) for w in pending if w.queued_at <= now], key=_queued_first
    )
    jobs: list[_Job] = []
    for j, a in enumerate(ordered):
        admitted = a.admitted_at.timestamp()
        jobs.append((min(a.queued_at.timestamp(), admitted), j, admitted, admitted, a.amount, False))
    for index, (since_at, amount) in enumerate(still_waiting):
        jobs.append((since_at, len(ordered) + index, math.inf, end, amount, True))
    jobs.sort()
    return jobs


def _moments(
    jobs: Sequence[_Job], end: float, first_moment: float, seconds: float
) -> tuple[list[float], list[int], list[int], list[int]]:
    """Back from `end`, moment by moment: a job waits at a moment from when it was queued (inclusive) until its
    admission; its rank joins those waiting (kept sorted) as the moments pass below its admission, and leaves
    once they pass below when it was queued. The moments kept (those with any waiting), their ranks end to end,
    where each moment's start there, and how many moments each job waited through (the moments kept when it
    joined and when it left: every moment it waits at is kept, it is there; those still there at the end leave
    after the last)."""
    queued, until = [job[0] for job in jobs], [job[2] for job in jobs]
    count = len(jobs)
    joining = sorted(range(count), key=until.__getitem__, reverse=True)
    leaving = sorted(range(count), key=queued.__getitem__, reverse=True)
    waiting: list[int] = []
    joined = left = 0
    times: list[float] = []
    flat: list[int] = []
    starts = [0]
    entered, stayed = [0] * count, [0] * count
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
    return times, flat, starts, stayed


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
        jobs = _jobs(admissions, pending, now)
        self._ends = tuple([job[3] for job in jobs])  # when each job's wait ends (now, when censored)
        self.amounts: tuple[Decimal | None, ...] = tuple([job[4] for job in jobs])
        self._censored: tuple[bool, ...] = tuple([job[5] for job in jobs])
        times, flat, starts, stayed = _moments(jobs, end, (since or now - WINDOW).timestamp(), step.total_seconds())
        self._times = tuple(times)
        self._waiting, self._starts = tuple(flat), tuple(starts)  # moment i's ranks: flat[starts[i]:starts[i + 1]]
        lengths = [starts[i + 1] - starts[i] for i in range(len(times))]
        self.top = max(lengths, default=0)  # the last position with samples
        self._spans = tuple(lengths)  # how many wait at each moment
        self._columns: dict[int, tuple[tuple[float, ...], tuple[int, ...]]] = {}
        self._waits: dict[int, Waits] = {}
        self._index_amounts(stayed)

    def _index_amounts(self, stayed: Sequence[int]) -> None:
        """How many samples each amount has (a job's amount once per moment it waited through), in order; and
        each job's amount as its rank among the distinct amounts (-1: none): a pool of amounts between two
        bounds is a range of ranks, its jobs marked in C (`alike_of`)."""
        weights: dict[Decimal, int] = {}
        for amount, many in zip(self.amounts, stayed, strict=True):
            if amount is not None and many > 0:
                weights[amount] = weights.get(amount, 0) + many
        self._amounts = sorted(weights)
        self._counts = [0, *accumulate(weights[amount] for amount in self._amounts)]
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
