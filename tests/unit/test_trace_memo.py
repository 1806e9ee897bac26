"""What the trace keeps between the checks of a question, and between questions (bot.trace.quota's state
per view, running totals of demand, the owner index): always the answer a fresh computation gives, on a
MemorySnapshot, on the live cache and on its views, before and after the changes that must renew it.
No timing here (that is bench/)."""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal
from typing import Any

import pytest
from bot.trace.demand import demand_before, workload_demand
from bot.trace.model import ClusterQueue
from bot.trace.position import _priorities_before
from bot.trace.quota import QuotaState, _capacity, _Tree, capacity, quota_state
from bot.trace.snapshot import MemorySnapshot, Snapshot

from tests.builders import (
    NS,
    assignment,
    cluster_queue,
    cohort,
    cpu_group,
    cpu_spec,
    job,
    local_queue,
    pod_set,
    reserved,
    resource_flavor,
    snapshot,
    workload,
)
from tests.cache_support import cache_of, put


def _fresh(view: Snapshot, cq: ClusterQueue, flavor: str = "default", resource: str = "cpu") -> object:
    """The capacity computed from nothing kept: a new state, a new tree over every ClusterQueue's Workloads."""
    every = {q.name: view.workloads_in_cluster_queue(q.name) for q in view.cluster_queues()}
    return _capacity(_Tree(QuotaState(view), every, flavor, resource), cq, flavor, resource)


def _holding(name: str, cq: str, cpu: str) -> dict[str, Any]:
    return workload(name, queue="lq-" + cq, status=reserved(cq, assignment("main", 1, default={"cpu": cpu})))


TREE = [
    resource_flavor("default"),
    cohort("root", cpu_group(cpu=4)),
    cohort("child", parent="root"),
    cluster_queue("a", cpu_group(cpu=10), cohort="child"),  # reports nothing: summed from its Workloads
    cluster_queue("b", cpu_group(cpu=6), cohort="root", reservation={"default": {"cpu": 5}}),
    cluster_queue("alone", cpu_group(cpu=3)),  # no cohort, reports nothing
    local_queue("lq-a", cluster_queue="a"),
    local_queue("lq-b", cluster_queue="b"),
    local_queue("lq-alone", cluster_queue="alone"),
]


def _check_all(view: Snapshot) -> None:
    for name in ("a", "b", "alone"):
        cq = view.cluster_queue(name)
        assert cq is not None
        assert capacity(view, cq, "default", "cpu") == _fresh(view, cq), name


def test_a_memory_snapshot_builds_its_quota_state_once_and_answers_as_a_fresh_one() -> None:
    view = snapshot([*TREE, _holding("w1", "a", "2"), _holding("w2", "alone", "1")])
    state = quota_state(view)
    _check_all(view)
    _check_all(view)
    assert quota_state(view) is state
    cq = view.cluster_queue("a")
    assert cq is not None
    assert capacity(view, cq, "default", "cpu").used == Decimal(2)


def test_the_live_cache_and_its_views_follow_usage_and_queue_changes() -> None:
    cache = cache_of([*TREE, _holding("w1", "a", "2")])
    _check_all(cache)
    first = cache.view(NS)
    _check_all(first)
    assert cache.view(NS).memos() is first.memos()  # shared between questions while nothing changed
    a = cache.cluster_queue("a")
    assert a is not None and capacity(cache, a, "default", "cpu").used == Decimal(2)

    # Admitted usage changes in a queue that reports none: the same state, a new answer.
    put(cache, [_holding("w2", "a", "3"), _holding("w3", "alone", "1")])
    second = cache.view(NS)
    _check_all(cache)
    _check_all(second)
    a = second.cluster_queue("a")
    assert a is not None and capacity(second, a, "default", "cpu").used == Decimal(5)
    alone = second.cluster_queue("alone")
    assert alone is not None and capacity(second, alone, "default", "cpu").used == Decimal(1)

    # A ClusterQueue's reported usage changes: a new state for the views after it; older views keep theirs.
    put(cache, [cluster_queue("b", cpu_group(cpu=6), cohort="root", reservation={"default": {"cpu": 1}})])
    third = cache.view(NS)
    assert third.memos() is not second.memos()
    _check_all(third)
    b = third.cluster_queue("b")
    assert b is not None and capacity(third, b, "default", "cpu").used == Decimal(1)
    old_b = first.cluster_queue("b")
    assert old_b is not None and capacity(first, old_b, "default", "cpu").used == Decimal(5)

    # The tree changes shape: a Cohort's parent goes away.
    put(cache, [cohort("child", cpu_group(cpu=1))])
    fourth = cache.view(NS)
    _check_all(fourth)
    a = fourth.cluster_queue("a")
    assert a is not None
    assert capacity(fourth, a, "default", "cpu").maximum == Decimal(11)  # 10 + the child's own 1, no root


def test_a_cycle_of_cohorts_has_one_root_for_each_of_its_members() -> None:
    view = snapshot([cohort("x", parent="y"), cohort("y", parent="x"), cohort("z", parent="x")])
    state = QuotaState(view)
    assert {state.root_of(name) for name in ("x", "y", "z")} == {"x"}


def _jobs_and_workloads(seed: int) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    rng = random.Random(seed)
    objects: list[dict[str, Any]] = [resource_flavor("default"), cluster_queue("cq"), local_queue()]
    asked = []
    for i in range(30):
        namespace = rng.choice([NS, "other"])
        name = f"job-{rng.randrange(12)}"
        owner_job = job(name, namespace)
        objects.append(workload(f"wl-{i}", namespace, of=owner_job))
        asked.append((namespace, name))
    asked += [(NS, "nobody"), ("other", "job-0"), (NS, "job-99")]
    return objects, asked


def _scan(view: Snapshot, namespace: str, name: str) -> list[str]:
    return sorted(w.name for w in view.workloads_in(namespace) if any(o.name == name for o in w.meta.owners))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_owner_index_finds_what_a_scan_of_the_namespace_finds(seed: int) -> None:
    objects, asked = _jobs_and_workloads(seed)
    memory = snapshot(objects)
    cache = cache_of(objects)
    for namespace, name in asked:
        expected = _scan(memory, namespace, name)
        assert sorted(w.name for w in memory.workloads_of_owner(namespace, name)) == expected
        assert sorted(w.name for w in cache.workloads_of_owner(namespace, name)) == expected
        captured = cache.view(namespace, owners=(name,))
        assert sorted(w.name for w in captured.workloads_of_owner(namespace, name)) == expected
        scanned = cache.view(namespace)  # not captured: the view scans its own Workloads
        assert sorted(w.name for w in scanned.workloads_of_owner(namespace, name)) == expected
        assert captured.workloads_of_owner("elsewhere", name) == ()


def _queue(count: int, seed: int) -> MemorySnapshot:
    rng = random.Random(seed)
    shapes = [cpu_spec("1", "4Gi"), cpu_spec("500m"), cpu_spec("2", "1Gi", {"nvidia.com/gpu": "1"})]
    objects: list[dict[str, Any]] = [resource_flavor("default"), cluster_queue("cq"), local_queue()]
    for i in range(count):
        spec = rng.choice(shapes)
        objects.append(
            workload(
                f"wl-{i:03d}",
                pod_sets=[pod_set("main", rng.randrange(1, 4), spec)],
                priority=rng.choice([0, 100]),
            )
        )
    return snapshot(objects)


def _summed(view: Snapshot, upto: int) -> dict[str, Decimal]:
    total: dict[str, Decimal] = {}
    for workload_ahead in view.pending_in("cq")[:upto]:
        for name, amount in workload_demand(workload_ahead).items():
            total[name] = total.get(name, Decimal(0)) + amount
    return total


@pytest.mark.parametrize("count", [0, 1, 15, 16, 17, 40])
def test_running_totals_of_demand_are_the_sums_of_the_workloads_ahead(count: int) -> None:
    view = _queue(count, seed=count)
    order = view.pending_in("cq")
    assert len(order) == count
    memo = view.memos()
    asked = list(range(count + 2))
    random.Random(count).shuffle(asked)  # grown out of order, asked again
    for upto in [*asked, *asked]:
        assert demand_before(memo, "cq", order, upto) == _summed(view, upto), upto


@pytest.mark.parametrize("count", [0, 1, 2, 17, 40])
def test_the_priorities_ahead_are_counted_from_the_order_s_runs(count: int) -> None:
    """position._priorities_before: what a Counter of the Workloads ahead gives, highest first; on Kueue's
    order (the higher first) and on any order a Snapshot may hand out (priorities mixed)."""
    view = _queue(count, seed=count)
    for order in (view.pending_in("cq"), tuple(reversed(view.pending_in("cq")))):
        memo: dict[object, object] = {}
        asked = list(range(count + 2))
        random.Random(count).shuffle(asked)  # grown as far as asked, out of order, then asked again
        for upto in [*asked, *asked]:
            counted = Counter(w.priority for w in order[:upto])
            expected = tuple(sorted(counted.items(), key=lambda item: -item[0]))
            assert _priorities_before(memo, "cq", order, upto) == expected, upto


def test_running_totals_start_again_for_another_order() -> None:
    view, other = _queue(20, seed=1), _queue(20, seed=2)
    memo: dict[object, object] = {}
    assert demand_before(memo, "cq", view.pending_in("cq"), 20) == _summed(view, 20)
    assert demand_before(memo, "cq", other.pending_in("cq"), 20) == _summed(other, 20)
    assert demand_before(memo, "cq", view.pending_in("cq"), 19) == _summed(view, 19)


def test_the_queue_of_the_totals_test_asks_for_several_resources() -> None:
    """The sums above are over real requests (cpu, memory, a GPU), not pods alone."""
    view = _queue(40, seed=40)
    assert set(_summed(view, 40)) == {"cpu", "memory", "nvidia.com/gpu", "pods"}
