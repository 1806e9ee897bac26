"""The watcher's ports and the names it keys Workloads by: Slack (`Messenger`, implemented in bot.slack.messenger),
a closed DM's words (`Closing`). The owners a live cluster reads on demand are its source's
(bot.service.ports.SnapshotSource.job_owners)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from bot.forecast.eta import Eta
from bot.trace.explanation import Explanation
from bot.trace.model import Workload


@dataclass(frozen=True)
class Closing:
    """One job's end, as a closed DM says it."""

    job: str  # "namespace/name" of the job
    outcome: str  # admitted | finished | deleted
    waited_seconds: int


class Messenger(Protocol):
    """What the watcher needs from Slack (implemented in bot.slack.messenger)."""

    async def send(
        self, target: str, explanations: Sequence[Explanation], keys: Sequence[str], *, eta: Eta | None = None
    ) -> tuple[str, str]:
        """Post a DM (with its job's `eta`) or a digest, for several, to a user or channel; returns (channel, ts)."""

    async def update(
        self, channel: str, ts: str, explanations: Sequence[Explanation], keys: Sequence[str], *, eta: Eta | None = None
    ) -> None: ...

    async def close(self, channel: str, ts: str, closings: Sequence[Closing], target: str) -> None:
        """Edit the DM (or the digest) to say its jobs' waits are over."""

    async def announce_closed(self, channel: str, ts: str, closings: Sequence[Closing], target: str) -> None:
        """Say that these jobs were admitted or finished so that it notifies (an edit notifies nobody): a reply
        in the thread of the DM (channel, ts), broadcast to the conversation."""

    async def announce_never_fits(self, channel: str, ts: str, explanation: Explanation, target: str) -> None:
        """Say that the job will now never fit, why and what to do, so that it notifies (as announce_closed)."""

    async def find_sent(self, target: str, key: str) -> tuple[str, str] | None:
        """A DM about `key` already in the target's conversation (from its metadata): (channel, ts)."""

    async def user_for_email(self, email: str) -> str | None: ...

    async def utc_offset(self, user: str) -> timedelta | None: ...


def workload_key(workload: Workload) -> str:
    return f"{workload.namespace}/{workload.name}/{workload.meta.uid}"


def split_key(key: str) -> tuple[str, str, str]:
    """ "namespace/workload/uid" -> its three parts ("" for a missing one)."""
    parts = [*key.split("/", 2), "", ""]
    return parts[0], parts[1], parts[2]


def job_of(workload: Workload) -> tuple[str, str | None]:
    """(job name, kind) of a Workload's owner; the Workload itself when it has none."""
    owner = next((o for o in workload.meta.owners if o.controller), None) or next(iter(workload.meta.owners), None)
    if owner is None:
        return workload.name, "Workload"
    return owner.name, owner.kind
