"""Who holds a job: the workload that preempts it, the workloads it preempts, the ClusterQueues that borrow what
it waits for, named as a person names them (the job, its namespace, its ClusterQueue).

Kueue's preemption record (pkg/scheduler/preemption/preemption.go preemptionMessage): the victim's Evicted
condition (reason Preempted) and Preempted condition (reason InClusterQueue, InCohortReclamation,
InCohortFairSharing, InCohortReclaimWhileBorrowing) say "Preempted to accommodate a workload (UID: <preemptor's
Workload UID>, JobUID: <its job's UID>) due to <why>; preemptor path: /<cohort>/<cq>; preemptee path: ...".
The job reconciler stops the victim's job at once and clears its quota only once the job is no longer active
(pkg/controller/jobframework/reconciler.go, "handle eviction"): until then the victim still holds its quota
(QuotaReserved and Admitted True) while it is being preempted; afterwards it is requeued (Requeued=True,
reason Preempted) with its creation time as its queue-order time (FACTS §5, workload.go
GetQueueOrderTimestamp), so it goes back where its priority and age put it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from bot.trace.eviction import Preemption, parse_eviction
from bot.trace.explanation import Text, named_workload
from bot.trace.model import ClusterQueue, Condition, Workload, job_name
from bot.trace.quota import ZERO, capacity
from bot.trace.snapshot import Snapshot

# The Preempted condition's reason, and Kueue's words for it (preemption.go HumanReadablePreemptionReasons).
_WHY_BY_WORDS = {
    "prioritization in the ClusterQueue": "InClusterQueue",
    "reclamation within the cohort": "InCohortReclamation",
    "Fair Sharing within the cohort": "InCohortFairSharing",
    "reclamation within the cohort while borrowing": "InCohortReclaimWhileBorrowing",
}
_WHY = {
    "InClusterQueue": Text("fragment.why-in-cluster-queue"),
    "InCohortReclamation": Text("fragment.why-reclamation"),
    "InCohortFairSharing": Text("fragment.why-fair-sharing"),
    "InCohortReclaimWhileBorrowing": Text("fragment.why-reclaim-while-borrowing"),
}
MAX_NAMED = 3  # victims or borrowers named in one sentence


@dataclass(frozen=True)
class Preempted:
    """A preemption of a Workload, read from its own conditions."""

    since: datetime | None  # when Kueue evicted it
    record: Preemption
    reason: str  # the Preempted condition's reason (InClusterQueue, ...), or the one Kueue's words name

    @property
    def why(self) -> Text | None:
        return _WHY.get(self.reason)

    @property
    def preemptor_queue(self) -> str:
        """The preemptor's ClusterQueue: the last part of "preemptor path: /cohort/cq" (v0.15+)."""
        path = self.record.preemptor_path or ""
        return path.rstrip("/").rpartition("/")[2] if path and path != "UNKNOWN" else ""


def _eviction(workload: Workload) -> Condition | None:
    evicted = workload.condition("Evicted")
    return evicted if evicted is not None and evicted.is_true else None


def preempted(workload: Workload) -> Preempted | None:
    """The Workload's preemption while its Evicted condition (reason Preempted) is True: being preempted (it
    still holds its quota) or preempted and requeued; None otherwise."""
    evicted = _eviction(workload)
    if evicted is None:
        return None
    eviction = parse_eviction(evicted.reason, evicted.message)
    if eviction.reason != "Preempted" or eviction.preemption is None:
        return None
    condition = workload.condition("Preempted")
    reason = condition.reason if condition is not None and condition.is_true else ""
    reason = reason or _WHY_BY_WORDS.get(eviction.preemption.why or "", "")
    return Preempted(evicted.since, eviction.preemption, reason)


def _candidates(snapshot: Snapshot, queue: str) -> Iterable[Workload]:
    if queue and snapshot.cluster_queue(queue) is not None:
        return snapshot.workloads_in_cluster_queue(queue)
    return (w for cq in snapshot.cluster_queues() for w in snapshot.workloads_in_cluster_queue(cq.name))


def preemptor(snapshot: Snapshot, record: Preempted) -> Workload | None:
    """The Workload that preempted: by its UID in the preemptor's ClusterQueue (or any), or by the name
    v0.20's configurable preemption gives ("namespace/name")."""
    said = record.record
    if said.preemptor:
        namespace, _, name = said.preemptor.partition("/")
        return snapshot.workload(namespace, name) if namespace and name else None
    uid = said.preemptor_uid or ""
    if not uid or uid == "UNKNOWN":
        return None
    return next((w for w in _candidates(snapshot, record.preemptor_queue) if w.meta.uid == uid), None)


def named(workload: Workload) -> Text:
    """A Workload as people call it: its job, its namespace (and the Workload's name when it differs)."""
    return named_workload(workload.namespace, job_name(workload), workload.name)


def queue_of(workload: Workload) -> str:
    """The ClusterQueue a Workload holds quota in (empty when it holds none)."""
    return workload.admission.cluster_queue if workload.admission is not None and workload.holds_quota else ""


def victims(snapshot: Snapshot, workload: Workload, cq: ClusterQueue) -> list[tuple[Workload, Preempted]]:
    """The Workloads Kueue is preempting for this one (waiting in `cq`): in `cq` or its cohort tree, still
    holding their quota, their Evicted condition naming this Workload's UID."""
    uid = workload.meta.uid
    if not uid:
        return []
    found: dict[tuple[str, str], tuple[Workload, Preempted]] = {}
    for queue in [cq, *_tree_mates(snapshot, cq)]:
        for other in snapshot.workloads_in_cluster_queue(queue.name):
            if not other.holds_quota or (other.namespace, other.name) in found:
                continue
            record = preempted(other)
            if record is not None and record.record.preemptor_uid == uid:
                found[(other.namespace, other.name)] = (other, record)
    return sorted(found.values(), key=lambda pair: (pair[0].namespace, pair[0].name))


def listing(texts: Sequence[Text | str]) -> tuple[Text | str, ...]:
    """At most MAX_NAMED names, and "and N more" after them (a tuple: rendered joined by "; ")."""
    shown: list[Text | str] = list(texts[:MAX_NAMED])
    if len(texts) > MAX_NAMED:
        shown.append(Text("fragment.and-more", {"count": len(texts) - MAX_NAMED}))
    return tuple(shown)


def standing(snapshot: Snapshot, cq_name: str, workload: Workload) -> int | None:
    """Where a Workload stands once requeued in its ClusterQueue: behind every pending Workload of higher
    priority, or of the same priority and older (Kueue's order; a preempted Workload keeps its creation time)."""
    if not cq_name or snapshot.cluster_queue(cq_name) is None:
        return None
    created = workload.meta.created
    ahead = 0
    for other in snapshot.pending_in(cq_name):
        if other.namespace == workload.namespace and other.name == workload.name:
            continue
        if other.priority != workload.priority:
            ahead += other.priority > workload.priority
            continue
        theirs = other.meta.created
        if created is None or (theirs is not None and (theirs, other.meta.uid) < (created, workload.meta.uid)):
            ahead += 1
    return ahead + 1


def clock(moment: datetime | None) -> str | None:
    """A moment as the headlines say it (UTC, to the minute)."""
    return moment.astimezone(UTC).strftime("%H:%M UTC") if moment is not None else None


# --- borrowers -----------------------------------------------------------------------------------------


def _root(snapshot: Snapshot, cohort: str) -> str:
    seen: set[str] = set()
    while cohort and cohort not in seen:
        seen.add(cohort)
        parent = snapshot.cohort(cohort)
        if parent is None or not parent.parent:
            return cohort
        cohort = parent.parent
    return cohort


def _tree_mates(snapshot: Snapshot, cq: ClusterQueue) -> list[ClusterQueue]:
    """The other ClusterQueues of `cq`'s cohort tree (none without a cohort)."""
    if not cq.cohort:
        return []
    root = _root(snapshot, cq.cohort)
    return [
        other
        for other in snapshot.cluster_queues()
        if other.name != cq.name and other.cohort and _root(snapshot, other.cohort) == root
    ]


def borrowers(snapshot: Snapshot, cq: ClusterQueue, flavor: str, resource: str) -> list[tuple[str, Decimal]]:
    """The other ClusterQueues of `cq`'s cohort tree that use more than their nominal quota of (flavor,
    resource) now: (name, how much they borrow), the largest first."""
    found = []
    for other in _tree_mates(snapshot, cq):
        borrowed = capacity(snapshot, other, flavor, resource).borrowed
        if borrowed > ZERO:
            found.append((other.name, borrowed))
    return sorted(found, key=lambda pair: (-pair[1], pair[0]))


RECLAIM = "reclaimWithinCohort"
BORROW = "borrowWithinCohort"
NEVER = "Never"


def reclaim_policy(cq: ClusterQueue) -> str:
    """The ClusterQueue's preemption.reclaimWithinCohort (Kueue's default: Never)."""
    return cq.preemption.get(RECLAIM) or NEVER
