"""The composition root: one aiohttp server with Bolt (HTTP Events API at POST /slack/events, or Socket
Mode), /healthz, /readyz and /metrics; it owns every background task and shuts them down in order."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

from bot.config import Settings
from bot.metrics import CONTENT_TYPE, Metrics
from bot.service import BotService, ChannelPolicy, SnapshotSource
from bot.slack.app import SlackBot, SlackSettings

log = logging.getLogger(__name__)


def utc_now() -> datetime:
    return datetime.now(UTC)


class ManagedSource(SnapshotSource, Protocol):
    """A snapshot source with a lifecycle (the informer cache)."""

    async def start(self) -> None: ...
    async def stop(self) -> None: ...


@dataclass
class Server:
    settings: Settings
    source: SnapshotSource
    metrics: Metrics
    bot: SlackBot
    web_app: web.Application
    clock: Callable[[], datetime] = utc_now
    socket_handler: AsyncSocketModeHandler | None = None
    runner: web.AppRunner | None = None
    port: int = 0
    background: list[Callable[[], Awaitable[None]]] = field(default_factory=list)  # stop callbacks, in order
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        start = getattr(self.source, "start", None)
        if start is not None:
            await start()
            self.background.append(self.source.stop)  # type: ignore[attr-defined]
        self.runner = web.AppRunner(self.web_app, access_log=None, shutdown_timeout=5.0)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.settings.host, self.settings.port)
        await site.start()
        self.port = self.runner.addresses[0][1] if self.runner.addresses else self.settings.port
        if self.settings.socket_mode:
            self.socket_handler = AsyncSocketModeHandler(
                self.bot.app, app_token=self.settings.slack_app_token.reveal(), web_client=self.bot.client
            )
            await self.socket_handler.connect_async()  # type: ignore[no-untyped-call]
        log.info(
            "kueue-bot serving",
            extra={"port": self.port, "mode": "socket" if self.settings.socket_mode else "http"},
        )

    async def stop(self) -> None:
        if self.socket_handler is not None:
            with contextlib.suppress(Exception):
                await self.socket_handler.close_async()  # type: ignore[no-untyped-call]
            self.socket_handler = None
        for stop in reversed(self.background):
            with contextlib.suppress(Exception):
                await stop()
        self.background.clear()
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
        session = getattr(self.bot.client, "session", None)
        if session is not None and not session.closed:
            await session.close()
        self._stopped.set()

    async def run_forever(self) -> None:
        """Serve until SIGTERM or SIGINT, then stop cleanly."""
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await self.start()
        try:
            await stop.wait()
        finally:
            log.info("kueue-bot stopping")
            await self.stop()


def build_server(
    settings: Settings,
    source: SnapshotSource,
    *,
    clock: Callable[[], datetime] = utc_now,
    metrics: Metrics | None = None,
) -> Server:
    metrics = metrics or Metrics()
    service = BotService(source, clock=clock, policy=ChannelPolicy(settings.namespaces_for_channel))
    bot = SlackBot(
        SlackSettings(
            bot_token=settings.slack_bot_token.reveal(),
            signing_secret=settings.slack_signing_secret.reveal(),
            api_url=settings.slack_api_url,
            socket_mode=settings.socket_mode,
            default_language=settings.default_language,
        ),
        service,
        metrics,
    )

    async def slack_events(request: web.Request) -> web.Response:
        bolt_response = await bot.app.async_dispatch(await to_bolt_request(request))
        return await to_aiohttp_response(bolt_response)

    async def healthz(_: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    async def readyz(_: web.Request) -> web.Response:
        age = service.age_seconds()
        body: dict[str, Any] = {"ready": source.ready, "snapshotAgeSeconds": age}
        return web.json_response(body, status=200 if source.ready else 503)

    async def metrics_endpoint(_: web.Request) -> web.Response:
        age = service.age_seconds()
        if age is not None:
            metrics.cache_staleness.set(age)
        return web.Response(body=metrics.exposition(), headers={"Content-Type": CONTENT_TYPE})

    web_app = web.Application(client_max_size=1024 * 1024)
    if not settings.socket_mode:
        web_app.router.add_post("/slack/events", slack_events)
    web_app.router.add_get("/healthz", healthz)
    web_app.router.add_get("/readyz", readyz)
    web_app.router.add_get("/metrics", metrics_endpoint)
    return Server(settings=settings, source=source, metrics=metrics, bot=bot, web_app=web_app, clock=clock)
