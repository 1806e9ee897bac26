"""The calibration by rolling origins: at each of the last hours, the waits left of the jobs then waiting are
predicted from the moments before it only, as the bot would have answered then; the widening factor (on a log
scale, around the median) is the one at which the stated share of those predictions held. Made in steps that
end after READ_PER_STEP samples or waits read, or after each factor tried. Pure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal

from bot.forecast.kmcurve import (
    EVERY,
    MIN_SAMPLES,
    alike_amounts,
    by_position,
    central_of,
    km_curve,
    near_grouped,
    share_by,
    widen,
)
from bot.forecast.replay import (
    AMOUNT,
    CENSORED,
    MOMENT,
    POSITION,
    REMAINING,
    Sample,
)

ORIGINS = 12  # calibration: the last twelve hours, one origin each
FACTORS = tuple(0.5 + 0.05 * i for i in range(71))  # 0.5 .. 4.0: the widening factors tried


# The calibration's steps (`Estimator.calibration`) end once they have read this many samples or waits (what
# its time follows: an origin's known samples gathered, the waits near each question's position, each
# question's Kaplan-Meier curve), or after each factor tried: a few ms at most (bench/README.md).
READ_PER_STEP = 8192


def as_of(samples: Sequence[Sample], origin: float) -> list[Sample]:
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
Interval = tuple[tuple[float, float, float], float, bool, Curve]


def intervals_at(tests: Sequence[Test], start: int, target: float, intervals: list[Interval]) -> int:
    """The intervals at `target` of the questions from `start` on, added to `intervals` until READ_PER_STEP
    waits were read; where it stopped."""
    read = 0
    index = start
    while index < len(tests) and read <= READ_PER_STEP:
        xs, cdf, left, censored = tests[index]
        central = central_of(xs, cdf, target)
        if central is not None:
            intervals.append((central, left, censored, (xs, cdf) if censored else _NO_CURVE))
        read += len(xs)
        index += 1
    return index


def inside(intervals: Sequence[Interval], factor: float) -> float:
    """How many of the questions' waits fell inside their intervals widened by `factor`: a wait not over yet
    counts as a miss once it outlasted its interval, else by the chance, on its own estimate, that it ends
    inside."""
    inside = 0.0
    for (low, median, high), left, censored, (xs, cdf) in intervals:
        lower, upper = widen(low, median, high, factor)
        if not censored:
            inside += lower <= left <= upper
        elif left < upper:
            not_ended = 1 - share_by(xs, cdf, left)
            if not_ended > 1e-9:
                ended = share_by(xs, cdf, upper) - share_by(xs, cdf, max(left, lower))
                inside += max(0.0, ended) / not_ended
    return inside


class Origin:
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
        passes READ_PER_STEP samples or waits read; where it stopped, and `read` then."""
        index = start
        while index < len(asked) and read <= READ_PER_STEP:
            sample = asked[index]
            amount = sample[AMOUNT]
            pool = self.pools.get(amount)
            if pool is None:
                chosen = alike_amounts(self.by_amount, amount)
                pool = self.grouped.get(chosen)
                if pool is None:
                    pool = self.grouped[chosen] = by_position(
                        self.known if chosen == EVERY else [s for a in chosen for s in self.by_amount[a]]
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


class Calibration:
    """What an Estimator's calibration has made so far (twins share one: the same replay): the questions asked
    (`tests`, made by `asking` in steps), each confidence's factor once found, and those being found."""

    def __init__(self) -> None:
        self.tests: list[Test] = []
        self.asking: Iterator[None] | None = None
        self.factors: dict[int, float] = {}
        self.running: dict[int, Iterator[None]] = {}
