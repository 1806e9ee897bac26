"""Explanations and replies as Slack messages: Block Kit within Slack's limits, with a text fallback. Pure.

Every word comes from the copy catalogue (`slack.*` keys, and the engine's own keys for its sentences). Every
name and every text from the cluster or the user is made safe by `bot.slack.mrkdwn`: names in code spans,
free text escaped and defused, so nothing can mention, link or break the formatting. Limits (SLACK.md §3): at
most 50 blocks a message (100 in the Home tab), 3000 characters a section, 150 a header, 10 context elements,
25 elements an actions block, 75 characters a button's text, 2000 its value, 255 an action_id; the fallback
`text` stays under 3000; and the whole message under MAX_TOTAL characters, since Slack refuses some long
messages below the per-block limits. Whatever does not fit is cut with "…" or counted in an "and N more" line.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.copy import render, render_value
from bot.slack.mrkdwn import bold, code, literal, plain, slack_len, truncate, truncate_plain
from bot.trace.codes import Outcome, Verdict
from bot.trace.explain import amounts
from bot.trace.explanation import LOWER_BOUND, Explanation, Position, Text
from bot.trace.outlook import eta_text, holders_texts, what_if_texts
from bot.trace.quantity import human
from bot.trace.queueview import QueueView

Block = dict[str, Any]

MAX_BLOCKS = 50
MAX_VIEW_BLOCKS = 100
MAX_SECTION = 3000
MAX_HEADER = 150
MAX_CONTEXT_ELEMENTS = 10
MAX_ACTIONS = 25
MAX_BUTTON_TEXT = 75
MAX_BUTTON_VALUE = 2000
MAX_ACTION_ID = 255
MAX_FALLBACK = 2990
# The text of all blocks of one message: msg_blocks_too_long was seen near 13.2k characters, and a caller may
# merge a summary (a few thousand at most) into the same message as the details.
MAX_TOTAL = 9_000
MAX_VIEW_TOTAL = 40_000
MAX_FREE_TEXT = 500  # characters of one message from the cluster kept in a sentence
MAX_CODE = 260  # characters of one name (a valid one is at most 253)
MAX_LISTED_CHOICES = 10
MAX_DIGEST_LISTED = 20
MAX_HEADLINE_IN_LIST = 300

ACTION_RECHECK = "kueue_recheck"
ACTION_WATCH = "kueue_watch"
ACTION_SHOW_QUEUE = "kueue_show_queue"
ACTION_PICK = "kueue_pick"
ACTION_SNOOZE_2H = "kueue_snooze_2h"
ACTION_SNOOZE_1D = "kueue_snooze_1d"
ACTION_STOP = "kueue_stop"

Family = Literal["never", "waits", "ok"]
FAMILY_EMOJI: Mapping[str, str] = {
    "never": ":no_entry:",
    "waits": ":hourglass_flowing_sand:",
    "ok": ":white_check_mark:",
}
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
_CLOSED_EMOJI = {"admitted": ":white_check_mark:", "finished": ":checkered_flag:", "deleted": ":wastebasket:"}
# The engine's parameters that hold names (shown as code); the others are free text (shown literally).
_CODE_PARAMS = frozenset(
    {
        "job",
        "workload",
        "queue",
        "queues",
        "cluster_queue",
        "local_queue",
        "flavor",
        "namespace",
        "namespaces",
        "name",
        "names",
        "pod",
        "pod_set",
        "taint",
        "label",
        "labels",
        "parent",
        "check",
        "checks",
        "gates",
        "cohort",
        "resource",
        "resources",
        "stopped",
        "topology",
        "controller",
        "how",
        "path",
    }
)
_HIDDEN_ACTIONS = frozenset({"other-namespace"})  # they name other namespaces: only for readers who may see them


@dataclass(frozen=True)
class SlackMessage:
    text: str  # the fallback: notifications and screen readers
    blocks: list[Block] = field(default_factory=list)


# --- words --------------------------------------------------------------------------------------------

_SLOT = re.compile("\ue000([0-9]+)\ue001")


def _say(key: str, language: str, /, **fragments: str | int) -> str:
    """A catalogue sentence as mrkdwn. Its words are shown literally; str fragments are mrkdwn already."""
    slots: list[str] = []
    params: dict[str, str | int] = {}
    for name, value in fragments.items():
        if isinstance(value, str):
            params[name] = f"\ue000{len(slots)}\ue001"
            slots.append(value)
        else:
            params[name] = value
    sentence = literal(render(key, params, language))
    return _SLOT.sub(lambda match: slots[int(match.group(1))], sentence)


def _words(key: str, language: str, params: Mapping[str, object] | None = None) -> str:
    """A catalogue sentence as plain text (buttons, headers)."""
    return plain(render(key, params, language))


def _cap(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _name(value: str) -> str:
    return code(_cap(value, MAX_CODE))


def _free(value: str) -> str:
    """Free text from the cluster, literal and capped."""
    return literal(_cap(value, MAX_FREE_TEXT))


def _job(namespace: str | None, name: str) -> str:
    return _name(f"{namespace}/{name}" if namespace else name)


def _fragment(name: str, value: object, language: str) -> str | int:
    if isinstance(value, Text | tuple):  # a fragment the engine composed: in the reader's language too
        value = render_value(value, language)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value)
    return _name(text) if name in _CODE_PARAMS else _free(text)


def _text(value: Text, language: str) -> str:
    """One of the engine's sentences as mrkdwn: names as code, cluster text literal."""
    return _say(value.key, language, **{name: _fragment(name, v, language) for name, v in value.params.items()})


def family(verdict: Verdict) -> Family:
    """never: someone must change something; ok: nothing is pending; waits: time (or an admin) will tell."""
    if verdict in (Verdict.RUNNING, Verdict.FINISHED):
        return "ok"
    if verdict.never_fixes_itself or verdict == Verdict.JOB_NOT_FOUND:
        return "never"
    return "waits"


def _ordinal(number: int, language: str) -> str:
    if number == 1:
        category = "first"
    elif number % 100 in (11, 12, 13):
        category = "other"
    else:
        category = {1: "one", 2: "two", 3: "few"}.get(number % 10, "other")
    return literal(render(f"slack.ordinal.{category}", {"n": number}, language))


# --- blocks -------------------------------------------------------------------------------------------


def _section(text: str, accessory: Block | None = None) -> Block:
    block: Block = {"type": "section", "text": {"type": "mrkdwn", "text": truncate(text, MAX_SECTION) or "…"}}
    if accessory is not None:
        block["accessory"] = accessory
    return block


def _context(*texts: str) -> Block:
    elements = [{"type": "mrkdwn", "text": truncate(text, MAX_SECTION)} for text in texts if text.strip()]
    return {"type": "context", "elements": elements[:MAX_CONTEXT_ELEMENTS] or [{"type": "mrkdwn", "text": "…"}]}


def _header(text: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": truncate_plain(text, MAX_HEADER) or "…"}}


def _button(label: str, action_id: str, value: str | None, style: str | None = None) -> Block:
    button: Block = {
        "type": "button",
        "text": {"type": "plain_text", "text": truncate_plain(label, MAX_BUTTON_TEXT) or "…", "emoji": True},
        "action_id": action_id[:MAX_ACTION_ID],
    }
    if value is not None:
        button["value"] = value
    if style is not None:
        button["style"] = style
    return button


def _actions(buttons: Sequence[Block]) -> Block:
    return {"type": "actions", "elements": list(buttons[:MAX_ACTIONS])}


def button_value(**fields: str | None) -> str | None:
    """Compact JSON for a button's value ({"ns", "name", "kind", "lq"}); None when it would not fit.

    `<`, `>` and `&` are written as JSON escapes: the value decodes the same, and no markup hides in it."""
    data = {key: _cap(value, MAX_CODE) if isinstance(value, str) else value for key, value in fields.items()}
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return text if slack_len(text) <= MAX_BUTTON_VALUE else None


def _chars(value: object) -> int:
    """All the text a block carries, as Slack counts it."""
    if isinstance(value, dict):
        return sum(_chars(item) for key, item in value.items() if key in ("text", "elements", "fields", "accessory"))
    if isinstance(value, list):
        return sum(_chars(item) for item in value)
    return slack_len(value) if isinstance(value, str) else 0


class _Blocks:
    """Blocks added in order of importance while the message's limits allow."""

    def __init__(self, max_blocks: int = MAX_BLOCKS, max_chars: int = MAX_TOTAL) -> None:
        self.blocks: list[Block] = []
        self.max_blocks = max_blocks
        self.max_chars = max_chars
        self.used = 0

    def add(self, block: Block, *, keep_blocks: int = 0, keep_chars: int = 0) -> bool:
        cost = _chars(block)
        if len(self.blocks) + 1 + keep_blocks > self.max_blocks or self.used + cost + keep_chars > self.max_chars:
            return False
        self.blocks.append(block)
        self.used += cost
        return True


def _packed(items: Iterable[tuple[str, int]], first: str = "") -> list[tuple[str, int]]:
    """Lines packed into section texts of at most MAX_SECTION characters, each with the sum of its lines'
    weights (how many steps, actions... it shows); `first` heads the first one."""
    chunks: list[tuple[str, int]] = []
    current, weight = first, 0
    for line, line_weight in items:
        line = truncate(line, MAX_SECTION)
        candidate = f"{current}\n{line}" if current else line
        if slack_len(candidate) <= MAX_SECTION:
            current, weight = candidate, weight + line_weight
        else:
            if current:
                chunks.append((current, weight))
            current, weight = line, line_weight
    if current:
        chunks.append((current, weight))
    return chunks


def _chunks(lines: Iterable[str], first: str = "") -> list[str]:
    return [text for text, _ in _packed(((line, 1) for line in lines), first)]


def _message(fallback: str, blocks: list[Block]) -> SlackMessage:
    """The message, its blocks cut to what Slack takes (a safety net: builders stay well inside)."""
    kept = _Blocks()
    for block in blocks:
        if not kept.add(block):
            break
    return SlackMessage(text=truncate(fallback, MAX_FALLBACK) or "…", blocks=kept.blocks)


# --- the answer ---------------------------------------------------------------------------------------


def _verdict_line(explanation: Explanation, language: str) -> str:
    kind = family(explanation.verdict)
    return f"{FAMILY_EMOJI[kind]} *{_say(f'slack.family.{kind}', language)}* · {code(explanation.verdict.value)}"


def _position_text(position: Position, language: str, *, named: bool) -> str:
    fragments: dict[str, str | int] = {"cq_position": _ordinal(position.cluster_queue, language)}
    if position.source == LOWER_BOUND:  # one namespace's Workloads only: never stated as the queue's position
        fragments["namespace"] = _name(position.scope or "-")
        if named:
            fragments["cluster_queue"] = _name(position.cluster_queue_name or "-")
        return _say("slack.summary.position-at-least", language, **fragments)
    if position.pending_total:
        fragments["total"] = position.pending_total
    if position.local_queue:
        fragments["lq_position"] = _ordinal(position.local_queue, language)
    if named:
        fragments["cluster_queue"] = _name(position.cluster_queue_name or "-")
        fragments["local_queue"] = _name(position.local_queue_name or "-")
        return _say("slack.summary.position", language, **fragments)
    return _say("slack.summary.position-unnamed", language, **fragments)


def _job_value(explanation: Explanation) -> str | None:
    job = explanation.job
    queue = explanation.local_queue or (explanation.position.local_queue_name if explanation.position else "")
    return button_value(ns=job.namespace, name=job.name, kind=job.kind, lq=queue or None)


def answer_summary(
    explanation: Explanation,
    *,
    language: str,
    snapshot_age_seconds: int | float | None = None,
    show_queue_names: bool = True,
) -> SlackMessage:
    """The first message: the verdict, the headline, the place in the queue, the state's age, and buttons."""
    headline = _text(explanation.headline, language)
    blocks = [_section(f"{_verdict_line(explanation, language)}\n{headline}")]
    facts: list[str] = []
    if explanation.position is not None:
        facts.append(_position_text(explanation.position, language, named=show_queue_names))
    if explanation.eta is not None:  # issue 16: the "When" line
        facts.append(_say("slack.summary.when", language, eta=_text(eta_text(explanation.eta), language)))
    if snapshot_age_seconds is not None:
        facts.append(_say("slack.summary.age", language, age_seconds=max(0, int(snapshot_age_seconds))))
    if facts:
        blocks.append(_context(*facts))
    value = _job_value(explanation)
    if value is not None:
        buttons = [
            _button(_words("slack.button.recheck", language), ACTION_RECHECK, value, "primary"),
            _button(_words("slack.button.watch", language), ACTION_WATCH, value),
        ]
        if explanation.local_queue or explanation.position is not None:
            buttons.append(_button(_words("slack.button.show-queue", language), ACTION_SHOW_QUEUE, value))
        blocks.append(_actions(buttons))
    kind = family(explanation.verdict)
    fallback = _say(
        "slack.summary.fallback",
        language,
        family=_say(f"slack.family.{kind}", language),
        verdict=code(explanation.verdict.value),
        headline=headline,
    )
    return _message(f"{FAMILY_EMOJI[kind]} {fallback}", blocks)


def _ahead_line(explanation: Explanation, language: str, *, show_names: bool) -> str | None:
    position = explanation.position
    if position is None or position.ahead is None or not position.ahead.workloads:
        return None
    own = explanation.job.namespace
    shown = [(ns, name, prio) for ns, name, prio in position.ahead.workloads if show_names or ns == own]
    hidden = len(position.ahead.workloads) - len(shown)
    items = [
        _say("slack.details.ahead-item", language, name=_job(ns, name), priority=_free(str(prio)))
        for ns, name, prio in shown
    ]
    if hidden:
        items.append(_say("slack.details.ahead-others", language, count=hidden))
    return "↳ " + _say("slack.details.ahead", language, names=", ".join(items))


def _step_groups(
    explanation: Explanation, language: str, *, show_names: bool
) -> list[tuple[str, list[tuple[str, int]]]]:
    """(group title, its lines with 1 for a step's line) in the order of the admission path; steps keep
    their numbers."""
    order = list(STEP_ORDER)
    lines: dict[str, list[tuple[str, int]]] = {}
    for number, step in enumerate(explanation.steps, start=1):
        group = step.step if step.step in STEP_ORDER else "other"
        if group not in order:
            order.append(group)
        mark = OUTCOME_MARK.get(step.outcome, ":grey_question:")
        lines.setdefault(group, []).append((f"{mark} {number}. {_text(step.text, language)}", 1))
    ahead = _ahead_line(explanation, language, show_names=show_names)
    if ahead is not None:
        lines.setdefault("position", []).append((ahead, 0))
    groups = [
        (bold(_words(f"slack.details.step.{group}", language)), lines[group]) for group in order if group in lines
    ]
    return groups + _outlook_groups(explanation, language, show_names=show_names)


def _outlook_groups(
    explanation: Explanation, language: str, *, show_names: bool
) -> list[tuple[str, list[tuple[str, int]]]]:
    """Issue 16: the "Who holds it" step and what would get it admitted (lines that are not steps)."""
    found: list[tuple[str, list[tuple[str, int]]]] = []
    if explanation.holders is not None:
        own = explanation.job.namespace
        texts = holders_texts(explanation.holders, own_namespace=own, show_names=show_names)
        if texts:
            title = bold(_words("slack.details.step.holders", language))
            found.append((title, [("↳ " + _text(t, language), 0) for t in texts]))
    if explanation.what_if is not None:
        texts = what_if_texts(explanation.what_if)
        if texts:
            title = bold(_words("slack.details.step.what-if", language))
            found.append((title, [("• " + _text(t, language), 0) for t in texts]))
    return found


def answer_details(explanation: Explanation, *, language: str, show_names: bool) -> SlackMessage:
    """The thread reply: the admission path step by step, grouped, then what the asker can do.

    With `show_names=False` no other team's workload is named (the steps only count them)."""
    job = _job(explanation.job.namespace, explanation.job.name)
    out = _Blocks()
    note_room = 300  # the "N more" lines at the end
    out.add(_section(f"*{_say('slack.details.title', language, job=job)}*"))

    actions = [a for a in explanation.actions if show_names or a.code not in _HIDDEN_ACTIONS]
    action_chunks = (
        _packed(
            ((f"• {_text(action.text, language)}", 1) for action in actions),
            first=f"*{_say('slack.details.next', language)}*",
        )
        if actions
        else []
    )
    keep_chars = (_chars(_section(action_chunks[0][0])) if action_chunks else 0) + note_room
    keep_blocks = (1 if action_chunks else 0) + 1
    shown_steps = 0
    full = False
    for title, lines in _step_groups(explanation, language, show_names=show_names):
        for text, steps in _packed(lines, first=title):
            if full or not out.add(_section(text), keep_blocks=keep_blocks, keep_chars=keep_chars):
                full = True
                break
            shown_steps += steps
    shown_actions = 0
    for text, count in action_chunks:
        if not out.add(_section(text), keep_blocks=1, keep_chars=note_room):
            break
        shown_actions += count
    notes = []
    if shown_steps < len(explanation.steps):
        notes.append(_say("slack.details.more-steps", language, count=len(explanation.steps) - shown_steps))
    if shown_actions < len(actions):
        notes.append(_say("slack.details.more-actions", language, count=len(actions) - shown_actions))
    if notes:
        out.add(_context(*notes))
    failed = sum(1 for step in explanation.steps if step.outcome == Outcome.FAIL)
    fallback = _say("slack.details.fallback", language, job=job, steps=len(explanation.steps), failed=failed)
    return _message(fallback, out.blocks)


# --- the queue ----------------------------------------------------------------------------------------


def _queue_state(view: QueueView, language: str) -> str:
    queue = _name(view.name)
    if not view.exists:
        return _say("slack.queue.missing", language, queue=queue, namespace=_name(view.namespace))
    chain = view.chain
    if view.blocker == Verdict.CLUSTER_QUEUE_MISSING:
        return ":no_entry: " + _say(
            "slack.queue.cluster-queue-missing", language, cluster_queue=_name(view.cluster_queue or "-")
        )
    if view.blocker == Verdict.QUEUE_STOPPED:
        stopped = view.name if chain.stopped_by == "LocalQueue" else view.cluster_queue
        params: dict[str, str | int] = {}
        if chain.stopped_by and stopped:
            params = {"kind": _free(chain.stopped_by), "stopped": _name(stopped)}
            params["policy"] = _free(chain.stop_policy or "-")
        return ":double_vertical_bar: " + _say("slack.queue.stopped", language, **params)
    if view.blocker is not None:
        detail = chain.inactive_reason or chain.inactive_message
        params = {"cluster_queue": _name(view.cluster_queue or "-")}
        if detail:
            params["detail"] = _free(detail)
        return ":no_entry: " + _say("slack.queue.inactive", language, **params)
    return ":large_green_circle: " + _say("slack.queue.open", language)


def queue_view(view: QueueView, *, language: str, show_names: bool) -> SlackMessage:
    """`/kueue queue ns/lq`: the queue's state, its quota, and who waits (names only for readers who may see)."""
    out = _Blocks()
    out.add(_header(_words("slack.queue.title", language, {"queue": f"{view.namespace}/{view.name}"})))
    state = [_queue_state(view, language)]
    if view.exists and view.cluster_queue:
        feeds: dict[str, str | int] = {"cluster_queue": _name(view.cluster_queue)}
        if view.strategy:
            feeds["strategy"] = _free(view.strategy)
            if view.cohort:
                feeds["cohort"] = _name(view.cohort)
        state.append(_say("slack.queue.feeds", language, **feeds))
        state.append(
            _say(
                "slack.queue.counts",
                language,
                pending_total=view.pending_in_cluster_queue,
                cluster_queue=_name(view.cluster_queue),
                pending_here=view.pending_here,
                admitted_here=view.admitted_here,
            )
        )
    out.add(_section("\n".join(state)))
    note_room = 300
    if view.exists and view.cluster_queue:
        quota_lines = [
            "• "
            + _say(
                "slack.queue.quota-line",
                language,
                flavor=_name(line.flavor),
                resource=_name(line.resource),
                nominal=_free(human(line.nominal, line.resource)),
                used=_free(human(line.used, line.resource)),
                available=_free(human(line.available, line.resource)),
                maximum=_free(human(line.maximum, line.resource)),
            )
            for line in view.quotas
        ] or [_say("slack.queue.no-quota", language)]
        title = f"*{_say('slack.queue.quota-title', language)}*"
        for chunk in _chunks(quota_lines, first=title):
            if not out.add(_section(chunk), keep_blocks=2, keep_chars=note_room + 600):
                break
        waiting_lines: list[str] = []
        hidden = 0
        for waiting in view.waiting:
            visible = show_names or waiting.namespace == view.namespace
            hidden += 0 if visible else 1
            fragments: dict[str, str | int] = {
                "position": waiting.position,
                "priority": _free(str(waiting.priority)),
                "demand": _free(amounts(waiting.demand) or "-"),
            }
            if visible:
                fragments["name"] = _job(waiting.namespace, waiting.name)
            waiting_lines.append(_say("slack.queue.waiting-line", language, **fragments))
        if not waiting_lines:
            waiting_lines.append(_say("slack.queue.nobody-waits", language))
        title = f"*{_say('slack.queue.waiting-title', language)}*"
        for chunk in _chunks(waiting_lines, first=title):
            if not out.add(_section(chunk), keep_blocks=1, keep_chars=note_room):
                break
        notes = []
        if hidden and not show_names:
            notes.append(_say("slack.queue.other-namespaces", language, count=hidden))
        more = view.pending_in_cluster_queue - len(view.waiting)
        if more > 0:
            notes.append(_say("slack.queue.more", language, count=more))
        if notes:
            out.add(_context(*notes))
    fallback = _say(
        "slack.queue.fallback",
        language,
        queue=_job(view.namespace, view.name),
        pending_here=view.pending_here,
        admitted_here=view.admitted_here,
    )
    return _message(fallback, out.blocks)


# --- help and short replies ---------------------------------------------------------------------------


def help_message(*, language: str, command: str = "/kueue") -> SlackMessage:
    """The commands, each with an example."""
    ns = render("slack.help.placeholder.namespace", language=language)
    job = render("slack.help.placeholder.job", language=language)
    queue = render("slack.help.placeholder.queue", language=language)
    command = _cap(command, 40)
    usage = [
        ("slack.help.why", f"{command} why <{ns}>/<{job}>"),
        ("slack.help.queue", f"{command} queue <{ns}>/<{queue}>"),
        ("slack.help.who", f"{command} who gpu"),
        ("slack.help.watch", f"{command} watch <{ns}>/<{job}>"),
        ("slack.help.unwatch", f"{command} unwatch <{ns}>/<{job}>"),
        ("slack.help.mute", f"{command} mute"),
        ("slack.help.help", f"{command} help"),
    ]
    unmute = code(f"{command} unmute")
    lines = [f"• {_say(key, language, example=code(example), unmute=unmute)}" for key, example in usage]
    free = _say(
        "slack.help.free-text",
        language,
        first=code(render("slack.help.example.question", language=language)),
        second=code("equipe-data/train-octobre"),
        third=code("kubectl get job train-octobre -n equipe-data"),
    )
    kinds = _say("slack.help.kinds", language, example=code(f"{command} why equipe-data/rayjob/ray-sweep"))
    blocks = [
        _header(_words("slack.help.title", language)),
        _section(_say("slack.help.intro", language, command=code(command))),
        _section("\n".join(lines)),
        _context(free, kinds),
    ]
    fallback = _say("slack.help.fallback", language, example=code(f"{command} why <{ns}>/<{job}>"))
    return _message(fallback, blocks)


def _pick_sections(
    choices: Sequence[tuple[str | None, str, str | None]], language: str, *, buttons: bool = True
) -> list[Block]:
    """One section a choice, its button beside it (`kueue_pick`, value {"ns","name","kind"})."""
    label = _words("slack.button.pick", language)
    sections = []
    for namespace, name, kind in choices[:MAX_LISTED_CHOICES]:
        text = _say(
            "slack.choose.item",
            language,
            kind=_free(kind or render("slack.kind.any", language=language)),
            job=_job(namespace, name),
        )
        if kind == "LocalQueue":  # a queue is shown, not explained
            value = button_value(ns=namespace, lq=name) if buttons else None
            button = _button(_words("slack.button.show-queue", language), ACTION_SHOW_QUEUE, value)
        else:
            value = button_value(ns=namespace, name=name, kind=kind) if buttons else None
            button = _button(label, ACTION_PICK, value)
        sections.append(_section(text, button if value is not None else None))
    return sections


def choose_job(candidates: list[tuple[str, str, str]], *, language: str) -> SlackMessage:
    """Several jobs answer to the question: one button each (at most 10)."""
    names = {name for _, name, _ in candidates}
    if len(names) == 1:
        title = _say("slack.choose.title", language, name=_name(next(iter(names))))
    else:
        title = _say("slack.choose.title-any", language)
    blocks = [_section(title), *_pick_sections(candidates, language)]
    more = len(candidates) - MAX_LISTED_CHOICES
    if more > 0:
        blocks.append(_context(_say("slack.choose.more", language, count=more)))
    listed = ", ".join(_job(ns, name) for ns, name, _ in candidates[:MAX_LISTED_CHOICES])
    return _message(f"{title} {listed}", blocks)


def choose_queue(name: str, namespaces: Sequence[str], *, language: str) -> SlackMessage:
    """A LocalQueue asked for without a namespace, found in several: one "Show the queue" button each."""
    title = _say("slack.choose.queue", language, name=_name(name))
    choices = [(namespace, name, "LocalQueue") for namespace in namespaces]
    blocks = [_section(title), *_pick_sections(choices, language)]
    more = len(choices) - MAX_LISTED_CHOICES
    if more > 0:
        blocks.append(_context(_say("slack.choose.more", language, count=more)))
    listed = ", ".join(_job(ns, n) for ns, n, _ in choices[:MAX_LISTED_CHOICES])
    return _message(f"{title} {listed}", blocks)


def _split(suggestion: str, namespace: str | None) -> tuple[str | None, str]:
    if "/" in suggestion:
        ns, name = suggestion.split("/", 1)
        return ns or namespace, name
    return namespace, suggestion


def did_you_mean(
    query_name: str,
    suggestions: Sequence[str],
    *,
    language: str,
    namespace: str | None = None,
    kind: str | None = None,
) -> SlackMessage:
    """No job has that name; these are close ("name" or "ns/name"), one button each."""
    title = _say("slack.did-you-mean.title", language, name=_name(query_name))
    choices = [(*_split(suggestion, namespace), kind) for suggestion in suggestions]
    blocks = [_section(title), *_pick_sections(choices, language)]
    listed = ", ".join(_job(ns, name) for ns, name, _ in choices[:MAX_LISTED_CHOICES])
    return _message(f"{title} {listed}".strip(), blocks)


def not_found(
    namespace: str | None, name: str, kind: str | None, suggestions: Sequence[str], *, language: str
) -> SlackMessage:
    """Nothing of that name (in that namespace); close names as buttons (a queue's button shows the queue)."""
    kind_word = _free(kind or render("slack.kind.any", language=language))
    if namespace:
        title = _say("slack.not-found.title", language, kind=kind_word, job=_job(namespace, name))
    else:
        title = _say("slack.not-found.title", language, kind=kind_word, name=_name(name))
    blocks = [_section(title)]
    if suggestions:
        blocks.append(_section(_say("slack.not-found.suggest", language)))
        choices = [(*_split(suggestion, namespace), kind) for suggestion in suggestions]
        blocks.extend(_pick_sections(choices, language))
    placeholder = render("slack.help.placeholder.namespace", language=language)
    example = code(f"<{placeholder}>/{_cap(name, MAX_CODE)}")
    blocks.append(_context(_say("slack.not-found.hint", language, example=example)))
    return _message(title, blocks)


def _short(text: str) -> SlackMessage:
    return _message(text, [_section(text)])


def refused(namespace: str | None, *, language: str) -> SlackMessage:
    """The asker may not see that namespace: polite, and nothing about what is in it."""
    if namespace:
        return _short(_say("slack.refused", language, namespace=_name(namespace)))
    return _short(_say("slack.refused", language))


def apology(incident_id: str, *, language: str) -> SlackMessage:
    """Something broke on the bot's side: sorry, and the incident id to quote."""
    return _short(":warning: " + _say("slack.apology", language, incident=_name(incident_id)))


def cluster_unavailable(age_seconds: int | float | None, *, language: str) -> SlackMessage:
    """The cluster is out of reach (and what the bot last saw of it is too old, when it saw anything)."""
    if age_seconds is None:
        return _short(":satellite_antenna: " + _say("slack.unavailable", language))
    age = max(0, int(age_seconds))
    return _short(":satellite_antenna: " + _say("slack.unavailable", language, age_seconds=age))


def muted(*, language: str, command: str = "/kueue") -> SlackMessage:
    return _short(_say("slack.muted", language, unmute=code(f"{command} unmute")))


def unmuted(*, language: str) -> SlackMessage:
    return _short(_say("slack.unmuted", language))


def watch_confirmed(namespace: str | None, name: str, *, language: str) -> SlackMessage:
    return _short(":eyes: " + _say("slack.watch.confirmed", language, job=_job(namespace, name)))


def unwatch_confirmed(namespace: str | None, name: str, *, language: str) -> SlackMessage:
    return _short(_say("slack.unwatch.confirmed", language, job=_job(namespace, name)))


def which_job(*, language: str, command: str = "/kueue") -> SlackMessage:
    """`why` without a job: how to ask."""
    examples = {"full": code(f"{command} why team-a/train-bert"), "short": code(f"{command} why train-bert")}
    return _short(_say("slack.why.which-job", language, **examples))


def unknown_command(text: str, *, language: str, command: str = "/kueue") -> SlackMessage:
    help_command = code(f"{_cap(command, 40)} help")
    if text.strip():
        return _short(_say("slack.unknown", language, text=code(_cap(text.strip(), 100)), help=help_command))
    return _short(_say("slack.unknown", language, help=help_command))


def focused_which_job(focus: str, *, language: str) -> SlackMessage:
    """Issue 16: "who is using the GPUs?" or "when will it run?" without a job: which one."""
    return _short(_say(f"slack.focus.{'who' if focus == 'who' else 'when'}", language))


# --- notifications ------------------------------------------------------------------------------------

NotificationReason = Literal["inadmissible", "never-fits", "updated"]
ClosedOutcome = Literal["admitted", "finished", "deleted"]


def notification(explanation: Explanation, *, language: str, reason: NotificationReason) -> SlackMessage:
    """The proactive direct message about a watched job, with Snooze 2 h, Snooze 1 day and Stop."""
    job = _job(explanation.job.namespace, explanation.job.name)
    key = reason if reason in ("inadmissible", "never-fits", "updated") else "updated"
    why = _say(f"slack.notify.{key}", language, job=job)
    headline = _text(explanation.headline, language)
    blocks = [_section(f"{why}\n{_verdict_line(explanation, language)}\n{headline}")]
    if explanation.position is not None:
        blocks.append(_context(_position_text(explanation.position, language, named=True)))
    if explanation.eta is not None:  # issue 16: the DM carries the ETA (updated in place when it moves)
        blocks.append(_context(_say("slack.summary.when", language, eta=_text(eta_text(explanation.eta), language))))
    value = _job_value(explanation)
    if value is not None:
        blocks.append(
            _actions(
                [
                    _button(_words("slack.button.snooze-2h", language), ACTION_SNOOZE_2H, value),
                    _button(_words("slack.button.snooze-1d", language), ACTION_SNOOZE_1D, value),
                    _button(_words("slack.button.stop", language), ACTION_STOP, value, "danger"),
                ]
            )
        )
    blocks.append(_context(_say("slack.notify.footer", language)))
    return _message(f"{why} {headline}", blocks)


def notification_closed(
    namespace: str, name: str, outcome: ClosedOutcome, waited_seconds: int | float | None, *, language: str
) -> SlackMessage:
    """The watch is over: admitted (after how long), finished or deleted."""
    key = outcome if outcome in _CLOSED_EMOJI else "finished"
    fragments: dict[str, str | int] = {"job": _job(namespace, name)}
    if waited_seconds is not None:
        fragments["waited_seconds"] = max(0, int(waited_seconds))
    text = f"{_CLOSED_EMOJI[key]} {_say(f'slack.closed.{key}', language, **fragments)} "
    text += _say("slack.closed.stopped", language)
    return _short(text)


_FAMILY_ORDER = {"never": 0, "waits": 1, "ok": 2}


def digest(items: list[Explanation], *, language: str) -> SlackMessage:
    """Many jobs of one person at once: the counts by verdict, the first 20, and how many more."""
    ordered = sorted(items, key=lambda e: _FAMILY_ORDER[family(e.verdict)])
    counts = Counter(e.verdict for e in ordered)
    by_verdict = " · ".join(
        f"{FAMILY_EMOJI[family(verdict)]} {code(verdict.value)} × {count}"
        for verdict, count in sorted(counts.items(), key=lambda item: (_FAMILY_ORDER[family(item[0])], -item[1]))
    )
    title = _say("slack.digest.title", language, count=len(items))
    out = _Blocks()
    out.add(_section(f"*{title}*"))
    out.add(_context(_say("slack.digest.counts", language, counts=by_verdict)))
    lines = [
        f"{FAMILY_EMOJI[family(e.verdict)]} {_job(e.job.namespace, e.job.name)} · {code(e.verdict.value)} — "
        + truncate(_text(e.headline, language), MAX_HEADLINE_IN_LIST)
        for e in ordered[:MAX_DIGEST_LISTED]
    ]
    listed = 0
    for text, count in _packed((line, 1) for line in lines):
        if not out.add(_section(text), keep_blocks=1, keep_chars=300):
            break
        listed += count
    more = len(items) - listed
    if more > 0:
        out.add(_context(_say("slack.digest.more", language, count=more)))
    fallback = _say("slack.digest.fallback", language, count=len(items), counts=by_verdict)
    return _message(fallback, out.blocks)


# --- the Home tab -------------------------------------------------------------------------------------


def home_view(watched: list[tuple[str, str, Explanation | None]], *, language: str) -> dict[str, Any]:
    """The App Home: the jobs the user watches and their verdicts now, or how to watch one."""
    out = _Blocks(MAX_VIEW_BLOCKS, MAX_VIEW_TOTAL)
    out.add(_header(_words("slack.home.title", language)))
    if not watched:
        example = code("/kueue watch <namespace>/<job>")
        button = bold(render("slack.button.watch", language=language))
        out.add(_section(_say("slack.home.empty", language, example=example, button=button)))
        return {"type": "home", "blocks": out.blocks}
    out.add(_context(_say("slack.home.intro", language)))
    stop = _words("slack.button.unwatch", language)
    shown = 0
    for namespace, name, explanation in watched:
        job = _job(namespace, name)
        if explanation is None:
            text = f":grey_question: {job}\n{_say('slack.home.no-news', language)}"
            value = button_value(ns=namespace, name=name, kind=None, lq=None)
        else:
            headline = truncate(_text(explanation.headline, language), MAX_HEADLINE_IN_LIST * 2)
            emoji = FAMILY_EMOJI[family(explanation.verdict)]
            text = f"{emoji} {job} · {code(explanation.verdict.value)}\n{headline}"
            value = _job_value(explanation)
        accessory = _button(stop, ACTION_STOP, value) if value is not None else None
        if not out.add(_section(text, accessory), keep_blocks=1, keep_chars=300):
            break
        shown += 1
    if shown < len(watched):
        out.add(_context(_say("slack.home.more", language, count=len(watched) - shown)))
    return {"type": "home", "blocks": out.blocks}
