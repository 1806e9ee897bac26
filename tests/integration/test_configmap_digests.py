"""The admins' digest records in a ConfigMap (issue 17: with STATE_URL=kubernetes://, a restarted or another
replica edits the digest it finds instead of posting it again), over real HTTP to the fake API server."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from bot.errors import StoreUnavailable
from bot.kube.client import KubeClient
from bot.kube.configmap_digests import COMPONENT
from bot.kube.configmap_store import ConfigMapStore, Retry
from bot.notify.admin_digest import DigestRecord
from bot.server import Server, build_server

from tests.builders import NOW
from tests.clocks import Clock
from tests.fakes.kube_api import FakeKubeAPI
from tests.fakes.slack_api import FakeSlack
from tests.fakes.slack_api import bot_settings as _settings
from tests.integration.test_admin_digest import ANNE, BRUNO, CHANNEL, SCENARIO, START, _posts
from tests.integration.test_notifier import Timeline, _docs, _snapshot

NS = "kueue-bot"
FAST = Retry(conflicts=16, failures=4, base=0.005, cap=0.05)
pytestmark = pytest.mark.fake_kube(
    token="admin-token", objects=[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}]
)


def _store(client: KubeClient) -> ConfigMapStore:
    return ConfigMapStore(client, NS, retry=FAST)


def _record(target: str, fingerprint: str = "f1") -> DigestRecord:
    return DigestRecord(target, f"D{target}", "1700000000.000100", fingerprint, NOW, NOW + timedelta(minutes=5))


async def test_records_survive_a_restart_and_the_state_does_not_list_them(client: KubeClient) -> None:
    store = _store(client)
    digests = store.digest_store()
    await digests.save(_record("U1"))
    await digests.save(_record("C2"))
    await digests.save(_record("U1", "f2"))  # edited: replaced, the other kept
    await store.aclose()
    restarted = _store(client)
    loaded = await restarted.digest_store().load()
    assert loaded == {"U1": _record("U1", "f2"), "C2": _record("C2")}
    assert (await restarted.load()).subscriptions == ()
    await restarted.aclose()


async def test_two_replicas_saving_at_once_both_keep_theirs(client: KubeClient) -> None:
    one, other = _store(client), _store(client)
    await one.digest_store().save(_record("U0"))  # the ConfigMap exists: both will PUT it
    await asyncio.gather(
        *(one.digest_store().save(_record(f"U{i}")) for i in range(1, 4)), other.digest_store().save(_record("C9"))
    )
    assert set(await other.digest_store().load()) == {"U0", "U1", "U2", "U3", "C9"}
    await one.aclose()
    await other.aclose()


async def test_an_unreadable_configmap_is_refused_and_never_written_over(api: FakeKubeAPI, client: KubeClient) -> None:
    store = _store(client)
    await store.digest_store().save(_record("U1"))
    name = f"{store.name_prefix}-{COMPONENT}"
    configmap = api.get("ConfigMap", NS, name)
    assert configmap is not None
    configmap["data"]["digests.json"] = "{not json"
    api.update(configmap)
    with pytest.raises(StoreUnavailable, match="admin digests ConfigMap cannot be read"):
        await store.digest_store().load()
    with pytest.raises(StoreUnavailable):
        await store.digest_store().save(_record("U2"))
    assert (api.get("ConfigMap", NS, name) or {})["data"]["digests.json"] == "{not json"
    await store.aclose()


async def _server(slack: FakeSlack, source: Timeline, clock: Clock, client: KubeClient) -> Server:
    settings = _settings(slack, admin_users=(ANNE, BRUNO))
    server = build_server(settings, source, clock=clock, store=_store(client), tick_seconds=3600)
    await server.start()
    return server


async def test_a_restarted_bot_with_configmap_state_never_posts_the_digest_again(
    client: KubeClient, tmp_path: Path
) -> None:
    async with FakeSlack() as slack:
        slack.add_user(ANNE, name="anne", locale="en-US")
        slack.add_user(BRUNO, name="bruno", locale="fr-FR")
        slack.add_channel(CHANNEL, "ml-vision", members=[ANNE, BRUNO])
        clock = Clock(START)
        source = Timeline(_snapshot(_docs(SCENARIO)))
        server = await _server(slack, source, clock, client)
        try:
            assert server.admin_digest is not None
            assert sorted(await server.admin_digest.run_once()) == [(ANNE, "post"), (BRUNO, "post")]
        finally:
            await server.stop()
        clock.now = START + timedelta(hours=1)
        server = await _server(slack, source, clock, client)  # nothing in memory: the ConfigMap remembers
        try:
            assert server.admin_digest is not None
            done: list[Any] = await server.admin_digest.run_once()
            assert done == [] and len(_posts(slack)) == 2
        finally:
            await server.stop()
