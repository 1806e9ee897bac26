"""Use cases, shared by Slack, the CLI and the notifier: answer a question about a job, describe a queue, and a
person's watches (watch, unwatch, mute, snooze or stop the DMs about a job, the App Home's list).

Ports are Protocols (where the cluster view comes from, who may see what, what time it is, where watches are
kept; and the service as the Slack side asks it, over one cluster or several: `Service`); adapters (`bot.kube`,
a dump, `bot.notify.actions` over the state store, the tests) plug in at the composition root (`bot.server`),
which only wires them.

Access: every namespace an answer names is one the asker may see (`AccessPolicy.may_see`): the namespace asked
about, the jobs offered to choose from, the "did you mean" suggestions, the namespaces of a LocalQueue; other
teams' waiting jobs are named only when the asker may see all of their namespaces (`Answered.show_names`),
counted otherwise. Each question (`ask`, `queue`) gives one `AuditEntry` to the `audit` hook.

One module a use case, one class holding them (BotService, below): `ask` (a question about a job),
`views` (who holds a resource, a LocalQueue), `watches` (watch, unwatch, mute, snooze, the App Home), on
`base` (explaining a job, what an asker and an answer's readers may see, the audit); the ports and simple
adapters in `ports`, what the use cases take and give in `results`; `warmer`: every ClusterQueue's ETA Estimators
made ahead of the questions (on cluster changes and before each minute), so that no question replays a queue.
"""

from __future__ import annotations

from bot.service.ask import MAX_CHOICES, MAX_WORKERS_EXPLAINED
from bot.service.base import MAX_AUDIENCE
from bot.service.fitting import BadJob, FitCases, Fitted
from bot.service.ports import (
    AccessPolicy,
    ChannelPolicy,
    Clock,
    OpenPolicy,
    Service,
    SnapshotSource,
    Source,
    StaticSource,
    Watches,
)
from bot.service.results import (
    FOREVER,
    SILENCE_FOR,
    Answered,
    Asker,
    Audit,
    AuditEntry,
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
from bot.service.views import ClusterViews
from bot.service.watches import PersonalWatches
from bot.trace.resolve import known_namespaces

__all__ = [
    "FOREVER",
    "MAX_AUDIENCE",
    "MAX_CHOICES",
    "MAX_WORKERS_EXPLAINED",
    "SILENCE_FOR",
    "AccessPolicy",
    "Answered",
    "Asker",
    "Audit",
    "AuditEntry",
    "BadJob",
    "BotService",
    "ChannelPolicy",
    "Choose",
    "Clock",
    "Fitted",
    "Muted",
    "NotFound",
    "OpenPolicy",
    "Outcome",
    "Refused",
    "Service",
    "Silence",
    "Silenced",
    "SnapshotSource",
    "Source",
    "StaticSource",
    "Unavailable",
    "Unsupported",
    "Using",
    "Watches",
    "Watching",
    "known_namespaces",
]


class BotService(PersonalWatches, ClusterViews, FitCases):
    """Every use case over one cluster view: a `Service` (bot.multicluster.ClusterRouter is the other, over
    several clusters' BotServices)."""
