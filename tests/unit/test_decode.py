"""Raw objects of either Kueue API version -> the engine's model; and the test builders are valid objects."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from bot.kube.decode import DecodeError, decode, parse_time
from bot.trace.model import (
    ClusterQueue,
    Cohort,
    Condition,
    Event,
    Job,
    LocalQueue,
    Meta,
    OwnerRef,
    PendingEntry,
    Pod,
    PriorityClass,
    ResourceFlavor,
    Toleration,
    Workload,
)

from tests.builders import (
    KUEUE,
    KUEUE_V1BETA1,
    NOW,
    Raw,
    admission_check,
    ago,
    as_yaml,
    assignment,
    check_state,
    cluster,
    cluster_queue,
    cohort,
    condition,
    container,
    cpu_group,
    event,
    job,
    jobset,
    local_queue,
    node,
    pending,
    pending_summary,
    pod,
    pod_set,
    pod_spec,
    priority_class,
    reserved,
    resource_flavor,
    taint,
    toleration,
    workload,
)
from tests.fakes.kube_schema import dump_problems
from tests.paths import SHARED_TOOLS


def one(raw: Raw) -> object:
    [decoded] = decode(raw)
    return decoded


# --- v1beta1 and v1beta2 field names ---------------------------------------------------------------


@pytest.mark.parametrize("version", [KUEUE, KUEUE_V1BETA1])
def test_cluster_queue_cohort_and_admission_checks(version: str) -> None:
    cq = one(cluster_queue("cq", cohort="pool", checks=["prov", "multikueue"], api_version=version))
    assert isinstance(cq, ClusterQueue)
    assert cq.cohort == "pool"
    assert [name for name, _ in cq.admission_checks] == ["prov", "multikueue"]


def test_v1beta2_admission_checks_on_flavors() -> None:
    raw = cluster_queue("cq")
    raw["spec"]["admissionChecksStrategy"] = {"admissionChecks": [{"name": "prov", "onFlavors": ["gpu"]}]}
    cq = one(raw)
    assert isinstance(cq, ClusterQueue)
    assert cq.admission_checks == (("prov", ("gpu",)),)


@pytest.mark.parametrize("version", [KUEUE, KUEUE_V1BETA1])
def test_workload_priority_class(version: str) -> None:
    wl = one(workload("wl", priority=500, priority_class="etl-critical", api_version=version))
    assert isinstance(wl, Workload)
    assert (wl.priority, wl.priority_class) == (500, "etl-critical")


def test_v1beta1_local_queue_with_flavor_usage() -> None:
    raw = local_queue(api_version=KUEUE_V1BETA1)
    raw["status"] = {
        "flavorUsage": [{"name": "default", "resources": [{"name": "cpu", "total": "4"}]}],
        "conditions": [condition("Active", True, "Ready", "Can submit new workloads to localQueue")],
    }
    lq = one(raw)
    assert isinstance(lq, LocalQueue)
    assert (lq.cluster_queue, lq.stop_policy) == ("cq", "None")
    assert lq.conditions[0].reason == "Ready"


def test_cohort_with_parent_and_quota() -> None:
    co = one(cohort("team", cpu_group(cpu=4, lending=1), parent="org"))
    assert isinstance(co, Cohort)
    assert co.parent == "org"
    quota = co.resource_groups[0].flavors[0].quota("cpu")
    assert quota is not None
    assert (quota.nominal, quota.borrowing_limit, quota.lending_limit) == (Decimal(4), None, Decimal(1))


# --- defaults and details ---------------------------------------------------------------------------


def test_cluster_queue_defaults() -> None:
    raw = cluster_queue("cq")
    del raw["status"]
    cq = one(raw)
    assert isinstance(cq, ClusterQueue)
    assert cq.queueing_strategy == "BestEffortFIFO"
    assert cq.stop_policy == "None"
    assert cq.namespace_selector is None
    assert cq.reservation is None and cq.usage is None
    assert cq.preemption == {
        "withinClusterQueue": "Never",
        "reclaimWithinCohort": "Never",
        "borrowWithinCohort": "Never",
    }


def test_cluster_queue_details() -> None:
    cq = one(
        cluster_queue(
            "cq",
            cpu_group(cpu="500m", borrowing="2", lending=0),
            cohort="pool",
            selector={},
            stop_policy="HoldAndDrain",
            strategy="StrictFIFO",
            reservation={"default": {"cpu": "250m"}},
        )
    )
    assert isinstance(cq, ClusterQueue)
    assert cq.namespace_selector is not None and cq.namespace_selector.matches({})
    assert (cq.stop_policy, cq.queueing_strategy) == ("HoldAndDrain", "StrictFIFO")
    assert cq.reservation == {"default": {"cpu": Decimal("0.25")}}
    quota = cq.resource_groups[0].flavors[0].resources[0]
    assert (quota.nominal, quota.borrowing_limit, quota.lending_limit) == (Decimal("0.5"), Decimal(2), Decimal(0))
    assert cq.flavor_names() == ("default",)


def test_workload_status() -> None:
    raw = workload(
        "wl",
        active=False,
        pod_sets=[pod_set("driver"), pod_set("workers", 4)],
        status=reserved("cq", assignment("workers", 4, default={"cpu": "4"}), admitted=False),
    )
    raw["status"].update(
        requeueState={"count": 2, "requeueAt": ago(-5)},
        admissionChecks=[check_state("prov", "Pending", "waiting for nodes")],
        reclaimablePods=[{"name": "workers", "count": 1}],
        resourceRequests=[{"name": "workers", "resources": {"cpu": "4"}}],
    )
    wl = one(raw)
    assert isinstance(wl, Workload)
    assert wl.active is False
    assert [(p.name, p.count) for p in wl.pod_sets] == [("driver", 1), ("workers", 4)]
    assert wl.holds_quota and not wl.admitted and not wl.finished
    assert wl.admission is not None and wl.admission.cluster_queue == "cq"
    assert wl.admission.assignments[0].flavors == {"cpu": "default"}
    assert wl.requeue is not None and wl.requeue.count == 2
    assert wl.requeue.requeue_at == NOW + timedelta(minutes=5)
    assert [(c.name, c.state, c.message) for c in wl.checks] == [("prov", "Pending", "waiting for nodes")]
    assert wl.reclaimable == {"workers": 1}
    assert wl.resource_requests == (("workers", {"cpu": Decimal(4)}),)


def test_workload_defaults() -> None:
    raw = workload("wl")
    raw["spec"]["podSets"] = [{"template": {"spec": pod_spec()}}]
    del raw["status"]
    wl = one(raw)
    assert isinstance(wl, Workload)
    assert wl.active is True
    assert [(p.name, p.count) for p in wl.pod_sets] == [("main", 1)]
    assert wl.admission is None and wl.requeue is None and wl.conditions == ()


def test_flavor_taints_and_tolerations_defaults() -> None:
    raw = resource_flavor(
        "spot", labels={"pool": "spot"}, taints=[taint("spot", "true")], tolerations=[toleration("x")]
    )
    raw["spec"]["nodeTaints"].append({"key": "gpu", "effect": "NoExecute"})
    flavor = one(raw)
    assert isinstance(flavor, ResourceFlavor)
    assert [str(t) for t in flavor.node_taints] == ["spot=true:NoSchedule", "gpu:NoExecute"]
    assert flavor.tolerations == (Toleration("x", "Equal", "", ""),)
    assert flavor.node_labels == {"pool": "spot"}


def test_pod_template_details() -> None:
    spec = pod_spec(
        container("main", requests={"cpu": "1"}),
        init=[container("proxy", requests={"cpu": "100m"}, restart_policy="Always")],
        node_selector={"zone": "a"},
        tolerations=[toleration("spot", "Exists", effect="NoSchedule")],
        affinity=[[("zone", "In", ["a", "b"])], [("pool", "Exists", [])]],
        overhead={"cpu": "50m"},
        pod_resources={"requests": {"cpu": "2"}, "limits": {"cpu": "4"}},
        gates=["example.com/gate"],
    )
    # a Pod is both a Pod and a job Kueue may manage (a plain pod)
    pod_obj, as_job = decode(pod("p", spec=spec, node="node-1"))
    assert isinstance(pod_obj, Pod) and isinstance(as_job, Job)
    template = pod_obj.template
    assert template.init_containers[0].restart_policy == "Always"
    assert template.node_selector == {"zone": "a"}
    assert template.tolerations == (Toleration("spot", "Exists", "", "NoSchedule"),)
    assert [[(r.key, r.operator, r.values) for r in term] for term in template.affinity_terms] == [
        [("zone", "In", ("a", "b"))],
        [("pool", "Exists", ())],
    ]
    assert template.overhead == {"cpu": Decimal("0.05")}
    assert (template.pod_requests, template.pod_limits) == ({"cpu": Decimal(2)}, {"cpu": Decimal(4)})
    assert template.scheduling_gates == ("example.com/gate",)
    assert pod_obj.node_name == "node-1"
    assert as_job.meta.kind == "Pod" and as_job.templates[0].count == 1


JOB_COUNTS = [
    ("parallelism", job("j", parallelism=4), [("main", 4)]),
    ("completions below parallelism", job("j", parallelism=4, completions=2), [("main", 2)]),
    ("jobset replicas", jobset("js", replicas=3), [("workers", 3)]),
]


@pytest.mark.parametrize(("raw", "expected"), [j[1:] for j in JOB_COUNTS], ids=[j[0] for j in JOB_COUNTS])
def test_job_templates(raw: Raw, expected: list[tuple[str, int]]) -> None:
    decoded = one(raw)
    assert isinstance(decoded, Job)
    assert [(t.name, t.count) for t in decoded.templates] == expected


def test_other_job_kinds() -> None:
    template = {"spec": pod_spec()}
    ray = {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {"name": "r", "namespace": "ns"},
        "spec": {
            "rayClusterSpec": {
                "headGroupSpec": {"template": template},
                "workerGroupSpecs": [{"groupName": "gpu", "replicas": 2, "numOfHosts": 2, "template": template}],
            }
        },
    }
    pytorch = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {
            "pytorchReplicaSpecs": {
                "Master": {"replicas": 1, "template": template},
                "Worker": {"replicas": 3, "template": template},
            }
        },
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "namespace": "ns"},
        "spec": {"replicas": 2, "template": template},
    }
    counts = {}
    for raw in (ray, pytorch, deployment):
        decoded = one(raw)
        assert isinstance(decoded, Job)
        counts[decoded.meta.kind] = [(t.name, t.count) for t in decoded.templates]
    assert counts == {
        "RayJob": [("head", 1), ("gpu", 4)],
        "PyTorchJob": [("master", 1), ("worker", 3)],
        "Deployment": [("main", 2)],
    }


def test_events_of_both_apis() -> None:
    core = one(event(job("train"), "CreatedWorkload", "Created Workload: team-a/job-train-1", at=ago(5)))
    assert isinstance(core, Event)
    assert (core.involved_kind, core.involved_name, core.reason) == ("Job", "train", "CreatedWorkload")
    assert core.last_seen == NOW - timedelta(minutes=5)
    new = one(
        {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": "e", "namespace": "ns"},
            "regarding": {"kind": "Pod", "name": "p", "namespace": "ns"},
            "reason": "FailedScheduling",
            "note": "0/4 nodes are available",
            "type": "Warning",
            "eventTime": "2026-10-14T10:00:00.000000Z",
        }
    )
    assert isinstance(new, Event)
    assert (new.involved_kind, new.message, new.type) == ("Pod", "0/4 nodes are available", "Warning")
    assert new.last_seen == datetime(2026, 10, 14, 10, 0, tzinfo=UTC)


def test_pending_workloads_summary() -> None:
    [_, wl] = pending("train")
    entries = decode(pending_summary((wl, 2, 1)))
    assert entries == [
        PendingEntry(
            namespace="team-a",
            name=wl["metadata"]["name"],
            local_queue="user-queue",
            priority=0,
            position_in_cluster_queue=2,
            position_in_local_queue=1,
        )
    ]


def test_the_other_kueue_kinds() -> None:
    check = one(admission_check("prov"))
    assert getattr(check, "controller", None) == "kueue.x-k8s.io/provisioning-request"
    assert one(priority_class("high", 1000)) == PriorityClass("high", 1000)
    assert len(decode(node("n1", {"zone": "a"}))) == 1


def test_every_field_of_the_metadata_and_the_conditions_lands_in_its_own_place() -> None:
    """Each field of a distinct value, read into the field of its name (their decoders pass them in order)."""
    raw = {
        "apiVersion": KUEUE,
        "kind": "Workload",
        "metadata": {
            "name": "w",
            "namespace": "ns",
            "uid": "u-1",
            "resourceVersion": "42",
            "creationTimestamp": "2026-10-14T10:30:00Z",
            "deletionTimestamp": "2026-10-14T11:00:00Z",
            "labels": {"kueue.x-k8s.io/job-uid": "j-1", "team": "a"},
            "annotations": {"note": "b"},
            "ownerReferences": [
                {"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": "j-1", "controller": True},
                {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "p-1"},
            ],
        },
        "spec": {"queueName": "lq", "podSets": []},
        "status": {
            "conditions": [
                {
                    "type": "QuotaReserved",
                    "status": "False",
                    "reason": "Pending",
                    "message": "waits",
                    "lastTransitionTime": "2026-10-14T10:31:00Z",
                }
            ]
        },
    }
    wl = one(raw)
    assert isinstance(wl, Workload)
    assert wl.meta == Meta(
        kind="Workload",
        name="w",
        namespace="ns",
        api_version=KUEUE,
        uid="u-1",
        created=datetime(2026, 10, 14, 10, 30, tzinfo=UTC),
        labels={"kueue.x-k8s.io/job-uid": "j-1", "team": "a"},
        annotations={"note": "b"},
        owners=(
            OwnerRef(api_version="batch/v1", kind="Job", name="train", uid="j-1", controller=True),
            OwnerRef(api_version="v1", kind="Pod", name="p", uid="p-1", controller=False),
        ),
        resource_version="42",
        deleting=True,
    )
    assert wl.conditions == (
        Condition(
            type="QuotaReserved",
            status="False",
            reason="Pending",
            message="waits",
            since=datetime(2026, 10, 14, 10, 31, tzinfo=UTC),
        ),
    )


NOT_READ = [
    ("ConfigMap", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}),
    ("a Workload of another group", {"apiVersion": "example.com/v1", "kind": "Workload", "metadata": {"name": "w"}}),
    ("no kind", {"metadata": {"name": "x"}}),
    ("empty", {}),
]


@pytest.mark.parametrize("raw", [n[1] for n in NOT_READ], ids=[n[0] for n in NOT_READ])
def test_what_the_engine_does_not_read(raw: Raw) -> None:
    assert decode(raw) == []


MALFORMED = [
    ("no name", {"apiVersion": KUEUE, "kind": "Workload", "metadata": {}}),
    ("no metadata", {"apiVersion": KUEUE, "kind": "ClusterQueue"}),
    ("name not a string", {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": 3}}),
]


@pytest.mark.parametrize("raw", [m[1] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_objects_raise_decode_error(raw: Raw) -> None:
    with pytest.raises(DecodeError):
        decode(raw)


def test_wrong_shapes_are_tolerated() -> None:
    raw = workload("wl")
    raw["spec"] = {"podSets": "not a list", "priority": "high", "active": "yes"}
    raw["status"] = {"conditions": [None, 3, {"type": "QuotaReserved"}], "admission": [], "nominatedClusterNames": 5}
    wl = one(raw)
    assert isinstance(wl, Workload)
    assert wl.pod_sets == () and wl.priority == 0 and wl.active is True and wl.nominated_clusters == ()
    cq = one(
        {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": {"resourceGroups": {"x": 1}}}
    )
    assert isinstance(cq, ClusterQueue) and cq.resource_groups == ()


TIMES = [
    ("2026-10-14T10:30:00Z", datetime(2026, 10, 14, 10, 30, tzinfo=UTC)),
    ("2026-10-14T10:30:00.123456z", datetime(2026, 10, 14, 10, 30, 0, 123456, tzinfo=UTC)),
    ("2026-10-14T12:30:00+02:00", datetime(2026, 10, 14, 12, 30, tzinfo=timezone(timedelta(hours=2)))),
    ("2026-10-14T10:30:00", datetime(2026, 10, 14, 10, 30, tzinfo=UTC)),
    ("yesterday", None),
    ("", None),
    (None, None),
    (1700000000, None),
]


@pytest.mark.parametrize(("text", "expected"), TIMES, ids=[repr(t) for t, _ in TIMES])
def test_parse_time(text: object, expected: datetime | None) -> None:
    assert parse_time(text) == expected


# --- the builders themselves -----------------------------------------------------------------------


def test_the_builders_make_objects_the_crds_accept(tmp_path: Path) -> None:
    the_job = job("train", spec=pod_spec(container(requests={"cpu": "1"}), init=[container("i", limits={"cpu": "2"})]))
    wl = workload(
        of=the_job,
        priority=10,
        priority_class="high",
        status=reserved("cq", assignment("main", 1, default={"cpu": "1"}), admitted=False),
        conditions=[condition("Evicted", True, "PodsReadyTimeout", "Exceeded the PodsReady timeout team-a/x")],
    )
    wl["status"]["admissionChecks"] = [check_state("prov", "Pending")]
    wl["status"]["requeueState"] = {"count": 1, "requeueAt": ago(-5)}
    objects = [
        *cluster(reservation={"default": {"cpu": 1}}, checks=["prov"], strategy="StrictFIFO", cohort="pool"),
        the_job,
        wl,
        workload("old-api", priority_class="high", api_version=KUEUE_V1BETA1),
        cluster_queue("legacy", cohort="pool", checks=["prov"], api_version=KUEUE_V1BETA1),
        local_queue("stopped", stop_policy="HoldAndDrain"),
        local_queue("legacy-lq", api_version=KUEUE_V1BETA1),
        resource_flavor(
            "spot", labels={"a": "b"}, taints=[taint("spot", "true")], tolerations=[toleration("x", "Exists")]
        ),
        cohort("pool", cpu_group(cpu=5, borrowing=1, lending=1), parent="org"),
        cohort("org"),
        admission_check("prov"),
        priority_class("high", 1000),
        pod("train-abc", owned_by=the_job),
        event(the_job, "CreatedWorkload", "Created Workload: team-a/x"),
        node("n1", {"a": "b"}),
        pending_summary((wl, 0, 0)),
    ]
    dump = tmp_path / "builders.yaml"
    dump.write_text(as_yaml(objects))
    assert dump_problems(dump.read_text()) == []
    if not (SHARED_TOOLS / "validate-dump").is_file():
        return  # a clone without the session's shared folder: the vendored CRDs above are the check
    done = subprocess.run(
        [sys.executable, str(SHARED_TOOLS / "validate-dump"), str(dump)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
