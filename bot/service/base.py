"""What every use case of the service stands on: its ports, the clock, explaining one job, what an asker
(and everyone reading the answer) may see, and the audit hook."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from bot import pacing
from bot.errors import ClusterUnavailable
from bot.forecast.history import History
from bot.forecast.outlook import Outlook
from bot.service.explaining import explain_job_in_slices
from bot.service.ports import AccessPolicy, Clock, JobReader, OpenPolicy, SnapshotSource, Watches
from bot.service.results import Asker, Audit, AuditEntry
from bot.trace.explain import Query
from bot.trace.explanation import Explanation

MAX_AUDIENCE = 200  # readers checked one by one; a bigger (or unknown) audience gets private answers


class AccessUnknown(Exception):
    """The access policy could not decide (its API server is away): the question gets Unavailable."""


class ServiceBase:
    """The ports and the shared steps of the use cases (bot.service.botservice.BotService puts them together)."""

    def __init__(
        self,
        source: SnapshotSource,
        *,
        clock: Clock,
        policy: AccessPolicy | None = None,
        audit: Audit | None = None,
        history: Callable[[], History] | None = None,
        watches: Watches | None = None,
        job_reader: JobReader | None = None,
    ) -> None:
        self.source = source
        self.clock = clock
        self.policy: AccessPolicy = policy or OpenPolicy()
        self.audit = audit
        self.history = history  # the admissions the notifier observed, for the ETA
        self.watches = watches  # None: no state store (no watch, mute or snooze)
        self.job_reader = job_reader  # None: "will this fit?" reads no job's YAML (a short spec still)
        self.workers: dict[str, ServiceBase] = {}  # the MultiKueue workers this bot also serves

    # A service of one cluster serves every call itself: the `cluster` its callers name (bot.service.ports.Service,
    # whose other implementation routes over several clusters: bot.multicluster) is this one.

    def scope(self, text: str) -> tuple[str | None, str]:
        """The cluster a question names, and its text without it (one cluster here: none, the text as is)."""
        return None, text

    def place(self, cluster: str | None, namespace: str | None) -> tuple[str | None, str | None]:
        """The cluster and namespace a call is about (one cluster here: as given)."""
        return cluster, namespace

    def unknown_cluster(self, text: str) -> tuple[str, tuple[str, ...]] | None:
        """The cluster a question names (`--cluster X`) when the bot serves no such cluster, with the
        clusters it serves; None when it names none or a served one (one cluster here: never)."""
        return None

    def age_seconds(self, *, cluster: str | None = None) -> int | None:
        taken = self.source.taken_at()
        if taken is None:
            return None
        return max(0, int((self.clock() - taken).total_seconds()))

    async def explain_job(self, namespace: str, name: str, kind: str | None) -> tuple[Explanation, Outlook]:
        """Explain one job, with its outlook (when it will likely run, who holds what it waits for, what would
        admit it), no questions asked about access (the notifier, the CLI)."""
        snapshot = await self.source.snapshot_for(namespace, name, kind)
        # On the loop thread: the trace is short and pure, and a worker thread buys no parallelism under the
        # GIL while its hop costs more than the trace (bench/run.py, thread_hop_*).
        history = self.history() if self.history is not None else None
        # A calibration its ETA reads and the warmer did not make is made first, in slices (bot.service.explaining).
        found = await explain_job_in_slices(
            snapshot, Query(namespace, name, kind), now=self.clock(), history=history, freeze=self._freezes()
        )
        # What it built is walked at the loop's next turn, not in the next question (frozen, when a full
        # collection is due, where the source freezes the collector's view as the production cache does).
        pacing.collect_soon(freeze=self._freezes())
        return found

    def _freezes(self) -> bool:
        """Whether its source freezes the collector's view (the production cache does once synced)."""
        return self.source.freezes_gc

    async def _visible(self, asker: Asker) -> Sequence[str] | None:
        try:
            return await self.policy.visible_namespaces(asker.user, asker.channel)
        except ClusterUnavailable as error:
            raise AccessUnknown() from error

    async def default_namespace(self, asker: Asker, *, cluster: str | None = None) -> str | None:
        """The namespace a question that names none is first looked for in: the first the asker may see here."""
        try:
            return first_of(await self._visible(asker))
        except AccessUnknown:
            return None

    async def _may_see(self, asker: Asker, namespace: str) -> bool:
        try:
            return await self.policy.may_see(asker.user, asker.channel, namespace)
        except ClusterUnavailable as error:
            raise AccessUnknown() from error

    async def may_see_all(self, asker: Asker, namespaces: Iterable[str], *, cluster: str | None = None) -> bool:
        """Whether the asker may see every one of these namespaces (False when that cannot be checked now)."""
        try:
            for namespace in sorted(set(namespaces)):
                if not await self._may_see(asker, namespace):
                    return False
        except AccessUnknown:
            return False
        return True

    async def audience_sees(self, asker: Asker, namespaces: Iterable[str], *, cluster: str | None = None) -> bool:
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
        return self.policy.per_person

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


def first_of(visible: Sequence[str] | None) -> str | None:
    return visible[0] if visible else None
