"""Who is told about a job: everyone watching it and every owner its notify annotations name (on the Workload,
the job and, when the source reads them on demand as a live cluster does, the job's owners), at most
`max_owners` of them; or else the namespace's channel (NAMESPACE_NOTIFY)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from bot.metrics import Metrics
from bot.notify.ports import Messenger
from bot.service.ports import SnapshotSource
from bot.trace.model import NOTIFY_ANNOTATION, NOTIFY_EMAIL_ANNOTATION, Job, Workload

log = logging.getLogger(__name__)


class Audience:
    """The people (and channels) a job's news goes to; the emails the annotations name are looked up once."""

    def __init__(
        self,
        source: SnapshotSource,
        messenger: Messenger,
        namespace_notify: Mapping[str, str],
        max_owners: int,
        metrics: Metrics | None,
    ) -> None:
        self.source = source
        self.messenger = messenger
        self.namespace_notify = namespace_notify
        self.max_owners = max_owners
        self.metrics = metrics
        self._emails: dict[str, str | None] = {}
        self._over_cap: set[tuple[str, ...]] = set()  # annotations naming more people than told (logged once)

    async def owner_values(
        self, namespace: str, name: str, kind: str | None, workload: Workload, jobs: Sequence[Job]
    ) -> tuple[str, ...]:
        """The notify annotations of the Workload, of the job (in the snapshot) and, when the source reads them
        on demand (a live cluster), of the job and its owners."""
        values: list[str] = []
        for meta in (workload.meta, *(j.meta for j in jobs)):
            for annotation in (NOTIFY_ANNOTATION, NOTIFY_EMAIL_ANNOTATION):
                value = meta.annotations.get(annotation, "").strip()
                if value and value not in values:
                    values.append(value)
        if kind != "Workload":  # a source whose snapshots hold the jobs reads none (SnapshotSource.job_owners)
            values += [v for v in await self.source.job_owners(namespace, kind, name) if v not in values]
        return tuple(values)

    async def targets(self, namespace: str, subscribers: Sequence[str], values: Sequence[str]) -> tuple[str, ...]:
        """Who is told: the job's watchers and its annotated owners (both: watching never hides a job from
        its owner), else the namespace's channel."""
        owners = await self.owners(namespace, values)
        if subscribers or owners:
            return tuple(dict.fromkeys([*subscribers, *owners]))
        mapped = self.namespace_notify.get(namespace)
        return (mapped,) if mapped else ()

    async def owners(self, namespace: str, values: Sequence[str]) -> list[str]:
        """The people the notify annotations name, at most max_owners."""
        owners: list[str] = []
        for value in values:
            for part in (p.strip() for p in value.replace(";", ",").split(",")):
                if "@" in part:
                    user = await self._user_for_email(part)
                    if user:
                        owners.append(user)
                elif part[:1] in ("U", "W") and part.isalnum():
                    # People only: a channel named in a job's annotation would let anyone who can annotate a job
                    # have the bot post in that channel. Channels are an admin's choice (NAMESPACE_NOTIFY).
                    owners.append(part)
        owners = list(dict.fromkeys(owners))
        if len(owners) > self.max_owners and values not in self._over_cap:
            self._over_cap.add(tuple(values))  # said once per annotation
            log.warning(
                "notifier: a job's annotations name too many people; only the first are told",
                extra={"namespace": namespace, "named": len(owners), "cap": self.max_owners},
            )
            if self.metrics is not None:
                self.metrics.notify_capped.labels("owners-per-job").inc(len(owners) - self.max_owners)
        return owners[: self.max_owners]

    async def _user_for_email(self, email: str) -> str | None:
        if email not in self._emails:
            self._emails[email] = await self.messenger.user_for_email(email)
        return self._emails[email]
