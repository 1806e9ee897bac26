"""What the use cases take and give: who asks (Asker), the outcomes of a question, of a watch, mute or
snooze, and the audit entry each question leaves."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from bot.forecast.outlook import NO_OUTLOOK, Outlook
from bot.forecast.usage import Usage
from bot.trace.explanation import Explanation
from bot.trace.multikueue import Placement
from bot.trace.queueview import QueueView


@dataclass(frozen=True)
class Answered:
    explanation: Explanation
    show_names: bool = False  # its readers may see every namespace the answer names (who waits ahead)
    public: bool = True  # every reader of the conversation may see the job's namespace (else: to the asker only)
    cluster: str = ""  # the cluster it was found in, when the bot serves several (CLUSTERS)
    multikueue: Placement | None = None  # on a MultiKueue manager, where it is dispatched
    workers: tuple[tuple[str, Explanation], ...] = ()  # and each served worker's explanation of its copy
    outlook: Outlook = NO_OUTLOOK  # when it will likely run, who holds what it waits for, what would admit it


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
    cluster: str = ""  # which cluster, when the bot serves several


@dataclass(frozen=True)
class Unavailable:
    """The cluster view is not ready yet."""

    cluster: str = ""  # which cluster, when the bot serves several


Outcome = Answered | Choose | NotFound | Refused | Unavailable


@dataclass(frozen=True)
class Using:
    """Who holds a resource: the usage, and the namespaces whose names the answer may show."""

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


def outcome_name(outcome: object) -> str:
    if isinstance(outcome, Answered | QueueView):
        return "answered"
    if isinstance(outcome, Choose):
        return "choose"
    if isinstance(outcome, NotFound):
        return "not-found"
    if isinstance(outcome, Refused):
        return "refused"
    return "unavailable"
