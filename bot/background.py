"""The background work the server owns besides answering: every cluster's watcher of proactive DMs, its queue
history (the ETA's basis) and the watches that wake it, and the admins' view, answers and daily digest; each
made here, in one pass, from the settings, the line to Slack (bot.slack.app.SlackLink) and the state store.

They are made before the services and the Slack bot (bot.server wires them, starts and stops them), so every
dependency points one way: a cluster's watches are given its notifier's `wake`, its service is given the
watches and the history (`Watcher`), the bot is given the admins' answers; nothing here needs the bot."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.admin.view import AdminView, admin_view, merged
from bot.config import Settings
from bot.forecast.history import History
from bot.kube.configmap_store import ConfigMapStore
from bot.metrics import Metrics
from bot.notify.actions import StoreWatches
from bot.notify.admin_digest import AdminDigest, DigestStore, MemoryDigests, SQLiteDigests
from bot.notify.history import HistoryRecorder, HistoryStore, MemoryHistory, SQLiteHistory
from bot.notify.policy import PolicyConfig
from bot.notify.scoped import ScopedHistory, ScopedStore
from bot.notify.state import Fence
from bot.notify.store import SQLiteStore, StateStore
from bot.notify.watcher import Notifier
from bot.service.explaining import explain_job
from bot.service.ports import SnapshotSource
from bot.slack.admin import AdminAnswers
from bot.slack.admin_poster import AdminPoster
from bot.slack.app import SlackLink
from bot.slack.messenger import SlackMessenger

DIGEST_TICK_SECONDS = 300.0  # the admins' view is looked at this often at most (it explains many Workloads)


@dataclass(frozen=True)
class Notifying:
    """What every cluster's watcher of proactive DMs is made with: it sends through the line to Slack."""

    settings: Settings
    slack: SlackLink
    metrics: Metrics
    clock: Callable[[], datetime]
    is_leader: Callable[[], bool] | None
    fence: Callable[[], Fence | None] | None
    tick_seconds: float

    def notifier(
        self, source: SnapshotSource, store: StateStore, recorder: HistoryRecorder, cluster: str = ""
    ) -> Notifier:
        """The watcher of `source`'s cluster (its DMs say `cluster` when the bot serves several)."""
        settings, slack = self.settings, self.slack
        return Notifier(
            source=source,
            store=store,
            messenger=SlackMessenger(slack.client, slack.people.language, settings.default_language, cluster=cluster),
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

    def watcher(self, source: SnapshotSource, store: StateStore, history: HistoryStore, cluster: str = "") -> Watcher:
        """A cluster's watcher over `store`, recording its queue history in `history`."""
        recorder = HistoryRecorder(history)
        notifier = self.notifier(source, store, recorder, cluster)
        return Watcher(notifier, recorder, StoreWatches(store, wake=notifier.wake))


@dataclass(frozen=True)
class Watcher:
    """One cluster's watcher of proactive DMs, the queue history it records (the ETA's basis) and the watches
    that wake it (a new watch runs a pass soon); its service is given `watches` and `history`."""

    notifier: Notifier
    recorder: HistoryRecorder
    watches: StoreWatches

    def history(self) -> History:
        """The admissions and finishes the notifier observed so far."""
        return self.recorder.history


def watchers(
    notify: Notifying,
    store: StateStore | None,
    source: SnapshotSource,
    clusters: Mapping[str, SnapshotSource] | None,
    stores: Mapping[str, ScopedStore],
) -> tuple[dict[str, Watcher], list[Callable[[], Awaitable[None]]]]:
    """With a state store, every cluster's watcher, by cluster name (the one cluster's, `source`'s, is named
    ""), and what closes their queue history at the end; none without one. With CLUSTERS, each watches its
    cluster over its part of the one state store (`stores`), its history beside the others'."""
    if store is None:
        return {}, []
    histories = history_store(store)
    if not clusters:
        return {"": notify.watcher(source, store, histories)}, [histories.aclose]
    made = {
        name: notify.watcher(cluster, stores[name], ScopedHistory(histories, stores[name].scope), cluster=name)
        for name, cluster in clusters.items()
    }
    return made, [histories.aclose]


def admin_look(sources: Mapping[str, SnapshotSource]) -> Callable[[datetime], Awaitable[AdminView | None]]:
    """The admins' view now: of the one cluster (named ""), or of every ready cluster (groups named
    cluster/queue)."""

    async def look(now: datetime) -> AdminView | None:
        views = {
            name: admin_view(await each.snapshot(), now=now, explain=explain_job)
            for name, each in sources.items()
            if each.ready
        }
        return merged(views) if views else None

    return look


def admin_answers(
    settings: Settings, look: Callable[[datetime], Awaitable[AdminView | None]], clock: Callable[[], datetime]
) -> AdminAnswers | None:
    """`/kueue admin`, for the admins in ADMINS (none without them)."""
    admin = settings.admin
    return AdminAnswers(look, clock, admin.is_admin) if admin.admins else None


def admin_digest(
    settings: Settings,
    look: Callable[[datetime], Awaitable[AdminView | None]],
    slack: SlackLink,
    store: StateStore | None,
    clock: Callable[[], datetime],
    leading: tuple[Callable[[], bool] | None, Callable[[], Fence | None] | None],
    tick_seconds: float,
) -> AdminDigest | None:
    """The daily digest of the admins in ADMINS, to its targets (with a state store, where it is kept)."""
    admin = settings.admin
    if not admin.admins or store is None or not admin.targets:
        return None
    return AdminDigest(
        look,
        digest_store(store),
        AdminPoster(slack.client, slack.people.language, settings.default_language),
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
