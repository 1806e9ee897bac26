"""What the trace keeps between questions (issue 14: a question in time independent of the queue's length)
gives what computing it afresh gives: the waiting Workloads of a ClusterQueue the ETA weighs (kept per queue
order in the view's memo, renewed when the cache hands out a new order), a classified QuotaReserved record
(kept per reason, message and groups), the quantities as written for people. No timing here (bench/)."""

from __future__ import annotations

from decimal import Decimal

from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.compact import Interner
from bot.kube.decode import decode
from bot.kube.informer import Change
from bot.trace import messages
from bot.trace.answer import queued_since
from bot.trace.demand import workload_demand
from bot.trace.eta import Waiting
from bot.trace.outlook import main_resource, waiting
from bot.trace.quantity import format_quantity, human
from bot.trace.snapshot import Snapshot
from kubernetes import client as k8s_client

from tests.builders import NOW, Raw
from tests.contention import base, gpu_queue, lq, running
from tests.contention import waiting as waiting_job


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


def _afresh(view: Snapshot, cq: str) -> tuple[Waiting, ...]:
    found = []
    for workload in view.pending_in(cq):
        since = queued_since(workload)
        if since is not None:
            demand = workload_demand(workload)
            found.append(Waiting(since, demand.get(main_resource(demand))))
    return tuple(found)


def test_the_waiting_kept_per_queue_order_follow_the_queue() -> None:
    objects = base(gpu_queue("cq-0", ("a100", 4)), namespaces=("team-a", "team-b"))
    objects += [lq("gpus", "team-a", "cq-0"), lq("gpus", "team-b", "cq-0")]
    objects += running("big", "team-a", "cq-0", gpus_per_pod=4)
    for n, gpus in enumerate((1, 2, 4)):
        objects += waiting_job(f"w{n}", "team-a", gpus_per_pod=gpus, minutes=30 - n)
    cache = _cache(objects)
    first = cache.view("team-a", [])
    kept = waiting(first, "cq-0")
    assert kept == _afresh(first, "cq-0") and len(kept) == 3
    assert waiting(cache.view("team-a", []), "cq-0") is kept  # the same order: nothing recomputed
    _put(cache, waiting_job("late", "team-b", pods=2, gpus_per_pod=3, minutes=1))
    later = cache.view("team-a", [])
    renewed = waiting(later, "cq-0")
    assert renewed == _afresh(later, "cq-0") and len(renewed) == 4
    assert Waiting(renewed[-1].queued_at, Decimal(6)) == renewed[-1]  # the late one: 2 pods of 3 GPUs


def test_a_kept_classification_is_the_one_read_afresh() -> None:
    message = "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor a, 3 more needed"
    groups = messages.group_shapes([(("cpu", "memory"), ("a", "b"))])
    for reason, text, shapes in (
        ("Pending", message, ()),
        ("Pending", message, groups),
        ("QuotaReserved", "", ()),
        ("NoFit", message + " ...", groups),
        ("Pending", "x" * 5000, ()),  # longer than what is kept: read each time
    ):
        assert messages.classify_quota_reserved(reason, text, shapes) == messages._classify(reason, text, shapes)
        assert messages.classify_quota_reserved(reason, text, shapes) == messages._classify(reason, text, shapes)
    unhashable = [({"cpu"}, ["a"])]  # groups that cannot be a key are read as they are
    got = messages.classify_quota_reserved("Pending", message, unhashable)  # type: ignore[arg-type]
    assert got == messages._classify("Pending", message, unhashable)  # type: ignore[arg-type]


def test_quantities_written_twice_read_the_same() -> None:
    for value, resource in (
        (Decimal("1.5"), "cpu"), (Decimal("0.5"), "cpu"), (Decimal(1536 * 1024**2), "memory"),
        (Decimal(96 * 1024**3), "memory"), (Decimal(3), "nvidia.com/gpu"), (Decimal("0.0005"), "cpu"),
    ):  # fmt: skip
        assert human(value, resource) == human.__wrapped__(value, resource)
        assert format_quantity(value, resource) == format_quantity.__wrapped__(value, resource)
