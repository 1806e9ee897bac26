"""The head of a StrictFIFO ClusterQueue: which Workload Kueue tries before everyone else, and whether it can
ever be admitted.

Kueue's scheduler takes one Workload a ClusterQueue each cycle, the head of its heap. A StrictFIFO queue
puts an inadmissible head straight back (RequeueIfNotPresent: `immediate = reason !=
RequeueReasonNamespaceMismatch`, v0.14 pkg/queue/cluster_queue.go:420-423, upstream
pkg/cache/queue/cluster_queue.go:827-837), so the head stays in front and nothing behind it is tried until it
is admitted or leaves. Two Workloads do not hold the front: one whose namespace the ClusterQueue does not
select (the same RequeueReasonNamespaceMismatch sends it to the inadmissible list), and one still in its
requeue backoff (Requeued=False, or requeueState.requeueAt ahead: `backoffWaitingTimeExpired` keeps it out of
the heap, v0.14 cluster_queue.go:175-178,194-206, upstream :415-417,474-485). A head that can never fit
therefore blocks the queue until an admin acts: waiting is the wrong advice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from bot.trace import blockers, checks, quota
from bot.trace.codes import Verdict
from bot.trace.explanation import WORKLOAD_ELSEWHERE, Text, Value, named_workload
from bot.trace.fits import Fit, QueueFit, verdict_of
from bot.trace.model import ClusterQueue, Workload, job_name
from bot.trace.partial import partial_fit
from bot.trace.quantity import human
from bot.trace.queuechain import namespace_allowed
from bot.trace.queuecheck import recorded_exclusions
from bot.trace.snapshot import Snapshot, same_objects

STRICT_FIFO = "StrictFIFO"


@dataclass(frozen=True)
class QueueHead:
    """The Workload at the front of a StrictFIFO queue and what the engine finds for it."""

    workload: Workload
    verdict: Verdict | None  # None: it fits now; WAITING_FOR_*: once capacity frees; EXCEEDS_*/NO_MATCHING_*: never
    detail: Value | None = None  # why it never fits, or how much more it needs now
    behind: int = 0  # how many wait behind it

    @property
    def never(self) -> bool:
        return self.verdict is not None and self.verdict.never_fits_queue

    @property
    def name(self) -> str:
        return job_name(self.workload)

    @property
    def label(self) -> Text:
        """The head named in a step or an action: "namespace/name", as a fragment the Slack renderer hides
        from readers who may not see that namespace (bot.trace.explanation.named_workload)."""
        return named_workload(self.workload.namespace, self.name, self.workload.name)

    def headline_label(self, own_namespace: str) -> Text:
        """The head named in a headline, which is shown to anyone the answer reaches (summaries, DMs, the
        App Home): by name in the asker's own namespace, else only as a workload of another namespace."""
        if self.workload.namespace == own_namespace:
            return self.label
        return Text(WORKLOAD_ELSEWHERE, {})


def _in_backoff(workload: Workload, now: datetime) -> bool:
    requeued = workload.condition("Requeued")
    if requeued is not None and requeued.is_false:
        return True
    requeue_at = workload.requeue.requeue_at if workload.requeue else None
    return requeue_at is not None and requeue_at > now


def front(snapshot: Snapshot, cq: ClusterQueue, pending: Sequence[Workload], now: datetime) -> Workload | None:
    """The Workload Kueue's scheduler tries first in `cq` (None: not StrictFIFO, or nobody waits)."""
    if cq.queueing_strategy != STRICT_FIFO:
        return None
    for candidate in pending:
        if _in_backoff(candidate, now) or namespace_allowed(snapshot, cq, candidate.namespace) is False:
            continue
        return candidate
    return None


def _no_flavor_detail(fit: QueueFit) -> Value:
    if fit.uncovered:
        return Text("fragment.not-covered", {"resources": ", ".join(fit.uncovered)})
    blocking = fit.blocking_flavors()
    taint = next((a for a in blocking if a.taint is not None), None)
    if taint is not None:
        return Text("fragment.taint", {"taint": str(taint.taint)})
    return Text("fragment.node-labels")


def _listed(shorts: list[blockers.Short], *, never: bool) -> str:
    """ "cpu 12 > 8" (never) or "cpu 2" (more needed now); a flavor named only where they differ."""
    items = blockers.unique(shorts)
    return blockers.short_list(items, never=never, flavor=items[0].flavor if items else "")


# Cost. Every Workload behind a StrictFIFO head asks about the same head (the watcher asks for each of them in
# a pass): its evaluation is kept in the view's memos() per ClusterQueue, while the head is the same
# object and the usage it was computed from is the same (quota.usage_inputs), as advice's fits elsewhere are.
_MEMO = "head.evaluated"


def evaluate(snapshot: Snapshot, cq: ClusterQueue, head: Workload, behind: int) -> QueueHead:
    """Whether the head can be admitted (now, once capacity frees, never), as the engine's own checks of its
    flavors and quota find it (partial admission and Kueue's recorded flavor exclusions included)."""
    memo = snapshot.memos()
    table = memo.get(_MEMO)
    if not isinstance(table, dict):
        table = memo[_MEMO] = {}
    inputs = quota.usage_inputs(snapshot, cq)
    known = table.get(cq.name)
    if known is not None and known[0] is cq and known[1] is head and same_objects(known[2], inputs):
        return replace(known[3], behind=behind)  # type: ignore[no-any-return]
    found = _evaluate(snapshot, cq, head, behind)
    table[cq.name] = (cq, head, inputs, found)  # the objects held: their ids are not reused meanwhile
    return found


def _evaluate(snapshot: Snapshot, cq: ClusterQueue, head: Workload, behind: int) -> QueueHead:
    fit = checks.fit_in_queue(snapshot, cq, head.pod_sets, head, excluded=recorded_exclusions(head))
    verdict = verdict_of(fit)
    if verdict == Verdict.NO_MATCHING_FLAVOR:
        return QueueHead(head, verdict, Text("fragment.no-flavor", {"detail": _no_flavor_detail(fit)}), behind)
    if verdict in (Verdict.EXCEEDS_MAX_QUOTA, Verdict.WAITING_FOR_QUOTA, Verdict.WAITING_FOR_PREEMPTION):
        partial = partial_fit(snapshot, cq, head.pod_sets, head)
        if partial is not None and partial.now is not None:
            return QueueHead(head, None, None, behind)
        if partial is not None and partial.ever is not None and partial.ever_fit is not None:
            fit, verdict = partial.ever_fit, Verdict.WAITING_FOR_QUOTA
    if verdict == Verdict.EXCEEDS_MAX_QUOTA:
        over = [
            blockers.Short(s.resource, s.flavor, human(s.requested, s.resource), human(s.capacity.maximum, s.resource))
            for s in fit.shortfalls()
            if s.never
        ]
        return QueueHead(head, verdict, _listed(over, never=True), behind)
    if verdict is not None and fit.fit == Fit.WAITS:
        short = [
            blockers.Short(s.resource, s.flavor, needed=human(s.needed, s.resource))
            for s in fit.shortfalls()
            if not s.never
        ]
        return QueueHead(head, verdict, _listed(short, never=False) or None, behind)
    return QueueHead(head, verdict, None, behind)
