"""Quota math of a ClusterQueue within its cohort tree, as Kueue computes it.

For one (flavor, resource): a ClusterQueue's *maximum capacity* (nominal quota plus all it may borrow,
usage ignored: Kueue's PotentialAvailable, the "maximum capacity" of its can-never-fit message) and what
is *available now* (Kueue's Available, net of what every queue of the tree uses). Cohorts may be objects
(hierarchical, with their own quota) or bare names.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from bot.trace.model import ClusterQueue, ResourceGroup, ResourceQuota, Workload
from bot.trace.snapshot import Snapshot

ZERO = Decimal(0)
_MAX_DEPTH = 32  # a cohort chain deeper than this is treated as a cycle


@dataclass(frozen=True)
class Capacity:
    """A ClusterQueue's standing for one flavor and resource."""

    cluster_queue: str
    flavor: str
    resource: str
    nominal: Decimal
    borrowing_limit: Decimal | None
    lending_limit: Decimal | None
    used: Decimal  # quota reserved by this ClusterQueue's workloads
    maximum: Decimal  # the most it can ever get (nominal + borrowable)
    available: Decimal  # what is free for it now (own unused + what the cohort can lend now)
    cohort: str
    cohort_used_elsewhere: Decimal  # what the rest of the tree takes from the shared pool now

    @property
    def borrowed(self) -> Decimal:
        return max(ZERO, self.used - self.nominal)


def _quota(groups: tuple[ResourceGroup, ...], flavor: str, resource: str) -> ResourceQuota | None:
    for group in groups:
        for flavor_quotas in group.flavors:
            if flavor_quotas.name == flavor:
                quota = flavor_quotas.quota(resource)
                if quota is not None:
                    return quota
    return None


def cluster_queue_usage(snapshot: Snapshot, cq: ClusterQueue, flavor: str, resource: str) -> Decimal:
    """Quota reserved in a ClusterQueue: its status (flavorsReservation) when reported, else the sum of
    the workloads that hold quota there."""
    if cq.reservation is not None:
        return cq.reservation.get(flavor, {}).get(resource, ZERO)
    used = ZERO
    for workload in snapshot.workloads_in_cluster_queue(cq.name):
        used += _workload_usage(workload, cq.name, flavor, resource)
    return used


def _workload_usage(workload: Workload, cq: str, flavor: str, resource: str) -> Decimal:
    if not workload.holds_quota or workload.admission is None or workload.admission.cluster_queue != cq:
        return ZERO
    used = ZERO
    for assignment in workload.admission.assignments:
        if assignment.flavors.get(resource) == flavor:
            used += assignment.usage.get(resource, ZERO)
    return used


class _Tree:
    """The cohort tree around one ClusterQueue, for one (flavor, resource), memoised."""

    def __init__(self, snapshot: Snapshot, flavor: str, resource: str) -> None:
        self.snapshot = snapshot
        self.flavor = flavor
        self.resource = resource
        self.children_cqs: dict[str, list[ClusterQueue]] = defaultdict(list)
        self.children_cohorts: dict[str, list[str]] = defaultdict(list)
        for cq in snapshot.cluster_queues():
            if cq.cohort:
                self.children_cqs[cq.cohort].append(cq)
        for cohort in snapshot.cohorts():
            if cohort.parent:
                self.children_cohorts[cohort.parent].append(cohort.name)
        self._subtree: dict[str, Decimal] = {}
        self._usage: dict[str, Decimal] = {}

    # Nodes are ("cq", name) or ("cohort", name); keys below are "cq:x" / "co:x".
    def cohort_quota(self, name: str) -> ResourceQuota | None:
        cohort = self.snapshot.cohort(name)
        return _quota(cohort.resource_groups, self.flavor, self.resource) if cohort else None

    def parent_of_cohort(self, name: str) -> str:
        cohort = self.snapshot.cohort(name)
        return cohort.parent if cohort else ""

    def cohort_subtree(self, name: str, depth: int = 0) -> Decimal:
        key = name
        if key in self._subtree:
            return self._subtree[key]
        if depth > _MAX_DEPTH:
            return ZERO
        own = self.cohort_quota(name)
        value = own.nominal if own else ZERO
        for cq in self.children_cqs.get(name, []):
            value += self.cq_subtree(cq) - self.cq_local(cq)
        for child in self.children_cohorts.get(name, []):
            value += self.cohort_subtree(child, depth + 1) - self.cohort_local(child, depth + 1)
        self._subtree[key] = value
        return value

    def cohort_local(self, name: str, depth: int = 0) -> Decimal:
        own = self.cohort_quota(name)
        if own is not None and own.lending_limit is not None:
            return max(ZERO, self.cohort_subtree(name, depth) - own.lending_limit)
        return ZERO

    def cohort_usage(self, name: str, depth: int = 0) -> Decimal:
        if name in self._usage:
            return self._usage[name]
        if depth > _MAX_DEPTH:
            return ZERO
        value = ZERO
        for cq in self.children_cqs.get(name, []):
            value += max(ZERO, self.cq_usage(cq) - self.cq_local(cq))
        for child in self.children_cohorts.get(name, []):
            value += max(ZERO, self.cohort_usage(child, depth + 1) - self.cohort_local(child, depth + 1))
        self._usage[name] = value
        return value

    def cq_quota(self, cq: ClusterQueue) -> ResourceQuota | None:
        return _quota(cq.resource_groups, self.flavor, self.resource)

    def cq_subtree(self, cq: ClusterQueue) -> Decimal:
        quota = self.cq_quota(cq)
        return quota.nominal if quota else ZERO

    def cq_local(self, cq: ClusterQueue) -> Decimal:
        quota = self.cq_quota(cq)
        if quota is not None and quota.lending_limit is not None:
            return max(ZERO, quota.nominal - quota.lending_limit)
        return ZERO

    def cq_usage(self, cq: ClusterQueue) -> Decimal:
        return cluster_queue_usage(self.snapshot, cq, self.flavor, self.resource)

    def cohort_available(self, name: str, depth: int = 0) -> Decimal:
        parent = self.parent_of_cohort(name)
        if not parent or depth > _MAX_DEPTH:
            return self.cohort_subtree(name) - self.cohort_usage(name)
        parent_available = self.cohort_available(parent, depth + 1)
        own = self.cohort_quota(name)
        local = self.cohort_local(name)
        usage = self.cohort_usage(name)
        if own is not None and own.borrowing_limit is not None:
            stored = self.cohort_subtree(name) - local
            used_in_parent = max(ZERO, usage - local)
            parent_available = min(stored - used_in_parent + own.borrowing_limit, parent_available)
        return max(ZERO, local - usage) + parent_available

    def cohort_potential(self, name: str, depth: int = 0) -> Decimal:
        parent = self.parent_of_cohort(name)
        if not parent or depth > _MAX_DEPTH:
            return self.cohort_subtree(name)
        value = self.cohort_local(name) + self.cohort_potential(parent, depth + 1)
        own = self.cohort_quota(name)
        if own is not None and own.borrowing_limit is not None:
            value = min(self.cohort_subtree(name) + own.borrowing_limit, value)
        return value


def capacity(snapshot: Snapshot, cq: ClusterQueue, flavor: str, resource: str) -> Capacity:
    """Maximum and available capacity of `cq` for (flavor, resource)."""
    tree = _Tree(snapshot, flavor, resource)
    quota = tree.cq_quota(cq)
    nominal = quota.nominal if quota else ZERO
    borrowing = quota.borrowing_limit if quota else None
    lending = quota.lending_limit if quota else None
    used = tree.cq_usage(cq)
    local = tree.cq_local(cq)
    if not cq.cohort:
        available = max(ZERO, nominal - used)  # Kueue clamps Available at 0 (clusterqueue_snapshot.go)
        return Capacity(cq.name, flavor, resource, nominal, borrowing, lending, used, nominal, available, "", ZERO)
    parent_available = tree.cohort_available(cq.cohort)
    parent_potential = tree.cohort_potential(cq.cohort)
    if borrowing is not None:
        stored = nominal - local
        used_in_parent = max(ZERO, used - local)
        parent_available = min(stored - used_in_parent + borrowing, parent_available)
        parent_potential_capped = min(nominal + borrowing, local + parent_potential)
    else:
        parent_potential_capped = local + parent_potential
    available = max(ZERO, max(ZERO, local - used) + parent_available)
    elsewhere = tree.cohort_usage(cq.cohort) - max(ZERO, used - local)
    return Capacity(
        cluster_queue=cq.name,
        flavor=flavor,
        resource=resource,
        nominal=nominal,
        borrowing_limit=borrowing,
        lending_limit=lending,
        used=used,
        maximum=parent_potential_capped,
        available=available,
        cohort=cq.cohort,
        cohort_used_elsewhere=max(ZERO, elsewhere),
    )
