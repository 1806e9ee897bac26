"""What a Workload's last trace depended on, so that the watcher traces again only what changed: its own
object and its job's, its LocalQueue's (by value), version stamps of the quota state of its cohort tree, its
place in its ClusterQueue's order, who is to be told; and when time alone makes it due (bot.notify.walk)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace as dataclass_replace
from datetime import datetime, timedelta

from bot.notify.policy import JobFacts
from bot.pacing import Pacer
from bot.trace import messages
from bot.trace.codes import Verdict
from bot.trace.model import ClusterQueue, LocalQueue, Workload
from bot.trace.snapshot import Snapshot

# Verdicts that change with time alone (a requeue backoff ends; the engine's only verdict that reads the clock,
# the others use it for ages in their words): traced again every pass.
_TIME_BOUND = frozenset({Verdict.REQUEUE_BACKOFF})
RETRACE_AFTER = timedelta(minutes=30)  # and every Workload at least this often, whatever its inputs


def same(one: Sequence[object], other: Sequence[object]) -> bool:
    """The same objects, one by one (identity: the cache replaces an object that changes)."""
    return len(one) == len(other) and all(
        a is b or (a == b and type(a) in VALUES) for a, b in zip(one, other, strict=True)
    )


VALUES = (str, int, tuple, type(None))


@dataclass(slots=True)
class Seen:
    """A Workload's last trace: the inputs it was traced from, the facts the policy reads of it (JobFacts),
    who was to be told, when, and its place in its ClusterQueue's order then."""

    inputs: tuple[object, ...]
    facts: JobFacts
    targets: tuple[str, ...]
    at: datetime
    place: int | None
    exact: bool = True  # the JobFacts is its trace's (False: moved since, its headline's count ahead is old)

    def holds(self, inputs: tuple[object, ...], now: datetime) -> bool:
        return self.facts.verdict not in _TIME_BOUND and now - self.at < RETRACE_AFTER and same(self.inputs, inputs)

    def renew_at(self) -> datetime:
        """When this trace is to be renewed whatever its inputs (at once for a verdict that time alone ends)."""
        return self.at if self.facts.verdict in _TIME_BOUND else self.at + RETRACE_AFTER

    def moved(self, place: int | None) -> Seen | None:
        """Only its place in the order changed (others were added, removed or moved ahead of it): the same
        answer at the new position, when the trace's position was the order's (else None: trace again)."""
        if place is None or self.place is None or self.facts.position != self.place + 1:
            return None
        facts = dataclass_replace(self.facts, position=place + 1)
        return Seen(self.inputs, facts, self.targets, self.at, place, exact=False)


def cluster_queue_of(workload: Workload, local_queue: LocalQueue | None) -> str:
    if workload.admission is not None and workload.admission.cluster_queue:
        return workload.admission.cluster_queue
    return local_queue.cluster_queue if local_queue is not None else ""


def lq_value(local_queue: LocalQueue) -> tuple[object, ...]:
    """What the trace reads of a LocalQueue (compared by value: its counters change all the time)."""
    return (local_queue.cluster_queue, local_queue.stop_policy, local_queue.conditions)


def cq_value(cq: ClusterQueue) -> tuple[object, ...]:
    """What the trace reads of a ClusterQueue (compared by value)."""
    return (
        cq.meta.name, cq.resource_groups, cq.cohort, cq.namespace_selector, cq.stop_policy, cq.queueing_strategy,
        dict(cq.preemption), cq.admission_checks, cq.conditions, cq.reservation, cq.usage, cq.fair_sharing_admission,
    )  # fmt: skip


class QuotaStamps:
    """Version stamps of the quota state, one per cohort tree, kept from pass to pass."""

    def __init__(self) -> None:
        self._stamps: dict[str, tuple[tuple[object, ...], object]] = {}
        # Per ClusterQueue: its Workloads (the sequence the snapshot handed out) and the quota they hold, kept
        # while the sequence is the same object: a pass with nothing changed compares one object per queue (it
        # compared every Workload's admission by value, in one go: work that grew with the cluster).
        self._held: dict[str, tuple[Sequence[Workload], tuple[object, ...]]] = {}

    async def tokens(self, snapshot: Snapshot, pause: Pacer) -> dict[str, object]:
        """A token per ClusterQueue that changes when the quota state of its cohort tree does: a version
        stamp. The state: what the trace reads of each ClusterQueue and Cohort of the tree (quotas, usage,
        policies, conditions; not their resourceVersion nor counters such as pendingWorkloads, which change
        all the time), their flavors and admission checks, and the quota each Workload holds in it (its
        admission, whatever else of it changes). Yields to the event loop between ClusterQueues."""
        cohorts = {cohort.meta.name: cohort for cohort in snapshot.cohorts()}
        held: dict[str, tuple[Sequence[Workload], tuple[object, ...]]] = {}
        trees: dict[str, list[object]] = defaultdict(list)
        root_of: dict[str, str] = {}
        for cq in snapshot.cluster_queues():
            await pause.step()
            chain: list[str] = []
            parent = cq.cohort
            while parent and parent not in chain:
                chain.append(parent)
                parent = cohorts[parent].parent if parent in cohorts else ""
            root = f"cohort/{chain[-1]}" if chain else f"cq/{cq.meta.name}"
            root_of[cq.meta.name] = root
            tree = trees[root]
            tree.append(cq_value(cq))
            tree.extend((c, cohorts[c].parent, cohorts[c].resource_groups) for c in chain if c in cohorts)
            tree.extend(snapshot.flavor(name) for name in cq.flavor_names())
            tree.extend(snapshot.admission_check(name) for name, _ in cq.admission_checks)
            tree.append(self._holding(cq.meta.name, snapshot.workloads_in_cluster_queue(cq.meta.name), held))
        self._held = held
        stamps: dict[str, tuple[tuple[object, ...], object]] = {}
        for root, objects in trees.items():
            await pause.step()
            last = self._stamps.get(root)
            stamps[root] = (tuple(objects), last[1] if last is not None and same(last[0], objects) else object())
        self._stamps = stamps
        return {cq: stamps[root][1] for cq, root in root_of.items()}

    def _holding(
        self, name: str, workloads: Sequence[Workload], held: dict[str, tuple[Sequence[Workload], tuple[object, ...]]]
    ) -> tuple[object, ...]:
        """The quota each Workload of the ClusterQueue holds: (namespace, name, admission) of those admitted;
        last pass's tuple while its Workloads are the same sequence (then `same` sees the same object)."""
        known = self._held.get(name)
        if known is not None and known[0] is workloads:
            holding = known[1]
        else:
            holding = tuple((w.namespace, w.name, w.admission) for w in workloads if w.admission is not None)
        held[name] = (workloads, holding)
        return holding


def might_be_due(workload: Workload, now: datetime, after: timedelta) -> bool:
    """A cheap pre-filter before explaining: waiting long enough, or Kueue already says it can never fit."""
    if workload.finished or workload.admitted:
        return False
    due = due_at(workload, after)
    if due is not None and now >= due:
        return True
    condition = workload.condition("QuotaReserved")
    if condition is not None and condition.is_false:
        return messages.classify_quota_reserved(condition.reason, condition.message).verdict.tells_at_once
    return not workload.active


def due_at(workload: Workload, after: timedelta) -> datetime | None:
    """When `might_be_due` turns true with time alone (None: time alone never makes it)."""
    if workload.finished or workload.admitted:
        return None
    since = workload.meta.created  # or since its last eviction
    evicted = workload.condition("Evicted")
    if evicted is not None and evicted.is_true and evicted.since:
        since = evicted.since
    return since + after if since is not None else None


def still_valid(last: Seen | None, inputs: tuple[object, ...], place: int | None, now: datetime) -> Seen | None:
    """The last trace, when it still holds for these inputs (moved to the new place when only that changed)."""
    if last is None or not last.holds(inputs, now):
        return None
    return last if last.place == place else last.moved(place)  # moved: None when it must be traced again
