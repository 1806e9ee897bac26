"""The quota held in a cohort tree: for each (flavor, resource), which admitted Workloads hold how much, in which
ClusterQueue, whether that queue borrows, and what a waiting job could preempt under its ClusterQueue's policy
(Kueue's rules, pkg/scheduler/preemption/classical/hierarchical_preemption.go: withinClusterQueue for its own
queue, reclaimWithinCohort for the other queues of the cohort, and only those that borrow). Kept per view in
its memo: the admission path asks whether preemption could make room (bot.trace.queuecheck); the forecast
(bot.forecast.holders) names the holders from the same index. Pure.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from itertools import chain, islice
from operator import itemgetter
from typing import Any, Final

from bot.trace import checks
from bot.trace.demand import PODS
from bot.trace.model import ClusterQueue, Workload, job_name
from bot.trace.quota import ZERO, capacity
from bot.trace.snapshot import (
    Snapshot,
    lasting_table,
    queue_order_time,
    read_current,
    reads_all_current,
    same_objects,
)

MAX_LISTED = 10  # holders an answer lists per contest

# Why a holder could be preempted (Kueue's preemption reasons).
IN_CLUSTER_QUEUE = "in-cluster-queue"
RECLAIM = "reclaim"


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
    Kept in the view's memos() (the source renews it when a ClusterQueue or Cohort changes)."""
    if not cq.cohort:
        return [cq]
    table = snapshot.memos().setdefault(_TREES, {})
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
    table = snapshot.memos().setdefault(_ROOTS, {})
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
    table = snapshot.memos().setdefault(_BY_NAME, {})
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
    return preemptible_as(
        cq, preemptor, admitted_in, candidate.priority, queue_order_time(candidate), candidate_borrows
    )


def preemptible_as(
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
    snapshot: Snapshot, workload: Workload, cq: ClusterQueue, attempt: checks.FlavorTry
) -> bool:
    """Whether preempting what the waiting job's ClusterQueue's policy lets it preempt would free what it
    misses in this flavor (the engine's stand-in for Kueue's preemption simulation,
    preemption.go SimulatePreemption: "candidates found")."""
    if not attempt.shortfalls:
        return False
    tree = cohort_tree(snapshot, cq)
    for shortfall in attempt.shortfalls:
        if tree_of(snapshot, tree, shortfall.flavor, shortfall.resource).preemptible(cq, workload) < shortfall.needed:
            return False
    return True


# One admitted Workload holding the contested (flavor, resource), as every contest of its tree sees it: its
# ClusterQueue, amount, whether that queue borrows there, when it was reserved, its queue-order time, namespace,
# job name, priority and maximumExecutionTimeSeconds. A plain tuple of plain values: a tree keeps one per
# holder (tens of thousands at 200,000 Workloads), and only an exact tuple of such values leaves the garbage
# collector's sight (a record holding its Workload stayed tracked, and every full collection walked them all).
Held = tuple[str, Decimal, bool, datetime | None, datetime, str, str, int, int | None]
CQ: Final = 0
AMOUNT: Final = 1
BORROWS: Final = 2
RESERVED: Final = 3
ORDER: Final = 4
NAMESPACE: Final = 5
JOB: Final = 6
PRIORITY: Final = 7
MAXIMUM: Final = 8


class _Queue:
    """What one ClusterQueue of a tree holds of (flavor, resource): its holders, by size and by rank. Kept per
    view while its Workloads (the same sequence) and what it borrows are the same: a change in one queue
    rebuilds its own part, and the tree is merged again from the parts. A rebuild takes the records of the
    Workloads that are the same objects from the `previous` part (a holder's record is a function of its
    Workload, the queue, the flavor, the resource and whether the queue borrows): one changed Workload in a
    queue of hundreds costs one record (a whole tree rebuilt at once held the loop in a watcher pass)."""

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
        held: list[Held] = []
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
        self.total = sum((h[AMOUNT] for h in held), ZERO)
        self.sized = tuple(sorted(zip(keys, held, strict=True), key=itemgetter(0)))
        self.by_size = tuple([h for _, h in self.sized])
        self.ranked = _Ranked(held)
        self.bounded = tuple([h for h in held if h[RESERVED] is not None and h[MAXIMUM] is not None])
        times = [at for h in held if (at := h[RESERVED]) is not None]
        self.latest = max(times, default=None)
        self.whole_seconds = all(at.microsecond == 0 for at in times)

    def _by_source(self) -> dict[int, tuple[Held, tuple[Decimal, bool, float, str, str]]]:
        return {id(w): (h, k) for w, h, k in zip(self._sources, self.held, self._keys, strict=True)}


class Tree:
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
        self._by_size(parts)
        # Who a job could preempt, by priority then queue-order time, with running sums of their amounts: each
        # queue's (withinClusterQueue for its own) and those of the queues that borrow (reclaimWithinCohort).
        self.ranked_in = {name: part.ranked for name, part in parts.items() if part.held}
        self.ranked_borrowing = _Ranked.merged([part.ranked for name, part in parts.items() if name in self.borrowed])
        self._by_deadline()
        self.listing_from = self._listing_from()
        self._listings: dict[str, tuple[Held, ...]] = {}

    def _by_size(self, parts: dict[str, _Queue]) -> None:
        """The listing's order but for the running time (now's), the largest first: each queue's, and the tree's
        (the queues' sorted runs merged: a sort of precomputed keys)."""
        self.by_size_in = {name: part.by_size for name, part in parts.items() if part.held}
        merged = sorted(chain.from_iterable(p.sized for p in parts.values()), key=itemgetter(0))
        self.by_size = tuple([h for _, h in merged])

    def _by_deadline(self) -> None:
        """The time-bounded ones by deadline (reservation + maximum execution time): the order of their seconds
        left at any `now` they started before; and the latest of their starts."""
        bounded = [h for part in self.parts for h in part.bounded]
        self.by_deadline = tuple(sorted(bounded, key=_deadline))
        self.latest_start = max((h[RESERVED] for h in bounded if h[RESERVED] is not None), default=None)

    def _listing_from(self) -> datetime | None:
        """From when the listing's order is that of the sizes alone (see `_listed`): once every reservation is a
        second or more before `now` and all are whole seconds (as Kubernetes writes them), running times follow
        reservations exactly, the earliest running the longest, and equal only where those are equal."""
        if not all(part.whole_seconds for part in self.parts):
            return None
        latest = max((part.latest for part in self.parts if part.latest is not None), default=None)
        return latest + timedelta(seconds=1) if latest is not None else _ALWAYS

    def listing(self, own: str) -> tuple[Held, ...]:
        """The first MAX_LISTED of own queue's holders then the others', each by size (kept per queue)."""
        found = self._listings.get(own)
        if found is None:
            others = others_than(self.by_size, own)
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


def _larger_first(held: Held) -> tuple[Decimal, bool, float, str, str]:
    """The largest first; among equals, the earliest reserved first (the longest running at any `now`), then
    by namespace and name; the unreserved last."""
    reserved = held[RESERVED]
    at = reserved.timestamp() if reserved is not None else 0.0
    return (-held[AMOUNT], reserved is None, at, held[NAMESPACE], held[JOB])


def _deadline(held: Held) -> datetime:
    reserved, maximum = held[RESERVED], held[MAXIMUM]
    assert reserved is not None and maximum is not None
    return reserved + timedelta(seconds=maximum)


def _rank(held: Held) -> tuple[int, datetime]:
    return held[PRIORITY], held[ORDER]


class _Ranked:
    """Holders by (priority, queue-order time) and the running sum of their amounts."""

    def __init__(self, held: Sequence[Held], *, ranked: bool = False) -> None:
        self.held = tuple(held if ranked else sorted(held, key=_rank))
        self.keys = tuple([(h[PRIORITY], h[ORDER]) for h in self.held])
        sums = [ZERO]
        for h in self.held:
            sums.append(sums[-1] + h[AMOUNT])
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
    table = lasting_table(snapshot.memos(), _PARTS, read_current)
    key = (queue.name, flavor, resource)
    known = table.get(key)
    if known is not None and known[0] is workloads and known[1].borrowed == borrowed:
        return known[1]  # type: ignore[no-any-return]
    part = _Queue(queue.name, workloads, flavor, resource, borrowed, known[1] if known is not None else None)
    table[key] = (workloads, part)
    return part


_PARTS = "holders.queue-parts"


def tree_of(snapshot: Snapshot, tree: Sequence[ClusterQueue], flavor: str, resource: str) -> Tree:
    """The tree's holders from the view's memo, while its inputs are the same objects: its Workloads, and its
    ClusterQueues (or, when those changed, as after a status update, each queue's part)."""
    members, names = _by_name(snapshot, tree)  # every ClusterQueue of the tree asks with itself first
    table = lasting_table(snapshot.memos(), _CONTESTS, reads_all_current)
    key = (names[0], flavor, resource)  # a ClusterQueue is in one tree: its least name names it
    known = table.get(key)
    token = snapshot.sequences_token()
    if known is not None and token is not None and known[3].get(id(token)) is token and same_objects(known[1], members):
        return known[2]  # type: ignore[no-any-return]  # the sequences it was read from, as a token says
    inputs = tuple(map(snapshot.workloads_in_cluster_queue, names))
    if known is not None and same_objects(known[0], inputs):
        kept = _of_the_same_workloads(snapshot, table, key, inputs, members, token)
        if isinstance(kept, Tree):
            return kept
        parts = kept
    else:
        parts = {queue.name: _queue_part(snapshot, queue, flavor, resource) for queue in members}
    found = Tree(parts)
    table[key] = (inputs, members, found, {id(token): token} if token is not None else {})
    return found


def _of_the_same_workloads(
    snapshot: Snapshot,
    table: dict[tuple[str, str, str], Any],
    key: tuple[str, str, str],
    inputs: tuple[Sequence[Workload], ...],
    members: tuple[ClusterQueue, ...],
    token: object | None,
) -> Tree | dict[str, _Queue]:
    """The memo's tree under `key`, read from these same Workloads: as it is when its ClusterQueues are the same
    objects too, or when the parts read again of those that changed are the same; else those parts."""
    _, flavor, resource = key
    known = table[key]
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
    return parts


_TOKENS = 8  # the tokens known to stand for a tree's sequences (those of the views of a few namespaces)


def preparing(snapshot: Snapshot, cluster_queue: str, done: set[tuple[str, str, str]]) -> Iterator[None]:
    """Make the holders of `cluster_queue`'s cohort tree ready in the view's memo for every (flavor, resource)
    of the queue's resource groups, as a question about a job waiting in it would find them; nothing for a
    queue with none waiting. Step by step: one queue's part, then the tree's merge (a large tree made at once
    would hold the loop; the warmer turns the event loop between steps, bot.service.warmer). `done`: the trees
    (their key) already seen in this pass, skipped (each is shared by its queues); a tree still current in the
    memo takes no step."""
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
                tree_of(snapshot, tree, flavor.name, resource)
                yield


def _current(
    snapshot: Snapshot, key: tuple[str, str, str], members: tuple[ClusterQueue, ...], names: tuple[str, ...]
) -> bool:
    """Whether the memo's tree under `key` was read from these ClusterQueues and their Workloads (`tree_of`
    returns it as it is)."""
    table = snapshot.memos().get(_CONTESTS)
    known = table.get(key) if isinstance(table, dict) else None
    if known is None or not same_objects(known[1], members):
        return False
    return same_objects(known[0], tuple(map(snapshot.workloads_in_cluster_queue, names)))


def others_than(by_size: Sequence[Held], own: str) -> Iterator[Held]:
    """The other queues' holders, read as far as asked (a generator function: compiled, a generator expression
    would be made into a list of them all)."""
    for held in by_size:
        if held[CQ] != own:
            yield held
