"""The service's ports (Protocols: where the cluster view comes from, who may see what, where a person's
watches are kept) and the simple adapters that need nothing else (a fixed snapshot, open or per-channel access)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from bot.trace.snapshot import MemorySnapshot, Snapshot

Clock = Callable[[], datetime]


class SnapshotSource(Protocol):
    """Where the cluster view comes from: the informer cache, or a dump. What a source can do besides answering
    is said here too (`Source` has the defaults of a fixed view: nothing starts, nothing changes)."""

    @property
    def ready(self) -> bool: ...

    def taken_at(self) -> datetime | None:
        """When the view last matched the cluster (None: unknown, e.g. a dump)."""

    async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> Snapshot:
        """A view good enough to explain that job (may read the job, its pods and events on demand)."""

    async def snapshot(self) -> Snapshot:
        """The cached view (for searches and queue views)."""

    async def start(self) -> None:
        """Start following the cluster (the server's, at start; ClusterUnavailable when out of reach)."""

    async def stop(self) -> None: ...

    @property
    def tells_changes(self) -> bool:
        """Whether `add_listener`'s listeners are told of changes (the view changes: the watcher and the ETA
        warmer follow it)."""

    def add_listener(self, listener: Callable[[], None]) -> None:
        """Call `listener()` on the loop thread after each change of the view."""

    def stats(self) -> dict[str, dict[str, int]] | None:
        """For /metrics: objects cached per kind, relists and watch restarts per kind (None: not a cache)."""

    @property
    def freezes_gc(self) -> bool:
        """Whether it freezes the collector's view once synced (the production cache: bot.pacing)."""

    @property
    def away(self) -> bool:
        """Synced once, but its API server does not answer now (it answers from its last view, with its age)."""

    async def multikueue_clusters(self) -> dict[str, tuple[str, str, str]] | None:
        """Each MultiKueueCluster's Active condition, read now (None: it cannot read them)."""


class Source:
    """The defaults of a SnapshotSource for what a fixed view cannot do (a dump, a test's snapshot)."""

    tells_changes = False
    freezes_gc = False
    away = False

    async def start(self) -> None:
        """Nothing to start."""

    async def stop(self) -> None:
        """Nothing to stop."""

    def add_listener(self, listener: Callable[[], None]) -> None:
        """The view never changes: nobody to tell."""

    def stats(self) -> dict[str, dict[str, int]] | None:
        return None

    async def multikueue_clusters(self) -> dict[str, tuple[str, str, str]] | None:
        return None


class AccessPolicy(Protocol):
    """Who may ask about which namespace."""

    @property
    def per_person(self) -> bool:
        """Whether what one may see is not what another may (then an answer's audience matters)."""

    async def visible_namespaces(self, user: str, channel: str) -> Sequence[str] | None:
        """The namespaces this asker may see here (None: all of them)."""

    async def may_see(self, user: str, channel: str, namespace: str) -> bool: ...


class Watches(Protocol):
    """Where a person's watches, mute and snoozes are kept (the notifier's state store; a new watch also wakes
    the notifier). A job is namespace/name; a snooze is keyed by the job, whatever Workload it has."""

    async def watch(self, user: str, namespace: str, name: str, kind: str | None, since: datetime) -> bool:
        """Watch the job (False: already watched)."""

    async def unwatch(self, user: str, namespace: str, name: str) -> bool: ...

    async def mute(self, user: str, since: datetime) -> bool: ...

    async def unmute(self, user: str) -> bool: ...

    async def snooze(self, user: str, namespace: str, name: str, until: datetime) -> None: ...

    async def watched(self, user: str) -> Sequence[tuple[str, str, str | None]]:
        """The jobs the user watches: (namespace, name, kind), in the order they were watched."""

    async def told(self, user: str) -> Sequence[tuple[str, str]]:
        """The jobs the bot has an open DM about: to the user (their notify annotations name them, or they
        watch it) first, then to a namespace's channel (NAMESPACE_NOTIFY): (namespace, name)."""


class StaticSource(Source):
    """A fixed snapshot (a dump file): always ready; its age is unknown."""

    def __init__(self, snapshot: MemorySnapshot) -> None:
        self._snapshot = snapshot

    @property
    def ready(self) -> bool:
        return True

    def taken_at(self) -> datetime | None:
        return self._snapshot.taken_at

    async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> Snapshot:
        return self._snapshot

    async def snapshot(self) -> Snapshot:
        return self._snapshot


class OpenPolicy:
    """Everyone may see every namespace (a cluster without access rules)."""

    per_person = False

    async def visible_namespaces(self, user: str, channel: str) -> Sequence[str] | None:
        return None

    async def may_see(self, user: str, channel: str, namespace: str) -> bool:
        return True


class ChannelPolicy:
    """CHANNEL_NAMESPACES: a channel may ask about its namespaces only; unlisted channels (and DMs) use the `*`
    entry, and without one see nothing (deny by default, bot.config); an empty mapping lets everyone see all."""

    per_person = False

    def __init__(self, mapping: Callable[[str], Sequence[str] | None]) -> None:
        self._mapping = mapping

    async def visible_namespaces(self, user: str, channel: str) -> Sequence[str] | None:
        return self._mapping(channel)

    async def may_see(self, user: str, channel: str, namespace: str) -> bool:
        visible = self._mapping(channel)
        return visible is None or namespace in visible
