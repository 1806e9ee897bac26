"""Issue 11, "name the thing in the way" and the root causes: one table case per situation, built from
Kueue's source (cited per case), each asserting the verdict code and the names and numbers that must appear
in the headline and in the whole answer, in English and in French.

- namespaceSelector: the requirement the namespace fails, with the namespace's own value (v0.14
  pkg/scheduler/scheduler.go:423-425 "Workload namespace doesn't match ClusterQueue selector";
  metav1.LabelSelectorAsSelector: matchLabels, then matchExpressions, ANDed).
- Every short resource named, with its amounts, for never-fits and waits (flavorassigner.go lists each
  failing resource of a flavor: "insufficient quota for cpu ..., insufficient quota for pods ...").
- The queue-name annotation: read as a deprecated fallback until v0.14 (jobframework/interface.go
  QueueNameForObject), removed in v0.15.0 (#7271, upstream jobframework/utils.go:178-182 reads the label only);
  v1beta2 objects come from v0.15 or later.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

import pytest
from bot.copy import render
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.decode import decode
from bot.kube.informer import Change
from bot.slack.render import answer_details
from bot.trace.codes import Verdict
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation, Step, named_namespaces
from bot.trace.model import ClusterQueue, Job, LocalQueue, ResourceFlavor, Workload
from bot.trace.serialize import text
from kubernetes import client as k8s_client

from tests.builders import (
    KUEUE_V1BETA1,
    NOW,
    NS,
    Raw,
    action_codes,
    ago,
    as_yaml,
    assignment,
    cluster,
    cluster_queue,
    condition,
    container,
    cpu_spec,
    event,
    explain_objects,
    flavor_quotas,
    group,
    job,
    local_queue,
    namespace,
    pending,
    pending_summary,
    pod,
    pod_spec,
    quota,
    reserved,
    resource_flavor,
    step_codes,
    toleration,
    workload,
)
from tests.cache_support import cache_of
from tests.fakes.kube_schema import dump_problems

V = Verdict
_CACHED = (Workload, LocalQueue, ClusterQueue, ResourceFlavor)
LANGUAGES = ("en", "fr")
QUEUE_ANNOTATION = {"kueue.x-k8s.io/queue-name": "user-queue"}


def said(explanation: Explanation, language: str) -> str:
    """The headline, the steps and the actions as a reader gets them."""
    parts = [explanation.headline, *(s.text for s in explanation.steps), *(a.text for a in explanation.actions)]
    return "\n".join(text(part, language) for part in parts)


@dataclass(frozen=True)
class Case:
    id: str
    objects: list[Raw]
    verdict: Verdict
    headline: tuple[str, ...] = ()  # what the headline must say, in both languages
    says: tuple[str, ...] = ()  # what the answer (headline, steps, actions) must say, in both languages
    steps: tuple[str, ...] = ()  # step codes that must appear
    actions: tuple[str, ...] = ()  # action codes that must appear
    no_actions: tuple[str, ...] = ()  # action codes that must not appear
    not_said: tuple[str, ...] = ()  # what the answer must not say (English)
    name: str = "train"

    def run(self) -> Explanation:
        problems = dump_problems(as_yaml(self.objects))  # every Kueue object validates against the CRDs
        assert not problems, problems
        return explain_objects(self.objects, self.name)


def _selector_cluster(selector: Raw, labels: dict[str, str] | None = None) -> list[Raw]:
    return [
        namespace(labels=labels),
        resource_flavor(),
        cluster_queue("cq", selector=selector),
        local_queue(),
        *pending(),
    ]


def _cpu_pods_queue(cpu: int, pods: int, *, used: dict[str, int] | None = None) -> Raw:
    """ClusterQueue cq: one resource group [cpu, pods], flavor default."""
    return cluster_queue(
        "cq",
        group(["cpu", "pods"], flavor_quotas("default", quota("cpu", cpu), quota("pods", pods))),
        reservation={"default": used} if used else None,
    )


CASES_NAMED = [
    # --- the namespaceSelector: the requirement failed, with the namespace's value -----------------------
    Case(
        "namespaceSelector matchLabels: the namespace has another value",
        _selector_cluster({"matchLabels": {"team": "ml"}}, {"team": "research"}),
        V.NAMESPACE_NOT_ALLOWED,
        headline=("team=ml", "team=research", "cq", NS),
        says=("kubectl label namespace team-a team=ml --overwrite",),
        steps=("cluster-queue.namespace-not-selected",),
        actions=("ask-admin-namespace",),
    ),
    Case(
        "namespaceSelector matchExpressions In: the namespace lacks the label",
        _selector_cluster({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["gold", "silver"]}]}),
        V.NAMESPACE_NOT_ALLOWED,
        headline=("tier In (gold, silver)", "tier"),
        says=("tier=gold",),
    ),
    Case(
        "namespaceSelector matchExpressions NotIn: the namespace has an excluded value",
        _selector_cluster(
            {
                "matchLabels": {"kubernetes.io/metadata.name": NS},
                "matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["sandbox"]}],
            },
            {"env": "sandbox"},
        ),
        V.NAMESPACE_NOT_ALLOWED,
        headline=("env NotIn (sandbox)", "env=sandbox"),
    ),
    Case(
        "namespaceSelector matchExpressions Exists: absent",
        _selector_cluster({"matchExpressions": [{"key": "kueue-enabled", "operator": "Exists"}]}),
        V.NAMESPACE_NOT_ALLOWED,
        headline=("kueue-enabled Exists", "kueue-enabled"),
    ),
    Case(
        "namespaceSelector met: admitted as usual",
        _selector_cluster({"matchLabels": {"team": "ml"}}, {"team": "ml"}),
        V.NOT_YET_EVALUATED,
        not_said=("namespaceSelector requires",),
    ),
    # --- every short resource, with its amounts ----------------------------------------------------------
    Case(
        "never fits: cpu and pods both over the maximum, both named with both amounts",
        [namespace(), resource_flavor(), _cpu_pods_queue(2, 2), local_queue(), *pending(count=3)],
        V.EXCEEDS_MAX_QUOTA,
        headline=("3 cpu", "2 cpu", "pods 3 > 2"),
        says=("cpu 3, pods 3",),
        actions=("ask-admin-quota",),
    ),
    Case(
        "never fits, Kueue's v0.15+ message recorded too: cpu and pods named",
        [
            namespace(),
            resource_flavor(),
            _cpu_pods_queue(2, 2),
            local_queue(),
            *pending(
                count=3,
                conditions=[
                    condition(
                        "QuotaReserved",
                        False,
                        "ExceedsMaxQuota",
                        "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, "
                        "request > maximum capacity (3 > 2), insufficient quota for pods in flavor default, "
                        "request > maximum capacity (3 > 2)",
                    )
                ],
            ),
        ],
        V.EXCEEDS_MAX_QUOTA,
        headline=("3 cpu", "2 cpu", "pods 3 > 2"),
        says=("cpu 3, pods 3",),
    ),
    Case(
        "waits: cpu and pods both short now, both named with how much more",
        [
            namespace(),
            resource_flavor(),
            _cpu_pods_queue(4, 4, used={"cpu": 3, "pods": 3}),
            local_queue(),
            *pending(count=2),
        ],
        V.WAITING_FOR_QUOTA,
        headline=("cpu", "pods 1"),
        says=("cpu 1, pods 1",),
        actions=("wait",),
    ),
    Case(
        "waits: only cpu short: nothing else named",
        [namespace(), resource_flavor(), _cpu_pods_queue(4, 10, used={"cpu": 3}), local_queue(), *pending(count=2)],
        V.WAITING_FOR_QUOTA,
        headline=("cpu", "default"),
        not_said=("also short now", "pods 1"),
    ),
    # --- the queue-name annotation -------------------------------------------------------------------------
    Case(
        "queue named by annotation only, v1beta2 objects (Kueue v0.15+): not managed, use the label",
        [*cluster(), job(queue=None, annotations=QUEUE_ANNOTATION)],
        V.NOT_MANAGED,
        headline=("user-queue", "kueue.x-k8s.io/queue-name", "v0.15"),
        says=("kueue.x-k8s.io/queue-name=user-queue", "kueue.x-k8s.io/v1beta2"),
        steps=("workload.queue-annotation-ignored",),
        actions=("use-queue-label",),
        no_actions=("add-queue-label",),
    ),
    Case(
        "queue named by annotation only, v1beta1 objects, no Workload: the version may be why",
        [
            namespace(),
            resource_flavor(),
            cluster_queue("cq", api_version=KUEUE_V1BETA1),
            local_queue(api_version=KUEUE_V1BETA1),
            job(queue=None, annotations=QUEUE_ANNOTATION),
        ],
        V.WORKLOAD_MISSING,
        says=("v0.15", "kueue.x-k8s.io/queue-name=user-queue", "kueue.x-k8s.io/v1beta1"),
        steps=("workload.queue-annotation-deprecated",),
        actions=("use-queue-label",),
    ),
    Case(
        "queue named by annotation, v1beta1, with its Workload: Kueue < v0.15 read it; the label before upgrading",
        [
            namespace(),
            resource_flavor(),
            cluster_queue("cq", api_version=KUEUE_V1BETA1),
            local_queue(api_version=KUEUE_V1BETA1),
            the_job := job(queue=None, annotations=QUEUE_ANNOTATION),
            workload(of=the_job, api_version=KUEUE_V1BETA1),
        ],
        V.NOT_YET_EVALUATED,
        says=("v0.15", "kueue.x-k8s.io/queue-name=user-queue"),
        steps=("workload.queue-annotation-deprecated",),
    ),
    Case(
        "queue named by the label: nothing said about the annotation",
        [*cluster(), *pending()],
        V.NOT_YET_EVALUATED,
        not_said=("annotation",),
    ),
]


@pytest.mark.parametrize("case", CASES_NAMED, ids=[c.id for c in CASES_NAMED])
def test_the_thing_in_the_way_is_named(case: Case) -> None:
    explanation = case.run()
    codes = step_codes(explanation)
    assert explanation.verdict == case.verdict, codes
    for code in case.steps:
        assert code in codes, codes
    actions = action_codes(explanation)
    for code in case.actions:
        assert code in actions, actions
    for code in case.no_actions:
        assert code not in actions, actions
    for language in LANGUAGES:
        headline = text(explanation.headline, language)
        assert "?" not in headline.replace("?)", ""), headline  # no placeholder left unfilled
        for words in case.headline:
            assert words in headline, (language, words, headline)
        answer = said(explanation, language)
        for words in case.says:
            assert words in answer, (language, words, answer)
    english = said(explanation, "en")
    for words in case.not_said:
        assert words not in english, (words, english)


def test_a_job_short_of_cpu_and_pods_gets_one_request_naming_both() -> None:
    objects = [namespace(), resource_flavor(), _cpu_pods_queue(2, 2), local_queue(), *pending(count=3)]
    asks = [a for a in explain_objects(objects).actions if a.code == "ask-admin-quota"]
    assert len(asks) == 1
    assert asks[0].data["resources"] == ["cpu", "pods"]


def test_shorts_in_two_flavors_are_asked_of_each_flavor() -> None:
    # cpu from flavor a, memory from flavor b (two resource groups): both never fit
    cq = cluster_queue(
        "cq",
        group(["cpu"], flavor_quotas("a", quota("cpu", 2))),
        group(["memory"], flavor_quotas("b", quota("memory", "1Gi"))),
    )
    objects = [
        namespace(),
        resource_flavor("a"),
        resource_flavor("b"),
        cq,
        local_queue(),
        *pending(spec=cpu_spec("4", memory="2Gi")),
    ]
    explanation = explain_objects(objects)
    assert explanation.verdict == V.EXCEEDS_MAX_QUOTA
    asks = {a.text.params["flavor"]: a for a in explanation.actions if a.code == "ask-admin-quota"}
    assert set(asks) == {"a", "b"}
    for language in LANGUAGES:
        headline = text(explanation.headline, language)
        assert "memory 2Gi > 1Gi (b)" in headline, headline


# --- StrictFIFO: the head that blocks the queue, and whether it can ever fit ----------------------------------
# Kueue v0.14 pkg/queue/cluster_queue.go:420-423 (upstream pkg/cache/queue/cluster_queue.go:827-837): a
# StrictFIFO queue requeues an inadmissible head at once, but for a namespace mismatch; a Workload in its
# requeue backoff is kept out of the heap (v0.14 :175-178,194-206; upstream :415-417,474-485).

TEAM_B = "team-b"


def _fifo(*workloads: list[Raw], strategy: str = "StrictFIFO", cpu: int = 8, selector: Raw | None = None) -> list[Raw]:
    objects: list[Raw] = [
        namespace(),
        namespace(TEAM_B, labels={"team": "b"}),
        resource_flavor(),
        cluster_queue(
            "cq", group(["cpu"], flavor_quotas("default", quota("cpu", cpu))), strategy=strategy, selector=selector
        ),
        local_queue(),
        local_queue(namespace=TEAM_B),
    ]
    for items in workloads:
        objects.extend(items)
    return objects


def _big(cpu: str = "12", namespace_name: str = TEAM_B, **wl: Any) -> list[Raw]:
    return pending("big", cpu=cpu, namespace_name=namespace_name, created="2026-10-14T07:00:00Z", **wl)


TRAIN = pending("train", cpu="1", created="2026-10-14T08:00:00Z")


def reserved_cpu(cpu: str) -> Raw:
    """The status of a Workload admitted in cq with `cpu` of flavor default."""
    return reserved("cq", assignment("main", 1, default={"cpu": cpu}))


def cpu_spec_tolerating() -> Raw:
    return pod_spec(container(requests={"cpu": "1"}), tolerations=[toleration("gpu", "Equal", "true", "NoSchedule")])


BACKOFF = [
    condition("Evicted", True, "PodsReadyTimeout", "Exceeded the PodsReady timeout team-b/big"),
    condition("Requeued", False, "PodsReadyTimeout", "Exceeded the PodsReady timeout team-b/big"),
]

CASES_FIFO = [
    Case(
        "StrictFIFO head of another namespace never fits: named in the steps, not in the headline; no 'wait'",
        _fifo(_big(), TRAIN),
        V.NOT_YET_EVALUATED,
        headline=("StrictFIFO", "cq", "cpu 12 > 8"),
        says=("team-b/big", "BestEffortFIFO"),
        steps=("position.strict-fifo-head",),
        actions=("unblock-head",),
        no_actions=("wait",),
    ),
    Case(
        "StrictFIFO head of the same namespace never fits: named in the headline",
        _fifo(_big(namespace_name=NS), TRAIN),
        V.NOT_YET_EVALUATED,
        headline=("team-a/big", "cpu 12 > 8"),
        actions=("unblock-head",),
        no_actions=("wait",),
    ),
    Case(
        "StrictFIFO head waits for capacity in use: named, with what it needs; waiting is right",
        _fifo(
            _big(cpu="6", namespace_name=NS),
            pending("holder", cpu="4", status=reserved_cpu("4")),
            TRAIN,
        ),
        V.NOT_YET_EVALUATED,
        headline=("team-a/big",),
        says=("cpu 2",),
        steps=("position.strict-fifo-head",),
        actions=("wait",),
        no_actions=("unblock-head",),
    ),
    Case(
        "StrictFIFO head in its requeue backoff is not in front (out of the heap): the job is the head",
        _fifo(_big(conditions=BACKOFF), TRAIN),
        V.NOT_YET_EVALUATED,
        not_said=("team-b/big", "StrictFIFO ClusterQueue cq, which"),
    ),
    Case(
        "StrictFIFO head whose requeueAt is still ahead is not in front either",
        _fifo(_big(status={"requeueState": {"count": 1, "requeueAt": "2026-10-14T11:00:00Z"}}), TRAIN),
        V.NOT_YET_EVALUATED,
        not_said=("team-b/big", "StrictFIFO ClusterQueue cq, which"),
    ),
    Case(
        "StrictFIFO head whose namespace the queue does not select does not block",
        _fifo(_big(), TRAIN, selector={"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["b"]}]}),
        V.NOT_YET_EVALUATED,
        not_said=("team-b/big",),
    ),
    Case(
        "BestEffortFIFO: nothing blocks behind a head that never fits",
        _fifo(_big(), TRAIN, strategy="BestEffortFIFO"),
        V.NOT_YET_EVALUATED,
        not_said=("StrictFIFO", "team-b/big"),
        no_actions=("unblock-head",),
    ),
    Case(
        "StrictFIFO head with an untolerated taint never fits: said with the taint",
        [
            namespace(),
            resource_flavor(taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}]),
            cluster_queue("cq", strategy="StrictFIFO"),
            local_queue(),
            *pending("big", cpu="1", created="2026-10-14T07:00:00Z"),
            *pending("train", cpu="1", created="2026-10-14T08:00:00Z", spec=cpu_spec_tolerating()),
        ],
        V.NOT_YET_EVALUATED,
        headline=("team-a/big", "gpu=true:NoSchedule"),
        actions=("unblock-head",),
    ),
    Case(
        "the job is itself the StrictFIFO head and never fits: it is told it holds the queue",
        _fifo(_big(namespace_name=NS), TRAIN),
        V.EXCEEDS_MAX_QUOTA,
        says=("StrictFIFO", "cq", "1"),
        steps=("position.strict-fifo-is-head",),
        actions=("release-head",),
        name="big",
    ),
]


def _partial_big() -> list[Raw]:
    """A head of 12 pods x 1 cpu whose minCount is 4: 12 never fit in 8 cpu, 8 pods do (partial admission)."""
    the_job = job("big", TEAM_B, parallelism=12, annotations={"kueue.x-k8s.io/job-min-parallelism": "4"})
    pod_sets = [{"name": "main", "count": 12, "minCount": 4, "template": {"spec": cpu_spec("1")}}]
    return [the_job, workload(of=the_job, namespace=TEAM_B, pod_sets=pod_sets, created="2026-10-14T07:00:00Z")]


CASES_FIFO.append(
    Case(
        "StrictFIFO head that fits partially (minCount) is not 'never': waiting is right",
        _fifo(_partial_big(), TRAIN),
        V.NOT_YET_EVALUATED,
        steps=("position.strict-fifo-head",),
        actions=("wait",),
        no_actions=("unblock-head",),
    )
)


@pytest.mark.parametrize("case", CASES_FIFO, ids=[c.id for c in CASES_FIFO])
def test_the_strict_fifo_head_is_named(case: Case) -> None:
    test_the_thing_in_the_way_is_named(case)


def test_the_head_is_hidden_from_readers_who_may_not_see_its_namespace() -> None:
    explanation = explain_objects(_fifo(_big(), TRAIN))
    assert named_namespaces([s.text for s in explanation.steps]) == {TEAM_B}
    for language in LANGUAGES:
        hidden = json.dumps(answer_details(explanation, language=language, show_names=False).blocks)
        shown = json.dumps(answer_details(explanation, language=language, show_names=True).blocks)
        assert "team-b/big" not in hidden and "team-b/big" in shown
        assert render("fragment.workload-elsewhere", {}, language) in hidden
    assert "team-b" not in text(explanation.headline, "en")  # the headline reaches summaries, DMs, the App Home


# --- root causes already in the dump: why the pods never became ready -------------------------------------
# Kueue evicts a Workload whose pods are not ready within waitForPodsReady.timeout (PodsReadyTimeout), requeues
# it after a backoff, deactivates it past backoffLimitCount (workload_controller.go); the Job controller deletes
# the evicted job's pods, their events stay. Kubelet: "Failed" + "Failed to pull image ..." (ErrImagePull),
# "BackOff" "Back-off pulling image" (ImagePullBackOff) / "Back-off restarting failed container" (CrashLoopBackOff),
# "FailedMount"; the Job controller's "FailedCreate" carries the API server's refusal (ResourceQuota, LimitRange,
# admission webhook).

IMAGE = "registry.example.com/ml/train:v9"
PULL_FAILED = f'Failed to pull image "{IMAGE}": rpc error: code = NotFound desc = {IMAGE}: not found'
EVICTED = [
    condition("QuotaReserved", False, "PendingEvaluation", ""),
    condition("Evicted", True, "PodsReadyTimeout", "Exceeded the PodsReady timeout team-a/train"),
    condition("Requeued", False, "PodsReadyTimeout", "Exceeded the PodsReady timeout team-a/train"),
]
REQUEUE_AT = {"requeueState": {"count": 2, "requeueAt": "2026-10-14T10:33:00Z"}}


def _evicted_train(*extra: Raw, conditions: list[Raw] | None = None, status: Raw | None = None) -> list[Raw]:
    the_job = job("train", parallelism=2)
    wl = workload(of=the_job, conditions=EVICTED if conditions is None else conditions, status=status or REQUEUE_AT)
    return [*cluster(), the_job, wl, *extra]


def _gone_pod(name: str) -> Raw:
    """A pod of job train that the Job controller deleted on eviction: only its events are left."""
    return pod(name, owned_by=job("train", parallelism=2))


def _waiting(reason: str, message: str = "", *, restarts: int = 0, last: Raw | None = None) -> Raw:
    status: Raw = {"name": "main", "ready": False, "restartCount": restarts, "image": IMAGE}
    status["state"] = {"waiting": {"reason": reason, "message": message}}
    if last is not None:
        status["lastState"] = {"terminated": last}
    return status


def _pod_with(name: str, phase: str, *statuses: Raw, node_name: str = "node-1") -> Raw:
    raw = pod(name, owned_by=job("train", parallelism=2), phase=phase, node=node_name)
    raw["status"]["containerStatuses"] = list(statuses)
    return raw


def _admitted_train(*extra: Raw, pods: int = 2) -> list[Raw]:
    the_job = job("train", parallelism=pods, suspend=False)
    status = reserved("cq", assignment("main", pods, default={"cpu": str(pods)}))
    wl = workload(of=the_job, status=status, conditions=[condition("PodsReady", False, "WaitForStart", "")])
    return [*cluster(), the_job, wl, *extra]


CRASH_LAST = {"reason": "Error", "exitCode": 1}
QUOTA_REFUSAL = (
    'Error creating: pods "train-x7k2p" is forbidden: exceeded quota: compute, requested: cpu=1, used: cpu=8, '
    "limited: cpu=8"
)
LIMIT_REFUSAL = (
    'Error creating: pods "train-x7k2p" is forbidden: maximum cpu usage per Container is 500m, but limit is 1'
)
WEBHOOK_REFUSAL = (
    'Error creating: admission webhook "validate.policy.example.com" denied the request: image registry not allowed'
)

CASES_ROOT = [
    Case(
        "evicted for PodsReadyTimeout, pods gone, their ErrImagePull events left: the image said first",
        _evicted_train(
            event(_gone_pod("train-x7k2p"), "Failed", PULL_FAILED, type="Warning"),
            event(_gone_pod("train-x7k2p"), "BackOff", f'Back-off pulling image "{IMAGE}"'),
            event(_gone_pod("train-q9z4m"), "Failed", PULL_FAILED, type="Warning"),
        ),
        V.REQUEUE_BACKOFF,
        headline=("train-x7k2p", IMAGE, "ErrImagePull", "PodsReadyTimeout", "1"),
        says=("NotFound",),
        steps=("scheduling.pod-trouble",),
        actions=("fix-image",),
        no_actions=("wait-backoff", "check-pods-ready"),
    ),
    Case(
        "evicted, a pod still there in CrashLoopBackOff: the container, its last exit and the logs command",
        _evicted_train(
            _pod_with(
                "train-x7k2p", "Running", _waiting("CrashLoopBackOff", "back-off 5m0s", restarts=6, last=CRASH_LAST)
            )
        ),
        V.REQUEUE_BACKOFF,
        headline=("train-x7k2p", "main", "CrashLoopBackOff", "Error, exit code 1"),
        says=("kubectl logs -n team-a train-x7k2p -c main --previous",),
        actions=("read-crash-logs",),
    ),
    Case(
        "evicted, FailedMount: the volume said",
        _evicted_train(
            event(
                _gone_pod("train-x7k2p"),
                "FailedMount",
                'MountVolume.SetUp failed for volume "data" : configmap "train-config" not found',
                type="Warning",
            )
        ),
        V.REQUEUE_BACKOFF,
        headline=("train-x7k2p", "FailedMount"),
        says=('configmap "train-config" not found',),
        actions=("fix-volumes",),
    ),
    Case(
        "evicted, the job's FailedCreate from a ResourceQuota",
        _evicted_train(event(job("train", parallelism=2), "FailedCreate", QUOTA_REFUSAL, type="Warning")),
        V.REQUEUE_BACKOFF,
        headline=("ResourceQuota", "FailedCreate"),
        says=("exceeded quota: compute", "kubectl describe resourcequota -n team-a"),
        actions=("ask-admin-resource-quota",),
    ),
    Case(
        "evicted, the job's FailedCreate from a LimitRange",
        _evicted_train(event(job("train", parallelism=2), "FailedCreate", LIMIT_REFUSAL, type="Warning")),
        V.REQUEUE_BACKOFF,
        headline=("LimitRange",),
        says=("maximum cpu usage per Container is 500m",),
        actions=("fit-limit-range",),
    ),
    Case(
        "evicted, the job's FailedCreate from an admission webhook",
        _evicted_train(event(job("train", parallelism=2), "FailedCreate", WEBHOOK_REFUSAL, type="Warning")),
        V.REQUEUE_BACKOFF,
        headline=("webhook",),
        says=("validate.policy.example.com",),
        actions=("ask-webhook-owner",),
    ),
    Case(
        "deactivated past the requeuing limit: the cause said in the headline, then reactivate",
        _evicted_train(
            event(_gone_pod("train-x7k2p"), "Failed", PULL_FAILED, type="Warning"),
            conditions=[
                condition("Evicted", True, "DeactivatedDueToRequeuingLimitExceeded", "deactivated"),
                condition("DeactivationTarget", True, "RequeuingLimitExceeded", "deactivated"),
            ],
        ),
        V.DEACTIVATED,
        headline=("train-x7k2p", IMAGE),
        actions=("fix-image", "reactivate"),
    ),
    Case(
        "backoff over, queued again after a PodsReady eviction: the cause still said first",
        _evicted_train(
            event(_gone_pod("train-x7k2p"), "Failed", PULL_FAILED, type="Warning"),
            conditions=[
                condition("Evicted", True, "PodsReadyTimeout", "Exceeded the PodsReady timeout team-a/train"),
                condition("Requeued", True, "BackoffFinished", "The workload backoff was finished"),
            ],
            status={"requeueState": {"count": 2, "requeueAt": "2026-10-14T10:00:00Z"}},
        ),
        V.NOT_YET_EVALUATED,
        says=("train-x7k2p", IMAGE),
        steps=("scheduling.pod-trouble",),
        actions=("fix-image",),
    ),
    Case(
        "another job's pods (train-big-*) are not this job's",
        [
            *_evicted_train(event(pod("train-big-x7k2p"), "Failed", PULL_FAILED, type="Warning")),
            job("train-big"),
        ],
        V.REQUEUE_BACKOFF,
        not_said=("train-big-x7k2p",),
        actions=("wait-backoff",),
    ),
    Case(
        "admitted, pods on a node in ErrImagePull: pods-pending with the image, not 'running'",
        _admitted_train(
            _pod_with("train-x7k2p", "Pending", _waiting("ErrImagePull", PULL_FAILED)),
            _pod_with("train-q9z4m", "Pending", _waiting("ImagePullBackOff", f'Back-off pulling image "{IMAGE}"')),
        ),
        V.PODS_PENDING,
        headline=("train-x7k2p", "1", IMAGE, "ErrImagePull"),
        actions=("fix-image",),
    ),
    Case(
        "admitted, running but crash-looping: running, and why the pods are not ready",
        _admitted_train(
            _pod_with("train-x7k2p", "Running", _waiting("CrashLoopBackOff", "back-off", restarts=3, last=CRASH_LAST)),
            pods=1,
        ),
        V.RUNNING,
        headline=("train-x7k2p", "CrashLoopBackOff"),
        actions=("read-crash-logs",),
    ),
    Case(
        "admitted, no pod created, the job's FailedCreate from a webhook",
        _admitted_train(
            event(job("train", parallelism=2, suspend=False), "FailedCreate", WEBHOOK_REFUSAL, type="Warning")
        ),
        V.PODS_PENDING,
        headline=("webhook", "FailedCreate"),
        says=("validate.policy.example.com",),
    ),
    Case(
        "admitted and ready: an old FailedMount event of a ready pod says nothing",
        _admitted_train(
            ready := {
                **_pod_with("train-x7k2p", "Running", {"name": "main", "ready": True, "image": IMAGE}),
            },
            event(ready, "FailedMount", 'MountVolume.SetUp failed for volume "data"', type="Warning"),
            pods=1,
        ),
        V.RUNNING,
        not_said=("FailedMount", "not ready"),
    ),
    Case(
        "admitted, pods unschedulable: the scheduler's own summary with its counts",
        _admitted_train(
            p := pod("train-x7k2p", owned_by=job("train", parallelism=1, suspend=False)),
            event(
                p,
                "FailedScheduling",
                "0/5 nodes are available: 3 Insufficient cpu, 2 node(s) had untolerated taint {gpu: true}. "
                "preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
                type="Warning",
            ),
            pods=1,
        ),
        V.PODS_PENDING,
        headline=("0/5", "3 Insufficient cpu", "2 node(s) had untolerated taint"),
        says=("3 × Insufficient cpu",),
        steps=("scheduling.node-reasons",),
    ),
]


def _v1beta1_deactivated(reason: str) -> list[Raw]:
    """v0.14 (v1beta1 objects): deactivated past the requeuing limit; the DeactivationTarget is removed once
    the eviction is written (workload_controller.go:236-250)."""
    the_job = job("train", parallelism=2)
    message = "The workload is deactivated due to exceeding the maximum number of re-queuing retries"
    wl = workload(
        of=the_job, active=False, api_version=KUEUE_V1BETA1, conditions=[condition("Evicted", True, reason, message)]
    )
    return [
        namespace(),
        resource_flavor(),
        cluster_queue("cq", api_version=KUEUE_V1BETA1),
        local_queue(api_version=KUEUE_V1BETA1),
        the_job,
        wl,
        event(_gone_pod("train-x7k2p"), "Failed", PULL_FAILED, type="Warning"),
    ]


CASES_ROOT += [
    Case(
        "v1beta1 (v0.14): DeactivatedDueToRequeuingLimitExceeded, the cause said",
        _v1beta1_deactivated("DeactivatedDueToRequeuingLimitExceeded"),
        V.DEACTIVATED,
        headline=("train-x7k2p", IMAGE),
        actions=("fix-image",),
    ),
    Case(
        "an older reason ('Deactivated') with Kueue's message about re-queuing retries: the cause said",
        _v1beta1_deactivated("Deactivated"),
        V.DEACTIVATED,
        headline=("train-x7k2p", IMAGE),
        actions=("fix-image",),
    ),
]


@pytest.mark.parametrize("case", CASES_ROOT, ids=[c.id for c in CASES_ROOT])
def test_the_root_cause_is_said_first(case: Case) -> None:
    test_the_thing_in_the_way_is_named(case)
    explanation = case.run()
    fixes = {"fix-image", "read-crash-logs", "fix-volumes", "ask-admin-resource-quota", "fit-limit-range"}
    fixes |= {"ask-webhook-owner", "fix-pod-config", "check-job-events"}
    codes = action_codes(explanation)
    if any(code in fixes for code in codes):
        assert codes[0] in fixes, codes  # the fix comes before anything else, "wait" included


# --- waitForPodsReady.blockAdmission: the workloads whose pods hold every admission -----------------------
# upstream pkg/cache/scheduler/cache.go:243-260 (every ClusterQueue's WorkloadsNotReady), clusterqueue.go:497-499
# (a Workload is in it from its quota reservation until PodsReady=True), scheduler.go:586-597 (the message);
# v0.14 pkg/cache/cache.go:190-200, scheduler.go:318-325 (legacy reason "Waiting").

WAITS_FOR_PODS = [
    condition(
        "QuotaReserved",
        False,
        "WaitingForPodsReady",
        "waiting for all admitted workloads to be in PodsReady condition",
    )
]


def _holder(name: str, namespace_name: str, cq: str, *, ready: bool = False, admitted: bool = True) -> list[Raw]:
    """A job holding quota in `cq` whose pods are (not) ready; with not ready, its pod cannot pull its image."""
    the_job = job(name, namespace_name, suspend=False)
    status = reserved(cq, assignment("main", 1, default={"cpu": "1"}), at=ago(7), admitted=admitted)
    pods_ready = condition("PodsReady", ready, "PodsReady" if ready else "WaitForStart", "")
    wl = workload(of=the_job, namespace=namespace_name, status=status, conditions=[pods_ready])
    the_pod = pod(f"{name}-x7k2p", namespace_name, owned_by=the_job, phase="Pending", node="node-1")
    if not ready:
        the_pod["status"]["containerStatuses"] = [_waiting("ErrImagePull", PULL_FAILED)]
    return [the_job, wl, the_pod]


def _blocked(*holders: list[Raw], conditions: list[Raw] = WAITS_FOR_PODS) -> list[Raw]:
    objects = [
        *cluster(),
        namespace(TEAM_B),
        cluster_queue("cq2"),
        local_queue(namespace=TEAM_B, cluster_queue="cq2"),
        *pending(conditions=conditions),
    ]
    for items in holders:
        objects.extend(items)
    return objects


CASES_PODS_READY = [
    Case(
        "blockAdmission: the not-ready workload of another ClusterQueue and namespace, and why its pods wait",
        _blocked(_holder("loader", TEAM_B, "cq2")),
        V.WAITING_FOR_PODS_READY,
        headline=("cq2", "waitForPodsReady.blockAdmission", "1"),
        says=("team-b/loader", "loader-x7k2p", IMAGE, "7 min"),
        steps=("position.pods-ready-blocker",),
        actions=("wait-pods-ready", "unblock-pods-ready"),
        not_said=("Wait: Kueue will admit it when its turn comes",),
    ),
    Case(
        "blockAdmission: a blocker of the same namespace is named in the headline",
        _blocked(_holder("loader", NS, "cq")),
        V.WAITING_FOR_PODS_READY,
        headline=("team-a/loader", "cq"),
    ),
    Case(
        "blockAdmission: quota reserved but not admitted yet (admission checks) counts too",
        _blocked(_holder("loader", TEAM_B, "cq2", admitted=False)),
        V.WAITING_FOR_PODS_READY,
        says=("team-b/loader",),
    ),
    Case(
        "blockAdmission: a workload whose pods are ready holds nothing; none left: the block is over",
        _blocked(_holder("loader", TEAM_B, "cq2", ready=True)),
        V.WAITING_FOR_PODS_READY,
        steps=("position.pods-ready-none",),
        actions=("wait",),
        not_said=("team-b/loader",),
    ),
    Case(
        "blockAdmission: four blockers, the longest-holding three named, the count in the headline",
        _blocked(*(_holder(f"loader-{i}", TEAM_B, "cq2") for i in range(4))),
        V.WAITING_FOR_PODS_READY,
        headline=("4",),
        steps=("position.pods-ready-more",),
    ),
    Case(
        "blockAdmission, v0.14's legacy reason 'Waiting' with the same message",
        _blocked(
            _holder("loader", TEAM_B, "cq2"),
            conditions=[
                condition(
                    "QuotaReserved", False, "Waiting", "waiting for all admitted workloads to be in PodsReady condition"
                )
            ],
        ),
        V.WAITING_FOR_PODS_READY,
        says=("team-b/loader",),
    ),
]


@pytest.mark.parametrize("case", CASES_PODS_READY, ids=[c.id for c in CASES_PODS_READY])
def test_the_workloads_holding_admission_are_named(case: Case) -> None:
    test_the_thing_in_the_way_is_named(case)


def test_holders_of_admission_are_the_longest_holding_first() -> None:
    # "zz" of team-b has held its quota for 30 min, "aa" of team-a for 7: zz first, whatever the names say
    early = _holder("zz", TEAM_B, "cq2")
    early[1]["status"]["conditions"] = [
        {**c, "lastTransitionTime": ago(30)} if c["type"] == "QuotaReserved" else c
        for c in early[1]["status"]["conditions"]
    ]
    explanation = explain_objects(_blocked(_holder("aa", NS, "cq"), early))
    blockers = [s.data["blocker"] for s in explanation.steps if s.code == "position.pods-ready-blocker"]
    assert blockers == ["team-b/zz", "team-a/aa"]


# --- positions: bug (a), LocalQueues counted by name alone before v0.18 -----------------------------------
# v0.14 pkg/visibility/api/v1beta1/pending_workloads_cq.go:76-86 (localQueuePositions keyed by the queue name)
# and pending_workloads_lq.go:80-92 (every Workload whose queue name matches, any namespace); #10672, #14431.


def _default_queues() -> list[Raw]:
    """LocalQueue "default" in team-a and in team-b and team-a's user-queue, all feeding cq; Workloads a1 (team-a
    default), u1 (user-queue), b1 (team-b default), a2 (team-a default), in queue order."""
    return [
        *cluster(),
        namespace(TEAM_B),
        local_queue("default"),
        local_queue("default", namespace=TEAM_B),
        *pending("a1", queue="default", created="2026-10-14T07:00:00Z"),
        *pending("u1", created="2026-10-14T07:15:00Z"),
        *pending("b1", queue="default", namespace_name=TEAM_B, created="2026-10-14T07:30:00Z"),
        *pending("a2", queue="default", created="2026-10-14T08:00:00Z"),
    ]


def _workload_named(objects: list[Raw], name: str, namespace_name: str = NS) -> Raw:
    return next(
        o
        for o in objects
        if o["kind"] == "Workload"
        and o["metadata"]["namespace"] == namespace_name
        and o["metadata"]["ownerReferences"][0]["name"] == name
    )


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # the ClusterQueue endpoint before v0.18: a2 counted 3rd in "default" (b1 of team-b's "default" too)
        ((("a1", NS, 0, 0), ("u1", NS, 1, 0), ("b1", TEAM_B, 2, 1), ("a2", NS, 3, 2)), (4, 2)),
        # the LocalQueue endpoint of team-a/default before v0.18: b1 of team-b listed and counted
        ((("a1", NS, 0, 0), ("b1", TEAM_B, 2, 1), ("a2", NS, 3, 2)), (4, 2)),
        # v0.18+: counted by (namespace, name) already: kept as given
        ((("a1", NS, 0, 0), ("u1", NS, 1, 0), ("b1", TEAM_B, 2, 0), ("a2", NS, 3, 1)), (4, 2)),
        # a page that does not start at the head cannot be ranked again: kept as given
        ((("b1", TEAM_B, 2, 1), ("a2", NS, 3, 2)), (4, 3)),
    ],
    ids=["cq-endpoint-by-name", "lq-endpoint-by-name", "v0.18-already-right", "not-from-the-head"],
)
def test_positions_are_ranked_by_namespace_and_local_queue(
    rows: tuple[tuple[str, str, int, int], ...], expected: tuple[int, int]
) -> None:
    objects = _default_queues()
    summary = pending_summary(*((_workload_named(objects, n, ns), cq, lq) for n, ns, cq, lq in rows))
    explanation = explain_objects([*objects, summary], "a2")
    assert explanation.position is not None
    assert (explanation.position.cluster_queue, explanation.position.local_queue) == expected
    assert explanation.position.source == "visibility-api"


# --- positions: bug (b), a stopped LocalQueue is not in Kueue's queue manager ------------------------------
# pkg/controller/core/localqueue_controller.go: Create adds the LocalQueue to the queue manager only when its
# stopPolicy is None; Update deletes it when it stops. Its Workloads have no place and nobody waits behind them,
# in the trace (MemorySnapshot) and in the live cache's order (bot.kube.cache_index).


def _stopped_elsewhere() -> list[Raw]:
    return [
        *cluster(),
        namespace(TEAM_B),
        local_queue("held", namespace=TEAM_B, stop_policy="Hold"),
        *pending("older", queue="held", namespace_name=TEAM_B, created="2026-10-14T07:00:00Z"),
        *pending("train", created="2026-10-14T08:00:00Z"),
    ]


def test_a_stopped_local_queue_waits_ahead_of_nobody_in_the_trace() -> None:
    explanation = explain_objects(_stopped_elsewhere())
    assert explanation.position is not None and explanation.position.cluster_queue == 1
    held = explain_objects(_stopped_elsewhere(), "older", namespace=TEAM_B)
    assert held.verdict == V.QUEUE_STOPPED and held.position is None


def test_a_stopped_local_queue_is_out_of_the_live_cache_order() -> None:
    cache = ClusterCache(KubeClient(k8s_client.ApiClient()), clock=lambda: NOW)
    decoded = [item for raw in _stopped_elsewhere() for item in decode(raw)]
    cache.apply([Change(type(o).__name__, "upsert", o.meta.key, o) for o in decoded if isinstance(o, _CACHED)])
    older = cache.workload(TEAM_B, _workload_named(_stopped_elsewhere(), "older", TEAM_B)["metadata"]["name"])
    train = cache.workload(NS, _workload_named(_stopped_elsewhere(), "train")["metadata"]["name"])
    assert older is not None and train is not None
    assert [w.name for w in cache.pending_in("cq")] == [train.name]
    assert cache.position_in("cq", train) == (0, 0) and cache.position_in("cq", older) is None
    # resumed, its Workload is back at its place, ahead of the younger one
    resumed = next(o for o in decoded if isinstance(o, LocalQueue) and o.meta.namespace == TEAM_B)
    cache.apply([Change("LocalQueue", "upsert", resumed.meta.key, replace(resumed, stop_policy="None"))])
    assert [w.name for w in cache.pending_in("cq")] == [older.name, train.name]
    assert cache.position_in("cq", train) == (1, 0)


def test_the_head_is_evaluated_again_once_the_usage_changes() -> None:
    # views of the live cache share what they derive (the head's evaluation among it) while the queues are the
    # same: a change of usage must still be seen (quota.usage_inputs)
    holder = pending("holder", cpu="4", status=reserved_cpu("4"))
    objects = _fifo(_big(cpu="6", namespace_name=NS), holder, TRAIN)
    cache = cache_of(objects)
    query = Query(NS, "train", "Job")

    def head_step() -> Step:
        explanation = explain(
            cache.view(NS, [o for raw in objects for o in decode(raw) if isinstance(o, Job)]), query, now=NOW
        )
        return next(s for s in explanation.steps if s.code == "position.strict-fifo-head")

    assert head_step().text.params.get("head_detail") == "cpu 2"
    assert head_step().text.params.get("head_detail") == "cpu 2"  # the memo's answer is the same
    cache.apply([Change("Workload", "delete", (NS, holder[1]["metadata"]["name"]))])
    assert "head_detail" not in head_step().text.params  # 6 cpu are free now: it fits
