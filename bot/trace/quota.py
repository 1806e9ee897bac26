"""Quota math of a ClusterQueue within its cohort tree, as Kueue computes it.

For one (flavor, resource): a ClusterQueue's *maximum capacity* (nominal quota plus all it may borrow,
usage ignored: Kueue's PotentialAvailable, the "maximum capacity" of its can-never-fit message) and what
is *available now* (Kueue's Available, net of what every queue of the tree uses). Cohorts may be objects
(hierarchical, with their own quota) or bare names.

Cost. The cohort forest (which ClusterQueues and cohorts sit under each cohort, each one's quota) is built
once per view (`QuotaState`), kept in the view's `memos()` memo, which the source renews whenever a
ClusterQueue, a Cohort (or any small kind) changes, and with it what a ClusterQueue reports as used
(`flavorsReservation`). Every `capacity()` of a question, and of the questions after it, reads the same
state; a result is reused while the usage it was computed from is the same: the ClusterQueues of its tree
that report no reservation are summed from their Workloads, and the view hands out the same sequence of them
until one changes (a changed sequence, by identity, recomputes). A renewed state inherits what the one before
computed for the cohort trees whose ClusterQueues and Cohorts are the same objects (`QuotaState._inherit`): on
a live Kueue a ClusterQueue's status changes with every admission, and only its own tree is computed again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from bot.trace.model import ClusterQueue, Cohort, ResourceGroup, ResourceQuota, Workload
from bot.trace.snapshot import HandedOver, Snapshot, previous, same_objects

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
    workloads = snapshot.workloads_in_cluster_queue(cq.name) if cq.reservation is None else ()
    return _usage(cq, workloads, flavor, resource)


def _usage(cq: ClusterQueue, workloads: Iterable[Workload], flavor: str, resource: str) -> Decimal:
    """`cluster_queue_usage` from the ClusterQueue's Workloads given (read only when it reports none)."""
    if cq.reservation is not None:
        return cq.reservation.get(flavor, {}).get(resource, ZERO)
    return sum((_workload_usage(w, cq.name, flavor, resource) for w in workloads), ZERO)


def _workload_usage(workload: Workload, cq: str, flavor: str, resource: str) -> Decimal:
    if not workload.holds_quota or workload.admission is None or workload.admission.cluster_queue != cq:
        return ZERO
    used = ZERO
    for assignment in workload.admission.assignments:
        if assignment.flavors.get(resource) == flavor:
            used += assignment.usage.get(resource, ZERO)
    return used


_Inputs = tuple[Sequence[Workload], ...]  # what a tree's usage is summed from (compared by identity)


class QuotaState(HandedOver):
    """The cohort forest of one view, built once, and the capacities computed in it (see the module's doc). A
    renewal of the view hands it to the next one's state, which inherits its unchanged trees."""

    def __init__(self, snapshot: Snapshot, previous: QuotaState | None = None) -> None:
        self._capacities: dict[tuple[str, str, str], tuple[ClusterQueue, _Inputs, Capacity]] = {}
        # The keys of `_capacities` by ClusterQueue name (at least those: shared with the states renewed from
        # this one, which only add to it), so that a renewal finds a changed queue's entries without a pass over
        # all of them (thousands at 500 ClusterQueues, after every status update).
        self._keys_of: dict[str, set[tuple[str, str, str]]] = {}
        self._trees: dict[tuple[str, str, str], tuple[_Inputs, _Tree]] = {}
        self._signatures: dict[str, tuple[object, ...]] | None = None
        self._signature_at: dict[str, tuple[str, int]] = {}  # a ClusterQueue's place in its tree's signature
        if previous is not None and self._renewed(snapshot, previous):
            self._inherit(previous)
            return
        self.cluster_queues = {cq.name: cq for cq in snapshot.cluster_queues()}
        self.cohorts: dict[str, Cohort] = {cohort.name: cohort for cohort in snapshot.cohorts()}
        self.children_cqs: dict[str, list[ClusterQueue]] = {}
        self.children_cohorts: dict[str, list[str]] = {}
        for cq in self.cluster_queues.values():
            if cq.cohort:
                self.children_cqs.setdefault(cq.cohort, []).append(cq)
        for cohort in self.cohorts.values():
            if cohort.parent:
                self.children_cohorts.setdefault(cohort.parent, []).append(cohort.name)
        self._roots: dict[str, str] = {}
        # Per tree (by its root cohort): the ClusterQueues whose usage is summed from their Workloads.
        self._unreported: dict[str, tuple[str, ...]] = {}
        for cq in self.cluster_queues.values():
            if cq.cohort and cq.reservation is None:
                root = self.root_of(cq.cohort)
                self._unreported[root] = (*self._unreported.get(root, ()), cq.name)
        if previous is not None:
            self._inherit(previous)

    def _renewed(self, snapshot: Snapshot, previous: QuotaState) -> bool:
        """This state made from `previous`, reading again only the ClusterQueues that are new objects (a status
        update, as Kueue writes with every admission), when each is in the same cohort and reports its
        reservation (or not) as before and the Cohorts are the same objects: the forest's shape is then the
        same, only those queues' objects and signatures are new. False (nothing set): built in full (every question
        right after a status change would pay for the whole forest; bench/README.md has the figure)."""
        before = previous.cluster_queues
        queues = snapshot.cluster_queues()
        cohorts = snapshot.cohorts()
        if len(queues) != len(before) or len(cohorts) != len(previous.cohorts) or previous._signatures is None:
            return False
        if any(previous.cohorts.get(cohort.name) is not cohort for cohort in cohorts):
            return False
        changed = []
        for cq in queues:
            old = before.get(cq.name)
            if old is not cq:
                if old is None or old.cohort != cq.cohort or (old.reservation is None) != (cq.reservation is None):
                    return False
                changed.append(cq)
        self.cluster_queues = {cq.name: cq for cq in queues}
        self.cohorts = previous.cohorts
        self.children_cohorts = previous.children_cohorts
        self._roots = previous._roots  # the same Cohorts: the same roots (filled as asked, by either state)
        self._unreported = previous._unreported  # the same queues report, in the same trees
        self.children_cqs = dict(previous.children_cqs)
        signatures = dict(previous._signatures)
        self._signature_at = previous._signature_at
        for cohort in {cq.cohort for cq in changed if cq.cohort}:
            self.children_cqs[cohort] = [self.cluster_queues[q.name] for q in self.children_cqs[cohort]]
        for cq in changed:
            if cq.cohort:
                root, index = self._signature_at[cq.name]
                items = list(signatures[root])
                items[index] = quota_signature(cq)
                signatures[root] = tuple(items)
        self._signatures = signatures
        return True

    def signatures(self) -> dict[str, tuple[object, ...]]:
        """Per cohort tree (by its root): what the quota math reads of its ClusterQueues (`quota_signature`)
        and its Cohort objects, in order."""
        if self._signatures is None:
            found: dict[str, list[object]] = {}
            at: dict[str, tuple[str, int]] = {}
            for cq in self.cluster_queues.values():
                if cq.cohort:
                    root = self.root_of(cq.cohort)
                    items = found.setdefault(root, [])
                    at[cq.name] = (root, len(items))
                    items.append(quota_signature(cq))
            for cohort in self.cohorts.values():
                found.setdefault(self.root_of(cohort.name), []).append(cohort)
            self._signatures = {root: tuple(objects) for root, objects in found.items()}
            self._signature_at = at
        return self._signatures

    def _inherit(self, previous: QuotaState) -> None:
        """What the state before this one computed for the cohort trees whose ClusterQueues read the same to the
        quota math and whose Cohorts are the same (a tree's capacities are a function of them and of the usage
        inputs, checked when read; a ClusterQueue without a cohort, of itself): on a live Kueue a ClusterQueue's
        status changes with every admission, and its tree only is computed again, or none when only its counts
        or conditions changed (a new object: its capacities are kept for it)."""
        mine, theirs = self.signatures(), previous.signatures()
        kept = set()
        for root, objects in mine.items():
            old = theirs.get(root)
            if old is not None and old == objects:
                kept.add(root)
        # The ClusterQueues that are new objects: the new one where it reads the same, else None (or gone).
        before = previous.cluster_queues
        renewed: dict[str, ClusterQueue | None] = {}
        for name, cq in self.cluster_queues.items():
            old_cq = before.get(name)
            if old_cq is not cq:
                same = old_cq is not None and quota_signature(old_cq) == quota_signature(cq)
                renewed[name] = cq if same else None
        for name in before.keys() - self.cluster_queues.keys():
            renewed[name] = None
        # Those of the trees not kept are computed again.
        for root, objects in mine.items():
            if root not in kept:
                for item in objects:
                    if isinstance(item, tuple):
                        renewed[item[0]] = None
        # Every capacity computed before but those of the renewed queues: kept for the new object where it reads
        # the same to the quota math, else dropped.
        capacities = dict(previous._capacities)
        keys_of = previous._keys_of
        for name, renewed_cq in renewed.items():
            for key in keys_of.get(name, ()):
                entry = capacities.pop(key, None)
                if entry is not None and renewed_cq is not None:
                    capacities[key] = (renewed_cq, entry[1], entry[2])
        self._capacities = capacities
        self._keys_of = keys_of
        for key, found in previous._trees.items():
            if key[0] in kept:
                self._trees[key] = found

    def root_of(self, cohort: str) -> str:
        """The root of a cohort's tree: the same name for every cohort of it (in a cycle, its least name)."""
        root = self._roots.get(cohort)
        if root is None:
            root = self._roots[cohort] = self._walk_up(cohort)
        return root

    def _walk_up(self, cohort: str) -> str:
        path = [cohort]
        seen = {cohort}
        while True:
            known = self.cohorts.get(cohort)
            parent = known.parent if known is not None else ""
            if not parent:
                return cohort
            if parent in seen:
                return min(path[path.index(parent) :])
            path.append(parent)
            seen.add(parent)
            cohort = parent

    def _unreported_around(self, cq: ClusterQueue) -> tuple[str, ...]:
        """The ClusterQueues of `cq`'s tree whose usage is summed from their Workloads (none report it)."""
        if not cq.cohort:
            return (cq.name,) if cq.reservation is None else ()
        return self._unreported.get(self.root_of(cq.cohort), ())

    def _usage_inputs(self, snapshot: Snapshot, cq: ClusterQueue) -> _Inputs:
        """The Workload sequences the usage of `cq`'s tree is summed from (empty when all report it, as a
        ClusterQueue Kueue has reconciled does: then the one empty tuple, and no sequence is looked up)."""
        names = self._unreported_around(cq)
        return tuple(map(snapshot.workloads_in_cluster_queue, names)) if names else ()

    def capacity(self, snapshot: Snapshot, cq: ClusterQueue, flavor: str, resource: str) -> Capacity:
        key = (cq.name, flavor, resource)
        inputs = self._usage_inputs(snapshot, cq)
        known = self._capacities.get(key)
        if known is not None and known[0] is cq and (known[1] is inputs or same_objects(known[1], inputs)):
            return known[2]
        result = _capacity(self._tree(snapshot, cq, flavor, resource, inputs), cq, flavor, resource)
        self._capacities[key] = (cq, inputs, result)
        if known is None:
            keys = self._keys_of.get(cq.name)
            if keys is None:
                keys = self._keys_of[cq.name] = set()
            keys.add(key)
        return result

    def _tree(self, snapshot: Snapshot, cq: ClusterQueue, flavor: str, resource: str, inputs: _Inputs) -> _Tree:
        """The (flavor, resource) tree `cq` is in, shared by every ClusterQueue of it while its usage holds."""
        key = (self.root_of(cq.cohort) if cq.cohort else "", flavor, resource)
        known = self._trees.get(key)
        if known is not None and same_objects(known[0], inputs):
            return known[1]
        tree = _Tree(self, dict(zip(self._unreported_around(cq), inputs, strict=True)), flavor, resource)
        if cq.cohort:
            self._trees[key] = (inputs, tree)
        return tree


def quota_signature(cq: ClusterQueue) -> tuple[object, ...]:
    """What the quota math reads of a ClusterQueue: its name, cohort, resource groups and reported reservation
    (compared by value: a new object whose counts or conditions changed reads the same)."""
    return (cq.name, cq.cohort, cq.resource_groups, cq.reservation)


_STATE = "quota-state"  # a memo key, not a copy key


def quota_state(snapshot: Snapshot) -> QuotaState:
    """The view's quota state: built on first use (from what the state before a renewal computed for the trees
    that did not change), then kept with the view's other derived data."""
    memo = snapshot.memos()
    state = memo.get(_STATE)
    if not isinstance(state, QuotaState):
        before = memo.pop(previous(_STATE), None)
        state = memo[_STATE] = QuotaState(snapshot, before if isinstance(before, QuotaState) else None)
    return state


class _Tree:
    """The cohort tree around one ClusterQueue, for one (flavor, resource), memoised."""

    def __init__(
        self, state: QuotaState, unreported: Mapping[str, Sequence[Workload]], flavor: str, resource: str
    ) -> None:
        # What it reads of the state and the view, not them: the view holds the memo the state and this tree
        # are kept in, and holding either would make a cycle only a full collection frees.
        self.cohorts = state.cohorts
        self.unreported = unreported
        self.flavor = flavor
        self.resource = resource
        self.children_cqs = state.children_cqs
        self.children_cohorts = state.children_cohorts
        self._subtree: dict[str, Decimal] = {}
        self._usage: dict[str, Decimal] = {}

    def cohort_quota(self, name: str) -> ResourceQuota | None:
        cohort = self.cohorts.get(name)
        return _quota(cohort.resource_groups, self.flavor, self.resource) if cohort else None

    def parent_of_cohort(self, name: str) -> str:
        cohort = self.cohorts.get(name)
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
        return _usage(cq, self.unreported.get(cq.name, ()), self.flavor, self.resource)

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


def usage_inputs(snapshot: Snapshot, cq: ClusterQueue) -> _Inputs:
    """What the usage of `cq`'s tree is summed from in this view (compare with `same_objects`): a result
    computed from capacities of `cq` holds while these are the same."""
    return quota_state(snapshot)._usage_inputs(snapshot, cq)


def capacity(snapshot: Snapshot, cq: ClusterQueue, flavor: str, resource: str) -> Capacity:
    """Maximum and available capacity of `cq` for (flavor, resource)."""
    return quota_state(snapshot).capacity(snapshot, cq, flavor, resource)


def _capacity(tree: _Tree, cq: ClusterQueue, flavor: str, resource: str) -> Capacity:
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
