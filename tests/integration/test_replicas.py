"""Two replicas of the bot, one cluster, one Slack: the state in ConfigMaps, a Lease to elect the one that
sends. Both run their watcher passes; only the leader's pass sends, so the owner gets one DM. When the leader
stops, the other takes over and does not send the same DM again."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.config import Secret, Settings
from bot.kube.client import KubeClient, load_api_client
from bot.kube.configmap_store import ConfigMapStore
from bot.kube.dump import parse_text
from bot.kube.lease import LeaderElector
from bot.server import Server, build_server
from bot.service import StaticSource

from tests.fakes.kube_api import FakeKubeAPI
from tests.fakes.slack_api import FakeSlack
from tests.paths import SCENARIOS

NS = "kueue-bot"
ALICE = "U0ALICE01"
NOW = datetime(2026, 11, 3, 9, 41, tzinfo=UTC)


def _source() -> StaticSource:
    loaded = yaml.safe_load((SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml").read_text())
    docs: list[dict[str, Any]] = copy.deepcopy(loaded["items"])
    job = next(d for d in docs if d["kind"] == "Job" and d["metadata"]["name"] == "segformer-finetune")
    job["metadata"].setdefault("annotations", {})["kueue-bot.io/notify"] = ALICE
    return StaticSource(parse_text(yaml.dump_all(docs, Dumper=yaml.CSafeDumper)).snapshot)


@pytest.fixture
async def api() -> AsyncIterator[FakeKubeAPI]:
    async with FakeKubeAPI() as server:
        server.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        yield server


@pytest.fixture
def client(api: FakeKubeAPI, tmp_path: Path) -> Iterator[KubeClient]:
    api_client = load_api_client(str(api.write_kubeconfig(tmp_path / "kubeconfig")))
    yield KubeClient(api_client)
    api_client.close()  # type: ignore[no-untyped-call]


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user(ALICE, name="alice")
        yield fake


def _replica(slack: FakeSlack, client: KubeClient, name: str) -> tuple[Server, LeaderElector]:
    settings = Settings(
        slack_bot_token=Secret(slack.bot_token),
        slack_signing_secret=Secret(slack.signing_secret),
        slack_api_url=slack.api_url,
        host="127.0.0.1",
        port=0,
        pod_namespace=NS,
        leader_election=True,
    )
    elector = LeaderElector(
        client, NS, "kueue-bot-leader", name, lease_seconds=1.0, renew_every=0.2, clock=lambda: datetime.now(UTC)
    )
    server = build_server(
        settings,
        _source(),
        clock=lambda: NOW,
        store=ConfigMapStore(client, NS),
        is_leader=lambda: elector.is_leader,
        tick_seconds=3600,
    )
    return server, elector


def _dms(slack: FakeSlack) -> list[Any]:
    return [c for c in slack.calls("chat.postMessage") if str(c.params.get("channel", "")).startswith("D")]


async def test_two_replicas_send_one_dm_and_the_follower_takes_over_without_resending(
    slack: FakeSlack, client: KubeClient
) -> None:
    first, first_elector = _replica(slack, client, "replica-a")
    second, second_elector = _replica(slack, client, "replica-b")
    await first.start()
    await second.start()
    first_elector.start()
    await first_elector.leading.wait()
    second_elector.start()
    try:
        assert first.notifier is not None and second.notifier is not None
        assert await second.notifier.run_pass() == []  # a follower decides nothing
        await first.notifier.run_pass()
        await second.notifier.run_pass()
        await first.notifier.run_pass()
        assert len(_dms(slack)) == 1
        # The leader goes away; the other replica leads, finds the DM in the shared state, sends nothing.
        await first_elector.stop()
        await second_elector.leading.wait()
        assert await second.notifier.run_pass() == []
        assert len(_dms(slack)) == 1
    finally:
        await second_elector.stop()
        await first_elector.stop()
        await second.stop()
        await first.stop()
