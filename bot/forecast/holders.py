"""Who holds what a pending job needs: the admitted Workloads using the contested resource in the contested
flavor, in its ClusterQueue and across its cohort tree, read from the engine's per-view index of the quota held
(bot.trace.holdings). Pure: a snapshot, a Workload and `now` in, data out.

For each holder: how much of the contested resource it uses, how long it has run, whether its ClusterQueue
borrows in that flavor (a cohort reclaim would give that back), whether a job of the waiting job's priority
could preempt it under the waiting job's ClusterQueue's preemption policy (Kueue's rules, as
bot.trace.holdings weighs them), and how long it may still run when its Workload sets
maximumExecutionTimeSeconds. StrictFIFO and waitForPodsReady.blockAdmission name their blockers the same way.
Names are carried with their namespace: the renderer shows them only to readers allowed to see that namespace
(counts and amounts otherwise), as for who waits ahead.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from itertools import chain, groupby
from typing import NamedTuple

from bot.forecast.eta import freeing_bound
from bot.trace.holdings import (
    AMOUNT,
    BORROWS,
    CQ,
    IN_CLUSTER_QUEUE,
    JOB,
    MAX_LISTED,
    MAXIMUM,
    NAMESPACE,
    ORDER,
    PRIORITY,
    RECLAIM,
    RESERVED,
    Held,
    Tree,
    cohort_tree,
    contested,
    others_than,
    preemptible_as,
    reserved_at,
    tree_of,
)
from bot.trace.model import ClusterQueue, Workload, job_name
from bot.trace.quota import ZERO, capacity
from bot.trace.snapshot import Snapshot, queue_order_time

__all__ = [
    "IN_CLUSTER_QUEUE",
    "MAX_LISTED",
    "PODS_READY",
    "RECLAIM",
    "STRICT_FIFO_HEAD",
    "Blocker",
    "Contest",
    "Holder",
    "Holders",
    "find_holders",
]

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
    base = tree_of(snapshot, tree, flavor, resource)
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


def _running(held: Held, now: datetime) -> int | None:
    return _seconds(held[RESERVED], now)


def _listed(base: Tree, cq: ClusterQueue, now: datetime) -> list[tuple[Held, int | None]]:
    """The first MAX_LISTED by (own queue first, the largest, the longest running, namespace, name). The holders
    are kept by (the largest, the earliest reserved, namespace, name), own queue's and the tree's; the running
    time at `now` can only fall along that order (a reservation after `now` has not run yet, as an unreserved one),
    so each run of equal amounts is read only until MAX_LISTED are taken and the next one runs less: only
    those (a few, but for ties of running time) are sorted, at `now`. Each with its running time at `now`.
    From the tree's `listing_from` on, that order is the sizes' alone: the tree's listing, kept."""
    if base.listing_from is not None and now >= base.listing_from:
        return [(held, _running(held, now)) for held in base.listing(cq.name)]
    chosen: list[tuple[Held, int | None]] = []
    own = cq.name
    others = others_than(base.by_size, own)
    for _, equal in groupby(chain(base.by_size_in.get(own, ()), others), key=lambda h: (h[CQ] != own, h[AMOUNT])):
        wanted = MAX_LISTED - len(chosen)
        taken: list[tuple[int, str, str, Held, int | None]] = []
        for held in equal:
            running = _running(held, now)
            if len(taken) >= wanted and -(running or 0) != taken[-1][0]:
                break  # every later one of the run runs less
            taken.append((-(running or 0), held[NAMESPACE], held[JOB], held, running))
        chosen += [entry[3:] for entry in heapq.nsmallest(wanted, taken, key=lambda entry: entry[:3])]
        if len(chosen) >= MAX_LISTED:
            break
    return chosen


def _holders(listed: list[tuple[Held, int | None]], cq: ClusterQueue, workload: Workload) -> tuple[Holder, ...]:
    found = []
    own = cq.name
    for held, running in listed:
        maximum = held[MAXIMUM]
        left = max(0, maximum - running) if maximum is not None and running is not None else None
        borrows = held[BORROWS] and held[CQ] != own  # another queue of the cohort that borrows
        reason = preemptible_as(cq, workload, held[CQ], held[PRIORITY], held[ORDER], borrows)
        found.append(
            Holder(held[NAMESPACE], held[JOB], held[CQ], held[PRIORITY], held[AMOUNT], running, borrows, reason, left)
        )
    return tuple(found)


def _frees_within(base: Tree, needed: Decimal, now: datetime) -> int | None:
    """eta.freeing_bound over every holder's (amount, seconds left), without visiting them all: seconds left
    follow the deadlines of those that started by `now` (a start after `now`, a clock's skew, counts its
    whole maximum: then every holder is weighed, as freeing_bound does)."""
    if base.latest_start is not None and base.latest_start > now:
        pairs = []
        for held in base.by_deadline:
            running = _running(held, now)
            maximum = held[MAXIMUM]
            assert running is not None and maximum is not None
            pairs.append((held[AMOUNT], max(0, maximum - running)))
        return freeing_bound(pairs, needed)
    freed = ZERO
    for held in base.by_deadline:
        freed += held[AMOUNT]
        if freed >= needed:
            running, maximum = _running(held, now), held[MAXIMUM]
            assert running is not None and maximum is not None
            return max(0, maximum - running)
    return None
