"""A ClusterCache for tests: filled from raw objects without a cluster, and waited on (the bot itself never
waits on its cache: it is told of changes by its listeners). The benchmarks wait with it too.

    cache = cache_of([cluster_queue("cq"), local_queue()])      # tests.builders' raw objects
    put(cache, [workload("w", of=job("w"))])
    await wait_ready(cache, 10)
    await wait_for(cache, lambda: "Workload" in cache.errors)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.compact import Interner
from bot.kube.decode import decode
from bot.kube.informer import Change
from bot.service.ports import Source
from bot.trace.snapshot import Snapshot
from kubernetes import client as k8s_client

from tests.builders import NOW


def cache_of(objects: Iterable[dict[str, Any]] = (), *, now: datetime = NOW) -> ClusterCache:
    """A cache that was never started (no informer, no API server) holding `objects`, its clock at `now`."""
    cache = ClusterCache(KubeClient(k8s_client.ApiClient()), clock=lambda: now)
    put(cache, objects)
    return cache


def put(cache: ClusterCache, objects: Iterable[dict[str, Any]]) -> None:
    """Upsert raw objects, decoded as the informers decode them (shared parts), one batch an object."""
    parts = Interner()
    for raw in objects:
        for obj in decode(raw, parts):
            cache.apply([Change(raw["kind"], "upsert", obj.meta.key if hasattr(obj, "meta") else ("", ""), obj)])


class CacheViews(Source):
    """The cache's views as the production source hands them out, with nothing read from a server."""

    ready = True

    def __init__(self, cache: ClusterCache) -> None:
        self.cache = cache

    def taken_at(self) -> datetime | None:
        return None

    async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> Snapshot:
        return self.cache.view(namespace, [], owners=(name,))

    async def snapshot(self) -> Snapshot:
        return self.cache


async def wait_for(cache: ClusterCache, predicate: Callable[[], bool], timeout: float = 60.0) -> None:  # noqa: ASYNC109
    """Until predicate() holds, checked after every batch of changes; TimeoutError after `timeout`,
    CancelledError when the cache stops first."""
    if predicate():
        return
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def check() -> None:
        if future.done():
            return
        if predicate():
            future.set_result(None)
        elif cache.stopped:
            future.cancel()

    end = cache.observe(check)
    try:
        async with asyncio.timeout(timeout):
            await future
    finally:
        end()


async def wait_ready(cache: ClusterCache, timeout: float = 120.0) -> None:  # noqa: ASYNC109
    """Until every informer has synced its first LIST."""
    await wait_for(cache, lambda: cache.ready, timeout)
