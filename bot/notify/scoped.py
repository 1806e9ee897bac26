"""One cluster's part of the shared notification state and queue history (with several clusters, one
watcher per cluster over one state store).

How a cluster's items are told apart in the store: the first cluster of CLUSTERS (the "home" one) keeps the
layout a single-cluster bot has always written, so a bot that gains CLUSTERS keeps every watch, DM and snooze
it had; every other cluster X writes "X/" before the namespace:

    subscription namespace   ns            ->  X/ns
    delivery key             ns/wl/uid     ->  X/ns/wl/uid
    snooze key               ns/name       ->  X/ns/name        ("*", every job, is everyone's)
    history ClusterQueue     cq            ->  X/cq

Kubernetes names hold no "/", so an item is another cluster's when it has one part more than its kind has
(a namespace with a "/", a delivery key of four parts), or, for a snooze key of three parts, when its first
part names a cluster. A view shows its cluster's items without the prefix and writes them with it: the
watcher, the watches and the ETA above it are those of a single cluster.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import datetime

from bot.forecast.history import Finished, History, Observed
from bot.notify.history import HistoryStore
from bot.notify.state import Fence, State, Subscription, Told
from bot.notify.store import StateStore

EVERY_JOB = "*"


class Scope:
    """Which items of the shared store are one cluster's, and how its names are written there."""

    def __init__(self, cluster: str, *, home: bool, clusters: Collection[str]) -> None:
        self.cluster = cluster
        self.prefix = "" if home else f"{cluster}/"
        self._names = frozenset(clusters)

    def write(self, text: str) -> str:
        return self.prefix + text

    def namespace(self, namespace: str) -> str | None:
        return self._read(namespace, scoped="/" in namespace)

    def delivery(self, key: str) -> str | None:
        return self._read(key, scoped=key.count("/") >= 3)

    def snooze(self, key: str) -> str | None:
        if key == EVERY_JOB:
            return key
        parts = key.split("/")
        return self._read(key, scoped=len(parts) >= 4 or (len(parts) == 3 and parts[0] in self._names))

    def queue(self, cluster_queue: str) -> str | None:
        return self._read(cluster_queue, scoped="/" in cluster_queue)

    def _read(self, text: str, *, scoped: bool) -> str | None:
        """`text` as this cluster names it, or None when it is another cluster's."""
        if not self.prefix:
            return None if scoped else text
        return text[len(self.prefix) :] if scoped and text.startswith(self.prefix) else None


class ScopedStore:
    """A StateStore over one cluster's items of a shared one (the shared store is closed by its owner)."""

    def __init__(self, store: StateStore, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def __repr__(self) -> str:
        return f"ScopedStore({self.store!r}, cluster={self.scope.cluster!r})"

    async def load(self) -> State:
        state = await self.store.load()
        scope = self.scope
        subscriptions = [
            replace(s, namespace=ns) for s in state.subscriptions if (ns := scope.namespace(s.namespace)) is not None
        ]
        deliveries = [replace(d, key=key) for d in state.deliveries if (key := scope.delivery(d.key)) is not None]
        snoozes = [replace(s, key=key) for s in state.snoozes if (key := scope.snooze(s.key)) is not None]
        return State.of(subscriptions, deliveries, snoozes, state.mutes)

    async def subscribe(self, subscription: Subscription) -> bool:
        return await self.store.subscribe(replace(subscription, namespace=self.scope.write(subscription.namespace)))

    async def unsubscribe(self, user: str, namespace: str, name: str, *, fence: Fence | None = None) -> bool:
        return await self.store.unsubscribe(user, self.scope.write(namespace), name, fence=fence)

    async def record_intent(
        self, told: Told, now: datetime, *, replace: bool = False, fence: Fence | None = None
    ) -> bool:
        return await self.store.record_intent(self._written(told), now, replace=replace, fence=fence)

    async def record_sent(
        self, told: Told, channel: str, ts: str, now: datetime, *, fence: Fence | None = None
    ) -> None:
        await self.store.record_sent(self._written(told), channel, ts, now, fence=fence)

    async def record_update(self, told: Told, now: datetime, *, fence: Fence | None = None) -> bool:
        return await self.store.record_update(self._written(told), now, fence=fence)

    def _written(self, told: Told) -> Told:
        return replace(told, key=self.scope.write(told.key))

    async def close(self, key: str, target: str, now: datetime, *, fence: Fence | None = None) -> bool:
        return await self.store.close(self.scope.write(key), target, now, fence=fence)

    async def forget_closed(self, before: datetime, *, fence: Fence | None = None) -> int:
        return await self.store.forget_closed(before, fence=fence)  # retention is everyone's

    async def snooze(self, user: str, key: str, until: datetime) -> None:
        await self.store.snooze(user, key if key == EVERY_JOB else self.scope.write(key), until)

    async def unsnooze(self, user: str, key: str) -> bool:
        return await self.store.unsnooze(user, key if key == EVERY_JOB else self.scope.write(key))

    async def mute(self, user: str, now: datetime) -> bool:
        return await self.store.mute(user, now)  # a person's mute is for every cluster

    async def unmute(self, user: str) -> bool:
        return await self.store.unmute(user)

    async def aclose(self) -> None:
        return None  # the shared store is its owner's to close


class ScopedHistory:
    """A HistoryStore (bot.notify.history) over one cluster's ClusterQueues of a shared one."""

    def __init__(self, store: HistoryStore, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    async def load(self) -> History:
        history = await self.store.load()
        scope = self.scope
        return History(
            tuple(replace(a, cluster_queue=cq) for a in history.admissions if (cq := scope.queue(a.cluster_queue))),
            tuple(replace(f, cluster_queue=cq) for f in history.finishes if (cq := scope.queue(f.cluster_queue))),
        )

    async def add(self, admissions: Sequence[Observed], finishes: Sequence[Finished], now: datetime) -> None:
        write = self.scope.write
        await self.store.add(
            [replace(a, cluster_queue=write(a.cluster_queue)) for a in admissions],
            [replace(f, cluster_queue=write(f.cluster_queue)) for f in finishes],
            now,
        )

    async def aclose(self) -> None:
        return None  # the shared store is its owner's to close
