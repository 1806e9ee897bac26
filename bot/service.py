"""Use cases, shared by Slack, the CLI and the notifier: answer a question about a job, describe a queue.

Ports are Protocols (where the cluster view comes from, who may see what, what time it is); adapters
(`bot.kube`, a dump, the tests) plug in at the composition root (`bot.server`).
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.trace.codes import Verdict
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation
from bot.trace.queueview import QueueView, describe_queue
from bot.trace.snapshot import MemorySnapshot, Snapshot

Clock = Callable[[], datetime]
MAX_CHOICES = 10


class SnapshotSource(Protocol):
    """Where the cluster view comes from: the informer cache, or a dump."""

    @property
    def ready(self) -> bool: ...

    def taken_at(self) -> datetime | None:
        """When the view last matched the cluster (None: unknown, e.g. a dump)."""

    async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> Snapshot:
        """A view good enough to explain that job (may read the job, its pods and events on demand)."""

    async def snapshot(self) -> Snapshot:
        """The cached view (for searches and queue views)."""


class AccessPolicy(Protocol):
    """Who may ask about which namespace."""

    async def visible_namespaces(self, user: str, channel: str) -> Sequence[str] | None:
        """The namespaces this asker may see here (None: all of them)."""

    async def may_see(self, user: str, channel: str, namespace: str) -> bool: ...


class StaticSource:
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

    async def visible_namespaces(self, user: str, channel: str) -> Sequence[str] | None:
        return None

    async def may_see(self, user: str, channel: str, namespace: str) -> bool:
        return True


# --- outcomes of a question ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Answered:
    explanation: Explanation


@dataclass(frozen=True)
class Choose:
    """Several jobs match: the asker picks one."""

    candidates: tuple[tuple[str, str, str], ...]  # (namespace, name, kind)


@dataclass(frozen=True)
class NotFound:
    namespace: str | None
    name: str
    kind: str | None
    suggestions: tuple[str, ...]  # "ns/name"


@dataclass(frozen=True)
class Refused:
    namespace: str


@dataclass(frozen=True)
class Unavailable:
    """The cluster view is not ready yet."""


Outcome = Answered | Choose | NotFound | Refused | Unavailable


@dataclass(frozen=True)
class Asker:
    user: str
    channel: str


class BotService:
    def __init__(self, source: SnapshotSource, *, clock: Clock, policy: AccessPolicy | None = None) -> None:
        self.source = source
        self.clock = clock
        self.policy: AccessPolicy = policy or OpenPolicy()

    def age_seconds(self) -> int | None:
        taken = self.source.taken_at()
        if taken is None:
            return None
        return max(0, int((self.clock() - taken).total_seconds()))

    async def explain_job(self, namespace: str, name: str, kind: str | None) -> Explanation:
        """Explain one job, no questions asked about access (the notifier, the CLI)."""
        snapshot = await self.source.snapshot_for(namespace, name, kind)
        return await asyncio.to_thread(explain, snapshot, Query(namespace, name, kind), now=self.clock())

    async def ask(
        self,
        asker: Asker,
        name: str,
        *,
        namespace: str | None,
        kind: str | None,
        default_namespace: str | None = None,
    ) -> Outcome:
        """Answer "why is <name> pending?" for someone, in some channel: find the namespace when not
        given, keep to what they may see, and explain."""
        if not self.source.ready:
            return Unavailable()
        visible = await self.policy.visible_namespaces(asker.user, asker.channel)
        if namespace is not None:
            if not await self.policy.may_see(asker.user, asker.channel, namespace):
                return Refused(namespace)
            explanation = await self.explain_job(namespace, name, kind)
            if explanation.verdict != Verdict.JOB_NOT_FOUND:
                return Answered(explanation)
            suggestions = await self._suggestions(name, kind, visible)
            return NotFound(namespace, name, kind, suggestions)
        matches = await self._find(name, kind, visible)
        if default_namespace and any(ns == default_namespace for ns, _, _ in matches):
            matches = [m for m in matches if m[0] == default_namespace]
        if len(matches) == 1:
            ns, job_name, job_kind = matches[0]
            return Answered(await self.explain_job(ns, job_name, job_kind))
        if len(matches) > 1:
            return Choose(tuple(matches[:MAX_CHOICES]))
        return NotFound(None, name, kind, await self._suggestions(name, kind, visible))

    async def _find(self, name: str, kind: str | None, visible: Sequence[str] | None) -> list[tuple[str, str, str]]:
        snapshot = await self.source.snapshot()
        namespaces = visible if visible is not None else known_namespaces(snapshot)
        found: list[tuple[str, str, str]] = []
        for namespace in namespaces:
            for job in snapshot.jobs_named(namespace, name):
                if kind is None or job.meta.kind == kind:
                    found.append((namespace, name, job.meta.kind))
            if not any(ns == namespace for ns, _, _ in found):
                for workload in snapshot.workloads_in(namespace):
                    owner = next((o for o in workload.meta.owners if o.name == name), None)
                    if owner is not None and (kind is None or owner.kind == kind):
                        found.append((namespace, name, owner.kind))
                        break
        kinds_first = sorted(set(found), key=lambda m: (m[2] != "Job", m[2] == "Pod", m[0], m[2]))
        return kinds_first

    async def _suggestions(self, name: str, kind: str | None, visible: Sequence[str] | None) -> tuple[str, ...]:
        snapshot = await self.source.snapshot()
        namespaces = visible if visible is not None else known_namespaces(snapshot)
        names: dict[str, str] = {}
        for namespace in namespaces:
            for job in snapshot.jobs_in(namespace):
                if kind is None or job.meta.kind == kind:
                    names.setdefault(job.meta.name, f"{namespace}/{job.meta.name}")
            for workload in snapshot.workloads_in(namespace):
                for owner in workload.meta.owners:
                    names.setdefault(owner.name, f"{namespace}/{owner.name}")
        close = difflib.get_close_matches(name, list(names), n=3, cutoff=0.6)
        return tuple(names[c] for c in close)

    async def queue(self, asker: Asker, namespace: str, local_queue: str) -> QueueView | Refused | Unavailable:
        if not self.source.ready:
            return Unavailable()
        if not await self.policy.may_see(asker.user, asker.channel, namespace):
            return Refused(namespace)
        snapshot = await self.source.snapshot()
        return await asyncio.to_thread(describe_queue, snapshot, namespace, local_queue)

    async def local_queue_namespaces(self, asker: Asker, local_queue: str) -> list[str]:
        """Namespaces (visible to the asker) that have a LocalQueue of that name."""
        snapshot = await self.source.snapshot()
        visible = await self.policy.visible_namespaces(asker.user, asker.channel)
        found = []
        for cq in snapshot.cluster_queues():
            for lq in snapshot.local_queues_of(cq.name):
                namespace = lq.meta.namespace or ""
                if lq.name == local_queue and (visible is None or namespace in visible):
                    found.append(namespace)
        return sorted(set(found))


def known_namespaces(snapshot: Snapshot) -> list[str]:
    """Namespaces the view knows of: Namespace objects, and every namespace with a LocalQueue."""
    names = {ns.meta.name for ns in snapshot.namespaces()}
    for cq in snapshot.cluster_queues():
        names.update(lq.meta.namespace or "" for lq in snapshot.local_queues_of(cq.name))
    names.discard("")
    return sorted(names)


class ChannelPolicy:
    """CHANNEL_NAMESPACES: a channel may ask about its namespaces only; unlisted channels use the `*` entry,
    and without one, everything is visible."""

    def __init__(self, mapping: Callable[[str], Sequence[str] | None]) -> None:
        self._mapping = mapping

    async def visible_namespaces(self, user: str, channel: str) -> Sequence[str] | None:
        return self._mapping(channel)

    async def may_see(self, user: str, channel: str, namespace: str) -> bool:
        visible = self._mapping(channel)
        return visible is None or namespace in visible
