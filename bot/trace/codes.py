"""Stable codes: verdicts and step outcomes. They are contracts (JSON, Slack, metrics); never rename one."""

from __future__ import annotations

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

    @property
    def never_fixes_itself(self) -> bool:
        """True when waiting will not help: someone must change the job or the cluster's configuration."""
        return self in _NEVER


_NEVER = frozenset(
    {
        Verdict.NOT_MANAGED,
        Verdict.WORKLOAD_MISSING,
        Verdict.LOCAL_QUEUE_MISSING,
        Verdict.CLUSTER_QUEUE_MISSING,
        Verdict.QUEUE_INACTIVE,
        Verdict.NAMESPACE_NOT_ALLOWED,
        Verdict.NO_MATCHING_FLAVOR,
        Verdict.EXCEEDS_MAX_QUOTA,
        Verdict.TOPOLOGY_PLACEMENT_FAILED,
        Verdict.ADMISSION_CHECK_REJECTED,
        Verdict.DEACTIVATED,
        Verdict.INVALID_REQUEST,
    }
)


class Outcome(StrEnum):
    """How one step of the admission path went."""

    PASS = "pass"
    FAIL = "fail"
    INFO = "info"
    SKIPPED = "skipped"
