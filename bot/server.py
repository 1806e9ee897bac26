"""The composition root: one aiohttp server with Bolt (HTTP Events API at POST /slack/events, or Socket
Mode), /healthz, /readyz and /metrics; it owns every background task and shuts them down in order."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from aiohttp import web

from bot.access import AuditLog, Review, SubjectAccessPolicy
from bot.config import Settings
from bot.errors import BadQuery, BotError, ClusterUnavailable
from bot.metrics import CONTENT_TYPE, Metrics
from bot.notify.actions import Silenced, silence
from bot.notify.policy import PolicyConfig
from bot.notify.state import Fence, Subscription
from bot.notify.store import StateStore
from bot.notify.watcher import Notifier
from bot.service import Asker, BotService, ChannelPolicy, SnapshotSource
from bot.slack.app import SlackBot, SlackSettings
from bot.slack.messenger import SlackMessenger
from bot.slack.transport import SocketMode, events_handler
from bot.trace.explanation import Explanation

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
    socket_handler: SocketMode | None = None
    runner: web.AppRunner | None = None
    port: int = 0
    background: list[Callable[[], Awaitable[None]]] = field(default_factory=list)  # stop callbacks, in order
    notifier: Notifier | None = None
    store: StateStore | None = None
    source_retry_seconds: float = 5.0  # between tries to start the source while the cluster is out of reach
    _source_starter: asyncio.Task[None] | None = None
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Start the source, the watcher and the HTTP server. A cluster out of reach does not stop the bot: it
        serves (not ready; questions are told the cluster is unavailable) and starts the source when it can."""
        start = getattr(self.source, "start", None)
        if start is not None:
            try:
                await start()
            except ClusterUnavailable as error:
                log.warning("the cluster is out of reach; serving, and retrying", extra={"error": str(error)})
                self._source_starter = asyncio.create_task(self._start_source(start), name="kueue-bot-source-start")
            self.background.append(self._stop_source)
        if self.notifier is not None:
            listen = getattr(self.source, "add_listener", None)
            if listen is not None:
                listen(self.notifier.wake)
            await self.notifier.start()
            self.background.append(self.notifier.stop)
        if self.store is not None:
            self.background.insert(0, self.store.aclose)
        self.runner = web.AppRunner(self.web_app, access_log=None, shutdown_timeout=5.0)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.settings.host, self.settings.port)
        await site.start()
        self.port = self.runner.addresses[0][1] if self.runner.addresses else self.settings.port
        if self.settings.socket_mode:
            self.socket_handler = SocketMode(
                self.bot.app, app_token=self.settings.slack_app_token.reveal(), web_client=self.bot.client
            )
            await self.socket_handler.connect()
        log.info(
            "kueue-bot serving",
            extra={"port": self.port, "mode": "socket" if self.settings.socket_mode else "http"},
        )

    async def _start_source(self, start: Callable[[], Awaitable[None]]) -> None:
        while True:
            await asyncio.sleep(self.source_retry_seconds)
            try:
                await start()
            except ClusterUnavailable as error:
                log.info("the cluster is still out of reach", extra={"error": str(error)})
                continue
            except BotError as error:  # reachable, but no use (no Kueue, no permission): said once, loudly
                log.error("the source cannot start", extra={"error": str(error)})
                return
            log.info("the cluster is reachable: source started")
            return

    async def _stop_source(self) -> None:
        if self._source_starter is not None:
            self._source_starter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._source_starter
            self._source_starter = None
        await self.source.stop()  # type: ignore[attr-defined]

    async def stop(self) -> None:
        if self.socket_handler is not None:
            with contextlib.suppress(Exception):
                await self.socket_handler.close()
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
    store: StateStore | None = None,
    is_leader: Callable[[], bool] | None = None,
    fence: Callable[[], Fence | None] | None = None,
    tick_seconds: float = 30.0,
    access_review: Review | None = None,
) -> Server:
    """The whole bot. With a `store`, the watcher runs too (proactive DMs), on the leader only.

    Access: CHANNEL_NAMESPACES always; with USER_IDENTITY_TEMPLATE, each asker is also checked with a
    SubjectAccessReview, made by `access_review` (default: one over the kubeconfig / in-cluster client)."""
    metrics = metrics or Metrics()
    stats = getattr(source, "stats", None)  # the informer cache's counters, when the source is one
    if callable(stats):
        metrics.watch_cluster(stats)
    channel_policy = ChannelPolicy(settings.namespaces_for_channel)
    service = BotService(source, clock=clock, policy=channel_policy, audit=AuditLog() if settings.audit_log else None)
    hooks = _Hooks(service, store, clock)
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
        on_watch=hooks.watch if store is not None else None,
        on_unwatch=hooks.unwatch if store is not None else None,
        home=hooks.home if store is not None else None,
        on_notification_action=hooks.notification_action if store is not None else None,
        on_mute=hooks.mute if store is not None else None,
    )
    close_review: Callable[[], None] | None = None
    if settings.user_identity_template:
        if access_review is None:
            access_review, close_review = _cluster_review(settings)
        service.policy = SubjectAccessPolicy(
            channel_policy,
            template=settings.user_identity_template,
            email_of=bot.email_of,
            review=access_review,
            groups=settings.kube_groups,
        )
    notifier: Notifier | None = None
    if store is not None:
        notifier = Notifier(
            source=source,
            store=store,
            messenger=SlackMessenger(bot.client, bot.language, settings.default_language),
            clock=clock,
            config=PolicyConfig(
                notify_after=timedelta(seconds=settings.notify_after_seconds), quiet_hours=settings.quiet_hours
            ),
            namespace_notify=settings.namespace_notify,
            is_leader=is_leader or (lambda: True),
            fence=fence,
            metrics=metrics,
            tick_seconds=tick_seconds,
        )
        hooks.notifier = notifier

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
        web_app.router.add_post("/slack/events", events_handler(bot.app))
    web_app.router.add_get("/healthz", healthz)
    web_app.router.add_get("/readyz", readyz)
    web_app.router.add_get("/metrics", metrics_endpoint)
    server = Server(settings=settings, source=source, metrics=metrics, bot=bot, web_app=web_app, clock=clock)
    server.notifier = notifier
    server.store = store
    if close_review is not None:
        closing = close_review

        async def close_kube_client() -> None:
            closing()

        server.background.append(close_kube_client)
    return server


def _cluster_review(settings: Settings) -> tuple[Review, Callable[[], None]]:
    """SubjectAccessReviews over the bot's own Kubernetes credentials (raises ClusterUnavailable without any)."""
    from bot.kube.access import AccessReviewer
    from bot.kube.client import KubeClient, load_api_client

    api_client = load_api_client(settings.kubeconfig, settings.kube_context)
    return AccessReviewer(KubeClient(api_client)), api_client.close


class _Hooks:
    """What the Slack side asks of the watcher and its store: watch, unwatch, the Home tab, snooze, stop."""

    def __init__(self, service: BotService, store: StateStore | None, clock: Callable[[], datetime]) -> None:
        self.service = service
        self.store = store
        self.clock = clock
        self.notifier: Notifier | None = None

    async def watch(self, user: str, namespace: str, name: str, kind: str | None) -> bool:
        assert self.store is not None
        added = await self.store.subscribe(Subscription(user, namespace, name, kind, self.clock()))
        if self.notifier is not None:
            self.notifier.wake()
        return added

    async def mute(self, user: str, on: bool) -> bool:
        """A user's mute: no proactive DM at all until unmuted (questions are still answered)."""
        assert self.store is not None
        return await (self.store.mute(user, self.clock()) if on else self.store.unmute(user))

    async def unwatch(self, user: str, namespace: str, name: str) -> bool:
        assert self.store is not None
        return await self.store.unsubscribe(user, namespace, name)

    async def home(self, user: str) -> list[tuple[str, str, Explanation | None]]:
        assert self.store is not None
        state = await self.store.load()
        watched: list[tuple[str, str, Explanation | None]] = []
        for subscription in state.subscriptions_of(user):
            try:
                explanation: Explanation | None = await self.service.explain_job(
                    subscription.namespace, subscription.name, subscription.kind
                )
            except BotError:
                explanation = None
            watched.append((subscription.namespace, subscription.name, explanation))
        return watched

    async def notification_action(self, user: str, channel: str, action: str, value: Mapping[str, Any]) -> Silenced:
        """Snooze 2 h, snooze 1 day, or stop: about the job the DM is about (bot.notify.actions)."""
        assert self.store is not None
        namespace, name = value.get("ns"), value.get("name")
        if not isinstance(namespace, str) or not isinstance(name, str):
            raise BadQuery("the button names no job")
        return await silence(
            self.store, self.service.policy, Asker(user, channel), action, namespace, name, self.clock()
        )
