"""The informer cache's decoding (`Interner`, the shared `Parts`): the same objects as a plain decode, parts
shared between objects that only differ in what the engine does not read, never a part of another value."""

from __future__ import annotations

import copy
import dataclasses
import gc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.kube.compact import Interner, Labels
from bot.kube.decode import decode
from bot.trace.model import JOB_UID_LABEL, Workload
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.builders import (
    assignment,
    check_state,
    condition,
    container,
    flatten,
    job,
    pod_set,
    pod_spec,
    reserved,
    toleration,
    workload,
)
from tests.paths import SCENARIOS


def _without_resource_version(obj: object) -> object:
    """What the cache holds drops the per-object resourceVersion (the informer keeps the stream's)."""
    meta = getattr(obj, "meta", None)
    if meta is None:
        return obj
    return dataclasses.replace(obj, meta=dataclasses.replace(meta, resource_version=""))  # type: ignore[type-var]


def _kueue_objects() -> Iterator[dict[str, Any]]:
    """The scenario dumps' objects of the kinds the cache holds (Kueue's)."""
    for path in sorted(SCENARIOS.glob("*/cluster.yaml")):
        for raw in flatten(yaml.safe_load_all(Path(path).read_text())):
            if str(raw.get("apiVersion", "")).startswith("kueue.x-k8s.io/"):
                yield raw


def test_every_scenario_object_decodes_as_plainly() -> None:
    parts = Interner()
    objects = list(_kueue_objects())
    assert objects
    for raw in objects + objects:  # the second time through, every part is found, not built
        assert decode(raw, parts) == [_without_resource_version(o) for o in decode(raw)], raw["metadata"]["name"]
    assert parts.hits > 0


def _busy(name: str, image: str, cpu: str = "2") -> dict[str, Any]:
    """A Workload as a job controller writes it: a pod template full of what the engine does not read."""
    raw = workload(name, pod_sets=[pod_set("main", 4, pod_spec(container("main", requests={"cpu": cpu})))])
    template = raw["spec"]["podSets"][0]["template"]
    template["metadata"] = {"labels": {"batch.kubernetes.io/job-name": name}}
    template["spec"]["containers"][0].update(image=image, command=["train", "--run", name], env=[{"name": "RUN"}])
    return raw


def test_workloads_that_differ_in_what_is_not_read_share_their_parts() -> None:
    parts = Interner()
    first, second = (decode(_busy(name, image), parts)[0] for name, image in (("a", "img:1"), ("b", "img:2")))
    assert isinstance(first, Workload) and isinstance(second, Workload)
    assert first.name != second.name
    assert first.pod_sets is second.pod_sets
    third = decode(_busy("c", "img:1", cpu="3"), parts)[0]
    assert isinstance(third, Workload) and third.pod_sets != first.pod_sets
    assert third.pod_sets[0].template.containers[0].requests == {"cpu": 3}


def test_admission_and_status_parts_are_shared() -> None:
    parts = Interner()
    status = reserved("cq", assignment("main", 2, default={"cpu": "1"}))
    status["admissionChecks"] = [check_state("prov", "Ready", "provisioned", at="2026-10-14T10:00:00Z")]
    status["resourceRequests"] = [{"name": "main", "resources": {"cpu": "1"}}]
    status["reclaimablePods"] = [{"name": "main", "count": 1}]
    one, two = (decode(workload(name, status=copy.deepcopy(status)), parts)[0] for name in ("a", "b"))
    assert isinstance(one, Workload) and isinstance(two, Workload)
    for field in ("checks", "resource_requests", "reclaimable"):
        assert getattr(one, field) is getattr(two, field), field
    assert one.admission is not None and two.admission is not None
    assert one.admission.assignments is two.admission.assignments
    assert one.meta.resource_version == ""


def test_parts_no_object_holds_are_swept() -> None:
    parts = Interner()
    held = [decode(_busy(f"w{i}", "img", cpu=str(i + 1)), parts)[0] for i in range(5)]
    assert len(parts) >= 5
    del held
    gc.collect()
    assert parts.sweep() >= 5
    assert len(parts) == 0


def test_labels_are_read_as_a_plain_decode_reads_them() -> None:
    raw = workload("w")
    raw["metadata"]["labels"] = {"a": "x", "n": 3, "none": None, "t": True}
    raw["metadata"]["annotations"] = {}
    plain, shared = decode(raw)[0], decode(raw, Interner())[0]
    assert isinstance(plain, Workload) and isinstance(shared, Workload)
    assert shared.meta.labels == plain.meta.labels == {"a": "x", "n": "3", "none": "", "t": "True"}
    assert shared.meta.annotations == plain.meta.annotations == {}


# Values that look alike and must never be taken for one another: a part found for one of them and
# handed out for another would be a wrong answer.
_ALIKE: st.SearchStrategy[object] = st.sampled_from(
    [1, 1.0, True, "1", "1.0", "1000m", 0, False, None, "", "0", 2, "2", [], {}, "main"]
)
_QUANTITIES = st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]), _ALIKE, max_size=3)


@st.composite
def _raw_workloads(draw: st.DrawFn) -> dict[str, Any]:
    spec = {
        "containers": [
            {"name": draw(_ALIKE), "resources": {"requests": draw(_QUANTITIES), "limits": draw(_QUANTITIES)}}
        ],
        "nodeSelector": draw(st.dictionaries(st.sampled_from(["zone", "pool"]), _ALIKE, max_size=2)),
        "tolerations": draw(st.lists(st.just(toleration("spot", "Exists")), max_size=1)),
        "priorityClassName": draw(_ALIKE),
    }
    raw = workload("w", pod_sets=[{"name": draw(_ALIKE), "count": draw(_ALIKE), "template": {"spec": spec}}])
    raw["spec"]["podSets"][0]["minCount"] = draw(_ALIKE)
    status: dict[str, Any] = {"conditions": [condition("QuotaReserved", draw(st.booleans()), "Pending")]}
    if draw(st.booleans()):
        status["admission"] = {
            "clusterQueue": draw(_ALIKE),
            "podSetAssignments": [{"name": "main", "flavors": {"cpu": draw(_ALIKE)}, "count": draw(_ALIKE)}],
        }
    status["resourceRequests"] = [{"name": draw(_ALIKE), "resources": draw(_QUANTITIES)}]
    status["reclaimablePods"] = [{"name": "main", "count": draw(_ALIKE)}]
    status["admissionChecks"] = [{"name": "prov", "state": draw(_ALIKE), "retryCount": draw(_ALIKE)}]
    raw["status"] = status
    return raw


@settings(max_examples=200, deadline=None)
@given(st.lists(_raw_workloads(), min_size=2, max_size=8))
def test_a_part_found_is_the_part_that_would_have_been_built(raws: list[dict[str, Any]]) -> None:
    parts = Interner()  # one for the whole sequence, as the cache's
    for raw in raws + raws[::-1]:
        assert decode(raw, parts) == [_without_resource_version(o) for o in decode(raw)]


@pytest.mark.parametrize("value", [1, 1.0, True, "1"], ids=["int", "float", "bool", "str"])
def test_alike_counts_are_told_apart(value: object) -> None:
    parts = Interner()
    for other in (1, 1.0, True, "1"):
        decode(workload("w", pod_sets=[{"name": "main", "count": other, "template": {"spec": pod_spec()}}]), parts)
    raw = workload("w", pod_sets=[{"name": "main", "count": value, "template": {"spec": pod_spec()}}])
    assert decode(raw, parts) == [_without_resource_version(o) for o in decode(raw)]


def test_labels_are_an_immutable_mapping() -> None:
    labels = Labels(("team", "vision", "tier", ""))
    plain = {"team": "vision", "tier": ""}
    assert labels == plain and plain == labels  # both ways round
    assert labels != {"team": "vision"}
    assert (labels["team"], labels.get("tier")) == ("vision", "")
    assert (labels.get("gone"), labels.get("gone", "x")) == (None, "x")
    assert ("team" in labels, "vision" in labels, len(labels), list(labels)) == (True, False, 2, ["team", "tier"])
    assert {**labels, "more": "1"} == {"team": "vision", "tier": "", "more": "1"}
    assert dict(labels.items()) == {"team": "vision", "tier": ""} and repr(labels) == repr(dict(labels))
    with pytest.raises(KeyError):
        labels["gone"]
    with pytest.raises(TypeError):
        labels["team"] = "other"  # type: ignore[index]


def _received(raw: dict[str, Any]) -> dict[str, Any]:
    """The object as an informer receives it: every string a fresh object, as a JSON parser makes them."""
    return json.loads(json.dumps(raw))  # type: ignore[no-any-return]


def _admitted_in(cluster_queue: str, name: str, at: str) -> dict[str, Any]:
    return workload(
        name,
        of=job(name),
        annotations={"kueue-bot.io/notify": "U012345"},
        status=reserved(cluster_queue, assignment("main", 2, default={"cpu": "1"}), at=at),
    )


def test_workloads_admitted_in_other_cluster_queues_share_their_assignments_and_names() -> None:
    parts = Interner()
    one, two = (
        decode(_received(_admitted_in(cq, name, "2026-10-14T10:00:00Z")), parts)[0]
        for cq, name in (("cq-a", "a"), ("cq-b", "b"))
    )
    assert isinstance(one, Workload) and isinstance(two, Workload)
    assert one.admission is not None and two.admission is not None
    assert (one.admission.cluster_queue, two.admission.cluster_queue) == ("cq-a", "cq-b")
    assert one.admission.assignments is two.admission.assignments
    assert one.namespace is two.namespace and one.queue_name is two.queue_name
    assert one.conditions[1].reason is two.conditions[1].reason
    assert next(iter(one.meta.labels)) is next(iter(two.meta.labels))
    assert one.meta.annotations["kueue-bot.io/notify"] is two.meta.annotations["kueue-bot.io/notify"]
    assert one.meta.owners[0].uid is one.meta.labels[JOB_UID_LABEL]  # the job's uid, held once


def test_conditions_that_flipped_together_share_their_time() -> None:
    raw = _admitted_in("cq", "a", "2026-10-14T10:00:00Z")
    raw["status"]["conditions"].append(condition("PodsReady", True, "PodsReady", at="2026-10-14T10:05:00Z"))
    decoded = decode(_received(raw), Interner())[0]
    assert isinstance(decoded, Workload)
    reserved_at, admitted_at, ready_at = (c.since for c in decoded.conditions)
    assert reserved_at is admitted_at and reserved_at is not None
    assert ready_at is not None and ready_at > reserved_at
    assert decoded == _without_resource_version(decode(raw)[0])


def test_a_cached_workload_holds_no_object_with_a_dict() -> None:
    decoded = decode(_received(_admitted_in("cq", "a", "2026-10-14T10:00:00Z")), Interner())[0]
    assert isinstance(decoded, Workload)
    meta, admission = decoded.meta, decoded.admission
    assert admission is not None
    records = [decoded, meta, meta.labels, meta.annotations, *meta.owners, *decoded.conditions, admission]
    records += [*admission.assignments, *decoded.pod_sets, decoded.pod_sets[0].template]
    assert meta.labels and meta.annotations and meta.owners and admission.assignments
    assert [type(r).__name__ for r in records if hasattr(r, "__dict__")] == []
    assert isinstance(meta.labels, Labels) and isinstance(meta.labels, tuple)  # the flat tuple, no holder
