"""The background work the server owns besides answering: every cluster's watcher of proactive DMs and its
queue history (the ETA's basis), and the admins' view and daily digest; each made here, in one pass, from the
settings, the Slack bot and the state store (bot.server wires them and starts and stops them)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from bot.admin.view import AdminView, admin_view, merged
from bot.config import Settings
from bot.kube.configmap_store import ConfigMapStore
from bot.metrics import Metrics
from bot.multicluster import ClusterRouter
from bot.notify.actions import StoreWatches
from bot.notify.admin_digest import AdminDigest, DigestStore, MemoryDigests, SQLiteDigests
from bot.notify.history import HistoryRecorder, HistoryStore, MemoryHistory, SQLiteHistory
from bot.notify.policy import PolicyConfig
from bot.notify.scoped import ScopedHistory, ScopedStore
from bot.notify.state import Fence
from bot.notify.store import SQLiteStore, StateStore
from bot.notify.watcher import Notifier
from bot.service import BotService, SnapshotSource
from bot.service.explaining import explain_job
from bot.slack.admin import AdminAnswers
from bot.slack.admin_poster import AdminPoster
from bot.slack.app import SlackBot
from bot.slack.messenger import SlackMessenger

DIGEST_TICK_SECONDS = 300.0  # the admins' view is looked at this often at most (it explains many Workloads)


@dataclass(frozen=True)
class Notifying:
    """What every cluster's watcher of proactive DMs is made with: it sends through the bot's Slack client."""

    settings: Settings
    bot: SlackBot
    metrics: Metrics
    clock: Callable[[], datetime]
    is_leader: Callable[[], bool] | None
    fence: Callable[[], Fence | None] | None
    tick_seconds: float

    def notifier(
        self, source: SnapshotSource, store: StateStore, recorder: HistoryRecorder, cluster: str = ""
    ) -> Notifier:
        """The watcher of `source`'s cluster (its DMs say `cluster` when the bot serves several)."""
        settings, bot = self.settings, self.bot
        return Notifier(
            source=source,
            store=store,
            messenger=SlackMessenger(bot.client, bot.language, settings.default_language, cluster=cluster),
            clock=self.clock,
            config=PolicyConfig(
                notify_after=timedelta(seconds=settings.notify_after_seconds), quiet_hours=settings.quiet_hours
            ),
            namespace_notify=settings.namespace_notify,
            is_leader=self.is_leader or (lambda: True),
            fence=self.fence,
            metrics=self.metrics,
            tick_seconds=self.tick_seconds,
            history=recorder,
            freeze_gc=source.freezes_gc,
        )


def watchers(
    notify: Notifying,
    store: StateStore | None,
    service: BotService,
    watches: StoreWatches | None,
    clusters: Mapping[str, SnapshotSource] | None,
    router: ClusterRouter | None,
    stores: Mapping[str, ScopedStore],
) -> tuple[Notifier | None, dict[str, Notifier], list[Callable[[], Awaitable[None]]]]:
    """With a state store, every cluster's watcher of proactive DMs (the first cluster's, the others' by name)
    and what closes their queue history at the end; none without one."""
    if store is None or watches is None:
        return None, {}, []
    if router is not None and clusters:
        first, others, closing = cluster_notifiers(notify, store, router, clusters, stores)
        return first, others, [closing]
    recorder = history_recorder(store)
    service.history = lambda: recorder.history
    notifier = notify.notifier(service.source, store, recorder)
    watches.wake = notifier.wake
    return notifier, {}, [recorder.store.aclose]


def cluster_notifiers(
    notify: Notifying,
    store: StateStore,
    router: ClusterRouter,
    clusters: Mapping[str, SnapshotSource],
    stores: Mapping[str, ScopedStore],
) -> tuple[Notifier | None, dict[str, Notifier], Callable[[], Awaitable[None]]]:
    """A watcher of proactive DMs and a queue history (the ETA's basis) for every cluster, each over its part
    of the one state store: the first cluster's, the others' by name, and the history store's closing."""
    histories = history_store(store)
    first: Notifier | None = None
    others: dict[str, Notifier] = {}
    for name, cluster in clusters.items():
        recorder = HistoryRecorder(ScopedHistory(histories, stores[name].scope))
        service = router.services[name]
        service.history = lambda recorder=recorder: recorder.history
        notifier = notify.notifier(cluster, stores[name], recorder, cluster=name)
        if service.watches is not None:
            cast("StoreWatches", service.watches).wake = notifier.wake
        if first is None:
            first = notifier
        else:
            others[name] = notifier
    return first, others, histories.aclose


def history_recorder(store: StateStore) -> HistoryRecorder:
    """The admissions the notifier sees, kept with its state (the ETA's basis)."""
    return HistoryRecorder(history_store(store))


def admin_look(
    source: SnapshotSource, router: ClusterRouter | None
) -> Callable[[datetime], Awaitable[AdminView | None]]:
    """The admins' view now: of the one cluster, or of every ready cluster (groups named cluster/queue)."""
    sources = {name: each.source for name, each in router.services.items()} if router is not None else {"": source}

    async def look(now: datetime) -> AdminView | None:
        views = {
            name: admin_view(await each.snapshot(), now=now, explain=explain_job)
            for name, each in sources.items()
            if each.ready
        }
        return merged(views) if views else None

    return look


def admin_side(
    settings: Settings,
    source: SnapshotSource,
    bot: SlackBot,
    store: StateStore | None,
    clock: Callable[[], datetime],
    leading: tuple[Callable[[], bool] | None, Callable[[], Fence | None] | None],
    tick_seconds: float,
    router: ClusterRouter | None = None,
) -> AdminDigest | None:
    """`/kueue admin` for the admins in ADMINS, and (with a state store) their daily digest."""
    admin = settings.admin
    if not admin.admins:
        return None
    look = admin_look(source, router)
    bot.replies.admin = AdminAnswers(look, clock, admin.is_admin)
    if store is None or not admin.targets:
        return None
    digests = digest_store(store)
    return AdminDigest(
        look,
        digests,
        AdminPoster(bot.client, bot.language, settings.default_language),
        targets=admin.targets,
        clock=clock,
        at=admin.digest_at,
        is_leader=leading[0] or (lambda: True),
        fence=leading[1],
        tick_seconds=max(tick_seconds, DIGEST_TICK_SECONDS),
    )


def digest_store(store: StateStore) -> DigestStore:
    """Where the admins' digest records live: beside the state (its SQLite database, its ConfigMaps)."""
    if isinstance(store, SQLiteStore):
        return SQLiteDigests(store.path)
    return store.digest_store() if isinstance(store, ConfigMapStore) else MemoryDigests()


def history_store(store: StateStore) -> HistoryStore:
    """Where the queue history lives: beside the state (its SQLite database, its ConfigMaps), else in memory."""
    if isinstance(store, SQLiteStore):
        return SQLiteHistory(store.path)
    return store.history_store() if isinstance(store, ConfigMapStore) else MemoryHistory()
