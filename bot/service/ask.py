"""The use case "why is <job> pending?": find the job (in the namespaces the asker may see, the default one
first when asked), explain it, and shape the answer for its readers (public or private, other teams' job
names or counts, where a MultiKueue manager dispatched it); or say who to choose, or what was meant."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import replace

from bot.errors import BotError
from bot.forecast.outlook import Outlook
from bot.service.base import AccessUnknown, ServiceBase, first_of
from bot.service.results import Answered, Asker, Choose, NotFound, Outcome, Refused, Unavailable, outcome_name
from bot.trace.codes import Verdict
from bot.trace.explanation import Explanation, named_namespaces
from bot.trace.multikueue import multikueue_check, placement
from bot.trace.resolve import is_part_of_a_job, known_namespaces

MAX_CHOICES = 10
MAX_WORKERS_EXPLAINED = 3  # MultiKueue workers whose copy is explained in one answer


class Asking(ServiceBase):
    """Ask about a job (`ask`), as Slack and the terminal do."""

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
            said = outcome.namespace if isinstance(outcome, NotFound | Refused) else namespace
            self._audit(asker, "why", said, name, kind, outcome_name(outcome))
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
                explanation, outlook = await self.explain_job(namespace, name, kind)
                if explanation.verdict != Verdict.JOB_NOT_FOUND:
                    return await self._answered(asker, explanation, outlook)
                suggestions = await self._suggestions(asker, name, kind, visible)
                return NotFound(namespace, name, kind, suggestions)
            matches = [m for m in await self._find(name, kind, visible) if await self._may_see(asker, m[0])]
            default_namespace = first_of(visible) if prefer_default else None
            if default_namespace and any(ns == default_namespace for ns, _, _ in matches):
                matches = [m for m in matches if m[0] == default_namespace]
            if len(matches) == 1:
                ns, job_name, job_kind = matches[0]
                explanation, outlook = await self.explain_job(ns, job_name, job_kind)
                return await self._answered(asker, explanation, outlook)
            if len(matches) > 1:
                return Choose(tuple(matches[:MAX_CHOICES]))
            return NotFound(None, name, kind, await self._suggestions(asker, name, kind, visible))
        except AccessUnknown:
            return Unavailable()

    async def _answered(self, asker: Asker, explanation: Explanation, outlook: Outlook) -> Answered:
        """The answer, for its audience: public when every reader may see the job's namespace (else to the
        asker only), other teams' job names only when every one of its readers may see them."""
        public = await self.audience_sees(asker, [explanation.job.namespace])
        readers = asker if public else Asker(asker.user, asker.channel)
        shows_names = await self._shows_names(readers, explanation, outlook)
        return await self._with_placement(Answered(explanation, shows_names, public, outlook=outlook))

    async def _with_placement(self, answered: Answered) -> Answered:
        """On a MultiKueue manager, where the Workload is dispatched and whether its workers are
        connected; and, for each worker this bot also serves, that worker's own explanation of its copy (the
        same Workload name: Kueue's prebuilt-workload-name)."""
        explanation = answered.explanation
        if explanation.workload is None:
            return answered
        snapshot = await self.source.snapshot()
        workload = snapshot.workload(*explanation.workload)
        if workload is None or multikueue_check(snapshot, workload) is None:
            return answered
        try:
            clusters = await self.source.multikueue_clusters()
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
                copy, _ = await service.explain_job(workload.namespace, workload.name, "Workload")
            except BotError:
                continue
            if copy.verdict != Verdict.JOB_NOT_FOUND:
                copies.append((worker.name, copy))
        return replace(answered, multikueue=found, workers=tuple(copies))

    async def _shows_names(self, asker: Asker, explanation: Explanation, outlook: Outlook) -> bool:
        """Whether the answer may name the other namespaces' jobs it mentions (who waits ahead) to its readers."""
        named: set[str] = set()
        if explanation.position is not None and explanation.position.ahead is not None:
            named.update(ns for ns, _, _ in explanation.position.ahead.workloads)
        if outlook.holders is not None:  # who holds what it waits for
            named.update(outlook.holders.namespaces())
        named.update(explanation.other_namespaces)  # the engine's "also in these namespaces" (job-not-found)
        # other jobs the steps and advice name (a StrictFIFO head, workloads whose pods hold admission)
        named.update(named_namespaces([*(s.text for s in explanation.steps), *(a.text for a in explanation.actions)]))
        named.discard(explanation.job.namespace)
        named.discard("")
        return await self.audience_sees(asker, named)

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
