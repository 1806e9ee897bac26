"""The cache's incremental indexes against MemorySnapshot's full sort: any sequence of Workload and
LocalQueue adds, updates and deletes leaves the same queue order, positions and memberships."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.compact import Interner, freeze
from bot.kube.informer import Change
from bot.trace.model import JOB_UID_LABEL, Condition, LocalQueue, Meta, Workload
from bot.trace.snapshot import MemorySnapshot
from hypothesis import given, settings
from hypothesis import strategies as st
from kubernetes import client as k8s_client

T0 = datetime(2026, 11, 3, 8, 0, tzinfo=UTC)
NAMESPACES = ("a", "b")
QUEUES = ("lq1", "lq2", "lq3")
CLUSTER_QUEUES = ("cq1", "cq2")
STATES = ("pending", "reserved", "inactive", "finished", "evicted")


def _workload(ns: int, name: int, priority: int, minute: int, queue: int, state: str) -> Workload:
    conditions: tuple[Condition, ...] = ()
    if state == "reserved":
        conditions = (Condition("QuotaReserved", "True"),)
    elif state == "finished":
        conditions = (Condition("Finished", "True"),)
    elif state == "evicted":
        conditions = (Condition("Evicted", "True", "PodsReadyTimeout", since=T0 + timedelta(minutes=minute + 30)),)
    return Workload(
        meta=Meta(
            "Workload",
            f"w{name}",
            NAMESPACES[ns],
            uid=f"uid-{ns}-{name}",
            created=T0 + timedelta(minutes=minute),
            labels={JOB_UID_LABEL: f"job-{name % 3}"},  # shared by several Workloads at times
        ),
        queue_name=QUEUES[queue],
        pod_sets=(),
        priority=priority,
        active=state != "inactive",
        conditions=conditions,
    )


def _local_queue(ns: int, queue: int, cq: int) -> LocalQueue:
    return LocalQueue(Meta("LocalQueue", QUEUES[queue], NAMESPACES[ns]), CLUSTER_QUEUES[cq])


put_workload = st.builds(
    _workload,
    st.integers(0, 1),
    st.integers(0, 7),
    st.sampled_from((0, 10, 100)),
    st.integers(0, 5),
    st.integers(0, 2),
    st.sampled_from(STATES),
)
put_queue = st.builds(_local_queue, st.integers(0, 1), st.integers(0, 2), st.integers(0, 1))
delete_workload = st.tuples(st.just("Workload"), st.sampled_from(NAMESPACES), st.integers(0, 7).map(lambda i: f"w{i}"))
delete_queue = st.tuples(st.just("LocalQueue"), st.sampled_from(NAMESPACES), st.sampled_from(QUEUES))
operations = st.lists(st.one_of(put_workload, put_workload, put_queue, delete_workload, delete_queue), max_size=40)


def _change(operation: object) -> Change:
    if isinstance(operation, Workload | LocalQueue):
        kind = "Workload" if isinstance(operation, Workload) else "LocalQueue"
        return Change(kind, "upsert", operation.meta.key, operation)
    assert isinstance(operation, tuple)
    kind, namespace, name = operation
    return Change(kind, "delete", (namespace, name))


def _cache() -> ClusterCache:
    return ClusterCache(KubeClient(k8s_client.ApiClient()), clock=lambda: T0)


@settings(max_examples=150, deadline=None)
@given(operations)
def test_incremental_order_is_the_full_sort(ops: list[object]) -> None:
    cache = _cache()
    final: dict[tuple[str, str, str], object] = {}
    for operation in ops:
        change = _change(operation)
        cache.apply([change])
        key = (change.kind, *change.key)
        if change.op == "upsert":
            final[key] = change.obj
        else:
            final.pop(key, None)
    reference = MemorySnapshot(final.values())
    for cq in CLUSTER_QUEUES:
        expected = [w.meta.key for w in reference.pending_in(cq)]
        assert [w.meta.key for w in cache.pending_in(cq)] == expected
        assert {w.meta.key for w in cache.workloads_in_cluster_queue(cq)} == {
            w.meta.key for w in reference.workloads_in_cluster_queue(cq)
        }
        assert {q.meta.key for q in cache.local_queues_of(cq)} == {q.meta.key for q in reference.local_queues_of(cq)}
    for namespace in NAMESPACES:
        view = cache.view(namespace)
        for workload in reference.workloads_in(namespace):
            for cq in CLUSTER_QUEUES:
                assert cache.position_in(cq, workload) == reference.position_in(cq, workload)
                assert view.position_in(cq, workload) == reference.position_in(cq, workload)
        assert {w.name for w in cache.workloads_in(namespace)} == {w.name for w in reference.workloads_in(namespace)}
        for uid in ("job-0", "job-1", "job-2"):
            assert {w.name for w in cache.workloads_for_job_uid(namespace, uid)} == {
                w.name for w in reference.workloads_for_job_uid(namespace, uid)
            }


def test_a_relist_forgets_what_it_did_not_see() -> None:
    cache = _cache()
    kept, gone = _workload(0, 1, 0, 0, 0, "pending"), _workload(0, 2, 0, 1, 0, "pending")
    cache.apply([Change("LocalQueue", "upsert", ("a", "lq1"), _local_queue(0, 0, 0))])
    cache.apply([Change("Workload", "upsert", w.meta.key, w) for w in (kept, gone)])
    cache.apply(
        [
            Change("Workload", "list-start"),
            Change("Workload", "upsert", kept.meta.key, kept),
            Change("Workload", "list-end", ("", "7")),
        ]
    )
    assert [w.name for w in cache.pending_in("cq1")] == ["w1"]


def test_shared_pieces_are_equal_and_the_table_is_swept() -> None:
    interner = Interner()
    first = interner.workload(_workload(0, 1, 0, 0, 0, "pending"))
    second = interner.workload(_workload(1, 2, 0, 0, 0, "pending"))
    assert first.meta.namespace == "a" and second.meta.namespace == "b"
    assert freeze((1, "x")) != freeze((True, "x"))
    from decimal import Decimal

    assert freeze({"cpu": Decimal("1")}) != freeze({"cpu": Decimal("1.0")})
    held = interner.share(({"cpu": Decimal(1)},))
    assert interner.share(({"cpu": Decimal(1)},)) is held
    del held, first, second
    assert interner.sweep() >= 1
