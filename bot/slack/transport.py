"""How Slack's traffic reaches the Bolt app: the Events API over HTTP (an aiohttp handler for POST /slack/events,
behind `bot.slack.gate`) or a Socket Mode connection, supervised. The composition root mounts and starts these
without importing Slack's libraries.

Socket Mode, supervised: the tokens checked once before connecting (a refused token is one clear line and
the process ends, instead of a traceback per retry for ever), reconnection left to slack_sdk (one attempt every
`ping_interval` seconds: bounded), its retry tracebacks cut to one line, and the connection's state readable
(`connected`, `down_for`) for /readyz, /healthz and /metrics."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from aiohttp import ClientError, web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.errors import BotError
from bot.httpguard import BodyRefused, read_body
from bot.slack.app import SlackBot
from bot.slack.calls import BoundedClient
from bot.slack.failures import TOKEN_REFUSED, token_refusal
from bot.slack.gate import Rejected
from bot.slack.shape import malformed

# What the Web API client raises when Slack is out of reach (the messenger turns these into SlackUnavailable).
HTTP_CLIENT_ERRORS: tuple[type[Exception], ...] = (ClientError,)


log = logging.getLogger(__name__)

_UNREADABLE = (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError)

_SDK_LOGGERS = ("slack_sdk.socket_mode.aiohttp", "slack_bolt.AsyncApp", "slack_sdk.socket_mode.async_client")


def events_handler(bot: SlackBot) -> Callable[[web.Request], Awaitable[web.Response]]:
    """POST /slack/events: the door (body read in time, signature, freshness, replay) before Bolt reads
    anything; every refusal one log line and a bare status, never a traceback."""

    async def slack_events(request: web.Request) -> web.Response:
        try:
            body = await read_body(request, timeout=bot.body_timeout)
            headers = request.headers
            await bot.door.check(headers.get("X-Slack-Request-Timestamp"), headers.get("X-Slack-Signature"), body)
            text = body.decode("utf-8")
        except (BodyRefused, Rejected) as refused:
            log.info("slack: request refused", extra={"status": refused.status, "reason": str(refused)})
            return web.Response(status=refused.status)
        except UnicodeDecodeError:
            log.info("slack: request refused", extra={"status": 400, "reason": "body not UTF-8"})
            return web.Response(status=400)
        why = malformed(text, request.content_type)
        if why is not None:  # signed, yet not a payload of Slack's shape
            log.info("slack: request refused", extra={"status": 400, "reason": why})
            return web.Response(status=400)
        try:
            bolt_request = AsyncBoltRequest(body=text, query=request.query_string, headers=dict(request.headers))
            return await to_aiohttp_response(await bot.app.async_dispatch(bolt_request))
        except _UNREADABLE as error:  # signed and of Slack's shape, yet not a payload Bolt can read
            log.info("slack: request refused", extra={"status": 400, "reason": f"unreadable: {type(error).__name__}"})
            return web.Response(status=400)

    return slack_events


class SlackTokenRefused(BotError):
    """Slack refused one of the bot's tokens: nothing can work until it is replaced."""


class _OneLine(logging.Filter):
    """slack_sdk logs a full traceback at each failed reconnection: keep the message, drop the traceback. Its
    lines about a refused token are dropped: the bot says that once, itself (SocketConnection)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if "Failed to" in record.getMessage() and any(code in record.getMessage() for code in TOKEN_REFUSED):
            return False
        if record.exc_info and "Failed to" in record.getMessage():
            error = record.exc_info[1]
            record.msg = f"{record.getMessage()} ({type(error).__name__})"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True


async def check_tokens(client: AsyncWebClient, app_token: str) -> str:
    """The Socket Mode URL, once both tokens are accepted; SlackTokenRefused (one line) when one is not.
    Other failures (Slack out of reach) are left to the reconnection loop: an empty string."""
    url = ""
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"):
        try:
            if name == "SLACK_BOT_TOKEN":
                await client.auth_test()
            else:
                url = str((await client.apps_connections_open(app_token=app_token)).get("url") or "")
        except SlackApiError as error:
            code = str(error.response.get("error", "")) if error.response is not None else ""
            if token_refusal("apps.connections.open" if name == "SLACK_APP_TOKEN" else "auth.test", code):
                raise SlackTokenRefused(f"Slack refused {name} ({code}): set a valid token and start again") from None
            log.warning("slack: token check failed; connecting anyway", extra={"token": name, "error": code})
            return ""
        except Exception as error:  # noqa: BLE001 - Slack out of reach: the connection loop retries
            log.warning("slack: out of reach; retrying", extra={"error": type(error).__name__})
            return ""
    return url


class SocketConnection:
    """The Socket Mode connection. A token Slack refuses once connected (revoked while the bot runs) is one
    ERROR line: slack_sdk's own reconnection (and its lines) stop, the tokens are checked again after
    `backoff` seconds, twice as long each time up to `backoff_cap`, and the connection is made again once
    Slack accepts them; meanwhile /readyz says why it is not ready (`refused`)."""

    backoff: float = 30.0
    backoff_cap: float = 600.0

    def __init__(
        self, app: AsyncApp, app_token: str, client: AsyncWebClient, *, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._app_token = app_token
        self._client = client
        self._monotonic = monotonic
        self._since = monotonic()  # when it went down (or started)
        self._was_connected = False
        self._running = False
        self._recovery: asyncio.Task[None] | None = None
        self.handler = AsyncSocketModeHandler(app, app_token=app_token, web_client=client)
        for name in _SDK_LOGGERS:
            logger = logging.getLogger(name)
            if not any(isinstance(f, _OneLine) for f in logger.filters):
                logger.addFilter(_OneLine())
        if isinstance(client, BoundedClient):
            client.tokens.listeners.append(self._refused)

    async def connect(self) -> None:
        """Check the tokens (SlackTokenRefused), then connect; returns once connected."""
        url = await check_tokens(self._client, self._app_token)
        if url:
            self.handler.client.wss_uri = url
        await self.handler.connect_async()  # type: ignore[no-untyped-call]
        self._running = True

    def _refused(self, token: str, code: str) -> None:
        """Slack refused a token (bot.slack.failures.Tokens): the app token, or the bot's while disconnected,
        stops Socket Mode's own reconnection until the tokens are accepted again."""
        if not self._running or (self._recovery is not None and not self._recovery.done()):
            return
        if token != "SLACK_APP_TOKEN" and self.connected:
            return  # the connection holds: the bot token is checked again when it must reconnect
        self.handler.client.auto_reconnect_enabled = False
        log.error(
            "slack: Slack refused a token while connected; Socket Mode stopped. Set a valid token: it is "
            "checked again with backoff",
            extra={"token": token, "error": code, "retry_in_seconds": self.backoff},
        )
        self._recovery = asyncio.get_running_loop().create_task(self._recover(), name="kueue-bot-socket-recovery")

    async def _recover(self) -> None:
        """Check the tokens again, each time later, until Slack accepts them; then connect."""
        delay = self.backoff
        while True:
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.backoff_cap)
            try:
                url = await check_tokens(self._client, self._app_token)
            except SlackTokenRefused:
                log.info("slack: a token is still refused", extra={"retry_in_seconds": delay})
                continue
            if url:
                self.handler.client.wss_uri = url
                await self.handler.client.connect()  # type: ignore[no-untyped-call]
                log.info("slack: Slack accepts the tokens again; Socket Mode connected")
                return

    @property
    def connected(self) -> bool:
        session = self.handler.client.current_session
        up = session is not None and not session.closed and not self.handler.client.closed
        if up != self._was_connected:
            self._was_connected = up
            self._since = self._monotonic()
        return up

    def down_for(self) -> float:
        """Seconds since the connection went down (or since start, if it never came up); 0 when up."""
        return 0.0 if self.connected else self._monotonic() - self._since

    async def close(self) -> None:
        self._running = False
        if self._recovery is not None:
            self._recovery.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._recovery
        await self.handler.close_async()  # type: ignore[no-untyped-call]


async def slack_state(client: BoundedClient, socket: SocketConnection | None, *, socket_mode: bool) -> tuple[bool, str]:
    """What /readyz says of Slack: (ready, word). A refused token: not ready, and which. Socket Mode: the
    connection. HTTP mode: "connected" once Slack accepted a call (auth.test asked, at most every so often),
    "unverified" before (ready: Slack comes to us)."""
    if not socket_mode:
        await client.verify()
    if client.tokens.refused:
        return False, f"refused: {client.tokens.refused}"
    if socket_mode:
        up = socket is not None and socket.connected
        return up, "connected" if up else "disconnected"
    return True, "connected" if client.tokens.verified else "unverified"
