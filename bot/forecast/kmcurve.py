"""Kaplan-Meier's estimate of the waits left at a position (a censored wait counts as at least that long): its
curve, quantiles and central share, and the waits it is drawn from: those at the position and, when thin, its
neighbours scaled to it; of jobs that asked for about as much when there are enough. Pure.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal
from itertools import compress, groupby, repeat
from operator import itemgetter, mul, not_, truediv
from typing import Final

from bot.forecast.replay import (
    AMOUNT,
    CENSORED,
    POSITION,
    REMAINING,
    Replay,
    Sample,
    Value,
    Waits,
)

MIN_SAMPLES = 24  # fewer remaining-wait samples near the position: "no estimate yet"
_wait_of = itemgetter(0)
_censored_of = itemgetter(1)


def km_curve(values: Sequence[Value]) -> tuple[list[float], list[float]]:
    """Kaplan-Meier's estimate of the waits' distribution (a censored wait is at least that long): the
    waits at which it steps, and its value (the share ended by then) at each."""
    # map/itemgetter in C: the pairs' own float objects.
    return km_curve_of(list(map(_wait_of, values)), list(map(_censored_of, values)))


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


def share_by(xs: Sequence[float], cdf: Sequence[float], wait: float) -> float:
    index = bisect.bisect_right(xs, wait)
    return cdf[index - 1] if index else 0.0


def central_of(xs: Sequence[float], cdf: Sequence[float], confidence: float) -> tuple[float, float, float] | None:
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


EVERY: Final[tuple[Decimal | None, ...]] = (None,)  # `alike_amounts`: every sample


def alike_amounts(
    by_amount: Mapping[Decimal | None, Sequence[Sample]], amount: Decimal | None
) -> tuple[Decimal | None, ...]:
    """`alike` over samples gathered by amount: the amounts whose samples it keeps (EVERY: all of them)."""
    if amount is None or amount <= 0:
        return EVERY
    low, high = amount / 2, amount * 2
    chosen = tuple(sorted(a for a in by_amount if a is not None and low <= a <= high))
    return chosen if sum(len(by_amount[a]) for a in chosen) >= MIN_SAMPLES * 4 else EVERY


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
        # map/itemgetter in C: the samples' own float objects.
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


class AmountPool:
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
