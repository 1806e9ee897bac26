"""The cache's incremental indexes against MemorySnapshot's full sort: any sequence of Workload and
LocalQueue adds, updates and deletes leaves the same queue order, positions and memberships, and the
latest object of each Workload everywhere (an update that keeps a Workload's place swaps the object)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.informer import Change
from bot.trace.model import JOB_UID_LABEL, Admission, Condition, LocalQueue, Meta, OwnerRef, Workload
from bot.trace.snapshot import MemorySnapshot
from hypothesis import given, settings
from hypothesis import strategies as st
from kubernetes import client as k8s_client

T0 = datetime(2026, 11, 3, 8, 0, tzinfo=UTC)
NAMESPACES = ("a", "b")
QUEUES = ("lq1", "lq2", "lq3")
CLUSTER_QUEUES = ("cq1", "cq2")
STATES = ("pending", "reserved", "inactive", "finished", "evicted")
JOBS = ("job-0", "job-1", "job-2")


def _workload(
    ns: int, name: int, priority: int, minute: int, queue: int, state: str, owner: int, note: int
) -> Workload:
    # `note` changes a message only: the Workload keeps its place in every index, as a status update does
    conditions: tuple[Condition, ...] = (Condition("QuotaReserved", "False", "Pending", f"note {note}"),)
    admission = None
    if state == "reserved":
        conditions = (Condition("QuotaReserved", "True", message=f"note {note}"),)
        admission = Admission(CLUSTER_QUEUES[(queue + owner) % 2])
    elif state == "finished":
        conditions = (Condition("Finished", "True", message=f"note {note}"),)
    elif state == "evicted":
        conditions = (Condition("Evicted", "True", "PodsReadyTimeout", since=T0 + timedelta(minutes=minute + 30)),)
    owners: tuple[OwnerRef, ...] = (OwnerRef("batch/v1", "Job", JOBS[owner % 3], f"uid-{owner}", controller=True),)
    if owner >= 3:  # a second owner, of another kind
        owners += (OwnerRef("v1", "Pod", JOBS[(owner + 1) % 3], f"pod-{owner}"),)
    return Workload(
        meta=Meta(
            "Workload",
            f"w{name}",
            NAMESPACES[ns],
            uid=f"uid-{ns}-{name}",
            created=T0 + timedelta(minutes=minute),
            labels={JOB_UID_LABEL: f"job-{name % 3}"},  # shared by several Workloads at times
            owners=owners,
        ),
        queue_name=QUEUES[queue],
        pod_sets=(),
        priority=priority,
        active=state != "inactive",
        conditions=conditions,
        admission=admission,
    )


def _local_queue(ns: int, queue: int, cq: int, stop_policy: str = "None") -> LocalQueue:
    # a stopped LocalQueue is out of Kueue's queue manager: its Workloads leave the ClusterQueue's order
    return LocalQueue(Meta("LocalQueue", QUEUES[queue], NAMESPACES[ns]), CLUSTER_QUEUES[cq], stop_policy)


put_workload = st.builds(
    _workload,
    st.integers(0, 1),
    st.integers(0, 7),
    st.sampled_from((0, 10, 100)),
    st.integers(0, 5),
    st.integers(0, 2),
    st.sampled_from(STATES),
    st.integers(0, 5),
    st.integers(0, 2),
)
put_queue = st.builds(
    _local_queue, st.integers(0, 1), st.integers(0, 2), st.integers(0, 1), st.sampled_from(("None", "None", "Hold"))
)
delete_workload = st.tuples(st.just("Workload"), st.sampled_from(NAMESPACES), st.integers(0, 7).map(lambda i: f"w{i}"))
delete_queue = st.tuples(st.just("LocalQueue"), st.sampled_from(NAMESPACES), st.sampled_from(QUEUES))


def _restated(workload: Workload, note: int) -> Workload:
    """The same Workload after a status update that keeps its place everywhere (a message changes)."""
    return replace(workload, conditions=tuple(replace(c, message=f"note {note}") for c in workload.conditions))


def _moved(workload: Workload, queue: int) -> Workload:
    """The same Workload in another LocalQueue: the same order key, another place."""
    return replace(_restated(workload, 9), queue_name=QUEUES[queue])


# a Workload, then the same Workload updated in place (the path that swaps objects without moving them),
# or moved to another LocalQueue with the same order key
update_in_place = st.builds(lambda w, note: [w, _restated(w, note)], put_workload, st.integers(3, 5))
update_queue = st.builds(lambda w, queue: [w, _moved(w, queue)], put_workload, st.integers(0, 2))
operations = st.lists(
    st.one_of(
        put_workload.map(lambda w: [w]),
        update_in_place,
        update_queue,
        put_queue.map(lambda q: [q]),
        delete_workload.map(lambda d: [d]),
        delete_queue.map(lambda d: [d]),
    ),
    max_size=30,
).map(lambda groups: [op for group in groups for op in group])


def _change(operation: object) -> Change:
    if isinstance(operation, Workload | LocalQueue):
        kind = "Workload" if isinstance(operation, Workload) else "LocalQueue"
        return Change(kind, "upsert", operation.meta.key, operation)
    assert isinstance(operation, tuple)
    kind, namespace, name = operation
    return Change(kind, "delete", (namespace, name))


def _cache() -> ClusterCache:
    return ClusterCache(KubeClient(k8s_client.ApiClient()), clock=lambda: T0)


@settings(max_examples=300, deadline=None)
@given(operations)
def test_incremental_order_is_the_full_sort(ops: list[object]) -> None:
    cache = _cache()
    final: dict[tuple[str, str, str], object] = {}
    for operation in ops:
        change = _change(operation)
        cache.apply([change])
        _ask(cache)  # what questions copy is kept between changes: each change must forget what it touches
        key = (change.kind, *change.key)
        if change.op == "upsert":
            final[key] = change.obj
        else:
            final.pop(key, None)
    reference = MemorySnapshot(final.values())
    for cq in CLUSTER_QUEUES:
        assert list(cache.pending_in(cq)) == list(reference.pending_in(cq))  # the same objects, in order
        assert all(a is b for a, b in zip(cache.pending_in(cq), reference.pending_in(cq), strict=True))
        assert _by_key(cache.workloads_in_cluster_queue(cq)) == _by_key(reference.workloads_in_cluster_queue(cq))
        assert {q.meta.key for q in cache.local_queues_of(cq)} == {q.meta.key for q in reference.local_queues_of(cq)}
    for namespace in NAMESPACES:
        view = cache.view(namespace)
        for cq in {lq.cluster_queue for lq in reference.local_queues_in(namespace)}:
            assert list(view.pending_in(cq)) == list(reference.pending_in(cq))
        for workload in reference.workloads_in(namespace):
            assert cache.workload(namespace, workload.name) is workload
            assert view.workload(namespace, workload.name) is workload
            for cq in CLUSTER_QUEUES:
                assert cache.position_in(cq, workload) == reference.position_in(cq, workload)
                assert view.position_in(cq, workload) == reference.position_in(cq, workload)
        assert _by_key(cache.workloads_in(namespace)) == _by_key(reference.workloads_in(namespace))
        for uid in ("job-0", "job-1", "job-2"):
            assert _by_key(cache.workloads_for_job_uid(namespace, uid)) == _by_key(
                reference.workloads_for_job_uid(namespace, uid)
            )
        for job in JOBS:
            for kind in ("Job", "Pod", None):
                owned = [
                    w
                    for w in reference.workloads_in(namespace)
                    if any(o.name == job and kind in (None, o.kind) for o in w.meta.owners)
                ]
                assert _by_key(cache.workloads_owned_by(namespace, kind, job)) == _by_key(owned)


def _ask(cache: ClusterCache) -> None:
    for cq in CLUSTER_QUEUES:
        cache.pending_in(cq)
        cache.workloads_in_cluster_queue(cq)
    for namespace in NAMESPACES:
        cache.view(namespace)


def _by_key(workloads: object) -> list[tuple[tuple[str, str], Workload]]:
    assert isinstance(workloads, list | tuple)
    return sorted(((w.meta.key, w) for w in workloads), key=lambda pair: pair[0])


def test_a_relist_forgets_what_it_did_not_see() -> None:
    cache = _cache()
    kept, gone = _workload(0, 1, 0, 0, 0, "pending", 0, 0), _workload(0, 2, 0, 1, 0, "pending", 1, 0)
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
