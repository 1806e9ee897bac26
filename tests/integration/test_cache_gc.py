"""The production source freezes the garbage collector's view of the synced cache, once; a cache built
without asking for it leaves the collector alone (the setting is process-wide)."""

from __future__ import annotations

import gc
import threading
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient, load_api_client
from bot.kube.informer import InformerSettings
from bot.kube.ondemand import CacheSource

from tests.fakes.kube_api import FakeKubeAPI

FAST = InformerSettings(backoff_base=0.05, backoff_cap=0.2, watch_timeout_seconds=60, request_timeout=5.0)


def _clock() -> datetime:
    return datetime(2026, 11, 3, 10, 0, tzinfo=UTC)


@pytest.fixture
async def api() -> AsyncIterator[FakeKubeAPI]:
    async with FakeKubeAPI(bookmark_interval=0.1) as server:
        server.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
        server.add({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"}})
        yield server


@pytest.fixture
def client(api: FakeKubeAPI, tmp_path: Path) -> Iterator[KubeClient]:
    api_client = load_api_client(str(api.write_kubeconfig(tmp_path / "kubeconfig")))
    yield KubeClient(api_client)
    api_client.close()  # type: ignore[no-untyped-call]


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
        await source.cache.wait_ready(10)
        frozen = source.cache.gc_frozen
        assert frozen > 0 and gc.get_freeze_count() > 0  # (frozen objects freed since are no longer counted)
        api.add({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "g"}})
        await source.cache.wait_for(lambda: source.cache.flavor("g") is not None)
        assert source.cache.gc_frozen == frozen, "once, when first ready"
    finally:
        await source.stop()


async def test_a_cache_leaves_the_collector_alone_unless_asked(client: KubeClient) -> None:
    async with ClusterCache(client, clock=_clock, settings=FAST) as cache:
        await cache.wait_ready(10)
        assert cache.gc_frozen == 0 and gc.get_freeze_count() == 0
