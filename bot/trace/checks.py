"""The engine's own checks, for when Kueue has recorded nothing (or to give the numbers behind its record).

One small function per admission step, in the order Kueue meets them: the queue chain, the namespace
selector, covered resources, each flavor's taints and node labels, then the quota of each flavor within
the cohort tree: will it never fit as configured, or does it wait for capacity others use now?
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import IntEnum

from bot.trace.codes import Verdict
from bot.trace.demand import PODS, pod_requests_in, pod_set_count
from bot.trace.flavormatch import excluding_keys, group_label_keys, matches_node_labels, untolerated_taint
from bot.trace.model import (
    ClusterQueue,
    Condition,
    FlavorQuotas,
    LocalQueue,
    PodSet,
    Taint,
    Workload,
    find_condition,
)
from bot.trace.quantity import Quantities
from bot.trace.quota import ZERO, Capacity, capacity, usage_inputs
from bot.trace.snapshot import Snapshot, same_objects


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

    def __init__(
        self,
        flavor: str,
        fit: Fit,
        taint: Taint | None = None,
        affinity_mismatch: bool = False,
        missing_flavor: bool = False,
        missing_resources: tuple[str, ...] = (),
        shortfalls: tuple[Shortfall, ...] = (),
        capacities: tuple[Capacity, ...] = (),
        recorded: bool = False,
        group_keys: bool = False,
        excluding: tuple[str, ...] = (),
        borrows: bool = False,
        preempts: bool = False,
    ) -> None:  # @dataclass's __init__ spelled out: compiled, a native one (tests/unit/test_dataclass_inits.py)
        object.__setattr__(self, "flavor", flavor)
        object.__setattr__(self, "fit", fit)
        object.__setattr__(self, "taint", taint)
        object.__setattr__(self, "affinity_mismatch", affinity_mismatch)
        object.__setattr__(self, "missing_flavor", missing_flavor)
        object.__setattr__(self, "missing_resources", missing_resources)
        object.__setattr__(self, "shortfalls", shortfalls)
        object.__setattr__(self, "capacities", capacities)
        object.__setattr__(self, "recorded", recorded)
        object.__setattr__(self, "group_keys", group_keys)
        object.__setattr__(self, "excluding", excluding)
        object.__setattr__(self, "borrows", borrows)
        object.__setattr__(self, "preempts", preempts)


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

    def __init__(
        self,
        covered: tuple[str, ...],
        tries: tuple[FlavorTry, ...],
        chosen: FlavorTry | None = None,
        stopped_by: str = "",
        skipped_free: str = "",
    ) -> None:  # @dataclass's __init__ spelled out: compiled, a native one (tests/unit/test_dataclass_inits.py)
        object.__setattr__(self, "covered", covered)
        object.__setattr__(self, "tries", tries)
        object.__setattr__(self, "chosen", chosen)
        object.__setattr__(self, "stopped_by", stopped_by)
        object.__setattr__(self, "skipped_free", skipped_free)

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

    def __init__(
        self,
        pod_set: str,
        count: int,
        per_pod: Quantities,
        uncovered: tuple[str, ...],
        groups: tuple[GroupFit, ...],
    ) -> None:  # @dataclass's __init__ spelled out: compiled, a native one (tests/unit/test_dataclass_inits.py)
        object.__setattr__(self, "pod_set", pod_set)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "per_pod", per_pod)
        object.__setattr__(self, "uncovered", uncovered)
        object.__setattr__(self, "groups", groups)

    @property
    def fit(self) -> Fit:
        if self.uncovered:
            return Fit.NO_MATCH
        return max((group.fit for group in self.groups), default=Fit.FITS)


@dataclass(frozen=True)
class QueueFit:
    cluster_queue: str
    pod_sets: tuple[PodSetFit, ...]

    def __init__(
        self,
        cluster_queue: str,
        pod_sets: tuple[PodSetFit, ...],
    ) -> None:  # @dataclass's __init__ spelled out: compiled, a native one (tests/unit/test_dataclass_inits.py)
        object.__setattr__(self, "cluster_queue", cluster_queue)
        object.__setattr__(self, "pod_sets", pod_sets)

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


# --- the queue chain -------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueueChain:
    """The LocalQueue a Workload names and the ClusterQueue behind it, with the first thing in the way."""

    local_queue: LocalQueue | None
    cluster_queue: ClusterQueue | None
    cluster_queue_name: str
    blocker: Verdict | None = None
    stopped_by: str = ""  # "LocalQueue" | "ClusterQueue" when a stopPolicy holds it
    stop_policy: str = ""
    inactive_reason: str = ""
    inactive_message: str = ""
    missing_flavors: tuple[str, ...] = ()
    missing_checks: tuple[str, ...] = ()

    def __init__(
        self,
        local_queue: LocalQueue | None,
        cluster_queue: ClusterQueue | None,
        cluster_queue_name: str,
        blocker: Verdict | None = None,
        stopped_by: str = "",
        stop_policy: str = "",
        inactive_reason: str = "",
        inactive_message: str = "",
        missing_flavors: tuple[str, ...] = (),
        missing_checks: tuple[str, ...] = (),
    ) -> None:  # @dataclass's __init__ spelled out: compiled, a native one (tests/unit/test_dataclass_inits.py)
        object.__setattr__(self, "local_queue", local_queue)
        object.__setattr__(self, "cluster_queue", cluster_queue)
        object.__setattr__(self, "cluster_queue_name", cluster_queue_name)
        object.__setattr__(self, "blocker", blocker)
        object.__setattr__(self, "stopped_by", stopped_by)
        object.__setattr__(self, "stop_policy", stop_policy)
        object.__setattr__(self, "inactive_reason", inactive_reason)
        object.__setattr__(self, "inactive_message", inactive_message)
        object.__setattr__(self, "missing_flavors", missing_flavors)
        object.__setattr__(self, "missing_checks", missing_checks)


def _inactive(conditions: tuple[Condition, ...]) -> tuple[str, str] | None:
    active = find_condition(conditions, "Active")
    if active is not None and active.is_false:
        return active.reason, active.message
    return None


def queue_chain(snapshot: Snapshot, namespace: str, queue_name: str, admitted_in: str = "") -> QueueChain:
    """Follow LocalQueue -> ClusterQueue; stop at the first problem Kueue would meet."""
    local_queue = snapshot.local_queue(namespace, queue_name) if queue_name else None
    cq_name = admitted_in or (local_queue.cluster_queue if local_queue else "")
    cluster_queue = snapshot.cluster_queue(cq_name) if cq_name else None
    if local_queue is None:
        return QueueChain(None, cluster_queue, cq_name, Verdict.LOCAL_QUEUE_MISSING)
    if local_queue.stop_policy not in ("", "None"):
        return QueueChain(
            local_queue, cluster_queue, cq_name, Verdict.QUEUE_STOPPED, "LocalQueue", local_queue.stop_policy
        )
    if cluster_queue is None:
        return QueueChain(local_queue, None, cq_name, Verdict.CLUSTER_QUEUE_MISSING)
    if cluster_queue.stop_policy not in ("", "None"):
        return QueueChain(
            local_queue,
            cluster_queue,
            cq_name,
            Verdict.QUEUE_STOPPED,
            "ClusterQueue",
            cluster_queue.stop_policy,
        )
    missing_flavors = tuple(name for name in cluster_queue.flavor_names() if snapshot.flavor(name) is None)
    missing_checks = tuple(name for name, _ in cluster_queue.admission_checks if snapshot.admission_check(name) is None)
    inactive = _inactive(cluster_queue.conditions)
    if inactive is not None or missing_flavors or missing_checks or cluster_queue.meta.deleting:
        reason, message = inactive or ("", "")
        if cluster_queue.meta.deleting and not reason:
            reason = "Terminating"
        return QueueChain(
            local_queue,
            cluster_queue,
            cq_name,
            Verdict.QUEUE_INACTIVE,
            inactive_reason=reason,
            inactive_message=message,
            missing_flavors=missing_flavors,
            missing_checks=missing_checks,
        )
    return QueueChain(local_queue, cluster_queue, cq_name)


def namespace_allowed(snapshot: Snapshot, cluster_queue: ClusterQueue, namespace: str) -> bool | None:
    """Whether the ClusterQueue's namespaceSelector selects the namespace (None: its labels are unknown)."""
    selector = cluster_queue.namespace_selector
    if selector is None or (not selector.match_labels and not selector.expressions):
        return True
    known = snapshot.namespace(namespace)
    labels: Mapping[str, str]
    if known is not None:
        labels = {**known.meta.labels, "kubernetes.io/metadata.name": namespace}
    else:
        keys = set(selector.match_labels) | {r.key for r in selector.expressions}
        if keys - {"kubernetes.io/metadata.name"}:
            return None
        labels = {"kubernetes.io/metadata.name": namespace}
    return selector.matches(labels)


# --- flavors and quota ------------------------------------------------------------------------------


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
    memo = snapshot.derived()
    for index, pod_set in enumerate(pod_sets):
        per_pod = pod_requests_in(memo, pod_set.template)
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
    per_pod = pod_requests_in(snapshot.derived(), pod_set.template)
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
# weighed) twice: who holds what it waits for (bot.trace.holders) and what would admit it (bot.trace.whatif).
# The last such fit is kept in the view's memo while the ClusterQueue, the pod sets (one tuple object per
# shape, the decoder shares them) and the usage it was computed from are the same objects.
_SHAPE_FIT = "checks.shape-fit"


def shape_fit(snapshot: Snapshot, cq: ClusterQueue, workload: Workload) -> QueueFit:
    """`fit_in_queue(snapshot, cq, workload.pod_sets, workload)`, the last one kept (see above)."""
    if workload.reclaimable:  # its counts are its own
        return fit_in_queue(snapshot, cq, workload.pod_sets, workload)
    memo = snapshot.derived()
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
        snapshot.derived()[_SHAPE_FIT] = (cq, workload.pod_sets, usage_inputs(snapshot, cq), fit)


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
