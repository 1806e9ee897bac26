"""What a question's view copies is kept between questions (the small kinds, a namespace's part, a queue's
order) and forgotten when a change touches it; the view counts the Workloads of the ClusterQueues of its
cohort trees that report no reservation, as before it kept anything."""

from __future__ import annotations

from bot.kube.cache import ClusterCache
from bot.kube.informer import Change

from tests.builders import (
    NS,
    assignment,
    cluster_queue,
    cohort,
    cpu_group,
    local_queue,
    pending,
    reserved,
    resource_flavor,
    workload,
)
from tests.cache_support import cache_of, put


def test_a_change_to_a_small_kind_reaches_the_next_view() -> None:
    cache = cache_of([resource_flavor("default"), cluster_queue("cq"), local_queue()])
    first = cache.view(NS)
    assert cache.view(NS).cluster_queues() == first.cluster_queues()
    put(cache, [cluster_queue("cq", cpu_group(cpu=99), cohort="research"), resource_flavor("spot")])
    second = cache.view(NS)
    known = second.cluster_queue("cq")
    assert known is not None and known.cohort == "research"
    assert second.flavor("spot") is not None and first.flavor("spot") is None
    cache.apply([Change("ResourceFlavor", "delete", ("", "spot")), Change("Cohort", "delete", ("", "research"))])
    assert cache.view(NS).flavor("spot") is None


def test_a_view_keeps_what_it_was_given() -> None:
    cache = cache_of([cluster_queue("cq"), local_queue(), *pending("a")])
    before = cache.view(NS)
    put(cache, pending("b"))
    after = cache.view(NS)
    assert [w.name for w in before.pending_in("cq")] != [w.name for w in after.pending_in("cq")]
    assert len(before.workloads_in(NS)) == 1 and len(after.workloads_in(NS)) == 2


def _in_cluster_queues(cache: ClusterCache) -> dict[str, list[str]]:
    view = cache.view(NS)
    names = ("cq", "near", "far", "parented", "other-tree")
    return {cq: sorted(w.name for w in view.workloads_in_cluster_queue(cq)) for cq in names}


def test_the_view_counts_the_workloads_of_its_cohort_trees_that_report_no_reservation() -> None:
    admitted = reserved("near", assignment("main", 1, default={"cpu": "1"}))
    objects = [
        cohort("root"),
        cohort("child", parent="root"),
        cluster_queue("cq", cohort="child"),
        cluster_queue("near", cohort="child"),  # no reservation reported: counted by the view
        cluster_queue("far", cohort="root", reservation={"default": {"cpu": 1}}),  # reported: not counted
        cluster_queue("parented", cohort="root"),  # same tree through the parent: counted
        cluster_queue("other-tree", cohort="elsewhere"),  # another tree: not counted
        local_queue(),
        workload("in-near", namespace="ops", queue="q", status=admitted),
        workload("in-far", namespace="ops", queue="q", status=reserved("far", assignment("main", 1))),
        workload("in-other", namespace="ops", queue="q", status=reserved("other-tree", assignment("main", 1))),
    ]
    cache = cache_of(objects)
    assert _in_cluster_queues(cache) == {
        "cq": [],
        "near": ["in-near"],
        "far": [],
        "parented": [],
        "other-tree": [],
    }
    put(cache, [cluster_queue("far", cohort="root")])  # stops reporting: now counted
    put(cache, [cohort("elsewhere", parent="root")])  # the other tree joins this one
    assert _in_cluster_queues(cache) == {
        "cq": [],
        "near": ["in-near"],
        "far": ["in-far"],
        "parented": [],
        "other-tree": ["in-other"],
    }
