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

FakeSlack is put together from parts: this module (the workspace's state, the Web API, recorded calls,
faults), bot.standin.traffic (events and interactions POSTed to the app, response_url sinks) and
bot.standin.socket_mode (the Socket Mode websocket and the test's side of it).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Self

import aiohttp
from aiohttp import web

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
from bot.standin.socket_mode import SocketModeDriver, SocketModeHub
from bot.standin.traffic import AppTraffic, Delivery, Origin, ResponseUrlPost
from bot.standin.web import SlackError, WebApi

__all__ = ["Call", "Delivery", "FakeSlack", "ResponseUrlPost"]

# Arguments Slack takes as JSON; a form carries them URL-encoded. Recorded calls hold them decoded.
_JSON_ARGS = frozenset({"attachments", "blocks", "metadata", "view"})
_APP_TOKEN_METHODS = frozenset({"apps.connections.open"})
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


@dataclass
class _Fault:
    remaining: int
    status: int = 200
    error: str | None = None
    retry_after: int | None = None


class FakeSlack(AppTraffic, SocketModeDriver):
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
        self._response_urls: dict[str, Origin] = {}
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
        timeout: float = 60,  # noqa: ASYNC109 - the waiting is the point; an expired wait fails the test (a hang's bound)
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
