"""The service's ports (Protocols: where the cluster view comes from, who may see what, where a person's
watches are kept, what reads a job's YAML; and the service itself as its callers see it: `Service`) and the
simple adapters that need nothing else (a fixed snapshot, open or per-channel access)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from bot.fit.quota import QueueQuota
from bot.fit.spec import Spec
from bot.forecast.usage import Unknown
from bot.service.results import (
    Asker,
    Muted,
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
from bot.trace.snapshot import MemorySnapshot, Snapshot

if TYPE_CHECKING:  # (bot.service.fitting stands on these ports)
    from bot.fit.draft import Draft
    from bot.service.fitting import BadJob, Fitted

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

    async def job_owners(self, namespace: str, kind: str | None, name: str) -> Sequence[str]:
        """The notify annotations of a job and of its owners, read now, for a source whose snapshots do not hold
        the jobs (a live cluster); none where the snapshots hold them (the notifier reads those there)."""


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

    async def job_owners(self, namespace: str, kind: str | None, name: str) -> Sequence[str]:
        return ()


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


class JobReader(Protocol):
    """What reads the job a text holds (YAML or JSON) for "will this fit?" (bot.kube.jobfile.parse_job_text, as
    the CLI reads a job file); raises JobFileInvalid."""

    def __call__(self, text: str, source: str, /) -> Draft:
        """The job in `text`, a Draft; `source` says where the text comes from (in the error's words)."""


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


class Service(Protocol):
    """The use cases as the Slack side asks them: over one cluster (bot.service.botservice.BotService) or several
    (bot.multicluster.ClusterRouter). `cluster` says which cluster a call is about: the one a question names
    (`scope`), or the one an earlier answer came from (`Answered.cluster`, a button's `cl`); None when none is
    named (a question is then looked for in every cluster; the other calls go to the first). A service of one
    cluster serves every call itself."""

    clock: Clock

    @property
    def per_person(self) -> bool:
        """Whether what one may see is not what another may (then an answer's audience matters)."""

    def scope(self, text: str) -> tuple[str | None, str]:
        """The cluster a question's text names (None: none) and the text without it."""

    def unknown_cluster(self, text: str) -> tuple[str, tuple[str, ...]] | None:
        """The cluster a question names (`--cluster X`) when the bot serves no such cluster, with the
        clusters it serves; None when it names none or a served one."""

    def place(self, cluster: str | None, namespace: str | None) -> tuple[str | None, str | None]:
        """The cluster and namespace a call is about: a namespace given as `cluster/namespace` (a choice
        across clusters) names its cluster; a cluster the bot does not serve (a button of one since removed) is
        none."""

    def age_seconds(self, *, cluster: str | None = None) -> int | None:
        """How old the cluster's view is (None: unknown)."""

    async def ask(
        self,
        asker: Asker,
        name: str,
        *,
        namespace: str | None,
        kind: str | None,
        prefer_default: bool = False,
        cluster: str | None = None,
    ) -> Outcome: ...

    async def who(
        self, asker: Asker, words: Sequence[str], *, only_if_known: bool = False, cluster: str | None = None
    ) -> Using | Unknown | Unavailable | None: ...

    async def queue(
        self, asker: Asker, namespace: str, local_queue: str, *, cluster: str | None = None
    ) -> QueueView | Refused | Unavailable: ...

    async def local_queue_namespaces(self, asker: Asker, local_queue: str, *, cluster: str | None = None) -> list[str]:
        """Namespaces (visible to the asker) that have a LocalQueue of that name; each as `cluster/namespace`
        when looked for in several clusters."""

    async def default_namespace(self, asker: Asker, *, cluster: str | None = None) -> str | None: ...

    async def may_see_all(self, asker: Asker, namespaces: Iterable[str], *, cluster: str | None = None) -> bool: ...

    async def audience_sees(self, asker: Asker, namespaces: Iterable[str], *, cluster: str | None = None) -> bool: ...

    async def watch(
        self,
        asker: Asker,
        name: str,
        *,
        namespace: str | None,
        kind: str | None,
        on: bool = True,
        cluster: str | None = None,
    ) -> Watching | Outcome | Unsupported: ...

    async def mute(self, asker: Asker, on: bool) -> Muted | Unsupported: ...

    async def silence(
        self, asker: Asker, how: Silence, namespace: str | None, name: str | None, *, cluster: str | None = None
    ) -> Silenced | Unsupported: ...

    async def home(self, user: str) -> list[tuple[str, str, Explanation | None]]: ...

    async def home_told(self, user: str) -> list[tuple[str, str, Explanation | None]]: ...

    async def fit_text(
        self, asker: Asker, text: str, namespace: str | None = None, *, cluster: str | None = None
    ) -> Fitted | BadJob | Refused | Unavailable: ...

    async def fit_spec(
        self, asker: Asker, spec: Spec, *, cluster: str | None = None
    ) -> Fitted | Refused | Unavailable: ...

    async def quota(
        self, asker: Asker, namespace: str, local_queue: str, *, cluster: str | None = None
    ) -> QueueQuota | Refused | Unavailable: ...
