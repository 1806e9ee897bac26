"""Will it fit? in Slack: "will this fit?" with a job's YAML (mention, DM), `/kueue fit` with a short spec, the
"Will it fit?" message shortcut and `/kueue quota`, through the production build_server over real HTTP to the
Slack stand-in, answering from a cluster the job is not in. The first screen's limits, the reader's language and
the channel's namespaces hold."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import yaml
from bot.server import Server, build_server
from bot.service.ports import StaticSource
from bot.slack.app import FIT_SHORTCUT
from bot.slack.render.blocks import chars
from bot.slack.render.fit import FIRST_SCREEN_BLOCKS, FIRST_SCREEN_CHARS

from tests.builders import snapshot
from tests.fakes.slack_api import FakeSlack, bot_settings
from tests.fit_support import take_out

TAKEN = take_out("waiting-for-quota-computed-position")  # ml-vision/segformer-finetune, taken out of its cluster
NOW = datetime(2026, 11, 3, 9, 41, tzinfo=UTC) + timedelta(minutes=1)
USER, CLAIRE = "U0ALICE01", "U0CLAIRE1"
CHANNEL, NLP_CHANNEL = "C0MLVISION", "C0MLNLP001"
JOB_YAML = yaml.safe_dump(TAKEN.job, sort_keys=False)


def _text_of(params: dict[str, Any]) -> str:
    return str(params.get("text", "")) + json.dumps(params.get("blocks") or [], ensure_ascii=False)


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user(USER, name="alice", locale="en-US")
        fake.add_user(CLAIRE, name="claire", locale="fr-FR")
        fake.add_channel(CHANNEL, "ml-vision", members=[USER, CLAIRE])
        fake.add_channel(NLP_CHANNEL, "ml-nlp", members=[USER])
        yield fake


async def _serve(slack: FakeSlack, **settings: Any) -> Server:
    source = StaticSource(snapshot(TAKEN.cluster))
    server = build_server(bot_settings(slack, **settings), source, clock=lambda: NOW)
    await server.start()
    return server


@pytest.fixture
async def server(slack: FakeSlack) -> AsyncIterator[Server]:
    running = await _serve(slack)
    try:
        yield running
    finally:
        await running.stop()


def _events(server: Server) -> str:
    return f"{server.url}/slack/events"


def _first_screen(params: dict[str, Any]) -> None:
    blocks = params.get("blocks") or []
    assert len(blocks) <= FIRST_SCREEN_BLOCKS
    assert chars(blocks) <= FIRST_SCREEN_CHARS


async def test_will_this_fit_with_the_yaml_in_a_code_block_is_answered_in_the_thread(
    slack: FakeSlack, server: Server
) -> None:
    event = slack.app_mention_event(USER, CHANNEL, f"will this fit?\n```\n{JOB_YAML}```")
    await slack.deliver_event(_events(server), event)
    call = await slack.wait_for_call("chat.postMessage")
    assert call.params["thread_ts"] == event["ts"]
    text = _text_of(call.params)
    assert "Fits later" in text and "waiting-for-quota" in text
    assert "a100-40gb" in text and "5" in text  # the flavor, and the place it would take
    _first_screen(call.params)


async def test_a_direct_message_in_french_gets_the_answer_in_french(slack: FakeSlack, server: Server) -> None:
    event = slack.im_event(CLAIRE, f"est-ce que ça rentre ?\n```yaml\n{JOB_YAML}```")
    await slack.deliver_event(_events(server), event)
    call = await slack.wait_for_call("chat.postMessage")
    assert call.params["channel"] == slack.dm_channel(CLAIRE)
    assert "Admissible plus tard" in _text_of(call.params)


async def test_fit_with_a_short_spec_answers_now_never_or_later(slack: FakeSlack, server: Server) -> None:
    await slack.deliver_slash_command(
        _events(server),
        text="fit ml-vision/vision-queue 1 pods × (cpu 1, nvidia.com/gpu 1)",
        user_id=USER,
        channel_id=CHANNEL,
    )
    call = await slack.wait_for_call("chat.postMessage")
    assert "Fits now" in _text_of(call.params) and "admitted" in _text_of(call.params)
    await slack.deliver_slash_command(
        _events(server), text="fit ml-vision/vision-queue 40 x (nvidia.com/gpu 1)", user_id=USER, channel_id=CHANNEL
    )
    never = await slack.wait_for_call("chat.postMessage", nth=2)
    text = _text_of(never.params)
    assert "exceeds-max-quota" in text and "One change that works" in text
    _first_screen(never.params)


async def test_a_spec_not_understood_and_a_question_without_yaml_say_how_to_ask(
    slack: FakeSlack, server: Server
) -> None:
    await slack.deliver_slash_command(_events(server), text="fit please", user_id=USER, channel_id=CHANNEL)
    reply = await slack.wait_for_response_url()
    assert reply.body.get("response_type") == "ephemeral" and "/kueue fit" in json.dumps(reply.body)
    await slack.deliver_event(_events(server), slack.app_mention_event(USER, CHANNEL, "will it fit?"))
    told = await slack.wait_for_call("chat.postEphemeral")
    assert "code block" in _text_of(told.params)


async def test_the_message_shortcut_answers_in_the_thread_of_the_message(slack: FakeSlack, server: Server) -> None:
    await slack.deliver_message_action(
        _events(server), callback_id=FIT_SHORTCUT, user_id=USER, channel_id=CHANNEL, text=JOB_YAML, ts="1700.0001"
    )
    call = await slack.wait_for_call("chat.postMessage")
    assert call.params["thread_ts"] == "1700.0001"
    assert "waiting-for-quota" in _text_of(call.params)


async def test_quota_says_what_the_queue_can_give_now(slack: FakeSlack, server: Server) -> None:
    await slack.deliver_slash_command(
        _events(server), text="quota ml-vision/vision-queue", user_id=USER, channel_id=CHANNEL
    )
    call = await slack.wait_for_call("chat.postMessage")
    text = _text_of(call.params)
    assert "gpu-a100-shared" in text and "nominal 16" in text and "free now 2" in text


async def test_a_channel_sees_only_its_namespaces(slack: FakeSlack) -> None:
    server = await _serve(slack, channel_namespaces={CHANNEL: ("ml-vision",), NLP_CHANNEL: ("ml-nlp",)})
    try:
        event = slack.app_mention_event(USER, NLP_CHANNEL, f"will this fit?\n```\n{JOB_YAML}```")
        await slack.deliver_event(_events(server), event)
        refused = await slack.wait_for_call("chat.postEphemeral")
        assert "ml-vision" in _text_of(refused.params) and "a100-40gb" not in _text_of(refused.params)
        assert not slack.calls("chat.postMessage")
    finally:
        await server.stop()
