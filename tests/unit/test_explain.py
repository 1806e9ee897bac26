"""The verdict table: one small hand-built cluster per verdict of ../shared/scenarios/README.md, each with
Kueue's own record (granular reasons of newer Kueue, legacy Pending/Inadmissible/Waiting ones) and without any
condition (the engine's own checks); then queue positions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from bot.trace.codes import Outcome, Verdict
from bot.trace.explanation import Explanation
from bot.trace.serialize import explanation_json, text

from tests.builders import (
    KUEUE_V1BETA1,
    NS,
    Raw,
    action_codes,
    admission_check,
    ago,
    assignment,
    check_state,
    cluster,
    cluster_queue,
    condition,
    container,
    cpu_group,
    cpu_spec,
    event,
    explain_objects,
    job,
    local_queue,
    namespace,
    pending,
    pending_summary,
    pod,
    pod_set,
    pod_spec,
    priority_class,
    reserved,
    resource_flavor,
    step_codes,
    taint,
    workload,
)


def quota_reserved_false(reason: str, message: str) -> Raw:
    return condition("QuotaReserved", False, reason, message)


# Newer Kueue (UnadmittedWorkloadsObservability on) writes Admitted=False NoReservation next to the granular
# reason; legacy Kueue writes no Admitted condition on a never-admitted Workload (FACTS §3.1).
NO_RESERVATION = condition("Admitted", False, "NoReservation", "The workload has no reservation")


def granular(reason: str, message: str) -> list[Raw]:
    return [quota_reserved_false(reason, message), NO_RESERVATION]


def legacy(reason: str, message: str) -> list[Raw]:
    return [quota_reserved_false(reason, message)]


@dataclass(frozen=True)
class Case:
    id: str
    objects: list[Raw]
    verdict: Verdict
    record: str = "none"  # granular | legacy | none (no QuotaReserved condition: the engine's own checks)
    steps: tuple[str, ...] = ()  # step codes that must appear, in this order
    actions: tuple[str, ...] = ()  # action codes that must appear
    mentions: tuple[str, ...] = ()  # what the headline must say
    name: str = "train"
    kind: str | None = "Job"
    extra: dict[str, object] = field(default_factory=dict)

    def run(self) -> Explanation:
        return explain_objects(self.objects, self.name, kind=self.kind)


# --- the clusters -----------------------------------------------------------------------------------

NO_LQ = cluster()[:3]  # namespace, flavor, ClusterQueue; no LocalQueue
NO_CQ = [namespace(), resource_flavor(), local_queue(cluster_queue="gone")]
STOPPED = [condition("Active", False, "Stopped", "Can't admit new workloads: is stopped.")]
FLAVOR_NOT_FOUND = [
    condition(
        "Active", False, "FlavorNotFound", "Can't admit new workloads: references missing ResourceFlavor(s): default."
    )
]
LQ_STOPPED = [namespace(), resource_flavor(), cluster_queue(), local_queue(stop_policy="Hold")]
NO_FLAVOR = [namespace(), cluster_queue(conditions=FLAVOR_NOT_FOUND), local_queue()]
OTHER_TEAM_ONLY = [
    namespace(labels={"team": "a"}),
    resource_flavor(),
    cluster_queue(selector={"matchLabels": {"team": "b"}}),
    local_queue(),
]
TAINTED = [namespace(), resource_flavor(taints=[taint("spot", "true")]), cluster_queue(), local_queue()]
ZONE_A = [namespace(), resource_flavor(labels={"zone": "a"}), cluster_queue(), local_queue()]
BUSY = cluster(reservation={"default": {"cpu": 8}})  # 10 cpu, 8 in use

MSG_TAINT = "couldn't assign flavors to pod set main: untolerated taint {spot true NoSchedule <nil>} in flavor default"
MSG_GPU = "couldn't assign flavors to pod set main: resource nvidia.com/gpu unavailable in ClusterQueue"
MSG_AFFINITY = "couldn't assign flavors to pod set main: flavor default doesn't match node affinity"
MSG_MAX = (
    "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, previously considered "
    "podsets requests (0) + current podset request (12) > maximum capacity (10)"
)
MSG_MAX_V014 = (
    "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, request > maximum "
    "capacity (12 > 10)"
)
MSG_UNUSED = (
    "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed"
)
MSG_PREEMPTING = MSG_UNUSED + ". Pending the preemption of 1 workload(s)"
MSG_TOPOLOGY = "couldn't assign flavors to pod set main: topology \"default\" doesn't allow to fit any of 1 pod(s)"
MSG_PODS_READY = "waiting for all admitted workloads to be in PodsReady condition"
MSG_PREEMPTED = (
    "Preempted to accommodate a workload (UID: 9f542104, JobUID: a20d0a6a) due to prioritization in the "
    "ClusterQueue; preemptor path: /cq; preemptee path: /cq"
)
GATED = {"kueue.x-k8s.io/admission-gated-by": "example.com/budget"}
GPU_SPEC = cpu_spec("1", extra={"nvidia.com/gpu": "1"})
ZONE_B_SPEC = pod_spec(container(requests={"cpu": "1"}), node_selector={"zone": "b"})


def checks_status(state: str, message: str, *, admitted_condition: bool) -> Raw:
    status = reserved("cq", assignment("main", 1, default={"cpu": "1"}), admitted=False)
    if admitted_condition:
        status["conditions"].append(
            condition("Admitted", False, "UnsatisfiedAdmissionChecks", "The workload has not all checks ready")
        )
    status["admissionChecks"] = [check_state("prov", state, message)]
    return status


def delayed_topology() -> Raw:
    status = reserved("cq", assignment("main", 1, default={"cpu": "1"}), admitted=False)
    status["admission"]["podSetAssignments"][0]["delayedTopologyRequest"] = "Pending"
    return status


def backoff(reason: str, message: str, *, until: float) -> dict[str, Any]:
    """Workload keywords of an evicted Workload waiting for its requeue time (`until` minutes from NOW)."""
    return {
        "status": {"requeueState": {"count": 3, "requeueAt": ago(-until)}},
        "conditions": [
            condition("Evicted", True, reason, message, ago(2)),
            condition("Requeued", until < 0, "BackoffFinished" if until < 0 else reason, message, ago(2)),
        ],
    }


TRAIN_JOB = job("train", suspend=False, parallelism=2)
ADMITTED = workload(of=TRAIN_JOB, status=reserved("cq", assignment("main", 2, default={"cpu": "2"})))
RUNNING_POD = pod("train-a", owned_by=TRAIN_JOB, phase="Running", node="node-1")
WAITING_POD = pod(
    "train-b",
    owned_by=TRAIN_JOB,
    conditions=[condition("PodScheduled", False, "Unschedulable", "0/4 nodes are available: 4 Insufficient cpu.")],
)
GATED_POD = pod(
    "train-c", owned_by=TRAIN_JOB, spec=pod_spec(container(requests={"cpu": "1"}), gates=["example.com/wait"])
)
SCHEDULING_FAILED = event(
    WAITING_POD, "FailedScheduling", "0/4 nodes are available: 4 Insufficient cpu.", type="Warning"
)
FINISHED = [
    *reserved("cq", assignment("main", 1, default={"cpu": "1"}))["conditions"],
    condition("Finished", True, "Succeeded", "Job finished successfully"),
]
DEACTIVATED_BY_LIMIT = "The workload is deactivated due to exceeding the maximum number of re-queuing retries"
REJECTED_MESSAGE = 'The workload is deactivated due to AdmissionCheck in Rejected state: "prov" (capacity revoked)'

V = Verdict
CASES = [
    # --- no job, no Workload ---
    Case(
        "object-unreadable: the job's Workload is beyond Kueue's bounds",
        [*cluster(), job("train"), workload(of=job("train"), pod_sets=[pod_set(f"p{i}") for i in range(19)])],
        V.OBJECT_UNREADABLE,
        steps=("job.found", "object.unreadable"),
        actions=("report-unreadable",),
        mentions=("at most 18",),
    ),
    Case(
        "object-unreadable: the job itself",
        [*cluster(), {**job("train"), "metadata": {**job("train")["metadata"], "annotations": {"a": "x" * 300_000}}}],
        V.OBJECT_UNREADABLE,
        steps=("object.unreadable",),
        mentions=("annotations of",),
    ),
    Case(
        "job-not-found, did you mean",
        [*cluster(), job("train-bert")],
        V.JOB_NOT_FOUND,
        name="train-bret",
        steps=("job.not-found",),
        actions=("did-you-mean", "check-name"),
        mentions=("train-bret", NS),
    ),
    Case(
        "job-not-found, in another namespace",
        [*cluster(), namespace("team-b"), job("train", "team-b")],
        V.JOB_NOT_FOUND,
        actions=("other-namespace",),
    ),
    Case(
        "not-managed",
        [*cluster(), job("train", queue=None, suspend=False)],
        V.NOT_MANAGED,
        steps=("job.found", "workload.not-managed", "scheduling.not-held-by-kueue"),
        actions=("add-queue-label",),
        mentions=("kueue.x-k8s.io/queue-name",),
    ),
    Case(
        "workload-missing",
        [*cluster(), job("train")],
        V.WORKLOAD_MISSING,
        steps=("job.found", "workload.missing"),
        mentions=("user-queue",),
    ),
    Case(
        "workload-missing, and its LocalQueue too",
        [*cluster(), job("train", queue="user-quue")],
        V.WORKLOAD_MISSING,
        steps=("workload.missing", "local-queue.missing"),
        actions=("fix-queue-name",),
    ),
    # --- the queue chain ---
    Case("local-queue-missing", [*NO_LQ, *pending()], V.LOCAL_QUEUE_MISSING, steps=("local-queue.missing",)),
    Case(
        "local-queue-missing",
        [*NO_LQ, *pending(conditions=granular("Misconfigured", "LocalQueue user-queue doesn't exist"))],
        V.LOCAL_QUEUE_MISSING,
        "granular",
        steps=("record.local-queue-missing", "local-queue.missing"),
        mentions=("user-queue",),
    ),
    Case(
        "local-queue-missing",
        [*NO_LQ, *pending(conditions=legacy("Inadmissible", "LocalQueue user-queue doesn't exist"))],
        V.LOCAL_QUEUE_MISSING,
        "legacy",
        steps=("record.local-queue-missing", "local-queue.missing"),
    ),
    Case(
        "cluster-queue-missing",
        [*NO_CQ, *pending()],
        V.CLUSTER_QUEUE_MISSING,
        steps=("local-queue.ok", "cluster-queue.missing"),
        actions=("ask-admin-cluster-queue",),
        mentions=("gone",),
    ),
    Case(
        "cluster-queue-missing",
        [*NO_CQ, *pending(conditions=granular("Misconfigured", "ClusterQueue gone doesn't exist"))],
        V.CLUSTER_QUEUE_MISSING,
        "granular",
        steps=("record.cluster-queue-missing", "cluster-queue.missing"),
    ),
    Case(
        "cluster-queue-missing",
        [*NO_CQ, *pending(conditions=legacy("Inadmissible", "ClusterQueue gone doesn't exist"))],
        V.CLUSTER_QUEUE_MISSING,
        "legacy",
    ),
    Case(
        "queue-stopped, ClusterQueue Hold",
        [*cluster(stop_policy="Hold"), *pending()],
        V.QUEUE_STOPPED,
        steps=("cluster-queue.stopped",),
        actions=("ask-admin-resume",),
        mentions=("cq", "Hold"),
    ),
    Case(
        "queue-stopped, ClusterQueue HoldAndDrain",
        [*cluster(stop_policy="HoldAndDrain"), *pending()],
        V.QUEUE_STOPPED,
        mentions=("HoldAndDrain",),
    ),
    Case(
        "queue-stopped, LocalQueue Hold",
        [*LQ_STOPPED, *pending()],
        V.QUEUE_STOPPED,
        steps=("local-queue.stopped",),
        mentions=("LocalQueue user-queue",),
    ),
    Case(
        "queue-stopped, ClusterQueue",
        [
            *cluster(stop_policy="Hold", conditions=STOPPED),
            *pending(conditions=granular("Suspended", "ClusterQueue cq is inactive")),
        ],
        V.QUEUE_STOPPED,
        "granular",
        steps=("record.cluster-queue-inactive", "cluster-queue.stopped"),
    ),
    Case(
        "queue-stopped, ClusterQueue",
        [
            *cluster(stop_policy="Hold", conditions=STOPPED),
            *pending(conditions=legacy("Inadmissible", "ClusterQueue cq is inactive")),
        ],
        V.QUEUE_STOPPED,
        "legacy",
    ),
    Case(
        "queue-stopped, LocalQueue",
        [*LQ_STOPPED, *pending(conditions=granular("Suspended", "LocalQueue user-queue is inactive"))],
        V.QUEUE_STOPPED,
        "granular",
        steps=("record.local-queue-inactive", "local-queue.stopped"),
    ),
    Case(
        "queue-stopped, LocalQueue",
        [*LQ_STOPPED, *pending(conditions=legacy("Inadmissible", "LocalQueue user-queue is inactive"))],
        V.QUEUE_STOPPED,
        "legacy",
    ),
    Case(
        "queue-inactive, missing flavor",
        [namespace(), cluster_queue(), local_queue(), *pending()],
        V.QUEUE_INACTIVE,
        steps=("cluster-queue.inactive",),
        actions=("ask-admin-inactive",),
    ),
    Case(
        "queue-inactive, missing admission check",
        [*cluster(checks=["prov"]), *pending()],
        V.QUEUE_INACTIVE,
        steps=("cluster-queue.inactive",),
    ),
    Case(
        "queue-inactive, missing flavor",
        [*NO_FLAVOR, *pending(conditions=granular("Suspended", "ClusterQueue cq is inactive"))],
        V.QUEUE_INACTIVE,
        "granular",
        steps=("record.cluster-queue-inactive", "cluster-queue.inactive"),
        mentions=("default",),
    ),
    Case(
        "queue-inactive, missing flavor",
        [*NO_FLAVOR, *pending(conditions=legacy("Inadmissible", "ClusterQueue cq is inactive"))],
        V.QUEUE_INACTIVE,
        "legacy",
    ),
    Case(
        "namespace-not-allowed",
        [*OTHER_TEAM_ONLY, *pending()],
        V.NAMESPACE_NOT_ALLOWED,
        steps=("cluster-queue.ok", "cluster-queue.namespace-not-selected"),
        actions=("ask-admin-namespace",),
    ),
    Case(
        "namespace-not-allowed",
        [
            *OTHER_TEAM_ONLY,
            *pending(conditions=granular("Misconfigured", "workload namespace doesn't match ClusterQueue selector")),
        ],
        V.NAMESPACE_NOT_ALLOWED,
        "granular",
        steps=("record.namespace-not-selected",),
    ),
    Case(
        "namespace-not-allowed (≤v0.18 message)",
        [
            *OTHER_TEAM_ONLY,
            *pending(conditions=legacy("Pending", "Workload namespace doesn't match ClusterQueue selector")),
        ],
        V.NAMESPACE_NOT_ALLOWED,
        "legacy",
    ),
    # --- flavors ---
    Case(
        "no-matching-flavor, taint",
        [*TAINTED, *pending()],
        V.NO_MATCHING_FLAVOR,
        steps=("flavors.taint",),
        actions=("add-toleration",),
        mentions=("spot=true:NoSchedule",),
    ),
    Case(
        "no-matching-flavor, taint",
        [*TAINTED, *pending(conditions=granular("NoMatchingFlavor", MSG_TAINT))],
        V.NO_MATCHING_FLAVOR,
        "granular",
        steps=("record.untolerated-taint", "flavors.taint"),
    ),
    Case(
        "no-matching-flavor, taint",
        [*TAINTED, *pending(conditions=legacy("Pending", MSG_TAINT))],
        V.NO_MATCHING_FLAVOR,
        "legacy",
        mentions=("spot=true:NoSchedule",),
    ),
    Case(
        "no-matching-flavor, node labels",
        [*ZONE_A, *pending(spec=ZONE_B_SPEC)],
        V.NO_MATCHING_FLAVOR,
        steps=("flavors.node-labels",),
        actions=("fix-node-selector",),
    ),
    Case(
        "no-matching-flavor, node affinity",
        [*ZONE_A, *pending(spec=ZONE_B_SPEC, conditions=granular("NoMatchingFlavor", MSG_AFFINITY))],
        V.NO_MATCHING_FLAVOR,
        "granular",
        steps=("record.node-affinity-mismatch",),
    ),
    Case(
        "no-matching-flavor, resource not covered",
        [*cluster(), *pending(spec=GPU_SPEC)],
        V.NO_MATCHING_FLAVOR,
        steps=("flavors.resource-not-covered",),
        actions=("ask-admin-cover",),
        mentions=("nvidia.com/gpu",),
    ),
    Case(
        "no-matching-flavor, resource not covered",
        [*cluster(), *pending(spec=GPU_SPEC, conditions=granular("NoMatchingFlavor", MSG_GPU))],
        V.NO_MATCHING_FLAVOR,
        "granular",
        steps=("record.resource-not-covered",),
    ),
    Case(
        "no-matching-flavor, resource not covered",
        [*cluster(), *pending(spec=GPU_SPEC, conditions=legacy("Pending", MSG_GPU))],
        V.NO_MATCHING_FLAVOR,
        "legacy",
    ),
    # --- quota ---
    Case(
        "exceeds-max-quota",
        [*cluster(), *pending(cpu="12")],
        V.EXCEEDS_MAX_QUOTA,
        steps=("quota.never-fits",),
        actions=("ask-admin-quota",),
        mentions=("12", "10", "cpu", "cq"),
    ),
    Case(
        "exceeds-max-quota",
        [*cluster(), *pending(cpu="12", conditions=granular("ExceedsMaxQuota", MSG_MAX))],
        V.EXCEEDS_MAX_QUOTA,
        "granular",
        steps=("record.exceeds-max-capacity", "quota.never-fits"),
    ),
    Case(
        "exceeds-max-quota",
        [*cluster(), *pending(cpu="12", conditions=legacy("Pending", MSG_MAX))],
        V.EXCEEDS_MAX_QUOTA,
        "legacy",
    ),
    Case(
        "exceeds-max-quota (v0.9.4-v0.14 message)",
        [*cluster(), *pending(cpu="12", conditions=legacy("Pending", MSG_MAX_V014))],
        V.EXCEEDS_MAX_QUOTA,
        "legacy",
    ),
    Case(
        "exceeds-max-quota, a pod set too many",
        [*cluster(), *pending(cpu="4", count=3)],
        V.EXCEEDS_MAX_QUOTA,
        actions=("shrink-request",),
    ),
    Case(
        "waiting-for-quota",
        [*BUSY, *pending(cpu="4")],
        V.WAITING_FOR_QUOTA,
        steps=("quota.waits", "position.in-queue"),
        actions=("wait",),
        mentions=("2 more cpu",),
    ),
    Case(
        "waiting-for-quota",
        [*BUSY, *pending(cpu="4", conditions=granular("WaitingForQuota", MSG_UNUSED))],
        V.WAITING_FOR_QUOTA,
        "granular",
        steps=("record.insufficient-unused-quota", "quota.waits"),
    ),
    Case(
        "waiting-for-quota",
        [*BUSY, *pending(cpu="4", conditions=legacy("Pending", MSG_UNUSED))],
        V.WAITING_FOR_QUOTA,
        "legacy",
        mentions=("2 more cpu",),
    ),
    Case(
        "waiting-for-preemption",
        [*BUSY, *pending(cpu="4", conditions=granular("WaitingForPreemptedWorkloads", MSG_PREEMPTING))],
        V.WAITING_FOR_PREEMPTION,
        "granular",
        steps=("record.insufficient-unused-quota", "record.preempting"),
        mentions=("preempting 1",),
    ),
    Case(
        "waiting-for-preemption",
        [*BUSY, *pending(cpu="4", conditions=legacy("Pending", MSG_PREEMPTING))],
        V.WAITING_FOR_PREEMPTION,
        "legacy",
    ),
    Case(
        "topology-placement-failed",
        [*cluster(), *pending(conditions=granular("TopologyPlacementFailed", MSG_TOPOLOGY))],
        V.TOPOLOGY_PLACEMENT_FAILED,
        "granular",
        steps=("record.topology-no-fit",),
        actions=("relax-topology",),
    ),
    Case(
        "topology-placement-failed",
        [*cluster(), *pending(conditions=legacy("Pending", MSG_TOPOLOGY))],
        V.TOPOLOGY_PLACEMENT_FAILED,
        "legacy",
    ),
    Case(
        "waiting-for-pods-ready",
        [*cluster(), *pending(conditions=granular("WaitingForPodsReady", MSG_PODS_READY))],
        V.WAITING_FOR_PODS_READY,
        "granular",
        steps=("record.pods-ready-block",),
    ),
    Case(
        "waiting-for-pods-ready",
        [*cluster(), *pending(conditions=legacy("Waiting", MSG_PODS_READY))],
        V.WAITING_FOR_PODS_READY,
        "legacy",
    ),
    Case(
        "not-yet-evaluated",
        [*cluster(), *pending()],
        V.NOT_YET_EVALUATED,
        steps=("conditions.none-yet", "quota.fits", "position.in-queue"),
        mentions=("position 1",),
    ),
    Case(
        "not-yet-evaluated",
        [
            *cluster(),
            *pending(
                conditions=granular("PendingEvaluation", "Workload is pending evaluation in the scheduling queue")
            ),
        ],
        V.NOT_YET_EVALUATED,
        "granular",
        steps=("record.pending-evaluation",),
    ),
    Case(
        "not-yet-evaluated after a preemption",
        [
            *cluster(),
            *pending(
                conditions=[
                    condition("Evicted", True, "Preempted", MSG_PREEMPTED),
                    condition("Requeued", True, "Preempted", MSG_PREEMPTED),
                    *granular("PendingEvaluation", MSG_PREEMPTED),
                ]
            ),
        ],
        V.NOT_YET_EVALUATED,
        "granular",
        steps=("record.preempted", "conditions.preempted"),
    ),
    Case(
        "not-yet-evaluated after a preemption",
        [
            *cluster(),
            *pending(
                conditions=[condition("Evicted", True, "Preempted", MSG_PREEMPTED), *legacy("Pending", MSG_PREEMPTED)]
            ),
        ],
        V.NOT_YET_EVALUATED,
        "legacy",
        steps=("conditions.preempted",),
    ),
    Case(
        "not-yet-evaluated, its backoff is over",
        [*cluster(), *pending(**backoff("PodsReadyTimeout", "Exceeded the PodsReady timeout team-a/train", until=-1))],
        V.NOT_YET_EVALUATED,
    ),
    # --- gates and checks ---
    Case(
        "admission-gated",
        [*cluster(), *pending(annotations=GATED)],
        V.ADMISSION_GATED,
        steps=("workload.admission-gated",),
        actions=("ask-gate-owner",),
        mentions=("example.com/budget",),
    ),
    Case(
        "admission-gated",
        [
            *cluster(),
            *pending(
                annotations=GATED, conditions=granular("AdmissionGated", "Admission is gated by: example.com/budget")
            ),
        ],
        V.ADMISSION_GATED,
        "granular",
    ),
    Case(
        "admission-gated",
        [
            *cluster(),
            *pending(
                annotations=GATED, conditions=legacy("AdmissionGated", "Admission is gated by: example.com/budget")
            ),
        ],
        V.ADMISSION_GATED,
        "legacy",
    ),
    Case(
        "admission-checks-pending",
        [
            *cluster(checks=["prov"]),
            admission_check("prov"),
            *pending(status=checks_status("Pending", "Provisioning nodes", admitted_condition=True)),
        ],
        V.ADMISSION_CHECKS_PENDING,
        "granular",
        steps=("cluster-queue.reserved", "admission-checks.check"),
        actions=("wait-for-checks",),
        mentions=("prov", "Provisioning nodes"),
    ),
    Case(
        "admission-checks-pending",
        [
            *cluster(checks=["prov"]),
            admission_check("prov"),
            *pending(status=checks_status("Pending", "Provisioning nodes", admitted_condition=False)),
        ],
        V.ADMISSION_CHECKS_PENDING,
        "legacy",
    ),
    Case(
        "admission-checks-pending, no message yet",
        [
            *cluster(checks=["prov"]),
            admission_check("prov"),
            *pending(status=checks_status("Pending", "", admitted_condition=True)),
        ],
        V.ADMISSION_CHECKS_PENDING,
        "granular",
        mentions=("prov",),
    ),
    Case(
        "admission-checks-pending, delayed topology request",
        [*cluster(), *pending(status=delayed_topology())],
        V.ADMISSION_CHECKS_PENDING,
        "granular",
    ),
    Case(
        "admission-check-rejected",
        [
            *cluster(checks=["prov"]),
            admission_check("prov"),
            *pending(status=checks_status("Rejected", "capacity revoked", admitted_condition=True)),
        ],
        V.ADMISSION_CHECK_REJECTED,
        "granular",
        steps=("admission-checks.check",),
        actions=("fix-and-resubmit",),
        mentions=("prov",),
    ),
    Case(
        "admission-check-rejected, then deactivated",
        [
            *cluster(checks=["prov"]),
            admission_check("prov"),
            *pending(
                active=False,
                status={"admissionChecks": [check_state("prov", "Rejected", "capacity revoked")]},
                conditions=[
                    condition("Evicted", True, "DeactivatedDueToAdmissionCheck", REJECTED_MESSAGE),
                    quota_reserved_false("Deactivated", "The workload is deactivated"),
                ],
            ),
        ],
        V.ADMISSION_CHECK_REJECTED,
        "granular",
    ),
    # --- eviction and deactivation ---
    Case(
        "requeue-backoff after a PodsReady timeout",
        [
            *cluster(),
            *pending(
                **backoff("PodsReadyTimeout", "Exceeded the PodsReady timeout team-a/train", until=2),
            ),
        ],
        V.REQUEUE_BACKOFF,
        # the eviction's message is shown once, by the Evicted condition's step (issue 11: each message once)
        steps=("conditions.condition", "conditions.backoff-until"),
        actions=("check-pods-ready", "wait-backoff"),
        mentions=("PodsReadyTimeout", "10:32:00"),
    ),
    Case(
        "requeue-backoff after an admission check Retry",
        [
            *cluster(),
            *pending(
                **backoff("AdmissionCheck", 'Evicted due to AdmissionCheck in Retry state: "prov" (retrying)', until=2)
            ),
        ],
        V.REQUEUE_BACKOFF,
        mentions=("AdmissionCheck",),
    ),
    Case(
        "deactivated",
        [*cluster(), *pending(active=False)],
        V.DEACTIVATED,
        steps=("workload.deactivated",),
        actions=("reactivate",),
    ),
    Case(
        "deactivated, re-queuing limit",
        [
            *cluster(),
            *pending(
                active=False,
                conditions=[
                    condition("Evicted", True, "DeactivatedDueToRequeuingLimitExceeded", DEACTIVATED_BY_LIMIT),
                    condition("Requeued", False, "DeactivatedDueToRequeuingLimitExceeded", DEACTIVATED_BY_LIMIT),
                    *granular("Deactivated", "The workload is deactivated"),
                ],
            ),
        ],
        V.DEACTIVATED,
        "granular",
        mentions=("RequeuingLimitExceeded",),
    ),
    Case(
        "deactivated (v0.6-v0.10 InactiveWorkload)",
        [
            *cluster(),
            *pending(
                active=False, conditions=[condition("Evicted", True, "InactiveWorkload", "The workload is deactivated")]
            ),
        ],
        V.DEACTIVATED,
        "legacy",
    ),
    # --- admitted ---
    Case(
        "pods-pending",
        [*cluster(), TRAIN_JOB, ADMITTED, RUNNING_POD, WAITING_POD, SCHEDULING_FAILED],
        V.PODS_PENDING,
        "granular",
        steps=("cluster-queue.admitted", "scheduling.pods", "scheduling.node-reasons"),
        actions=("check-scheduler",),
        mentions=("Insufficient cpu",),
    ),
    Case(
        "pods-pending, scheduling gate",
        [*cluster(), TRAIN_JOB, ADMITTED, RUNNING_POD, GATED_POD],
        V.PODS_PENDING,
        "granular",
        steps=("scheduling.gated",),
        mentions=("example.com/wait",),
    ),
    Case(
        "running",
        [
            *cluster(),
            TRAIN_JOB,
            ADMITTED,
            RUNNING_POD,
            pod("train-d", owned_by=TRAIN_JOB, phase="Running", node="node-2"),
        ],
        V.RUNNING,
        "granular",
        steps=("cluster-queue.admitted", "scheduling.pods"),
    ),
    Case(
        "preempted: still admitted while its pods stop",
        [
            *cluster(),
            TRAIN_JOB,
            workload(
                of=TRAIN_JOB,
                status={
                    **reserved("cq", assignment("main", 2, default={"cpu": "2"})),
                    "conditions": [
                        *reserved("cq", assignment("main", 2, default={"cpu": "2"}))["conditions"],
                        condition("Evicted", True, "Preempted", MSG_PREEMPTED),
                        condition("Preempted", True, "InClusterQueue", MSG_PREEMPTED),
                    ],
                },
            ),
            RUNNING_POD,
        ],
        V.PREEMPTED,
        steps=("conditions.being-preempted",),
        mentions=("being preempted", "priority within the ClusterQueue"),
    ),
    Case(
        "running, asked by its Workload",
        [*cluster(), TRAIN_JOB, ADMITTED],
        V.RUNNING,
        "granular",
        name=ADMITTED["metadata"]["name"],
        kind="Workload",
    ),
    Case(
        "finished",
        [*cluster(), *pending(conditions=FINISHED)],
        V.FINISHED,
        "granular",
        steps=("conditions.finished",),
        mentions=("Succeeded",),
    ),
    Case(
        "finished, failed",
        [
            *cluster(),
            *pending(conditions=[condition("Finished", True, "Failed", "Job has reached the specified backoff limit")]),
        ],
        V.FINISHED,
        "granular",
        mentions=("Failed",),
    ),
    Case(
        "prebuilt workload out of sync (Finished OutOfSync)",
        [
            *cluster(),
            *pending(
                conditions=[
                    condition("Finished", True, "OutOfSync", "The prebuilt workload is out of sync with its user job")
                ]
            ),
        ],
        V.WORKLOAD_OUT_OF_SYNC,
        "granular",
        steps=("conditions.out-of-sync",),
        actions=("fix-prebuilt",),
        mentions=("OutOfSync",),
    ),
]


def _id(case: Case) -> str:
    return f"{case.id} [{case.record}]"


def is_subsequence(wanted: tuple[str, ...], got: list[str]) -> bool:
    remaining = iter(got)
    return all(code in remaining for code in wanted)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_verdict(case: Case) -> None:
    explanation = case.run()
    assert explanation.verdict == case.verdict, [s.code for s in explanation.steps]
    assert is_subsequence(case.steps, step_codes(explanation)), step_codes(explanation)
    assert set(case.actions) <= set(action_codes(explanation)), action_codes(explanation)
    headline = text(explanation.headline)
    for needle in case.mentions:
        assert needle.lower() in headline.lower(), headline


REACHABLE = set(Verdict) - {Verdict.INVALID_REQUEST}


def test_every_verdict_is_in_the_table() -> None:
    assert {case.verdict for case in CASES} == REACHABLE


QUEUE_VERDICTS = {
    V.LOCAL_QUEUE_MISSING,
    V.CLUSTER_QUEUE_MISSING,
    V.QUEUE_STOPPED,
    V.QUEUE_INACTIVE,
    V.NAMESPACE_NOT_ALLOWED,
    V.NO_MATCHING_FLAVOR,
    V.EXCEEDS_MAX_QUOTA,
    V.WAITING_FOR_QUOTA,
    V.WAITING_FOR_PREEMPTION,
    V.TOPOLOGY_PLACEMENT_FAILED,
    V.WAITING_FOR_PODS_READY,
    V.NOT_YET_EVALUATED,
}


def test_the_pending_verdicts_are_read_both_from_kueue_and_from_the_cluster() -> None:
    """Each verdict Kueue records in QuotaReserved has a case with the granular reason, one with the legacy
    reason and (where the engine can decide alone) one without any condition."""
    by_verdict: dict[Verdict, set[str]] = {}
    for case in CASES:
        by_verdict.setdefault(case.verdict, set()).add(case.record)
    for verdict in QUEUE_VERDICTS - {V.NOT_YET_EVALUATED}:
        assert {"granular", "legacy"} <= by_verdict[verdict], verdict
    for verdict in QUEUE_VERDICTS - {V.WAITING_FOR_PREEMPTION, V.TOPOLOGY_PLACEMENT_FAILED, V.WAITING_FOR_PODS_READY}:
        assert "none" in by_verdict[verdict], verdict


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_the_json_contract(case: Case) -> None:
    document = explanation_json(case.run())
    assert {"job", "workload", "verdict", "headline", "steps", "demand", "position"} <= set(document)
    assert document["verdict"] == case.verdict.value
    assert document["headline"]
    assert document["steps"], "an explanation always has steps"
    assert all(step["outcome"] in {o.value for o in Outcome} for step in document["steps"])
    assert all(step["text"] and step["code"] for step in document["steps"])
    if document["position"] is not None:
        assert document["position"]["clusterQueue"] >= 1


NOT_IN_A_QUEUE = {
    V.JOB_NOT_FOUND,
    V.NOT_MANAGED,
    V.WORKLOAD_MISSING,
    V.LOCAL_QUEUE_MISSING,
    V.CLUSTER_QUEUE_MISSING,
    V.ADMISSION_GATED,
    V.ADMISSION_CHECKS_PENDING,
    V.ADMISSION_CHECK_REJECTED,
    V.REQUEUE_BACKOFF,
    V.DEACTIVATED,
    V.PODS_PENDING,
    V.RUNNING,
    V.FINISHED,
    V.PREEMPTED,
}


@pytest.mark.parametrize("case", [c for c in CASES if c.verdict in NOT_IN_A_QUEUE], ids=_id)
def test_no_position_when_not_waiting_in_a_queue(case: Case) -> None:
    """README: `position` is null when the Workload is not waiting in a queue (Kueue queues nothing in a
    ClusterQueue that does not exist: the pending-workloads API answers 404 for it)."""
    assert case.run().position is None


_PLACEHOLDER_DASH = re.compile(r"(?:^|[\s(])-(?=[\s).:,;]|$)")


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_the_headline_never_shows_an_empty_placeholder(case: Case) -> None:
    """A headline is the one sentence a person acts on: no "-" standing for a value the engine lacked, no
    unfilled {placeholder}."""
    headline = text(case.run().headline)
    assert not _PLACEHOLDER_DASH.search(headline), headline
    assert not re.search(r"\{[a-z_]+\}|\{\{|\}\}", headline), headline


def test_the_demand_of_a_job_without_workload_is_its_templates() -> None:
    explanation = explain_objects([*cluster(), job("train", parallelism=3, spec=cpu_spec("2"))], "train")
    assert explanation_json(explanation)["demand"] == {"cpu": "6", "pods": "3"}


def test_advice_names_another_queue_that_could_take_the_job() -> None:
    # user-queue -> cq (10 cpu); big-queue -> cq-big (32 cpu): a 12-cpu job never fits cq, would fit cq-big
    objects = [
        *cluster(),
        cluster_queue("cq-big", cpu_group(cpu=32)),
        local_queue("big-queue", cluster_queue="cq-big"),
        *pending(cpu="12"),
    ]
    explanation = explain_objects(objects)
    assert explanation.verdict == V.EXCEEDS_MAX_QUOTA
    [other] = [a for a in explanation.actions if a.code == "use-other-queue"]
    assert other.data["queue"] == "big-queue"


# --- positions --------------------------------------------------------------------------------------


def queued(name: str, minutes_ago: float, *, queue: str = "user-queue", ns: str = NS, **wl: Any) -> list[Raw]:
    return pending(name, created=ago(minutes_ago), queue=queue, namespace_name=ns, **wl)


PREEMPTED = [
    condition("Evicted", True, "Preempted", MSG_PREEMPTED, ago(1)),
    condition("Requeued", True, "Preempted", MSG_PREEMPTED, ago(1)),
]
TIMED_OUT = [
    condition("Evicted", True, "PodsReadyTimeout", "Exceeded the PodsReady timeout team-a/late", ago(5)),
    condition("Requeued", True, "BackoffFinished", "The workload backoff was finished", ago(4)),
]

# Kueue's order in cq: priority first, then the queue-order time (creation, or the eviction time after a
# PodsReady timeout; a preemption keeps the creation time), then UID:
#   1. urgent      priority 100, created 10 min ago
#   2. preempted   created 150 min ago (preempted 1 min ago: keeps its creation time)
#   3. early       created 100 min ago
#   4. train       created 50 min ago                  <- asked (4th in user-queue)
#   5. team-b/mid  created 40 min ago (b-queue)
#   6. other       created 20 min ago (other-queue)
#   7. late        created 200 min ago, evicted by PodsReadyTimeout 5 min ago: ordered by the eviction
# Not queued: admitted, finished, deactivated, admission-gated, in backoff, or in another ClusterQueue.
QUEUE = [
    *cluster(),
    local_queue("other-queue"),
    namespace("team-b"),
    local_queue("b-queue", "team-b"),
    cluster_queue("cq-2"),
    local_queue("queue-2", cluster_queue="cq-2"),
    *queued("early", 100),
    *queued("urgent", 10, priority=100),
    *queued("train", 50),
    *queued("other", 20, queue="other-queue"),
    *queued("mid", 40, queue="b-queue", ns="team-b"),
    *queued("late", 200, conditions=TIMED_OUT),
    *queued("preempted", 150, conditions=PREEMPTED),
    *queued("admitted", 300, status=reserved("cq", assignment("main", 1, default={"cpu": "1"}))),
    *queued("done", 300, conditions=[condition("Finished", True, "Succeeded", "Job finished successfully")]),
    *queued("inactive", 300, active=False),
    *queued("gated", 300, annotations=GATED),
    *queued("backing-off", 300, **backoff("PodsReadyTimeout", "Exceeded the PodsReady timeout", until=3)),
    *queued("elsewhere", 300, queue="queue-2"),
]

POSITIONS = [
    ("urgent", NS, 1, 1),
    ("preempted", NS, 2, 2),
    ("early", NS, 3, 3),
    ("train", NS, 4, 4),
    ("mid", "team-b", 5, 1),
    ("other", NS, 6, 1),
    ("late", NS, 7, 5),
]


@pytest.mark.parametrize(("name", "ns", "in_cq", "in_lq"), POSITIONS, ids=[p[0] for p in POSITIONS])
def test_computed_position(name: str, ns: str, in_cq: int, in_lq: int) -> None:
    explanation = explain_objects(QUEUE, name, namespace=ns)
    assert explanation.position is not None
    assert (explanation.position.cluster_queue, explanation.position.local_queue) == (in_cq, in_lq)
    assert explanation.position.source == "computed"
    assert explanation.position.pending_total == 7
    assert explanation.position.ahead is not None and explanation.position.ahead.count == in_cq - 1


def test_who_waits_ahead() -> None:
    explanation = explain_objects(QUEUE, "train")
    assert explanation.position is not None and explanation.position.ahead is not None
    assert explanation.position.ahead.by_priority == ((100, 1), (0, 2))
    # The nearest ones ahead, in queue order, by their job's name (what people call them).
    names = [name for _, name, _ in explanation.position.ahead.workloads]
    assert names == ["urgent", "preempted", "early"], names
    assert "position.ahead" in step_codes(explanation)


def test_equal_priority_and_time_are_ordered_by_uid() -> None:
    same = ago(30)
    objects = [*cluster(), *pending("b", created=same, uid="uid-1"), *pending("a", created=same, uid="uid-2")]
    for name, expected in (("b", 1), ("a", 2)):
        explanation = explain_objects(objects, name)
        assert explanation.position is not None and explanation.position.cluster_queue == expected


def test_priority_from_a_workload_priority_class() -> None:
    objects = [
        *cluster(),
        priority_class("high", 1000),
        *pending("first", created=ago(100)),
        *pending("train", created=ago(50), priority=1000, priority_class="high"),
    ]
    explanation = explain_objects(objects)
    assert explanation.position is not None and explanation.position.cluster_queue == 1


def test_strict_fifo_head_blocks_the_rest() -> None:
    # the head (older, 12 cpu) can never fit a 10-cpu StrictFIFO queue and blocks it; the asked Workload
    # fits but has no condition: Kueue has not tried it
    objects = [
        *cluster(strategy="StrictFIFO"),
        *pending("head", cpu="12", created=ago(100), conditions=legacy("Pending", MSG_MAX)),
        *pending("train", cpu="1", created=ago(50)),
    ]
    explanation = explain_objects(objects)
    assert explanation.verdict == V.NOT_YET_EVALUATED
    assert explanation.position is not None and explanation.position.cluster_queue == 2
    assert "position.strict-fifo-head" in step_codes(explanation)


def test_best_effort_fifo_has_no_blocking_head() -> None:
    objects = [
        *cluster(),
        *pending("head", cpu="12", created=ago(100), conditions=legacy("Pending", MSG_MAX)),
        *pending("train", cpu="1", created=ago(50)),
    ]
    assert "position.strict-fifo-head" not in step_codes(explain_objects(objects))


def test_the_pending_workloads_api_overrides_the_computed_position() -> None:
    # computed: early (100 min) then train (50 min) -> 2; the API (e.g. admission fair sharing) says 0-based 0
    early = queued("early", 100)
    train = queued("train", 50, conditions=granular("WaitingForQuota", MSG_UNUSED))
    objects = [*BUSY, *early, *train, pending_summary((train[1], 0, 0), (early[1], 1, 1))]
    explanation = explain_objects(objects)
    assert explanation.position is not None
    assert (explanation.position.cluster_queue, explanation.position.local_queue) == (1, 1)
    assert explanation.position.source == "visibility-api"
    assert explanation_json(explanation)["position"]["source"] == "visibility-api"


def test_v1beta1_objects() -> None:
    # a whole v1beta1 cluster: ClusterQueue spec.cohort, LocalQueue, Workloads with priorityClassName; cq-a
    # (8 cpu) shares cohort pool with cq-b (8 cpu, all in use): 6 free; 3 x 3 cpu = 9 -> 3 more needed
    objects = [
        namespace(),
        resource_flavor(),
        priority_class("etl-critical", 500),
        cluster_queue(
            "cq-a", cpu_group(cpu=8), cohort="pool", reservation={"default": {"cpu": 2}}, api_version=KUEUE_V1BETA1
        ),
        cluster_queue(
            "cq-b", cpu_group(cpu=8), cohort="pool", reservation={"default": {"cpu": 8}}, api_version=KUEUE_V1BETA1
        ),
        local_queue("user-queue", cluster_queue="cq-a", api_version=KUEUE_V1BETA1),
        *queued("first", 100, priority=500, priority_class="etl-critical", api_version=KUEUE_V1BETA1),
        *queued(
            "train",
            50,
            cpu="3",
            count=3,
            api_version=KUEUE_V1BETA1,
            conditions=legacy("Pending", MSG_UNUSED.replace("2 more", "3 more")),
        ),
    ]
    explanation = explain_objects(objects)
    assert explanation.verdict == V.WAITING_FOR_QUOTA
    assert explanation.cluster_queue == "cq-a"
    assert explanation.position is not None and explanation.position.cluster_queue == 2
    assert "cohort pool" in " ".join(text(s.text) for s in explanation.steps)
    assert explanation_json(explanation)["demand"] == {"cpu": "9", "pods": "3"}


def test_the_engine_decides_over_a_stale_record_when_the_queue_vanished() -> None:
    # Kueue last wrote "2 more needed", then the LocalQueue was deleted: the queue problem is what blocks now
    objects = [*NO_LQ, *pending(cpu="4", conditions=legacy("Pending", MSG_UNUSED))]
    assert explain_objects(objects).verdict == V.LOCAL_QUEUE_MISSING


def test_waiting_for_quota_when_others_use_more_than_a_lowered_quota() -> None:
    """An admin lowered the quota to 4 cpu under 6 cpu of running work; a 2-cpu job needs 2 more cpu free
    (Kueue: needed = request - Available, Available clamped at 0), not 4."""
    objects = [*cluster(cpu=4, reservation={"default": {"cpu": 6}}), *pending(cpu="2")]
    explanation = explain_objects(objects)
    assert explanation.verdict == V.WAITING_FOR_QUOTA
    assert explanation.headline.params["needed"] == "2"
    [quota_step] = [s for s in explanation.steps if s.code == "quota.waits"]
    assert quota_step.text.params["needed"] == "2"


def test_a_requeue_time_with_an_offset_is_shown_in_utc() -> None:
    # 12:32:00+02:00 is 10:32:00 UTC, two minutes after NOW (10:30 UTC)
    evicted = backoff("PodsReadyTimeout", "Exceeded the PodsReady timeout team-a/train", until=2)
    evicted["status"] = {"requeueState": {"count": 1, "requeueAt": "2026-10-14T12:32:00+02:00"}}
    explanation = explain_objects([*cluster(), *pending(**evicted)])
    assert explanation.verdict == V.REQUEUE_BACKOFF
    assert explanation.headline.params["until"] == "10:32:00 UTC"
    assert explanation.headline.params["in_seconds"] == 120
