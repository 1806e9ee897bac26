"""The trace's cost against the cluster's size: p50/p99 of a question from 1,000 to 200,000 Workloads, and
from 100 to 5,000 Workloads per namespace (`bench/run.py --sweep`).

Each row fills a `ClusterCache` in this process (the objects of `bench.run.cluster`, decoded with shared
parts and applied as the informers would, no server), then asks about random pending Workloads exactly as
the questions phase does (`ask`: the bot's `explain_job` over the cache, position included), with the floor
measured on the same cache between them. The fill is not timed: only the questions are.
"""

from __future__ import annotations

import asyncio
import gc
import os
import random
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from bot.forecast.history import History
from bot.forecast.outlook import Outlook
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.compact import Interner
from bot.kube.decode import decode
from bot.kube.informer import Change
from bot.kube.ondemand import CacheSource, OnDemand
from bot.service.base import ServiceBase
from bot.service.warmer import Warmer
from bot.trace.explanation import Explanation
from bot.trace.model import Workload
from bot.trace.snapshot import waits_in_queue
from kubernetes import client as k8s_client

# (Workloads, ClusterQueues, namespaces), 10 LocalQueues in each namespace, each feeding its own ClusterQueue
# (`cluster(..., queues_per_namespace=10)`). The size sweep keeps the queues (500 ClusterQueues, 50 namespaces)
# and grows the Workloads (20 to 4,000 per namespace); the density sweep keeps 50,000 Workloads over 500
# ClusterQueues and spreads them over 500 to 10 namespaces (100 to 5,000 per namespace; a LocalQueue feeds
# a ClusterQueue that other namespaces' LocalQueues feed too when there are more than 50 namespaces).
SIZES = ((1_000, 500, 50), (10_000, 500, 50), (50_000, 500, 50), (100_000, 500, 50), (200_000, 500, 50))
DENSITIES = ((50_000, 500, 500), (50_000, 500, 100), (50_000, 500, 50), (50_000, 500, 10))
QUEUES_PER_NAMESPACE = 10


@dataclass(frozen=True)
class Row:
    workloads: int
    queues: int
    namespaces: int
    per_namespace: int
    trace_p50_ms: float
    trace_p99_ms: float
    floor_p50_us: float
    loadavg_1m: float
    trace_warm_p50_ms: float = 0.0  # the same questions again: every queue's memo built by the first round
    trace_warm_p99_ms: float = 0.0
    # The same questions once more, each right after its ClusterQueue's status changed (as on a live Kueue at
    # every admission: its pending count), which renews the views' memo of the small kinds.
    trace_status_p50_ms: float = 0.0
    trace_status_p99_ms: float = 0.0
    # ... and right after its LocalQueue's status changed too (Kueue writes both at every admission).
    trace_queues_status_p50_ms: float = 0.0
    trace_queues_status_p99_ms: float = 0.0
    warmer_pass_ms: float = 0.0  # the ETA warmer's pass before the questions (0: none, --no-warmer)

    @property
    def over_floor(self) -> float:
        return self.trace_p50_ms * 1000 / self.floor_p50_us


def filled_cache(objects: list[dict[str, Any]], now: datetime) -> ClusterCache:
    """A cache holding `objects`, filled as the informers fill it (decoded with shared parts), no server."""
    cache = ClusterCache(KubeClient(k8s_client.ApiClient()), clock=lambda: now)
    parts = Interner()
    changes = []
    for raw in objects:
        for decoded in decode(raw, parts):
            kind = raw["kind"]
            if kind in ("Namespace",):
                continue
            meta = raw["metadata"]
            changes.append(Change(kind, "upsert", (meta.get("namespace", ""), meta["name"]), decoded))
    order = {"ResourceFlavor": 0, "WorkloadPriorityClass": 0, "ClusterQueue": 1, "LocalQueue": 2, "Workload": 3}
    changes.sort(key=lambda change: order.get(change.kind, 0))
    cache.apply(changes)
    return cache


def pending_sample(cache: ClusterCache, count: int, seed: int) -> list[Workload]:
    namespaces = sorted(
        {lq.meta.namespace or "" for cq in cache.cluster_queues() for lq in cache.local_queues_of(cq.name)}
    )
    pending = [w for ns in namespaces for w in cache.workloads_in(ns) if waits_in_queue(w)]
    return random.Random(seed).sample(pending, min(count, len(pending)))


def floor_once(cache: ClusterCache, workload: Workload) -> str:
    """The least any answer with a position does: the owner index lookup, two bisects (the ClusterQueue's and
    the LocalQueue's order) and one formatted line."""
    job = workload.meta.owners[0].name
    found = cache.workloads_owned_by(workload.namespace, "Job", job)[0]
    local_queue = cache.local_queue(found.namespace, found.queue_name)
    assert local_queue is not None
    position = cache.position_in(local_queue.cluster_queue, found)
    assert position is not None
    return f"{found.namespace}/{job} waits in {local_queue.cluster_queue}: #{position[0] + 1} (#{position[1] + 1} here)"


def floor_us(cache: ClusterCache, sample: list[Workload]) -> list[float]:
    timings = []
    for workload in sample:
        started = time.perf_counter()
        floor_once(cache, workload)
        timings.append((time.perf_counter() - started) * 1e6)
    return timings


def status_changed(cache: ClusterCache, workload: Workload) -> None:
    """The ClusterQueue `workload` waits in, as Kueue writes it after an admission elsewhere in it: its status
    (pendingWorkloads) changed, nothing else."""
    local_queue = cache.local_queue(workload.namespace, workload.queue_name)
    assert local_queue is not None
    cq = cache.cluster_queue(local_queue.cluster_queue)
    assert cq is not None
    changed = replace(cq, pending_count=(cq.pending_count or 0) + 1)
    cache.apply([Change("ClusterQueue", "upsert", ("", cq.name), changed)])


def local_queue_status_changed(cache: ClusterCache, workload: Workload) -> None:
    """The LocalQueue `workload` waits in, as Kueue writes it after an admission in it: a new version of the
    object (its status counts, which the bot does not read), nothing else it reads."""
    local_queue = cache.local_queue(workload.namespace, workload.queue_name)
    assert local_queue is not None
    version = str(int(local_queue.meta.resource_version or "0") + 1)
    changed = replace(local_queue, meta=replace(local_queue.meta, resource_version=version))
    cache.apply([Change("LocalQueue", "upsert", (workload.namespace, local_queue.name), changed)])


class _Filled(CacheSource):
    """A cache filled in this process (`filled_cache`) as the source of a synced one: it holds every object and
    has no informer to wait for."""

    @property
    def ready(self) -> bool:
        return True


def asker(cache: ClusterCache, ondemand: OnDemand, now: datetime, history: History | None = None) -> ServiceBase:
    """The bot's own way to a question's answer: `explain_job` (of bot.service's BotService) over the cache's
    snapshot source, as the server wires it (bot.kube.ondemand.CacheSource), with the recorder's history or
    none (as the CLI asks)."""
    recorded = (lambda: history) if history is not None else None
    source = CacheSource(cache, ondemand) if cache.informers else _Filled(cache, ondemand)
    return ServiceBase(source, clock=lambda: now, history=recorded)


async def warmed(service: ServiceBase) -> dict[str, Any]:
    """What the server's ETA warmer does once its cache has synced (bot.service.warmer): a pass that makes every
    ClusterQueue's Estimators before the first question. Its cost (`warmer_*`), not counted in the questions'."""
    warmer = Warmer(service)
    started = time.perf_counter()
    made = await warmer.run_pass()
    stats = warmer.stats()
    return {
        "warmer_made": made,
        "warmer_pass_ms": round((time.perf_counter() - started) * 1000, 1),
        "warmer_cpu_seconds": round(stats["cpu_seconds"], 3),
        "warmer_longest_slice_ms": round(stats["longest_slice_seconds"] * 1000, 2),
        "warmer_holders_steps": int(stats["holders_steps"]),
        "warmer_estimate_steps": int(stats["estimate_steps"]),
    }


async def ask(service: ServiceBase, workload: Workload) -> tuple[tuple[Explanation, Outlook], float]:
    """A question about `workload`'s Job and its time in ms: the view (`snapshot_for`) and the trace."""
    job = workload.meta.owners[0].name
    started = time.perf_counter()
    answer = await service.explain_job(workload.namespace, job, "Job")
    return answer, (time.perf_counter() - started) * 1000


async def between() -> None:
    """What a server has between two questions: its loop turns (the answer's post is in flight, the next
    question arrives from the network). What the bot asked to run then (bot.pacing: the young
    garbage collection a question leaves) runs here, outside the next question's time; the bench reports it
    apart (run.py: `between_gc_*`) and the collector's time of the phase (`gc_ms`) counts it."""
    await asyncio.sleep(0)


async def trace_ms(
    cache: ClusterCache,
    ondemand: OnDemand,
    sample: list[Workload],
    now: datetime,
    *,
    after_status_change: bool = False,
    after_local_queue_change: bool = False,
) -> list[float]:
    timings = []
    service = asker(cache, ondemand, now)
    for workload in sample:
        if after_status_change:
            status_changed(cache, workload)  # not timed
        if after_local_queue_change:
            local_queue_status_changed(cache, workload)
        (answer, _), took = await ask(service, workload)
        timings.append(took)
        assert answer.position is not None, (workload.name, answer.verdict)
        await between()
    return timings


async def row(
    cluster: Callable[..., list[dict[str, Any]]],
    percentile: Callable[[list[float], float], float],
    shape: tuple[int, int, int],
    *,
    questions: int,
    seed: int,
    now: datetime,
    warmer: bool = True,
) -> Row:
    workloads, queues, namespaces = shape
    objects = cluster(workloads, queues, seed, namespaces=namespaces, queues_per_namespace=QUEUES_PER_NAMESPACE)
    cache = filled_cache(objects, now)
    del objects
    gc.collect()
    gc.freeze()  # as the production cache does once synced
    try:
        sample = pending_sample(cache, questions, seed + 2)
        ondemand = OnDemand(cache.client, cache, visibility=False)
        warm = (await warmed(asker(cache, ondemand, now)))["warmer_pass_ms"] if warmer else 0.0
        await trace_ms(cache, ondemand, sample[:50], now)  # warm the views, as a running bot has them
        floor = floor_us(cache, sample)
        trace = await trace_ms(cache, ondemand, sample, now)
        again = await trace_ms(cache, ondemand, sample, now)
        status = await trace_ms(cache, ondemand, sample, now, after_status_change=True)
        both = await trace_ms(cache, ondemand, sample, now, after_status_change=True, after_local_queue_change=True)
    finally:
        gc.unfreeze()
    return Row(
        workloads=workloads,
        queues=queues,
        namespaces=namespaces,
        per_namespace=workloads // namespaces,
        trace_p50_ms=round(statistics.median(trace), 3),
        trace_p99_ms=round(percentile(trace, 0.99), 3),
        floor_p50_us=round(statistics.median(floor), 2),
        loadavg_1m=round(os.getloadavg()[0], 2),
        trace_warm_p50_ms=round(statistics.median(again), 3),
        trace_warm_p99_ms=round(percentile(again, 0.99), 3),
        trace_status_p50_ms=round(statistics.median(status), 3),
        trace_status_p99_ms=round(percentile(status, 0.99), 3),
        trace_queues_status_p50_ms=round(statistics.median(both), 3),
        trace_queues_status_p99_ms=round(percentile(both, 0.99), 3),
        warmer_pass_ms=warm,
    )


async def sweep(
    cluster: Callable[..., list[dict[str, Any]]],
    percentile: Callable[[list[float], float], float],
    *,
    questions: int,
    seed: int,
    now: datetime,
    largest: int,
    warmer: bool = True,
) -> Iterator[tuple[str, Row]]:
    rows = []
    for label, shapes in (("size", SIZES), ("density", DENSITIES)):
        for shape in shapes:
            if shape[0] <= largest:
                made = await row(cluster, percentile, shape, questions=questions, seed=seed, now=now, warmer=warmer)
                rows.append((label, made))
                gc.collect()
    return iter(rows)


def table(rows: list[tuple[str, Row]]) -> str:
    lines = [
        "| sweep | Workloads | ClusterQueues | namespaces | Workloads/namespace | trace p50 ms | trace p99 ms "
        "| warm p50 ms | warm p99 ms | after a status change p50 ms | p99 ms | after both queues' p50 ms | p99 ms "
        "| floor p50 µs | p50 / floor | warmer pass ms | load 1m |",
        "| --- " + "| ---: " * 16 + "|",
    ]
    for label, r in rows:
        lines.append(
            f"| {label} | {r.workloads:,} | {r.queues} | {r.namespaces} | {r.per_namespace:,} | {r.trace_p50_ms} "
            f"| {r.trace_p99_ms} | {r.trace_warm_p50_ms} | {r.trace_warm_p99_ms} | {r.trace_status_p50_ms} "
            f"| {r.trace_status_p99_ms} | {r.trace_queues_status_p50_ms} | {r.trace_queues_status_p99_ms} "
            f"| {r.floor_p50_us} "
            f"| {r.over_floor:.0f} × | {r.warmer_pass_ms} | {r.loadavg_1m} |"
        )
    return "\n".join(lines)
