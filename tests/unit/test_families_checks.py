"""Issue #11, the families of engine2: ProvisioningRequest checks, maximum execution time, pod groups and
serving workloads, the scheduler's FailedScheduling summary, node labels per Kueue version, and v0.20's
Workload conditions. One case a test, fits/blocked pairs where both exist; each names the Kueue source it
follows. Every Kueue object is checked against the CRDs the tests use (tests/data/kueue/crds)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from bot.trace import messages, scheduling
from bot.trace.codes import Verdict
from bot.trace.explanation import Explanation
from bot.trace.serialize import text

from tests.builders import (
    KUEUE,
    KUEUE_V1BETA1,
    NS,
    action_codes,
    admission_check,
    ago,
    as_yaml,
    assignment,
    check_state,
    cluster,
    cluster_queue,
    condition,
    cpu_spec,
    event,
    explain_objects,
    flavor_quotas,
    group,
    job,
    local_queue,
    namespace,
    node,
    pod,
    quota,
    reserved,
    resource_flavor,
    step_codes,
    workload,
)
from tests.fakes.kube_schema import dump_problems

Raw = dict[str, Any]


def run(objects: Sequence[Raw], name: str = "train", kind: str | None = "Job") -> Explanation:
    problems = dump_problems(as_yaml(objects))
    assert not problems, problems
    return explain_objects(objects, name, kind=kind)


def said(explanation: Explanation, language: str = "en") -> str:
    """The headline, the steps and the actions as a reader gets them."""
    parts = [explanation.headline, *(s.text for s in explanation.steps), *(a.text for a in explanation.actions)]
    return "\n".join(text(part, language) for part in parts)


# --- 4. the kube-scheduler's FailedScheduling summary ------------------------------------------------

GPU_TAINT = (
    "0/5 nodes are available: 3 Insufficient nvidia.com/gpu, 2 node(s) had untolerated taint {gpu: true}. "
    "preemption: 0/5 nodes are available: 3 No preemption victims found for incoming pod, "
    "2 Preemption is not helpful for scheduling."
)


def test_failed_scheduling_is_read_into_counts() -> None:
    summary = scheduling.parse_failed_scheduling(GPU_TAINT)
    assert summary is not None
    assert (summary.available, summary.total) == (0, 5)
    assert summary.reasons == ((3, "Insufficient nvidia.com/gpu"), (2, "node(s) had untolerated taint {gpu: true}"))
    assert summary.preemption == (
        (3, "No preemption victims found for incoming pod"),
        (2, "Preemption is not helpful for scheduling"),
    )
    assert (
        summary.text
        == "0/5 nodes are available: 3 Insufficient nvidia.com/gpu, 2 node(s) had untolerated taint {gpu: true}."
    )


@pytest.mark.parametrize(
    "message",
    ["pod has unbound immediate PersistentVolumeClaims", "", "no nodes available to schedule pods", "0/x nodes"],
)
def test_other_scheduler_messages_are_not_counts(message: str) -> None:
    assert scheduling.parse_failed_scheduling(message) is None


def _admitted_job(pods: int, message: str | None) -> list[Raw]:
    the_job = job(parallelism=pods, suspend=False)
    wl = workload(of=the_job, status=reserved("cq", assignment("main", pods, default={"cpu": str(pods)})))
    objects: list[Raw] = [*cluster(), the_job, wl]
    for i in range(pods):
        p = pod(f"train-{i}", owned_by=the_job)
        objects.append(p)
        if message is not None:
            objects.append(event(p, "FailedScheduling", message, type="Warning"))
    return objects


def test_pods_pending_the_scheduler_summary_once_with_its_counts() -> None:
    explanation = run(_admitted_job(3, GPU_TAINT))
    assert explanation.verdict is Verdict.PODS_PENDING
    english = said(explanation)
    assert "0/5 nodes are available: 3 Insufficient nvidia.com/gpu, 2 node(s) had untolerated taint" in english
    # the three pods share one message: one step names them all, with the counts
    assert step_codes(explanation).count("scheduling.node-reasons") == 1
    assert "scheduling.failed" not in step_codes(explanation)
    assert "train-0, train-1, train-2" in english and "3 × Insufficient nvidia.com/gpu" in english
    assert english.count("Insufficient nvidia.com/gpu") == 2  # the headline and the one step
    assert "Add a toleration for gpu=true to the job's pod template." in english  # the taint the scheduler named
    french = said(explanation, "fr")
    assert "0 nœud sur 5 conviennent" in french and "2 × node(s) had untolerated taint {gpu: true}" in french


def _running(obj: Raw) -> Raw:
    if obj["kind"] != "Pod":
        return obj
    return {**obj, "status": {"phase": "Running"}, "spec": {**obj["spec"], "nodeName": "n1"}}


def test_pods_running_no_summary() -> None:
    objects = [_running(o) for o in _admitted_job(2, None)]
    explanation = run(objects)
    assert explanation.verdict is Verdict.RUNNING
    assert "scheduling.node-reasons" not in step_codes(explanation)


def test_an_unparsed_scheduler_message_is_shown_verbatim_once() -> None:
    message = "pod has unbound immediate PersistentVolumeClaims. preemption: not eligible"
    explanation = run(_admitted_job(2, message))
    assert explanation.verdict is Verdict.PODS_PENDING
    assert step_codes(explanation).count("scheduling.failed-pods") == 1
    assert "2 pods (train-0, train-1) cannot be scheduled: pod has unbound" in said(explanation)


# --- 2. maximum execution time ----------------------------------------------------------------------

MAX_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"


def _limited(*, active: bool, conditions: Sequence[Raw], past: int | None = None, admitted: bool = False) -> list[Raw]:
    the_job = job(labels={MAX_LABEL: "3600"}, suspend=not admitted)
    status: Raw = reserved("cq", assignment("main", 1, default={"cpu": "1"}), at=ago(50)) if admitted else {}
    if past is not None:
        status["accumulatedPastExecutionTimeSeconds"] = past
    wl = workload(of=the_job, active=active, status=status, conditions=conditions)
    wl["spec"]["maximumExecutionTimeSeconds"] = 3600
    return [*cluster(), the_job, wl]


DEACTIVATED_FOR_TIME = [
    condition(
        "Evicted",
        True,
        "DeactivatedDueToMaximumExecutionTimeExceeded",
        "The workload is deactivated due to exceeding the maximum execution time",
    ),
    condition(
        "QuotaReserved", False, "Pending", "The workload is deactivated due to exceeding the maximum execution time"
    ),
    condition("Requeued", False, "DeactivatedDueToMaximumExecutionTimeExceeded", "The workload is deactivated"),
]


def test_max_exec_time_exceeded_names_the_limit_and_the_fix() -> None:
    explanation = run(_limited(active=False, conditions=DEACTIVATED_FOR_TIME))
    assert explanation.verdict is Verdict.DEACTIVATED
    headline = text(explanation.headline, "en")
    assert "maximum execution time of 1 h" in headline and "MaximumExecutionTimeExceeded" in headline
    assert "workload.max-exec-reset" in step_codes(explanation)  # Kueue reset the time used
    assert "raise-max-exec-time" in action_codes(explanation)
    assert "kubectl label job -n team-a train kueue.x-k8s.io/max-exec-time-seconds=<seconds>" in said(explanation)
    assert "durée d'exécution maximale de 1 h" in text(explanation.headline, "fr")


def test_max_exec_time_target_before_the_eviction_is_a_deactivation() -> None:
    target = condition(
        "DeactivationTarget", True, "MaximumExecutionTimeExceeded", "exceeding the maximum execution time"
    )
    explanation = run(_limited(active=True, conditions=[target], admitted=True))
    assert explanation.verdict is Verdict.DEACTIVATED
    assert "1 h" in text(explanation.headline, "en")


def test_max_exec_time_running_says_how_long_is_left() -> None:
    the_objects = _limited(active=True, conditions=[], past=600, admitted=True)
    explanation = run(the_objects)
    assert explanation.verdict in (Verdict.RUNNING, Verdict.PODS_PENDING)
    english = said(explanation)
    # 10 min of earlier admissions + 50 min since this admission, of 1 h
    assert "It may run 1 h (3600 s) in all (maximum execution time): 1 h used, 0 s left" in english


def test_max_exec_time_running_with_time_left() -> None:
    explanation = run(_limited(active=True, conditions=[], past=None, admitted=True))
    assert "50 min used, 10 min left" in said(explanation)


def test_deactivated_otherwise_with_the_time_used_up_is_deactivated_again_at_once() -> None:
    manual = [condition("Evicted", True, "Deactivated", "The workload is deactivated")]
    explanation = run(_limited(active=False, conditions=manual, past=3600))
    assert explanation.verdict is Verdict.DEACTIVATED
    assert "workload.max-exec-again" in step_codes(explanation)
    assert "It has already used 1 h of its 1 h" in said(explanation)
    assert "as soon as it is admitted" in said(explanation)


def test_deactivated_otherwise_with_time_left_is_not_deactivated_again() -> None:
    manual = [condition("Evicted", True, "Deactivated", "The workload is deactivated")]
    explanation = run(_limited(active=False, conditions=manual, past=1200))
    assert explanation.verdict is Verdict.DEACTIVATED
    assert "workload.max-exec-again" not in step_codes(explanation)
    assert "raise-max-exec-time" not in action_codes(explanation)


def test_requeuing_limit_exceeded_points_at_the_pods() -> None:
    conditions = [
        condition(
            "Evicted",
            True,
            "DeactivatedDueToRequeuingLimitExceeded",
            "The workload is deactivated due to exceeding the maximum number of re-queuing retries",
        )
    ]
    explanation = run([*cluster(), *_plain(conditions)])
    assert explanation.verdict is Verdict.DEACTIVATED
    assert "workload.requeuing-limit" in step_codes(explanation)
    assert "check-pods-ready" in action_codes(explanation)


def _plain(conditions: Sequence[Raw]) -> list[Raw]:
    the_job = job()
    return [the_job, workload(of=the_job, active=False, conditions=conditions)]


# --- 3. pod groups and Deployments ----------------------------------------------------------------------

GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
TOTAL = "kueue.x-k8s.io/pod-group-total-count"


def group_pod(
    name: str, group: str = "ring", total: str = "4", *, phase: str = "Pending", queue: str = "user-queue"
) -> Raw:
    raw = pod(name, labels={GROUP_LABEL: group, "kueue.x-k8s.io/managed": "true", "kueue.x-k8s.io/queue-name": queue})
    raw["metadata"]["annotations"] = {TOTAL: total}
    raw["spec"]["schedulingGates"] = [{"name": "kueue.x-k8s.io/admission"}]
    raw["status"]["phase"] = phase
    return raw


def test_pod_group_waits_for_its_missing_pods() -> None:
    objects = [*cluster(), group_pod("ring-0"), group_pod("ring-1"), group_pod("ring-2", phase="Failed")]
    explanation = run(objects, "ring-0", kind="Pod")
    assert explanation.verdict is Verdict.WORKLOAD_MISSING
    headline = text(explanation.headline, "en")
    assert "group ring, which has 2 of its 4 pods" in headline
    assert "2 of its 4" not in text(explanation.headline, "fr") and "2 sur 4" in text(explanation.headline, "fr")
    assert "add-group-pods" in action_codes(explanation)
    assert "ask-admin-kueue" not in action_codes(explanation)
    english = said(explanation)
    assert "Create the 2 missing pods of group ring" in english
    assert "Failed pods do not count for the group: ring-2." in english


def test_pod_group_complete_has_its_workload() -> None:
    pods = [group_pod(f"ring-{i}") for i in range(4)]
    wl = workload("ring", pod_sets=[{**_group_pod_set(), "count": 4}])
    wl["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "Pod", "name": p["metadata"]["name"], "uid": p["metadata"]["uid"]} for p in pods
    ]
    explanation = run([*cluster(), *pods, wl], "ring-0", kind="Pod")
    assert explanation.verdict is not Verdict.WORKLOAD_MISSING
    assert explanation.workload == (NS, "ring")
    assert "Pod group ring (label kueue.x-k8s.io/pod-group-name): 4 runnable pods of the 4" in said(explanation)


def test_pod_group_asked_by_its_name() -> None:
    objects = [*cluster(), group_pod("ring-0"), group_pod("ring-1")]
    explanation = run(objects, "ring", kind=None)
    assert explanation.verdict is Verdict.WORKLOAD_MISSING
    assert "2 of its 4 pods" in text(explanation.headline, "en")


def test_pod_group_excess_pods_are_deleted_by_kueue() -> None:
    objects = [*cluster(), *(group_pod(f"ring-{i}", total="2") for i in range(3))]
    explanation = run(objects, "ring-0", kind="Pod")
    assert "workload.pod-group-excess" in step_codes(explanation)
    assert "1 pod more than its total of 2" in said(explanation)


def test_pod_group_pods_that_disagree() -> None:
    objects = [
        *cluster(),
        group_pod("ring-0"),
        group_pod("ring-1", total="3"),
        group_pod("ring-2"),
        group_pod("ring-3"),
    ]
    explanation = run(objects, "ring-0", kind="Pod")
    assert "workload.pod-group-mismatch" in step_codes(explanation)
    assert "total count, which Kueue refuses: 4, 3" in said(explanation)
    assert "align-group-pods" in action_codes(explanation)


def _group_pod_set() -> Raw:
    return {"name": "main", "count": 1, "template": {"spec": group_pod("x")["spec"]}}


def test_waiting_for_replacement_pods_is_shown_as_a_failing_condition() -> None:
    pods = [group_pod(f"ring-{i}", total="2", phase="Running") for i in range(2)]
    for p in pods:
        p["spec"].pop("schedulingGates")
        p["spec"]["nodeName"] = "n1"
    status = reserved("cq", assignment("main", 2, default={"cpu": "2"}))
    replacement = condition("WaitingForReplacementPods", True, "PodsReadyTimeout", "Exceeded the PodsReady timeout")
    wl = workload("ring", pod_sets=[{**_group_pod_set(), "count": 2}], status=status, conditions=[replacement])
    explanation = run([*cluster(), *pods, wl], "ring-0", kind="Pod")
    failing = [s for s in explanation.steps if s.data.get("type") == "WaitingForReplacementPods"]
    assert failing and failing[0].outcome.value == "fail"


def _deployment(name: str = "web", replicas: int = 2) -> Raw:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-{name}",
            "labels": {"kueue.x-k8s.io/queue-name": "user-queue"},
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": group_pod("x")["spec"]},
        },
    }


def _replica_pod(deployment: Raw, index: int, template_hash: str = "5d8f7c") -> Raw:
    name = deployment["metadata"]["name"]
    raw = pod(f"{name}-{template_hash}-{index}", labels={"app": name, "pod-template-hash": template_hash})
    raw["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": f"{name}-{template_hash}",
            "uid": f"rs-{name}",
            "controller": True,
        }
    ]
    return raw


def _pod_workload(the_pod: Raw, *, admitted: bool) -> Raw:
    status = reserved("cq", assignment("main", 1, default={"cpu": "1"})) if admitted else {}
    return workload(of=the_pod, pod_sets=[pod_set_of(the_pod)], status=status)


def pod_set_of(the_pod: Raw) -> Raw:
    return {"name": "main", "count": 1, "template": {"spec": the_pod["spec"]}}


def test_deployment_one_answer_for_all_its_pods_workloads() -> None:
    deployment = _deployment()
    pods = [_replica_pod(deployment, i) for i in range(3)]
    other = _replica_pod(_deployment("web-api"), 0)  # a name that starts the same is not the Deployment's
    wls = [
        _pod_workload(pods[0], admitted=True),
        _pod_workload(pods[1], admitted=True),
        _pod_workload(pods[2], admitted=False),
    ]
    objects = [*cluster(cpu=2), deployment, *pods, other, *wls, _pod_workload(other, admitted=False)]
    explanation = run(objects, "web", kind="Deployment")
    assert explanation.workload == (NS, wls[2]["metadata"]["name"])  # the one that waits answers
    assert explanation.verdict is Verdict.WAITING_FOR_QUOTA
    assert "3 in all, 2 admitted, 1 not admitted" in said(explanation)
    assert "3 en tout, 2 admis, 1 non admis" in said(explanation, "fr")


def test_deployment_all_admitted_is_running() -> None:
    deployment = _deployment()
    pods = [_replica_pod(deployment, i) for i in range(2)]
    for p in pods:
        p["status"]["phase"] = "Running"
        p["spec"]["nodeName"] = "n1"
        p["spec"].pop("schedulingGates", None)
    objects = [*cluster(), deployment, *pods, *(_pod_workload(p, admitted=True) for p in pods)]
    explanation = run(objects, "web", kind="Deployment")
    assert explanation.verdict is Verdict.RUNNING
    assert "2 in all, 2 admitted, 0 not admitted" in said(explanation)


def test_deployment_workloads_labelled_with_its_uid_are_found_by_structure() -> None:
    """The issue says v0.20 Workloads of a Deployment carry the Deployment's UID; upstream's main at the
    mirrored commit (ff69552e) still gives each pod its own Workload labelled with the pod's UID. The
    structure decides: a job-uid label with the Deployment's UID is found first, by that label."""
    deployment = _deployment()
    wl = workload("pod-web-abcde", labels={"kueue.x-k8s.io/job-uid": deployment["metadata"]["uid"]})
    explanation = run([*cluster(), deployment, wl], "web", kind="Deployment")
    assert explanation.workload == (NS, "pod-web-abcde")


# --- 1. ProvisioningRequest admission checks -----------------------------------------------------------

CHECK = "dws-prov"
CLASS = "queued-provisioning.gke.io"


def _provisioning_objects(
    check: Raw,
    request_conditions: Sequence[Raw] | None,
    *,
    attempt: int = 1,
    admitted: bool = False,
    retry: Raw | None = None,
) -> list[Raw]:
    the_job = job()
    status = reserved("cq", assignment("main", 1, default={"cpu": "1"}), admitted=admitted)
    status["admissionChecks"] = [check]
    wl = workload(of=the_job, status=status)
    if not admitted:
        status["conditions"].append(
            condition("Admitted", False, "UnsatisfiedAdmissionChecks", "The workload has not all checks ready")
        )
    ac = admission_check(CHECK)
    ac["spec"]["parameters"] = {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "dws"}
    config: Raw = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ProvisioningRequestConfig",
        "metadata": {"name": "dws", "uid": "uid-dws", "resourceVersion": "1"},
        "spec": {"provisioningClassName": CLASS, "managedResources": ["nvidia.com/gpu"]},
    }
    if retry is not None:
        config["spec"]["retryStrategy"] = retry
    objects = [*cluster(), ac, config, the_job, wl]
    if request_conditions is not None:
        objects.append(
            {
                "apiVersion": "autoscaling.x-k8s.io/v1",
                "kind": "ProvisioningRequest",
                "metadata": {
                    "name": f"{wl['metadata']['name']}-{CHECK}-{attempt}",
                    "namespace": NS,
                    "uid": f"uid-pr-{attempt}",
                    "ownerReferences": [
                        {
                            "apiVersion": "kueue.x-k8s.io/v1beta2",
                            "kind": "Workload",
                            "name": wl["metadata"]["name"],
                            "uid": wl["metadata"]["uid"],
                            "controller": True,
                        }
                    ],
                },
                "spec": {"provisioningClassName": CLASS, "podSets": []},
                "status": {"conditions": list(request_conditions)},
            }
        )
    return objects


WAITING_FOR_RESOURCES = (
    "Waiting for resources. Currently there are not enough resources available to fulfill the request."
)
ACCEPTED = condition("Accepted", True, "Accepted", "Provisioning Request was accepted.")


def test_provisioning_waits_for_the_autoscaler_with_its_conditions() -> None:
    check = check_state(CHECK, "Pending", WAITING_FOR_RESOURCES)
    provisioned = condition("Provisioned", False, "ResourcePoolExhausted", WAITING_FOR_RESOURCES)
    explanation = run(_provisioning_objects(check, [ACCEPTED, provisioned]))
    assert explanation.verdict is Verdict.ADMISSION_CHECKS_PENDING
    english = said(explanation)
    assert (
        f"(attempt 1 of at most 4, class {CLASS}): Accepted=True, Provisioned=False (ResourcePoolExhausted)" in english
    )
    assert english.count("Waiting for resources.") == 1  # every Kueue message once: the request's copy too
    assert "wait-for-checks" in action_codes(explanation)
    assert "tentative 1 sur 4 au plus" in said(explanation, "fr")


def test_provisioning_no_answer_from_the_autoscaler() -> None:
    explanation = run(_provisioning_objects(check_state(CHECK, "Pending"), []))
    assert explanation.verdict is Verdict.ADMISSION_CHECKS_PENDING
    assert "ask-admin-autoscaler" in action_codes(explanation)
    assert f"ProvisioningRequest support for class {CLASS}" in said(explanation)


def test_provisioning_retry_after_failure_names_the_retries_and_the_backoff() -> None:
    check = check_state(CHECK, "Retry", "Retrying after failure: the GPU pool is out of stock")
    check.update(retryCount=1, requeueAfterSeconds=120)
    failed = condition("Failed", True, "OutOfStock", "the GPU pool is out of stock")
    objects = _provisioning_objects(check, [ACCEPTED, failed], attempt=2, retry={"backoffLimitCount": 2})
    english = said(run(objects))
    assert (
        "ProvisioningRequest" in english
        and "(attempt 2 of at most 3" in english
        and "Failed=True (OutOfStock)" in english
    )
    assert (
        "Kueue has retried 1 time, of at most 2 (retryStrategy.backoffLimitCount of ProvisioningRequestConfig dws)"
        in english
    )
    assert "the next attempt comes after 2 min" in english
    # the headline quotes the check; neither the check's step nor the request's own copy repeats it
    assert english.count("the GPU pool is out of stock") == 1


def test_provisioning_rejected_after_the_last_attempt() -> None:
    check = check_state(CHECK, "Rejected", "the GPU pool is out of stock")
    check["retryCount"] = 3
    failed = condition("Failed", True, "OutOfStock", "the GPU pool is out of stock")
    explanation = run(_provisioning_objects(check, [ACCEPTED, failed], attempt=4))
    assert explanation.verdict is Verdict.ADMISSION_CHECK_REJECTED
    assert "provisioning-gave-up" in action_codes(explanation)
    assert "could not provision the nodes in 4 attempts" in said(explanation)


def test_provisioning_booking_expired_is_retried() -> None:
    check = check_state(CHECK, "Retry", "Retrying after booking expired: the capacity was not used in time")
    check["requeueAfterSeconds"] = 60
    expired = condition("BookingExpired", True, "BookingExpired", "the capacity was not used in time")
    provisioned = condition("Provisioned", True, "Provisioned", "Provisioning Request was successfully provisioned.")
    english = said(run(_provisioning_objects(check, [ACCEPTED, provisioned, expired])))
    assert "BookingExpired=True" in english and "the next attempt comes after 1 min" in english


def test_provisioning_capacity_revoked_deactivates() -> None:
    check = check_state(CHECK, "Rejected", "The capacity was revoked")
    revoked = condition("CapacityRevoked", True, "CapacityRevoked", "The capacity was revoked")
    provisioned = condition("Provisioned", True, "Provisioned", "Provisioning Request was successfully provisioned.")
    objects = _provisioning_objects(check, [ACCEPTED, provisioned, revoked])
    wl = next(o for o in objects if o["kind"] == "Workload")
    wl["spec"]["active"] = False
    wl["status"]["conditions"].append(
        condition("Evicted", True, "DeactivatedDueToAdmissionCheck", "The workload is deactivated due to ...")
    )
    explanation = run(objects)
    assert explanation.verdict is Verdict.ADMISSION_CHECK_REJECTED
    assert "provisioning-revoked" in action_codes(explanation)
    assert "CapacityRevoked" in said(explanation)


def test_provisioning_ready_fits_and_says_the_pod_set_updates() -> None:
    check = check_state(CHECK, "Ready", "Provisioning Request was successfully provisioned.")
    check["podSetUpdates"] = [{"name": "main", "nodeSelector": {"cloud.google.com/gke-nodepool": "dws-pool-1"}}]
    provisioned = condition("Provisioned", True, "Provisioned", "Provisioning Request was successfully provisioned.")
    objects = _provisioning_objects(check, [ACCEPTED, provisioned], admitted=True)
    explanation = run(objects)
    assert explanation.verdict in (Verdict.RUNNING, Verdict.PODS_PENDING)
    assert "nodeSelector cloud.google.com/gke-nodepool=dws-pool-1" in said(explanation)


def test_provisioning_check_not_active() -> None:
    explanation = run(_provisioning_objects(check_state(CHECK, "Pending", "the check is not active"), None))
    assert explanation.verdict is Verdict.ADMISSION_CHECKS_PENDING
    assert "admission-checks.provisioning-inactive" in step_codes(explanation)
    assert "ask-admin-check" in action_codes(explanation)


# --- 6. v0.20 Workload conditions and reasons (apis/kueue/v1beta2/workload_types.go:930-1177) -------------


def test_blocked_on_preemption_gates_is_gated_and_the_condition_fails() -> None:
    gated = "Workload requires preemption, but it's gated"
    conditions = [
        condition("QuotaReserved", False, "AdmissionGated", gated),
        condition("BlockedOnPreemptionGates", True, "PreemptionGated", gated),
    ]
    the_job = job()
    explanation = run([*cluster(), the_job, workload(of=the_job, conditions=conditions)])
    assert explanation.verdict is Verdict.ADMISSION_GATED
    steps = [s for s in explanation.steps if s.data.get("type") == "BlockedOnPreemptionGates"]
    assert steps and steps[0].outcome.value == "fail"


def test_finished_out_of_sync_is_not_finished_for_the_job() -> None:
    """Finished/OutOfSync (reconciler.go:1381-1387): the prebuilt Workload no longer matches the job."""
    the_job = job(labels={"kueue.x-k8s.io/prebuilt-workload-name": "prebuilt-train"})
    finished = condition("Finished", True, "OutOfSync", "The prebuilt workload is out of sync with its user job")
    explanation = run([*cluster(), the_job, workload("prebuilt-train", conditions=[finished])])
    assert explanation.verdict is Verdict.WORKLOAD_OUT_OF_SYNC
    assert explanation.verdict.never_fixes_itself and explanation.verdict.tells_at_once
    assert "prebuilt Workload prebuilt-train no longer matches it" in text(explanation.headline, "en")
    assert "fix-prebuilt" in action_codes(explanation)
    assert "Workload préconstruit prebuilt-train" in text(explanation.headline, "fr")


def test_finished_owner_not_found_is_finished() -> None:
    the_job = job()
    finished = condition("Finished", True, "OwnerNotFound", "The workload's owner no longer exists")
    explanation = run([*cluster(), the_job, workload(of=the_job, conditions=[finished])])
    assert explanation.verdict is Verdict.FINISHED
    assert "OwnerNotFound" in text(explanation.headline, "en")


def test_no_longer_on_hold_is_a_known_statement() -> None:
    """v0.20 statefulset_reconciler.go:278-292, with either vocabulary."""
    for reason in ("PendingEvaluation", "Pending"):
        record = messages.classify_quota_reserved(reason, "Workload no longer on hold; waiting for quota reservation")
        assert record.verdict is Verdict.NOT_YET_EVALUATED
        assert [f.cause for f in record.facts] == [messages.Cause.HOLD_RELEASED]


def test_the_v020_workload_fields_the_engine_reads_are_in_the_crds() -> None:
    """status.accumulatedPastExecutionTimeSeconds, spec.maximumExecutionTimeSeconds, admission checks'
    podSetUpdates and the preemption gates are in the CRDs the tests use; status.effectiveQuotas (v0.20's
    dynamic quotas, on ClusterQueues and Cohorts) is not: its objects cannot be written for these tests."""
    crds = (Path(__file__).resolve().parents[1] / "data" / "kueue" / "crds").glob("*.yaml")
    texts = {path.name: path.read_text(encoding="utf-8") for path in crds}
    workloads = texts["kueue.x-k8s.io_workloads.yaml"]
    for field in ("accumulatedPastExecutionTimeSeconds", "maximumExecutionTimeSeconds", "podSetUpdates"):
        assert field in workloads
    assert "preemptionGates" in workloads
    assert not any("effectiveQuotas" in body for body in texts.values())


# --- 5. node labels per Kueue version, Kueue's recorded exclusions, the label that excludes nodes -------


def _two_flavors(api_version: str, *, record: Raw | None = None) -> list[Raw]:
    """Flavor "plain" (no labels, room) then "zoned" (zone=b, full); the job selects zone=b."""
    groups = group(["cpu"], flavor_quotas("plain", quota("cpu", 8)), flavor_quotas("zoned", quota("cpu", 2)))
    cq = cluster_queue("cq", groups, reservation={"zoned": {"cpu": 2}}, api_version=api_version)
    flavors = [resource_flavor("plain"), resource_flavor("zoned", labels={"zone": "b"})]
    the_job = job(spec={**cpu_spec("1"), "nodeSelector": {"zone": "b"}})
    wl = workload(of=the_job, api_version=api_version, conditions=[record] if record else [])
    for raw in flavors:
        raw["apiVersion"] = api_version
    return [namespace(), *flavors, cq, local_queue(api_version=api_version), the_job, wl]


def test_node_labels_v1beta2_a_flavor_without_the_key_matches() -> None:
    """Since #12449 (v0.17.6, v0.18.2, v0.19.0) only the flavor's own label keys count: "plain" matches."""
    explanation = run(_two_flavors(KUEUE))
    assert explanation.verdict is Verdict.NOT_YET_EVALUATED  # it fits in plain
    assert "flavors.group-label-keys" not in step_codes(explanation)


def test_node_labels_v1beta1_the_group_keys_exclude_the_flavor() -> None:
    """Before the fix Kueue restricts the selector to every flavor's keys in the group: "plain" lacks zone."""
    explanation = run(_two_flavors(KUEUE_V1BETA1))
    assert explanation.verdict is Verdict.WAITING_FOR_QUOTA
    assert "flavors.group-label-keys" in step_codes(explanation)
    english = said(explanation)
    assert "Flavor plain (no node labels) does not set zone, which pod set main selects" in english
    assert "v0.17.6" in english
    assert "or to set zone in flavor plain's nodeLabels" in english
    assert "ne pose pas zone" in said(explanation, "fr")


def test_a_recorded_exclusion_counts_in_the_engines_own_check() -> None:
    message = (
        "couldn't assign flavors to pod set main: flavor plain doesn't match node affinity, "
        "insufficient unused quota for cpu in flavor zoned, 1 more needed"
    )
    record = condition("QuotaReserved", False, "WaitingForQuota", message)
    explanation = run(_two_flavors(KUEUE, record=record))
    assert explanation.verdict is Verdict.WAITING_FOR_QUOTA
    codes = step_codes(explanation)
    assert "flavors.recorded-exclusion" in codes
    fits = [s for s in explanation.steps if s.code in ("quota.fits", "quota.in-cohort-fits")]
    assert not [s for s in fits if s.data.get("flavor") == "plain"]  # never "it fits" where Kueue excluded it


def test_admitted_pods_the_label_that_excludes_every_node() -> None:
    the_job = job(parallelism=1, suspend=False)
    wl = workload(of=the_job, status=reserved("cq", assignment("main", 1, default={"cpu": "1"})))
    waiting = pod("train-0", owned_by=the_job, spec={**cpu_spec("1"), "nodeSelector": {"pool": "gpu-a100"}})
    nodes = [node("n1", {"pool": "cpu"}), node("n2", {"pool": "cpu"})]
    message = "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."
    objects = [*cluster(), the_job, wl, waiting, *nodes, event(waiting, "FailedScheduling", message, type="Warning")]
    explanation = run(objects)
    assert explanation.verdict is Verdict.PODS_PENDING
    assert "scheduling.label-excludes" in step_codes(explanation)
    assert "None of the 2 known nodes has the label pool=gpu-a100" in said(explanation)
    assert "2 × node(s) didn't match Pod's node affinity/selector" in said(explanation)
    assert "check-node-selector" in action_codes(explanation)
