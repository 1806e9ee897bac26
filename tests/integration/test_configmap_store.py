"""The ConfigMap store over real HTTP to the fake API server: the StateStore contract, the layout of its
ConfigMaps, optimistic concurrency (409 Conflict, AlreadyExists) between replicas, and faults (5xx, an
unreachable server, RBAC, unreadable or oversized shards). Also the KubeClient's write methods it uses."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from bot.errors import ClusterUnavailable, Forbidden, StoreUnavailable
from bot.kube.client import AlreadyExists, Conflict, KubeClient, NotFound
from bot.kube.configmap_store import ConfigMapStore, Retry
from bot.notify.state import Subscription, Told

from tests.fakes.kube_api import FakeKubeAPI
from tests.unit.test_store import KEY, Backend, StoreContract

NS = "kueue-bot"
T0 = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
FAST = Retry(conflicts=16, failures=4, base=0.005, cap=0.05)
CONFIGMAPS = f"/api/v1/namespaces/{NS}/configmaps"
STATE_CONFIGMAPS = CONFIGMAPS + "/kueue-bot-state-.*"


def _store(client: KubeClient, **kwargs: Any) -> ConfigMapStore:
    return ConfigMapStore(client, NS, retry=FAST, **kwargs)


class TestConfigMapStore(StoreContract):
    @pytest.fixture
    def backend(self, client: KubeClient) -> Backend:
        return lambda: _store(client)


pytestmark = pytest.mark.fake_kube(
    token="admin-token", objects=[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}]
)


@pytest.fixture
async def store(client: KubeClient) -> AsyncIterator[ConfigMapStore]:
    store = _store(client)
    yield store
    await store.aclose()


def _state_configmaps(api: FakeKubeAPI) -> dict[str, dict[str, Any]]:
    return {cm["metadata"]["name"]: cm for cm in api.objects("ConfigMap", NS)}


# -------------------------------------------------------------------------------------------------
# Layout


async def test_the_state_is_json_in_labelled_configmaps_one_per_shard(api: FakeKubeAPI, store: ConfigMapStore) -> None:
    await store.subscribe(Subscription("U1", "team-a", "train", "Job", T0))
    await store.record_intent(Told(KEY, "U1", "waiting-for-quota", 3, "3rd in line"), T0)
    await store.mute("U1", T0)

    configmaps = _state_configmaps(api)
    assert len(configmaps) == 3
    (subscriptions,) = (cm for name, cm in configmaps.items() if "-subscriptions-" in name)
    (deliveries,) = (cm for name, cm in configmaps.items() if "-deliveries-" in name)
    (preferences,) = (cm for name, cm in configmaps.items() if "-preferences-" in name)
    assert subscriptions["metadata"]["labels"] == {
        "kueue-bot/store": "kueue-bot-state",
        "app.kubernetes.io/managed-by": "kueue-bot",
        "app.kubernetes.io/component": "state-subscriptions",
    }
    assert subscriptions["data"] == {
        "format": "1",
        "subscriptions.json": '[{"user":"U1","namespace":"team-a","name":"train","kind":"Job",'
        '"created":"2026-11-03T10:00:00.000000Z"}]',
    }
    assert json.loads(deliveries["data"]["deliveries.json"]) == [
        {
            "key": KEY,
            "target": "U1",
            "channel": "",
            "ts": None,
            "verdict": "waiting-for-quota",
            "position": 3,
            "headline": "3rd in line",
            "sentAt": "2026-11-03T10:00:00.000000Z",
            "updatedAt": "2026-11-03T10:00:00.000000Z",
            "closedAt": None,
            "digest": False,
        }
    ]
    assert json.loads(preferences["data"]["snoozes.json"]) == []
    assert json.loads(preferences["data"]["mutes.json"]) == [{"user": "U1", "since": "2026-11-03T10:00:00.000000Z"}]


async def test_a_load_is_one_list_by_label(api: FakeKubeAPI, store: ConfigMapStore) -> None:
    await store.subscribe(Subscription("U1", "team-a", "train", "Job", T0))
    api.add({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "unrelated", "namespace": NS}})
    api.clear_requests()
    state = await store.load()
    assert len(state.subscriptions) == 1
    assert [(r.method, r.path, r.query.get("labelSelector")) for r in api.requests] == [
        ("GET", CONFIGMAPS, "kueue-bot/store=kueue-bot-state")
    ]


async def test_a_change_that_changes_nothing_is_not_written(api: FakeKubeAPI, store: ConfigMapStore) -> None:
    await store.subscribe(Subscription("U1", "team-a", "train", "Job", T0))
    api.clear_requests()
    assert await store.subscribe(Subscription("U1", "team-a", "train", "Job", T0)) is False
    assert await store.unmute("U1") is False
    assert await store.close(KEY, "U1", T0) is False
    assert {r.method for r in api.requests} == {"GET"}


async def test_writes_put_the_resource_version_they_read(api: FakeKubeAPI, store: ConfigMapStore) -> None:
    await store.mute("U1", T0)
    (name,) = _state_configmaps(api)
    read_at = api.objects("ConfigMap", NS)[0]["metadata"]["resourceVersion"]
    api.clear_requests()
    await store.unmute("U1")
    get, put = api.requests
    assert (get.method, get.path, put.method, put.path) == (
        "GET",
        f"{CONFIGMAPS}/{name}",
        "PUT",
        f"{CONFIGMAPS}/{name}",
    )
    assert put.body["metadata"]["resourceVersion"] == read_at
    assert json.loads(put.body["data"]["mutes.json"]) == []


# -------------------------------------------------------------------------------------------------
# Concurrency


async def test_a_conflict_is_read_again_and_retried(api: FakeKubeAPI, store: ConfigMapStore) -> None:
    await store.mute("U1", T0)
    api.clear_requests()
    api.fail_next(2, status=409, method="PUT")
    await store.snooze("U1", KEY, T0)
    assert [r.method for r in api.requests] == ["GET", "PUT", "GET", "PUT", "GET", "PUT"]
    state = await store.load()
    assert state.is_muted("U1") and len(state.snoozes) == 1


async def test_two_replicas_writing_the_same_configmap_at_once_both_win(
    api: FakeKubeAPI, client: KubeClient, store: ConfigMapStore
) -> None:
    other = _store(client)
    await store.mute("U0", T0)  # the shard of U1's preferences exists: both replicas will PUT it
    api.delay(0.2, method="PUT")  # both read the same resourceVersion before either write lands
    await asyncio.gather(store.snooze("U1", "k1", T0), other.snooze("U1", "k2", T0))
    api.clear_faults()
    puts = [r for r in api.requests if r.method == "PUT"]
    assert len(puts) >= 3  # one of the first two got 409 Conflict and wrote again
    assert puts[0].body["metadata"]["resourceVersion"] == puts[1].body["metadata"]["resourceVersion"]
    assert {s.key for s in (await store.load()).snoozes} == {"k1", "k2"}
    await other.aclose()


async def test_two_replicas_creating_the_same_configmap_at_once(
    api: FakeKubeAPI, client: KubeClient, store: ConfigMapStore
) -> None:
    other = _store(client)
    api.delay(0.2, method="POST")  # both find no ConfigMap, both create it: one gets AlreadyExists
    sub = Subscription("U1", "team-a", "train", "Job", T0)
    results = await asyncio.gather(store.subscribe(sub), other.subscribe(sub))
    api.clear_faults()
    assert sorted(results) == [False, True]  # the loser read again and found the subscription
    assert api.count_requests(method="POST", path=CONFIGMAPS) == 2
    assert (await store.load()).subscriptions == (sub,)
    await other.aclose()


async def test_endless_conflicts_end_in_store_unavailable(api: FakeKubeAPI, store: ConfigMapStore) -> None:
    await store.mute("U1", T0)
    api.fail_next(100, status=409, method="PUT")
    with pytest.raises(StoreUnavailable, match="kept changing under us") as caught:
        await store.unmute("U1")
    assert isinstance(caught.value.__cause__, Conflict)
    assert api.count_requests(method="PUT") == FAST.conflicts
    api.clear_faults()


# -------------------------------------------------------------------------------------------------
# Faults


async def test_server_errors_are_retried(api: FakeKubeAPI, store: ConfigMapStore) -> None:
    await store.mute("U1", T0)
    api.fail_next(2, status=500, method="PUT")
    assert await store.unmute("U1") is True
    api.fail_next(1, status=503, method="GET", path=CONFIGMAPS)
    api.fail_next(1, status=429, method="GET", path=CONFIGMAPS, retry_after=0)
    assert (await store.load()).mutes == ()


async def test_errors_that_last_end_in_store_unavailable(api: FakeKubeAPI, store: ConfigMapStore) -> None:
    api.fail_next(100, status=500)
    with pytest.raises(StoreUnavailable, match="answered 500") as caught:
        await store.mute("U1", T0)
    assert isinstance(caught.value.__cause__, ClusterUnavailable)
    assert len(api.requests) == FAST.failures
    api.clear_faults()
    assert (await store.load()).mutes == ()


async def test_an_unreachable_api_server_is_store_unavailable(api: FakeKubeAPI, store: ConfigMapStore) -> None:
    await store.subscribe(Subscription("U1", "team-a", "train", "Job", T0))
    await api.go_offline()
    try:
        with pytest.raises(StoreUnavailable, match="cannot reach the API server") as caught:
            await store.load()
        assert isinstance(caught.value.__cause__, ClusterUnavailable)
        with pytest.raises(StoreUnavailable, match="cannot reach the API server"):
            await store.unsubscribe("U1", "team-a", "train")
    finally:
        await api.go_online()
    assert len((await store.load()).subscriptions) == 1  # nothing was lost, and it works again


async def test_a_role_without_writes_is_a_clear_error(
    api: FakeKubeAPI, client_for: Callable[[str | None], KubeClient]
) -> None:
    api.add_identity(
        "reader-token", "reader", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]
    )
    store = _store(client_for("reader-token"))
    assert (await store.load()).subscriptions == ()
    with pytest.raises(
        StoreUnavailable, match="its Role must allow get, list, create and update on configmaps"
    ) as caught:
        await store.subscribe(Subscription("U1", "team-a", "train", "Job", T0))
    assert isinstance(caught.value.__cause__, Forbidden)
    assert api.count_requests(method="POST") == 1  # not retried
    await store.aclose()


async def test_a_missing_namespace_is_a_clear_error(client: KubeClient) -> None:
    store = ConfigMapStore(client, "no-such-namespace", retry=FAST)
    with pytest.raises(StoreUnavailable, match="namespace no-such-namespace of the state does not exist"):
        await store.mute("U1", T0)
    await store.aclose()


async def test_a_configmap_about_to_outgrow_its_limit_is_refused(api: FakeKubeAPI, client: KubeClient) -> None:
    store = _store(client, max_shard_bytes=2000)
    snoozed = []
    with pytest.raises(StoreUnavailable, match=r"would grow to \d+ bytes, past 2000"):
        for i in range(100):
            await store.snooze("U1", f"{KEY}-{i}", T0)
            snoozed.append(f"{KEY}-{i}")
    assert 0 < len(snoozed) < 100
    assert [s.key for s in (await store.load()).snoozes] == sorted(snoozed)
    (configmap,) = _state_configmaps(api).values()
    assert sum(len(k) + len(v.encode()) for k, v in configmap["data"].items()) <= 2000
    await store.aclose()


BAD_TIME = '[{"user": "U1", "namespace": "a", "name": "b", "created": "yesterday"}]'


@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"format": "1", "subscriptions.json": "not json"}, id="not-json"),
        pytest.param({"format": "1", "subscriptions.json": '{"user": "U1"}'}, id="not-a-list"),
        pytest.param({"format": "1", "subscriptions.json": '[{"user": "U1"}]'}, id="fields-missing"),
        pytest.param({"format": "1", "subscriptions.json": BAD_TIME}, id="bad-time"),
        pytest.param({"format": "2", "subscriptions.json": "[]"}, id="newer-format"),
    ],
)
async def test_an_unreadable_configmap_is_never_written_over(
    api: FakeKubeAPI, store: ConfigMapStore, data: dict[str, str]
) -> None:
    for index in range(4):
        api.add(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": f"kueue-bot-state-subscriptions-{index}",
                    "namespace": NS,
                    "labels": {"kueue-bot/store": "kueue-bot-state"},
                },
                "data": data,
            }
        )
    before = _state_configmaps(api)
    with pytest.raises(StoreUnavailable, match=r"cannot be read .* left untouched"):
        await store.load()
    with pytest.raises(StoreUnavailable, match="cannot be read"):
        await store.subscribe(Subscription("U1", "team-a", "train", "Job", T0))
    assert _state_configmaps(api) == before
    assert api.count_requests(method="PUT") == 0


def test_a_prefix_that_cannot_name_configmaps_is_refused(client: KubeClient) -> None:
    with pytest.raises(ValueError, match="cannot start a ConfigMap name"):
        ConfigMapStore(client, NS, "Kueue_Bot")


# -------------------------------------------------------------------------------------------------
# The client's writes, with their errors translated


async def test_client_writes_and_their_errors(api: FakeKubeAPI, client: KubeClient) -> None:
    path = f"{CONFIGMAPS}/settings"
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}}

    created = await asyncio.to_thread(client.create, CONFIGMAPS, body)
    assert created["metadata"]["namespace"] == NS and created["data"] == {"a": "1"}
    with pytest.raises(AlreadyExists, match='configmaps "settings" already exists'):
        await asyncio.to_thread(client.create, CONFIGMAPS, body)

    replaced = await asyncio.to_thread(client.replace, path, {**created, "data": {"a": "2"}})
    assert replaced["data"] == {"a": "2"}
    with pytest.raises(Conflict, match="the object has been modified"):
        await asyncio.to_thread(client.replace, path, {**created, "data": {"a": "3"}})  # a stale resourceVersion

    patched = await asyncio.to_thread(client.patch, path, {"data": {"b": "x"}})
    assert patched["data"] == {"a": "2", "b": "x"}
    patched = await asyncio.to_thread(
        client.patch, path, [{"op": "remove", "path": "/data/a"}], content_type="application/json-patch+json"
    )
    assert patched["data"] == {"b": "x"}

    gone = await asyncio.to_thread(client.delete, path)
    assert gone["status"] == "Success"
    with pytest.raises(NotFound):
        await asyncio.to_thread(client.delete, path)

    api.fail_next(status=500, method="PUT")
    with pytest.raises(ClusterUnavailable, match="answered 500 while writing"):
        await asyncio.to_thread(client.replace, path, body)
    await api.go_offline()
    try:
        with pytest.raises(ClusterUnavailable, match="cannot reach the API server while writing"):
            await asyncio.to_thread(client.create, CONFIGMAPS, body)
    finally:
        await api.go_online()


async def test_client_writes_forbidden(api: FakeKubeAPI, client_for: Callable[[str | None], KubeClient]) -> None:
    api.add_identity("nobody-token", "nobody", [])
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}}
    with pytest.raises(Forbidden, match='cannot create resource "configmaps"'):
        await asyncio.to_thread(client_for("nobody-token").create, CONFIGMAPS, body)
