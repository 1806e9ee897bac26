"""Would it fit? `fit(snapshot, draft, namespace=..., now=...)`: the Workload Kueue would create for the job,
added to the snapshot, then the engine's own explanation of it (the admission path, the flavors, the place it
would take, the ETA, what would admit it), read as now, later or never. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from bot.copy.text import Text
from bot.fit.draft import Built, Draft, build, placed
from bot.fit.overlay import WithJob
from bot.forecast.history import History
from bot.forecast.outlook import NO_OUTLOOK, Outlook, explain_with_outlook
from bot.trace import checks
from bot.trace.checks import Fit, QueueFit
from bot.trace.codes import Outcome, Verdict
from bot.trace.demand import PODS
from bot.trace.explain import Query
from bot.trace.explanation import Explanation, Step
from bot.trace.model import Container, Job, PodSet
from bot.trace.snapshot import Snapshot

NOW = "now"
LATER = "later"
NEVER = "never"
ADMITTED = "admitted"  # the verdict when it fits now: Kueue would admit it at once
STRICT_FIFO_HEAD = "position.strict-fifo-head"  # the step of a Workload behind the head of a StrictFIFO queue

# Verdicts that waiting does not fix as configured, beside those that say so themselves: a stopped queue
# admits nothing until an admin resumes it.
_NEVER_AS_CONFIGURED = frozenset({Verdict.QUEUE_STOPPED})


@dataclass(frozen=True)
class FlavorChoice:
    """The flavor a pod set would get for one resource (the one Kueue's search settles on, or, when none fits,
    the nearest miss), and how it fits there."""

    pod_set: str
    resource: str
    flavor: str
    fit: str  # now | later | never


@dataclass(frozen=True)
class Fitting:
    fits: str  # now | later | never
    verdict: str  # a Verdict's code, or `admitted`
    job: Job  # as it would be created (namespace and a dry-run UID set)
    explanation: Explanation | None  # None: refused before Kueue sees it (requests above limits)
    flavors: tuple[FlavorChoice, ...]
    headline: Text
    refusal: tuple[Step, ...] = ()  # why it is refused before Kueue sees it
    built: Built | None = None
    per_pod: bool = False  # a Deployment: the answer is for one of its pods (each gets its own Workload)
    replicas: int = 1
    outlook: Outlook = NO_OUTLOOK  # when it would likely run, what would admit it (bot.forecast)

    @property
    def steps(self) -> tuple[Step, ...]:
        return self.explanation.steps if self.explanation is not None else self.refusal


def _above_limits(containers: tuple[Container, ...]) -> list[tuple[str, str, Decimal, Decimal]]:
    return [
        (container.name, resource, amount, container.limits[resource])
        for container in containers
        for resource, amount in sorted(container.requests.items())
        if resource in container.limits and amount > container.limits[resource]
    ]


def refusals(pod_sets: tuple[PodSet, ...]) -> tuple[Step, ...]:
    """The API server refuses a pod template whose request exceeds its limit: one step per such request."""
    steps: list[Step] = []
    for pod_set in pod_sets:
        template = pod_set.template
        for container, resource, request, limit in _above_limits(template.containers + template.init_containers):
            params = {"pod_set": pod_set.name, "container": container, "resource": resource}
            params |= {"request": str(request), "limit": str(limit)}
            steps.append(Step("demand", Outcome.FAIL, "fit.request-above-limit", Text("fit.step.above-limit", params)))
    return tuple(steps)


def _queue_fit(snapshot: Snapshot, built: Built) -> QueueFit | None:
    workload = built.workload
    if workload is None:
        return None
    chain = checks.queue_chain(snapshot, workload.namespace, workload.queue_name)
    if chain.cluster_queue is None:
        return None
    return checks.shape_fit(snapshot, chain.cluster_queue, workload)


def _now_later_or_never(fit: Fit) -> str:
    return NOW if fit == Fit.FITS else LATER if fit == Fit.WAITS else NEVER


def flavor_choices(fit: QueueFit | None) -> tuple[FlavorChoice, ...]:
    """Per pod set and resource, the flavor it would get."""
    if fit is None:
        return ()
    found: list[FlavorChoice] = []
    for pod_set in fit.pod_sets:
        wanted = [*sorted(r for r in pod_set.per_pod if r != PODS), PODS]
        for group in pod_set.groups:
            best = group.best
            if best is None:
                continue
            for resource in wanted:
                if resource in group.covered:
                    found.append(FlavorChoice(pod_set.pod_set, resource, best.flavor, _now_later_or_never(best.fit)))
    return tuple(found)


def fits_of(explanation: Explanation, fit: QueueFit | None) -> str:
    """Now, later or never, from the verdict the job would get once submitted and its quota fit. Behind the
    head of a StrictFIFO queue nothing is tried before the head: it waits for the head (later), even when its
    own quota is free."""
    verdict = explanation.verdict
    if verdict.never_fixes_itself or verdict in _NEVER_AS_CONFIGURED:
        return NEVER
    behind_head = any(step.code == STRICT_FIFO_HEAD for step in explanation.steps)
    if verdict == Verdict.NOT_YET_EVALUATED and fit is not None and fit.fit == Fit.FITS and not behind_head:
        return NOW
    return LATER


def _headline(fits: str, job: Job, explanation: Explanation, choices: tuple[FlavorChoice, ...]) -> Text:
    label = f"{job.meta.namespace}/{job.meta.name}"
    if fits == NOW:
        flavors = ", ".join(dict.fromkeys(choice.flavor for choice in choices)) or "-"
        params = {"job": label, "cluster_queue": explanation.cluster_queue, "flavors": flavors}
        return Text("fit.headline.now", params)
    return Text(f"fit.headline.{fits}", {"job": label, "why": explanation.headline})


def _verdict(snapshot: Snapshot, fits: str, explanation: Explanation) -> str:
    """The code the job would get once submitted: `admitted` when it fits now (admission-checks-pending when its
    ClusterQueue has admission checks to pass first)."""
    if fits != NOW or explanation.verdict != Verdict.NOT_YET_EVALUATED:
        return explanation.verdict.value
    cq = snapshot.cluster_queue(explanation.cluster_queue)
    return Verdict.ADMISSION_CHECKS_PENDING.value if cq is not None and cq.admission_checks else ADMITTED


def fit(
    snapshot: Snapshot,
    draft: Draft,
    *,
    namespace: str,
    now: datetime,
    history: History | None = None,
) -> Fitting:
    """What Kueue would do with `draft` if it were submitted in `namespace` at `now`."""
    refused = refusals(draft.pod_sets)
    if refused:
        job = placed(draft, namespace)
        label = f"{job.meta.namespace}/{job.meta.name}"
        headline = Text("fit.headline.refused", {"job": label, "why": refused[0].text})
        return Fitting(NEVER, Verdict.INVALID_REQUEST.value, job, None, (), headline, refused)
    built = build(snapshot, draft, namespace=namespace, now=now)
    overlay = WithJob(snapshot, built.job, built.workload, built.events)
    query = Query(built.job.meta.namespace or namespace, built.job.meta.name, built.job.meta.kind)
    explanation, outlook = explain_with_outlook(overlay, query, now=now, history=history)
    queue_fit = _queue_fit(overlay, built)
    fits = fits_of(explanation, queue_fit)
    verdict = _verdict(overlay, fits, explanation)
    choices = flavor_choices(queue_fit) if built.workload is not None else ()
    headline = _headline(fits, built.job, explanation, choices)
    return Fitting(
        fits, verdict, built.job, explanation, choices, headline, (), built, draft.per_pod, draft.replicas, outlook
    )
