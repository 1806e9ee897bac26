"""Job -> Workload, every way Kueue links them (FACTS §2.4), and the names of kinds."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bot.trace.resolve import canonical_kind, other_namespaces, resolve, similar_jobs, workload_name

from tests.builders import (
    NS,
    Raw,
    ago,
    condition,
    event,
    job,
    jobset,
    kueue_name,
    namespace,
    owner,
    pod,
    pod_set,
    snapshot,
    workload,
)
from tests.paths import WORKLOAD_NAME_VECTORS

VECTORS: list[dict[str, Any]] = json.loads(WORKLOAD_NAME_VECTORS.read_text())["vectors"]

LONG = [v for v in VECTORS if "ownerUID" in v and not v["ownerUID"].startswith("(")]


@pytest.mark.parametrize(
    "vector",
    [v for v in LONG if "expected" in v],
    ids=lambda v: f"{v['kind']}-{v['ownerName'][:24]}-{v.get('extra') or 'no-extra'}",
)
def test_workload_name_vectors(vector: dict[str, Any]) -> None:
    name = workload_name(vector["kind"], vector["group"], vector["ownerName"], vector["ownerUID"], vector["extra"])
    assert name == vector["expected"]


@pytest.mark.parametrize(
    "vector",
    [v for v in LONG if "expectedShortWorkloadNames" in v],
    ids=lambda v: f"{v['kind']}-{v['ownerName'][:24]}-short",
)
def test_short_workload_name_vectors(vector: dict[str, Any]) -> None:
    name = workload_name(
        vector["kind"], vector["group"], vector["ownerName"], vector["ownerUID"], vector["extra"], max_length=63
    )
    assert name == vector["expectedShortWorkloadNames"]
    assert len(name) <= 63


KINDS = [
    ("job", "Job"),
    ("Job", "Job"),
    ("jobs", "Job"),
    ("jobs.batch", "Job"),
    ("job.batch", "Job"),
    ("rayjob", "RayJob"),
    ("rayjobs.ray.io", "RayJob"),
    ("RayCluster", "RayCluster"),
    ("pytorchjobs.kubeflow.org", "PyTorchJob"),
    ("mpijobs", "MPIJob"),
    ("jobset", "JobSet"),
    ("jobsets.jobset.x-k8s.io", "JobSet"),
    ("trainjobs", "TrainJob"),
    ("appwrappers", "AppWrapper"),
    ("po", "Pod"),
    ("pods", "Pod"),
    ("deploy", "Deployment"),
    ("sts", "StatefulSet"),
    ("statefulsets.apps", "StatefulSet"),
    ("lws", "LeaderWorkerSet"),
    ("kwl", "Workload"),
    ("wl", "Workload"),
    ("workloads.kueue.x-k8s.io", "Workload"),
    ("kueueworkloads", "Workload"),
    (" Job ", "Job"),
    ("", None),
    (None, None),
    ("cronjob", None),
    ("service", None),
]


@pytest.mark.parametrize(("text", "expected"), KINDS, ids=[repr(k) for k, _ in KINDS])
def test_canonical_kind(text: str | None, expected: str | None) -> None:
    assert canonical_kind(text) == expected


# --- resolution -------------------------------------------------------------------------------------

TRAIN = job("train")


def unlinked(wl: Raw) -> Raw:
    """The Workload without its job-uid label and owner references."""
    wl["metadata"]["labels"].pop("kueue.x-k8s.io/job-uid", None)
    wl["metadata"].pop("ownerReferences", None)
    return wl


def label_only(wl: Raw) -> Raw:
    wl["metadata"].pop("ownerReferences", None)
    return wl


def owner_only(wl: Raw) -> Raw:
    wl["metadata"]["labels"].pop("kueue.x-k8s.io/job-uid", None)
    return wl


LONG_JOB = job("marketing-campaign-autumn-2024-region-north-america-daily-aggregation")
PREBUILT_JOB = job("train", labels={"kueue.x-k8s.io/prebuilt-workload-name": "my-prebuilt"})
PREBUILT_ANNOTATED = job("train", annotations={"kueue.x-k8s.io/prebuilt-workload-name": "my-prebuilt"})
GROUP_POD = pod("train", labels={"kueue.x-k8s.io/pod-group-name": "my-group"})
JS = jobset("train-js")

RESOLUTIONS = [
    ("job-uid label", [TRAIN, label_only(workload(of=TRAIN))], "train", "Job", "job-uid-label"),
    ("owner reference", [TRAIN, owner_only(workload(of=TRAIN))], "train", "Job", "owner-reference"),
    ("computed name", [TRAIN, unlinked(workload(of=TRAIN))], "train", "Job", "name"),
    (
        "computed short name (ShortWorkloadNames)",
        [
            LONG_JOB,
            unlinked(
                workload(
                    kueue_name("Job", "batch", LONG_JOB["metadata"]["name"], LONG_JOB["metadata"]["uid"], 63),
                    of=LONG_JOB,
                )
            ),
        ],
        LONG_JOB["metadata"]["name"],
        "Job",
        "name",
    ),
    ("prebuilt name (label)", [PREBUILT_JOB, workload("my-prebuilt")], "train", "Job", "prebuilt"),
    ("prebuilt name (annotation)", [PREBUILT_ANNOTATED, workload("my-prebuilt")], "train", "Job", "prebuilt"),
    ("pod group label", [GROUP_POD, workload("my-group")], "train", "Pod", "pod-group"),
    (
        "CreatedWorkload event",
        [TRAIN, workload("custom-name"), event(TRAIN, "CreatedWorkload", f"Created Workload: {NS}/custom-name")],
        "train",
        "Job",
        "event",
    ),
    ("the Workload itself", [workload("wl-x")], "wl-x", "Workload", "workload"),
    ("any kind", [TRAIN, workload(of=TRAIN)], "train", None, "job-uid-label"),
]


@pytest.mark.parametrize(
    ("objects", "name", "kind", "how"), [r[1:] for r in RESOLUTIONS], ids=[r[0] for r in RESOLUTIONS]
)
def test_resolve(objects: list[Raw], name: str, kind: str | None, how: str) -> None:
    found = resolve(snapshot(objects), NS, name, kind)
    assert found.workload is not None
    assert found.how == how
    if kind != "Workload":
        assert found.job is not None and found.job.meta.name == name


def test_an_event_in_another_namespace_is_not_followed() -> None:
    objects = [
        TRAIN,
        workload("custom-name", "elsewhere"),
        event(TRAIN, "CreatedWorkload", "Created Workload: elsewhere/custom-name"),
    ]
    found = resolve(snapshot(objects), NS, "train", "Job")
    assert found.job is not None
    assert found.workload is None


def test_a_child_job_of_a_jobset_resolves_through_its_owner() -> None:
    wl = workload(of=JS, pod_sets=[pod_set("workers", 2)])
    child = job("train-js-workers-0", queue=None, owners=[owner(JS)])
    found = resolve(snapshot([JS, child, wl]), NS, "train-js-workers-0", "Job")
    assert found.workload is not None and found.workload.name == wl["metadata"]["name"]
    assert found.how == "parent:job-uid-label"
    assert found.managed_through is not None and found.managed_through.meta.kind == "JobSet"


def test_an_unfinished_workload_is_preferred_and_the_others_are_siblings() -> None:
    old = workload("job-train-old", of=TRAIN, created=ago(300), conditions=[_finished()])
    newer = workload("job-train-new", of=TRAIN, created=ago(100))
    newest_finished = workload("job-train-newest", of=TRAIN, created=ago(10), conditions=[_finished()])
    found = resolve(snapshot([TRAIN, old, newer, newest_finished]), NS, "train", "Job")
    assert found.workload is not None and found.workload.name == "job-train-new"
    assert {w.name for w in found.siblings} == {"job-train-old", "job-train-newest"}


def test_the_newest_unfinished_workload_wins() -> None:
    older = workload("job-train-a", of=TRAIN, created=ago(300))
    newer = workload("job-train-b", of=TRAIN, created=ago(100))
    found = resolve(snapshot([TRAIN, older, newer]), NS, "train", "Job")
    assert found.workload is not None and found.workload.name == "job-train-b"


def _finished() -> Raw:
    return condition("Finished", True, "Succeeded", "Job finished successfully")


def test_a_workload_naming_a_job_that_is_not_in_the_snapshot() -> None:
    ghost = job("ghost")
    found = resolve(snapshot([workload(of=ghost)]), NS, "ghost", "Job")
    assert found.job is None
    assert found.workload is not None
    assert found.how == "owner-name"


def test_a_batch_job_is_preferred_when_the_kind_is_not_given() -> None:
    ray = {**job("train"), "apiVersion": "ray.io/v1", "kind": "RayJob"}
    ray["metadata"] = {**ray["metadata"], "uid": "ray-uid"}
    found = resolve(snapshot([ray, TRAIN]), NS, "train", None)
    assert found.job is not None and found.job.meta.kind == "Job"


def test_the_kind_must_match() -> None:
    found = resolve(snapshot([TRAIN, workload(of=TRAIN)]), NS, "train", "RayJob")
    assert found.job is None and found.workload is None


def test_a_job_without_workload() -> None:
    found = resolve(snapshot([TRAIN]), NS, "train", "Job")
    assert found.job is not None
    assert found.workload is None


def test_did_you_mean_and_other_namespaces() -> None:
    objects = [
        namespace(NS),
        namespace("team-b"),
        job("train-bert"),
        job("train-bart"),
        job("eval"),
        job("train-berd", "team-b"),
    ]
    snap = snapshot(objects)
    assert similar_jobs(snap, NS, "train-berd", "Job") == ["train-bert", "train-bart"]
    assert similar_jobs(snap, NS, "zzz", "Job") == []
    assert other_namespaces(snap, NS, "train-berd", "Job") == ["team-b"]
    assert other_namespaces(snap, NS, "train-berd", "RayJob") == []
