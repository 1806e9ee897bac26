"""Who holds what a pending job needs: the admitted Workloads using the contested resource in the contested
flavor, in its ClusterQueue and across its cohort tree. Pure: a snapshot, a Workload and `now` in, data out.

For each holder: how much of the contested resource it uses, how long it has run, whether its ClusterQueue
borrows in that flavor (a cohort reclaim would give that back), whether a job of the waiting job's priority
could preempt it under the waiting job's ClusterQueue's preemption policy (Kueue's rules,
pkg/scheduler/preemption/classical/hierarchical_preemption.go: withinClusterQueue for its own queue,
reclaimWithinCohort for the other queues of the cohort, and only those that borrow), and how long it may
still run when its Workload sets maximumExecutionTimeSeconds. StrictFIFO and waitForPodsReady.blockAdmission
name their blockers the same way. Names are carried with their namespace: the renderer shows them only to
readers allowed to see that namespace (counts and amounts otherwise), as for who waits ahead.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from itertools import chain, groupby, islice
from operator import itemgetter
from typing import Final, NamedTuple

from bot.forecast.eta import freeing_bound
from bot.trace import checks
from bot.trace.demand import PODS
from bot.trace.model import ClusterQueue, Workload, job_name
from bot.trace.quota import ZERO, capacity
from bot.trace.snapshot import (
    Snapshot,
    lasting,
    queue_order_time,
    read_current,
    reads_all_current,
    same_objects,
)

MAX_LISTED = 10

# Why a holder could be preempted (Kueue's preemption reasons).
IN_CLUSTER_QUEUE = "in-cluster-queue"
RECLAIM = "reclaim"
# What kind of blocker a job waits behind, other than quota.
STRICT_FIFO_HEAD = "strict-fifo-head"
PODS_READY = "pods-ready"


class Holder(NamedTuple):
    """One admitted Workload holding a contested (flavor, resource). A named tuple, not a frozen dataclass: an
    answer lists up to MAX_LISTED per contest, made per question, and a tuple is made in a third of the time."""

    namespace: str
    name: str  # the job's name (its Workload's when it has no owner)
    cluster_queue: str
    priority: int
    amount: Decimal  # of the contested resource in the contested flavor
    running_seconds: int | None
    borrowing: bool  # its ClusterQueue (another one of the cohort) uses more than its nominal quota there
    preemptible: str = ""  # "" | in-cluster-queue | reclaim: a job of the waiting one's priority could preempt it
    seconds_left: int | None = None  # maximumExecutionTimeSeconds less its running time, when set


@dataclass(frozen=True)
class Contest:
    """One contested (flavor, resource) and who holds it."""

    flavor: str
    resource: str
    needed: Decimal  # how much more must be free now for the job to fit
    held_here: Decimal  # used by the job's own ClusterQueue
    held_in_cohort: Decimal  # used by the other ClusterQueues of the cohort tree
    reclaimable: Decimal  # what a cohort reclaim would give back to the job's ClusterQueue
    preemptible: Decimal  # held by workloads a job of its priority could preempt
    holders: tuple[Holder, ...]  # the largest first, at most MAX_LISTED
    count: int  # every holder, listed or not
    frees_within: int | None = None  # seconds until enough is freed for sure (maximum execution times)

    def __init__(
        self,
        flavor: str,
        resource: str,
        needed: Decimal,
        held_here: Decimal,
        held_in_cohort: Decimal,
        reclaimable: Decimal,
        preemptible: Decimal,
        holders: tuple[Holder, ...],
        count: int,
        frees_within: int | None = None,
    ) -> None:  # @dataclass's __init__ spelled out: compiled, a native one (tests/unit/test_dataclass_inits.py)
        object.__setattr__(self, "flavor", flavor)
        object.__setattr__(self, "resource", resource)
        object.__setattr__(self, "needed", needed)
        object.__setattr__(self, "held_here", held_here)
        object.__setattr__(self, "held_in_cohort", held_in_cohort)
        object.__setattr__(self, "reclaimable", reclaimable)
        object.__setattr__(self, "preemptible", preemptible)
        object.__setattr__(self, "holders", holders)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "frees_within", frees_within)


@dataclass(frozen=True)
class Blocker:
    kind: str  # strict-fifo-head | pods-ready
    namespace: str
    name: str
    priority: int
    since_seconds: int | None = None


@dataclass(frozen=True)
class Holders:
    cluster_queue: str
    cohort: str
    policy: tuple[tuple[str, str], ...]  # the ClusterQueue's preemption policy, as configured
    contests: tuple[Contest, ...] = ()
    blockers: tuple[Blocker, ...] = ()
    blockers_count: int = 0

    def __init__(
        self,
        cluster_queue: str,
        cohort: str,
        policy: tuple[tuple[str, str], ...],
        contests: tuple[Contest, ...] = (),
        blockers: tuple[Blocker, ...] = (),
        blockers_count: int = 0,
    ) -> None:  # @dataclass's __init__ spelled out: compiled, a native one (tests/unit/test_dataclass_inits.py)
        object.__setattr__(self, "cluster_queue", cluster_queue)
        object.__setattr__(self, "cohort", cohort)
        object.__setattr__(self, "policy", policy)
        object.__setattr__(self, "contests", contests)
        object.__setattr__(self, "blockers", blockers)
        object.__setattr__(self, "blockers_count", blockers_count)

    @property
    def empty(self) -> bool:
        return not self.contests and not self.blockers

    def namespaces(self) -> set[str]:
        """Every namespace the answer would name (for the reader's access check)."""
        found = {h.namespace for c in self.contests for h in c.holders}
        found.update(b.namespace for b in self.blockers)
        return found


def _seconds(start: datetime | None, now: datetime) -> int | None:
    return None if start is None else max(0, int((now - start).total_seconds()))


def reserved_at(workload: Workload) -> datetime | None:
    """When the Workload got its quota (QuotaReserved True), else when it was admitted."""
    return workload.reserved_at  # read when the Workload was made (bot.trace.model.Workload)


def usage_of(workload: Workload, flavor: str, resource: str) -> Decimal:
    """What a Workload holding quota uses of `resource` in `flavor` (its admission's assignments)."""
    if workload.admission is None or not workload.holds_quota:
        return ZERO
    used = ZERO
    for assignment in workload.admission.assignments:
        if assignment.flavors.get(resource) == flavor:
            used += assignment.usage.get(resource, ZERO)
        elif resource == PODS and assignment.flavors and flavor in assignment.flavors.values():
            used += assignment.usage.get(PODS, ZERO)
    return used


def cohort_tree(snapshot: Snapshot, cq: ClusterQueue) -> list[ClusterQueue]:
    """Every ClusterQueue of the cohort tree `cq` belongs to (itself first); just itself without a cohort.
    Kept in the view's derived() memo (the source renews it when a ClusterQueue or Cohort changes)."""
    if not cq.cohort:
        return [cq]
    table = snapshot.derived().setdefault(_TREES, {})
    assert isinstance(table, dict)
    known = table.get(cq.name)
    if known is not None and known[0] is cq:
        return list(known[1])
    tree = _cohort_tree(snapshot, cq)
    table[cq.name] = (cq, tuple(tree))
    return tree


_TREES = "holders.cohort-trees"
_CONTESTS = "holders.contests"


def _cohort_tree(snapshot: Snapshot, cq: ClusterQueue) -> list[ClusterQueue]:
    root, seen = cq.cohort, {cq.cohort}
    while True:
        cohort = snapshot.cohort(root)
        if cohort is None or not cohort.parent or cohort.parent in seen:
            break
        root = cohort.parent
        seen.add(root)
    table = snapshot.derived().setdefault(_ROOTS, {})
    assert isinstance(table, dict)
    queues = table.get(root)
    if queues is None:  # the tree's ClusterQueues by name, once per root (not once per ClusterQueue of it)
        members = {root}
        changed = True
        cohorts = snapshot.cohorts()
        while changed:
            changed = False
            for cohort in cohorts:
                if cohort.parent in members and cohort.name not in members:
                    members.add(cohort.name)
                    changed = True
        queues = table[root] = tuple(sorted((q for q in snapshot.cluster_queues() if q.cohort in members), key=_name))
    return [cq, *(q for q in queues if q.name != cq.name)]


_ROOTS = "holders.trees-by-root"


def _name(cq: ClusterQueue) -> str:
    return cq.name


def _by_name(snapshot: Snapshot, tree: Sequence[ClusterQueue]) -> tuple[tuple[ClusterQueue, ...], tuple[str, ...]]:
    """The tree's ClusterQueues by name, and their names, kept in the view's memo per tree (by its first
    ClusterQueue)."""
    table = snapshot.derived().setdefault(_BY_NAME, {})
    assert isinstance(table, dict)
    known = table.get(tree[0].name)
    if known is not None and known[0] is tree[0] and len(known[1]) == len(tree):
        return known[1], known[2]
    ordered = tuple(sorted(tree, key=_name))
    names = tuple(q.name for q in ordered)
    table[tree[0].name] = (tree[0], ordered, names)
    return ordered, names


_BY_NAME = "holders.trees-by-name"


def _allows(policy: str, preemptor: Workload, priority: int, order: datetime) -> bool:
    """Kueue's satisfiesPreemptionPolicy for one policy value, for a candidate of `priority` queued at `order`."""
    if policy == "Any":
        return True
    if policy == "LowerPriority":
        return priority < preemptor.priority
    if policy == "LowerOrNewerEqualPriority":
        if priority < preemptor.priority:
            return True
        return priority == preemptor.priority and queue_order_time(preemptor) < order
    return False


def preemption_reason(cq: ClusterQueue, preemptor: Workload, candidate: Workload, candidate_borrows: bool) -> str:
    """Whether a job of `preemptor`'s priority, in `cq`, could preempt `candidate`: "" (no), in-cluster-queue,
    or reclaim (the candidate's ClusterQueue borrows and reclaimWithinCohort lets it be taken back)."""
    admitted_in = candidate.admission.cluster_queue if candidate.admission else ""
    return _reason(cq, preemptor, admitted_in, candidate.priority, queue_order_time(candidate), candidate_borrows)


def _reason(
    cq: ClusterQueue, preemptor: Workload, admitted_in: str, priority: int, order: datetime, borrows: bool
) -> str:
    """`preemption_reason` for a candidate admitted in `admitted_in`, of `priority`, queued at `order`."""
    if admitted_in == cq.name:
        policy = cq.preemption.get("withinClusterQueue", "Never")
        return IN_CLUSTER_QUEUE if _allows(policy, preemptor, priority, order) else ""
    if not borrows:
        return ""  # Kueue never reclaims from a ClusterQueue within its nominal quota
    return RECLAIM if _allows(cq.preemption.get("reclaimWithinCohort", "Never"), preemptor, priority, order) else ""


def contested(snapshot: Snapshot, cq: ClusterQueue, workload: Workload) -> list[tuple[str, str, Decimal]]:
    """(flavor, resource, more needed now) where the job does not fit now, by the engine's quota math; the
    flavors it would take when it fits (Kueue's record may be ahead of the snapshot)."""
    fit = checks.shape_fit(snapshot, cq, workload)
    found: dict[tuple[str, str], Decimal] = {}
    for pod_set in fit.pod_sets:
        for group in pod_set.groups:
            for attempt in group.tries:  # every flavor it could wait for, not only the first
                if attempt.fit != checks.Fit.WAITS:
                    continue
                for shortfall in attempt.shortfalls:
                    if not shortfall.never:
                        key = (shortfall.flavor, shortfall.resource)
                        found[key] = max(found.get(key, ZERO), shortfall.needed)
    if not found:
        for cap in fit.capacities():
            found.setdefault((cap.flavor, cap.resource), ZERO)
    return [(flavor, resource, needed) for (flavor, resource), needed in found.items()]


def preemption_could_make_room(
    snapshot: Snapshot, workload: Workload, cq: ClusterQueue, attempt: checks.FlavorTry, now: datetime
) -> bool:
    """Whether preempting what the waiting job's ClusterQueue's policy lets it preempt would free what it
    misses in this flavor (the engine's stand-in for Kueue's preemption simulation,
    preemption.go SimulatePreemption: "candidates found")."""
    if not attempt.shortfalls:
        return False
    tree = cohort_tree(snapshot, cq)
    for shortfall in attempt.shortfalls:
        contest = _contest(snapshot, workload, cq, tree, shortfall.flavor, shortfall.resource, shortfall.needed, now)
        if contest.preemptible < shortfall.needed:
            return False
    return True


def find_holders(
    snapshot: Snapshot,
    workload: Workload,
    cq: ClusterQueue,
    *,
    now: datetime,
    pods_ready_blocked: bool = False,
) -> Holders:
    """Who holds what `workload` (pending in `cq`) needs; with `pods_ready_blocked` (Kueue's
    waitForPodsReady.blockAdmission holds it), the admitted workloads whose pods are not ready yet."""
    tree = cohort_tree(snapshot, cq)
    contests: list[Contest] = []
    for flavor, resource, needed in contested(snapshot, cq, workload):
        contests.append(_contest(snapshot, workload, cq, tree, flavor, resource, needed, now))
    blockers: list[Blocker] = []
    count = 0
    if cq.queueing_strategy == "StrictFIFO":
        pending = snapshot.pending_in(cq.name)
        if pending and (pending[0].namespace, pending[0].name) != (workload.namespace, workload.name):
            head = pending[0]
            since = queue_order_time(head)
            blockers.append(
                Blocker(STRICT_FIFO_HEAD, head.namespace, job_name(head), head.priority, _seconds(since, now))
            )
            count = 1
    if pods_ready_blocked:
        waiting = _not_ready(snapshot)
        count += len(waiting)
        for other in waiting[:MAX_LISTED]:
            blockers.append(
                Blocker(PODS_READY, other.namespace, job_name(other), other.priority, _seconds(reserved_at(other), now))
            )
    policy = tuple(sorted((k, v) for k, v in cq.preemption.items()))
    return Holders(cq.name, cq.cohort, policy, tuple(contests), tuple(blockers), count)


def _not_ready(snapshot: Snapshot) -> list[Workload]:
    """What waitForPodsReady.blockAdmission waits on, cluster-wide (the source knows them all, even where the
    view holds one namespace), oldest reservation first."""
    return sorted(snapshot.workloads_not_ready(), key=_oldest_first)


def _oldest_first(workload: Workload) -> tuple[bool, float, str, str]:
    since = reserved_at(workload)
    return (since is None, since.timestamp() if since else 0.0, workload.namespace, workload.name)


# One admitted Workload holding the contested (flavor, resource), as every contest of its tree sees it: its
# ClusterQueue, amount, whether that queue borrows there, when it was reserved, its queue-order time, namespace,
# job name, priority and maximumExecutionTimeSeconds. A plain tuple of plain values: a tree keeps one per
# holder (tens of thousands at 200,000 Workloads), and only an exact tuple of such values leaves the garbage
# collector's sight (a record holding its Workload stayed tracked, and every full collection walked them all).
_Held = tuple[str, Decimal, bool, datetime | None, datetime, str, str, int, int | None]
_CQ: Final = 0
_AMOUNT: Final = 1
_BORROWS: Final = 2
_RESERVED: Final = 3
_ORDER: Final = 4
_NAMESPACE: Final = 5
_JOB: Final = 6
_PRIORITY: Final = 7
_MAXIMUM: Final = 8


class _Queue:
    """What one ClusterQueue of a tree holds of (flavor, resource): its holders, by size and by rank. Kept per
    view while its Workloads (the same sequence) and what it borrows are the same: a change in one queue
    rebuilds its own part, and the tree is merged again from the parts. A rebuild takes the records of the
    Workloads that are the same objects from the `previous` part (a holder's record is a function of its
    Workload, the queue, the flavor, the resource and whether the queue borrows): one changed Workload in a
    queue of hundreds costs one record (a whole tree rebuilt at once held the loop 35-60 ms in a watcher pass)."""

    def __init__(
        self,
        queue: str,
        workloads: Sequence[Workload],
        flavor: str,
        resource: str,
        borrowed: Decimal,
        previous: _Queue | None = None,
    ):
        self.borrowed = borrowed
        borrows = borrowed > 0
        kept = previous._by_source() if previous is not None and (previous.borrowed > 0) == borrows else {}
        held: list[_Held] = []
        keys: list[tuple[Decimal, bool, float, str, str]] = []
        sources: list[Workload] = []  # the Workload of each record (their ids are not reused while held here)
        for other in workloads:
            if other.admission is None or other.admission.cluster_queue != queue:
                continue
            known = kept.get(id(other))
            if known is not None:
                record, key = known
            else:
                amount = usage_of(other, flavor, resource)
                if amount <= 0:
                    continue
                reserved, order = reserved_at(other), queue_order_time(other)
                record = (
                    queue, amount, borrows, reserved, order, other.namespace, job_name(other), other.priority,
                    other.maximum_execution_seconds,
                )  # fmt: skip
                key = _larger_first(record)
            held.append(record)
            keys.append(key)
            sources.append(other)
        # Tuples, not lists: a tuple of plain values leaves the collector's sight (a list never does).
        self.held, self._keys, self._sources = tuple(held), tuple(keys), tuple(sources)
        self.total = sum((h[_AMOUNT] for h in held), ZERO)
        self.sized = tuple(sorted(zip(keys, held, strict=True), key=itemgetter(0)))
        self.by_size = tuple([h for _, h in self.sized])
        self.ranked = _Ranked(held)
        self.bounded = tuple([h for h in held if h[_RESERVED] is not None and h[_MAXIMUM] is not None])
        times = [at for h in held if (at := h[_RESERVED]) is not None]
        self.latest = max(times, default=None)
        self.whole_seconds = all(at.microsecond == 0 for at in times)

    def _by_source(self) -> dict[int, tuple[_Held, tuple[Decimal, bool, float, str, str]]]:
        return {id(w): (h, k) for w, h, k in zip(self._sources, self.held, self._keys, strict=True)}


class _Tree:
    """What every contest for (flavor, resource) in one cohort tree reads of it, whichever of its ClusterQueues
    asks and whenever: merged once per view from its queues' parts while the tree's Workloads are the same
    sequences (the cache hands out the same tuple of a ClusterQueue's Workloads until one changes), then each
    question reads it in time independent of the number of holders (but for the listing's ties, see `_listed`)."""

    def __init__(self, parts: dict[str, _Queue]):
        self.parts = tuple(parts.values())
        self.borrowed = {name: part.borrowed for name, part in parts.items() if part.borrowed > 0}
        self.held_in = {name: part.total for name, part in parts.items() if part.held}
        self.count = sum(len(part.held) for part in parts.values())
        self.held = sum(self.held_in.values(), ZERO)
        self.borrowed_total = sum(self.borrowed.values(), ZERO)
        # The listing's order but for the running time (now's), the largest first: each queue's, and the tree's
        # (the queues' sorted runs merged: a sort of precomputed keys).
        self.by_size_in = {name: part.by_size for name, part in parts.items() if part.held}
        merged = sorted(chain.from_iterable(p.sized for p in parts.values()), key=itemgetter(0))
        self.by_size = tuple([h for _, h in merged])
        # Who a job could preempt, by priority then queue-order time, with running sums of their amounts: each
        # queue's (withinClusterQueue for its own) and those of the queues that borrow (reclaimWithinCohort).
        self.ranked_in = {name: part.ranked for name, part in parts.items() if part.held}
        self.ranked_borrowing = _Ranked.merged([part.ranked for name, part in parts.items() if name in self.borrowed])
        # The time-bounded ones by deadline (reservation + maximum execution time): the order of their
        # seconds left at any `now` they started before.
        bounded = [h for part in parts.values() for h in part.bounded]
        self.by_deadline = tuple(sorted(bounded, key=_deadline))
        self.latest_start = max((h[_RESERVED] for h in bounded if h[_RESERVED] is not None), default=None)
        # From when the listing's order is that of the sizes alone (see `_listed`): once every reservation is a
        # second or more before `now` and all are whole seconds (as Kubernetes writes them), running times
        # follow reservations exactly, the earliest running the longest, and equal only where those are equal.
        self.listing_from: datetime | None = None
        if all(part.whole_seconds for part in self.parts):
            latest = max((part.latest for part in self.parts if part.latest is not None), default=None)
            self.listing_from = latest + timedelta(seconds=1) if latest is not None else _ALWAYS
        self._listings: dict[str, tuple[_Held, ...]] = {}

    def listing(self, own: str) -> tuple[_Held, ...]:
        """The first MAX_LISTED of own queue's holders then the others', each by size (kept per queue)."""
        found = self._listings.get(own)
        if found is None:
            others = _others(self.by_size, own)
            found = self._listings[own] = tuple(islice(chain(self.by_size_in.get(own, ()), others), MAX_LISTED))
        return found

    def preemptible(self, cq: ClusterQueue, preemptor: Workload) -> Decimal:
        """What a job of `preemptor`'s priority in `cq` may preempt: in its own queue (withinClusterQueue) and
        in the other queues that borrow (reclaimWithinCohort: the borrowing queues' less its own)."""
        own = self.ranked_in.get(cq.name)
        total = ZERO
        if own is not None:
            total += own.preemptible(cq.preemption.get("withinClusterQueue", "Never"), preemptor)
        reclaim = cq.preemption.get("reclaimWithinCohort", "Never")
        total += self.ranked_borrowing.preemptible(reclaim, preemptor)
        if own is not None and cq.name in self.borrowed:
            total -= own.preemptible(reclaim, preemptor)
        return total


_ALWAYS: Final = datetime.min.replace(tzinfo=UTC)


def _larger_first(held: _Held) -> tuple[Decimal, bool, float, str, str]:
    """The largest first; among equals, the earliest reserved first (the longest running at any `now`), then
    by namespace and name; the unreserved last."""
    reserved = held[_RESERVED]
    at = reserved.timestamp() if reserved is not None else 0.0
    return (-held[_AMOUNT], reserved is None, at, held[_NAMESPACE], held[_JOB])


def _deadline(held: _Held) -> datetime:
    reserved, maximum = held[_RESERVED], held[_MAXIMUM]
    assert reserved is not None and maximum is not None
    return reserved + timedelta(seconds=maximum)


def _rank(held: _Held) -> tuple[int, datetime]:
    return held[_PRIORITY], held[_ORDER]


class _Ranked:
    """Holders by (priority, queue-order time) and the running sum of their amounts."""

    def __init__(self, held: Sequence[_Held], *, ranked: bool = False) -> None:
        self.held = tuple(held if ranked else sorted(held, key=_rank))
        self.keys = tuple([(h[_PRIORITY], h[_ORDER]) for h in self.held])
        sums = [ZERO]
        for h in self.held:
            sums.append(sums[-1] + h[_AMOUNT])
        self.sums = tuple(sums)

    @classmethod
    def merged(cls, parts: Sequence[_Ranked]) -> _Ranked:
        """The holders of several, ranked (their sorted runs merged by their keys)."""
        pairs = sorted(chain.from_iterable(zip(p.keys, p.held, strict=True) for p in parts), key=itemgetter(0))
        return cls([h for _, h in pairs], ranked=True)

    def preemptible(self, policy: str, preemptor: Workload) -> Decimal:
        """The amount held by those `_allows(policy, preemptor, ·)` lets a job preempt."""
        if policy == "Any":
            return self.sums[-1]
        if policy not in ("LowerPriority", "LowerOrNewerEqualPriority"):
            return ZERO
        priority = preemptor.priority
        lower = bisect_left(self.keys, priority, key=lambda k: k[0])
        total = self.sums[lower]
        if policy == "LowerOrNewerEqualPriority":  # the same priority, queued after it
            end = bisect_right(self.keys, priority, key=lambda k: k[0])
            after = bisect_right(self.keys, (priority, queue_order_time(preemptor)), lo=lower, hi=end)
            total += self.sums[end] - self.sums[after]
        return total


def _queue_part(snapshot: Snapshot, queue: ClusterQueue, flavor: str, resource: str) -> _Queue:
    """A queue's part from the view's memo, while its Workloads are the same sequence and it borrows as much."""
    workloads = snapshot.workloads_in_cluster_queue(queue.name)
    borrowed = max(capacity(snapshot, queue, flavor, resource).borrowed, ZERO)
    table = snapshot.derived().setdefault(_PARTS, {})
    assert isinstance(table, dict)
    key = (queue.name, flavor, resource)
    known = table.get(key)
    if known is not None and known[0] is workloads and known[1].borrowed == borrowed:
        return known[1]  # type: ignore[no-any-return]
    part = _Queue(queue.name, workloads, flavor, resource, borrowed, known[1] if known is not None else None)
    table[key] = (workloads, part)
    return part


_PARTS = "holders.queue-parts"
lasting(_PARTS, read_current)


def _tree(snapshot: Snapshot, tree: Sequence[ClusterQueue], flavor: str, resource: str) -> _Tree:
    """The tree's holders from the view's memo, while its inputs are the same objects: its Workloads, and its
    ClusterQueues (or, when those changed, as after a status update, each queue's part)."""
    members, names = _by_name(snapshot, tree)  # every ClusterQueue of the tree asks with itself first
    table = snapshot.derived().setdefault(_CONTESTS, {})
    assert isinstance(table, dict)
    key = (names[0], flavor, resource)  # a ClusterQueue is in one tree: its least name names it
    known = table.get(key)
    token = snapshot.sequences_token()
    if known is not None and token is not None and known[3].get(id(token)) is token and same_objects(known[1], members):
        return known[2]  # type: ignore[no-any-return]  # the sequences it was read from, as a token says
    inputs = tuple(map(snapshot.workloads_in_cluster_queue, names))
    parts = None
    if known is not None and same_objects(known[0], inputs):
        tokens = known[3] if len(known[3]) < _TOKENS else {}
        if token is not None:
            tokens[id(token)] = token  # (held: its id is not reused meanwhile)
        if same_objects(known[1], members):
            return known[2]  # type: ignore[no-any-return]
        if len(known[1]) == len(members) and all(a.name == b.name for a, b in zip(known[1], members, strict=True)):
            # Some are new objects (a status change): only theirs are read again (a part is a function of its
            # own queue, its Workloads, which are the same, and what that queue borrows).
            parts = {
                queue.name: part if queue is old else _queue_part(snapshot, queue, flavor, resource)
                for queue, old, part in zip(members, known[1], known[2].parts, strict=True)
            }
        else:
            parts = {queue.name: _queue_part(snapshot, queue, flavor, resource) for queue in members}
        if same_objects(known[2].parts, tuple(parts.values())):
            table[key] = (inputs, members, known[2], tokens)
            return known[2]  # type: ignore[no-any-return]
    if parts is None:
        parts = {queue.name: _queue_part(snapshot, queue, flavor, resource) for queue in members}
    found = _Tree(parts)
    table[key] = (inputs, members, found, {id(token): token} if token is not None else {})
    return found


_TOKENS = 8  # the tokens known to stand for a tree's sequences (those of the views of a few namespaces)


def preparing(snapshot: Snapshot, cluster_queue: str, done: set[tuple[str, str, str]]) -> Iterator[None]:
    """Make the holders of `cluster_queue`'s cohort tree ready in the view's memo for every (flavor, resource)
    of the queue's resource groups, as a question about a job waiting in it would find them; nothing for a
    queue with none waiting. Step by step: one queue's part, then the tree's merge (a tree of 50 queues holding
    16,000 Workloads is ~80 ms at once, 0.2-2 ms a part; the warmer turns the event loop between steps,
    bot.service.warmer). `done`: the trees (their key) already seen in this pass, skipped (each is shared by its
    queues); a tree still current in the memo takes no step."""
    cq = snapshot.cluster_queue(cluster_queue)
    if cq is None or not snapshot.pending_in(cluster_queue):
        return
    tree = cohort_tree(snapshot, cq)
    members, names = _by_name(snapshot, tree)
    for group in cq.resource_groups:
        for flavor in group.flavors:
            for resource in group.covered:
                key = (names[0], flavor.name, resource)
                if key in done:
                    continue
                done.add(key)
                if _current(snapshot, key, members, names):
                    continue
                for queue in members:
                    _queue_part(snapshot, queue, flavor.name, resource)
                    yield
                _tree(snapshot, tree, flavor.name, resource)
                yield


def _current(
    snapshot: Snapshot, key: tuple[str, str, str], members: tuple[ClusterQueue, ...], names: tuple[str, ...]
) -> bool:
    """Whether the memo's tree under `key` was read from these ClusterQueues and their Workloads (`_tree`
    returns it as it is)."""
    table = snapshot.derived().get(_CONTESTS)
    known = table.get(key) if isinstance(table, dict) else None
    if known is None or not same_objects(known[1], members):
        return False
    return same_objects(known[0], tuple(map(snapshot.workloads_in_cluster_queue, names)))


lasting(_CONTESTS, reads_all_current)


def _contest(
    snapshot: Snapshot,
    workload: Workload,
    cq: ClusterQueue,
    tree: Sequence[ClusterQueue],
    flavor: str,
    resource: str,
    needed: Decimal,
    now: datetime,
) -> Contest:
    own = capacity(snapshot, cq, flavor, resource)
    base = _tree(snapshot, tree, flavor, resource)
    held_here = base.held_in.get(cq.name, ZERO)
    borrowed_elsewhere = base.borrowed_total - base.borrowed.get(cq.name, ZERO)
    return Contest(
        flavor=flavor,
        resource=resource,
        needed=needed,
        held_here=held_here,
        held_in_cohort=base.held - held_here,
        reclaimable=min(max(ZERO, own.nominal - own.used), borrowed_elsewhere),
        preemptible=base.preemptible(cq, workload),
        holders=_holders(_listed(base, cq, now), cq, workload),
        count=base.count,
        frees_within=_frees_within(base, needed, now) if needed > 0 else None,
    )


def _running(held: _Held, now: datetime) -> int | None:
    return _seconds(held[_RESERVED], now)


def _listed(base: _Tree, cq: ClusterQueue, now: datetime) -> list[tuple[_Held, int | None]]:
    """The first MAX_LISTED by (own queue first, the largest, the longest running, namespace, name). The holders
    are kept by (the largest, the earliest reserved, namespace, name), own queue's and the tree's; the running
    time at `now` can only fall along that order (a reservation after `now` runs 0 s, as an unreserved one),
    so each run of equal amounts is read only until MAX_LISTED are taken and the next one runs less: only
    those (a few, but for ties of running time) are sorted, at `now`. Each with its running time at `now`.
    From the tree's `listing_from` on, that order is the sizes' alone: the tree's listing, kept."""
    if base.listing_from is not None and now >= base.listing_from:
        return [(held, _running(held, now)) for held in base.listing(cq.name)]
    chosen: list[tuple[_Held, int | None]] = []
    own = cq.name
    others = _others(base.by_size, own)
    for _, equal in groupby(chain(base.by_size_in.get(own, ()), others), key=lambda h: (h[_CQ] != own, h[_AMOUNT])):
        wanted = MAX_LISTED - len(chosen)
        taken: list[tuple[int, str, str, _Held, int | None]] = []
        for held in equal:
            running = _running(held, now)
            if len(taken) >= wanted and -(running or 0) != taken[-1][0]:
                break  # every later one of the run runs less
            taken.append((-(running or 0), held[_NAMESPACE], held[_JOB], held, running))
        chosen += [entry[3:] for entry in heapq.nsmallest(wanted, taken, key=lambda entry: entry[:3])]
        if len(chosen) >= MAX_LISTED:
            break
    return chosen


def _others(by_size: Sequence[_Held], own: str) -> Iterator[_Held]:
    """The other queues' holders, read as far as asked (a generator function: compiled, a generator expression
    would be made into a list of them all)."""
    for held in by_size:
        if held[_CQ] != own:
            yield held


def _holders(listed: list[tuple[_Held, int | None]], cq: ClusterQueue, workload: Workload) -> tuple[Holder, ...]:
    found = []
    own = cq.name
    for held, running in listed:
        maximum = held[_MAXIMUM]
        left = max(0, maximum - running) if maximum is not None and running is not None else None
        borrows = held[_BORROWS] and held[_CQ] != own  # another queue of the cohort that borrows
        reason = _reason(cq, workload, held[_CQ], held[_PRIORITY], held[_ORDER], borrows)
        found.append(
            Holder(
                held[_NAMESPACE], held[_JOB], held[_CQ], held[_PRIORITY], held[_AMOUNT], running, borrows, reason, left
            )
        )
    return tuple(found)


def _frees_within(base: _Tree, needed: Decimal, now: datetime) -> int | None:
    """eta.freeing_bound over every holder's (amount, seconds left), without visiting them all: seconds left
    follow the deadlines of those that started by `now` (a start after `now`, a clock's skew, counts its
    whole maximum: then every holder is weighed, as freeing_bound does)."""
    if base.latest_start is not None and base.latest_start > now:
        pairs = []
        for held in base.by_deadline:
            running = _running(held, now)
            maximum = held[_MAXIMUM]
            assert running is not None and maximum is not None
            pairs.append((held[_AMOUNT], max(0, maximum - running)))
        return freeing_bound(pairs, needed)
    freed = ZERO
    for held in base.by_deadline:
        freed += held[_AMOUNT]
        if freed >= needed:
            running, maximum = _running(held, now), held[_MAXIMUM]
            assert running is not None and maximum is not None
            return max(0, maximum - running)
    return None
