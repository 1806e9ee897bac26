"""Several clusters in one bot: one BotService per cluster (its own informer cache, its own
access rules), behind a router that the Slack side asks as it would one cluster's service (both are a
bot.service.ports.Service).

A question names its cluster (`prod-eu/team-a/train`, `--cluster prod-eu`: `scope`), or the bot looks in
every cluster whose cache is ready and the channel may see: one match is answered (saying which cluster),
several become a choice (`cluster/namespace` in the buttons, which name the cluster back), none a "not found"
with suggestions from every cluster. A cluster out of reach is skipped (its answer: unavailable), so it never
blocks the others. The cluster is an argument of every call (`cluster`): the Slack side passes the one the
question named, or the one its answer came from (`Answered.cluster`, a button's `cl`), for the rest of its
handling; nothing is kept between calls, so concurrent questions about different clusters never meet.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from bot.clusters import default_cluster, namespaces_in, scope_question
from bot.fit.quota import QueueQuota
from bot.fit.spec import Spec
from bot.forecast.usage import Unknown
from bot.service.botservice import BotService
from bot.service.fitting import BadJob, Fitted
from bot.service.ports import ChannelPolicy, Clock
from bot.service.results import (
    Answered,
    Asker,
    Choose,
    Muted,
    NotFound,
    Outcome,
    Refused,
    Silence,
    Silenced,
    Unavailable,
    Unsupported,
    Using,
    Watching,
)
from bot.trace.explanation import Explanation
from bot.trace.queueview import QueueView
from bot.trace.resolve import JOB_KIND_GROUPS

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


class ClusterRouter:
    """The use cases over several clusters (a bot.service.ports.Service): each call goes to the cluster it names
    (`cluster`, or a `cluster/namespace`), the first by default; a question naming none is looked for in all."""

    def __init__(
        self,
        services: Mapping[str, BotService],
        *,
        clock: Clock,
        channel_default: Callable[[str], Sequence[str] | None] = lambda channel: None,
    ) -> None:
        self.services = dict(services)
        self.clock = clock
        self._first = next(iter(self.services.values()))
        for service in self.services.values():  # a MultiKueue manager's answer follows its job to the workers
            service.workers = {name: other for name, other in self.services.items() if other is not service}
        self._channel_default = channel_default

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.services)

    def _service(self, cluster: str | None) -> BotService:
        """The service of that cluster; the first's when it names none this bot serves."""
        return self.services.get(cluster or "", self._first)

    def place(self, cluster: str | None, namespace: str | None) -> tuple[str | None, str | None]:
        """ "prod-eu/team-a" (from a button) -> ("prod-eu", "team-a"); a cluster not served -> None."""
        if namespace and "/" in namespace:
            named, _, rest = namespace.partition("/")
            if named in self.services:
                return named, rest
        return (cluster if cluster in self.services else None), namespace

    def scope(self, text: str) -> tuple[str | None, str]:
        scoped = scope_question(text, self.names, _KINDS)
        return scoped.cluster, scoped.text

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

    # --- each call, in its cluster --------------------------------------------------------------------------

    @property
    def per_person(self) -> bool:
        return any(service.per_person for service in self.services.values())

    def age_seconds(self, *, cluster: str | None = None) -> int | None:
        return self._service(cluster).age_seconds()

    async def default_namespace(self, asker: Asker, *, cluster: str | None = None) -> str | None:
        named, _ = self.place(cluster, None)
        if named is None:
            return None  # each cluster finds its own (see ask)
        return await self._service(named).default_namespace(asker)

    async def may_see_all(self, asker: Asker, namespaces: Iterable[str], *, cluster: str | None = None) -> bool:
        return await self._service(cluster).may_see_all(asker, namespaces)

    async def audience_sees(self, asker: Asker, namespaces: Iterable[str], *, cluster: str | None = None) -> bool:
        return await self._service(cluster).audience_sees(asker, namespaces)

    async def who(
        self, asker: Asker, words: Sequence[str], *, only_if_known: bool = False, cluster: str | None = None
    ) -> Using | Unknown | Unavailable | None:
        return await self._service(cluster).who(asker, words, only_if_known=only_if_known)

    async def queue(
        self, asker: Asker, namespace: str, local_queue: str, *, cluster: str | None = None
    ) -> QueueView | Refused | Unavailable:
        named, ns = self.place(cluster, namespace)
        result = await self._service(named).queue(asker, ns or namespace, local_queue)
        if isinstance(result, Unavailable | Refused):
            return replace(result, cluster=named or "")
        return result

    async def local_queue_namespaces(self, asker: Asker, local_queue: str, *, cluster: str | None = None) -> list[str]:
        named, _ = self.place(cluster, None)
        if named is not None:
            return await self._service(named).local_queue_namespaces(asker, local_queue)
        found: list[str] = []
        for name, service in self.services.items():
            if service.source.ready:
                found.extend(f"{name}/{ns}" for ns in await service.local_queue_namespaces(asker, local_queue))
        return found

    async def fit_text(
        self, asker: Asker, text: str, namespace: str | None = None, *, cluster: str | None = None
    ) -> Fitted | BadJob | Refused | Unavailable:
        return await self._service(cluster).fit_text(asker, text, namespace)

    async def fit_spec(self, asker: Asker, spec: Spec, *, cluster: str | None = None) -> Fitted | Refused | Unavailable:
        return await self._service(cluster).fit_spec(asker, spec)

    async def quota(
        self, asker: Asker, namespace: str, local_queue: str, *, cluster: str | None = None
    ) -> QueueQuota | Refused | Unavailable:
        return await self._service(cluster).quota(asker, namespace, local_queue)

    # --- a person's watches, in the cluster they are about ------------------------------------------------------

    async def watch(
        self,
        asker: Asker,
        name: str,
        *,
        namespace: str | None,
        kind: str | None,
        on: bool = True,
        cluster: str | None = None,
    ) -> Watching | Outcome | Unsupported:
        """Watch a job of one cluster (each cluster's service keeps its watches in its part of the store)."""
        named, namespace = self.place(cluster, namespace)
        if named is None:  # not named: the job is looked for as a question is, which settles the cluster
            outcome = await self.ask(asker, name, namespace=namespace, kind=kind)
            if not isinstance(outcome, Answered):
                return outcome
            named, namespace = outcome.cluster, outcome.explanation.job.namespace
        done = await self._service(named).watch(asker, name, namespace=namespace, kind=kind, on=on)
        return replace(done, cluster=named) if isinstance(done, Refused) else done

    async def mute(self, asker: Asker, on: bool) -> Muted | Unsupported:
        """A person's mute, kept with the first cluster's watches."""
        return await self._first.mute(asker, on)

    async def silence(
        self, asker: Asker, how: Silence, namespace: str | None, name: str | None, *, cluster: str | None = None
    ) -> Silenced | Unsupported:
        named, namespace = self.place(cluster, namespace)
        return await self._service(named).silence(asker, how, namespace, name)

    async def home(self, user: str) -> list[tuple[str, str, Explanation | None]]:
        """Every cluster's watches of the user, each namespace as `cluster/namespace`."""
        watched: list[tuple[str, str, Explanation | None]] = []
        for cluster, service in self.services.items():
            watched.extend((f"{cluster}/{ns}", name, found) for ns, name, found in await service.home(user))
        return watched

    async def home_told(self, user: str) -> list[tuple[str, str, Explanation | None]]:
        """Every cluster's jobs told to the user (or their namespaces' channels), as `cluster/namespace`."""
        told: list[tuple[str, str, Explanation | None]] = []
        for cluster, service in self.services.items():
            told.extend((f"{cluster}/{ns}", name, found) for ns, name, found in await service.home_told(user))
        return told

    # --- a question ---------------------------------------------------------------------------------------------

    async def ask(
        self,
        asker: Asker,
        name: str,
        *,
        namespace: str | None,
        kind: str | None,
        prefer_default: bool = False,
        cluster: str | None = None,
    ) -> Outcome:
        named, namespace = self.place(cluster, namespace)
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
            outcome = await service.ask(asker, name, namespace=namespace, kind=kind, prefer_default=prefer_default)
            results.append((cluster, outcome))
        found = self._preferred(asker, [(c, o) for c, o in results if isinstance(o, Answered | Choose)])
        if len(found) == 1:
            cluster, outcome = found[0]
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
    """An outcome of one cluster's, saying that cluster: an answer, a refusal or "unavailable" carry it; a choice
    names it in its candidates (`cluster/namespace`), so that the one picked is asked about there."""
    if isinstance(outcome, Answered | Unavailable | Refused):
        return replace(outcome, cluster=cluster)
    if isinstance(outcome, Choose):
        return Choose(tuple(_candidates(cluster, outcome)))
    return outcome
