"""The Slack stand-in, checked with the real clients: slack_sdk's AsyncWebClient for the Web API, and a small
Bolt AsyncApp (written here; not the project's app) over signed HTTP and over Socket Mode."""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltRequest, AsyncRespond, AsyncSay
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from tests.fakes.slack_api import FakeSlack

BOT_TOKEN = "xoxb-test"
APP_TOKEN = "xapp-test"
SIGNING_SECRET = "s3cr3t"
ALICE, BOB = "U0ALICE", "U0BOB"
ML_TEAM, QUIET, SECRET_ROOM = "C0MLTEAM", "C0QUIET", "G0SECRET"

JsonDict = dict[str, Any]


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN, signing_secret=SIGNING_SECRET) as fake:
        fake.add_user(
            ALICE,
            name="alice",
            real_name="Alice Martin",
            email="alice@example.com",
            tz="Europe/Paris",
            locale="fr-FR",
        )
        fake.add_user(BOB, name="bob", email="bob@example.com")
        fake.add_channel(ML_TEAM, "ml-team", members=[ALICE, BOB])
        fake.add_channel(QUIET, "quiet", members=[ALICE], bot_is_member=False)
        fake.add_channel(SECRET_ROOM, "secret", members=[ALICE], bot_is_member=False, is_private=True)
        yield fake


@pytest.fixture
def client(slack: FakeSlack) -> AsyncWebClient:
    return AsyncWebClient(base_url=slack.api_url, token=BOT_TOKEN)


def section(text: str) -> JsonDict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def header(text: str) -> JsonDict:
    return {"type": "header", "text": {"type": "plain_text", "text": text}}


def button(label: str, *, action_id: str = "retry", value: str = "ns/job") -> JsonDict:
    return {"type": "button", "text": {"type": "plain_text", "text": label}, "action_id": action_id, "value": value}


# -- Web API: authentication ---------------------------------------------------------------------------------


async def test_auth_test_identifies_the_bot(slack: FakeSlack, client: AsyncWebClient) -> None:
    answer = await client.auth_test()

    me = slack.identity
    assert answer.status_code == 200
    assert answer.data == {
        "ok": True,
        "url": me.team_url,
        "team": me.team_name,
        "user": me.bot_name,
        "team_id": me.team_id,
        "user_id": me.bot_user_id,
        "bot_id": me.bot_id,
        "is_enterprise_install": False,
    }
    call = slack.calls("auth.test")[0]
    assert call.headers["Authorization"] == f"Bearer {BOT_TOKEN}"
    assert call.http_method == "POST"


@pytest.mark.parametrize(
    ("token", "method", "error"),
    [
        pytest.param("xoxb-revoked", "auth.test", "invalid_auth", id="wrong-token"),
        pytest.param(None, "auth.test", "not_authed", id="no-token"),
        pytest.param(APP_TOKEN, "chat.postMessage", "not_allowed_token_type", id="app-token-for-bot-method"),
        pytest.param(BOT_TOKEN, "apps.connections.open", "not_allowed_token_type", id="bot-token-for-socket-mode"),
        pytest.param(BOT_TOKEN, "kueue.nothing", "unknown_method", id="unknown-method"),
    ],
)
async def test_auth_errors_are_http_200_with_ok_false(
    slack: FakeSlack, token: str | None, method: str, error: str
) -> None:
    client = AsyncWebClient(base_url=slack.api_url, token=token)

    with pytest.raises(SlackApiError) as raised:
        await client.api_call(method, json={"channel": ML_TEAM, "text": "hi"})

    assert raised.value.response.status_code == 200
    assert raised.value.response["error"] == error


async def test_the_token_may_come_as_a_form_parameter(slack: FakeSlack) -> None:
    client = AsyncWebClient(base_url=slack.api_url)

    answer = await client.api_call("auth.test", data={"token": BOT_TOKEN})

    assert answer["user_id"] == slack.identity.bot_user_id
    assert "token" not in slack.calls("auth.test")[0].params


# -- Web API: posting and reading messages -------------------------------------------------------------------


async def test_post_message_stores_threads_and_metadata(slack: FakeSlack, client: AsyncWebClient) -> None:
    metadata = {"event_type": "kueue_explanation", "event_payload": {"workload": "ml/train-octobre"}}
    parent = await client.chat_postMessage(
        channel=ML_TEAM,
        text="train-octobre is pending",
        blocks=[section("*train-octobre* is pending")],
        metadata=metadata,
        unfurl_links=False,
    )
    reply = await client.chat_postMessage(channel=ML_TEAM, text="details", thread_ts=parent["ts"])
    broadcast = await client.chat_postMessage(
        channel=ML_TEAM, text="admitted now", thread_ts=parent["ts"], reply_broadcast=True
    )

    assert parent["channel"] == ML_TEAM
    assert parent["ts"] == "1700000000.000100"
    assert parent["ts"] < reply["ts"] < broadcast["ts"]
    assert parent["message"]["metadata"] == metadata
    stored = slack.messages(ML_TEAM)
    assert [m.text for m in stored] == ["train-octobre is pending", "details", "admitted now"]
    assert stored[0].blocks == [section("*train-octobre* is pending")]
    assert stored[0].metadata == metadata
    assert stored[0].unfurl_links is False
    assert stored[0].bot_id == slack.identity.bot_id
    assert [m.ts for m in slack.thread(ML_TEAM, parent["ts"])] == [reply["ts"], broadcast["ts"]]
    assert stored[2].reply_broadcast


async def test_history_is_newest_first_with_metadata_on_request(slack: FakeSlack, client: AsyncWebClient) -> None:
    metadata = {"event_type": "kueue_explanation", "event_payload": {"code": "exceeds-max-quota"}}
    first = await client.chat_postMessage(channel=ML_TEAM, text="first", metadata=metadata)
    await client.chat_postMessage(channel=ML_TEAM, text="hidden reply", thread_ts=first["ts"])
    await client.chat_postMessage(channel=ML_TEAM, text="shown reply", thread_ts=first["ts"], reply_broadcast=True)
    await client.chat_postMessage(channel=ML_TEAM, text="second")

    plain = await client.conversations_history(channel=ML_TEAM)
    page_1 = await client.conversations_history(channel=ML_TEAM, include_all_metadata=True, limit=2)
    page_2 = await client.conversations_history(
        channel=ML_TEAM, include_all_metadata=True, limit=2, cursor=page_1["response_metadata"]["next_cursor"]
    )

    assert [m["text"] for m in plain["messages"]] == ["second", "shown reply", "first"]
    assert "metadata" not in plain["messages"][2]
    assert plain["messages"][2]["reply_count"] == 2
    assert [m["text"] for m in page_1["messages"]] == ["second", "shown reply"]
    assert page_1["has_more"] is True
    assert [m["text"] for m in page_2["messages"]] == ["first"]
    assert page_2["messages"][0]["metadata"] == metadata
    assert page_2["has_more"] is False


async def test_replies_are_the_parent_then_replies_oldest_first(slack: FakeSlack, client: AsyncWebClient) -> None:
    mention = slack.app_mention_event(ALICE, ML_TEAM, "why is train-octobre pending?")
    await client.chat_postMessage(channel=ML_TEAM, text="one", thread_ts=mention["ts"])
    await client.chat_postMessage(channel=ML_TEAM, text="two", thread_ts=mention["ts"])

    thread = await client.conversations_replies(channel=ML_TEAM, ts=mention["ts"], include_all_metadata=True)

    assert [m["text"] for m in thread["messages"]] == [
        f"{slack.bot_mention} why is train-octobre pending?",
        "one",
        "two",
    ]
    assert thread["messages"][1]["parent_user_id"] == ALICE
    with pytest.raises(SlackApiError, match="thread_not_found"):
        await client.conversations_replies(channel=ML_TEAM, ts="1.000000")


async def test_form_encoded_calls_are_decoded_like_json_ones(slack: FakeSlack, client: AsyncWebClient) -> None:
    blocks = [section("from a form")]

    await client.api_call("chat.postMessage", data={"channel": ML_TEAM, "text": "form", "blocks": json.dumps(blocks)})

    call = await slack.wait_for_call("chat.postMessage")
    assert call.params == {"channel": ML_TEAM, "text": "form", "blocks": blocks}
    assert slack.messages(ML_TEAM)[0].blocks == blocks


async def test_malformed_arguments_get_slacks_format_errors(slack: FakeSlack, client: AsyncWebClient) -> None:
    with pytest.raises(SlackApiError, match="invalid_blocks_format"):
        await client.api_call("chat.postMessage", data={"channel": ML_TEAM, "text": "t", "blocks": "[{"})
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{slack.api_url}chat.postMessage",
            data=b"{not json",
            headers={"Authorization": f"Bearer {BOT_TOKEN}", "Content-Type": "application/json"},
        ) as response,
    ):
        assert await response.json() == {"ok": False, "error": "invalid_json"}


@pytest.mark.parametrize(
    ("params", "error"),
    [
        pytest.param({"channel": "C0NOPE", "text": "hi"}, "channel_not_found", id="unknown-channel"),
        pytest.param({"channel": QUIET, "text": "hi"}, "not_in_channel", id="bot-not-in-public-channel"),
        pytest.param({"channel": SECRET_ROOM, "text": "hi"}, "channel_not_found", id="bot-not-in-private-channel"),
        pytest.param({"channel": ML_TEAM}, "no_text", id="no-text-no-blocks"),
        pytest.param({"channel": ML_TEAM, "text": "x" * 40_001}, "msg_too_long", id="text-over-40000"),
        pytest.param(
            {"channel": ML_TEAM, "text": "t", "blocks": [section("b")] * 51}, "invalid_blocks", id="51-blocks"
        ),
        pytest.param(
            {"channel": ML_TEAM, "text": "t", "blocks": [section("x" * 3001)]}, "invalid_blocks", id="section-3001"
        ),
        pytest.param(
            {"channel": ML_TEAM, "text": "t", "blocks": [header("h" * 151)]},
            "invalid_blocks",
            id="header-151",
        ),
        pytest.param(
            {"channel": ML_TEAM, "text": "t", "blocks": [{"type": "actions", "elements": [button("b" * 76)]}]},
            "invalid_blocks",
            id="button-text-76",
        ),
        pytest.param(
            {"channel": ML_TEAM, "text": "t", "blocks": [{"type": "carousel"}]}, "invalid_blocks", id="unknown-block"
        ),
        pytest.param(
            {"channel": ML_TEAM, "text": "t", "metadata": {"event_type": "x"}},
            "invalid_metadata_format",
            id="metadata-without-payload",
        ),
    ],
)
async def test_post_message_refuses_what_slack_refuses(
    slack: FakeSlack, client: AsyncWebClient, params: JsonDict, error: str
) -> None:
    with pytest.raises(SlackApiError) as raised:
        await client.api_call("chat.postMessage", json=params)

    assert raised.value.response["error"] == error
    assert slack.messages(ML_TEAM) == []


async def test_invalid_blocks_point_at_the_offending_field(client: AsyncWebClient) -> None:
    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel=ML_TEAM, text="t", blocks=[section("ok"), section("x" * 3001)])

    assert raised.value.response["errors"] == ["must be less than 3001 characters [json-pointer:/blocks/1/text/text]"]


async def test_limits_themselves_are_accepted(slack: FakeSlack, client: AsyncWebClient) -> None:
    blocks = [
        header("h" * 150),
        section("x" * 3000),
        {"type": "actions", "elements": [button("b" * 75)]},
        *[{"type": "divider"}] * 47,
    ]

    await client.chat_postMessage(channel=ML_TEAM, text="x" * 40_000, blocks=blocks)

    assert len(slack.messages(ML_TEAM)[0].blocks or []) == 50


async def test_direct_messages_use_a_stable_dm_channel(slack: FakeSlack, client: AsyncWebClient) -> None:
    opened = await client.conversations_open(users=ALICE)
    again = await client.conversations_open(users=ALICE)
    by_user_id = await client.chat_postMessage(channel=ALICE, text="your job was admitted")
    by_dm_id = await client.chat_postMessage(channel=opened["channel"]["id"], text="and it finished")

    dm = slack.dm_channel(ALICE)
    assert dm.startswith("D")
    assert opened["channel"]["id"] == again["channel"]["id"] == dm
    assert again["already_open"] is True
    assert by_user_id["channel"] == by_dm_id["channel"] == dm
    assert [m.text for m in slack.messages(dm)] == ["your job was admitted", "and it finished"]
    with pytest.raises(SlackApiError, match="user_not_found"):
        await client.conversations_open(users="U0GHOST")


async def test_update_edits_the_stored_message_and_keeps_history(slack: FakeSlack, client: AsyncWebClient) -> None:
    metadata = {"event_type": "kueue_explanation", "event_payload": {"state": "pending"}}
    posted = await client.chat_postMessage(channel=ML_TEAM, text="Looking…", metadata=metadata)

    updated = await client.chat_update(
        channel=ML_TEAM, ts=posted["ts"], text="Pending: quota", blocks=[section("*Pending*: quota")]
    )

    message = slack.messages(ML_TEAM)[0]
    assert updated["ts"] == posted["ts"]
    assert updated["message"]["edited"]["ts"] > posted["ts"]
    assert (message.text, message.blocks, message.metadata) == (
        "Pending: quota",
        [section("*Pending*: quota")],
        metadata,
    )
    assert [(r.text, r.blocks) for r in message.edits] == [("Looking…", None)]


async def test_update_refuses_unknown_and_foreign_messages(slack: FakeSlack, client: AsyncWebClient) -> None:
    mention = slack.app_mention_event(ALICE, ML_TEAM, "hello")

    with pytest.raises(SlackApiError, match="message_not_found"):
        await client.chat_update(channel=ML_TEAM, ts="1699999999.000001", text="x")
    with pytest.raises(SlackApiError, match="cant_update_message"):
        await client.chat_update(channel=ML_TEAM, ts=mention["ts"], text="x")


async def test_ephemeral_messages_reach_one_member(slack: FakeSlack, client: AsyncWebClient) -> None:
    answer = await client.chat_postEphemeral(channel=ML_TEAM, user=ALICE, text="only you", thread_ts="1.1")

    (ephemeral,) = slack.ephemerals(ML_TEAM)
    assert (ephemeral.user, ephemeral.text, ephemeral.thread_ts) == (ALICE, "only you", "1.1")
    assert ephemeral.message_ts == answer["message_ts"]
    assert slack.messages(ML_TEAM) == []
    slack.add_user("U0CAROL", name="carol")
    with pytest.raises(SlackApiError, match="user_not_in_channel"):
        await client.chat_postEphemeral(channel=ML_TEAM, user="U0CAROL", text="not here")


async def test_permalink_and_reactions(slack: FakeSlack, client: AsyncWebClient) -> None:
    parent = await client.chat_postMessage(channel=ML_TEAM, text="parent")
    reply = await client.chat_postMessage(channel=ML_TEAM, text="reply", thread_ts=parent["ts"])

    link = await client.chat_getPermalink(channel=ML_TEAM, message_ts=reply["ts"])
    await client.reactions_add(channel=ML_TEAM, timestamp=parent["ts"], name="eyes")

    assert link["permalink"] == (
        f"{slack.identity.team_url}archives/{ML_TEAM}/p{reply['ts'].replace('.', '')}"
        f"?thread_ts={parent['ts']}&cid={ML_TEAM}"
    )
    assert slack.messages(ML_TEAM)[0].reactions == {"eyes": [slack.identity.bot_user_id]}
    with pytest.raises(SlackApiError, match="already_reacted"):
        await client.reactions_add(channel=ML_TEAM, timestamp=parent["ts"], name="eyes")


async def test_membership_can_change_during_a_test(slack: FakeSlack, client: AsyncWebClient) -> None:
    slack.channel(QUIET).bot_is_member = True

    await client.chat_postMessage(channel="#quiet", text="joined")

    assert [m.text for m in slack.messages(QUIET)] == ["joined"]


# -- Web API: users and App Home ------------------------------------------------------------------------------


async def test_users_info_and_lookup_by_email(client: AsyncWebClient) -> None:
    info = await client.users_info(user=ALICE, include_locale=True)
    found = await client.users_lookupByEmail(email="Alice@Example.com")

    user = info["user"]
    assert (user["id"], user["name"], user["real_name"], user["tz"]) == (ALICE, "alice", "Alice Martin", "Europe/Paris")
    assert user["locale"] == "fr-FR"
    assert user["tz_offset"] in (3600, 7200)
    assert user["profile"]["email"] == "alice@example.com"
    assert found["user"]["id"] == ALICE
    assert "locale" not in (await client.users_info(user=BOB))["user"]
    with pytest.raises(SlackApiError, match="user_not_found"):
        await client.users_info(user="U0GHOST")
    with pytest.raises(SlackApiError, match="users_not_found"):
        await client.users_lookupByEmail(email="ghost@example.com")


async def test_views_publish_records_the_home_tab(slack: FakeSlack, client: AsyncWebClient) -> None:
    view = {"type": "home", "blocks": [section("Your pending jobs")]}

    answer = await client.views_publish(user_id=ALICE, view=view)

    assert answer["view"]["type"] == "home"
    home = slack.home_view(ALICE)
    assert home is not None
    assert home["blocks"] == view["blocks"]
    with pytest.raises(SlackApiError, match="invalid_arguments"):
        await client.views_publish(user_id=ALICE, view={"type": "home", "blocks": [section("x")] * 101})


# -- Web API: rate limits, faults, slowness ------------------------------------------------------------------


async def test_rate_limit_raises_by_default_with_retry_after(slack: FakeSlack, client: AsyncWebClient) -> None:
    slack.rate_limit("chat.postMessage", retry_after=7)

    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel=ML_TEAM, text="hi")

    assert raised.value.response.status_code == 429
    assert raised.value.response.headers["Retry-After"] == "7"
    assert raised.value.response["error"] == "ratelimited"


async def test_rate_limit_retry_handler_waits_and_succeeds(slack: FakeSlack) -> None:
    slack.rate_limit("chat.postMessage", retry_after=1, times=1)
    client = AsyncWebClient(
        base_url=slack.api_url, token=BOT_TOKEN, retry_handlers=[AsyncRateLimitErrorRetryHandler(max_retry_count=1)]
    )

    started = time.monotonic()
    answer = await client.chat_postMessage(channel=ML_TEAM, text="eventually")

    assert answer["ok"]
    assert time.monotonic() - started >= 1
    assert [c.status for c in slack.calls("chat.postMessage")] == [429, 200]
    assert [m.text for m in slack.messages(ML_TEAM)] == ["eventually"]


async def test_server_errors_and_their_retry_handler(slack: FakeSlack, client: AsyncWebClient) -> None:
    slack.fail("users.info", status=500, times=2)
    retrying = AsyncWebClient(
        base_url=slack.api_url, token=BOT_TOKEN, retry_handlers=[AsyncServerErrorRetryHandler(max_retry_count=1)]
    )

    with pytest.raises(SlackApiError) as raised:
        await client.users_info(user=ALICE)
    answer = await retrying.users_info(user=ALICE)

    assert raised.value.response.status_code == 500
    assert answer["user"]["id"] == ALICE
    assert [c.status for c in slack.calls("users.info")] == [500, 500, 200]


async def test_slack_level_failures_then_recovery(slack: FakeSlack, client: AsyncWebClient) -> None:
    slack.fail("*", error="invalid_auth", times=1)

    with pytest.raises(SlackApiError, match="invalid_auth"):
        await client.auth_test()
    assert (await client.auth_test())["ok"]
    slack.fail("auth.test", error="token_revoked", times=3)
    slack.clear_faults()
    assert (await client.auth_test())["ok"]


async def test_slow_mode_delays_answers(slack: FakeSlack, client: AsyncWebClient) -> None:
    slack.slow("auth.test", 0.3)

    started = time.monotonic()
    await client.auth_test()

    assert time.monotonic() - started >= 0.3


async def test_waiting_for_a_call_that_never_comes_fails_clearly(slack: FakeSlack, client: AsyncWebClient) -> None:
    await client.auth_test()

    with pytest.raises(AssertionError, match=re.escape("no Web API call #1 matching within 0.05s")):
        await slack.wait_for_call("chat.postMessage", timeout=0.05)
    assert (await slack.wait_for_call("auth.test")).status == 200


# -- HTTP delivery to a Bolt app ------------------------------------------------------------------------------


class Seen:
    """What the test Bolt app's listeners saw."""

    def __init__(self) -> None:
        self.events: list[JsonDict] = []
        self.retry_nums: list[str | None] = []


def bolt_app(slack: FakeSlack, seen: Seen, **options: Any) -> AsyncApp:
    app = AsyncApp(
        client=AsyncWebClient(base_url=slack.api_url, token=BOT_TOKEN), signing_secret=SIGNING_SECRET, **options
    )

    @app.event("app_mention")
    async def on_mention(event: JsonDict, say: AsyncSay, request: AsyncBoltRequest) -> None:
        seen.events.append(event)
        seen.retry_nums.append(request.headers.get("x-slack-retry-num", [None])[0])
        await say(text="Looking into it", thread_ts=event["ts"])

    @app.event("message")
    @app.event("app_home_opened")
    async def on_other_event(event: JsonDict) -> None:
        seen.events.append(event)

    @app.command("/kueue")
    async def on_command(ack: AsyncAck, command: JsonDict, respond: AsyncRespond) -> None:
        await ack("Checking…")
        await respond(text=f"{command['text']} is pending", response_type="in_channel")

    @app.action("retry")
    async def on_retry(ack: AsyncAck, action: JsonDict, respond: AsyncRespond) -> None:
        await ack()
        await respond(text=f"Retried {action['value']}", replace_original=True)

    return app


@asynccontextmanager
async def serve(app: AsyncApp) -> AsyncIterator[str]:
    """The Bolt app on aiohttp, on 127.0.0.1:0; yields its /slack/events URL."""

    async def slack_events(request: web.Request) -> web.Response:
        return await to_aiohttp_response(await app.async_dispatch(await to_bolt_request(request)))

    web_app = web.Application()
    web_app.router.add_post("/slack/events", slack_events)
    runner = web.AppRunner(web_app, shutdown_timeout=1.0)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}/slack/events"
    finally:
        await runner.cleanup()


async def test_a_signed_mention_is_answered_once_in_its_thread(slack: FakeSlack) -> None:
    seen = Seen()
    async with serve(bolt_app(slack, seen)) as url:
        event = slack.app_mention_event(ALICE, ML_TEAM, "why is train-octobre pending?")
        delivery = await slack.deliver_event(url, event)

        reply = await slack.wait_for_call("chat.postMessage")

    assert delivery.status == 200
    assert delivery.elapsed < 3
    assert event["text"] == f"<@{slack.identity.bot_user_id}> why is train-octobre pending?"
    assert reply.params["thread_ts"] == event["ts"]
    assert len(slack.calls("chat.postMessage")) == 1
    assert [m.text for m in slack.thread(ML_TEAM, event["ts"])] == ["Looking into it"]
    assert seen.events[0]["blocks"][0]["elements"][0]["elements"][0] == {
        "type": "user",
        "user_id": slack.identity.bot_user_id,
    }


async def test_retries_carry_slack_retry_headers(slack: FakeSlack) -> None:
    seen = Seen()
    async with serve(bolt_app(slack, seen, process_before_response=True)) as url:
        event = slack.app_mention_event(ALICE, ML_TEAM, "status?")
        first = await slack.deliver_event(url, event, event_id="Ev0RETRY")
        retry = await slack.deliver_event(url, event, event_id="Ev0RETRY", retry_num=1, retry_reason="http_timeout")

    assert (first.event_id, retry.event_id) == ("Ev0RETRY", "Ev0RETRY")
    assert seen.retry_nums == [None, "1"]


@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param({"signing_secret": "not-the-secret"}, id="bad-signature"),
        pytest.param({"timestamp": int(time.time()) - 600}, id="stale-timestamp"),
    ],
)
async def test_badly_signed_requests_get_401(slack: FakeSlack, tamper: JsonDict) -> None:
    seen = Seen()
    async with serve(bolt_app(slack, seen)) as url:
        delivery = await slack.deliver_event(url, slack.app_mention_event(ALICE, ML_TEAM, "hi"), **tamper)

    assert delivery.status == 401
    assert seen.events == []


async def test_url_verification_echoes_the_challenge(slack: FakeSlack) -> None:
    async with serve(bolt_app(slack, Seen())) as url:
        delivery = await slack.deliver_url_verification(url, challenge="c-123")

    assert delivery.status == 200
    assert delivery.json() == {"challenge": "c-123"}


async def test_dm_and_bot_message_events_have_slacks_shapes(slack: FakeSlack, client: AsyncWebClient) -> None:
    seen = Seen()
    async with serve(bolt_app(slack, seen, process_before_response=True)) as url:
        await slack.deliver_event(url, slack.im_event(ALICE, "why ml/train-octobre"))
        await slack.deliver_event(url, slack.bot_message_event(ML_TEAM, "deploy finished"))
        own = await client.chat_postMessage(channel=ALICE, text="I answered")
        own_echo = slack.message_event(slack.messages(own["channel"])[-1])
        await slack.deliver_event(url, own_echo)

    dm, other_bot = seen.events  # Bolt drops the echo of the bot's own message
    assert dm["channel_type"] == "im"
    assert dm["channel"] == slack.dm_channel(ALICE)
    assert (dm["user"], dm["text"], dm["type"]) == (ALICE, "why ml/train-octobre", "message")
    assert (other_bot["subtype"], other_bot["bot_id"], other_bot["channel_type"]) == (
        "bot_message",
        "B0OTHERBOT",
        "channel",
    )
    assert own_echo["bot_id"] == slack.identity.bot_id


async def test_app_home_opened_carries_the_published_view(slack: FakeSlack, client: AsyncWebClient) -> None:
    await client.views_publish(user_id=ALICE, view={"type": "home", "blocks": [section("Your jobs")]})
    seen = Seen()
    async with serve(bolt_app(slack, seen, process_before_response=True)) as url:
        delivery = await slack.deliver_event(url, slack.app_home_opened_event(ALICE))

    (event,) = seen.events
    assert delivery.status == 200
    assert (event["type"], event["user"], event["tab"]) == ("app_home_opened", ALICE, "home")
    assert event["channel"] == slack.dm_channel(ALICE)
    assert event["view"]["blocks"] == [section("Your jobs")]


async def test_slash_command_acks_then_answers_on_its_response_url(slack: FakeSlack) -> None:
    async with serve(bolt_app(slack, Seen())) as url:
        delivery = await slack.deliver_slash_command(
            url, command="/kueue", text="why ml/train-octobre", user_id=ALICE, channel_id=ML_TEAM
        )
        response = await slack.wait_for_response_url()

    assert (delivery.status, delivery.body) == (200, "Checking…")
    assert (response.url, response.status) == (delivery.response_url, 200)
    assert (response.source, response.channel_id, response.user_id) == ("slash_command", ML_TEAM, ALICE)
    assert response.body["response_type"] == "in_channel"
    assert [m.text for m in slack.messages(ML_TEAM)] == ["why ml/train-octobre is pending"]


async def test_response_url_answers_like_slack(slack: FakeSlack) -> None:
    async with serve(bolt_app(slack, Seen())) as url:
        delivery = await slack.deliver_slash_command(url, text="ml/a", user_id=ALICE, channel_id=ML_TEAM)
        await slack.wait_for_response_url()
    assert delivery.response_url is not None
    webhook = AsyncWebhookClient(delivery.response_url)

    private = await webhook.send(text="only you see this")
    refused = await webhook.send(text="t", blocks=[section("x" * 3001)])

    assert (private.status_code, private.body) == (200, "ok")
    assert (refused.status_code, refused.body) == (400, "invalid_blocks")
    assert [r.status for r in slack.responses()] == [200, 200, 400]
    assert [(e.user, e.text) for e in slack.ephemerals(ML_TEAM)] == [(ALICE, "only you see this")]


async def test_block_action_replaces_the_original_message(slack: FakeSlack, client: AsyncWebClient) -> None:
    posted = await client.chat_postMessage(
        channel=ML_TEAM,
        text="Pending",
        blocks=[section("Pending"), {"type": "actions", "block_id": "job", "elements": [button("Retry")]}],
    )
    async with serve(bolt_app(slack, Seen())) as url:
        delivery = await slack.deliver_block_action(
            url, action_id="retry", user_id=BOB, channel_id=ML_TEAM, message_ts=posted["ts"]
        )
        response = await slack.wait_for_response_url()

    assert delivery.status == 200
    assert response.message_ts == posted["ts"]
    (message,) = slack.messages(ML_TEAM)
    assert message.text == "Retried ns/job"
    assert message.edits[0].text == "Pending"


# -- Socket Mode ----------------------------------------------------------------------------------------------


@asynccontextmanager
async def socket_mode(app: AsyncApp, *, ping_interval: float = 10) -> AsyncIterator[AsyncSocketModeHandler]:
    """Bolt's Socket Mode handler; its web client (the app's, base_url = the stand-in) opens the connection."""
    handler = AsyncSocketModeHandler(app, app_token=APP_TOKEN, ping_interval=ping_interval)
    try:
        await handler.connect_async()  # type: ignore[no-untyped-call]
        yield handler
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]


async def test_socket_mode_event_is_acked_and_answered(slack: FakeSlack) -> None:
    seen = Seen()
    async with socket_mode(bolt_app(slack, seen)):
        connection = await slack.wait_for_socket_connection()
        event = slack.app_mention_event(ALICE, ML_TEAM, "why is train-octobre pending?")
        envelope_id = await slack.socket_send(
            "events_api", slack.event_envelope(event), retry_attempt=1, retry_reason="timeout"
        )

        ack = await slack.wait_for_ack(envelope_id)
        reply = await slack.wait_for_call("chat.postMessage")

    assert (ack.payload, ack.connection) == (None, connection.number)
    assert reply.params["thread_ts"] == event["ts"]
    assert seen.retry_nums == ["1"]
    assert slack.calls("apps.connections.open")[0].headers["Authorization"] == f"Bearer {APP_TOKEN}"


async def test_socket_mode_command_ack_carries_the_response(slack: FakeSlack) -> None:
    async with socket_mode(bolt_app(slack, Seen())):
        await slack.wait_for_socket_connection()
        payload = slack.slash_command_payload(text="ml/train-octobre", user_id=ALICE, channel_id=ML_TEAM)
        envelope_id = await slack.socket_send("slash_commands", payload)

        ack = await slack.wait_for_ack(envelope_id)
        response = await slack.wait_for_response_url()

    assert ack.payload == {"text": "Checking…"}
    assert response.body["text"] == "ml/train-octobre is pending"


async def test_socket_mode_reconnects_after_a_disconnect_request(slack: FakeSlack) -> None:
    async with socket_mode(bolt_app(slack, Seen())):
        first = await slack.wait_for_socket_connection()
        await slack.socket_disconnect(reason="refresh_requested")

        second = await slack.wait_for_socket_connection(nth=2)
        await slack.wait_for_socket_close(first)
        envelope_id = await slack.socket_send(
            "events_api", slack.event_envelope(slack.app_mention_event(ALICE, ML_TEAM, "still there?"))
        )
        ack = await slack.wait_for_ack(envelope_id)

    await slack.wait_for_socket_close(second)  # close_async() says goodbye properly
    assert ack.connection == second.number == 2
    assert slack.socket_connections == [first, second]
    assert len(slack.calls("apps.connections.open")) == 2


async def test_socket_mode_reconnects_after_the_connection_drops(slack: FakeSlack, client: AsyncWebClient) -> None:
    posted = await client.chat_postMessage(
        channel=ML_TEAM, text="Pending", blocks=[{"type": "actions", "elements": [button("Retry")]}]
    )
    async with socket_mode(bolt_app(slack, Seen()), ping_interval=0.2):
        first = await slack.wait_for_socket_connection()
        slack.socket_drop()

        await slack.wait_for_socket_close(first)
        await slack.wait_for_socket_connection(nth=2)
        click = slack.block_action_payload(action_id="retry", user_id=BOB, channel_id=ML_TEAM, message_ts=posted["ts"])
        envelope_id = await slack.socket_send("interactive", click)
        ack = await slack.wait_for_ack(envelope_id)
        await slack.wait_for_response_url()

    assert ack.connection == 2
    assert slack.messages(ML_TEAM)[0].text == "Retried ns/job"


async def test_the_websocket_speaks_slacks_protocol(slack: FakeSlack) -> None:
    opened = await AsyncWebClient(base_url=slack.api_url).apps_connections_open(app_token=APP_TOKEN)

    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(opened["url"].replace("ticket=", "ticket=forged"))
        async with session.ws_connect(opened["url"], autoping=False) as ws:
            hello = await ws.receive_json()
            await ws.ping(b"sdk-ping-pong:1")
            pong = await ws.receive()
            envelope_id = await slack.socket_send("events_api", {"type": "event_callback"})
            envelope = await ws.receive_json()
            await ws.send_json({"envelope_id": envelope_id})
            await slack.wait_for_ack(envelope_id)

    assert opened["url"].startswith("ws://127.0.0.1:")
    assert refused.value.status == 401
    assert hello == {
        "type": "hello",
        "num_connections": 1,
        "debug_info": {"host": "applink-fake-1", "build_number": 1, "approximate_connection_time": 18060},
        "connection_info": {"app_id": slack.identity.app_id},
    }
    assert (pong.type, pong.data) == (aiohttp.WSMsgType.PONG, b"sdk-ping-pong:1")
    assert envelope == slack.socket_envelopes[0].to_frame()
    assert envelope == {
        "envelope_id": envelope_id,
        "type": "events_api",
        "payload": {"type": "event_callback"},
        "accepts_response_payload": False,
        "retry_attempt": 0,
        "retry_reason": "",
    }
