"""The composition root: one aiohttp server with Bolt (HTTP Events API at POST /slack/events, or Socket
Mode), /healthz, /readyz and /metrics; it owns every background task and shuts them down in order.

`build_server` makes the parts in one pass, in dependency order, each given what it needs when it is made
(none is patched afterwards; tests/unit/test_one_pass.py): the line to Slack (its client and who is who:
bot.slack.app.SlackLink); each cluster's access policy (the reviews read askers' emails over that line); each
cluster's watcher (bot.background: its notifier, which DMs over the line, its queue history, and the watches
that wake the notifier); each cluster's service, given its policy, its watcher's watches and history and the
job reader; the router over them; the Slack bot over the service (or the router), given the line and the
admins' answers. So the dependency points one way: from the bot to the services to the watchers to Slack's
client, never back."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from bot import background, pacing
from bot.access import AuditLog, Review, SubjectAccessPolicy
from bot.config import Settings
from bot.errors import BotError, ClusterUnavailable, StoreUnavailable
from bot.httpguard import HEADER_TIMEOUT, GuardedSite, connection_cap
from bot.kube.jobfile import parse_job_text
from bot.metrics import CONTENT_TYPE, Metrics
from bot.multicluster import ClusterRouter, per_cluster_policy
from bot.notify.admin_digest import AdminDigest
from bot.notify.scoped import Scope, ScopedStore
from bot.notify.state import Fence
from bot.notify.store import SQLiteStore, StateStore
from bot.notify.watcher import Notifier
from bot.service.botservice import BotService
from bot.service.ports import AccessPolicy, ChannelPolicy, SnapshotSource
from bot.service.warmer import Warmer
from bot.slack.app import SlackBot, SlackSettings, slack_link
from bot.slack.gate import Ledger
from bot.slack.transport import SocketConnection, events_handler, slack_state

log = logging.getLogger(__name__)


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Server:
    """The bot's parts, as `build_server` made them in one pass, and what runs while it serves."""

    settings: Settings
    source: SnapshotSource
    metrics: Metrics
    bot: SlackBot
    web_app: web.Application
    clock: Callable[[], datetime] = utc_now
    store: StateStore | None = None
    router: ClusterRouter | None = None  # with CLUSTERS, the service of every cluster
    other_sources: Mapping[str, SnapshotSource] = field(default_factory=dict)  # CLUSTERS after the first
    notifier: Notifier | None = None  # the watcher of proactive DMs (the first cluster's)
    cluster_notifiers: Mapping[str, Notifier] = field(default_factory=dict)  # CLUSTERS after the first
    admin_digest: AdminDigest | None = None  # the admins' daily digest (with ADMINS and a store)
    warmers: Sequence[Warmer] = ()  # each changing source's ETA Estimators, made ahead
    closers: Sequence[Callable[[], Awaitable[None]]] = ()  # closed at stop, after what `start` started
    header_timeout: float = HEADER_TIMEOUT  # a connection must send a complete request within this
    max_connections: int = field(default_factory=connection_cap)
    liveness_grace: float = 300.0  # /healthz fails once Socket Mode has been down this long
    source_retry_seconds: float = 5.0  # between tries to start the source while the cluster is out of reach
    # What runs while it serves:
    socket: SocketConnection | None = field(default=None, init=False)
    runner: web.AppRunner | None = field(default=None, init=False)
    site: GuardedSite | None = field(default=None, init=False)
    port: int = field(default=0, init=False)
    background: list[Callable[[], Awaitable[None]]] = field(default_factory=list, init=False)  # stop, in order
    _other_starters: list[asyncio.Task[None]] = field(default_factory=list, init=False)
    _source_starter: asyncio.Task[None] | None = field(default=None, init=False)
    _stopped: asyncio.Event = field(default_factory=asyncio.Event, init=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Start the source, the watcher and the HTTP server. A cluster out of reach does not stop the bot: it
        serves (not ready; questions are told the cluster is unavailable) and starts the source when it can."""
        self.background = [*([self.store.aclose] if self.store is not None else []), *self.closers]
        try:
            await self.source.start()
        except ClusterUnavailable as error:
            log.warning("the cluster is out of reach; serving, and retrying", extra={"error": str(error)})
            self._source_starter = asyncio.create_task(self._start_source(), name="kueue-bot-source-start")
        self.background.append(self._stop_source)
        for name, other in self.other_sources.items():  # each cluster starts (and fails) on its own
            self._other_starters.append(
                asyncio.create_task(self._start_other(name, other), name=f"kueue-bot-source-start-{name}")
            )
        if self.other_sources:
            self.background.append(self._stop_others)
        notifiers = [self.notifier] if self.notifier is not None else []
        for notifier in [*notifiers, *self.cluster_notifiers.values()]:
            if notifier.source.tells_changes:
                notifier.source.add_listener(notifier.wake)
            await notifier.start()
            self.background.append(notifier.stop)
        for warmer in self.warmers:
            warmer.service.source.add_listener(warmer.wake)  # (a warmer's source tells of changes)
            await warmer.start()
            self.background.append(warmer.stop)
        if self.admin_digest is not None:
            await self.admin_digest.start()
            self.background.append(self.admin_digest.stop)
        await self._listen()
        if self.settings.socket_mode:
            self.socket = SocketConnection(self.bot.app, self.settings.slack_app_token.reveal(), self.bot.client)
            await self.socket.connect()
        log.info(
            "kueue-bot serving",
            extra={"port": self.port, "mode": "socket" if self.settings.socket_mode else "http"},
        )

    async def _listen(self) -> None:
        """The HTTP server, its connections capped and their headers timed (bot.httpguard). A port that cannot
        be had is one line (a BotError), not a traceback."""
        self.runner = web.AppRunner(  # no lingering to drain a body we gave up on: the connection closes
            self.web_app, access_log=None, shutdown_timeout=5.0, keepalive_timeout=self.header_timeout, lingering_time=0
        )
        await self.runner.setup()
        self.site = GuardedSite(
            self.runner,
            self.settings.host,
            self.settings.port,
            max_connections=self.max_connections,
            on_shed=lambda how: self.metrics.http_connections_shed.labels(how).inc(),
        )
        try:
            await self.site.start()
        except OSError as error:
            why = "the address is already in use" if error.errno == errno.EADDRINUSE else error.strerror or str(error)
            raise BotError(f"cannot listen on {self.settings.host}:{self.settings.port}: {why}") from None
        self.port = self.site.port

    async def _start_source(self) -> None:
        while True:
            await asyncio.sleep(self.source_retry_seconds)
            try:
                await self.source.start()
            except ClusterUnavailable as error:
                log.info("the cluster is still out of reach", extra={"error": str(error)})
                continue
            except BotError as error:  # reachable, but no use (no Kueue, no permission): said once, loudly
                log.error("the source cannot start", extra={"error": str(error)})
                return
            log.info("the cluster is reachable: source started")
            return

    async def _start_other(self, name: str, source: SnapshotSource) -> None:
        while True:
            try:
                await source.start()
            except ClusterUnavailable as error:
                log.warning("a cluster is out of reach; retrying", extra={"cluster": name, "error": str(error)})
                await asyncio.sleep(self.source_retry_seconds)
                continue
            except BotError as error:
                log.error("a cluster's source cannot start", extra={"cluster": name, "error": str(error)})
            return

    async def _stop_others(self) -> None:
        for task in self._other_starters:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._other_starters.clear()
        for other in self.other_sources.values():
            with contextlib.suppress(Exception):
                await other.stop()

    async def _stop_source(self) -> None:
        if self._source_starter is not None:
            self._source_starter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._source_starter
            self._source_starter = None
        await self.source.stop()

    async def stop(self) -> None:
        if self.socket is not None:
            with contextlib.suppress(Exception):
                await self.socket.close()
            self.socket = None
        for stop in reversed(self.background):
            with contextlib.suppress(Exception):
                await stop()
        self.background.clear()
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
        session = self.bot.client.session  # slack_sdk's, when one was given or made
        if session is not None and not session.closed:
            await session.close()
        self._stopped.set()

    async def run_forever(self) -> None:
        """Serve until SIGTERM or SIGINT, then stop cleanly; a signal is honoured at any moment, starting
        included (while Socket Mode or the cluster are still out of reach). A failure to start is raised."""
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        starting = asyncio.create_task(self.start(), name="kueue-bot-start")
        stopping = asyncio.create_task(stop.wait(), name="kueue-bot-signal")
        try:
            await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if starting.done():
                starting.result()  # a failure to start, raised
                await stopping
        finally:
            for task in (starting, stopping):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            log.info("kueue-bot stopping")
            await self.stop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError):
                    loop.remove_signal_handler(sig)


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
    clusters: Mapping[str, SnapshotSource] | None = None,
) -> Server:
    """The whole bot, in one pass. With a `store`, the watcher runs too (proactive DMs), on the leader only.

    Access: CHANNEL_NAMESPACES always; with USER_IDENTITY_TEMPLATE, each asker is also checked with a
    SubjectAccessReview, made by `access_review` (default: one over the kubeconfig / in-cluster client)."""
    metrics = metrics or Metrics()
    _watch_cache(metrics, source)
    metrics.watch_collections(pacing.stats)
    # In dependency order (the module's docstring), each part given what it needs when it is made.
    slack_settings = _slack_settings(settings)
    slack = slack_link(slack_settings, metrics)
    policies, close_review = _policies(settings, slack.people.email_of, access_review, clusters)
    notify = background.Notifying(settings, slack, metrics, clock, is_leader, fence, tick_seconds)
    stores = {name: ScopedStore(store, scope) for name, scope in _scopes(clusters).items()} if store is not None else {}
    watchers, closers = background.watchers(notify, store, source, clusters, stores)
    if close_review is not None:
        closers.append(_async(close_review))
    service, router = _services(settings, source, clusters, clock, policies, watchers)
    if router is not None and clusters:
        _watch_clusters(metrics, router, clusters)
    look = background.admin_look(clusters or {"": source})
    remember = store.remember_request if isinstance(store, SQLiteStore) else None
    admin = background.admin_answers(settings, look, clock)
    bot = SlackBot(slack_settings, router or service, metrics, ledger=Ledger(remember), link=slack, admin=admin)
    warmers = _warmers(service, router)
    metrics.watch_warmers(lambda: [warmer.stats() for warmer in warmers])
    names = list(watchers)  # the first cluster's (or the one cluster's) first
    server = Server(
        settings=settings,
        source=source,
        metrics=metrics,
        bot=bot,
        web_app=web.Application(client_max_size=1024 * 1024),
        clock=clock,
        store=store,
        router=router,
        other_sources={name: each for name, each in (clusters or {}).items() if each is not source},
        notifier=watchers[names[0]].notifier if names else None,
        cluster_notifiers={name: watchers[name].notifier for name in names[1:]},
        admin_digest=background.admin_digest(settings, look, slack, store, clock, (is_leader, fence), tick_seconds),
        warmers=warmers,
        closers=closers,
    )
    _route(server, service, store)
    return server


def _async(close: Callable[[], None]) -> Callable[[], Awaitable[None]]:
    async def closed() -> None:
        close()

    return closed


def _watch_cache(metrics: Metrics, source: SnapshotSource) -> None:
    """/metrics says the informer cache's counters, when the source is one."""
    if source.stats() is not None:
        metrics.watch_cluster(lambda: source.stats() or {})


def _warmers(service: BotService, router: ClusterRouter | None) -> list[Warmer]:
    """Every cluster's ETA Estimators made ahead of the questions (bot.service.warmer), where its source is an
    informer cache (it tells of changes, and questions come for as long as it runs); none over a dump. Each reads
    its service's history (its watcher's) at each pass."""
    services = list(router.services.values()) if router is not None else [service]
    return [Warmer(each) for each in services if each.source.tells_changes]


def _scopes(clusters: Mapping[str, SnapshotSource] | None) -> dict[str, Scope]:
    """Each cluster's part of the shared state store (the first keeps the single-cluster layout)."""
    names = tuple(clusters or ())
    return {name: Scope(name, home=index == 0, clusters=names) for index, name in enumerate(names)}


def _services(
    settings: Settings,
    source: SnapshotSource,
    clusters: Mapping[str, SnapshotSource] | None,
    clock: Callable[[], datetime],
    policies: Mapping[str, AccessPolicy],
    watchers: Mapping[str, background.Watcher],
) -> tuple[BotService, ClusterRouter | None]:
    """The one cluster's service (named ""); or (CLUSTERS) the first cluster's (`source` is its: the notifier
    watches it) and a router over one service per cluster, which the Slack side asks. Each is given its access
    policy, and (with a state store) its watcher's watches and queue history."""
    audit = AuditLog() if settings.audit_log else None

    def service(name: str, cluster: SnapshotSource) -> BotService:
        watcher = watchers.get(name)
        return BotService(
            cluster,
            clock=clock,
            policy=policies[name],
            audit=audit,
            history=watcher.history if watcher is not None else None,
            watches=watcher.watches if watcher is not None else None,
            job_reader=parse_job_text,  # "will this fit?": a job's YAML read as the CLI reads a job file
        )

    if not clusters:
        return service("", source), None
    services = {name: service(name, cluster) for name, cluster in clusters.items()}
    router = ClusterRouter(services, clock=clock, channel_default=settings.namespaces_for_channel)
    return next(iter(services.values())), router


def _policies(
    settings: Settings,
    email_of: Callable[[str], Awaitable[str | None]],
    review: Review | None,
    clusters: Mapping[str, SnapshotSource] | None = None,
) -> tuple[dict[str, AccessPolicy], Callable[[], None] | None]:
    """Each cluster's access policy (the one cluster's named ""): CHANNEL_NAMESPACES (with CLUSTERS, the
    entries of that cluster and those naming none), and with it what closes the reviewer made here, if any.

    With USER_IDENTITY_TEMPLATE, each asker (their Slack email: `email_of`) is also checked with a
    SubjectAccessReview (by `review`, or one over the kubeconfig / in-cluster client, whose closing is
    returned). With several clusters, each cluster's reviews go to that cluster's own API server (over its
    source's client): who may read a namespace of prod-us is prod-us's RBAC's to say; a cluster that cannot
    answer refuses (fail closed)."""
    mapping = settings.namespaces_for_channel
    channels: dict[str, AccessPolicy] = (
        {name: per_cluster_policy(mapping, name) for name in clusters} if clusters else {"": ChannelPolicy(mapping)}
    )
    if not settings.user_identity_template:
        return channels, None
    close_review: Callable[[], None] | None = None
    from bot.kube.access import source_reviewers

    per_cluster: dict[str, Review] = dict(source_reviewers(clusters or {})) if review is None else {}
    if review is None and clusters and clusters.keys() <= per_cluster.keys():
        review = per_cluster[next(iter(clusters))]  # every cluster has its own: no other is made
    if review is None:
        from bot.kube.access import cluster_reviewer

        review, close_review = cluster_reviewer(settings.kubeconfig, settings.kube_context)
    default = review
    reviewed: dict[str, AccessPolicy] = {
        name: SubjectAccessPolicy(
            policy,
            template=settings.user_identity_template,
            email_of=email_of,
            review=per_cluster.get(name, default),
            groups=settings.kube_groups,
        )
        for name, policy in channels.items()
    }
    return reviewed, close_review


def _slack_settings(settings: Settings) -> SlackSettings:
    return SlackSettings(
        bot_token=settings.slack_bot_token.reveal(),
        signing_secret=settings.slack_signing_secret.reveal(),
        api_url=settings.slack_api_url,
        socket_mode=settings.socket_mode,
        default_language=settings.default_language,
        headlamp_url=settings.headlamp_url,
    )


def _route(server: Server, service: BotService, store: StateStore | None) -> None:
    """POST /slack/events (HTTP mode), /healthz, /readyz and /metrics."""
    metrics, source = server.metrics, server.source

    async def healthz(_: web.Request) -> web.Response:
        """Alive, unless Socket Mode has been down past the grace (a restart may help)."""
        down = server.socket.down_for() if server.socket is not None else 0.0
        alive = down < server.liveness_grace
        return web.json_response({"ok": alive}, status=200 if alive else 503)

    async def readyz(_: web.Request) -> web.Response:
        """Ready: the cluster view, the state store (when there is one) and Slack's connection."""
        age = service.age_seconds()
        store_error = await _store_error(store)
        store_ok = store_error is None
        metrics.store_up.set(1 if store_ok else 0)
        slack_ok, slack_word = await slack_state(
            server.bot.client, server.socket, socket_mode=server.settings.socket_mode
        )
        metrics.slack_connected.set(1 if slack_word == "connected" else 0)
        ready = source.ready and store_ok and slack_ok
        body: dict[str, Any] = {
            "ready": ready,
            "snapshotAgeSeconds": age,
            "stateStore": "none" if store is None else ("ok" if store_ok else "unavailable"),
            "slack": slack_word,
            "clusterView": "stale" if source.away else "current",  # a watch failing: behind
        }
        if store_error is not None:  # why, in words: deleted, replaced, full, locked...
            body["stateStoreError"] = store_error
        if server.router is not None:  # ready while one cluster answers; each one's state said
            states = server.router.states()
            body["clusters"] = {s.name: {"state": s.state, "snapshotAgeSeconds": s.age_seconds} for s in states}
            ready = any(s.state != "starting" for s in states) and store_ok and slack_ok
            body["ready"] = ready
        return web.json_response(body, status=200 if ready else 503)

    async def metrics_endpoint(_: web.Request) -> web.Response:
        age = service.age_seconds()
        if age is not None:
            metrics.cache_staleness.set(age)
        return web.Response(body=metrics.exposition(), headers={"Content-Type": CONTENT_TYPE})

    router = server.web_app.router
    if not server.settings.socket_mode:
        router.add_post("/slack/events", events_handler(server.bot))
    router.add_get("/healthz", healthz)
    router.add_get("/readyz", readyz)
    router.add_get("/metrics", metrics_endpoint)


def _watch_clusters(metrics: Metrics, router: ClusterRouter, clusters: Mapping[str, SnapshotSource]) -> None:
    """/metrics says each cluster's state and cache counts, labelled by cluster."""

    def stats_of(cluster: SnapshotSource) -> Callable[[], Mapping[str, Mapping[str, int]]]:
        return lambda: cluster.stats() or {}

    metrics.watch_clusters(
        lambda: [(s.name, s.state, s.age_seconds) for s in router.states()],
        {name: stats_of(cluster) for name, cluster in clusters.items() if cluster.stats() is not None},
    )


async def _store_error(store: StateStore | None) -> str | None:
    """Why the state store cannot be used now (None: it can; no store: nothing to fail)."""
    if store is None:
        return None
    try:
        await (store.ping() if isinstance(store, SQLiteStore) else store.load())
    except StoreUnavailable as error:
        log.warning("the state store is unavailable", extra={"error": str(error)})
        return str(error)
    return None
