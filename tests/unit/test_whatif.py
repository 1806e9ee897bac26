"""What-if (issue 16, item 3): the smallest changes that would admit a job now or ever, each verified on the
snapshot with the change applied. A table on built clusters, then a property: every suggested change, applied
to the snapshot, makes the engine's verdict admit (fits now) or fit (fits the queue's maximum)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import pytest
from bot.forecast.whatif import (
    FEWER_PODS,
    OTHER_FLAVOR,
    OTHER_QUEUE,
    PARTIAL_ADMISSION,
    RAISE_QUOTA,
    SMALLER_REQUEST,
    Change,
    apply,
    what_if,
)
from bot.trace.codes import Verdict
from bot.trace.explain import Query, explain
from bot.trace.model import Workload
from bot.trace.snapshot import MemorySnapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.builders import NOW, Raw, cpu_spec, job, resource_flavor, snapshot, workload
from tests.contention import GPU, base, gpu_queue, lq, running, taints_flavor, waiting


def the_workload(snap: MemorySnapshot, name: str = "train", namespace: str = "team-a") -> Workload:
    return next(w for w in snap.workloads_in(namespace) if any(o.name == name for o in w.meta.owners))


def summary(change: Change) -> tuple[object, ...]:
    if change.code in (FEWER_PODS, PARTIAL_ADMISSION):
        return (change.code, change.now, change.pods)
    if change.code == SMALLER_REQUEST:
        return (change.code, change.now, change.resource, change.per_pod)
    if change.code == OTHER_QUEUE:
        return (change.code, change.now, change.queue)
    if change.code == OTHER_FLAVOR:
        return (change.code, change.now, change.flavor, change.node_labels, change.tolerate)
    return (change.code, change.now, tuple((r.flavor, r.resource, r.by, r.to) for r in change.raises))


def two_flavors(*flavors: Raw) -> list[Raw]:
    return [
        *base(gpu_queue("cq", ("a100", 4), ("h100", 4)), flavors=list(flavors)),
        lq("gpus", "team-a", "cq"),
        *running("on-a100", "team-a", "cq", pods=4, flavor="a100"),
    ]


A100 = resource_flavor("a100", labels={"gpu": "a100"})
H100 = resource_flavor("h100", labels={"gpu": "h100"})


@dataclass
class Case:
    id: str
    objects: list[Raw]
    changes: list[tuple[object, ...]]


CASES = [
    Case(
        "fewer-pods-partial-admission-and-quota",
        [
            *base(gpu_queue("cq", ("a100", 8))),
            lq("gpus", "team-a", "cq"),
            *running("busy", "team-a", "cq", pods=5),
            *waiting("train", pods=4),
        ],
        [
            (FEWER_PODS, True, 3),
            (PARTIAL_ADMISSION, True, 3),
            (RAISE_QUOTA, True, (("a100", GPU, Decimal(1), Decimal(9)),)),
        ],
    ),
    Case(
        "smaller-per-pod-request",
        [
            *base(gpu_queue("cq", ("a100", 8))),
            lq("gpus", "team-a", "cq"),
            *running("busy", "team-a", "cq", pods=2),
            *waiting("train", pods=2, gpus_per_pod=4),
        ],
        [
            (FEWER_PODS, True, 1),
            (PARTIAL_ADMISSION, True, 1),
            (SMALLER_REQUEST, True, GPU, Decimal(3)),
            (RAISE_QUOTA, True, (("a100", GPU, Decimal(2), Decimal(10)),)),
        ],
    ),
    Case(
        "min-count-already-allows-it-no-partial-admission-offer",
        [
            *base(gpu_queue("cq", ("a100", 8))),
            lq("gpus", "team-a", "cq"),
            *running("busy", "team-a", "cq", pods=5),
            *waiting("train", pods=4, min_count=2),
        ],
        [(FEWER_PODS, True, 3), (RAISE_QUOTA, True, (("a100", GPU, Decimal(1), Decimal(9)),))],
    ),
    Case(
        "another-local-queue-with-room-now",
        [
            *base(gpu_queue("cq", ("a100", 4)), gpu_queue("spare-cq", ("a100", 8))),
            lq("gpus", "team-a", "cq"),
            lq("spare", "team-a", "spare-cq"),
            *running("busy", "team-a", "cq", pods=4),
            *waiting("train", pods=1),
        ],
        [(OTHER_QUEUE, True, "spare"), (RAISE_QUOTA, True, (("a100", GPU, Decimal(1), Decimal(5)),))],
    ),
    Case(
        "another-flavor-by-node-selector",
        [*two_flavors(A100, H100), *waiting("train", pods=2, node_selector={"gpu": "a100"})],
        [
            (OTHER_FLAVOR, True, "h100", (("gpu", "h100"),), ()),
            (RAISE_QUOTA, True, (("a100", GPU, Decimal(2), Decimal(6)),)),
        ],
    ),
    Case(
        "another-flavor-behind-a-taint",
        [*two_flavors(A100, taints_flavor("h100", "dedicated")), *waiting("train", pods=2)],
        [
            (OTHER_FLAVOR, True, "h100", (), (("dedicated", "true", "NoSchedule"),)),
            (RAISE_QUOTA, True, (("a100", GPU, Decimal(2), Decimal(6)),)),
        ],
    ),
    Case(
        "never-fits-fewer-pods-now-and-quota-ever",
        [
            *base(gpu_queue("cq", ("a100", 8))),
            lq("gpus", "team-a", "cq"),
            *waiting("train", pods=12),
        ],
        [
            (FEWER_PODS, True, 8),
            (PARTIAL_ADMISSION, True, 8),
            (RAISE_QUOTA, True, (("a100", GPU, Decimal(4), Decimal(12)),)),
        ],
    ),
    Case(
        "never-fits-in-a-cohort-raise-to-the-maximum",
        [
            *base(
                gpu_queue("cq", ("a100", 4), cohort_name="pool"),
                gpu_queue("other", ("a100", 4), cohort_name="pool"),
            ),
            lq("gpus", "team-a", "cq"),
            lq("gpus", "team-b", "other"),
            *running("theirs", "team-b", "other", pods=4),
            *waiting("train", pods=10),
        ],
        [
            (FEWER_PODS, True, 4),
            (PARTIAL_ADMISSION, True, 4),
            (RAISE_QUOTA, True, (("a100", GPU, Decimal(6), Decimal(10)),)),
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_what_if_table(case: Case) -> None:
    snap = snapshot(case.objects)
    result = what_if(snap, the_workload(snap))
    assert [summary(c) for c in result.changes] == case.changes
    assert not result.fits_now


def test_fits_now_suggests_nothing() -> None:
    snap = snapshot([*base(gpu_queue("cq", ("a100", 8))), lq("gpus", "team-a", "cq"), *waiting("train", pods=2)])
    result = what_if(snap, the_workload(snap))
    assert result.fits_now and result.changes == ()


def test_none_would_for_a_resource_no_queue_covers() -> None:
    the_job = job("train", "team-a", queue="gpus", spec=cpu_spec("1", extra={"example.com/fpga": "1"}))
    snap = snapshot(
        [*base(gpu_queue("cq", ("a100", 8))), lq("gpus", "team-a", "cq"), the_job, workload(of=the_job, queue="gpus")]
    )
    result = what_if(snap, the_workload(snap))
    assert result.changes == () and not result.fits_now
    assert OTHER_QUEUE in result.considered


def test_applying_a_change_leaves_the_original_snapshot_alone() -> None:
    objects = [*base(gpu_queue("cq", ("a100", 8))), lq("gpus", "team-a", "cq"), *waiting("train", pods=12)]
    snap = snapshot(objects)
    original = the_workload(snap)
    change = what_if(snap, original).changes[0]
    after, changed = apply(snap, original, change)
    assert changed.pod_sets[0].count == change.pods
    assert snap.workload(original.namespace, original.name) is original
    assert after.workload(original.namespace, original.name) is changed


# --- the property -----------------------------------------------------------------------------------

ADMIT = {Verdict.NOT_YET_EVALUATED}
FIT = {Verdict.NOT_YET_EVALUATED, Verdict.WAITING_FOR_QUOTA}


@st.composite
def contended(draw: st.DrawFn) -> list[Raw]:
    nominal = draw(st.integers(1, 12))
    cohort = draw(st.booleans())
    second_flavor = draw(st.booleans())
    flavors = [("a100", nominal), *([("h100", draw(st.integers(0, 8)))] if second_flavor else [])]
    queues = [gpu_queue("cq", *flavors, cohort_name="pool" if cohort else None)]
    objects: list[Raw] = []
    if cohort:
        other = draw(st.integers(0, 8))
        queues.append(gpu_queue("other", ("a100", other), cohort_name="pool"))
        objects.append(lq("gpus", "team-b", "other"))
        used = draw(st.integers(0, other + nominal))
        if used:
            objects.extend(running("theirs", "team-b", "other", pods=used))
    if draw(st.booleans()):
        queues.append(gpu_queue("spare-cq", ("a100", draw(st.integers(0, 8)))))
        objects.append(lq("spare", "team-a", "spare-cq"))
    mine = draw(st.integers(0, nominal))
    if mine:
        objects.extend(running("mine", "team-a", "cq", pods=mine))
    pin = {"gpu": "a100"} if second_flavor and draw(st.booleans()) else None
    objects.extend(
        waiting(
            "train",
            pods=draw(st.integers(1, 10)),
            gpus_per_pod=draw(st.integers(1, 4)),
            node_selector=pin,
            min_count=draw(st.none() | st.integers(1, 3)),
        )
    )
    flavor_objects = [A100, H100] if second_flavor else [A100]
    return [*base(*queues, flavors=flavor_objects), lq("gpus", "team-a", "cq"), *objects]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contended())
def test_every_suggested_change_admits_or_fits_when_applied(objects: list[Raw]) -> None:
    snap = snapshot(objects)
    original = the_workload(snap)
    for change in what_if(snap, original).changes:
        after, _ = apply(snap, original, change)
        verdict = explain(after, Query("team-a", "train", "Job"), now=NOW).verdict
        assert verdict in (ADMIT if change.now else FIT), (change, verdict)
