"""Stable codes: verdicts and step outcomes. They are contracts (JSON, Slack, metrics); never rename one."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Verdict(StrEnum):
    """Why a job is (or is not) pending: one code per situation (../shared/scenarios/README.md)."""

    JOB_NOT_FOUND = "job-not-found"
    NOT_MANAGED = "not-managed"
    WORKLOAD_MISSING = "workload-missing"
    LOCAL_QUEUE_MISSING = "local-queue-missing"
    CLUSTER_QUEUE_MISSING = "cluster-queue-missing"
    QUEUE_STOPPED = "queue-stopped"
    QUEUE_INACTIVE = "queue-inactive"
    NAMESPACE_NOT_ALLOWED = "namespace-not-allowed"
    NO_MATCHING_FLAVOR = "no-matching-flavor"
    EXCEEDS_MAX_QUOTA = "exceeds-max-quota"
    WAITING_FOR_QUOTA = "waiting-for-quota"
    WAITING_FOR_PREEMPTION = "waiting-for-preemption"
    TOPOLOGY_PLACEMENT_FAILED = "topology-placement-failed"
    WAITING_FOR_PODS_READY = "waiting-for-pods-ready"
    NOT_YET_EVALUATED = "not-yet-evaluated"
    ADMISSION_GATED = "admission-gated"
    ADMISSION_CHECKS_PENDING = "admission-checks-pending"
    ADMISSION_CHECK_REJECTED = "admission-check-rejected"
    REQUEUE_BACKOFF = "requeue-backoff"
    DEACTIVATED = "deactivated"
    PODS_PENDING = "pods-pending"
    RUNNING = "running"
    FINISHED = "finished"
    # Not a situation of the scenarios table: the workload's request is invalid for Kueue
    # (requests above limits, LimitRange violations). Waiting never fixes it.
    INVALID_REQUEST = "invalid-request"
    # The job's prebuilt Workload no longer matches it: Kueue marked it Finished with reason OutOfSync
    # (jobframework/reconciler.go:1381-1387) and will never admit the job through it.
    WORKLOAD_OUT_OF_SYNC = "workload-out-of-sync"
    # Kueue is preempting it: evicted (reason Preempted) while it still holds its quota, its pods stopping
    # (jobframework/reconciler.go "handle eviction"); requeued once they have.
    PREEMPTED = "preempted"
    # The job, or its Workload, is there but the bot could not read it (beyond the bounds Kueue and the API
    # server keep, or text that is not Unicode): said with its name, never answered as if it did not exist.
    OBJECT_UNREADABLE = "object-unreadable"

    @property
    def never_fixes_itself(self) -> bool:
        """True when waiting will not help: someone must change the job or the cluster's configuration."""
        return _TRAITS[self].never

    @property
    def tells_at_once(self) -> bool:
        """True when the owner is told at once (no grace period): a configuration problem Kueue can report."""
        return _TRAITS[self].at_once

    @property
    def waits_for_admission(self) -> bool:
        """False once there is nothing to wait for from Kueue: admitted, finished, or no job at all."""
        return _TRAITS[self].waiting

    @property
    def in_queue(self) -> bool:
        """True when Kueue holds the Workload in its queue manager: it has a place, others wait behind it."""
        return _TRAITS[self].queued

    @property
    def never_fits_queue(self) -> bool:
        """True when no flavor of its ClusterQueue can ever hold the job as it is (beyond the most its quota can
        give, or no flavor matches it): waiting never admits it."""
        return _TRAITS[self].beyond_queue

    @property
    def never_admitted_as_is(self) -> bool:
        """True when the job as it is can never be admitted where it waits (its requests, its flavors, its
        topology, its namespace): a change to the job or to its queue must come first."""
        return _TRAITS[self].as_is_never

    @property
    def waits_for_capacity(self) -> bool:
        """True when it waits for room to free in its ClusterQueue (quota, preemption, pods ready, the next
        cycle): who holds that room and when it will likely run can be told."""
        return _TRAITS[self].capacity

    @property
    def change_could_admit(self) -> bool:
        """True when a change to the job or to its queue (fewer pods, smaller requests, another queue or flavor,
        more quota) could admit it: what would is worth telling."""
        return _TRAITS[self].changeable


@dataclass(frozen=True)
class _Traits:
    never: bool = False  # waiting never fixes it
    at_once: bool = False  # a never-fixes-itself Kueue reports with certainty: tell the owner at once
    waiting: bool = True  # waits for admission by Kueue
    queued: bool = True  # held in a ClusterQueue's queue (a position; behind it others wait)
    beyond_queue: bool = False  # no flavor of its queue can ever hold it as it is
    as_is_never: bool = False  # as it is, never admitted where it waits
    capacity: bool = False  # waits for room to free in its queue
    changeable: bool = False  # a change to the job or its queue could admit it


_NEVER_FITS = _Traits(never=True, at_once=True, beyond_queue=True, as_is_never=True, changeable=True)
_WAITS_FOR_ROOM = _Traits(capacity=True, changeable=True)
_OFF_QUEUE = _Traits(queued=False)
_TRAITS: dict[Verdict, _Traits] = {
    Verdict.JOB_NOT_FOUND: _Traits(waiting=False, queued=False),
    Verdict.NOT_MANAGED: _Traits(never=True, queued=False),
    Verdict.WORKLOAD_MISSING: _Traits(never=True, queued=False),
    Verdict.LOCAL_QUEUE_MISSING: _Traits(never=True, at_once=True, queued=False),
    Verdict.CLUSTER_QUEUE_MISSING: _Traits(never=True, at_once=True, queued=False),
    Verdict.QUEUE_STOPPED: _Traits(changeable=True),
    Verdict.QUEUE_INACTIVE: _Traits(
        never=True, at_once=True, queued=False, changeable=True
    ),  # queue/manager.go heads skips it
    Verdict.NAMESPACE_NOT_ALLOWED: _Traits(never=True, at_once=True, as_is_never=True, changeable=True),
    Verdict.NO_MATCHING_FLAVOR: _NEVER_FITS,
    Verdict.EXCEEDS_MAX_QUOTA: _NEVER_FITS,
    Verdict.WAITING_FOR_QUOTA: _WAITS_FOR_ROOM,
    Verdict.WAITING_FOR_PREEMPTION: _WAITS_FOR_ROOM,
    Verdict.TOPOLOGY_PLACEMENT_FAILED: _Traits(never=True, as_is_never=True),
    Verdict.WAITING_FOR_PODS_READY: _Traits(capacity=True),
    Verdict.NOT_YET_EVALUATED: _Traits(capacity=True),
    Verdict.ADMISSION_GATED: _Traits(),
    Verdict.ADMISSION_CHECKS_PENDING: _OFF_QUEUE,
    Verdict.ADMISSION_CHECK_REJECTED: _Traits(never=True, at_once=True, queued=False),
    Verdict.REQUEUE_BACKOFF: _OFF_QUEUE,
    Verdict.DEACTIVATED: _Traits(never=True, queued=False),
    Verdict.PODS_PENDING: _Traits(waiting=False, queued=False),
    Verdict.RUNNING: _Traits(waiting=False, queued=False),
    Verdict.FINISHED: _Traits(waiting=False, queued=False),
    Verdict.INVALID_REQUEST: _Traits(never=True, at_once=True, as_is_never=True),
    Verdict.WORKLOAD_OUT_OF_SYNC: _Traits(never=True, at_once=True, queued=False),
    Verdict.PREEMPTED: _OFF_QUEUE,
    Verdict.OBJECT_UNREADABLE: _Traits(queued=False),
}


class Outcome(StrEnum):
    """How one step of the admission path went."""

    PASS = "pass"
    FAIL = "fail"
    INFO = "info"
    SKIPPED = "skipped"
