"""Several clusters in one bot: one BotService per cluster (its own informer cache, its own
access rules), behind a router that the Slack side uses as its service.

A question names its cluster (`prod-eu/team-a/train`, `--cluster prod-eu`: `scope_text`), or the bot looks in
every cluster whose cache is ready and the channel may see: one match is answered (saying which cluster),
several become a choice (`cluster/namespace` in the buttons, which name the cluster back), none a "not found"
with suggestions from every cluster. A cluster out of reach is skipped (its answer: unavailable), so it never
blocks the others. The cluster a question was settled in is kept for the rest of its handling (a ContextVar:
each Slack event is handled in a task of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import datetime

from bot.clusters import default_cluster, namespaces_in, scope_question
from bot.forecast.outlook import Outlook
from bot.service import (
    Answered,
    Asker,
    BotService,
    ChannelPolicy,
    Choose,
    NotFound,
    Outcome,
    Refused,
    Silence,
    Silenced,
    Unavailable,
    Unsupported,
    Watching,
)
from bot.trace.explanation import Explanation
from bot.trace.queueview import QueueView
from bot.trace.resolve import JOB_KIND_GROUPS

CURRENT: ContextVar[str | None] = ContextVar("kueue_bot_cluster", default=None)
_KINDS = frozenset(kind.lower() for kind in JOB_KIND_GROUPS) | {"job", "jobs", "workload", "pod"}


@dataclass(frozen=True)
class ClusterState:
    """For /readyz and /metrics: ok (synced, watching), stale (synced, its watches broken: answers from the
    cache, with its age), starting (never synced: no answers yet)."""

    name: str
    state: str
    age_seconds: int | None


def per_cluster_policy(mapping: Callable[[str], Sequence[str] | None], cluster: str) -> ChannelPolicy:
    """CHANNEL_NAMESPACES for one cluster: its `cluster/ns` entries and those naming no cluster."""

    def visible(channel: str) -> Sequence[str] | None:
        found = mapping(channel)
        return namespaces_in(tuple(found) if found is not None else None, cluster)

    return ChannelPolicy(visible)


class ClusterRouter(BotService):
    """A BotService over several: each call goes to the cluster of the question (CURRENT), the first by default."""

    def __init__(
        self,
        services: Mapping[str, BotService],
        *,
        clock: Callable[[], datetime],
        channel_default: Callable[[str], Sequence[str] | None] = lambda channel: None,
    ) -> None:
        first = next(iter(services.values()))
        super().__init__(
            first.source,
            clock=clock,
            policy=first.policy,
            audit=first.audit,
            history=first.history,
            watches=first.watches,
        )
        self.services = dict(services)
        for service in self.services.values():  # a MultiKueue manager's answer follows its job to the workers
            service.workers = {name: other for name, other in self.services.items() if other is not service}
        self._channel_default = channel_default

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.services)

    def _picked(self) -> BotService:
        return self.services.get(CURRENT.get() or "", next(iter(self.services.values())))

    def _split(self, namespace: str | None) -> tuple[str | None, str | None]:
        """ "prod-eu/team-a" (from a button) -> ("prod-eu", "team-a")."""
        if namespace and "/" in namespace:
            cluster, _, rest = namespace.partition("/")
            if cluster in self.services:
                return cluster, rest
        return None, namespace

    def scope_text(self, text: str) -> str:
        scoped = scope_question(text, self.names, _KINDS)
        CURRENT.set(scoped.cluster)
        return scoped.text

    def in_cluster(self, cluster: str | None, namespace: str | None) -> str | None:
        """`cluster/namespace` for a cluster this bot serves (a button of a cluster since removed: as is)."""
        if cluster and namespace and cluster in self.services and "/" not in namespace:
            return f"{cluster}/{namespace}"
        return namespace

    def unknown_cluster(self, text: str) -> tuple[str, tuple[str, ...]] | None:
        named = scope_question(text, self.names, _KINDS).unknown
        return (named, self.names) if named is not None else None

    def states(self) -> list[ClusterState]:
        found = []
        for name, service in self.services.items():
            source = service.source
            age = service.age_seconds()
            if not source.ready:
                state = "starting"
            elif source.away:
                state = "stale"
            else:
                state = "ok"
            found.append(ClusterState(name, state, age))
        return found

    # --- BotService, per cluster ------------------------------------------------------------------------------

    @property
    def per_person(self) -> bool:
        return any(service.per_person for service in self.services.values())

    def age_seconds(self) -> int | None:
        return self._picked().age_seconds()

    async def explain_job(self, namespace: str, name: str, kind: str | None) -> tuple[Explanation, Outlook]:
        cluster, ns = self._split(namespace)
        if cluster is not None:
            CURRENT.set(cluster)
        return await self._picked().explain_job(ns or namespace, name, kind)

    async def default_namespace(self, asker: Asker) -> str | None:
        if CURRENT.get() is None:
            return None  # each cluster finds its own (see ask)
        return await self._picked().default_namespace(asker)

    async def may_see_all(self, asker: Asker, namespaces: Iterable[str]) -> bool:
        return await self._picked().may_see_all(asker, namespaces)

    async def audience_sees(self, asker: Asker, namespaces: Iterable[str]) -> bool:
        return await self._picked().audience_sees(asker, namespaces)

    async def queue(self, asker: Asker, namespace: str, local_queue: str) -> QueueView | Refused | Unavailable:
        cluster, ns = self._split(namespace)
        if cluster is not None:
            CURRENT.set(cluster)
        result = await self._picked().queue(asker, ns or namespace, local_queue)
        if isinstance(result, Unavailable | Refused):
            return replace(result, cluster=CURRENT.get() or "")
        return result

    async def local_queue_namespaces(self, asker: Asker, local_queue: str) -> list[str]:
        if CURRENT.get() is not None:
            return await self._picked().local_queue_namespaces(asker, local_queue)
        found: list[str] = []
        for name, service in self.services.items():
            if service.source.ready:
                found.extend(f"{name}/{ns}" for ns in await service.local_queue_namespaces(asker, local_queue))
        return found

    # --- a person's watches, in the cluster they are about ------------------------------------------------------

    async def watch(
        self, asker: Asker, name: str, *, namespace: str | None, kind: str | None, on: bool = True
    ) -> Watching | Outcome | Unsupported:
        """Watch a job of one cluster (each cluster's service keeps its watches in its part of the store)."""
        cluster, namespace = self._split(namespace)
        if cluster is not None:
            CURRENT.set(cluster)
        if CURRENT.get() is None:  # not named: the job is looked for as a question is, which settles the cluster
            outcome = await self.ask(asker, name, namespace=namespace, kind=kind)
            if not isinstance(outcome, Answered):
                return outcome
            namespace = outcome.explanation.job.namespace
        done = await self._picked().watch(asker, name, namespace=namespace, kind=kind, on=on)
        return replace(done, cluster=CURRENT.get() or "") if isinstance(done, Refused) else done

    async def silence(
        self, asker: Asker, how: Silence, namespace: str | None, name: str | None
    ) -> Silenced | Unsupported:
        cluster, namespace = self._split(namespace)
        if cluster is not None:
            CURRENT.set(cluster)
        return await self._picked().silence(asker, how, namespace, name)

    async def home(self, user: str) -> list[tuple[str, str, Explanation | None]]:
        """Every cluster's watches of the user, each namespace as `cluster/namespace`."""
        watched: list[tuple[str, str, Explanation | None]] = []
        for cluster, service in self.services.items():
            token = CURRENT.set(cluster)
            try:
                watched.extend((f"{cluster}/{ns}", name, found) for ns, name, found in await service.home(user))
            finally:
                CURRENT.reset(token)
        return watched

    async def home_told(self, user: str) -> list[tuple[str, str, Explanation | None]]:
        """Every cluster's jobs told to the user (or their namespaces' channels), as `cluster/namespace`."""
        told: list[tuple[str, str, Explanation | None]] = []
        for cluster, service in self.services.items():
            token = CURRENT.set(cluster)
            try:
                told.extend((f"{cluster}/{ns}", name, found) for ns, name, found in await service.home_told(user))
            finally:
                CURRENT.reset(token)
        return told

    async def ask(
        self,
        asker: Asker,
        name: str,
        *,
        namespace: str | None,
        kind: str | None,
        prefer_default: bool = False,
    ) -> Outcome:
        cluster, namespace = self._split(namespace)
        if cluster is not None:
            CURRENT.set(cluster)
        named = CURRENT.get()
        if named is not None:
            service = self.services[named]
            outcome = await service.ask(asker, name, namespace=namespace, kind=kind, prefer_default=prefer_default)
            return _tagged(outcome, named)
        return await self._everywhere(asker, name, namespace, kind, prefer_default)

    async def _everywhere(
        self, asker: Asker, name: str, namespace: str | None, kind: str | None, prefer_default: bool
    ) -> Outcome:
        """Look in every cluster that is ready; one answer, a choice of clusters, or not found anywhere."""
        results: list[tuple[str, Outcome]] = []
        away: list[str] = []
        for cluster, service in self.services.items():
            if not service.source.ready:
                away.append(cluster)
                continue
            token = CURRENT.set(cluster)
            try:
                outcome = await service.ask(asker, name, namespace=namespace, kind=kind, prefer_default=prefer_default)
            finally:
                CURRENT.reset(token)
            results.append((cluster, outcome))
        found = self._preferred(asker, [(c, o) for c, o in results if isinstance(o, Answered | Choose)])
        if len(found) == 1:
            cluster, outcome = found[0]
            CURRENT.set(cluster)
            return _tagged(outcome, cluster)
        if found:
            return Choose(tuple(candidate for cluster, outcome in found for candidate in _candidates(cluster, outcome)))
        return _nothing_found(results, away, namespace, name, kind)

    def _preferred(self, asker: Asker, found: list[tuple[str, Outcome]]) -> list[tuple[str, Outcome]]:
        """Several clusters have the job: the channel's default cluster, when it is one of them, wins."""
        preferred = default_cluster(tuple(self._channel_default(asker.channel) or ()))
        if len(found) > 1 and preferred is not None and any(c == preferred for c, _ in found):
            return [(c, o) for c, o in found if c == preferred]
        return found


def _candidates(cluster: str, outcome: Outcome) -> list[tuple[str, str, str]]:
    """The choices one cluster offers, their namespace prefixed with the cluster (`cluster/ns`)."""
    if isinstance(outcome, Answered):
        job = outcome.explanation.job
        return [(f"{cluster}/{job.namespace}", job.name, job.kind)]
    if isinstance(outcome, Choose):
        return [(f"{cluster}/{ns}", n, k) for ns, n, k in outcome.candidates]
    return []


def _nothing_found(
    results: list[tuple[str, Outcome]], away: list[str], namespace: str | None, name: str, kind: str | None
) -> Outcome:
    """No cluster has the job: refused everywhere, no cluster ready, or not found with every cluster's suggestions."""
    refused = [(c, o) for c, o in results if isinstance(o, Refused)]
    if refused and len(refused) == len(results):
        return _tagged(refused[0][1], refused[0][0])
    if not results:
        return Unavailable(", ".join(away))
    suggestions = [
        f"{cluster}/{s}" for cluster, outcome in results if isinstance(outcome, NotFound) for s in outcome.suggestions
    ]
    return NotFound(namespace, name, kind, tuple(suggestions[:3]))


def _tagged(outcome: Outcome, cluster: str) -> Outcome:
    if isinstance(outcome, Answered | Unavailable | Refused):
        return replace(outcome, cluster=cluster)
    return outcome
