"""`/kueue who [resource|flavor] [clusterqueue]` and "who is using the GPUs?" (issue 16, item 4) as Slack
sees them: the production build_server over real HTTP, the Slack stand-in, a dump as the cluster. Holders
grouped by ClusterQueue and namespace with amounts; other teams' names only where every reader may see them;
English and French; a word that names nothing gets a one-line answer."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from bot.config import Secret, Settings
from bot.kube.dump import read_dump
from bot.server import Server, build_server
from bot.service.ports import StaticSource

from tests.fakes.slack_api import FakeSlack
from tests.paths import SCENARIOS

SCENARIO = "waiting-for-quota-computed-position"  # gpu-a100-shared: ml-vision holds 8 GPUs, ml-nlp 6, of 16
NOW = datetime(2026, 11, 3, 9, 41, tzinfo=UTC)
ALICE, CLAIRE = "U0ALICE01", "U0CLAIRE1"
VISION, OPEN = "C0MLVISION", "C0OPEN001"


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user(ALICE, name="alice", locale="en-US")
        fake.add_user(CLAIRE, name="claire", locale="fr-FR")
        fake.add_channel(VISION, "ml-vision", members=[ALICE, CLAIRE])
        fake.add_channel(OPEN, "open", members=[ALICE, CLAIRE])
        yield fake


@pytest.fixture
async def server(slack: FakeSlack) -> AsyncIterator[Server]:
    settings = Settings(
        slack_bot_token=Secret(slack.bot_token),
        slack_signing_secret=Secret(slack.signing_secret),
        slack_api_url=slack.api_url,
        host="127.0.0.1",
        port=0,
        log_format="text",
        channel_namespaces={VISION: ("ml-vision",), OPEN: ("ml-vision", "ml-nlp")},
    )
    source = StaticSource(read_dump(SCENARIOS / SCENARIO / "cluster.yaml").snapshot)
    running = build_server(settings, source, clock=lambda: NOW)
    await running.start()
    try:
        yield running
    finally:
        await running.stop()


def _text(params: dict[str, Any]) -> str:
    return str(params.get("text", "")) + json.dumps(params.get("blocks") or [], ensure_ascii=False)


async def _ask(slack: FakeSlack, server: Server, user: str, channel: str, text: str, nth: int = 1) -> str:
    event = slack.app_mention_event(user, channel, text)
    await slack.deliver_event(f"{server.url}/slack/events", event)
    call = await slack.wait_for_call("chat.postMessage", lambda c: c.params.get("thread_ts") == event["ts"])
    return _text(call.params)


async def test_who_is_using_the_gpus_lists_holders_by_queue_and_namespace(slack: FakeSlack, server: Server) -> None:
    text = await _ask(slack, server, ALICE, OPEN, "who is using the GPUs?")
    assert "Who is using nvidia.com/gpu" in text
    assert "14 held by 2 workloads" in text
    assert "`gpu-a100-shared`: 14 of 16 nominal" in text
    assert "`ml-vision`: 8 (1 workload)" in text and "`yolo-prod-retrain`: 8, running 1 h 40" in text
    assert "`ml-nlp`: 6" in text and "`bert-distill-nightly`" in text
    assert text.index("ml-vision") < text.index("ml-nlp")  # the largest first


async def test_other_teams_are_counted_not_named_where_some_readers_may_not_see_them(
    slack: FakeSlack, server: Server
) -> None:
    text = await _ask(slack, server, ALICE, VISION, "who is using the GPUs?")
    assert "`ml-vision`: 8" in text and "yolo-prod-retrain" in text
    assert "ml-nlp" not in text and "bert-distill-nightly" not in text
    assert "1 workload in namespaces you may not see here: 6" in text


async def test_the_slash_command_takes_a_resource_a_flavor_and_a_cluster_queue(
    slack: FakeSlack, server: Server
) -> None:
    events = f"{server.url}/slack/events"
    text = "who nvidia.com/gpu a100-40gb gpu-a100-shared"
    await slack.deliver_slash_command(events, text=text, user_id=ALICE, channel_id=OPEN)
    answer = await slack.wait_for_response_url()
    assert answer.body.get("response_type") == "ephemeral"  # as `/kueue queue`: to the asker
    assert "in flavor `a100-40gb` of `gpu-a100-shared`: 14 held by 2 workloads" in _text(answer.body)
    await slack.deliver_slash_command(events, text="who memory", user_id=ALICE, channel_id=OPEN)
    memory = await slack.wait_for_response_url(lambda r: "memory" in _text(r.body))
    assert "Who is using memory" in _text(memory.body)


async def test_in_french_and_a_word_that_names_nothing(slack: FakeSlack, server: Server) -> None:
    text = await _ask(slack, server, CLAIRE, OPEN, "qui utilise les GPU ?")
    assert "Qui utilise nvidia.com/gpu" in text and "14 tenus par 2 workloads" in text
    assert "sur 16 nominaux" in text
    unknown = await _ask(slack, server, ALICE, OPEN, "who h100-80gb")
    assert "I know no resource, flavor or ClusterQueue named `h100-80gb`" in unknown
    assert "`nvidia.com/gpu`" in unknown and "Traceback" not in unknown


async def test_who_holds_what_a_job_needs_is_still_about_that_job(slack: FakeSlack, server: Server) -> None:
    text = await _ask(slack, server, ALICE, OPEN, "who is using a100-40gb")  # a flavor: cluster-wide
    assert "Who is using nvidia.com/gpu" in text and "in flavor `a100-40gb`" in text
    job = await _ask(slack, server, ALICE, OPEN, "who holds what ml-vision/segformer-finetune needs?")
    assert "Who is using" not in job and "segformer-finetune" in job
