"""The holders' per-view memo (bot.forecast.holders: a contest's base kept while its tree's Workloads are the same
sequences; the preemptible amount by running sums; the listing and the freeing bound without visiting every
holder) gives what the full walk over every holder gives: random cohorts of ClusterQueues with every
preemption policy, equal amounts (ties in the listing), maximum execution times, reservations after `now`
(a clock's skew), several waiting jobs of several priorities asked on the same view, at several moments.
No timing here (that is bench/)."""

from __future__ import annotations

import gc
import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from bot.forecast import estimators
from bot.forecast.eta import freeing_bound
from bot.forecast.holders import Contest, Holder, _contest
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.compact import Interner
from bot.kube.decode import decode
from bot.kube.informer import Change
from bot.trace import demand as demand_module
from bot.trace import holdings, position, quota
from bot.trace.explain import Query, explain
from bot.trace.holdings import MAX_LISTED, cohort_tree, contested, preemption_reason, reserved_at, usage_of
from bot.trace.model import ClusterQueue, Workload, job_name
from bot.trace.quota import ZERO, capacity, cluster_queue_usage
from bot.trace.snapshot import MemorySnapshot, Snapshot, carry_over, waits_in_queue
from kubernetes import client as k8s_client

from tests.builders import NOW, Raw, condition, snapshot
from tests.contention import base, gpu_group, gpu_queue, lq, running, waiting
from tests.raw_objects import flavor_usage, queue_status

NEEDED = [("a100", "nvidia.com/gpu", Decimal(n)) for n in (1, 2, 3, 5, 8, 13, 21, 100)]
POLICIES = ("Never", "LowerPriority", "LowerOrNewerEqualPriority", "Any")


def _seconds(start: datetime | None, now: datetime) -> int | None:
    return None if start is None else max(0, int((now - start).total_seconds()))


def reference_contest(
    snapshot: Snapshot, workload: Workload, cq: ClusterQueue, tree: list[ClusterQueue], flavor: str, resource: str,
    needed: Decimal, now: datetime,
) -> Contest:  # fmt: skip
    """The walk over every holder, as it was before the memo."""
    holders: list[Holder] = []
    held_here = held_elsewhere = borrowed_elsewhere = preemptible = ZERO
    own = capacity(snapshot, cq, flavor, resource)
    for queue in tree:
        cap = capacity(snapshot, queue, flavor, resource)
        borrows = queue.name != cq.name and cap.borrowed > 0
        if borrows:
            borrowed_elsewhere += cap.borrowed
        for other in snapshot.workloads_in_cluster_queue(queue.name):
            if other.admission is None or other.admission.cluster_queue != queue.name:
                continue
            amount = usage_of(other, flavor, resource)
            if amount <= 0:
                continue
            running_for = _seconds(reserved_at(other), now)
            left = None
            if other.maximum_execution_seconds is not None and running_for is not None:
                left = max(0, other.maximum_execution_seconds - running_for)
            reason = preemption_reason(cq, workload, other, borrows)
            holders.append(
                Holder(
                    other.namespace, job_name(other), queue.name, other.priority, amount, running_for, borrows,
                    reason, left,
                )
            )  # fmt: skip
            if queue.name == cq.name:
                held_here += amount
            else:
                held_elsewhere += amount
            if reason:
                preemptible += amount
    holders.sort(key=lambda h: (h.cluster_queue != cq.name, -h.amount, -(h.running_seconds or 0), h.namespace, h.name))
    return Contest(
        flavor=flavor,
        resource=resource,
        needed=needed,
        held_here=held_here,
        held_in_cohort=held_elsewhere,
        reclaimable=min(max(ZERO, own.nominal - own.used), borrowed_elsewhere),
        preemptible=preemptible,
        holders=tuple(holders[:MAX_LISTED]),
        count=len(holders),
        frees_within=freeing_bound(((h.amount, h.seconds_left) for h in holders), needed) if needed > 0 else None,
    )


def _cluster(seed: int) -> list[Raw]:
    rng = random.Random(seed)
    queues = [
        gpu_queue(
            f"cq-{i}",
            ("a100", rng.choice([2, 4, 8])),
            cohort_name="research",
            within=rng.choice(POLICIES),
            reclaim=rng.choice(POLICIES),
        )
        for i in range(rng.randint(2, 4))
    ]
    objects = base(*queues, namespaces=("team-a", "team-b", "team-c"))
    for i in range(len(queues)):
        for ns in ("team-a", "team-b", "team-c"):
            objects.append(lq(f"gpus-{i}", ns, f"cq-{i}"))
    for n in range(rng.randint(12, 40)):
        i = rng.randrange(len(queues))
        objects += running(
            f"run-{n}", rng.choice(["team-a", "team-b", "team-c"]), f"cq-{i}", queue=f"gpus-{i}",
            gpus_per_pod=rng.choice([1, 1, 2, 2, 4]), priority=rng.choice([0, 0, 100, 1000]),
            minutes=rng.choice([1, 5, 5, 30, 30, 90, -3]),  # -3: reserved after now (a skewed clock)
            max_seconds=rng.choice([None, None, 600, 1800, 3600, 7200]),
        )  # fmt: skip
    for n in range(6):
        i = rng.randrange(len(queues))
        objects += waiting(
            f"wait-{n}", rng.choice(["team-a", "team-b"]), queue=f"gpus-{i}", gpus_per_pod=rng.choice([2, 4, 8]),
            priority=rng.choice([0, 100, 1000]), minutes=rng.choice([1, 10, 60]),
        )  # fmt: skip
    if seed % 3 == 0:  # some reservations with a fraction of a second (Kubernetes writes whole ones)
        for raw in objects:
            if raw.get("kind") == "Workload" and rng.random() < 0.5:
                for condition in raw.get("status", {}).get("conditions", []):
                    condition["lastTransitionTime"] = condition["lastTransitionTime"].replace("Z", ".5Z")
    if seed % 3 == 1:  # some holders whose record shows no time (they run 0 s at any moment, and are listed last)
        for raw in objects:
            if raw.get("kind") == "Workload" and rng.random() < 0.3:
                for condition in raw.get("status", {}).get("conditions", []):
                    if condition["type"] in ("QuotaReserved", "Admitted"):
                        del condition["lastTransitionTime"]
    return objects


@pytest.mark.parametrize("seed", range(40))
def test_a_contest_read_from_the_memo_is_the_full_walk_over_every_holder(seed: int) -> None:
    view = snapshot(_cluster(seed))
    pending = [w for ns in ("team-a", "team-b") for w in view.workloads_in(ns) if waits_in_queue(w)]
    assert pending
    compared = 0
    # A reservation 3 minutes after NOW: before, at, within a second of and after it (the listing's order is
    # kept once every reservation is a second or more ago and all are whole seconds).
    later = [NOW + timedelta(minutes=3, seconds=s) for s in (-1, 0, 0.4, 0.7, 1, 1.2, 2)]
    for moment in (NOW, NOW + timedelta(seconds=1), *later, NOW + timedelta(minutes=20), NOW + timedelta(hours=3)):
        for workload in pending:
            local = view.local_queue(workload.namespace, workload.queue_name)
            assert local is not None
            cq = view.cluster_queue(local.cluster_queue)
            assert cq is not None
            tree = cohort_tree(view, cq)
            for flavor, resource, needed in [*contested(view, cq, workload), *NEEDED]:
                memo = _contest(view, workload, cq, tree, flavor, resource, needed, moment)
                assert memo == reference_contest(view, workload, cq, tree, flavor, resource, needed, moment)
                compared += 1
    assert compared > 0


def test_the_cohort_tree_kept_per_view_is_the_one_a_walk_finds() -> None:
    view = snapshot(_cluster(3))
    for cq in view.cluster_queues():
        first = cohort_tree(view, cq)
        assert cohort_tree(view, cq) == first
        assert first[0] is cq and {q.name for q in first} == {q.name for q in view.cluster_queues()}


def _cache(objects: list[Raw]) -> ClusterCache:
    cache = ClusterCache(KubeClient(k8s_client.ApiClient()), clock=lambda: NOW)
    _put(cache, objects)
    return cache


def _put(cache: ClusterCache, objects: list[Raw]) -> None:
    parts = Interner()
    for raw in objects:
        if raw["kind"] in ("Namespace", "Job"):
            continue
        for obj in decode(raw, parts):
            cache.apply([Change(raw["kind"], "upsert", obj.meta.key if hasattr(obj, "meta") else ("", ""), obj)])


def _compare_all(view: Snapshot, namespace: str) -> int:
    compared = 0
    for workload in [w for w in view.workloads_in(namespace) if waits_in_queue(w)]:
        local = view.local_queue(workload.namespace, workload.queue_name)
        assert local is not None
        cq = view.cluster_queue(local.cluster_queue)
        assert cq is not None
        tree = cohort_tree(view, cq)
        for flavor, resource, needed in contested(view, cq, workload):
            memo = _contest(view, workload, cq, tree, flavor, resource, needed, NOW)
            assert memo == reference_contest(view, workload, cq, tree, flavor, resource, needed, NOW)
            compared += 1
    return compared


@pytest.mark.parametrize("seed", range(6))
def test_the_live_cache_and_its_views_follow_new_and_finished_holders(seed: int) -> None:
    """The memo is shared by the views of the same small kinds: a holder added or gone in between (a new
    sequence of its ClusterQueue's Workloads) is seen by the next view."""
    cache = _cache(_cluster(seed))
    compared = 0
    for namespace in ("team-a", "team-b"):
        compared += _compare_all(cache.view(namespace, []), namespace)
        compared += _compare_all(cache, namespace)
    late = running("late", "team-c", "cq-0", queue="gpus-0", gpus_per_pod=4, priority=100, minutes=2)
    _put(cache, late)
    for namespace in ("team-a", "team-b"):
        compared += _compare_all(cache.view(namespace, []), namespace)
        compared += _compare_all(cache, namespace)
    wl = next(raw for raw in late if raw["kind"] == "Workload")
    cache.apply([Change("Workload", "delete", ("team-c", wl["metadata"]["name"]), None)])
    for namespace in ("team-a", "team-b"):
        compared += _compare_all(cache.view(namespace, []), namespace)
    assert compared > 0


class _Counting(MemorySnapshot):
    """A snapshot that counts the ClusterQueues' sequences read, its memo shared with others."""

    reads = 0

    def __init__(self, objects: list[object], memo: dict[object, object]) -> None:
        super().__init__(objects)
        self.memo = memo

    def memos(self) -> dict[object, object]:
        return self.memo

    def workloads_in_cluster_queue(self, cluster_queue: str) -> Sequence[Workload]:
        self.reads += 1
        return super().workloads_in_cluster_queue(cluster_queue)


def test_a_tree_s_holders_are_checked_by_the_view_s_token_not_by_each_queue_s_sequence() -> None:
    """At 500 ClusterQueues a contest checked the 50 sequences of its tree, twice a question: a view whose
    token already stood for the tree's sequences reads none of them; another view (another token) reads them
    again, and its token stands for them from then on; a view without a token reads them each time."""
    objects = [item for raw in _cluster(3) for item in decode(raw)]
    memo: dict[object, object] = {}
    first = _Counting(objects, memo)
    cq = first.cluster_queue("cq-0")
    assert cq is not None
    tree = cohort_tree(first, cq)
    assert len(tree) > 1
    found = holdings.tree_of(first, tree, "a100", "nvidia.com/gpu")
    assert first.reads >= len(tree)
    before = first.reads
    assert holdings.tree_of(first, tree, "a100", "nvidia.com/gpu") is found and first.reads == before  # none read
    second = _Counting(objects, memo)
    again = holdings.tree_of(second, cohort_tree(second, cq), "a100", "nvidia.com/gpu")
    assert second.reads >= len(tree) and again.held == found.held  # its own sequences read, the same holders
    before = second.reads
    assert holdings.tree_of(second, cohort_tree(second, cq), "a100", "nvidia.com/gpu") is again
    assert second.reads == before
    tokenless = _Tokenless(objects, memo)
    for _ in range(2):
        before = tokenless.reads
        holdings.tree_of(tokenless, cohort_tree(tokenless, cq), "a100", "nvidia.com/gpu")
        assert tokenless.reads - before >= len(tree)


class _Tokenless(_Counting):
    def sequences_token(self) -> object | None:
        return None


def test_a_reservation_after_now_counts_its_whole_maximum_in_the_freeing_bound() -> None:
    """A clock's skew: `skewed` got its quota 3 minutes after now (left: its whole 600 s), `soon` 2 minutes
    ago with 820 s at most (left: 700 s); by deadline `soon` comes first, by time left `skewed` does."""
    objects = base(gpu_queue("cq-0", ("a100", 8), cohort_name="research"), namespaces=("team-a",))
    objects.append(lq("gpus-0", "team-a", "cq-0"))
    objects += running("skewed", "team-a", "cq-0", queue="gpus-0", gpus_per_pod=4, minutes=-3, max_seconds=600)
    objects += running("soon", "team-a", "cq-0", queue="gpus-0", gpus_per_pod=4, minutes=2, max_seconds=820)
    objects += waiting("train", "team-a", queue="gpus-0", gpus_per_pod=4)
    view = snapshot(objects)
    workload = next(w for w in view.workloads_in("team-a") if waits_in_queue(w))
    cq = view.cluster_queue("cq-0")
    assert cq is not None
    tree = cohort_tree(view, cq)
    got = _contest(view, workload, cq, tree, "a100", "nvidia.com/gpu", Decimal(4), NOW)
    assert got == reference_contest(view, workload, cq, tree, "a100", "nvidia.com/gpu", Decimal(4), NOW)
    assert got.frees_within == 600


def _reporting(objects: list[Raw]) -> list[Raw]:
    """The same cluster, its ClusterQueues reporting their reservation (status.flavorsReservation), as Kueue's
    do: a view can no longer sum their usage itself, and must still see who holds it."""
    full = snapshot(objects)
    reported = []
    for raw in objects:
        if raw["kind"] == "ClusterQueue":
            cq = full.cluster_queue(raw["metadata"]["name"])
            assert cq is not None and cq.reservation is None
            used = cluster_queue_usage(full, cq, "a100", "nvidia.com/gpu")
            totals = [flavor_usage("a100", [("nvidia.com/gpu", str(used), None)])]
            raw = {**raw, "status": queue_status([], reservation=totals)}
        reported.append(raw)
    return reported


@pytest.mark.parametrize("seed", range(6))
def test_a_cache_view_sees_every_holder_of_its_tree_when_the_queues_report_their_reservation(seed: int) -> None:
    """A view of one namespace holds the Workloads of every ClusterQueue of its queues' cohort trees, other
    namespaces' included: who holds the quota is the same as on a snapshot of the whole cluster (the views
    once held only the trees' ClusterQueues that report no reservation, so on a real Kueue nobody held
    anything)."""
    objects = _reporting(_cluster(seed))
    full = snapshot(objects)
    cache = _cache(objects)
    compared = others = 0
    for namespace in ("team-a", "team-b"):
        view = cache.view(namespace, [])
        for workload in [w for w in view.workloads_in(namespace) if waits_in_queue(w)]:
            local = view.local_queue(workload.namespace, workload.queue_name)
            assert local is not None
            cq, whole = view.cluster_queue(local.cluster_queue), full.cluster_queue(local.cluster_queue)
            assert cq is not None and whole is not None and cq.reservation is not None
            mine = next(w for w in full.workloads_in(namespace) if w.name == workload.name)
            for flavor, resource, needed in contested(full, whole, mine):
                got = _contest(view, workload, cq, cohort_tree(view, cq), flavor, resource, needed, NOW)
                want = reference_contest(full, mine, whole, cohort_tree(full, whole), flavor, resource, needed, NOW)
                assert got == want
                compared += 1
                others += sum(1 for h in got.holders if h.namespace != namespace)
    assert compared > 0 and others > 0


def test_a_change_in_one_queue_rebuilds_its_part_only_and_the_tree_reads_as_a_full_walk() -> None:
    """The tree is merged from its queues' parts; a new holder in cq-0 makes cq-0's part again, the others are
    kept, and every contest still reads as the full walk over every holder."""
    cache = _cache(_cluster(5))
    view = cache.view("team-a", [])
    assert _compare_all(view, "team-a") + _compare_all(cache.view("team-b", []), "team-b") > 0
    table = view.memos()[holdings._PARTS]
    assert isinstance(table, dict) and table
    parts = dict(table)
    late = running("late", "team-c", "cq-0", queue="gpus-0", gpus_per_pod=4, priority=100, minutes=2)
    _put(cache, late)
    later = cache.view("team-a", [])
    assert _compare_all(later, "team-a") + _compare_all(cache.view("team-b", []), "team-b") > 0
    renewed = later.memos()[holdings._PARTS]
    assert isinstance(renewed, dict)
    for key, (_, part) in parts.items():
        assert (renewed[key][1] is part) == (key[0] != "cq-0"), key
        if key[0] == "cq-0":  # rebuilt from the old part's records of the same Workloads, as a fresh build reads
            rebuilt = renewed[key][1]
            assert len(rebuilt.held) == len(part.held) + 1 and set(part.held) <= set(rebuilt.held)
            assert set(map(id, part.held)) <= set(map(id, rebuilt.held))  # the same records
            workloads = later.workloads_in_cluster_queue("cq-0")
            fresh = holdings._Queue("cq-0", workloads, key[1], key[2], rebuilt.borrowed)
            assert (fresh.sized, fresh.bounded, fresh.total) == (rebuilt.sized, rebuilt.bounded, rebuilt.total)


def test_a_tree_s_holders_leave_the_garbage_collector_s_sight() -> None:
    """A tree keeps a record per holder (tens of thousands at 200,000 Workloads): exact tuples of plain values,
    which collections stop tracking (a record holding its Workload stayed tracked: every full collection walked
    them all), and so are its listing's and its ranking's keys."""
    view = snapshot(_cluster(7))
    assert _compare_all(view, "team-a") > 0
    table = view.memos()[holdings._CONTESTS]
    assert isinstance(table, dict) and table
    trees = [tree for _, _, tree, _ in table.values()]
    records = [h for tree in trees for h in tree.by_size]
    keys = [k for tree in trees for part in tree.ranked_in.values() for k in part.keys]
    assert records and keys and all(type(h) is tuple for h in records)
    for _ in range(5):  # a collection untracks a tuple whose items are untracked by then: a level or more each
        gc.collect()
    assert not any(gc.is_tracked(each) for each in (*records, *keys))


def _with_pending_count(objects: list[Raw], name: str, count: int) -> list[Raw]:
    """The ClusterQueue `name` as Kueue writes it after an admission: its status changed, its spec not."""
    for raw in objects:
        if raw["kind"] == "ClusterQueue" and raw["metadata"]["name"] == name:
            return [{**raw, "status": {**raw["status"], "pendingWorkloads": count}}]
    raise AssertionError(name)


def test_memos_derived_from_workloads_outlive_a_cluster_queue_status_change() -> None:
    """On a live Kueue a ClusterQueue's status changes with every admission, and the views' memos() is renewed
    with the small kinds: what was derived from Workloads that did not change (a queue's history, its waiting
    jobs and their Estimator, the tree's parts and holders) carries over; what a Workload change touched does
    not (a kept entry would hold its old Workloads alive); the contests still read as the full walk."""
    objects = _reporting(_cluster(5))
    cache = _cache(objects)
    view = cache.view("team-a", [])
    assert _compare_all(view, "team-a") + _compare_all(cache.view("team-b", []), "team-b") > 0
    estimator = estimators.estimator_for(view, None, "cq-1", "a100", NOW)  # from the queue's own admitted Workloads
    old = view.memos()
    parts, trees = dict(old[holdings._PARTS]), dict(old[holdings._CONTESTS])  # type: ignore[call-overload]
    assert parts and trees

    _put(cache, _with_pending_count(objects, "cq-0", 99))
    later = cache.view("team-a", [])
    assert later.memos() is not old and later.cluster_queue("cq-0") is not view.cluster_queue("cq-0")
    assert estimators.estimator_for(later, None, "cq-1", "a100", NOW) is estimator
    kept = later.memos()[holdings._PARTS]
    assert isinstance(kept, dict) and all(kept[key][1] is part for key, (_, part) in parts.items())
    assert _compare_all(later, "team-a") + _compare_all(cache.view("team-b", []), "team-b") > 0
    renewed = later.memos()[holdings._CONTESTS]
    assert isinstance(renewed, dict)
    assert all(renewed[key][2] is tree for key, (_, _, tree, _) in trees.items())  # the same parts: the same tree

    late = running("late", "team-c", "cq-0", queue="gpus-0", gpus_per_pod=4, priority=100, minutes=2)
    _put(cache, late)
    _put(cache, _with_pending_count(objects, "cq-1", 98))
    last = cache.view("team-a", [])
    carried = last.memos()[holdings._PARTS]
    assert isinstance(carried, dict)
    assert {key[0] for key in carried} == {key[0] for key in parts} - {"cq-0"}  # cq-0's Workloads changed
    assert not last.memos()[holdings._CONTESTS]  # every tree holds cq-0
    assert estimators.estimator_for(last, None, "cq-1", "a100", NOW) is estimator  # cq-1's Workloads are the same
    assert estimators.estimator_for(last, None, "cq-0", "a100", NOW) is not estimators.estimator_for(
        view, None, "cq-0", "a100", NOW
    )
    assert _compare_all(last, "team-a") + _compare_all(cache.view("team-b", []), "team-b") > 0


def test_the_running_totals_along_an_order_outlive_a_status_change_while_the_order_is_the_same() -> None:
    """The demand and the priorities ahead along each queue order (bot.trace.demand, bot.trace.position), kept
    in one table each: a renewal of the small kinds carries over the entries of the orders the cache still
    hands out, and lets go of those of an order a new waiting job changed."""
    objects = _reporting(_cluster(5))
    cache = _cache(objects)
    for namespace in ("team-a", "team-b"):
        view = cache.view(namespace, [])
        for workload in [w for w in view.workloads_in(namespace) if waits_in_queue(w)]:
            job = job_name(workload)
            assert explain(view, Query(namespace, job, "Job"), now=NOW).position is not None
    old = cache.view("team-a", []).memos()
    demand, runs = dict(old[demand_module._DEMAND_BEFORE]), dict(old[position._PRIORITY_RUNS])  # type: ignore[call-overload]
    assert demand and set(demand) <= set(runs)  # the demand ahead is summed only where some wait ahead

    _put(cache, _with_pending_count(objects, "cq-0", 99))
    later = cache.view("team-a", []).memos()
    assert later is not old
    assert later[demand_module._DEMAND_BEFORE] == demand and later[position._PRIORITY_RUNS] == runs

    queue = sorted(demand)[0]
    _put(cache, waiting("newcomer", "team-c", queue=f"gpus-{queue[3:]}", gpus_per_pod=1, minutes=0.5))
    _put(cache, _with_pending_count(objects, "cq-1", 98))
    last = cache.view("team-a", []).memos()
    assert set(last[demand_module._DEMAND_BEFORE]) == set(demand) - {queue}  # type: ignore[call-overload]
    assert set(last[position._PRIORITY_RUNS]) == set(runs) - {queue}  # type: ignore[call-overload]


_LASTING_TABLES = (
    holdings._PARTS,
    holdings._CONTESTS,
    estimators._ESTIMATORS,
    demand_module._DEMAND_BEFORE,
    position._PRIORITY_RUNS,
)


def _compare_both(cache: ClusterCache) -> int:
    return _compare_all(cache.view("team-a", []), "team-a") + _compare_all(cache.view("team-b", []), "team-b")


def _local_queue_raw(objects: list[Raw], namespace: str, name: str) -> Raw:
    return next(
        raw
        for raw in objects
        if raw["kind"] == "LocalQueue" and (raw["metadata"]["namespace"], raw["metadata"]["name"]) == (namespace, name)
    )


def test_a_local_queue_s_status_update_keeps_the_orders_and_what_was_derived_from_them() -> None:
    """Kueue writes a LocalQueue's status with every admission in it: the views' copies of the small kinds are
    renewed (the new LocalQueue is read), every queue order stays, and so does what the trace derived from
    them (a queue's Estimator, the trees' holders), where a full renewal rebuilt every tree for the next
    question (30 ms at 50,000 Workloads). A LocalQueue moved to another ClusterQueue moves its Workloads: the
    views read as a fresh snapshot of the same objects."""
    objects = _reporting(_cluster(5))
    cache = _cache(objects)
    view = cache.view("team-a", [])
    assert _compare_both(cache) > 0
    first = next(w for ns in ("team-a", "team-b") for w in cache.view(ns, []).workloads_in(ns) if waits_in_queue(w))
    namespace, queue = first.namespace, first.queue_name
    own = cache.local_queue(namespace, queue)
    assert own is not None
    source = own.cluster_queue
    target = next(cq.name for cq in view.cluster_queues() if cq.name != source)
    view = cache.view(namespace, [])
    estimator = estimators.estimator_for(view, None, source, "a100", NOW)
    trees = dict(view.memos()[holdings._CONTESTS])  # type: ignore[call-overload]
    orders = {cq.name: view.pending_in(cq.name) for cq in view.cluster_queues()}

    raw = _local_queue_raw(objects, namespace, queue)
    status = {"pendingWorkloads": 3, "conditions": [condition("Active", True, "Ready", "Can submit new workloads")]}
    _put(cache, [{**raw, "status": status}])
    later = cache.view(namespace, [])
    local = later.local_queue(namespace, queue)
    assert local is not None and local is not view.local_queue(namespace, queue) and local.conditions
    assert {cq: later.pending_in(cq) for cq in orders} == orders
    assert all(later.pending_in(cq) is order for cq, order in orders.items() if cq in later._cq_orders)
    assert estimators.estimator_for(later, None, source, "a100", NOW) is estimator
    kept = later.memos()[holdings._CONTESTS]
    assert isinstance(kept, dict) and all(kept[key][2] is tree for key, (_, _, tree, _) in trees.items())
    assert _compare_both(cache) > 0

    moved = {**raw, "spec": {**raw["spec"], "clusterQueue": target}}
    _put(cache, [moved])
    objects = [moved if o is raw else o for o in objects]
    last, fresh = cache.view(namespace, []), snapshot(objects)
    for cq in (source, target):
        assert [w.name for w in last.pending_in(cq)] == [w.name for w in fresh.pending_in(cq)]
    assert first.name in [w.name for w in last.pending_in(target)]
    assert first.name not in [w.name for w in last.pending_in(source)]
    assert _compare_both(cache) > 0


def test_a_renewed_quota_state_inherits_the_trees_that_did_not_change_and_reads_as_a_fresh_one() -> None:
    """After a ClusterQueue's status changes, the views' quota state is built again, inheriting what the one
    before computed for the cohort trees whose ClusterQueues read the same to the quota math (a new object whose
    pending count changed does) and whose Cohorts are the same: their capacities are the same objects; when a
    reservation changed, that tree's are computed again; every one equals a fresh state's."""
    ops = [gpu_queue(name, ("a100", 4), cohort_name="ops") for name in ("ops-0", "ops-1")]
    objects = _reporting([*_cluster(3), *ops, lq("ops-q", "team-a", "ops-0")])
    cache = _cache(objects)

    def capacities(view: Snapshot) -> dict[str, object]:
        found: dict[str, object] = {}
        for cq in view.cluster_queues():
            got = capacity(view, cq, "a100", "nvidia.com/gpu")
            assert got == quota.QuotaState(view).capacity(view, cq, "a100", "nvidia.com/gpu")  # a fresh state's
            found[cq.name] = got
        return found

    before = capacities(cache.view("team-a", []))
    _put(cache, _with_pending_count(objects, "cq-0", 99))
    after = capacities(cache.view("team-a", []))
    assert after == before
    assert all(after[name] is before[name] for name in before)  # only cq-0's counts changed: every tree is kept

    busy = [
        {**raw, "status": queue_status([], reservation=[flavor_usage("a100", [("nvidia.com/gpu", "3", None)])])}
        for raw in objects
        if raw["kind"] == "ClusterQueue" and raw["metadata"]["name"] == "ops-1"
    ]
    _put(cache, busy)
    last = capacities(cache.view("team-a", []))
    assert last["ops-0"] != before["ops-0"] and all(last[n] is after[n] for n in after if not n.startswith("ops-"))

    # A spec change (a nominal quota) with the same reservation and counts: that tree is computed again.
    bigger = {**busy[0], "spec": {**busy[0]["spec"], "resourceGroups": [gpu_group(("a100", 6))]}}
    _put(cache, [bigger])
    grown = capacities(cache.view("team-a", []))
    assert grown["ops-1"] != last["ops-1"] and grown["ops-0"] != last["ops-0"]
    assert all(grown[n] is last[n] for n in last if not n.startswith("ops-"))


@pytest.mark.parametrize("seed", range(12))
def test_a_quota_state_renewed_after_any_cluster_queue_change_reads_as_a_fresh_one(seed: int) -> None:
    """Random ClusterQueue changes one after another (its counts, its reported reservation, its nominal quota,
    another cohort, none): after each, every capacity the renewed state gives (trees and capacities inherited
    where the queues read the same) equals a fresh state's, and every contest (the tree's holders, kept per
    queue, read again for the queues that are new objects) the full walk over every holder."""
    rng = random.Random(seed)
    objects = _reporting(_cluster(seed))
    cache = _cache(objects)
    queues = {raw["metadata"]["name"]: raw for raw in objects if raw["kind"] == "ClusterQueue"}
    for step in range(10):
        view = cache.view("team-a", [])
        for cq in view.cluster_queues():
            for resource in ("nvidia.com/gpu", "cpu"):
                got = capacity(view, cq, "a100", resource)
                assert got == quota.QuotaState(view).capacity(view, cq, "a100", resource), (step, cq.name)
        for namespace in ("team-a", "team-b"):  # who holds it, what borrows: as the full walk finds them
            view = cache.view(namespace, [])
            for workload in [w for w in view.workloads_in(namespace) if waits_in_queue(w)]:
                local = view.local_queue(namespace, workload.queue_name)
                waits_in = view.cluster_queue(local.cluster_queue) if local is not None else None
                assert waits_in is not None
                tree = cohort_tree(view, waits_in)
                for flavor, resource, needed in NEEDED[:3]:
                    memo = _contest(view, workload, waits_in, tree, flavor, resource, needed, NOW)
                    assert memo == reference_contest(view, workload, waits_in, tree, flavor, resource, needed, NOW)
        name = rng.choice(sorted(queues))
        raw = queues[name]
        change = rng.choice(["count", "reservation", "nominal", "cohort"])
        if change == "count":
            raw = {**raw, "status": {**raw["status"], "pendingWorkloads": step}}
        elif change == "reservation":
            used = [flavor_usage("a100", [("nvidia.com/gpu", str(rng.randint(0, 8)), None)])]
            raw = {**raw, "status": {**raw["status"], "flavorsReservation": used}}
        elif change == "nominal":
            raw = {**raw, "spec": {**raw["spec"], "resourceGroups": [gpu_group(("a100", rng.choice([2, 4, 8, 16])))]}}
        else:
            cohort = rng.choice(["research", "other", None])
            spec = {k: v for k, v in raw["spec"].items() if k != "cohortName"}
            raw = {**raw, "spec": {**spec, **({"cohortName": cohort} if cohort else {})}}
        queues[name] = raw
        _put(cache, [raw])


@pytest.mark.parametrize("seed", range(6))
def test_a_renewal_keeps_exactly_the_memos_whose_sequences_the_cache_still_hands_out(seed: int) -> None:
    """Status updates (a renewal of the small kinds), jobs arriving and being admitted, questions in between, at
    random. A renewal with no Workload sequence let go since the last one keeps every memo without reading
    them; after every renewal, either way, what it kept is what reading every entry against the sequences the
    cache hands out keeps (nothing derived from a sequence let go stays), and the answers read as fresh ones."""
    rng = random.Random(seed)
    objects = _reporting(_cluster(seed))
    cache = _cache(objects)
    queues = sorted(raw["metadata"]["name"] for raw in objects if raw["kind"] == "ClusterQueue")
    for step in range(14):
        for namespace in ("team-a", "team-b"):
            view = cache.view(namespace, [])
            for workload in [w for w in view.workloads_in(namespace) if waits_in_queue(w)][:4]:
                explain(view, Query(namespace, job_name(workload), "Job"), now=NOW)
        change = rng.choice(["status", "status", "arrives", "admitted"])
        cq = rng.choice(queues)
        if change == "arrives":
            _put(cache, waiting(f"new-{step}", rng.choice(["team-a", "team-b"]), queue=f"gpus-{cq[3:]}", minutes=1))
        elif change == "admitted":
            _put(cache, running(f"ran-{step}", "team-c", cq, queue=f"gpus-{cq[3:]}", minutes=1))
        _put(cache, _with_pending_count(objects, rng.choice(queues), step))  # Kueue's status update
        renewed = cache.view("team-a", []).memos()
        lasting: dict[object, object] = {key: value for key, value in renewed.items() if key in _LASTING_TABLES}
        assert lasting and lasting == carry_over(lasting, cache._hands_out()), (step, change)
    assert _compare_both(cache) > 0


def _prepared_steps(cache: ClusterCache) -> int:
    """A warmer's pass over every ClusterQueue (bot.service.warmer): the holders' steps it takes."""
    done: set[tuple[str, str, str]] = set()
    return sum(1 for cq in cache.cluster_queues() for _ in holdings.preparing(cache, cq.name, done))


def _trees(cache: ClusterCache) -> dict[object, object]:
    table = cache.memos().get(holdings._CONTESTS)
    assert isinstance(table, dict)
    return {key: entry[2] for key, entry in table.items()}


@pytest.mark.parametrize("seed", range(6))
def test_the_holders_made_ahead_are_the_ones_questions_read_and_a_current_tree_takes_no_step(seed: int) -> None:
    """`holdings.preparing` (the warmer's, before any question): a step per queue's part then one for the tree's
    merge, for the one cohort tree and (flavor, resource) of these queues; the questions then read those very
    trees (none rebuilt), as the full walk over every holder reads; a second pass takes no step. A new holder
    in one queue: the same steps again (its part made anew, the others found), and the questions read the new
    tree, as a full walk."""
    cache = _cache(_cluster(seed))
    queues = cache.cluster_queues()
    pairs = {(f.name, r) for q in queues for group in q.resource_groups for f in group.flavors for r in group.covered}
    assert ("a100", "nvidia.com/gpu") in pairs
    steps = len(pairs) * (len(queues) + 1)  # one tree (the cohort "research"): its parts and merge, each pair
    assert _prepared_steps(cache) == steps
    made = _trees(cache)
    assert set(made) == {("cq-0", *pair) for pair in pairs}
    assert _compare_both(cache) > 0
    assert all(_trees(cache)[key] is tree for key, tree in made.items())  # read as made: none rebuilt
    assert _prepared_steps(cache) == 0

    _put(cache, running("late", "team-c", "cq-0", queue="gpus-0", gpus_per_pod=4, priority=100, minutes=2))
    assert _prepared_steps(cache) == steps
    again = _trees(cache)
    assert all(again[key] is not tree for key, tree in made.items())
    assert _compare_both(cache) > 0
    assert all(_trees(cache)[key] is tree for key, tree in again.items())


def test_nothing_is_made_ahead_for_a_queue_nobody_waits_in_nor_for_an_unknown_one() -> None:
    objects = base(gpu_queue("idle", ("a100", 4), cohort_name="research"), namespaces=("team-a",))
    objects += [lq("q", "team-a", "idle"), *running("busy", "team-a", "idle", queue="q", gpus_per_pod=2)]
    cache = _cache(objects)
    done: set[tuple[str, str, str]] = set()
    assert list(holdings.preparing(cache, "idle", done)) == [] and not done
    assert list(holdings.preparing(cache, "no-such-queue", done)) == [] and not done


def test_the_order_s_totals_made_ahead_are_the_ones_questions_read_and_answer_as_grown_by_them() -> None:
    """`position.prepare_order` (the warmer's): the priorities and the running totals ahead of every place a
    question details, made before any question; the questions then add nothing to them, and their answers are
    those of a cache where the questions grew them."""
    objects = _cluster(7)
    for n in range(40):  # a queue long enough for several checkpoints of the running totals
        objects += waiting(f"more-{n}", "team-a", queue="gpus-0", gpus_per_pod=1 + n % 3, minutes=n, priority=n % 2)
    ahead, grown = _cache(objects), _cache(objects)
    for cq in ahead.cluster_queues():
        position.prepare_order(ahead, cq.name)
    memo = ahead.memos()
    made_totals, made_runs = memo[demand_module._DEMAND_BEFORE], memo[position._PRIORITY_RUNS]
    assert isinstance(made_totals, dict) and isinstance(made_runs, dict)
    demand = {key: (order, list(points)) for key, (order, points) in made_totals.items()}
    runs = {key: (order, list(found)) for key, (order, found) in made_runs.items()}
    longest = len(ahead.pending_in("cq-0"))
    assert longest > 40 and len(demand["cq-0"][1]) == longest // demand_module._CHECKPOINT + 1
    assert runs["cq-0"][1][-1][2] == longest  # every place scanned
    for namespace in ("team-a", "team-b"):
        for workload in [w for w in ahead.workloads_in(namespace) if waits_in_queue(w)]:
            query = Query(namespace, job_name(workload), "Job")
            assert explain(ahead, query, now=NOW) == explain(grown, query, now=NOW)
    after = ahead.memos()
    totals, priorities = after[demand_module._DEMAND_BEFORE], after[position._PRIORITY_RUNS]
    assert isinstance(totals, dict) and isinstance(priorities, dict)
    for key, (order, points) in demand.items():  # nothing grown nor made again by the questions
        assert totals[key][0] is order and totals[key][1] == points
    for key, (order, found) in runs.items():
        assert priorities[key][0] is order and priorities[key][1] == found
