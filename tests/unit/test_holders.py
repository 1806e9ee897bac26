"""Who holds what a pending job needs (issue 16, item 1): table tests on built clusters with cohorts,
borrowing, every preemption policy, StrictFIFO, blockAdmission and several flavors."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

import pytest
from bot.forecast.holders import IN_CLUSTER_QUEUE, PODS_READY, RECLAIM, STRICT_FIFO_HEAD, Holders, find_holders
from bot.trace.model import Workload

from tests.builders import NOW, Raw, resource_flavor, snapshot
from tests.contention import GPU, base, gpu_queue, lq, research_cohort, running, waiting


def holders_of(objects: list[Raw], name: str = "train", namespace: str = "team-a", **kw: bool) -> Holders:
    snap = snapshot(objects)
    workload: Workload = next(w for w in snap.workloads_in(namespace) if any(o.name == name for o in w.meta.owners))
    local = snap.local_queue(namespace, workload.queue_name)
    assert local is not None
    cq = snap.cluster_queue(local.cluster_queue)
    assert cq is not None
    return find_holders(snap, workload, cq, now=NOW, **kw)


@dataclass
class Case:
    id: str
    objects: list[Raw]
    # (namespace, job, amount, borrowing, preemptible reason) of each holder, in order
    holders: list[tuple[str, str, int, bool, str]]
    needed: int = 4
    reclaimable: int = 0
    preemptible: int = 0
    flavor: str = "a100"
    extra: dict[str, object] = field(default_factory=dict)


def with_priority(objects: list[Raw], job_name: str, value: int) -> list[Raw]:
    for raw in objects:
        if raw["kind"] == "Workload" and raw["metadata"]["ownerReferences"][0]["name"] == job_name:
            raw["spec"]["priority"] = value
    return objects


CASES = [
    Case(
        "cohort-lower-priority-both-preemptible",
        research_cohort(),
        [("team-a", "mine", 4, False, IN_CLUSTER_QUEUE), ("team-b", "theirs", 8, True, RECLAIM)],
        reclaimable=4,
        preemptible=12,
    ),
    Case(
        "policies-never-none-preemptible",
        research_cohort(reclaim="Never", within="Never"),
        [("team-a", "mine", 4, False, ""), ("team-b", "theirs", 8, True, "")],
        reclaimable=4,
    ),
    Case(
        "reclaim-lower-priority-spares-a-higher-priority-borrower",
        with_priority(research_cohort(), "theirs", 200),
        [("team-a", "mine", 4, False, IN_CLUSTER_QUEUE), ("team-b", "theirs", 8, True, "")],
        reclaimable=4,
        preemptible=4,
    ),
    Case(
        "reclaim-any-takes-back-a-higher-priority-borrower",
        with_priority(research_cohort(reclaim="Any", within="Never"), "theirs", 200),
        [("team-a", "mine", 4, False, ""), ("team-b", "theirs", 8, True, RECLAIM)],
        reclaimable=4,
        preemptible=8,
    ),
    Case(
        "within-lower-or-newer-equal-priority-newer-one-preemptible",
        [
            *base(gpu_queue("cq", ("a100", 8), within="LowerOrNewerEqualPriority")),
            lq("gpus", "team-a", "cq"),
            *running("old", "team-a", "cq", pods=4, priority=100, minutes=200),
            *running("new", "team-a", "cq", pods=4, priority=100, minutes=1),
            *waiting("train", pods=4, priority=100, minutes=60),
        ],
        # "old" was created before train (queue-order time): not preemptible; "new" after it: preemptible
        [("team-a", "old", 4, False, ""), ("team-a", "new", 4, False, IN_CLUSTER_QUEUE)],
        preemptible=4,
    ),
    Case(
        "borrower-within-nominal-is-not-reclaimable",
        [
            *base(
                gpu_queue("team-a-cq", ("a100", 8), cohort_name="research", reclaim="Any"),
                gpu_queue("team-b-cq", ("a100", 4), cohort_name="research"),
            ),
            lq("gpus", "team-a", "team-a-cq"),
            lq("gpus", "team-b", "team-b-cq"),
            *running("mine", "team-a", "team-a-cq", pods=8),
            *running("theirs", "team-b", "team-b-cq", pods=4),
            *waiting("train", pods=4),
        ],
        [("team-a", "mine", 8, False, ""), ("team-b", "theirs", 4, False, "")],
    ),
    Case(
        "no-cohort-own-queue-only",
        [
            *base(gpu_queue("cq", ("a100", 4), within="LowerPriority")),
            lq("gpus", "team-a", "cq"),
            *running("big", "team-a", "cq", pods=3, priority=5),
            *waiting("train", pods=2, priority=10),
        ],
        [("team-a", "big", 3, False, IN_CLUSTER_QUEUE)],
        needed=1,
        preemptible=3,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_holders_table(case: Case) -> None:
    found = holders_of(case.objects)
    assert len(found.contests) == 1
    contest = found.contests[0]
    assert (contest.flavor, contest.resource) == (case.flavor, GPU)
    got = [(h.namespace, h.name, int(h.amount), h.borrowing, h.preemptible) for h in contest.holders]
    assert got == case.holders
    assert contest.needed == Decimal(case.needed)
    assert contest.reclaimable == Decimal(case.reclaimable)
    assert contest.preemptible == Decimal(case.preemptible)
    assert contest.count == len(case.holders)


def test_running_time_and_time_left_under_maximum_execution_time() -> None:
    contest = holders_of(research_cohort()).contests[0]
    theirs = next(h for h in contest.holders if h.name == "theirs")
    mine = next(h for h in contest.holders if h.name == "mine")
    assert (theirs.running_seconds, theirs.seconds_left) == (20 * 60, 3600 - 20 * 60)
    assert (mine.running_seconds, mine.seconds_left) == (50 * 60, None)
    assert contest.held_here == 4 and contest.held_in_cohort == 8


def test_several_flavors_each_contested_flavor_has_its_holders() -> None:
    objects = [
        *base(
            gpu_queue("cq", ("a100", 4), ("h100", 2)),
            flavors=[resource_flavor("a100", labels={"gpu": "a100"}), resource_flavor("h100", labels={"gpu": "h100"})],
        ),
        lq("gpus", "team-a", "cq"),
        *running("on-a100", "team-a", "cq", pods=4, flavor="a100"),
        *running("on-h100", "team-b", "cq", pods=2, flavor="h100", queue="gpus-b"),
        lq("gpus-b", "team-b", "cq"),
        *waiting("train", pods=2),
    ]
    found = holders_of(objects)
    by_flavor = {c.flavor: [(h.namespace, h.name, int(h.amount)) for h in c.holders] for c in found.contests}
    assert by_flavor == {"a100": [("team-a", "on-a100", 4)], "h100": [("team-b", "on-h100", 2)]}
    assert found.namespaces() == {"team-a", "team-b"}


def test_strict_fifo_names_the_head_that_blocks() -> None:
    objects = [
        *base(gpu_queue("cq", ("a100", 8), strategy="StrictFIFO")),
        lq("gpus", "team-a", "cq"),
        lq("gpus", "team-b", "cq"),
        *running("big", "team-a", "cq", pods=6),
        *waiting("huge", "team-b", pods=4, priority=50, minutes=90),
        *waiting("train", pods=1, minutes=5),
    ]
    found = holders_of(objects)
    assert [(b.kind, b.namespace, b.name, b.priority) for b in found.blockers] == [
        (STRICT_FIFO_HEAD, "team-b", "huge", 50)
    ]
    assert found.blockers[0].since_seconds == 90 * 60
    assert found.contests and found.contests[0].needed == 0  # it fits the quota: only the head is in the way


def test_block_admission_names_the_workloads_whose_pods_are_not_ready() -> None:
    objects = [
        *base(gpu_queue("cq", ("a100", 8))),
        lq("gpus", "team-a", "cq"),
        lq("gpus", "team-b", "cq"),
        *running("ready", "team-a", "cq", pods=1, minutes=30),
        *running("slow", "team-b", "cq", pods=1, minutes=12, pods_ready=False),
        *running("starting", "team-a", "cq", pods=1, minutes=2, pods_ready=None),
        *waiting("train", pods=1),
    ]
    found = holders_of(objects, pods_ready_blocked=True)
    assert [(b.kind, b.namespace, b.name, b.since_seconds) for b in found.blockers] == [
        (PODS_READY, "team-b", "slow", 12 * 60),
        (PODS_READY, "team-a", "starting", 2 * 60),
    ]
    assert found.blockers_count == 2


def test_block_admission_counts_every_reservation_not_only_admitted_workloads() -> None:
    # Kueue's cache puts every quota reservation in WorkloadsNotReady until PodsReady (snapshot.holds_admission):
    # a Workload whose admission checks are still pending (QuotaReserved=True, Admitted not yet) blocks too.
    checking = running("checking", "team-b", "cq", pods=1, minutes=7, pods_ready=None)
    status = checking[1]["status"]
    status["conditions"] = [c for c in status["conditions"] if c["type"] != "Admitted"]
    objects = [
        *base(gpu_queue("cq", ("a100", 8))),
        lq("gpus", "team-a", "cq"),
        lq("gpus", "team-b", "cq"),
        *checking,
        *waiting("train", pods=1),
    ]
    found = holders_of(objects, pods_ready_blocked=True)
    assert [(b.kind, b.namespace, b.name) for b in found.blockers] == [(PODS_READY, "team-b", "checking")]
