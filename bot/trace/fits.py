"""What the engine's flavor and quota checks find (bot.trace.checks): how well each pod set fits each flavor of a
ClusterQueue, and what follows from it (the verdict the quota alone leads to, how many pods would fit)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import IntEnum

from bot.trace.codes import Verdict
from bot.trace.demand import PODS
from bot.trace.model import Taint
from bot.trace.quantity import Quantities
from bot.trace.quota import ZERO, Capacity


class Fit(IntEnum):
    """How well a pod set fits a flavor, least severe first (Kueue's severity order, FACTS §4.2)."""

    FITS = 0
    WAITS = 2  # fits the queue's maximum, not what is free now
    NEVER = 3  # larger than the most the queue can ever give
    NO_MATCH = 4  # the flavor cannot host it at all (taint, node labels, missing flavor or resource)


@dataclass(frozen=True)
class Shortfall:
    """One resource of one flavor that does not fit."""

    resource: str
    flavor: str
    requested: Decimal  # what this workload needs there (earlier pod sets included)
    capacity: Capacity

    @property
    def never(self) -> bool:
        return self.requested > self.capacity.maximum

    @property
    def needed(self) -> Decimal:
        """How much more must be free now."""
        return max(ZERO, self.requested - self.capacity.available)


@dataclass(frozen=True)
class FlavorTry:
    flavor: str
    fit: Fit
    taint: Taint | None = None
    affinity_mismatch: bool = False
    missing_flavor: bool = False
    missing_resources: tuple[str, ...] = ()
    shortfalls: tuple[Shortfall, ...] = ()
    capacities: tuple[Capacity, ...] = ()
    recorded: bool = False  # excluded because Kueue recorded it ("flavor X doesn't match node affinity")
    group_keys: bool = False  # excluded by the label keys of the resource group's other flavors (Kueue < v0.17.6)
    excluding: tuple[str, ...] = ()  # the selector's label keys the flavor fails on
    borrows: bool = False  # it fits (or would, after preemption) only by borrowing from the cohort
    preempts: bool = False  # it waits, and preemption could make room (Kueue's preempt/reclaim modes)


# flavorFungibility (ClusterQueue spec): the policy values, v1beta2 names (v1beta1's deprecated Borrow and
# Preempt are MayStopSearch; bot.kube.decode maps them), and the defaults of both API versions.
MAY_STOP_SEARCH = "MayStopSearch"
TRY_NEXT_FLAVOR = "TryNextFlavor"
WHEN_CAN_BORROW = "whenCanBorrow"
WHEN_CAN_PREEMPT = "whenCanPreempt"
PREFERENCE = "preference"
PREEMPTION_OVER_BORROWING = "PreemptionOverBorrowing"
FUNGIBILITY_DEFAULTS = {WHEN_CAN_BORROW: MAY_STOP_SEARCH, WHEN_CAN_PREEMPT: TRY_NEXT_FLAVOR}


@dataclass(frozen=True)
class GroupFit:
    covered: tuple[str, ...]
    tries: tuple[FlavorTry, ...]
    chosen: FlavorTry | None = None  # the flavor Kueue settles on, when the search picked one
    stopped_by: str = ""  # whenCanBorrow | whenCanPreempt: the policy that stopped the search at `chosen`
    skipped_free: str = ""  # the first flavor after `chosen`, not tried, where it would fit now

    @property
    def best(self) -> FlavorTry | None:
        """The flavor Kueue would take (its flavor search, `chosen`), else the least severe failure."""
        if self.chosen is not None:
            return self.chosen
        if not self.tries:
            return None
        return min(self.tries, key=lambda attempt: attempt.fit)

    @property
    def fit(self) -> Fit:
        best = self.best
        return best.fit if best else Fit.NO_MATCH


@dataclass(frozen=True)
class PodSetFit:
    pod_set: str
    count: int
    per_pod: Quantities
    uncovered: tuple[str, ...]
    groups: tuple[GroupFit, ...]

    @property
    def fit(self) -> Fit:
        if self.uncovered:
            return Fit.NO_MATCH
        return max((group.fit for group in self.groups), default=Fit.FITS)


@dataclass(frozen=True)
class QueueFit:
    cluster_queue: str
    pod_sets: tuple[PodSetFit, ...]

    @property
    def fit(self) -> Fit:
        return max((pod_set.fit for pod_set in self.pod_sets), default=Fit.FITS)

    def shortfalls(self) -> list[Shortfall]:
        found: list[Shortfall] = []
        for pod_set in self.pod_sets:
            for group in pod_set.groups:
                best = group.best
                if best is not None:
                    found.extend(best.shortfalls)
        return found

    def capacities(self) -> list[Capacity]:
        found: list[Capacity] = []
        for pod_set in self.pod_sets:
            for group in pod_set.groups:
                best = group.best
                if best is not None:
                    found.extend(best.capacities)
        return found

    def policy_stops(self) -> list[GroupFit]:
        """The resource groups whose flavor search flavorFungibility stopped at a flavor that preempts or
        borrows while a later flavor had room (the reason Kueue waits on flavor A while B looks free)."""
        return [group for pod_set in self.pod_sets for group in pod_set.groups if group.stopped_by]

    def blocking_flavors(self) -> list[FlavorTry]:
        """Flavor attempts that cannot host a pod set (taints, node labels, missing)."""
        return [
            attempt
            for pod_set in self.pod_sets
            for group in pod_set.groups
            if group.fit == Fit.NO_MATCH
            for attempt in group.tries
        ]

    @property
    def uncovered(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r for pod_set in self.pod_sets for r in pod_set.uncovered))


def verdict_of(fit: QueueFit) -> Verdict | None:
    """The verdict the quota checks alone lead to (None: it fits now)."""
    if fit.fit == Fit.NO_MATCH:
        return Verdict.NO_MATCHING_FLAVOR
    if fit.fit == Fit.NEVER:
        return Verdict.EXCEEDS_MAX_QUOTA
    if fit.fit == Fit.WAITS:
        stops = fit.policy_stops()
        if any(g.stopped_by == WHEN_CAN_PREEMPT and g.chosen is not None and g.chosen.preempts for g in stops):
            return Verdict.WAITING_FOR_PREEMPTION  # Kueue stops there and preempts (whenCanPreempt MayStopSearch)
        return Verdict.WAITING_FOR_QUOTA
    return None


def max_pods_that_fit(fit: QueueFit, pod_set_name: str, *, now: bool) -> int | None:
    """For a single pod set: how many pods of it would fit the maximum (or what is free now)."""
    for pod_set in fit.pod_sets:
        if pod_set.pod_set != pod_set_name or pod_set.uncovered:
            continue
        best: int | None = None
        for cap in fit.capacities():
            per_pod = pod_set.per_pod.get(cap.resource, ZERO) if cap.resource != PODS else Decimal(1)
            if per_pod <= 0:
                continue
            limit = cap.available if now else cap.maximum
            pods = int(max(ZERO, limit) // per_pod)
            best = pods if best is None else min(best, pods)
        return best
    return None


def requested_resources(fit: QueueFit) -> dict[str, Decimal]:
    """Per resource, what the pod sets request from this queue (pods included when covered)."""
    totals: dict[str, Decimal] = {}
    for pod_set in fit.pod_sets:
        for resource, amount in pod_set.per_pod.items():
            totals[resource] = totals.get(resource, ZERO) + amount * pod_set.count
    return totals
