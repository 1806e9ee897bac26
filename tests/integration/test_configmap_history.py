"""The queue history in ConfigMaps (issue 16: HA mode keeps what the ETA rests on across restarts) over real
HTTP to the fake API server: survives a restart and is recorded once, compact and bounded, two replicas
writing at once both keep theirs, an unreadable shard is never written over, the state's load ignores it."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from bot.errors import StoreUnavailable
from bot.forecast.history import Finished, Observed
from bot.kube.client import KubeClient
from bot.kube.configmap_history import KEEP, MAX_PER_QUEUE, SHARDS, ConfigMapHistory, shard_of
from bot.kube.configmap_store import ConfigMapStore, Retry
from bot.notify.history import HistoryRecorder
from bot.notify.state import format_time

from tests.builders import NOW, snapshot
from tests.fakes.kube_api import FakeKubeAPI
from tests.unit.test_history import NAMESPACES, cluster

NS = "kueue-bot"
FAST = Retry(conflicts=16, failures=4, base=0.005, cap=0.05)
pytestmark = pytest.mark.fake_kube(
    token="admin-token", objects=[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}]
)


def _store(client: KubeClient, **kwargs: Any) -> ConfigMapStore:
    return ConfigMapStore(client, NS, retry=FAST, **kwargs)


def _history_configmaps(api: FakeKubeAPI) -> dict[str, dict[str, Any]]:
    return {cm["metadata"]["name"]: cm for cm in api.objects("ConfigMap", NS) if "-history-" in cm["metadata"]["name"]}


def _admission(index: int, cq: str = "cq", *, minutes: float = 1) -> Observed:
    at = NOW - timedelta(minutes=index * minutes)
    return Observed(cq, "a100", at - timedelta(minutes=3), at, Decimal(index % 4 + 1), f"uid-{cq}-{index}")


async def test_the_history_survives_a_restart_and_is_recorded_once(api: FakeKubeAPI, client: KubeClient) -> None:
    store = _store(client)
    recorder = HistoryRecorder(store.history_store())
    assert await recorder.observe(snapshot(cluster()), NAMESPACES, NOW) == 2
    assert await recorder.observe(snapshot(cluster()), NAMESPACES, NOW + timedelta(seconds=30)) == 0
    await store.aclose()

    restarted = _store(client)  # another process: nothing in memory
    again = HistoryRecorder(restarted.history_store())
    loaded = await again.load()
    assert sorted(a.amount or 0 for a in loaded.admissions) == [2, 4]
    assert loaded == recorder.history
    api.clear_requests()
    assert await again.observe(snapshot(cluster()), NAMESPACES, NOW + timedelta(minutes=1)) == 0
    assert api.count_requests(method="PUT") == 0 and api.count_requests(method="POST") == 0
    assert (await restarted.load()).subscriptions == ()  # the state's own load does not list the history
    await restarted.aclose()


async def test_the_layout_is_compact_json_in_labelled_shards(api: FakeKubeAPI, client: KubeClient) -> None:
    store = _store(client)
    history = ConfigMapHistory(store)
    ended = Finished("cq", "a100", NOW - timedelta(minutes=30), NOW - timedelta(minutes=1))
    await history.add([_admission(1), _admission(2, "other")], [ended], NOW)
    configmaps = _history_configmaps(api)
    assert set(configmaps) == {
        f"kueue-bot-state-history-{shard_of('cq')}",
        f"kueue-bot-state-history-{shard_of('other')}",
    }
    shard = configmaps[f"kueue-bot-state-history-{shard_of('cq')}"]
    assert shard["metadata"]["labels"]["kueue-bot/store"] == "kueue-bot-state-history"
    assert shard["data"]["format"] == "1"
    content = json.loads(shard["data"]["history.json"])
    assert content["base"] == format_time(NOW - timedelta(minutes=30))  # the shard's earliest time
    assert content["queues"]["cq"] == {
        "admitted": [["a100", "uid-cq-1", 1560, 1740, "2"]],
        "finished": [["a100", 0, 1740]],
    }
    await store.aclose()


async def test_it_is_bounded_in_time_per_queue_and_in_bytes(api: FakeKubeAPI, client: KubeClient) -> None:
    store = _store(client, max_shard_bytes=40 * 1024)
    history = ConfigMapHistory(store)
    old = Observed("cq", "a100", NOW - KEEP - timedelta(hours=2), NOW - KEEP - timedelta(hours=1), None, "old")
    await history.add([old, *(_admission(i) for i in range(MAX_PER_QUEUE + 50))], [], NOW)
    kept = (await history.load()).admissions
    assert len(kept) == MAX_PER_QUEUE and old not in kept
    assert min(a.admitted_at for a in kept) == _admission(MAX_PER_QUEUE - 1).admitted_at  # the most recent kept
    # a shard full of queues: its oldest records go first, and it stays under its limit
    crowded = [f"cq-{n}" for n in range(200) if shard_of(f"cq-{n}") == shard_of("cq")][:12]
    for cq in crowded:
        await history.add([_admission(i, cq, minutes=2) for i in range(40)], [], NOW)
    (configmap,) = (cm for name, cm in _history_configmaps(api).items() if name.endswith(f"-{shard_of('cq')}"))
    assert sum(len(k) + len(v.encode()) for k, v in configmap["data"].items()) <= 40 * 1024
    in_shard = [a for a in (await history.load()).admissions if shard_of(a.cluster_queue) == shard_of("cq")]
    assert len(in_shard) < MAX_PER_QUEUE + 40 * len(crowded)  # some had to go: the oldest
    assert max(a.admitted_at for a in in_shard if a.cluster_queue == crowded[-1]) == NOW
    added = {*kept, *(_admission(i, cq, minutes=2) for cq in crowded for i in range(40))}
    dropped = added - set(in_shard)
    assert max(a.admitted_at for a in dropped) <= min(a.admitted_at for a in in_shard)
    assert len(_history_configmaps(api)) <= SHARDS
    await store.aclose()


async def test_two_replicas_adding_at_once_both_keep_theirs(api: FakeKubeAPI, client: KubeClient) -> None:
    store, other = _store(client), _store(client)
    await ConfigMapHistory(store).add([_admission(0)], [], NOW)  # the shard exists: both will PUT it
    api.delay(0.2, method="PUT")
    await asyncio.gather(
        ConfigMapHistory(store).add([_admission(1)], [], NOW), ConfigMapHistory(other).add([_admission(2)], [], NOW)
    )
    api.clear_faults()
    assert {a.workload for a in (await ConfigMapHistory(store).load()).admissions} == {
        "uid-cq-0",
        "uid-cq-1",
        "uid-cq-2",
    }
    await store.aclose()
    await other.aclose()


async def test_an_unreadable_shard_is_never_written_over(api: FakeKubeAPI, client: KubeClient) -> None:
    store = _store(client)
    history = ConfigMapHistory(store)
    await history.add([_admission(1)], [], NOW)
    (name,) = _history_configmaps(api)
    configmap = _history_configmaps(api)[name]
    api.update({**configmap, "data": {"format": "1", "history.json": "{not json"}})
    with pytest.raises(StoreUnavailable, match="cannot be read"):
        await history.add([_admission(2)], [], NOW)
    with pytest.raises(StoreUnavailable, match="cannot be read"):
        await history.load()
    assert _history_configmaps(api)[name]["data"]["history.json"] == "{not json"
    await store.aclose()
