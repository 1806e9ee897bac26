"""Issue #11, the families of engine2: ProvisioningRequest checks, maximum execution time, pod groups and
serving workloads, the scheduler's FailedScheduling summary, node labels per Kueue version, and v0.20's
Workload conditions. One case a test, fits/blocked pairs where both exist; each names the Kueue source it
follows. Every Kueue object is checked against the CRDs the tests use (tests/data/kueue/crds)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from bot.trace import scheduling
from bot.trace.codes import Verdict
from bot.trace.explanation import Explanation
from bot.trace.serialize import text

from tests.builders import (
    action_codes,
    ago,
    as_yaml,
    assignment,
    cluster,
    condition,
    event,
    explain_objects,
    job,
    pod,
    reserved,
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
    french = said(explanation, "fr")
    assert "0 nœud(s) sur 5 conviennent" in french and "2 × node(s) had untolerated taint {gpu: true}" in french


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
    assert "It may run 1 h in all (maximum execution time): 1 h used, 0 s left" in english


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
