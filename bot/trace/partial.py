"""Kueue's partial admission: when a Workload's full pod counts do not fit, the largest counts between each pod
set's minCount and its count that do (pkg/scheduler/scheduler.go getInitialAssignments;
flavorassigner/podset_reducer.go Search), tried with the engine's own queue checks (checks.fit_in_queue)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.trace.checks import fit_in_queue
from bot.trace.demand import pod_set_count
from bot.trace.fits import Fit, QueueFit
from bot.trace.model import ClusterQueue, PodSet, Workload
from bot.trace.snapshot import Snapshot


@dataclass(frozen=True)
class Partial:
    """Kueue's partial admission of a Workload whose pod sets have a minCount (a Job's
    `kueue.x-k8s.io/job-min-parallelism`; feature gate PartialAdmission, beta and on since v0.5): when the
    full counts do not fit, Kueue searches the largest counts between minCount and count that do
    (pkg/scheduler/scheduler.go getInitialAssignments; flavorassigner/podset_reducer.go Search)."""

    full: tuple[int, ...]  # each pod set's count
    minimum: tuple[int, ...]  # each pod set's minCount (its count when it has none)
    now: tuple[int, ...] | None  # the counts Kueue would admit with what is free now
    ever: tuple[int, ...] | None  # the counts that fit the most the queue can ever give
    ever_fit: QueueFit | None  # the queue checks at `ever` (their shortfalls are what it waits for)
    min_fit: QueueFit  # the queue checks at `minimum` (what never fits, even at the minimum)

    @property
    def pods(self) -> int:
        return sum(self.full)

    @property
    def min_pods(self) -> int:
        return sum(self.minimum)

    def pods_at(self, counts: tuple[int, ...] | None) -> int | None:
        return sum(counts) if counts is not None else None


def can_be_partially_admitted(pod_sets: Sequence[PodSet]) -> bool:
    """pkg/workload/workload.go CanBePartiallyAdmitted: some pod set's count is above its minCount."""
    return any(p.min_count is not None and p.count > p.min_count for p in pod_sets)


def reduced_counts(
    full: Sequence[int], minimum: Sequence[int], works: Callable[[tuple[int, ...]], bool]
) -> tuple[int, ...] | None:
    """podset_reducer.go Search: counts(i) = count - delta * i / totalDelta for i in 0..totalDelta (every
    pod set shrinks in proportion), binary search of the first i that works; None when none does."""
    deltas = [count - low for count, low in zip(full, minimum, strict=True)]
    total = sum(deltas)
    if total <= 0:
        return None

    def at(i: int) -> tuple[int, ...]:
        return tuple(count - delta * i // total for count, delta in zip(full, deltas, strict=True))

    low, high = 0, total + 1  # sort.Search over [0, total]
    found: tuple[int, ...] | None = None
    while low < high:
        middle = (low + high) // 2
        counts = at(middle)
        if works(counts):
            found, high = counts, middle
        else:
            low = middle + 1
    return found  # the last counts that worked are those of the first index that works (monotone)


def partial_fit(
    snapshot: Snapshot, cq: ClusterQueue, pod_sets: Sequence[PodSet], workload: Workload | None
) -> Partial | None:
    """The counts partial admission would give, now and at the most; None when the Workload cannot be
    partially admitted or its full counts fit now (Kueue tries the full counts first)."""
    if not can_be_partially_admitted(pod_sets):
        return None
    full = tuple(pod_set_count(p, workload) for p in pod_sets)
    minimum = tuple(
        min(count, p.min_count if p.min_count is not None else count) for p, count in zip(pod_sets, full, strict=True)
    )
    fits: dict[tuple[int, ...], QueueFit] = {}

    def fit_at(counts: tuple[int, ...]) -> QueueFit:
        if counts not in fits:
            fits[counts] = fit_in_queue(snapshot, cq, pod_sets, workload, counts)
        return fits[counts]

    if fit_at(full).fit == Fit.FITS:
        return None
    now = reduced_counts(full, minimum, lambda c: fit_at(c).fit == Fit.FITS)
    ever = reduced_counts(full, minimum, lambda c: fit_at(c).fit <= Fit.WAITS)
    return Partial(full, minimum, now, ever, fit_at(ever) if ever is not None else None, fit_at(minimum))
