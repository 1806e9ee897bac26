"""Will it fit? (a dry run of a job not yet created) and what a LocalQueue can give now, as use cases: the asker's
access applies as for questions (a namespace they may not see is refused), one audit entry each."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import JobFileInvalid
from bot.fit.decide import Fitting, fit
from bot.fit.draft import Draft
from bot.fit.quota import QueueQuota, queue_quota
from bot.fit.spec import Spec, draft_of_spec
from bot.service.base import AccessUnknown, ServiceBase
from bot.service.results import Asker, Refused, Unavailable

DEFAULT_NAMESPACE = "default"


@dataclass(frozen=True)
class Fitted:
    fitting: Fitting


@dataclass(frozen=True)
class BadJob:
    """The text is not one job the bot can read (the reason in one line), or no reader is set."""

    reason: str


class FitCases(ServiceBase):
    """`fit` (a job's YAML, read by its `job_reader`, or a short spec) and `quota` (a LocalQueue's quota, now)."""

    async def fit_text(
        self, asker: Asker, text: str, namespace: str | None = None, *, cluster: str | None = None
    ) -> Fitted | BadJob | Refused | Unavailable:
        """The dry run of the job `text` holds (YAML or JSON), in its namespace, else `namespace`, else the first
        the asker may see."""
        if self.job_reader is None:
            return BadJob("this bot reads no job files")
        try:
            draft = self.job_reader(text, "the job")
        except JobFileInvalid as error:
            self._audit(asker, "fit", namespace, "", None, "bad-job")
            return BadJob(str(error))
        return await self.fit_draft(asker, draft, namespace)

    async def fit_spec(self, asker: Asker, spec: Spec, *, cluster: str | None = None) -> Fitted | Refused | Unavailable:
        return await self.fit_draft(asker, draft_of_spec(spec, spec.namespace or ""), spec.namespace)

    async def fit_draft(
        self, asker: Asker, draft: Draft, namespace: str | None = None
    ) -> Fitted | Refused | Unavailable:
        name, kind = draft.job.meta.name, draft.job.meta.kind
        try:
            where = draft.job.meta.namespace or namespace or await self.default_namespace(asker) or DEFAULT_NAMESPACE
            if not self.source.ready:
                result: Fitted | Refused | Unavailable = Unavailable()
            elif not await self._may_see(asker, where):
                result = Refused(where)
            else:
                snapshot = await self.source.snapshot()
                history = self.history() if self.history is not None else None
                result = Fitted(fit(snapshot, draft, namespace=where, now=self.clock(), history=history))
        except AccessUnknown:
            where, result = namespace or "", Unavailable()
        verdict = result.fitting.verdict if isinstance(result, Fitted) else None
        self._audit(asker, "fit", where, name, kind, _outcome(result), verdict)
        return result

    async def quota(
        self, asker: Asker, namespace: str, local_queue: str, *, cluster: str | None = None
    ) -> QueueQuota | Refused | Unavailable:
        """`/kueue quota ns/lq`: what the queue can give now, per flavor and resource."""
        result: QueueQuota | Refused | Unavailable
        try:
            if not self.source.ready:
                result = Unavailable()
            elif not await self._may_see(asker, namespace):
                result = Refused(namespace)
            else:
                result = queue_quota(await self.source.snapshot(), namespace, local_queue)
        except AccessUnknown:
            result = Unavailable()
        self._audit(asker, "quota", namespace, local_queue, "LocalQueue", _outcome(result))
        return result


def _outcome(result: object) -> str:
    if isinstance(result, Refused):
        return "refused"
    if isinstance(result, Unavailable):
        return "unavailable"
    return "answered"
