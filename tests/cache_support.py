"""Waiting on a ClusterCache, for tests and benchmarks (the bot itself never waits on its cache: it is told
of changes by its listeners).

    await wait_ready(cache, 10)
    await wait_for(cache, lambda: "Workload" in cache.errors)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from bot.kube.cache import ClusterCache


async def wait_for(cache: ClusterCache, predicate: Callable[[], bool], timeout: float = 10.0) -> None:  # noqa: ASYNC109
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


async def wait_ready(cache: ClusterCache, timeout: float = 30.0) -> None:  # noqa: ASYNC109
    """Until every informer has synced its first LIST."""
    await wait_for(cache, lambda: cache.ready, timeout)
