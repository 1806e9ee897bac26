"""Use cases, shared by Slack, the CLI and the notifier: answer a question about a job, describe a queue, and a
person's watches (watch, unwatch, mute, snooze or stop the DMs about a job, the App Home's list).

Ports are Protocols (where the cluster view comes from, who may see what, what time it is, where watches are
kept); adapters (`bot.kube`, a dump, `bot.notify.actions` over the state store, the tests) plug in at the
composition root (`bot.server`), which only wires them.

Access: every namespace an answer names is one the asker may see (`AccessPolicy.may_see`): the namespace asked
about, the jobs offered to choose from, the "did you mean" suggestions, the namespaces of a LocalQueue; other
teams' waiting jobs are named only when the asker may see all of their namespaces (`Answered.show_names`),
counted otherwise. Each question (`ask`, `queue`) gives one `AuditEntry` to the `audit` hook.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Protocol

from bot.errors import BadQuery, BotError, ClusterUnavailable
from bot.trace.codes import Verdict
from bot.trace.eta import History
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation, named_namespaces
from bot.trace.multikueue import Placement, multikueue_check, placement
from bot.trace.queueview import QueueView, describe_queue
from bot.trace.resolve import is_part_of_a_job
from bot.trace.snapshot import MemorySnapshot, Snapshot
from bot.trace.usage import Unknown, Usage, resolve, who_uses

Clock = Callable[[], datetime]
MAX_CHOICES = 10
MAX_WORKERS_EXPLAINED = 3  # MultiKueue workers whose copy is explained in one answer (issue 17)
MAX_AUDIENCE = 200  # readers checked one by one; a bigger (or unknown) audience gets private answers


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
    show_names: bool = False  # its readers may see every namespace the answer names (who waits ahead)
    public: bool = True  # every reader of the conversation may see the job's namespace (else: to the asker only)
    cluster: str = ""  # issue 17: the cluster it was found in, when the bot serves several (CLUSTERS)
    multikueue: Placement | None = None  # issue 17: on a MultiKueue manager, where it is dispatched
    workers: tuple[tuple[str, Explanation], ...] = ()  # and each served worker's explanation of its copy


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

    cluster: str = ""  # issue 17: which cluster, when the bot serves several


Outcome = Answered | Choose | NotFound | Refused | Unavailable


@dataclass(frozen=True)
class Using:
    """Who holds a resource (issue 16): the usage, and the namespaces whose names the answer may show."""

    usage: Usage
    shown: frozenset[str]


@dataclass(frozen=True)
class Unsupported:
    """The bot keeps no state (no store): watches, mutes and snoozes are not offered."""


@dataclass(frozen=True)
class Watching:
    """A watch started (on) or ended."""

    namespace: str
    name: str
    on: bool


@dataclass(frozen=True)
class Muted:
    on: bool  # True: no proactive DM at all until unmuted (questions are still answered)


class Silence(StrEnum):
    """What a DM's buttons (and the Home's Stop) ask: snooze the job's DMs for a while, or stop them."""

    SNOOZE_2H = "snooze-2h"
    SNOOZE_1D = "snooze-1d"
    STOP = "stop"  # a snooze for good, and the end of the watch


FOREVER = timedelta(days=365 * 100)  # Stop: no end a person will see
SILENCE_FOR: Mapping[Silence, timedelta] = {
    Silence.SNOOZE_2H: timedelta(hours=2),
    Silence.SNOOZE_1D: timedelta(days=1),
    Silence.STOP: FOREVER,
}


@dataclass(frozen=True)
class Silenced:
    namespace: str
    name: str
    until: datetime | None  # the snooze's end; None: stopped
    refused: bool = False  # the asker may not see that namespace: nothing was changed


@dataclass(frozen=True)
class Asker:
    user: str
    channel: str
    audience: tuple[str, ...] | None = ()  # who else reads a public answer here; None: unknown (too many)


@dataclass(frozen=True)
class AuditEntry:
    """One question, for the audit log: who asked, where, about what, and what came of it (no text)."""

    user: str
    channel: str
    command: str  # why | queue
    namespace: str | None
    name: str
    kind: str | None
    outcome: str  # answered | choose | not-found | refused | unavailable | error
    verdict: str | None  # the verdict's code when answered
    allowed: bool  # False: refused by the access policy


Audit = Callable[[AuditEntry], None]


class _AccessUnknown(Exception):
    """The access policy could not decide (its API server is away): the question gets Unavailable."""


class BotService:
    def __init__(
        self,
        source: SnapshotSource,
        *,
        clock: Clock,
        policy: AccessPolicy | None = None,
        audit: Audit | None = None,
        history: Callable[[], History] | None = None,
        watches: Watches | None = None,
    ) -> None:
        self.source = source
        self.clock = clock
        self.policy: AccessPolicy = policy or OpenPolicy()
        self.audit = audit
        self.history = history  # issue 16: the admissions the notifier observed, for the ETA
        self.watches = watches  # None: no state store (no watch, mute or snooze)
        self.workers: dict[str, BotService] = {}  # issue 17: the MultiKueue workers this bot also serves

    def scope_text(self, text: str) -> str:
        """The question's text without the cluster it names (issue 17: one cluster here, so the text as is)."""
        return text

    def age_seconds(self) -> int | None:
        taken = self.source.taken_at()
        if taken is None:
            return None
        return max(0, int((self.clock() - taken).total_seconds()))

    async def explain_job(self, namespace: str, name: str, kind: str | None) -> Explanation:
        """Explain one job, no questions asked about access (the notifier, the CLI)."""
        snapshot = await self.source.snapshot_for(namespace, name, kind)
        # On the loop thread: the trace is short (bench/: p99 well under 2 ms) and pure, and a worker thread
        # buys no parallelism under the GIL while its hop costs 0.3 to 4 ms (bench/run.py, thread_hop_*).
        history = self.history() if self.history is not None else None
        return explain(snapshot, Query(namespace, name, kind), now=self.clock(), history=history)

    async def ask(
        self,
        asker: Asker,
        name: str,
        *,
        namespace: str | None,
        kind: str | None,
        prefer_default: bool = False,
    ) -> Outcome:
        """Answer "why is <name> pending?" for someone, in some channel: find the namespace when not
        given (with `prefer_default`, a match in the default namespace wins: see default_namespace; resolved
        here, with the one read of what the asker may see), keep to what they may see, and explain. One audit
        entry, whatever happens."""
        try:
            outcome = await self._ask(asker, name, namespace=namespace, kind=kind, prefer_default=prefer_default)
        except Exception:
            self._audit(asker, "why", namespace, name, kind, "error")
            raise
        if isinstance(outcome, Answered):
            job = outcome.explanation.job
            self._audit(asker, "why", job.namespace, job.name, job.kind, "answered", outcome.explanation.verdict.value)
        else:
            self._audit(asker, "why", getattr(outcome, "namespace", namespace), name, kind, _outcome_name(outcome))
        return outcome

    async def _ask(
        self, asker: Asker, name: str, *, namespace: str | None, kind: str | None, prefer_default: bool
    ) -> Outcome:
        if not self.source.ready:
            return Unavailable()
        try:
            visible = await self._visible(asker)
            if namespace is not None:
                if not await self._may_see(asker, namespace):
                    return Refused(namespace)
                explanation = await self.explain_job(namespace, name, kind)
                if explanation.verdict != Verdict.JOB_NOT_FOUND:
                    return await self._answered(asker, explanation)
                suggestions = await self._suggestions(asker, name, kind, visible)
                return NotFound(namespace, name, kind, suggestions)
            matches = [m for m in await self._find(name, kind, visible) if await self._may_see(asker, m[0])]
            default_namespace = _first(visible) if prefer_default else None
            if default_namespace and any(ns == default_namespace for ns, _, _ in matches):
                matches = [m for m in matches if m[0] == default_namespace]
            if len(matches) == 1:
                ns, job_name, job_kind = matches[0]
                explanation = await self.explain_job(ns, job_name, job_kind)
                return await self._answered(asker, explanation)
            if len(matches) > 1:
                return Choose(tuple(matches[:MAX_CHOICES]))
            return NotFound(None, name, kind, await self._suggestions(asker, name, kind, visible))
        except _AccessUnknown:
            return Unavailable()

    async def _visible(self, asker: Asker) -> Sequence[str] | None:
        try:
            return await self.policy.visible_namespaces(asker.user, asker.channel)
        except ClusterUnavailable as error:
            raise _AccessUnknown() from error

    async def default_namespace(self, asker: Asker) -> str | None:
        """The namespace a question that names none is first looked for in: the first the asker may see here."""
        try:
            return _first(await self._visible(asker))
        except _AccessUnknown:
            return None

    async def _may_see(self, asker: Asker, namespace: str) -> bool:
        try:
            return await self.policy.may_see(asker.user, asker.channel, namespace)
        except ClusterUnavailable as error:
            raise _AccessUnknown() from error

    async def may_see_all(self, asker: Asker, namespaces: Iterable[str]) -> bool:
        """Whether the asker may see every one of these namespaces (False when that cannot be checked now)."""
        try:
            for namespace in sorted(set(namespaces)):
                if not await self._may_see(asker, namespace):
                    return False
        except _AccessUnknown:
            return False
        return True

    async def _answered(self, asker: Asker, explanation: Explanation) -> Answered:
        """The answer, for its audience: public when every reader may see the job's namespace (else to the
        asker only), other teams' job names only when every one of its readers may see them."""
        public = await self.audience_sees(asker, [explanation.job.namespace])
        readers = asker if public else Asker(asker.user, asker.channel)
        return await self._with_placement(Answered(explanation, await self._shows_names(readers, explanation), public))

    async def _with_placement(self, answered: Answered) -> Answered:
        """Issue 17: on a MultiKueue manager, where the Workload is dispatched and whether its workers are
        connected; and, for each worker this bot also serves, that worker's own explanation of its copy (the
        same Workload name: Kueue's prebuilt-workload-name)."""
        explanation = answered.explanation
        if explanation.workload is None:
            return answered
        snapshot = await self.source.snapshot()
        workload = snapshot.workload(*explanation.workload)
        if workload is None or multikueue_check(snapshot, workload) is None:
            return answered
        read = getattr(self.source, "multikueue_clusters", None)
        clusters: dict[str, tuple[str, str, str]] | None = None
        if read is not None:
            try:
                clusters = await read()
            except BotError:
                clusters = None  # each worker is then "unknown"
        found = placement(snapshot, workload, clusters)
        if found is None:
            return answered
        copies: list[tuple[str, Explanation]] = []
        for worker in found.workers[:MAX_WORKERS_EXPLAINED]:
            service = self.workers.get(worker.name)
            if service is None or not service.source.ready:
                continue
            try:
                copy = await service.explain_job(workload.namespace, workload.name, "Workload")
            except BotError:
                continue
            if copy.verdict != Verdict.JOB_NOT_FOUND:
                copies.append((worker.name, copy))
        return replace(answered, multikueue=found, workers=tuple(copies))

    async def audience_sees(self, asker: Asker, namespaces: Iterable[str]) -> bool:
        """Whether everyone who reads a public answer here (the asker and `asker.audience`) may see every one
        of these namespaces. An unknown audience (None) or one over MAX_AUDIENCE never may."""
        if asker.audience is None or len(asker.audience) > MAX_AUDIENCE:
            return False
        wanted = sorted(set(namespaces))
        for user in dict.fromkeys((asker.user, *asker.audience)):
            if not await self.may_see_all(Asker(user, asker.channel), wanted):
                return False
        return True

    @property
    def per_person(self) -> bool:
        """Whether the access policy depends on who asks (then an answer's audience matters)."""
        return bool(getattr(self.policy, "per_person", False))

    async def _shows_names(self, asker: Asker, explanation: Explanation) -> bool:
        """Whether the answer may name the other namespaces' jobs it mentions (who waits ahead) to its readers."""
        named: set[str] = set()
        if explanation.position is not None and explanation.position.ahead is not None:
            named.update(ns for ns, _, _ in explanation.position.ahead.workloads)
        if explanation.holders is not None:  # who holds what it waits for (issue 16)
            named.update(explanation.holders.namespaces())
        named.update(explanation.other_namespaces)  # the engine's "also in these namespaces" (job-not-found)
        # other jobs the steps and advice name (a StrictFIFO head, workloads whose pods hold admission)
        named.update(named_namespaces([*(s.text for s in explanation.steps), *(a.text for a in explanation.actions)]))
        named.discard(explanation.job.namespace)
        named.discard("")
        return await self.audience_sees(asker, named)

    def _audit(
        self,
        asker: Asker,
        command: str,
        namespace: str | None,
        name: str,
        kind: str | None,
        outcome: str,
        verdict: str | None = None,
    ) -> None:
        if self.audit is None:
            return
        entry = AuditEntry(
            asker.user, asker.channel, command, namespace, name, kind, outcome, verdict, outcome != "refused"
        )
        self.audit(entry)

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

    async def _suggestions(
        self, asker: Asker, name: str, kind: str | None, visible: Sequence[str] | None
    ) -> tuple[str, ...]:
        """Up to 3 close names ("ns/name"), each in a namespace the asker may see."""
        snapshot = await self.source.snapshot()
        namespaces = visible if visible is not None else known_namespaces(snapshot)
        where: dict[str, dict[str, None]] = {}  # name -> its namespaces, in order
        for namespace in namespaces:
            for job in snapshot.jobs_in(namespace):
                if kind == job.meta.kind or (kind is None and not is_part_of_a_job(job)):
                    where.setdefault(job.meta.name, {})[namespace] = None
            for workload in snapshot.workloads_in(namespace):
                for owner in workload.meta.owners:
                    where.setdefault(owner.name, {})[namespace] = None
        close = difflib.get_close_matches(name, list(where), n=max(1, len(where)), cutoff=0.6)
        found: list[str] = []
        for candidate in close:
            for namespace in where[candidate]:
                if await self._may_see(asker, namespace):
                    found.append(f"{namespace}/{candidate}")
                    break
            if len(found) == 3:
                break
        return tuple(found)

    async def who(
        self, asker: Asker, words: Sequence[str], *, only_if_known: bool = False
    ) -> Using | Unknown | Unavailable | None:
        """Issue 16: who holds a resource (in a flavor, a ClusterQueue: `words`), cluster-wide, with the
        names of the namespaces every reader may see (the others counted). With `only_if_known`, None when a
        word names none of them (then it was a job's name)."""
        if not self.source.ready:
            return Unavailable()
        snapshot = await self.source.snapshot()
        subject = resolve(snapshot, words)
        if isinstance(subject, Unknown):
            if only_if_known:
                return None
            self._audit(asker, "who", None, subject.word, None, "unknown")
            return subject
        usage = who_uses(snapshot, subject, now=self.clock())
        shown = [ns for ns in sorted(usage.namespaces()) if await self.audience_sees(asker, [ns])]
        self._audit(asker, "who", subject.cluster_queue or None, subject.resource, None, "answered")
        return Using(usage, frozenset(shown))

    async def queue(self, asker: Asker, namespace: str, local_queue: str) -> QueueView | Refused | Unavailable:
        """`/kueue queue ns/lq`: the queue's state (one audit entry). Names in it are for the caller to
        hide: see may_see_all."""
        result: QueueView | Refused | Unavailable
        try:
            if not self.source.ready:
                result = Unavailable()
            elif not await self._may_see(asker, namespace):
                result = Refused(namespace)
            else:
                # On the loop thread, without awaiting: the live cache is consistent there, and this is
                # cheap (the queue order is kept sorted; only the first few waiting are read in full).
                snapshot = await self.source.snapshot()
                result = describe_queue(snapshot, namespace, local_queue)
        except _AccessUnknown:
            result = Unavailable()
        except Exception:
            self._audit(asker, "queue", namespace, local_queue, "LocalQueue", "error")
            raise
        self._audit(asker, "queue", namespace, local_queue, "LocalQueue", _outcome_name(result))
        return result

    async def local_queue_namespaces(self, asker: Asker, local_queue: str) -> list[str]:
        """Namespaces (visible to the asker) that have a LocalQueue of that name."""
        snapshot = await self.source.snapshot()
        found = set()
        for cq in snapshot.cluster_queues():
            for lq in snapshot.local_queues_of(cq.name):
                if lq.name == local_queue and lq.meta.namespace:
                    found.add(lq.meta.namespace)
        visible = []
        for namespace in sorted(found):
            try:
                if await self._may_see(asker, namespace):
                    visible.append(namespace)
            except _AccessUnknown:
                continue
        return visible

    # --- a person's watches (with a state store only) -------------------------------------------------

    async def watch(
        self, asker: Asker, name: str, *, namespace: str | None, kind: str | None, on: bool = True
    ) -> Watching | Outcome | Unsupported:
        """`watch` (on) or `unwatch` a job, in a namespace the asker may see. A job named without its namespace is
        looked for as a question is (an audited `ask`, the default namespace not preferred); several matches
        give Choose."""
        if namespace is None:
            outcome = await self.ask(asker, name, namespace=None, kind=kind)
            if not isinstance(outcome, Answered):
                return outcome
            namespace = outcome.explanation.job.namespace
        if not await self.may_see_all(asker, [namespace]):
            return Refused(namespace)
        if self.watches is None:
            return Unsupported()
        if on:
            await self.watches.watch(asker.user, namespace, name, kind, self.clock())
        else:
            await self.watches.unwatch(asker.user, namespace, name)
        return Watching(namespace, name, on)

    async def mute(self, asker: Asker, on: bool) -> Muted | Unsupported:
        """A person's mute: no proactive DM at all until unmuted (questions are still answered)."""
        if self.watches is None:
            return Unsupported()
        await (self.watches.mute(asker.user, self.clock()) if on else self.watches.unmute(asker.user))
        return Muted(on)

    async def silence(
        self, asker: Asker, how: Silence, namespace: str | None, name: str | None
    ) -> Silenced | Unsupported:
        """Snooze or stop the DMs about namespace/name for the asker (a DM's buttons, the Home's Stop). The
        asker must be allowed to see the namespace, as for a question (no cluster read is needed, so none is
        made). BadQuery for a button that names no job (a crafted payload)."""
        if self.watches is None:
            return Unsupported()
        if not namespace or not name or "/" in namespace or "/" in name:
            raise BadQuery("the button names no job")
        if not await self.policy.may_see(asker.user, asker.channel, namespace):
            return Silenced(namespace, name, None, refused=True)
        until = self.clock() + SILENCE_FOR[how]
        await self.watches.snooze(asker.user, namespace, name, until)
        if how == Silence.STOP:
            await self.watches.unwatch(asker.user, namespace, name)
            return Silenced(namespace, name, None)
        return Silenced(namespace, name, until)

    async def home(self, user: str) -> list[tuple[str, str, Explanation | None]]:
        """The App Home: each job the user watches with its explanation now (None when it cannot be had)."""
        if self.watches is None:
            return []
        watched: list[tuple[str, str, Explanation | None]] = []
        for namespace, name, kind in await self.watches.watched(user):
            try:
                explanation: Explanation | None = await self.explain_job(namespace, name, kind)
            except BotError:
                explanation = None
            watched.append((namespace, name, explanation))
        return watched


def _first(visible: Sequence[str] | None) -> str | None:
    return visible[0] if visible else None


def _outcome_name(outcome: object) -> str:
    if isinstance(outcome, Answered | QueueView):
        return "answered"
    if isinstance(outcome, Choose):
        return "choose"
    if isinstance(outcome, NotFound):
        return "not-found"
    if isinstance(outcome, Refused):
        return "refused"
    return "unavailable"


def known_namespaces(snapshot: Snapshot) -> list[str]:
    """Namespaces the view knows of: Namespace objects, and every namespace with a LocalQueue."""
    names = {ns.meta.name for ns in snapshot.namespaces()}
    for cq in snapshot.cluster_queues():
        names.update(lq.meta.namespace or "" for lq in snapshot.local_queues_of(cq.name))
    names.discard("")
    return sorted(names)


class ChannelPolicy:
    """CHANNEL_NAMESPACES: a channel may ask about its namespaces only; unlisted channels (and DMs) use the `*`
    entry, and without one see nothing (deny by default, bot.config); an empty mapping lets everyone see all."""

    def __init__(self, mapping: Callable[[str], Sequence[str] | None]) -> None:
        self._mapping = mapping

    async def visible_namespaces(self, user: str, channel: str) -> Sequence[str] | None:
        return self._mapping(channel)

    async def may_see(self, user: str, channel: str, namespace: str) -> bool:
        visible = self._mapping(channel)
        return visible is None or namespace in visible
