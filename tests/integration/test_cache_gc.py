"""The production source freezes the garbage collector's view of the synced cache, once; a cache built
without asking for it leaves the collector alone (the setting is process-wide)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.informer import InformerSettings
from bot.kube.ondemand import CacheSource
from bot.pacing import SYNC_YOUNG_THRESHOLD

from tests.cache_support import wait_for, wait_ready
from tests.fakes.kube_api import FakeKubeAPI

FAST = InformerSettings(backoff_base=0.05, backoff_cap=0.2, watch_timeout_seconds=60, request_timeout=5.0)


def _clock() -> datetime:
    return datetime(2026, 11, 3, 10, 0, tzinfo=UTC)


pytestmark = pytest.mark.fake_kube(
    bookmark_interval=0.1,
    objects=[
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"}},
    ],
)


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    """Each test starts and ends with nothing frozen, whatever it did."""
    gc.unfreeze()
    yield
    gc.unfreeze()
    leaked = [t.name for t in threading.enumerate() if t.name.startswith("informer-")]
    assert not leaked, f"informer threads left running: {leaked}"


async def test_the_production_source_freezes_the_synced_cache_once(api: FakeKubeAPI, client: KubeClient) -> None:
    source = CacheSource.connect(client, clock=_clock)
    await source.start()
    try:
        await wait_ready(source.cache, 10)
        frozen = source.cache.gc_frozen
        assert frozen > 0 and gc.get_freeze_count() > 0  # (frozen objects freed since are no longer counted)
        api.add({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "g"}})
        await wait_for(source.cache, lambda: source.cache.flavor("g") is not None)
        assert source.cache.gc_frozen == frozen, "once, when first ready"
    finally:
        await source.stop()


async def test_a_cache_leaves_the_collector_alone_unless_asked(client: KubeClient) -> None:
    async with ClusterCache(client, clock=_clock, settings=FAST) as cache:
        await wait_ready(cache, 10)
        assert cache.gc_frozen == 0 and gc.get_freeze_count() == 0


async def test_the_first_sync_collects_the_young_generation_rarely_then_restores_it(
    api: FakeKubeAPI, client: KubeClient
) -> None:
    """Issue 14: the first sync's objects all live on; collecting them every 700 allocations cost ~20 % of it."""
    before = gc.get_threshold()
    api.delay(0.3, method="GET", path=r"/apis/kueue\.x-k8s\.io/v1beta2/workloads", watch=False)
    cache = ClusterCache(client, clock=_clock, settings=FAST, freeze_gc=True)
    await cache.start()
    try:
        assert gc.get_threshold()[0] == max(before[0], SYNC_YOUNG_THRESHOLD) and not cache.ready
        # Each batch applied before ready is frozen as it comes (the Workloads' LIST is still on its way).
        await wait_for(cache, lambda: cache.flavor("f") is not None)
        assert not cache.ready and gc.get_freeze_count() > 0
        await wait_ready(cache, 10)
        assert gc.get_threshold() == before and cache.gc_frozen > 0
    finally:
        await cache.stop()
    assert gc.get_threshold() == before


async def test_a_cache_stopped_before_it_synced_restores_the_collector(api: FakeKubeAPI, client: KubeClient) -> None:
    before = gc.get_threshold()
    api.delay(1, method="GET", path=r"/apis/kueue\.x-k8s\.io/v1beta2/workloads", watch=False)
    cache = ClusterCache(client, clock=_clock, settings=FAST, freeze_gc=True)
    await cache.start()
    await cache.stop()
    assert gc.get_threshold() == before and not cache.ready


async def test_start_twice_is_an_error_and_starts_nothing_more(api: FakeKubeAPI, client: KubeClient) -> None:
    """Issue 14: a second start() silently started a second set of informers (every object replayed)."""
    async with ClusterCache(client, clock=_clock, settings=FAST) as cache:
        await wait_ready(cache, 10)
        informers = dict(cache.informers)
        with pytest.raises(RuntimeError, match="already started"):
            await cache.start()
        assert cache.informers == informers
        assert all(informer.lists == 1 for informer in informers.values() if cache.served(informer.kind))
    assert api.count_requests(path=r"/apis/kueue\.x-k8s\.io/v1beta2/workloads", watch=False) == 1
