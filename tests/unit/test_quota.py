"""Quota math within the cohort tree, checked against Kueue's own formulas (FACTS §6, resource_node.go):

* guaranteed (local) quota of a node = max(0, SubtreeQuota - lendingLimit) when lendingLimit is set, else 0;
* SubtreeQuota of a cohort = own nominal + sum over children of (child SubtreeQuota - child guaranteed);
* usage of a cohort = sum over children of max(0, child usage - child guaranteed);
* Available(node) = root: SubtreeQuota - usage; else max(0, guaranteed - usage) + Available(parent), the
  parent part capped by borrowingLimit: (SubtreeQuota - guaranteed) - max(0, usage - guaranteed) + borrowingLimit;
  a ClusterQueue's Available is clamped at 0;
* PotentialAvailable(node) = root: SubtreeQuota; else guaranteed + PotentialAvailable(parent), capped by
  SubtreeQuota + borrowingLimit.

Every expected number below is worked out by hand in the comment next to it.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from bot.trace.quota import Capacity, capacity, cluster_queue_usage

from tests.builders import (
    Raw,
    assignment,
    cluster_queue,
    cohort,
    condition,
    cpu_group,
    local_queue,
    namespace,
    reserved,
    resource_flavor,
    snapshot,
    workload,
)


def cap(objects: list[Raw], cq: str = "cq-a") -> Capacity:
    snap = snapshot(objects)
    queue = snap.cluster_queue(cq)
    assert queue is not None
    return capacity(snap, queue, "default", "cpu")


def holding(name: str, cq: str, cpu: str, *, queue: str = "lq", finished: bool = False) -> Raw:
    """A Workload holding `cpu` of flavor default in `cq` (admitted; finished if told)."""
    finished_condition = [condition("Finished", True, "Succeeded", "Job finished successfully")] if finished else []
    return workload(
        name,
        queue=queue,
        status=reserved(cq, assignment("main", 1, default={"cpu": cpu})),
        conditions=finished_condition,
    )


BASE = [namespace(), resource_flavor()]

CASES = [
    # nominal 10, flavorsReservation 4: maximum 10, available 10 - 4 = 6
    (
        "no cohort, usage from status",
        [cluster_queue("cq-a", cpu_group(cpu=10), reservation={"default": {"cpu": 4}})],
        4,
        10,
        6,
    ),
    # no status: 3 (admitted) + 2 (reserved, waiting for checks) count; the finished 5, the pending one and the
    # 7 held in another ClusterQueue do not: used 5, available 10 - 5 = 5
    (
        "no cohort, usage from workloads when the status is missing",
        [
            cluster_queue("cq-a", cpu_group(cpu=10)),
            cluster_queue("cq-other", cpu_group(cpu=10)),
            local_queue("lq", cluster_queue="cq-a"),
            local_queue("lq-other", cluster_queue="cq-other"),
            holding("w-admitted", "cq-a", "3"),
            workload(
                "w-checks",
                queue="lq",
                status=reserved("cq-a", assignment("main", 1, default={"cpu": "2"}), admitted=False),
            ),
            holding("w-finished", "cq-a", "5", finished=True),
            workload("w-pending", queue="lq"),
            holding("w-elsewhere", "cq-other", "7", queue="lq-other"),
        ],
        5,
        10,
        5,
    ),
    # the status is the authority when present: reservation 1 although a workload shows 5 -> available 9
    (
        "status wins over workloads",
        [
            cluster_queue("cq-a", cpu_group(cpu=10), reservation={"default": {"cpu": 1}}),
            local_queue("lq", cluster_queue="cq-a"),
            holding("w", "cq-a", "5"),
        ],
        1,
        10,
        9,
    ),
    # the quota was lowered under running work: nominal 4, used 6 -> Kueue's Available is max(0, 4 - 6) = 0
    (
        "no cohort, over-used after a quota cut",
        [cluster_queue("cq-a", cpu_group(cpu=4), reservation={"default": {"cpu": 6}})],
        6,
        4,
        0,
    ),
    # flat cohort (no Cohort object). cq-a 8 (used 2), cq-b 16 lendingLimit 8 (used 16).
    # guaranteed: a 0, b 16 - 8 = 8. SubtreeQuota(pool) = 8 + (16 - 8) = 16. usage(pool) = 2 + (16 - 8) = 10.
    # Available(a) = 0 + (16 - 10) = 6. Potential(a) = 0 + 16 = 16.
    (
        "flat cohort with lendingLimit",
        [
            cluster_queue("cq-a", cpu_group(cpu=8), cohort="pool", reservation={"default": {"cpu": 2}}),
            cluster_queue("cq-b", cpu_group(cpu=16, lending=8), cohort="pool", reservation={"default": {"cpu": 16}}),
        ],
        2,
        16,
        6,
    ),
    # cq-a 8 borrowingLimit 2 (used 2), cq-b 16 lendingLimit 8 (used 0). SubtreeQuota(pool) 16, usage(pool) 2 + 0.
    # Available(pool) = 14; cap = (8 - 0) - 2 + 2 = 8 -> Available(a) = 0 + min(8, 14) = 8.
    # Potential(a) = min(8 + 2, 0 + 16) = 10.
    (
        "flat cohort with borrowingLimit",
        [
            cluster_queue("cq-a", cpu_group(cpu=8, borrowing=2), cohort="pool", reservation={"default": {"cpu": 2}}),
            cluster_queue("cq-b", cpu_group(cpu=16, lending=8), cohort="pool", reservation={"default": {"cpu": 0}}),
        ],
        2,
        10,
        8,
    ),
    # borrowingLimit 0: cq-a never gets more than its nominal 8; used 2 -> Available min((8 - 0) - 2 + 0, 22) = 6
    (
        "flat cohort with borrowingLimit 0",
        [
            cluster_queue("cq-a", cpu_group(cpu=8, borrowing=0), cohort="pool", reservation={"default": {"cpu": 2}}),
            cluster_queue("cq-b", cpu_group(cpu=16), cohort="pool", reservation={"default": {"cpu": 0}}),
        ],
        2,
        8,
        6,
    ),
    # cq-a 8 lendingLimit 3 (used 2) lends 3 of its 8; cq-b 16 (used 19: it borrows those 3).
    # guaranteed(a) = 8 - 3 = 5. SubtreeQuota(pool) = (8 - 5) + 16 = 19. usage(pool) = max(0, 2 - 5) + 19 = 19.
    # Available(a) = max(0, 5 - 2) + (19 - 19) = 3. Potential(a) = 5 + 19 = 24.
    (
        "lendingLimit on the asking queue",
        [
            cluster_queue("cq-a", cpu_group(cpu=8, lending=3), cohort="pool", reservation={"default": {"cpu": 2}}),
            cluster_queue("cq-b", cpu_group(cpu=16), cohort="pool", reservation={"default": {"cpu": 19}}),
        ],
        2,
        24,
        3,
    ),
    # a flat cohort whose usage comes from workloads (cq-b has no status): b holds 5.
    # SubtreeQuota(pool) = 4 + 4 = 8; usage(pool) = 1 + 5 = 6; Available(a) = 0 + 2 = 2; Potential(a) = 8
    (
        "cohort usage from workloads when the status is missing",
        [
            cluster_queue("cq-a", cpu_group(cpu=4), cohort="pool", reservation={"default": {"cpu": 1}}),
            cluster_queue("cq-b", cpu_group(cpu=4), cohort="pool"),
            local_queue("lq", cluster_queue="cq-b"),
            holding("w-b", "cq-b", "5"),
        ],
        1,
        8,
        2,
    ),
    # a Cohort object with its own quota 6: SubtreeQuota(pool) = 6 + 4 + 4 = 14; usage(pool) = 4 + 1 = 5;
    # Available(a) = 0 + 9 = 9; Potential(a) = 14
    (
        "Cohort object with its own quota",
        [
            cohort("pool", cpu_group(cpu=6)),
            cluster_queue("cq-a", cpu_group(cpu=4), cohort="pool", reservation={"default": {"cpu": 4}}),
            cluster_queue("cq-b", cpu_group(cpu=4), cohort="pool", reservation={"default": {"cpu": 1}}),
        ],
        4,
        14,
        9,
    ),
    # hierarchy: org (own 10) <- team (own 0, borrowingLimit 6) <- cq-a (4, used 1); org <- cq-c (6, used 6).
    # SubtreeQuota(team) = 0 + 4 = 4; SubtreeQuota(org) = 10 + 6 + 4 = 20; usage(team) = 1; usage(org) = 6 + 1 = 7.
    # Available(org) = 13; Available(team) = max(0, 0 - 1) + min((4 - 0) - 1 + 6, 13) = 9; Available(a) = 0 + 9 = 9.
    # Potential(org) = 20; Potential(team) = min(4 + 6, 0 + 20) = 10; Potential(a) = 0 + 10 = 10.
    (
        "hierarchical cohorts, borrowingLimit on the child cohort",
        [
            cohort("org", cpu_group(cpu=10)),
            cohort("team", cpu_group(cpu=0, borrowing=6), parent="org"),
            cluster_queue("cq-a", cpu_group(cpu=4), cohort="team", reservation={"default": {"cpu": 1}}),
            cluster_queue("cq-c", cpu_group(cpu=6), cohort="org", reservation={"default": {"cpu": 6}}),
        ],
        1,
        10,
        9,
    ),
    # hierarchy: team (own 4, lendingLimit 1) <- cq-a (4, used 5); org (own 10) <- team, cq-c (6, used 6).
    # SubtreeQuota(team) = 4 + 4 = 8, guaranteed(team) = 8 - 1 = 7; SubtreeQuota(org) = 10 + 6 + (8 - 7) = 17.
    # usage(team) = 5; usage(org) = 6 + max(0, 5 - 7) = 6. Available(org) = 11; Available(team) = max(0, 7 - 5) + 11
    # = 13; Available(a) = max(0, 0 - 5) + 13 = 13. Potential(team) = 7 + 17 = 24; Potential(a) = 0 + 24 = 24.
    (
        "hierarchical cohorts, lendingLimit on the child cohort",
        [
            cohort("org", cpu_group(cpu=10)),
            cohort("team", cpu_group(cpu=4, lending=1), parent="org"),
            cluster_queue("cq-a", cpu_group(cpu=4), cohort="team", reservation={"default": {"cpu": 5}}),
            cluster_queue("cq-c", cpu_group(cpu=6), cohort="org", reservation={"default": {"cpu": 6}}),
        ],
        5,
        24,
        13,
    ),
]


@pytest.mark.parametrize(("objects", "used", "maximum", "available"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_capacity(objects: list[Raw], used: int, maximum: int, available: int) -> None:
    result = cap([*BASE, *objects])
    assert (result.used, result.maximum, result.available) == (Decimal(used), Decimal(maximum), Decimal(available))


def test_capacity_of_the_queue_in_the_root_cohort() -> None:
    # the "lendingLimit on the child cohort" tree, from cq-c: Available = 0 + Available(org) = 17 - 6 = 11;
    # Potential = 0 + 17 = 17
    objects = [*BASE, *CASES[-1][1]]
    result = cap(objects, "cq-c")
    assert (result.maximum, result.available) == (Decimal(17), Decimal(11))


def test_capacity_fields() -> None:
    # cq-a uses 10 of its nominal 8 (it borrows 2); cq-b lends: nominal 16, used 1
    result = cap(
        [
            *BASE,
            cluster_queue("cq-a", cpu_group(cpu=8, borrowing=4), cohort="pool", reservation={"default": {"cpu": 10}}),
            cluster_queue("cq-b", cpu_group(cpu=16, lending=8), cohort="pool", reservation={"default": {"cpu": 1}}),
        ]
    )
    assert result.nominal == 8
    assert result.borrowing_limit == 4
    assert result.lending_limit is None
    assert result.borrowed == 2
    assert result.cohort == "pool"
    # usage(pool) = 10 + max(0, 1 - 8) = 10; the rest of the tree takes 10 - 10 = 0 from the shared pool
    assert result.cohort_used_elsewhere == 0
    # SubtreeQuota(pool) = 8 + 8 = 16; Available = 0 + min((8 - 0) - 10 + 4 = 2, 16 - 10 = 6) = 2
    assert result.available == 2
    assert result.maximum == 12  # min(8 + 4, 0 + 16)


def test_a_flavor_or_resource_without_quota_has_none() -> None:
    snap = snapshot([*BASE, cluster_queue("cq-a", cpu_group(cpu=8))])
    queue = snap.cluster_queue("cq-a")
    assert queue is not None
    result = capacity(snap, queue, "default", "memory")
    assert (result.nominal, result.maximum, result.available) == (Decimal(0), Decimal(0), Decimal(0))


def test_a_cohort_cycle_does_not_hang() -> None:
    objects = [
        *BASE,
        cohort("x", cpu_group(cpu=1), parent="y"),
        cohort("y", cpu_group(cpu=1), parent="x"),
        cluster_queue("cq-a", cpu_group(cpu=4), cohort="x", reservation={"default": {"cpu": 0}}),
    ]
    result = cap(objects)
    assert result.maximum >= 0


def test_cluster_queue_usage_prefers_the_status() -> None:
    snap = snapshot(
        [
            *BASE,
            cluster_queue("cq-a", cpu_group(cpu=8), reservation={"default": {"cpu": 3}}),
            cluster_queue("cq-b", cpu_group(cpu=8)),
            local_queue("lq", cluster_queue="cq-b"),
            holding("w", "cq-b", "2"),
        ]
    )
    cq_a, cq_b = snap.cluster_queue("cq-a"), snap.cluster_queue("cq-b")
    assert cq_a is not None and cq_b is not None
    assert cluster_queue_usage(snap, cq_a, "default", "cpu") == 3
    assert cluster_queue_usage(snap, cq_a, "other-flavor", "cpu") == 0
    assert cluster_queue_usage(snap, cq_b, "default", "cpu") == 2
