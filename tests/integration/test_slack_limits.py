"""Never silent, never twice, always bounded, as Slack sees it: the production `build_server` over real HTTP,
the Slack stand-in answering 429 with Retry-After (per method) and Slack's permanent errors, and malformed
but signed requests. Every test says what would make it fail."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from urllib.parse import urlencode

import aiohttp
import pytest
from bot.kube.dump import read_dump
from bot.server import Server, build_server
from bot.service.ports import StaticSource

from tests.fakes.slack_api import Call, FakeSlack, bot_settings
from tests.paths import SCENARIOS

NOW = datetime(2026, 11, 3, 9, 41, tzinfo=UTC)
USER, CHANNEL = "U0ALICE01", "C0MLVISION"
QUESTION = "ml-vision/segformer-finetune"


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user(USER, name="alice", email="alice@example.com")
        fake.add_channel(CHANNEL, "ml-vision", members=[USER])
        yield fake


@pytest.fixture
async def server(slack: FakeSlack) -> AsyncIterator[Server]:
    source = StaticSource(read_dump(SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml").snapshot)
    running = build_server(bot_settings(slack), source, clock=lambda: NOW)
    await running.start()
    try:
        yield running
    finally:
        await running.stop()


def _events(server: Server) -> str:
    return f"{server.url}/slack/events"


def _ok(call: Call) -> bool:
    return bool(call.response and call.response.get("ok"))


def _text(call: Call) -> str:
    return str(call.params.get("text", "")) + json.dumps(call.params.get("blocks") or [])


async def _get(server: Server, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(server.url + path) as response:
        return response.status, await response.text()


# --- rate limits --------------------------------------------------------------------------------------------


async def test_sustained_429s_are_waited_out_and_every_question_is_answered_once(
    slack: FakeSlack, server: Server
) -> None:
    # 30 answers of 429 (Retry-After 1 s) to five questions. Fails without the rate gate: slack_sdk's handler
    # gives each post 3 tries, the apology 3 more, and the questions got nothing (or an apology instead).
    slack.rate_limit("chat.postMessage", retry_after=1, times=30)
    events = [slack.app_mention_event(USER, CHANNEL, QUESTION) for _ in range(5)]
    for event in events:
        await slack.deliver_event(_events(server), event)
    for event in events:
        ts = event["ts"]

        def answered(call: Call, ts: object = ts) -> bool:
            return _ok(call) and call.params.get("thread_ts") == ts

        await slack.wait_for_call("chat.postMessage", answered, timeout=40)
    for event in events:
        thread = slack.thread(CHANNEL, event["ts"])
        assert len(thread) == 1 and "waiting-for-quota" in thread[0].text, thread
    assert len([c for c in slack.calls("chat.postMessage") if c.status == 429]) == 30
    _, metrics = await _get(server, "/metrics")
    assert 'kueue_bot_slack_ratelimited_total{method="chat.postMessage"} 30.0' in metrics
    assert 'kueue_bot_slack_delayed_total{method="chat.postMessage"} 5.0' in metrics
    assert "kueue_bot_answers_dropped_total{" not in metrics


async def test_a_rate_limit_past_the_bound_gets_one_short_private_apology_at_once(
    slack: FakeSlack, server: Server
) -> None:
    # Retry-After beyond the bound: the answer is not tried again, the asker is told privately, at once.
    # Fails before the gate: the SDK slept 30 s inside the call's own 30 s bound, nothing was posted, and the
    # apology was rate-limited too (silence).
    server.bot.client.queue_bound = 5.0
    slack.rate_limit("chat.postMessage", retry_after=30, times=10)
    event = slack.app_mention_event(USER, CHANNEL, QUESTION)
    await slack.deliver_event(_events(server), event)
    apology = await slack.wait_for_call("chat.postEphemeral", _ok, timeout=10)
    assert apology.params["user"] == USER and apology.params["thread_ts"] == event["ts"]
    assert "Slack is limiting how fast I may post" in _text(apology)
    assert [c.status for c in slack.calls("chat.postMessage")] == [429]  # tried once, never again
    _, metrics = await _get(server, "/metrics")
    assert 'kueue_bot_answers_dropped_total{where="mention"} 1.0' in metrics
    assert 'kueue_bot_slack_dropped_total{method="chat.postMessage"} 1.0' in metrics
    # A second question while the limit holds: not even tried, apologised for at once.
    other = slack.app_mention_event(USER, CHANNEL, QUESTION)
    await slack.deliver_event(_events(server), other)
    await slack.wait_for_call("chat.postEphemeral", _ok, nth=2, timeout=10)
    assert [c.status for c in slack.calls("chat.postMessage")] == [429]


async def test_a_direct_message_rate_limited_past_the_bound_is_apologised_for_in_the_dm(
    slack: FakeSlack, server: Server
) -> None:
    # Fails if a question asked in the bot's DM went unanswered without a word.
    server.bot.client.queue_bound = 5.0
    slack.rate_limit("chat.postMessage", retry_after=30, times=10)
    event = slack.im_event(USER, QUESTION)
    await slack.deliver_event(_events(server), event)
    apology = await slack.wait_for_call("chat.postEphemeral", _ok, timeout=10)
    assert apology.params["channel"] == slack.dm_channel(USER) and "Slack is limiting" in _text(apology)
    assert [c.status for c in slack.calls("chat.postMessage")] == [429]


async def test_a_rate_limit_on_one_channel_does_not_hold_another(slack: FakeSlack, server: Server) -> None:
    # Fails if a 429 in one channel held chat.postMessage everywhere (or nowhere: then the second answer in
    # the limited channel would be tried before its Retry-After and get a second 429).
    slack.add_channel("C0OTHER001", "other", members=[USER])
    server.bot.client.queue_bound = 5.0
    slack.rate_limit("chat.postMessage", retry_after=30, times=1)
    first = slack.app_mention_event(USER, CHANNEL, QUESTION)
    await slack.deliver_event(_events(server), first)
    await slack.wait_for_call("chat.postEphemeral", _ok, timeout=10)
    elsewhere = slack.app_mention_event(USER, "C0OTHER001", QUESTION)
    await slack.deliver_event(_events(server), elsewhere)
    answer = await slack.wait_for_call("chat.postMessage", _ok, timeout=10)
    assert answer.params["channel"] == "C0OTHER001"
    assert [c.status for c in slack.calls("chat.postMessage")] == [429, 200]


async def test_a_slash_command_rate_limited_past_the_bound_is_told_privately(slack: FakeSlack, server: Server) -> None:
    # Fails if the command's answer were lost without a word (or the apology posted in the channel).
    server.bot.client.queue_bound = 5.0
    slack.rate_limit("chat.postMessage", retry_after=30, times=5)
    await slack.deliver_slash_command(_events(server), text=f"why {QUESTION}", user_id=USER, channel_id=CHANNEL)
    told = await slack.wait_for_response_url(timeout=10)
    assert told.body["response_type"] == "ephemeral" and "Slack is limiting" in told.body["text"]
    assert [c.status for c in slack.calls("chat.postMessage")] == [429]


# --- signed, yet malformed ------------------------------------------------------------------------------------


def _form(payload: object) -> tuple[str, str]:
    return urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"


def _event(event: object, **more: object) -> tuple[str, str]:
    envelope = {"type": "event_callback", "team_id": "T0001", "api_app_id": "A0001", "event_id": "Ev0BAD", **more}
    return json.dumps({**envelope, "event": event}), "application/json"


_CLICK = {"type": "block_actions", "user": {"id": USER}, "team": {"id": "T0001"}, "channel": {"id": CHANNEL}}
MALFORMED = {
    "event-not-an-object": _event("app_mention"),
    "event-a-list": _event([{"type": "app_mention"}]),
    "team-id-an-object": _event({"type": "app_mention"}, team_id={"id": "T0001"}),
    "deep-json": ('{"a":' * 5000 + "1" + "}" * 5000, "application/json"),
    "deeper-than-the-parser": ("[" * 100_000 + "]" * 100_000, "application/json"),
    "actions-not-a-list": _form({**_CLICK, "actions": "kueue_recheck"}),
    "actions-of-strings": _form({**_CLICK, "actions": ["kueue_recheck"]}),
    "user-not-an-object": _form({**_CLICK, "user": USER, "actions": []}),
}


@pytest.mark.parametrize("name", list(MALFORMED))
async def test_a_signed_but_malformed_request_is_a_400_without_a_traceback(
    slack: FakeSlack, server: Server, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Fails before the shape check: Bolt failed on them with a traceback and answered 500.
    body, content_type = MALFORMED[name]
    delivery = await slack.deliver_raw(_events(server), body, content_type)
    assert delivery.status == 400
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    # ... and the next question is answered.
    event = slack.app_mention_event(USER, CHANNEL, QUESTION)
    await slack.deliver_event(_events(server), event)
    await slack.wait_for_call("chat.postMessage", lambda c: c.params.get("thread_ts") == event["ts"] and _ok(c))


# --- what /readyz says of Slack --------------------------------------------------------------------------------


async def test_readyz_says_unverified_until_slack_accepted_a_call(slack: FakeSlack, server: Server) -> None:
    # Fails if /readyz said "connected" in HTTP mode before Slack had accepted anything.
    slack.fail("auth.test", status=503, times=10)  # Slack out of reach: the check cannot say
    status, body = await _get(server, "/readyz")
    assert (status, json.loads(body)["slack"]) == (200, "unverified")  # ready: Slack comes to us
    slack.clear_faults()
    event = slack.app_mention_event(USER, CHANNEL, QUESTION)
    await slack.deliver_event(_events(server), event)
    await slack.wait_for_call("chat.postMessage", _ok)
    status, body = await _get(server, "/readyz")
    assert (status, json.loads(body)["slack"]) == (200, "connected")
    assert "kueue_bot_slack_connected 1.0" in (await _get(server, "/metrics"))[1]


@pytest.mark.parametrize("code", ["invalid_auth", "token_revoked", "account_inactive"])
async def test_a_refused_bot_token_makes_readyz_503_with_the_reason(
    slack: FakeSlack, server: Server, code: str
) -> None:
    # Fails if /readyz stayed 200 ("connected") with a token Slack refuses.
    slack.fail("auth.test", error=code, times=10)
    status, body = await _get(server, "/readyz")
    assert status == 503 and json.loads(body)["slack"] == f"refused: SLACK_BOT_TOKEN {code}"
    assert "kueue_bot_slack_connected 0.0" in (await _get(server, "/metrics"))[1]


async def test_a_token_revoked_while_serving_is_said_by_readyz_until_slack_accepts_it_again(
    slack: FakeSlack, server: Server
) -> None:
    # Fails if a token revoked while the bot serves left /readyz at 200.
    token = slack.bot_token
    slack.bot_token = "xoxb-the-new-one"  # Slack now refuses the bot's: invalid_auth on every call
    event = slack.app_mention_event(USER, CHANNEL, QUESTION)
    await slack.deliver_event(_events(server), event)
    await slack.wait_for_call("auth.test", lambda c: not _ok(c))  # Bolt's own check: refused, nothing answered
    status, body = await _get(server, "/readyz")
    assert (status, json.loads(body)["slack"]) == (503, "refused: SLACK_BOT_TOKEN invalid_auth")
    slack.bot_token = token
    other = slack.app_mention_event(USER, CHANNEL, QUESTION)
    await slack.deliver_event(_events(server), other)
    await slack.wait_for_call("chat.postMessage", _ok)
    status, body = await _get(server, "/readyz")
    assert (status, json.loads(body)["slack"]) == (200, "connected")


async def test_socket_mode_with_a_token_revoked_while_connected_is_one_line_backoff_and_readyz_says_why(
    slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    # The app token is revoked while connected, then Slack drops the connection. Fails before: slack_sdk tried
    # again every 10 s for ever, several ERROR lines each time, and /readyz said only "disconnected".
    source = StaticSource(read_dump(SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml").snapshot)
    server = build_server(bot_settings(slack, socket_mode=True), source, clock=lambda: NOW)
    await server.start()
    try:
        assert server.socket is not None
        server.socket.backoff = 0.2  # then 0.4, 0.8...
        await slack.wait_for_socket_connection()
        caplog.set_level(logging.INFO)
        token = slack.app_token
        slack.app_token = "xapp-the-new-one"
        await slack.socket_disconnect()
        await slack.wait_for_call("apps.connections.open", lambda c: not _ok(c))
        await slack.wait_for_call("apps.connections.open", lambda c: not _ok(c), nth=3, timeout=10)  # backing off
        status, body = await _get(server, "/readyz")
        assert (status, json.loads(body)["slack"]) == (503, "refused: SLACK_APP_TOKEN invalid_auth")
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and "Slack refused a token while connected" in errors[0].getMessage(), errors
        assert not [r for r in caplog.records if r.exc_info]
        retries = [r for r in caplog.records if "still refused" in r.getMessage()]
        refused = [c for c in slack.calls("apps.connections.open") if not _ok(c)]
        assert len(refused) <= len(retries) + 2  # the SDK's own try, ours: no other
        slack.app_token = token  # a valid token again: connected at the next check
        await slack.wait_for_socket_connection(nth=2, timeout=10)
        status, body = await _get(server, "/readyz")
        assert (status, json.loads(body)["slack"]) == (200, "connected")
    finally:
        await server.stop()
