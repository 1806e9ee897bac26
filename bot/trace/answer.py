"""The Explanation a walk ends with: the verdict, its headline and what the walk wrote down."""

from __future__ import annotations

from datetime import datetime

from bot.copy import DEFAULT_LANGUAGE, render
from bot.trace.codes import Outcome, Verdict
from bot.trace.demand import assigned
from bot.trace.explanation import Action, Explanation, JobRef, Params, Step, Text
from bot.trace.model import NOTIFY_ANNOTATION, NOTIFY_EMAIL_ANNOTATION, Job, Workload
from bot.trace.resolve import WORKLOAD_KIND
from bot.trace.walk import Walk, present


def queued_since(workload: Workload) -> datetime | None:
    """When the last wait began: the last eviction (Evicted, True or flipped back to False on re-admission),
    else the creation."""
    return workload.queued_at  # read when the Workload was made (bot.trace.model.Workload)


def _admitted_at(workload: Workload) -> datetime | None:
    admitted = workload.condition("Admitted")
    return admitted.since if admitted is not None and admitted.is_true else None


def _waiting_since(workload: Workload | None) -> datetime | None:
    if workload is None or workload.admitted or workload.finished:
        return None
    return queued_since(workload)


def _notify_owners(job: Job | None, workload: Workload | None) -> tuple[str, ...]:
    found: list[str] = []
    for meta in (job.meta if job else None, workload.meta if workload else None):
        if meta is None:
            continue
        for key in (NOTIFY_ANNOTATION, NOTIFY_EMAIL_ANNOTATION):
            value = meta.annotations.get(key, "").strip()
            if value and value not in found:
                found.append(value)
    return tuple(found)


def _kind(walk: Walk, workload: Workload | None, job: Job | None) -> str:
    kind = job.meta.kind if job is not None else (walk.query.kind or "Job")
    if kind == WORKLOAD_KIND and workload is not None:
        owner = next((o for o in workload.meta.owners if o.controller), None) or next(iter(workload.meta.owners), None)
        kind = owner.kind if owner is not None else WORKLOAD_KIND
    return kind


# Parameters that carry Kueue's (or the scheduler's) own words, verbatim: each is shown once in an answer.
VERBATIM = ("message", "text", "detail", "reason")
_MIN_VERBATIM = 16  # shorter values are names, not messages


def _words(value: object) -> str | None:
    """The words a parameter shows when it is a message (not a name or a CamelCase reason: long enough,
    with a space); a fragment the engine composed counts by its English sentence."""
    if isinstance(value, Text):
        value = render(value.key, value.params, DEFAULT_LANGUAGE)
    if isinstance(value, str) and len(value.strip()) >= _MIN_VERBATIM and " " in value.strip():
        return value.strip()
    return None


# The quotes a sentence cannot do without: (key, parameter). Every other quote a Text carries is one its
# sentence can leave out (the catalogues give that key a sentence without it); tests/unit/test_quotes_contract.py
# holds both languages' catalogues to this.
NEEDED: frozenset[tuple[str, str]] = frozenset(
    {
        ("admin.inactive.kueue", "message"),
        ("admin.inactive.kueue", "reason"),
        ("admission-checks.provisioning-said", "message"),
        ("conditions.evicted-because", "message"),
        ("conditions.out-of-sync", "message"),
        ("fit.slack.bad-job", "reason"),
        ("fragment.no-flavor", "detail"),
        ("fragment.trouble.config", "reason"),
        ("fragment.trouble.crash", "reason"),
        ("fragment.trouble.create", "reason"),
        ("fragment.trouble.image", "reason"),
        ("fragment.trouble.limit-range", "reason"),
        ("fragment.trouble.mount", "reason"),
        ("fragment.trouble.quota", "reason"),
        ("fragment.trouble.unscheduled", "reason"),
        ("fragment.trouble.webhook", "reason"),
        ("headline.object-unreadable", "reason"),
        ("multikueue.check-message", "message"),
        ("multikueue.disconnected", "message"),
        ("multikueue.disconnected", "reason"),
        ("record.admit-failed", "text"),
        ("record.concurrent-admission", "text"),
        ("record.dra-unsupported", "text"),
        ("record.flavor-assignment-error", "text"),
        ("record.flavor-skipped", "text"),
        ("record.limit-range-violation", "text"),
        ("record.namespace-missing", "text"),
        ("record.overlapping-preemption", "text"),
        ("record.quota-reserved", "text"),
        ("record.requests-exceed-limits", "text"),
        ("record.topology-flavor-mismatch", "text"),
        ("record.topology-request-invalid", "text"),
        ("record.unknown", "text"),
        ("record.unknown-state", "reason"),
        ("scheduling.failed-pods", "message"),
        ("workload.event", "message"),
        ("workload.event", "reason"),
    }
)


def _shown(text: Text) -> list[str]:
    """The words `text` shows: the messages among its VERBATIM parameters."""
    found = [_words(value) for name, value in text.params.items() if name in VERBATIM]
    return [words for words in found if words is not None]


def _once(text: Text, shown: list[str], droppable: bool) -> Text | None:
    """`text` without the words already shown (its shorter sentence); None when it could only repeat them
    and may be left out (`droppable`), else as it is."""
    if not shown or text.params.keys().isdisjoint(VERBATIM):
        return text
    params = dict(text.params)
    for name in VERBATIM:
        words = _words(params.get(name))
        if words is None or not any(words in earlier for earlier in shown):
            continue
        if (text.key, name) in NEEDED:
            return None if droppable else text
        params = {key: value for key, value in params.items() if key != name}
    return Text(text.key, params) if params != dict(text.params) else text


def each_message_once(
    headline: Text, steps: tuple[Step, ...], actions: tuple[Action, ...]
) -> tuple[tuple[Step, ...], tuple[Action, ...]]:
    """Every Kueue message shown once: Kueue copies one message to several conditions and
    events, and the headline quotes what a step or the advice would; the reader sees each once, where it
    comes first (the headline, then the steps in order, then the advice). A step that only informs, or an
    action, whose sentence cannot do without the repeated words is left out: it would say nothing new."""
    texts = (headline, *(step.text for step in steps), *(action.text for action in actions))
    if sum(not text.params.keys().isdisjoint(VERBATIM) for text in texts) < 2:
        return steps, actions  # the usual case: no words a second sentence could repeat
    shown = _shown(headline)
    kept_steps: list[Step] = []
    for step in steps:
        if step.text.params.keys().isdisjoint(VERBATIM):  # most: nothing to repeat, nothing shown
            kept_steps.append(step)
            continue
        text = _once(step.text, shown, droppable=step.outcome == Outcome.INFO)
        if text is None:
            continue
        shown.extend(_shown(text))
        kept_steps.append(step if text is step.text else Step(step.step, step.outcome, step.code, text, step.data))
    kept_actions: list[Action] = []
    for action in actions:
        if action.text.params.keys().isdisjoint(VERBATIM):
            kept_actions.append(action)
            continue
        text = _once(action.text, shown, droppable=False)
        if text is None:
            continue
        shown.extend(_shown(text))
        kept_actions.append(action if text is action.text else Action(action.code, text, action.data))
    return tuple(kept_steps), tuple(kept_actions)


def result(
    walk: Walk, verdict: Verdict, headline: Params, *, workload: Workload | None = None, job: Job | None = None
) -> Explanation:
    query = walk.query
    headline_text = Text(f"headline.{verdict.value}", present({"job": walk.job_label, **headline}))
    steps, actions = each_message_once(headline_text, tuple(walk.steps), tuple(walk.actions))
    return Explanation(
        job=JobRef(_kind(walk, workload, job), query.namespace, query.name),
        workload=(workload.namespace, workload.name) if workload else None,
        verdict=verdict,
        headline=headline_text,
        steps=steps,
        actions=actions,
        demand=walk.demand,
        assigned=assigned(workload) if workload is not None and workload.admission is not None else None,
        position=walk.position,
        local_queue=workload.queue_name if workload else (job.queue_name if job else ""),
        cluster_queue=walk.cluster_queue_name,
        waiting_since=_waiting_since(workload),
        queued_since=queued_since(workload) if workload is not None else None,
        admitted_at=_admitted_at(workload) if workload is not None else None,
        snapshot_taken_at=walk.snapshot.taken_at,
        owners=_notify_owners(job, workload),
        suggestions=walk.suggestions,
        other_namespaces=walk.other_namespaces,
    )
