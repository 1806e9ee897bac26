"""The engine's own checks, for when Kueue has recorded nothing (or to give the numbers behind its record).

One small function per admission step, in the order Kueue meets them: the queue chain, the namespace
selector, covered resources, each flavor's taints and node labels, then the quota of each flavor within
the cohort tree: will it never fit as configured, or does it wait for capacity others use now?
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import IntEnum

from bot.trace.codes import Verdict
from bot.trace.demand import PODS, pod_requests_in, pod_set_count
from bot.trace.model import (
    ClusterQueue,
    Condition,
    LocalQueue,
    PodSet,
    ResourceFlavor,
    Taint,
    Workload,
    find_condition,
)
from bot.trace.quantity import Quantities
from bot.trace.quota import ZERO, Capacity, capacity
from bot.trace.snapshot import Snapshot


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


@dataclass(frozen=True)
class GroupFit:
    covered: tuple[str, ...]
    tries: tuple[FlavorTry, ...]

    @property
    def best(self) -> FlavorTry | None:
        """The flavor Kueue would take (the first that fits), else the least severe failure."""
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

_BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def untolerated_taint(pod_set: PodSet, flavor: ResourceFlavor) -> Taint | None:
    """The first NoSchedule/NoExecute taint of the flavor that neither the pod set nor the flavor tolerates."""
    tolerations = pod_set.template.tolerations + flavor.tolerations
    for taint in flavor.node_taints:
        if taint.effect in _BLOCKING_EFFECTS and not any(t.tolerates(taint) for t in tolerations):
            return taint
    return None


def matches_node_labels(pod_set: PodSet, flavor: ResourceFlavor, keys: frozenset[str] | None = None) -> bool:
    """Kueue's rule: the pod set's nodeSelector and required node affinity, restricted to the label keys
    `keys` (by default the flavor's own), must match the flavor's nodeLabels; a term left with no key
    matches any flavor (flavorassigner.go, flavorSelector)."""
    labels = flavor.node_labels
    allowed = keys if keys is not None else labels.keys()
    for key, value in pod_set.template.node_selector.items():
        if key in allowed and labels.get(key) != value:
            return False
    terms = pod_set.template.affinity_terms
    if not terms:
        return True
    for term in terms:
        relevant = [requirement for requirement in term if requirement.key in allowed]
        if all(requirement.matches(labels) for requirement in relevant):
            return True
    return False


def _pod_set_resources(
    per_pod: Mapping[str, Decimal], pod_set: PodSet, cq: ClusterQueue, workload: Workload | None
) -> dict[str, Decimal]:
    count = pod_set_count(pod_set, workload)
    demand = {name: amount * count for name, amount in per_pod.items()}
    if any(PODS in group.covered for group in cq.resource_groups):
        demand[PODS] = Decimal(count)
    return demand


def excluding_keys(pod_set: PodSet, flavor: ResourceFlavor, keys: frozenset[str] | None = None) -> tuple[str, ...]:
    """The label keys of the pod set's nodeSelector (and required affinity) on which `flavor` fails, with
    Kueue's rule for `keys` (see matches_node_labels): the labels that exclude it."""
    labels = flavor.node_labels
    allowed = keys if keys is not None else labels.keys()
    found = [
        key for key, value in pod_set.template.node_selector.items() if key in allowed and labels.get(key) != value
    ]
    for term in pod_set.template.affinity_terms:
        found.extend(r.key for r in term if r.key in allowed and not r.matches(labels))
    return tuple(dict.fromkeys(found))


def group_label_keys(snapshot: Snapshot, cq: ClusterQueue, flavor_name: str) -> frozenset[str] | None:
    """The label keys Kueue restricts a pod set's node selector to when it tries `flavor_name`. Since #12449
    (in v0.17.6, v0.18.2 and v0.19.0): the flavor's own (None here). Before: those of every flavor of the
    resource group (pkg/cache/clusterqueue.go updateLabelKeys; v0.14.0 flavorassigner.go:691,856-900), so a
    flavor without a key another flavor sets does not match a selector on that key. The objects' API
    version tells which Kueue wrote them: v1beta1 only (v1beta2 came in v0.15) is a Kueue before the fix."""
    if not cq.meta.api_version.endswith("/v1beta1"):
        return None
    for group in cq.resource_groups:
        if any(f.name == flavor_name for f in group.flavors):
            keys: set[str] = set()
            for quotas in group.flavors:
                known = snapshot.flavor(quotas.name)
                if known is not None:
                    keys.update(known.node_labels)
            return frozenset(keys)
    return None


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
    quotas = next(f for group in cq.resource_groups for f in group.flavors if f.name == flavor_name)
    missing = tuple(r for r in resources if quotas.quota(r) is None)
    if missing:
        return FlavorTry(flavor_name, Fit.NO_MATCH, missing_resources=missing)
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
    return FlavorTry(flavor_name, fit, shortfalls=tuple(shortfalls), capacities=tuple(capacities))


def fit_in_queue(
    snapshot: Snapshot,
    cq: ClusterQueue,
    pod_sets: Sequence[PodSet],
    workload: Workload | None,
    *,
    excluded: frozenset[tuple[str, str]] = frozenset(),
) -> QueueFit:
    """Try every pod set on the ClusterQueue's flavors, in order, as Kueue's flavor assigner does.
    `excluded`: (pod set, flavor) pairs Kueue recorded as not matching (pod set "" for every pod set)."""
    earlier: dict[tuple[str, str], Decimal] = {}
    results: list[PodSetFit] = []
    memo = snapshot.derived()
    for pod_set in pod_sets:
        per_pod = pod_requests_in(memo, pod_set.template)
        requested = _pod_set_resources(per_pod, pod_set, cq, workload)
        covered = {r for group in cq.resource_groups for r in group.covered}
        uncovered = tuple(sorted(r for r, amount in requested.items() if r not in covered and amount > 0))
        groups: list[GroupFit] = []
        for group in cq.resource_groups:
            resources = [r for r in group.covered if requested.get(r, ZERO) > 0]
            if not resources:
                continue
            tries: list[FlavorTry] = []
            for flavor in group.flavors:
                attempt = _try_flavor(snapshot, cq, pod_set, flavor.name, requested, earlier, resources, excluded)
                tries.append(attempt)
                if attempt.fit == Fit.FITS:
                    break
            group_fit = GroupFit(tuple(group.covered), tuple(tries))
            groups.append(group_fit)
            chosen = group_fit.best
            if chosen is not None and chosen.fit != Fit.NO_MATCH:
                for resource in resources:
                    key = (chosen.flavor, resource)
                    earlier[key] = earlier.get(key, ZERO) + requested[resource]
        results.append(PodSetFit(pod_set.name, pod_set_count(pod_set, workload), per_pod, uncovered, tuple(groups)))
    return QueueFit(cq.name, tuple(results))


def verdict_of(fit: QueueFit) -> Verdict | None:
    """The verdict the quota checks alone lead to (None: it fits now)."""
    if fit.fit == Fit.NO_MATCH:
        return Verdict.NO_MATCHING_FLAVOR
    if fit.fit == Fit.NEVER:
        return Verdict.EXCEEDS_MAX_QUOTA
    if fit.fit == Fit.WAITS:
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
