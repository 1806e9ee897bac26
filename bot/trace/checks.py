"""The engine's own checks, for when Kueue has recorded nothing (or to give the numbers behind its record).

The flavor search, one small function per step, in the order Kueue meets them (after the queue chain and
the namespace selector of bot.trace.queuechain): covered resources, each flavor's taints and node labels,
then the quota of each flavor within the cohort tree: will it never fit as configured, or does it wait for
capacity others use now? What it finds is described by bot.trace.fits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal

from bot.trace.demand import PODS, pod_requests_in, pod_set_count
from bot.trace.fits import (
    MAY_STOP_SEARCH,
    PREEMPTION_OVER_BORROWING,
    PREFERENCE,
    TRY_NEXT_FLAVOR,
    WHEN_CAN_BORROW,
    WHEN_CAN_PREEMPT,
    Fit,
    FlavorTry,
    GroupFit,
    PodSetFit,
    QueueFit,
    Shortfall,
    max_pods_that_fit,
)
from bot.trace.flavormatch import excluding_keys, group_label_keys, matches_node_labels, untolerated_taint
from bot.trace.model import ClusterQueue, FlavorQuotas, PodSet, Workload
from bot.trace.quantity import Quantities
from bot.trace.queuechain import QueueChain, namespace_allowed, queue_chain
from bot.trace.quota import ZERO, Capacity, capacity, usage_inputs
from bot.trace.snapshot import Snapshot, same_objects

# The flavor search's results live in bot.trace.fits and the queue chain in bot.trace.queuechain; the names
# the forecast reads through this module stay reachable here.
__all__ = [
    "Fit",
    "FlavorTry",
    "QueueChain",
    "QueueFit",
    "Shortfall",
    "fit_in_queue",
    "fit_of",
    "keep_shape_fit",
    "max_pods_that_fit",
    "namespace_allowed",
    "queue_chain",
    "shape_fit",
]


# --- flavors and quota ------------------------------------------------------------------------------


def transformed(workload: Workload | None, pod_set: PodSet, per_pod: Quantities) -> Quantities:
    """A pod's request as Kueue counts it when Kueue's resource transformations changed it: the Workload's
    status.resourceRequests (the pod set's total, written by the scheduler: pkg/workload/workload.go
    PropagateResourceRequests, with applyResourceTransformations applied) names other resources than the pod
    template (an input replaced by its outputs); else `per_pod`, the template's (no transformation, or Kueue
    has not written it)."""
    if workload is None or not workload.resource_requests or pod_set.count <= 0:
        return per_pod
    totals = next((r for name, r in workload.resource_requests if name == pod_set.name), None)
    if not totals:
        return per_pod
    names = {name for name, amount in totals.items() if amount > 0 and name != PODS}
    if names == {name for name, amount in per_pod.items() if amount > 0}:
        return per_pod
    return {name: amount / pod_set.count for name, amount in totals.items() if name != PODS}


def _pod_set_resources(per_pod: Mapping[str, Decimal], cq: ClusterQueue, count: int) -> dict[str, Decimal]:
    demand = {name: amount * count for name, amount in per_pod.items()}
    if any(PODS in group.covered for group in cq.resource_groups):
        demand[PODS] = Decimal(count)
    return demand


def _try_flavor(
    snapshot: Snapshot,
    cq: ClusterQueue,
    pod_set: PodSet,
    flavor_name: str,
    requested: Mapping[str, Decimal],
    earlier: Mapping[tuple[str, str], Decimal],
    resources: Sequence[str],
    excluded: frozenset[tuple[str, str]] = frozenset(),
) -> FlavorTry:
    """One flavor for one pod set: does it match at all, then does its quota fit now, later or never."""
    mismatch = _mismatch(snapshot, cq, pod_set, flavor_name, excluded)
    if mismatch is not None:
        return mismatch
    quotas = next(f for group in cq.resource_groups for f in group.flavors if f.name == flavor_name)
    missing = tuple(r for r in resources if quotas.quota(r) is None)
    if missing:
        return FlavorTry(flavor_name, Fit.NO_MATCH, missing_resources=missing)
    return _quota_try(snapshot, cq, flavor_name, requested, earlier, resources)


def _mismatch(
    snapshot: Snapshot, cq: ClusterQueue, pod_set: PodSet, flavor_name: str, excluded: frozenset[tuple[str, str]]
) -> FlavorTry | None:
    """Why the flavor cannot take the pod set whatever its quota (missing, a taint, node labels), or None."""
    flavor = snapshot.flavor(flavor_name)
    if flavor is None:
        return FlavorTry(flavor_name, Fit.NO_MATCH, missing_flavor=True)
    taint = untolerated_taint(pod_set, flavor)
    if taint is not None:
        return FlavorTry(flavor_name, Fit.NO_MATCH, taint=taint)
    if not matches_node_labels(pod_set, flavor):
        return FlavorTry(flavor_name, Fit.NO_MATCH, affinity_mismatch=True, excluding=excluding_keys(pod_set, flavor))
    keys = group_label_keys(snapshot, cq, flavor_name)
    if keys is not None and not matches_node_labels(pod_set, flavor, keys):
        excluding = excluding_keys(pod_set, flavor, keys)
        return FlavorTry(flavor_name, Fit.NO_MATCH, affinity_mismatch=True, group_keys=True, excluding=excluding)
    if (pod_set.name, flavor_name) in excluded or ("", flavor_name) in excluded:
        return FlavorTry(flavor_name, Fit.NO_MATCH, affinity_mismatch=True, recorded=True)
    return None


def _quota_try(
    snapshot: Snapshot,
    cq: ClusterQueue,
    flavor_name: str,
    requested: Mapping[str, Decimal],
    earlier: Mapping[tuple[str, str], Decimal],
    resources: Sequence[str],
) -> FlavorTry:
    """The flavor's quota against the request (and what earlier pod sets took of it): fits, waits or never."""
    shortfalls: list[Shortfall] = []
    capacities: list[Capacity] = []
    for resource in resources:
        cap = capacity(snapshot, cq, flavor_name, resource)
        capacities.append(cap)
        total = earlier.get((flavor_name, resource), ZERO) + requested[resource]
        if total > cap.available:
            shortfalls.append(Shortfall(resource, flavor_name, total, cap))
    if any(s.never for s in shortfalls):
        fit = Fit.NEVER
    elif shortfalls:
        fit = Fit.WAITS
    else:
        fit = Fit.FITS
    # Borrowing: more than its nominal quota (clusterqueue_snapshot.go BorrowingWith); once waiting, after
    # preemption in its own queue what counts is the request against the nominal quota.
    borrows = any(
        (
            earlier.get((flavor_name, cap.resource), ZERO)
            + requested[cap.resource]
            + (cap.used if fit == Fit.FITS else ZERO)
        )
        > cap.nominal
        for cap in capacities
    )
    return FlavorTry(flavor_name, fit, shortfalls=tuple(shortfalls), capacities=tuple(capacities), borrows=borrows)


# --- flavor fungibility -----------------------------------------------------------------------------
# flavorassigner.go findFlavorForPodSets: flavors in order; after each, shouldTryNextFlavor decides whether
# the search goes on; when it ends without a stop, isPreferred picks the best mode of the flavors tried.
# Modes (flavorassigner.go preemptionMode): noFit < noPreemptionCandidates < preempt/reclaim < fit.
_NO_FIT, _NO_CANDIDATES, _PREEMPT, _FIT = 0, 1, 2, 3


def _mode(attempt: FlavorTry) -> int:
    if attempt.fit == Fit.FITS:
        return _FIT
    if attempt.fit == Fit.WAITS:
        return _PREEMPT if attempt.preempts else _NO_CANDIDATES
    return _NO_FIT


def _try_next(attempt: FlavorTry, policy: Mapping[str, str]) -> bool:
    """flavorassigner.go shouldTryNextFlavor (v0.15+; v0.14's needsBorrowing rule reads the same for a
    preempting flavor that also borrows under whenCanBorrow TryNextFlavor)."""
    mode = _mode(attempt)
    if mode in (_NO_FIT, _NO_CANDIDATES):
        return True
    if mode == _PREEMPT and policy.get(WHEN_CAN_PREEMPT, TRY_NEXT_FLAVOR) == TRY_NEXT_FLAVOR:
        return True
    return attempt.borrows and policy.get(WHEN_CAN_BORROW, MAY_STOP_SEARCH) == TRY_NEXT_FLAVOR


def _preferred(tries: Sequence[FlavorTry], policy: Mapping[str, str]) -> FlavorTry | None:
    """flavorassigner.go isPreferred over the flavors tried: the best mode (BorrowingOverPreemption, the
    default: preemption mode first, then less borrowing; PreemptionOverBorrowing: borrowing first); the
    first flavor wins a tie. None when none is viable (every one noFit)."""
    viable = [a for a in tries if _mode(a) != _NO_FIT]
    if not viable:
        return None
    borrow_first = policy.get(PREFERENCE) == PREEMPTION_OVER_BORROWING

    def rank(attempt: FlavorTry) -> tuple[int, int, int]:
        mode, borrow = _mode(attempt), int(attempt.borrows)
        candidates = int(mode != _NO_CANDIDATES)  # ranked below every viable mode whatever the preference
        return (candidates, -borrow, mode) if borrow_first else (candidates, mode, -borrow)

    best = viable[0]
    for attempt in viable[1:]:
        if rank(attempt) > rank(best):
            best = attempt
    return best


def fit_in_queue(
    snapshot: Snapshot,
    cq: ClusterQueue,
    pod_sets: Sequence[PodSet],
    workload: Workload | None,
    counts: Sequence[int] | None = None,
    can_preempt: Callable[[FlavorTry], bool] | None = None,
    *,
    excluded: frozenset[tuple[str, str]] = frozenset(),
) -> QueueFit:
    """Try every pod set on the ClusterQueue's flavors, in order, as Kueue's flavor assigner does
    (`counts`: the pods of each pod set, as partial admission tries them; else the full counts), following
    the ClusterQueue's flavorFungibility. `can_preempt` tells whether preemption could make room for a
    flavor that waits (without it, no flavor is taken for its preemption candidates). `excluded`: (pod set,
    flavor) pairs Kueue recorded as not matching (pod set "" for every pod set)."""
    earlier: dict[tuple[str, str], Decimal] = {}
    results: list[PodSetFit] = []
    memo = snapshot.memos()
    for index, pod_set in enumerate(pod_sets):
        per_pod = transformed(workload, pod_set, pod_requests_in(memo, pod_set.template))
        count = counts[index] if counts is not None else pod_set_count(pod_set, workload)
        requested = _pod_set_resources(per_pod, cq, count)
        covered = {r for group in cq.resource_groups for r in group.covered}
        uncovered = tuple(sorted(r for r, amount in requested.items() if r not in covered and amount > 0))
        groups: list[GroupFit] = []
        for group in cq.resource_groups:
            resources = [r for r in group.covered if requested.get(r, ZERO) > 0]
            if not resources:
                continue
            group_fit = _search_group(
                snapshot,
                cq,
                pod_set,
                group.flavors,
                requested,
                earlier,
                resources,
                can_preempt,
                tuple(group.covered),
                excluded,
            )
            groups.append(group_fit)
            chosen = group_fit.best
            if chosen is not None and chosen.fit != Fit.NO_MATCH:
                for resource in resources:
                    key = (chosen.flavor, resource)
                    earlier[key] = earlier.get(key, ZERO) + requested[resource]
        results.append(PodSetFit(pod_set.name, count, per_pod, uncovered, tuple(groups)))
    return QueueFit(cq.name, tuple(results))


def fit_of(snapshot: Snapshot, cq: ClusterQueue, pod_sets: Sequence[PodSet], workload: Workload | None) -> Fit:
    """`fit_in_queue(snapshot, cq, pod_sets, workload).fit` (every pod set at its count, no preemption weighed,
    nothing excluded) without making the flavor tries, for a question that only asks how well it fits (the
    namespace's other queues, what-if's checks). With one pod set, a resource group fits as well as its best
    flavor: the search stops only at a flavor where it fits, and without preemption weighed a flavor it waits
    for never ends it; the groups cover different resources, so none takes from another's. Several pod sets
    share what the earlier ones took of a flavor, which depends on the flavor each settled on: those are
    weighed in full."""
    if len(pod_sets) != 1:
        return fit_in_queue(snapshot, cq, pod_sets, workload).fit
    pod_set = pod_sets[0]
    per_pod = transformed(workload, pod_set, pod_requests_in(snapshot.memos(), pod_set.template))
    requested = _pod_set_resources(per_pod, cq, pod_set_count(pod_set, workload))
    covered = {r for group in cq.resource_groups for r in group.covered}
    if any(amount > 0 and r not in covered for r, amount in requested.items()):
        return Fit.NO_MATCH
    worst = Fit.FITS
    for group in cq.resource_groups:
        resources = [r for r in group.covered if requested.get(r, ZERO) > 0]
        if not resources:
            continue
        best = Fit.NO_MATCH
        for flavor in group.flavors:
            best = min(best, _flavor_fit(snapshot, cq, pod_set, flavor.name, requested, resources))
            if best == Fit.FITS:
                break
        worst = max(worst, best)
    return worst


def _flavor_fit(
    snapshot: Snapshot,
    cq: ClusterQueue,
    pod_set: PodSet,
    flavor_name: str,
    requested: Mapping[str, Decimal],
    resources: Sequence[str],
) -> Fit:
    """`_try_flavor(...).fit` for the first pod set (nothing taken before it), nothing excluded."""
    if _mismatch(snapshot, cq, pod_set, flavor_name, frozenset()) is not None:
        return Fit.NO_MATCH
    quotas = next(f for group in cq.resource_groups for f in group.flavors if f.name == flavor_name)
    if any(quotas.quota(r) is None for r in resources):
        return Fit.NO_MATCH
    fit = Fit.FITS
    for resource in resources:
        cap = capacity(snapshot, cq, flavor_name, resource)
        if requested[resource] > cap.available:
            if requested[resource] > cap.maximum:
                return Fit.NEVER
            fit = Fit.WAITS
    return fit


# A question weighs its Workload in its own ClusterQueue as it is (every pod set at its count, no preemption
# weighed) twice: who holds what it waits for (bot.forecast.holders) and what would admit it (bot.forecast.whatif).
# The last such fit is kept in the view's memo while the ClusterQueue, the pod sets (one tuple object per
# shape, the decoder shares them) and the usage it was computed from are the same objects.
_SHAPE_FIT = "checks.shape-fit"


def shape_fit(snapshot: Snapshot, cq: ClusterQueue, workload: Workload) -> QueueFit:
    """`fit_in_queue(snapshot, cq, workload.pod_sets, workload)`, the last one kept (see above)."""
    if workload.reclaimable:  # its counts are its own
        return fit_in_queue(snapshot, cq, workload.pod_sets, workload)
    memo = snapshot.memos()
    inputs = usage_inputs(snapshot, cq)
    known = memo.get(_SHAPE_FIT)
    if isinstance(known, tuple) and known[0] is cq and known[1] is workload.pod_sets and same_objects(known[2], inputs):
        return known[3]  # type: ignore[no-any-return]
    fit = fit_in_queue(snapshot, cq, workload.pod_sets, workload)
    memo[_SHAPE_FIT] = (cq, workload.pod_sets, inputs, fit)  # the pod sets held: their id is not reused meanwhile
    return fit


def keep_shape_fit(snapshot: Snapshot, cq: ClusterQueue, workload: Workload, fit: QueueFit) -> None:
    """Keep `fit` as `shape_fit(snapshot, cq, workload)`: a search that is that one (nothing excluded, and no
    preemption weighed in it: its callback, the only thing that tells the two apart, never asked)."""
    if not workload.reclaimable:
        snapshot.memos()[_SHAPE_FIT] = (cq, workload.pod_sets, usage_inputs(snapshot, cq), fit)


def _search_group(
    snapshot: Snapshot,
    cq: ClusterQueue,
    pod_set: PodSet,
    flavors: Sequence[FlavorQuotas],
    requested: Mapping[str, Decimal],
    earlier: Mapping[tuple[str, str], Decimal],
    resources: Sequence[str],
    can_preempt: Callable[[FlavorTry], bool] | None,
    covered: tuple[str, ...],
    excluded: frozenset[tuple[str, str]] = frozenset(),
) -> GroupFit:
    """One resource group's flavor search (flavorassigner.go findFlavorForPodSets with FlavorFungibility)."""
    policy = cq.fungibility
    preempt_stops = policy.get(WHEN_CAN_PREEMPT, TRY_NEXT_FLAVOR) == MAY_STOP_SEARCH

    def attempt_on(flavor_name: str) -> FlavorTry:
        return _try_flavor(snapshot, cq, pod_set, flavor_name, requested, earlier, resources, excluded)

    tries: list[FlavorTry] = []
    for index, flavor in enumerate(flavors):
        attempt = attempt_on(flavor.name)
        if attempt.fit == Fit.WAITS and can_preempt is not None and preempt_stops:
            attempt = replace(attempt, preempts=can_preempt(attempt))
        tries.append(attempt)
        if not _try_next(attempt, policy):
            return _stopped(covered, tries, attempt, (attempt_on(later.name) for later in flavors[index + 1 :]))
    return GroupFit(covered, tuple(tries), _preferred(_with_preemption(tries, policy, can_preempt), policy))


def _stopped(
    covered: tuple[str, ...], tries: list[FlavorTry], attempt: FlavorTry, later: Iterable[FlavorTry]
) -> GroupFit:
    """The policy ended the search at `attempt`: say which rule did and a later flavor where it fits now
    (`later` is lazy: the flavors after it are tried only when the policy kept the search from them)."""
    stopped_by = "" if attempt.fit == Fit.FITS and not attempt.borrows else _stop_reason(attempt)
    free = ""
    if stopped_by:
        free = next((other.flavor for other in later if other.fit == Fit.FITS and not other.borrows), "")
    if stopped_by == WHEN_CAN_BORROW and not free:
        stopped_by = ""  # borrowing where nothing else had room: the policy changed nothing
    return GroupFit(covered, tuple(tries), attempt, stopped_by, free)


def _with_preemption(
    tries: list[FlavorTry], policy: Mapping[str, str], can_preempt: Callable[[FlavorTry], bool] | None
) -> list[FlavorTry]:
    """The search went through every flavor: when preemption ranks them, whether it could make room in each."""
    waiting = [a for a in tries if a.fit == Fit.WAITS]
    ranks_preemption = (len(waiting) > 1 and not any(a.fit == Fit.FITS for a in tries)) or policy.get(
        PREFERENCE
    ) == PREEMPTION_OVER_BORROWING
    if can_preempt is not None and waiting and ranks_preemption:
        return [replace(a, preempts=can_preempt(a)) if a.fit == Fit.WAITS and not a.preempts else a for a in tries]
    return tries


def _stop_reason(attempt: FlavorTry) -> str:
    return WHEN_CAN_PREEMPT if attempt.fit == Fit.WAITS else WHEN_CAN_BORROW
