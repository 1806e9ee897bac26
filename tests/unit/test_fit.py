"""Will it fit? The dry run's engine (bot.fit) and the job file reader (bot.kube.jobfile): the Workload Kueue
would make of a job not yet created, and now / later / never as the engine decides it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import timedelta

import pytest
import yaml
from bot.errors import JobFileInvalid
from bot.fit.decide import ADMITTED, LATER, NEVER, NOW, Fitting, fit
from bot.fit.serialize import fit_json
from bot.kube.jobfile import draft_of, parse_job_text
from bot.terminal import render_fit_text

from tests.builders import (
    NOW as CLOCK,
)
from tests.builders import (
    NS,
    Raw,
    assignment,
    cluster,
    cluster_queue,
    container,
    cpu_group,
    cpu_spec,
    flavor_quotas,
    group,
    job,
    jobset,
    local_queue,
    namespace,
    pending,
    pod_spec,
    priority_class,
    quota,
    reserved,
    resource_flavor,
    snapshot,
    taint,
)
from tests.fit_support import pending_scenarios, take_out


def applied(raw: Raw) -> Raw:
    """The job as its owner would write it: no uid, no status, no creation time."""
    meta = {k: v for k, v in raw["metadata"].items() if k in ("name", "namespace", "labels", "annotations")}
    return {"apiVersion": raw["apiVersion"], "kind": raw["kind"], "metadata": meta, "spec": raw["spec"]}


def fit_of(objects: Sequence[Raw], the_job: Raw, namespace_name: str = NS) -> Fitting:
    return fit(snapshot(objects), draft_of(applied(the_job)), namespace=namespace_name, now=CLOCK)


def running(name: str, cpu: str, flavor: str = "default", cq: str = "cq") -> list[Raw]:
    """A job holding `cpu` of `flavor` in `cq`."""
    return pending(name, cpu=cpu, status=reserved(cq, assignment("main", 1, **{flavor: {"cpu": cpu}})))


# --- now, later, never ------------------------------------------------------------------------------------


def test_a_job_that_fits_the_free_quota_is_admitted_now_in_its_flavor() -> None:
    result = fit_of(cluster(cpu=10), job("train", parallelism=4, spec=cpu_spec("2")))
    assert (result.fits, result.verdict) == (NOW, ADMITTED)
    answer = fit_json(result)
    assert answer["flavors"] == {"main": {"cpu": "default"}}
    assert (answer["localQueue"], answer["clusterQueue"]) == ("user-queue", "cq")
    assert answer["demand"] == {"cpu": "8", "pods": "4"}
    assert answer["eta"] is None
    assert "admitted at once" in answer["headline"]


def test_a_job_that_waits_for_quota_others_use_takes_the_last_place_among_equals() -> None:
    objects = [*cluster(cpu=10), *running("busy", "8"), *pending("first", cpu="4"), *pending("second", cpu="4")]
    result = fit_of(objects, job("train", spec=cpu_spec("4")))
    assert (result.fits, result.verdict) == (LATER, "waiting-for-quota")
    position = fit_json(result)["position"]
    assert (position["clusterQueue"], position["localQueue"]) == (3, 3)


def test_a_higher_priority_job_goes_ahead_of_the_waiting_ones() -> None:
    objects = [*cluster(cpu=10), *running("busy", "8"), *pending("first", cpu="4"), priority_class("urgent", 100)]
    urgent = job("train", spec=cpu_spec("4"), labels={"kueue.x-k8s.io/priority-class": "urgent"})
    result = fit_of(objects, urgent)
    answer = fit_json(result)
    assert (answer["fits"], answer["priority"], answer["position"]["clusterQueue"]) == (LATER, 100, 1)


def test_a_job_larger_than_the_queue_can_ever_give_never_fits_with_one_verified_change() -> None:
    result = fit_of(cluster(cpu=4), job("train", parallelism=3, spec=cpu_spec("2")))
    assert (result.fits, result.verdict) == (NEVER, "exceeds-max-quota")
    what_if = fit_json(result)["what_if"]
    assert what_if is not None and what_if["changes"], "a change that works is offered"
    assert what_if["changes"][0]["change"] == "fewer-pods"


@pytest.mark.parametrize(
    ("objects", "the_job", "verdict"),
    [
        pytest.param(cluster(), job("train", queue="nope"), "local-queue-missing", id="local-queue-missing"),
        pytest.param(cluster(stop_policy="Hold"), job("train"), "queue-stopped", id="queue-stopped"),
        pytest.param(
            cluster(selector={"matchLabels": {"team": "b"}}), job("train"), "namespace-not-allowed", id="namespace"
        ),
        pytest.param(
            [namespace(), cluster_queue("cq", cpu_group(flavor="gone")), local_queue()],
            job("train"),
            "queue-inactive",
            id="queue-inactive",
        ),
        pytest.param(cluster(), job("train", queue=None), "not-managed", id="no-queue-name"),
        pytest.param(
            [
                namespace(),
                resource_flavor("spot", taints=[taint("spot", "true")]),
                cluster_queue("cq", cpu_group("spot")),
                local_queue(),
            ],
            job("train"),
            "no-matching-flavor",
            id="taint",
        ),
        pytest.param(
            cluster(),
            job("train", labels={"kueue.x-k8s.io/priority-class": "missing"}),
            "workload-missing",
            id="priority-class-missing",
        ),
    ],
)
def test_a_job_kueue_would_never_admit_as_configured_gets_the_verdict_it_would_get_once_in(
    objects: list[Raw], the_job: Raw, verdict: str
) -> None:
    result = fit_of(objects, the_job)
    assert (result.fits, result.verdict) == (NEVER, verdict)


def test_a_job_naming_no_queue_goes_to_the_namespace_default_local_queue() -> None:
    objects = [*cluster(), local_queue("default", cluster_queue="cq")]
    result = fit_of(objects, job("train", queue=None))
    assert (result.fits, fit_json(result)["localQueue"]) == (NOW, "default")
    assert "LocalQueue default" in render_fit_text(result)


def test_requests_above_limits_are_refused_before_kueue_sees_them() -> None:
    spec = pod_spec(container(requests={"cpu": "4"}, limits={"cpu": "2"}))
    result = fit_of(cluster(), job("train", spec=spec))
    answer = fit_json(result)
    assert (answer["fits"], answer["verdict"]) == (NEVER, "invalid-request")
    assert "above its limit" in answer["steps"][0]["text"]


def test_flavor_fungibility_takes_the_next_flavor_when_the_first_is_full() -> None:
    two = group(["cpu"], flavor_quotas("small", quota("cpu", 4)), flavor_quotas("big", quota("cpu", 16)))
    objects = [
        namespace(),
        resource_flavor("small"),
        resource_flavor("big"),
        cluster_queue("cq", two),
        local_queue(),
        *running("busy", "4", flavor="small"),
    ]
    result = fit_of(objects, job("train", spec=cpu_spec("2")))
    assert result.fits == NOW
    assert fit_json(result)["flavors"] == {"main": {"cpu": "big"}}


# --- the Workload Kueue would make: pod sets, counts, the pod-request rules ---------------------------------


def test_limits_stand_in_for_requests_and_init_containers_count_by_their_peak() -> None:
    spec = pod_spec(
        container("a", requests={"cpu": "1"}, limits={"cpu": "2", "nvidia.com/gpu": "1"}),
        init=[container("setup", requests={"cpu": "3"})],
    )
    result = fit_of(cluster(cpu=100), job("train", parallelism=2, spec=spec))
    assert fit_json(result)["demand"] == {"cpu": "6", "nvidia.com/gpu": "2", "pods": "2"}


def test_min_parallelism_gives_the_pod_set_a_minimum_count() -> None:
    the_job = job("train", parallelism=4, annotations={"kueue.x-k8s.io/job-min-parallelism": "2"})
    built = fit_of(cluster(), the_job).built
    assert built is not None and built.workload is not None
    assert built.workload.pod_sets[0].min_count == 2


def test_a_jobset_has_a_pod_set_per_replicated_job() -> None:
    result = fit_of(cluster(cpu=10), jobset("sweep", replicas=3))
    assert fit_json(result)["demand"] == {"cpu": "3", "pods": "3"}
    assert result.built is not None and result.built.workload is not None
    assert result.built.workload.name.startswith("jobset-sweep-")


RAYJOB = """
apiVersion: ray.io/v1
kind: RayJob
metadata: {name: ray, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  rayClusterSpec:
    headGroupSpec: {template: {spec: {containers: [{name: head, resources: {requests: {cpu: "1"}}}]}}}
    workerGroupSpecs:
    - groupName: gpu
      replicas: 2
      template: {spec: {containers: [{name: w, resources: {requests: {cpu: "2"}}}]}}
"""
MPIJOB = """
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: mpi, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  mpiReplicaSpecs:
    Launcher: {replicas: 1, template: {spec: {containers: [{name: l, resources: {requests: {cpu: "1"}}}]}}}
    Worker: {replicas: 2, template: {spec: {containers: [{name: w, resources: {requests: {cpu: "2"}}}]}}}
"""
TRAINJOB = """
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {numNodes: 3, resourcesPerNode: {requests: {cpu: "2"}}}
"""
DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  replicas: 5
  template: {spec: {containers: [{name: w, resources: {requests: {cpu: "1"}}}]}}
"""
POD_GROUP = """
apiVersion: v1
kind: Pod
metadata:
  name: member-0
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: group}
  annotations: {kueue.x-k8s.io/pod-group-total-count: "4"}
spec: {containers: [{name: w, resources: {requests: {cpu: "1"}}}]}
"""


@pytest.mark.parametrize(
    ("text", "pod_sets"),
    [
        pytest.param(RAYJOB, {"head": 1, "gpu": 2, "submitter": 1}, id="rayjob-with-its-submitter"),
        pytest.param(MPIJOB, {"launcher": 1, "worker": 2}, id="mpijob"),
        pytest.param(TRAINJOB, {"node": 3}, id="trainjob"),
        pytest.param(DEPLOYMENT, {"main": 1}, id="deployment-one-workload-per-pod"),
        pytest.param(POD_GROUP, {"main": 4}, id="pod-group-of-its-total-count"),
    ],
)
def test_each_kind_gets_the_pod_sets_kueue_makes_of_it(text: str, pod_sets: dict[str, int]) -> None:
    draft = parse_job_text(text)
    both = group(["cpu", "memory"], flavor_quotas("default", quota("cpu", 100), quota("memory", "100Gi")))
    objects = [namespace(), resource_flavor(), cluster_queue("cq", both), local_queue()]
    result = fit(snapshot(objects), draft, namespace=NS, now=CLOCK)
    assert result.built is not None and result.built.workload is not None
    assert {p.name: p.count for p in result.built.workload.pod_sets} == pod_sets
    assert result.fits == NOW


def test_a_deployment_says_the_answer_is_for_one_of_its_pods() -> None:
    result = fit(snapshot(cluster(cpu=100)), parse_job_text(DEPLOYMENT), namespace=NS, now=CLOCK)
    assert "5 pods" in render_fit_text(result)


# --- a job file that is not one job -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        pytest.param("", "is empty", id="empty"),
        pytest.param("a: [1", "not valid YAML", id="not-yaml"),
        pytest.param(RAYJOB + "\n---\n" + MPIJOB, "holds 2 documents", id="two-documents"),
        pytest.param("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "not a job kind", id="configmap"),
        pytest.param("apiVersion: x/v1\nkind: Frobnicator\nmetadata: {name: x}\n", "Frobnicator", id="unknown"),
        pytest.param("apiVersion: v1\nkind: List\nmetadata: {}\nitems: []\n", "give one job", id="list"),
        pytest.param("- 1\n- 2\n", "not a Kubernetes object", id="a-list-of-numbers"),
        pytest.param("a: &x [1]\nb: *x\n", "not valid YAML", id="aliases"),
    ],
)
def test_a_file_that_is_not_one_job_gets_one_clear_line(text: str, said: str) -> None:
    with pytest.raises(JobFileInvalid) as raised:
        parse_job_text(text, "job.yaml")
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)


def test_json_is_read_as_well_as_yaml() -> None:
    text = json.dumps(applied(job("train")))
    assert parse_job_text(text).job.meta.name == "train"


# --- every pending scenario, its job taken out and given as a file ------------------------------------------


@pytest.mark.parametrize("name", pending_scenarios())
def test_fit_predicts_the_verdict_the_job_got_once_in(name: str) -> None:
    taken = take_out(name)
    now = yaml.safe_load(f"t: {taken.now}")["t"]
    query = taken.expect["query"]
    result = fit(snapshot(taken.cluster), draft_of(taken.job), namespace=query["namespace"], now=now)
    assert result.verdict == taken.expect["verdict"]
    assert result.fits == (LATER if taken.expect["verdict"] == "waiting-for-quota" else NEVER)


def test_a_job_submitted_later_sorts_behind_the_ones_already_waiting() -> None:
    taken = take_out("waiting-for-quota-computed-position")
    now = yaml.safe_load(f"t: {taken.now}")["t"] + timedelta(minutes=1)
    result = fit(snapshot(taken.cluster), draft_of(taken.job), namespace="ml-vision", now=now)
    position = fit_json(result)["position"]
    assert position["clusterQueue"] == position["pendingInClusterQueue"] == 5


def test_behind_a_strict_fifo_head_that_waits_it_waits_too_even_with_room_for_itself() -> None:
    objects = [*cluster(cpu=10, strategy="StrictFIFO"), *running("busy", "6"), *pending("head", cpu="8")]
    result = fit_of(objects, job("train", spec=cpu_spec("1")))
    assert result.fits == LATER
    assert fit_json(result)["position"]["clusterQueue"] == 2
