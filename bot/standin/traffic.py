"""Slack -> app traffic of the stand-in (a part of FakeSlack): the events and interactions people cause,
POSTed to the app signed as Slack signs them, and the response_url sinks where the app answers a slash command
or a click."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import aiohttp
from aiohttp import web

from bot.standin import payloads
from bot.standin.blocks import block_errors
from bot.standin.model import Ephemeral, Identity, JsonDict, Message, Recorder, Workspace

VERIFICATION_TOKEN = "fake-verification-token"


@dataclass(frozen=True)
class Delivery:
    """The app's answer to something the stand-in POSTed to it."""

    status: int
    body: str
    headers: dict[str, str]
    elapsed: float
    event_id: str | None = None
    response_url: str | None = None

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class ResponseUrlPost:
    """A POST an app made to a response_url, with where that response_url came from."""

    url: str
    body: JsonDict
    status: int  # 400 when Slack would refuse it (invalid_blocks, no_text, invalid_payload)
    source: str  # "slash_command" or "block_actions"
    channel_id: str
    user_id: str
    message_ts: str | None


@dataclass(frozen=True)
class Origin:
    source: str
    channel_id: str
    user_id: str
    message_ts: str | None


class AppTraffic:
    """What people do in Slack, delivered to the app; and what the app POSTs to the response_urls it was given.
    FakeSlack provides the state it works on."""

    identity: Identity
    signing_secret: str
    _workspace: Workspace
    _responses: Recorder[ResponseUrlPost]
    _response_urls: dict[str, Origin]
    _ids: itertools.count[int]
    _base_url: str
    _http: aiohttp.ClientSession | None

    if TYPE_CHECKING:

        def dm_channel(self, user_id: str) -> str: ...

        @property
        def bot_mention(self) -> str: ...

        def _touch(self) -> None: ...

    # -- response_url ----------------------------------------------------------------------------------------

    def _new_response_url(self, origin: Origin) -> str:
        key = uuid.uuid4().hex
        self._response_urls[key] = origin
        return f"{self._base_url}/response-url/{key}"

    async def _handle_response_url(self, request: web.Request) -> web.Response:
        origin = self._response_urls.get(request.match_info["key"])
        if origin is None:
            return web.Response(status=404, text="no_service")
        try:
            body = await request.json()
        except json.JSONDecodeError:
            body = None
        problem = self._apply_response(origin, body) if isinstance(body, dict) else "invalid_payload"
        status = 200 if problem is None else 400
        self._responses.add(
            ResponseUrlPost(
                str(request.url),
                body if isinstance(body, dict) else {},
                status,
                origin.source,
                origin.channel_id,
                origin.user_id,
                origin.message_ts,
            )
        )
        self._touch()
        return web.Response(status=status, text=problem or "ok")

    def _apply_response(self, origin: Origin, body: JsonDict) -> str | None:
        """What a response_url POST does to the conversation, or why Slack would refuse it."""
        ws = self._workspace
        text, blocks = body.get("text", ""), body.get("blocks")
        if blocks is not None and block_errors(blocks):
            return "invalid_blocks"
        original = ws.find_message(origin.channel_id, origin.message_ts) if origin.message_ts else None
        if original is not None and body.get("delete_original"):
            ws.messages[origin.channel_id].remove(original)
        elif not text and not blocks:
            return "no_text"
        elif original is not None and body.get("replace_original"):
            original.edit(text=text, blocks=blocks, metadata=original.metadata, edited_ts=ws.next_ts())
        elif body.get("response_type") == "in_channel":
            me = self.identity
            ws.store(
                Message(
                    channel=origin.channel_id,
                    ts=ws.next_ts(),
                    text=text,
                    blocks=blocks,
                    user=me.bot_user_id,
                    bot_id=me.bot_id,
                    app_id=me.app_id,
                    thread_ts=body.get("thread_ts"),
                )
            )
        else:
            ws.ephemerals.append(
                Ephemeral(origin.channel_id, origin.user_id, ws.next_ts(), text, blocks, body.get("thread_ts"))
            )
        return None

    def responses(self) -> list[ResponseUrlPost]:
        return list(self._responses.items)

    async def wait_for_response_url(
        self,
        predicate: Callable[[ResponseUrlPost], bool] | None = None,
        *,
        timeout: float = 5,  # noqa: ASYNC109
        nth: int = 1,
    ) -> ResponseUrlPost:
        return await self._responses.wait(predicate, timeout=timeout, nth=nth)

    # -- what people do: events and interactions -------------------------------------------------------------

    def app_mention_event(self, user_id: str, channel_id: str, text: str, *, thread_ts: str | None = None) -> JsonDict:
        """`user_id` mentions the bot in a channel: the message is stored and its app_mention event returned.
        The mention is put in front of `text` unless `text` already has it (see `bot_mention`)."""
        if self.bot_mention not in text:
            text = f"{self.bot_mention} {text}"
        message = payloads.user_message(self._workspace, user_id, channel_id, text, thread_ts=thread_ts)
        return payloads.app_mention_event(self._workspace, message)

    def im_event(self, user_id: str, text: str, *, thread_ts: str | None = None) -> JsonDict:
        """`user_id` writes to the bot in their DM (a message.im event, channel_type "im")."""
        channel_id = self.dm_channel(user_id)
        message = payloads.user_message(self._workspace, user_id, channel_id, text, thread_ts=thread_ts)
        return payloads.message_event(self._workspace, message)

    def bot_message_event(
        self, channel_id: str, text: str, *, bot_id: str = "B0OTHERBOT", username: str = "other-bot"
    ) -> JsonDict:
        """Another app's bot posts in a channel (a message event with subtype bot_message and bot_id)."""
        message = payloads.bot_message(self._workspace, channel_id, text, bot_id=bot_id, username=username)
        return payloads.message_event(self._workspace, message)

    def message_event(self, message: Message) -> JsonDict:
        """The message event of a stored message, e.g. the echo of what the bot itself posted in a DM."""
        return payloads.message_event(self._workspace, message)

    def app_home_opened_event(self, user_id: str, *, tab: str = "home") -> JsonDict:
        return payloads.app_home_opened_event(self._workspace, user_id, tab=tab)

    def event_envelope(self, event: JsonDict, *, event_id: str | None = None) -> JsonDict:
        """The event_callback wrapper Slack puts around an event (also the Socket Mode events_api payload)."""
        return payloads.event_callback(
            self.identity,
            event,
            event_id=event_id or f"Ev{next(self._ids):08X}",
            verification_token=VERIFICATION_TOKEN,
        )

    def slash_command_payload(
        self, *, command: str = "/kueue", text: str = "", user_id: str, channel_id: str
    ) -> dict[str, str]:
        """A slash command's fields, with a response_url that records what the app POSTs to it."""
        return payloads.slash_command(
            self._workspace,
            command=command,
            text=text,
            user_id=user_id,
            channel_id=channel_id,
            response_url=self._new_response_url(Origin("slash_command", channel_id, user_id, None)),
            trigger_id=self._trigger_id(),
            verification_token=VERIFICATION_TOKEN,
        )

    def block_action_payload(
        self, *, action_id: str, user_id: str, channel_id: str, message_ts: str, value: str | None = None
    ) -> JsonDict:
        """`user_id` clicks the element `action_id` of a stored message; `value` defaults to the element's."""
        message = self._workspace.find_message(channel_id, message_ts)
        if message is None:
            raise KeyError(f"no message {message_ts} in {channel_id}")
        return payloads.block_actions(
            self._workspace,
            action_id=action_id,
            value=value,
            user_id=user_id,
            message=message,
            response_url=self._new_response_url(Origin("block_actions", channel_id, user_id, message_ts)),
            trigger_id=self._trigger_id(),
            verification_token=VERIFICATION_TOKEN,
        )

    def _trigger_id(self) -> str:
        return f"{next(self._ids)}.{self.identity.team_id}.{uuid.uuid4().hex}"

    # -- delivery to an app over HTTP ------------------------------------------------------------------------

    async def deliver_event(
        self,
        url: str,
        event: JsonDict,
        *,
        event_id: str | None = None,
        retry_num: int | None = None,
        retry_reason: str | None = None,
        timestamp: int | None = None,
        signing_secret: str | None = None,
    ) -> Delivery:
        """POST an event_callback to the app, signed; a retry carries X-Slack-Retry-Num/-Reason.
        `timestamp` (e.g. 10 minutes ago) and `signing_secret` (a wrong one) make bad requests."""
        envelope = self.event_envelope(event, event_id=event_id)
        headers = {}
        if retry_num is not None:
            headers["X-Slack-Retry-Num"] = str(retry_num)
            headers["X-Slack-Retry-Reason"] = retry_reason or "http_timeout"
        delivery = await self._post_signed(
            url, json.dumps(envelope), "application/json", headers, timestamp=timestamp, signing_secret=signing_secret
        )
        return replace(delivery, event_id=envelope["event_id"])

    async def deliver_url_verification(self, url: str, *, challenge: str = "3eZbrw1aBm2rZgRNFdxV") -> Delivery:
        body = payloads.url_verification(challenge, verification_token=VERIFICATION_TOKEN)
        return await self._post_signed(url, json.dumps(body), "application/json", {})

    async def deliver_slash_command(
        self,
        url: str,
        *,
        command: str = "/kueue",
        text: str = "",
        user_id: str,
        channel_id: str,
        timestamp: int | None = None,
        signing_secret: str | None = None,
    ) -> Delivery:
        """POST a slash command, form-encoded and signed; `Delivery.response_url` is where the app may answer."""
        fields = self.slash_command_payload(command=command, text=text, user_id=user_id, channel_id=channel_id)
        delivery = await self._post_signed(
            url,
            urlencode(fields),
            "application/x-www-form-urlencoded",
            {},
            timestamp=timestamp,
            signing_secret=signing_secret,
        )
        return replace(delivery, response_url=fields["response_url"])

    async def deliver_block_action(
        self,
        url: str,
        *,
        action_id: str,
        user_id: str,
        channel_id: str,
        message_ts: str,
        value: str | None = None,
    ) -> Delivery:
        """POST a block_actions interaction (form field `payload=<json>`), signed."""
        payload = self.block_action_payload(
            action_id=action_id, user_id=user_id, channel_id=channel_id, message_ts=message_ts, value=value
        )
        body = urlencode({"payload": json.dumps(payload)})
        delivery = await self._post_signed(url, body, "application/x-www-form-urlencoded", {})
        return replace(delivery, response_url=payload["response_url"])

    async def deliver_raw(self, url: str, body: str, content_type: str = "application/json") -> Delivery:
        """POST any body to the app, signed as Slack signs: what a signed but malformed request gets."""
        return await self._post_signed(url, body, content_type, {})

    async def deliver_message_action(
        self, url: str, *, callback_id: str, user_id: str, channel_id: str, text: str, ts: str
    ) -> Delivery:
        """POST a message shortcut (`message_action`) used by `user_id` on a message of `text` posted at `ts`."""
        payload = payloads.message_action(
            self._workspace,
            callback_id=callback_id,
            user_id=user_id,
            channel_id=channel_id,
            message={"user": user_id, "ts": ts, "text": text},
            response_url=self._new_response_url(Origin("message_action", channel_id, user_id, ts)),
            trigger_id=self._trigger_id(),
            verification_token=VERIFICATION_TOKEN,
        )
        body = urlencode({"payload": json.dumps(payload)})
        delivery = await self._post_signed(url, body, "application/x-www-form-urlencoded", {})
        return replace(delivery, response_url=payload["response_url"])

    def sign(self, body: str, timestamp: int, *, signing_secret: str | None = None) -> str:
        """X-Slack-Signature for `body`: v0= + HMAC-SHA256 of "v0:{timestamp}:{body}"."""
        secret = (signing_secret or self.signing_secret).encode()
        return "v0=" + hmac.new(secret, f"v0:{timestamp}:{body}".encode(), hashlib.sha256).hexdigest()

    async def _post_signed(
        self,
        url: str,
        body: str,
        content_type: str,
        headers: dict[str, str],
        *,
        timestamp: int | None = None,
        signing_secret: str | None = None,
    ) -> Delivery:
        assert self._http is not None, "use FakeSlack in `async with`"
        stamp = int(time.time()) if timestamp is None else timestamp
        headers = {
            **headers,
            "Content-Type": content_type,
            "User-Agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
            "X-Slack-Request-Timestamp": str(stamp),
            "X-Slack-Signature": self.sign(body, stamp, signing_secret=signing_secret),
        }
        started = time.monotonic()
        async with self._http.post(url, data=body.encode(), headers=headers) as response:
            text = await response.text()
        return Delivery(response.status, text, dict(response.headers), time.monotonic() - started)
