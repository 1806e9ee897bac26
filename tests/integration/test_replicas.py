"""Two replicas of the bot, one cluster, one Slack: the state in ConfigMaps, a Lease to elect the one that
sends. Both run their watcher passes; only the leader's pass sends, so the owner gets one DM. When the leader
stops, the other takes over and does not send the same DM again."""

from __future__ import annotations

import asyncio
import copy
import json
import signal
import sys
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.config import Secret, Settings
from bot.kube.client import KubeClient
from bot.kube.configmap_store import ConfigMapStore
from bot.kube.dump import parse_text
from bot.kube.lease import LeaderElector
from bot.server import Server, build_server
from bot.service.ports import StaticSource
from bot.standin.slack import Call

from tests.fakes.kube_api import FakeKubeAPI
from tests.fakes.slack_api import FakeSlack
from tests.integration.test_notifier import many_pending
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


pytestmark = pytest.mark.fake_kube(objects=[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}])


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


def _to_channel(channel: str) -> Callable[[Call], bool]:
    return lambda call: call.params.get("channel") == channel


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


# --- split brain: the leader frozen (SIGSTOP) past its lease, in the middle of a pass -------------------------

ROOT = Path(__file__).resolve().parents[2]
OWNERS = [f"U0OWNER{index:03d}" for index in range(30)]
# Deadlines, not durations: on a loaded machine a replica takes tens of seconds to import and start, so each
# wait is generous; a test that works ends each wait as soon as its condition holds.
WAIT = 120.0


def _thirty_owners_dump(path: Path) -> Path:
    """The scenario's cluster with 30 more waiting jobs, each annotated with its own owner."""
    path.write_text(yaml.dump_all(many_pending(len(OWNERS), OWNERS), Dumper=yaml.CSafeDumper))
    return path


class _Replica:
    """A replica process and the events it reports on stdout."""

    def __init__(self, process: asyncio.subprocess.Process, name: str) -> None:
        self.process = process
        self.name = name
        self.events: list[dict[str, Any]] = []

    async def expect(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = WAIT) -> dict[str, Any]:  # noqa: ASYNC109
        """The next event matching `predicate` (reading what the process reports until then)."""
        assert self.process.stdout is not None
        async with asyncio.timeout(timeout):
            while True:
                line = await self.process.stdout.readline()
                if not line:
                    raise AssertionError(f"{self.name} ended (exit {await self.process.wait()})")
                event: dict[str, Any] = json.loads(line)
                self.events.append(event)
                if predicate(event):
                    return event

    async def go(self) -> None:
        """Let the replica campaign for the lease."""
        assert self.process.stdin is not None
        self.process.stdin.write(b"go\n")
        await self.process.stdin.drain()


async def _start_replica(config: dict[str, Any], tmp_path: Path) -> _Replica:
    path = tmp_path / f"{config['identity']}.json"
    path.write_text(json.dumps(config))
    log = (tmp_path / f"{config['identity']}.log").open("wb")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.integration.replica_process", str(path),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=log, cwd=str(ROOT),
    )  # fmt: skip
    log.close()
    return _Replica(process, config["identity"])


@pytest.mark.timeout(600)  # two processes started, a pass frozen and resumed: minutes on a loaded machine
async def test_a_leader_frozen_past_its_lease_stops_at_once_and_every_owner_gets_one_dm(
    api: FakeKubeAPI, slack: FakeSlack, tmp_path: Path
) -> None:
    for owner in OWNERS:
        slack.add_user(owner, name=owner.lower())
    slack.slow("chat.postMessage", 0.25)  # a pass of 30 DMs takes 7.5 s: the freeze lands well inside it
    common = {
        "kubeconfig": str(api.write_kubeconfig(tmp_path / "kubeconfig")),
        "slack_url": slack.api_url,
        "token": slack.bot_token,
        "secret": slack.signing_secret,
        "dump": str(_thirty_owners_dump(tmp_path / "cluster.yaml")),
        "namespace": NS,
        # A lease that a starved (not frozen) leader keeps: it gives up only past its renewal deadline (3.3 s).
        "lease_seconds": 5.0,
        "renew_every": 0.5,
        "tick_seconds": 0.5,
    }
    first = await _start_replica({**common, "identity": "replica-a"}, tmp_path)
    second: _Replica | None = None
    try:
        second = await _start_replica({**common, "identity": "replica-b"}, tmp_path)
        # Both started before either campaigns: the leader's pass of 30 DMs must not be over before the
        # follower is there to take over (starting a replica can take longer than the pass on a loaded machine).
        await first.expect(lambda e: e["event"] == "ready")
        await second.expect(lambda e: e["event"] == "ready")
        await first.go()
        await first.expect(lambda e: e["event"] == "leading")
        await second.go()
        is_dm: Callable[[Any], bool] = lambda c: str(c.params.get("channel", "")).startswith("D")  # noqa: E731
        await slack.wait_for_call("chat.postMessage", is_dm, nth=5, timeout=WAIT)
        first.process.send_signal(signal.SIGSTOP)  # right after its 5th DM, in the middle of its pass
        await second.expect(lambda e: e["event"] == "leading")
        for owner in OWNERS:  # the follower took over and told everyone left
            channel = slack.dm_channel(owner)
            await slack.wait_for_call("chat.postMessage", _to_channel(channel), timeout=WAIT)
        first.process.send_signal(signal.SIGCONT)
        # The old leader's pass, resumed, ends: it must not send another DM on its way out.
        resumed = await first.expect(lambda e: e["event"] == "pass")
        assert {"event": "following"} in first.events  # it knew it no longer led before acting again
        await second.expect(lambda e: e["event"] == "pass" and e["decisions"] == 0)  # nothing left to do
        per_owner = {owner: len(slack.messages(slack.dm_channel(owner))) for owner in OWNERS}
        assert per_owner == dict.fromkeys(OWNERS, 1)
        assert resumed["stopped"] == 1  # it stopped at once rather than finishing its pass
    finally:
        for replica in (first, second):
            if replica is not None and replica.process.returncode is None:
                replica.process.send_signal(signal.SIGCONT)
                replica.process.kill()
                await replica.process.wait()
            if replica is not None and replica.process.stdin is not None:
                replica.process.stdin.close()
