"""What a question's view copies is kept between questions (the small kinds, a namespace's part, a queue's
order) and forgotten when a change touches it; the view holds the Workloads of every ClusterQueue of its
cohort trees (who holds the quota; the usage of those that report no reservation)."""

from __future__ import annotations

import gc
import weakref

from bot.kube.cache import ClusterCache
from bot.kube.decode import decode
from bot.kube.informer import Change

from tests.builders import (
    NS,
    assignment,
    cluster_queue,
    cohort,
    cpu_group,
    job,
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


def test_views_that_read_nothing_more_share_one_empty_read_only_extras() -> None:
    """Most questions read nothing beyond the cache (a pending Workload): their views share one empty
    MemorySnapshot of extras (bot.kube.cache._NO_EXTRAS); one that read its job holds its own."""
    cache = cache_of([cluster_queue("cq"), local_queue(), *pending("a")])
    first, second = cache.view(NS), cache.view("other")
    assert first.extras is second.extras
    assert not first.jobs_named(NS, "train") and not first.workloads_not_ready() and not first.nodes()
    read = decode(job("train"))
    with_job = cache.view(NS, read)
    assert with_job.extras is not first.extras and [j.meta.name for j in with_job.jobs_named(NS, "train")] == ["train"]
    assert not cache.view(NS).jobs_named(NS, "train")  # nothing it read reached the shared one


def _in_cluster_queues(cache: ClusterCache) -> dict[str, list[str]]:
    view = cache.view(NS)
    names = ("cq", "near", "far", "parented", "other-tree")
    return {cq: sorted(w.name for w in view.workloads_in_cluster_queue(cq)) for cq in names}


def test_the_view_holds_the_workloads_of_every_cluster_queue_of_its_cohort_trees() -> None:
    """Those that report their reservation too: their holders are who a waiting job waits for (the views
    once left them out, and on a real Kueue, whose ClusterQueues all report it, nobody held anything)."""
    admitted = reserved("near", assignment("main", 1, default={"cpu": "1"}))
    objects = [
        cohort("root"),
        cohort("child", parent="root"),
        cluster_queue("cq", cohort="child"),
        cluster_queue("near", cohort="child"),  # no reservation reported: held (the view sums its usage)
        cluster_queue("far", cohort="root", reservation={"default": {"cpu": 1}}),  # reported: held (its holders)
        cluster_queue("parented", cohort="root"),  # same tree through the parent: held
        cluster_queue("other-tree", cohort="elsewhere"),  # another tree: not held
        local_queue(),
        workload("in-near", namespace="ops", queue="q", status=admitted),
        workload("in-far", namespace="ops", queue="q", status=reserved("far", assignment("main", 1))),
        workload("in-other", namespace="ops", queue="q", status=reserved("other-tree", assignment("main", 1))),
    ]
    cache = cache_of(objects)
    assert _in_cluster_queues(cache) == {
        "cq": [],
        "near": ["in-near"],
        "far": ["in-far"],
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


def test_the_workloads_of_the_trees_are_kept_until_one_of_their_queues_changes() -> None:
    """A question's view reads the Workloads of every ClusterQueue of its trees (dozens of queues): what the
    cache hands out is kept, one copy for the namespaces whose queues are in the same trees, while the small
    kinds and those queues' Workloads are the same; a Workload admitted in a queue of the tree from another
    namespace, or a queue leaving the tree, reaches the next view, and an earlier view keeps what it was given."""
    objects = [
        cohort("root"),
        cluster_queue("cq", cohort="root"),
        cluster_queue("near", cohort="root"),
        cluster_queue("other-tree", cohort="elsewhere"),
        local_queue(),
        local_queue("q", "ops", "near"),
        local_queue("q", "far-away", "other-tree"),
        workload("in-near", namespace="ops", queue="q", status=reserved("near", assignment("main", 1))),
    ]
    cache = cache_of(objects)
    first, again = cache.view(NS), cache.view(NS)
    assert first._in_cq is again._in_cq  # kept: nothing changed
    assert cache.view("ops")._in_cq is first._in_cq  # the same tree: one copy
    assert cache.view("far-away")._in_cq is not first._in_cq
    assert [w.name for w in first.workloads_in_cluster_queue("near")] == ["in-near"]
    put(cache, [workload("also-near", namespace="ops", queue="q", status=reserved("near", assignment("main", 1)))])
    second = cache.view(NS)
    assert sorted(w.name for w in second.workloads_in_cluster_queue("near")) == ["also-near", "in-near"]
    assert [w.name for w in first.workloads_in_cluster_queue("near")] == ["in-near"]  # what it was given
    put(cache, [workload("far", namespace="far-away", queue="q", status=reserved("other-tree", assignment("main", 1)))])
    assert cache.view(NS)._in_cq is second._in_cq  # a queue of another tree: nothing of this one changed
    put(cache, [cluster_queue("near", cohort="elsewhere")])  # leaves the tree
    third = cache.view(NS)
    assert third.workloads_in_cluster_queue("near") == () and "near" not in third._in_cq
    put(cache, pending("mine"))  # the namespace's own Workloads
    fourth = cache.view(NS)
    mine = fourth.pending_in("cq")
    assert len(mine) == 1 and tuple(fourth.workloads_in_cluster_queue("cq")) == tuple(mine)


def test_a_renewal_of_the_small_kinds_lets_every_namespace_s_trees_go() -> None:
    """The trees a namespace's questions read are kept with the small kinds: when a ClusterQueue's status changes
    (at every admission on a live Kueue), the old copies and what the trace derived from them go, whichever
    namespaces were asked about (kept elsewhere, each would hold an old copy and its memos alive)."""
    objects = [
        cluster_queue("cq", cohort="root"),
        cluster_queue("near", cohort="root"),
        local_queue(),
        local_queue("q", "ops", "near"),
        *pending("a"),
    ]
    cache = cache_of(objects)
    cache.view(NS), cache.view("ops")
    old = weakref.ref(cache._small_view())
    put(cache, [cluster_queue("cq", cohort="root", reservation={"default": {"cpu": 1}})])  # a status change
    cache.view(NS)
    gc.collect()
    assert old() is None


def test_a_status_update_keeps_the_trees_map_and_a_cohort_change_reads_it_again() -> None:
    """A ClusterQueue's status update (Kueue's, with every admission) renews the copies of the small kinds:
    which ClusterQueues share a tree is kept (every one is in the cohort it was in), and the LocalQueues'
    groups while they are the same objects; a ClusterQueue moved to another cohort reads the trees again."""
    objects = [
        resource_flavor("default"),
        cluster_queue("cq", cohort="research"),
        cluster_queue("near", cohort="research"),
        cluster_queue("far", cohort="ops"),
        local_queue(),
    ]
    cache = cache_of(objects)
    first = cache.view(NS)
    small = cache._small_view()
    assert small.trees_around(["cq"]) == {"cq", "near"}
    status = cluster_queue("near", cohort="research")
    status["status"]["pendingWorkloads"] = 7
    put(cache, [status])
    renewed = cache._small_view()
    assert renewed is not small and renewed.cluster_queues["near"] is not small.cluster_queues["near"]
    assert renewed._root_of is small._root_of and renewed.lqs_by_ns is small.lqs_by_ns
    put(cache, [cluster_queue("far", cohort="research")])
    moved = cache._small_view()
    assert moved._root_of is not small._root_of and moved.trees_around(["cq"]) == {"cq", "near", "far"}
    assert first.cluster_queue("far") is not None
