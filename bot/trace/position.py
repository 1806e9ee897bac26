"""Where a pending Workload stands in its ClusterQueue, and who waits ahead of it.

Kueue's pending-workloads API is the authority when the snapshot has its answer; otherwise the engine
computes the place from the snapshot's queue order (bot.trace.snapshot). Who is ahead is listed (and
summed) only while the queue ahead is short, so that a question stays cheap on a busy cluster.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.trace import head
from bot.trace.codes import Outcome
from bot.trace.demand import demand_before
from bot.trace.explanation import LOWER_BOUND, Ahead, Position, Value
from bot.trace.model import Workload, job_name
from bot.trace.queuechain import QueueChain
from bot.trace.snapshot import Snapshot, lasting_table, read_current
from bot.trace.walk import Walk, amounts

MAX_AHEAD_LISTED = 10
MAX_AHEAD_DETAILED = 200


def _place(walk: Walk, workload: Workload, cq_name: str) -> tuple[int, int, str, tuple[int, int] | None] | None:
    """(place in the ClusterQueue, place in the LocalQueue, source, the computed places) or None."""
    entry = walk.snapshot.pending_entry(workload.namespace, workload.name)
    computed = walk.snapshot.position_in(cq_name, workload)
    if entry is not None:
        return entry.position_in_cluster_queue + 1, entry.position_in_local_queue + 1, "visibility-api", computed
    if computed is not None:
        # Workloads read in one namespace only: the order is partial, the place a lower bound
        source = "computed" if walk.snapshot.read_scope is None else LOWER_BOUND
        return computed[0] + 1, computed[1] + 1, source, computed
    return None


def place(walk: Walk, workload: Workload) -> None:
    """Set `walk.position` and write the position steps (nothing when there is no queue to wait in)."""
    chain = walk.chain
    if chain is None or chain.local_queue is None or chain.cluster_queue is None:
        return  # no queue to wait in: Kueue queues nothing there
    cq_name = chain.cluster_queue_name
    found = _place(walk, workload, cq_name)
    if found is None:
        return
    cq_pos, lq_pos, source, computed = found
    scope = walk.snapshot.read_scope
    # how many wait in the whole queue is not known from one namespace
    pending = walk.snapshot.pending_in(cq_name) if scope is None else ()
    detailed = computed is not None and source == "computed" and computed[0] <= MAX_AHEAD_DETAILED
    before = computed[0] if detailed and computed is not None else 0  # how many are listed ahead
    ahead = Ahead(
        count=cq_pos - 1,
        by_priority=_priorities_before(walk.snapshot.memos(), cq_name, pending, before) if detailed else None,
        workloads=tuple(
            (w.namespace, job_name(w), w.priority) for w in pending[max(0, before - MAX_AHEAD_LISTED) : before]
        ),
    )
    walk.position = Position(
        cluster_queue=cq_pos,
        local_queue=lq_pos,
        source=source,
        cluster_queue_name=cq_name,
        local_queue_name=workload.queue_name,
        pending_total=len(pending) if pending else None,
        ahead=ahead,
        scope=scope if source == LOWER_BOUND else None,
    )
    params = _params(walk, workload, cq_pos, lq_pos, source, pending)
    if source == LOWER_BOUND:
        walk.step("position", Outcome.INFO, "position.lower-bound", params, source=source)
        return
    walk.step("position", Outcome.INFO, "position.in-queue", params, source=source)
    if before and ahead.by_priority:
        summary = ", ".join(f"{count} × {prio}" for prio, count in ahead.by_priority)
        # Running totals along the queue's order, kept with the view (not re-summed per question).
        demand = demand_before(walk.snapshot.memos(), cq_name, pending, before)
        walk.step("position", Outcome.INFO, "position.ahead", {"by_priority": summary, "demand": amounts(demand)})
    _strict_fifo_head(walk, chain, workload, pending, cq_pos)


# The runs of equal priority along a queue order (Kueue's order puts the higher first, so a few), kept per order
# the view hands out and grown as far as a question reads: how many of each priority wait ahead of a place is
# read from them, not counted.
_PRIORITY_RUNS = "place.priority-runs"


def _priorities_before(
    memo: dict[object, object], key: str, order: Sequence[Workload], count: int
) -> tuple[tuple[int, int], ...]:
    """(priority, how many) of the first `count` Workloads of `order` (named `key`), the highest first."""
    table = lasting_table(memo, _PRIORITY_RUNS, read_current)
    known = table.get(key)
    runs: list[tuple[int, int, int]]
    if known is not None and known[0] is order:
        runs = known[1]
    else:
        runs = []
        table[key] = (order, runs)  # holding the order keeps its id from being reused
    scanned = runs[-1][2] if runs else 0
    for index in range(scanned, min(count, len(order))):  # grown as far as asked (a first question reads few)
        priority = order[index].priority
        if runs and runs[-1][0] == priority:
            runs[-1] = (priority, runs[-1][1], index + 1)
        else:
            runs.append((priority, index, index + 1))
    counts: dict[int, int] = {}
    for priority, start, end in runs:
        if start >= count:
            break
        counts[priority] = counts.get(priority, 0) + min(end, count) - start
    return tuple(sorted(counts.items(), key=lambda item: -item[0]))


def prepare_order(snapshot: Snapshot, cluster_queue: str) -> None:
    """Make what a question about a job waiting in `cluster_queue` reads of its order ready in the view's
    memo: the priorities and the running totals of demand ahead of every place detailed (MAX_AHEAD_DETAILED).
    Grown by the questions otherwise, the first ones about a long queue summed hundreds of Workloads (the trace
    grew with the queue's length; bench/README.md). The warmer calls it for every queue (bot.service.warmer);
    an order still current costs two lookups."""
    pending = snapshot.pending_in(cluster_queue)
    count = min(len(pending), MAX_AHEAD_DETAILED)
    if count:
        memo = snapshot.memos()
        _priorities_before(memo, cluster_queue, pending, count)
        demand_before(memo, cluster_queue, pending, count)


def _params(
    walk: Walk, workload: Workload, cq_pos: int, lq_pos: int, source: str, pending: Sequence[Workload]
) -> dict[str, str | int | None]:
    chain = walk.chain
    assert chain is not None
    params: dict[str, str | int | None] = {
        "position": cq_pos,
        "local_position": lq_pos,
        "cluster_queue": chain.cluster_queue_name,
        "local_queue": workload.queue_name,
        "ahead": cq_pos - 1,
        "source": source,
    }
    if walk.snapshot.read_scope is None:  # one namespace cannot count the whole queue
        params["total"] = len(pending) if pending else cq_pos
    if source == LOWER_BOUND:
        params["namespace"] = walk.snapshot.read_scope
    return params


def _strict_fifo_head(
    walk: Walk, chain: QueueChain, workload: Workload, pending: Sequence[Workload], cq_pos: int
) -> None:
    """The head of a StrictFIFO queue: named, with whether it can ever be admitted (bot.trace.head); or, when
    this Workload is the head, how many wait behind it."""
    cq = chain.cluster_queue
    if cq is None or walk.snapshot.read_scope is not None:  # one namespace's Workloads: the head is not known
        return
    first = head.front(walk.snapshot, cq, pending, walk.now)
    if first is None:
        return
    same = (first.namespace, first.name) == (workload.namespace, workload.name)
    if same and len(pending) > 1:
        walk.behind = len(pending) - 1
        behind: dict[str, Value | None] = {"cluster_queue": cq.name, "behind": walk.behind}
        walk.step("position", Outcome.INFO, "position.strict-fifo-is-head", behind, behind=walk.behind)
    if same or cq_pos <= 1:
        return
    walk.head = found = head.evaluate(walk.snapshot, cq, first, len(pending) - 1)
    params: dict[str, Value | None] = {"cluster_queue": cq.name, "head": found.label, "priority": first.priority}
    params["blocked_by" if found.never else "head_detail"] = found.detail
    data = {"head": f"{first.namespace}/{found.name}", "never": found.never, "verdict": str(found.verdict or "")}
    outcome = Outcome.FAIL if found.never else Outcome.INFO
    walk.step("position", outcome, "position.strict-fifo-head", params, **data)
