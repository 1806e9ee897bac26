"""A local Slack stand-in for integration tests and the terminal demo.

    async with FakeSlack(bot_token="xoxb-test", app_token="xapp-test", signing_secret="s3cr3t") as slack:
        slack.add_user("U1", name="alice", email="alice@example.com", tz="Europe/Paris", locale="fr-FR")
        slack.add_channel("C1", "ml-team", members=["U1"])
        client = AsyncWebClient(base_url=slack.api_url, token="xoxb-test")
        await slack.deliver_event(bot_url, slack.app_mention_event("U1", "C1", "why is train-octobre pending?"))
        call = await slack.wait_for_call("chat.postMessage")

One aiohttp server on 127.0.0.1 (port 0) serves the Web API under `/api/<method>`, response_url sinks and the
Socket Mode websocket. Slack -> app traffic (events, slash commands, block actions) is POSTed to a URL the test
gives, signed as Slack signs it. Every Web API call, ack and response_url POST is recorded and can be awaited.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import itertools
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlencode

import aiohttp
from aiohttp import web

from bot.standin import payloads
from bot.standin.blocks import block_errors
from bot.standin.model import (
    Channel,
    Ephemeral,
    Identity,
    JsonDict,
    Message,
    Recorder,
    User,
    Workspace,
)
from bot.standin.socket_mode import Ack, Envelope, EnvelopeKind, SocketConnection, SocketModeHub
from bot.standin.web import SlackError, WebApi

__all__ = ["Call", "Delivery", "FakeSlack", "ResponseUrlPost"]

# Arguments Slack takes as JSON; a form carries them URL-encoded. Recorded calls hold them decoded.
_JSON_ARGS = frozenset({"attachments", "blocks", "metadata", "view"})
_APP_TOKEN_METHODS = frozenset({"apps.connections.open"})
_VERIFICATION_TOKEN = "fake-verification-token"
_ANY_METHOD = "*"


@dataclass(frozen=True)
class Call:
    """One Web API request and the answer the stand-in gave."""

    method: str
    params: JsonDict
    headers: dict[str, str]
    http_method: str
    status: int
    response: JsonDict | None


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
class _Origin:
    source: str
    channel_id: str
    user_id: str
    message_ts: str | None


@dataclass
class _Fault:
    remaining: int
    status: int = 200
    error: str | None = None
    retry_after: int | None = None


class FakeSlack:
    def __init__(
        self,
        *,
        bot_token: str = "xoxb-test",
        app_token: str = "xapp-test",
        signing_secret: str = "s3cr3t",
        identity: Identity | None = None,
    ) -> None:
        self.bot_token = bot_token
        self.app_token = app_token
        self.signing_secret = signing_secret
        self.identity = identity or Identity()
        self._workspace = Workspace(self.identity)
        self._socket = SocketModeHub(self.identity.app_id)
        self._web = WebApi(self._workspace, open_socket_url=self._socket.issue_url)
        self._calls: Recorder[Call] = Recorder("Web API call")
        self._responses: Recorder[ResponseUrlPost] = Recorder("response_url POST")
        self._response_urls: dict[str, _Origin] = {}
        self._faults: dict[str, list[_Fault]] = {}
        self._delays: dict[str, float] = {}
        self._ids = itertools.count(1)
        self._activity = 0
        self._activity_changed = asyncio.Event()
        self._base_url = ""
        self._runner: web.AppRunner | None = None
        self._http: aiohttp.ClientSession | None = None

    # -- lifecycle -------------------------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._handle_web_api)
        app.router.add_post("/response-url/{key}", self._handle_response_url)
        app.router.add_get("/socket-mode", self._socket.handle)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        host, port = self._runner.addresses[0][:2]
        self._base_url = f"http://{host}:{port}"
        self._socket.listen_at(f"ws://{host}:{port}")
        self._http = aiohttp.ClientSession()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._socket.close()
        if self._http is not None:
            await self._http.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        """The Web API base URL, with the trailing slash slack_sdk's `base_url` expects."""
        return f"{self._base_url}/api/"

    # -- seeding and state -----------------------------------------------------------------------------------

    def add_user(
        self,
        user_id: str,
        *,
        name: str,
        real_name: str | None = None,
        email: str | None = None,
        tz: str = "UTC",
        locale: str = "en-US",
    ) -> User:
        return self._workspace.add_user(user_id, name=name, real_name=real_name, email=email, tz=tz, locale=locale)

    def add_channel(
        self,
        channel_id: str,
        name: str,
        *,
        members: list[str] | None = None,
        bot_is_member: bool = True,
        is_private: bool = False,
    ) -> Channel:
        """A channel; change membership later through the returned object (`channel.bot_is_member = False`)."""
        return self._workspace.add_channel(
            channel_id, name, members=members or [], bot_is_member=bot_is_member, is_private=is_private
        )

    def channel(self, channel_id: str) -> Channel:
        return self._workspace.channel(channel_id)

    def dm_channel(self, user_id: str) -> str:
        """The ID of the bot's DM with `user_id`, the one conversations.open returns."""
        self._workspace.user(user_id)
        return self._workspace.open_dm(user_id)[0].id

    @property
    def bot_mention(self) -> str:
        return f"<@{self.identity.bot_user_id}>"

    def messages(self, channel_id: str) -> list[Message]:
        """Every message of a conversation, thread replies included, oldest first."""
        return list(self._workspace.messages.get(channel_id, []))

    def thread(self, channel_id: str, thread_ts: str) -> list[Message]:
        """The replies in a thread, oldest first (without the parent)."""
        return self._workspace.replies(channel_id, thread_ts)

    def ephemerals(self, channel_id: str | None = None) -> list[Ephemeral]:
        return [e for e in self._workspace.ephemerals if channel_id is None or e.channel == channel_id]

    def home_view(self, user_id: str) -> JsonDict | None:
        """The App Home view last published for `user_id`."""
        return self._workspace.home_views.get(user_id)

    # -- recorded calls --------------------------------------------------------------------------------------

    def calls(self, method: str | None = None) -> list[Call]:
        return [c for c in self._calls.items if method is None or c.method == method]

    async def wait_for_call(
        self,
        method: str,
        predicate: Callable[[Call], bool] | None = None,
        *,
        timeout: float = 5,  # noqa: ASYNC109 - the waiting is the point; an expired wait fails the test
        nth: int = 1,
    ) -> Call:
        """The `nth` call of `method` ("*": any) matching `predicate`, already made or still to come."""
        return await self._calls.wait(
            lambda c: method in ("*", c.method) and (predicate is None or predicate(c)), timeout=timeout, nth=nth
        )

    # -- activity: anything the app did ----------------------------------------------------------------------

    @property
    def activity(self) -> int:
        """How many requests the app made so far (Web API calls and response_url POSTs): a cursor."""
        return self._activity

    async def wait_for_activity(self, after: int, *, timeout: float | None = None) -> int:  # noqa: ASYNC109
        """Wait until the app made more than `after` requests; returns the new count. TimeoutError after
        `timeout` seconds (None: wait as long as it takes)."""
        async with asyncio.timeout(timeout):
            while self._activity <= after:
                await self._activity_changed.wait()
        return self._activity

    def _touch(self) -> None:
        self._activity += 1
        self._activity_changed.set()
        self._activity_changed = asyncio.Event()

    # -- faults ----------------------------------------------------------------------------------------------

    def rate_limit(self, method: str, *, retry_after: int = 1, times: int = 1) -> None:
        """The next `times` calls of `method` ("*": any) get HTTP 429, Retry-After and error ratelimited."""
        self._add_fault(method, _Fault(times, status=429, error="ratelimited", retry_after=retry_after))

    def fail(self, method: str, *, status: int = 200, error: str | None = None, times: int = 1) -> None:
        """The next `times` calls of `method` ("*": any) fail: an HTTP `status` >= 500 with an HTML page,
        or HTTP 200 with {"ok": false, "error": error}."""
        if (status >= 500) == (error is not None):
            raise ValueError("give either a 5xx status or a Slack error")
        self._add_fault(method, _Fault(times, status=status, error=error))

    def slow(self, method: str, seconds: float) -> None:
        """Answer every call of `method` ("*": any) `seconds` late; 0 makes it fast again."""
        self._delays[method] = seconds

    def clear_faults(self) -> None:
        self._faults.clear()
        self._delays.clear()

    def _add_fault(self, method: str, fault: _Fault) -> None:
        self._faults.setdefault(method, []).append(fault)

    def _take_fault(self, method: str) -> _Fault | None:
        for key in (method, _ANY_METHOD):
            queue = self._faults.get(key)
            if queue:
                fault = queue[0]
                fault.remaining -= 1
                if fault.remaining <= 0:
                    queue.pop(0)
                return fault
        return None

    # -- the Web API -----------------------------------------------------------------------------------------

    async def _handle_web_api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        try:
            params = await _read_params(request)
        except json.JSONDecodeError:
            params = {}
            response = web.json_response(SlackError("invalid_json").body())
        else:
            token = _bearer_token(request) or params.pop("token", None)
            response = await self._answer(method, params, token)
        body = json.loads(response.text) if response.content_type == "application/json" and response.text else None
        self._calls.add(Call(method, params, dict(request.headers), request.method, response.status, body))
        self._touch()
        return response

    async def _answer(self, method: str, params: JsonDict, token: str | None) -> web.Response:
        delay = self._delays.get(method, self._delays.get(_ANY_METHOD, 0.0))
        if delay:
            await asyncio.sleep(delay)
        fault = self._take_fault(method)
        if fault is not None and fault.retry_after is not None:
            return web.json_response(
                {"ok": False, "error": fault.error}, status=429, headers={"Retry-After": str(fault.retry_after)}
            )
        if fault is not None and fault.status >= 500:
            return web.Response(
                status=fault.status, text=f"<html><body><h1>{fault.status}</h1></body></html>", content_type="text/html"
            )
        try:
            if fault is not None and fault.error is not None:
                raise SlackError(fault.error)
            self._authenticate(method, token)
            if not self._web.knows(method):
                raise SlackError("unknown_method", req_method=method)
            return web.json_response({"ok": True, **self._web.call(method, params)})
        except SlackError as e:
            return web.json_response(e.body())

    def _authenticate(self, method: str, token: str | None) -> None:
        if not token:
            raise SlackError("not_authed")
        if token not in (self.bot_token, self.app_token):
            raise SlackError("invalid_auth")
        if (token == self.app_token) != (method in _APP_TOKEN_METHODS):
            raise SlackError("not_allowed_token_type")

    # -- response_url ----------------------------------------------------------------------------------------

    def _new_response_url(self, origin: _Origin) -> str:
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

    def _apply_response(self, origin: _Origin, body: JsonDict) -> str | None:
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
            verification_token=_VERIFICATION_TOKEN,
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
            response_url=self._new_response_url(_Origin("slash_command", channel_id, user_id, None)),
            trigger_id=self._trigger_id(),
            verification_token=_VERIFICATION_TOKEN,
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
            response_url=self._new_response_url(_Origin("block_actions", channel_id, user_id, message_ts)),
            trigger_id=self._trigger_id(),
            verification_token=_VERIFICATION_TOKEN,
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
        body = payloads.url_verification(challenge, verification_token=_VERIFICATION_TOKEN)
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

    # -- Socket Mode -----------------------------------------------------------------------------------------

    @property
    def socket_connections(self) -> list[SocketConnection]:
        """Every websocket clients opened, in order, open or closed."""
        return list(self._socket.connections.items)

    @property
    def socket_envelopes(self) -> list[Envelope]:
        """Every envelope sent to a client, in order."""
        return list(self._socket.envelopes)

    async def wait_for_socket_connection(self, nth: int = 1, *, timeout: float = 5) -> SocketConnection:  # noqa: ASYNC109
        """The `nth` websocket a client opened (1: the first; after a reconnect, 2)."""
        return await self._socket.connections.wait(None, timeout=timeout, nth=nth)

    async def wait_for_socket_close(self, connection: SocketConnection, *, timeout: float = 5) -> None:  # noqa: ASYNC109
        await self._socket.closures.wait(lambda c: c is connection, timeout=timeout)

    async def socket_send(
        self,
        kind: EnvelopeKind,
        payload: JsonDict,
        *,
        retry_attempt: int = 0,
        retry_reason: str = "",
        accepts_response_payload: bool | None = None,
    ) -> str:
        """Send an envelope to the newest connected client; returns its envelope_id."""
        return await self._socket.send(
            kind,
            payload,
            retry_attempt=retry_attempt,
            retry_reason=retry_reason,
            accepts_response_payload=accepts_response_payload,
        )

    async def wait_for_ack(self, envelope_id: str, *, timeout: float = 5) -> Ack:  # noqa: ASYNC109
        return await self._socket.acks.wait(lambda a: a.envelope_id == envelope_id, timeout=timeout)

    async def socket_disconnect(self, reason: str = "refresh_requested") -> SocketConnection:
        """Ask the newest client to reconnect, as Slack does ("warning", "refresh_requested", ...)."""
        return await self._socket.disconnect(reason)

    def socket_drop(self) -> SocketConnection:
        """Cut the newest client's connection abruptly (no close frame)."""
        return self._socket.drop()


async def _read_params(request: web.Request) -> JsonDict:
    params: JsonDict = dict(request.query)
    if request.content_type == "application/json":
        body = await request.json()
        if isinstance(body, dict):
            params.update(body)
    elif request.can_read_body:
        params.update((key, value) for key, value in (await request.post()).items() if isinstance(value, str))
    for name in _JSON_ARGS & params.keys():
        if isinstance(params[name], str):
            # Undecodable JSON stays as sent; the method then answers with Slack's *_format error.
            with contextlib.suppress(json.JSONDecodeError):
                params[name] = json.loads(params[name])
    return params


def _bearer_token(request: web.Request) -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
