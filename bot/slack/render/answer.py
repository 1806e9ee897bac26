"""The answer to "why is my job pending?": the pieces its messages share (the verdict line, the place in the
queue, the buttons' value) and the steps on demand (the admission path, who holds what it waits for, the one
list of what can be done). The first message is bot.slack.render.first. Pure."""

from __future__ import annotations

from collections.abc import Mapping

from bot.copy.text import Value
from bot.forecast.outlook import NO_OUTLOOK, Outlook
from bot.forecast.texts import holders_texts
from bot.forecast.todo import todo_list
from bot.slack.mrkdwn import bold, code
from bot.slack.render.blocks import (
    FAMILY_EMOJI,
    Blocks,
    SlackMessage,
    button_value,
    chars,
    code_name,
    context,
    engine_text,
    family,
    free_text,
    job_name,
    message,
    ordinal,
    packed,
    say,
    section,
    words,
)
from bot.trace.codes import Outcome
from bot.trace.explanation import LOWER_BOUND, WORKLOAD, WORKLOAD_ELSEWHERE, Explanation, Position, Text

OUTCOME_MARK: Mapping[Outcome, str] = {
    Outcome.PASS: ":white_check_mark:",
    Outcome.FAIL: ":x:",
    Outcome.INFO: ":information_source:",
    Outcome.SKIPPED: ":heavy_minus_sign:",
}
STEP_ORDER = (
    "job",
    "workload",
    "demand",
    "conditions",
    "local-queue",
    "cluster-queue",
    "flavors",
    "quota",
    "position",
    "admission-checks",
    "scheduling",
)
_HIDDEN_ACTIONS = frozenset({"other-namespace"})  # they name other namespaces: only for readers who may see them


def for_readers(text: Text, own_namespace: str, *, show_names: bool) -> Text:
    """A step or an action as its readers may see it: a job of another namespace it names (the head of a
    StrictFIFO queue, a workload whose pods hold admission) becomes "a workload of another namespace" unless
    they may see every namespace the answer names (Answered.show_names)."""
    if show_names:
        return text
    redacted = _redact(text, own_namespace)
    assert isinstance(redacted, Text)
    return redacted


def _redact(value: Value, own: str) -> Value:
    if isinstance(value, tuple):
        return tuple(_redact(part, own) for part in value)  # type: ignore[misc]
    if not isinstance(value, Text):
        return value
    if value.key == WORKLOAD and value.params.get("namespace") != own:
        return Text(WORKLOAD_ELSEWHERE, {})
    return Text(value.key, {name: _redact(part, own) for name, part in value.params.items()})


def verdict_line(explanation: Explanation, language: str) -> str:
    kind = family(explanation.verdict)
    return f"{FAMILY_EMOJI[kind]} *{say(f'slack.family.{kind}', language)}* · {code(explanation.verdict.value)}"


def position_text(position: Position, language: str, *, named: bool) -> str:
    fragments: dict[str, str | int] = {"cq_position": ordinal(position.cluster_queue, language)}
    if position.source == LOWER_BOUND:  # one namespace's Workloads only: never stated as the queue's position
        fragments["namespace"] = code_name(position.scope or "-")
        if named:
            fragments["cluster_queue"] = code_name(position.cluster_queue_name or "-")
        return say("slack.summary.position-at-least", language, **fragments)
    if position.pending_total:
        fragments["total"] = position.pending_total
    if position.local_queue:
        fragments["lq_position"] = ordinal(position.local_queue, language)
    if named:
        fragments["cluster_queue"] = code_name(position.cluster_queue_name or "-")
        fragments["local_queue"] = code_name(position.local_queue_name or "-")
        return say("slack.summary.position", language, **fragments)
    return say("slack.summary.position-unnamed", language, **fragments)


def job_value(explanation: Explanation, cluster: str = "") -> str | None:
    """A button's value naming the job (and its cluster, `cl`, when the bot serves several)."""
    job = explanation.job
    queue = explanation.local_queue or (explanation.position.local_queue_name if explanation.position else "")
    if cluster:
        return button_value(ns=job.namespace, name=job.name, kind=job.kind, lq=queue or None, cl=cluster)
    return button_value(ns=job.namespace, name=job.name, kind=job.kind, lq=queue or None)


def _ahead_line(explanation: Explanation, language: str, *, show_names: bool) -> str | None:
    position = explanation.position
    if position is None or position.ahead is None or not position.ahead.workloads:
        return None
    own = explanation.job.namespace
    shown = [(ns, name, prio) for ns, name, prio in position.ahead.workloads if show_names or ns == own]
    hidden = len(position.ahead.workloads) - len(shown)
    items = [
        say("slack.details.ahead-item", language, name=job_name(ns, name), priority=free_text(str(prio)))
        for ns, name, prio in shown
    ]
    if hidden:
        items.append(say("slack.details.ahead-others", language, count=hidden))
    return "↳ " + say("slack.details.ahead", language, names=", ".join(items))


def _step_groups(
    explanation: Explanation, outlook: Outlook, language: str, *, show_names: bool
) -> list[tuple[str, list[tuple[str, int]]]]:
    """(group title, its lines with 1 for a step's line) in the order of the admission path; steps keep
    their numbers; the steps that passed are folded into one line first."""
    order = list(STEP_ORDER)
    lines: dict[str, list[tuple[str, int]]] = {}
    passed: list[str] = []
    for number, step in enumerate(explanation.steps, start=1):
        group = step.step if step.step in STEP_ORDER else "other"
        if step.outcome == Outcome.PASS:
            title = words(f"slack.details.step.{group}", language)
            if title not in passed:
                passed.append(title)
            continue
        if group not in order:
            order.append(group)
        mark = OUTCOME_MARK.get(step.outcome, ":grey_question:")
        said = engine_text(for_readers(step.text, explanation.job.namespace, show_names=show_names), language)
        lines.setdefault(group, []).append((f"{mark} {number}. {said}", 1))
    ahead = _ahead_line(explanation, language, show_names=show_names)
    if ahead is not None:
        lines.setdefault("position", []).append((ahead, 0))
    groups = [(bold(words(f"slack.details.step.{group}", language)), lines[group]) for group in order if group in lines]
    green = sum(1 for step in explanation.steps if step.outcome == Outcome.PASS)
    if green:
        names = ", ".join(passed)
        groups.insert(
            0,
            (
                "",
                [
                    (
                        f"{OUTCOME_MARK[Outcome.PASS]} "
                        + say("answer.steps.passed", language, count=green, names=names),
                        green,
                    )
                ],
            ),
        )
    return groups + _holders_group(explanation.job.namespace, outlook, language, show_names=show_names)


def _holders_group(
    own: str, outlook: Outlook, language: str, *, show_names: bool
) -> list[tuple[str, list[tuple[str, int]]]]:
    """Who holds what it waits for (lines that are not steps)."""
    if outlook.holders is None:
        return []
    texts = holders_texts(outlook.holders, own_namespace=own, show_names=show_names)
    if not texts:
        return []
    title = bold(words("slack.details.step.holders", language))
    return [(title, [("↳ " + engine_text(t, language), 0) for t in texts])]


def todo_lines(
    explanation: Explanation, language: str, *, show_names: bool, outlook: Outlook = NO_OUTLOOK
) -> list[tuple[str, int]]:
    """The one list of things to do (bot.forecast.todo): what the asker can do, then what only an admin can."""
    own = explanation.job.namespace
    lines: list[tuple[str, int]] = []
    who = "you"
    for item in todo_list(explanation, outlook):
        if not show_names and item.code in _HIDDEN_ACTIONS:
            continue
        if item.who == "admin" and who != "admin" and lines:
            lines.append((bold(say("answer.steps.who.admin", language)), 0))
        who = item.who
        said = engine_text(for_readers(item.text, own, show_names=show_names), language)
        lines.append((f"• {said}", 1))
    return lines


def answer_details(
    explanation: Explanation, *, language: str, show_names: bool, outlook: Outlook = NO_OUTLOOK
) -> SlackMessage:
    """The steps, on demand: the admission path (the steps that passed folded into one line, Kueue's own
    conditions among the others), who holds what it waits for, then the one list of what can be done.

    With `show_names=False` no other team's workload is named (the steps only count them)."""
    job = job_name(explanation.job.namespace, explanation.job.name)
    out = Blocks()
    note_room = 300  # the "N more" lines at the end
    out.add(section(f"*{say('slack.details.title', language, job=job)}* · {code(explanation.verdict.value)}"))
    todo = todo_lines(explanation, language, show_names=show_names, outlook=outlook)
    action_chunks = packed(todo, first=bold(say("answer.steps.todo", language))) if todo else []
    keep_chars = (chars(section(action_chunks[0][0])) if action_chunks else 0) + note_room
    keep_blocks = (1 if action_chunks else 0) + 1
    shown_steps = 0
    full = False
    for title, lines in _step_groups(explanation, outlook, language, show_names=show_names):
        for text, steps in packed(lines, first=title):
            if full or not out.add(section(text), keep_blocks=keep_blocks, keep_chars=keep_chars):
                full = True
                break
            shown_steps += steps
    shown_actions = 0
    for text, count in action_chunks:
        if not out.add(section(text), keep_blocks=1, keep_chars=note_room):
            break
        shown_actions += count
    notes = []
    if shown_steps < len(explanation.steps):
        notes.append(say("slack.details.more-steps", language, count=len(explanation.steps) - shown_steps))
    todo_count = sum(weight for _, weight in todo)
    if shown_actions < todo_count:
        notes.append(say("slack.details.more-actions", language, count=todo_count - shown_actions))
    if notes:
        out.add(context(*notes))
    failed = sum(1 for step in explanation.steps if step.outcome == Outcome.FAIL)
    fallback = say("slack.details.fallback", language, job=job, steps=len(explanation.steps), failed=failed)
    return message(fallback, out.blocks)
