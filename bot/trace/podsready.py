"""waitForPodsReady with blockAdmission: the workloads whose pods hold every admission, named.

With `waitForPodsReady.blockAdmission` Kueue admits nothing, in any ClusterQueue, while a workload holding
quota has pods that are not ready: the scheduler waits on `PodsReadyForAllAdmittedWorkloads`, which looks at
every ClusterQueue's `WorkloadsNotReady` (upstream pkg/cache/scheduler/cache.go:243-260, clusterqueue.go:497-499;
v0.14 pkg/cache/cache.go:190-200, clusterqueue.go:438-441) and records on the Workload it holds back
"waiting for all admitted workloads to be in PodsReady condition" (scheduler.go:586-597; v0.14 :318-325).
A Workload is in that set from the moment it holds quota (the cache tracks quota reservations, admitted or
not yet) until its PodsReady condition is True. The block lifts when they are ready, or when Kueue evicts
them at the waitForPodsReady timeout.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.trace import rootcause, scheduling
from bot.trace.codes import Outcome
from bot.trace.explanation import WORKLOAD_ELSEWHERE, Text, Value, named_workload
from bot.trace.model import Job, Workload, job_name
from bot.trace.snapshot import Snapshot
from bot.trace.walk import Walk, seconds_between

MAX_NAMED = 3


@dataclass(frozen=True)
class Blocker:
    """A workload holding quota whose pods are not ready, and what keeps them from being ready (if known)."""

    workload: Workload
    cluster_queue: str
    since: datetime | None
    trouble: Text | None = None

    @property
    def label(self) -> Text:
        return named_workload(self.workload.namespace, job_name(self.workload), self.workload.name)

    def headline_label(self, own_namespace: str) -> Text:
        return self.label if self.workload.namespace == own_namespace else Text(WORKLOAD_ELSEWHERE, {})


def _reserved_since(workload: Workload) -> datetime | None:
    reserved = workload.condition("QuotaReserved")
    return reserved.since if reserved is not None and reserved.is_true else None


def holding_not_ready(snapshot: Snapshot) -> list[Workload]:
    """Every Workload holding quota (QuotaReserved=True), not finished, whose PodsReady is not True, across
    all ClusterQueues (snapshot.workloads_not_ready), the longest-holding first."""
    return sorted(snapshot.workloads_not_ready(), key=_longest_holding_first)


def blocked(workload: Workload) -> bool:
    """Whether Kueue's record says blockAdmission holds this Workload back (the reason, or its message)."""
    condition = workload.condition("QuotaReserved")
    if condition is None or not condition.is_false:
        return False
    return condition.reason == "WaitingForPodsReady" or "PodsReady condition" in condition.message


def _longest_holding_first(workload: Workload) -> tuple[bool, float, str, str]:
    since = _reserved_since(workload)
    return (since is None, since.timestamp() if since else 0.0, workload.namespace, workload.name)


def _job_of(walk: Walk, workload: Workload) -> Job | None:
    owner = next((o for o in workload.meta.owners if o.controller), None)
    if owner is None:
        return None
    return next((j for j in walk.snapshot.jobs_named(workload.namespace, owner.name) if j.meta.uid == owner.uid), None)


def _trouble(walk: Walk, workload: Workload) -> Text | None:
    """Why the blocker's pods are not ready, when its job and pods were read."""
    job = _job_of(walk, workload)
    if job is None:
        return None
    pods = rootcause.not_ready(scheduling.pods_of(walk, job, workload))
    found = rootcause.troubles(walk.snapshot, job, pods, gone=False, created=not pods)
    return found[0].fragment if found else None


@dataclass(frozen=True)
class Block:
    blockers: tuple[Blocker, ...]  # the first MAX_NAMED
    count: int


def blockers(walk: Walk, workload: Workload) -> Block:
    """The workloads holding admission back, named in steps (position: what it waits behind)."""
    holding = [
        w for w in holding_not_ready(walk.snapshot) if (w.namespace, w.name) != (workload.namespace, workload.name)
    ]
    named = tuple(
        Blocker(
            w,
            w.admission.cluster_queue if w.admission else "",
            _reserved_since(w),
            _trouble(walk, w),
        )
        for w in holding[:MAX_NAMED]
    )
    for blocker in named:
        params: dict[str, Value | None] = {
            "blocker": blocker.label,
            "cluster_queue": blocker.cluster_queue,
            "since_seconds": seconds_between(blocker.since, walk.now),
            "trouble": blocker.trouble,
        }
        data = {"blocker": f"{blocker.workload.namespace}/{job_name(blocker.workload)}"}
        walk.step("position", Outcome.FAIL, "position.pods-ready-blocker", params, **data)
    if len(holding) > MAX_NAMED:
        walk.step("position", Outcome.INFO, "position.pods-ready-more", {"count": len(holding) - MAX_NAMED})
    if not holding:
        walk.step("position", Outcome.INFO, "position.pods-ready-none")
    return Block(named, len(holding))


def headline(block: Block | None, own_namespace: str) -> dict[str, Value | None]:
    if block is None or not block.blockers:
        return {}
    first = block.blockers[0]
    params: dict[str, Value | None] = {
        "blocker": first.headline_label(own_namespace),
        "blocker_queue": first.cluster_queue,
        "count": block.count,
    }
    return params


def advise(walk: Walk, block: Block | None) -> None:
    """Wait for the blockers' pods (or their eviction at the timeout); with a blocker whose pods cannot become
    ready as they are, who can unblock it."""
    if block is None or not block.blockers:
        walk.act("wait")
        return
    first = block.blockers[0]
    walk.act("wait-pods-ready", {"blocker": first.label, "cluster_queue": first.cluster_queue})
    for blocker in block.blockers:
        if blocker.trouble is not None:
            walk.act("unblock-pods-ready", {"blocker": blocker.label, "trouble": blocker.trouble})
