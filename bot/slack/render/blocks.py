"""The building blocks of every message: Slack's limits, the action ids of the buttons, the words (catalogue
sentences as mrkdwn, names as code, cluster text literal) and blocks added while the limits allow. Pure."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.copy import render, render_value
from bot.slack.mrkdwn import code, literal, plain, slack_len, truncate, truncate_plain
from bot.trace.codes import Verdict
from bot.trace.explanation import Text

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
ACTION_WHY = "kueue_why"
ACTION_SHOW_STEPS = "kueue_show_steps"
ACTION_OPEN_LINK = "kueue_open_link"  # a link button (Headlamp): Slack still reports the click, acked and ignored

Family = Literal["never", "waits", "ok"]
FAMILY_EMOJI: Mapping[str, str] = {
    "never": ":no_entry:",
    "waits": ":hourglass_flowing_sand:",
    "ok": ":white_check_mark:",
}
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


@dataclass(frozen=True)
class SlackMessage:
    text: str  # the fallback: notifications and screen readers
    blocks: list[Block] = field(default_factory=list)


# --- words --------------------------------------------------------------------------------------------

_SLOT = re.compile("\ue000([0-9]+)\ue001")


def say(key: str, language: str, /, **fragments: str | int) -> str:
    """A catalogue sentence as mrkdwn. Its words are shown literally; str fragments are mrkdwn already."""
    slots: list[str] = []
    params: dict[str, str | int] = {}
    shape: list[object] = [key, language]  # what the sentence around the fragments depends on
    for name, value in fragments.items():
        if isinstance(value, str):
            params[name] = f"\ue000{len(slots)}\ue001"
            slots.append(value)
            shape.append(name)
        else:
            params[name] = value
            shape.append((name, type(value), value))  # True equals 1 as a key, and is said "True"
    said = tuple(shape)
    found = _SAID.get(said)
    if found is None:
        # The sentence with a mark where each fragment goes, its words made literal, split at the marks: the
        # same for every answer that says it with the same numbers (an answer says some seventy sentences).
        pieces = _SLOT.split(literal(render(key, params, language)))
        found = (tuple(pieces[0::2]), tuple(int(index) for index in pieces[1::2]))
        if len(_SAID) >= _SAID_MAX:
            _SAID.clear()
        _SAID[said] = found
    words, indexes = found
    out = [words[0]]
    for index, after in zip(indexes, words[1:], strict=True):
        out.append(slots[index])
        out.append(after)
    return "".join(out)


_SAID: dict[tuple[object, ...], tuple[tuple[str, ...], tuple[int, ...]]] = {}  # `say`'s sentences, split
_SAID_MAX = 4096  # sentences kept (numbers make new ones): let go all at once past that


def words(key: str, language: str, params: Mapping[str, object] | None = None) -> str:
    """A catalogue sentence as plain text (buttons, headers)."""
    return plain(render(key, params, language))


def cap(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


def code_name(value: str) -> str:
    return _kept(_CODE_NAMES, value, _code_span)


def free_text(value: str) -> str:
    """Free text from the cluster, literal and capped."""
    return _kept(_FREE_TEXTS, value, _literal_capped)


def _code_span(name: str) -> str:
    return code(cap(name, MAX_CODE))


def _literal_capped(text: str) -> str:
    return literal(cap(text, MAX_FREE_TEXT))


# What code_name and free_text made, by the text given: an answer names the same queues and flavors and quotes the
# same messages as the last ones (up to _SAID_MAX each, let go at once past that).
_CODE_NAMES: dict[str, str] = {}
_FREE_TEXTS: dict[str, str] = {}


def _kept(table: dict[str, str], value: str, make: Callable[[str], str]) -> str:
    found = table.get(value)
    if found is None:
        found = make(value)
        if len(table) >= _SAID_MAX:
            table.clear()
        table[value] = found
    return found


def job_name(namespace: str | None, name: str) -> str:
    return code_name(f"{namespace}/{name}" if namespace else name)


def _fragment(name: str, value: object, language: str) -> str | int:
    if isinstance(value, _COMPOSED):  # a fragment the engine composed: in the reader's language too
        value = render_value(value, language)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value)
    return code_name(text) if name in _CODE_PARAMS else free_text(text)


_COMPOSED = (Text, tuple)


def engine_text(value: Text, language: str) -> str:
    """One of the engine's sentences as mrkdwn: names as code, cluster text literal."""
    return say(value.key, language, **{name: _fragment(name, v, language) for name, v in value.params.items()})


def family(verdict: Verdict) -> Family:
    """never: someone must change something; ok: nothing is pending; waits: time (or an admin) will tell."""
    if verdict in (Verdict.RUNNING, Verdict.FINISHED):
        return "ok"
    if verdict.never_fixes_itself or verdict == Verdict.JOB_NOT_FOUND:
        return "never"
    return "waits"


def ordinal(number: int, language: str) -> str:
    if number == 1:
        category = "first"
    elif number % 100 in (11, 12, 13):
        category = "other"
    else:
        category = {1: "one", 2: "two", 3: "few"}.get(number % 10, "other")
    return literal(render(f"slack.ordinal.{category}", {"n": number}, language))


# --- blocks -------------------------------------------------------------------------------------------


def section(text: str, accessory: Block | None = None) -> Block:
    block: Block = {"type": "section", "text": {"type": "mrkdwn", "text": truncate(text, MAX_SECTION) or "…"}}
    if accessory is not None:
        block["accessory"] = accessory
    return block


def context(*texts: str) -> Block:
    elements = [{"type": "mrkdwn", "text": truncate(text, MAX_SECTION)} for text in texts if text.strip()]
    return {"type": "context", "elements": elements[:MAX_CONTEXT_ELEMENTS] or [{"type": "mrkdwn", "text": "…"}]}


def header(text: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": truncate_plain(text, MAX_HEADER) or "…"}}


def button_block(label: str, action_id: str, value: str | None, style: str | None = None) -> Block:
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


def actions_block(buttons: Sequence[Block]) -> Block:
    return {"type": "actions", "elements": list(buttons[:MAX_ACTIONS])}


def button_value(**fields: str | None) -> str | None:
    """Compact JSON for a button's value ({"ns", "name", "kind", "lq"}); None when it would not fit.

    `<`, `>` and `&` are written as JSON escapes: the value decodes the same, and no markup hides in it."""
    data = {key: cap(value, MAX_CODE) if isinstance(value, str) else value for key, value in fields.items()}
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return text if slack_len(text) <= MAX_BUTTON_VALUE else None


def chars(value: object) -> int:
    """All the text a block carries, as Slack counts it."""
    if isinstance(value, dict):
        return sum(chars(item) for key, item in value.items() if key in ("text", "elements", "fields", "accessory"))
    if isinstance(value, list):
        return sum(chars(item) for item in value)
    return slack_len(value) if isinstance(value, str) else 0


class Blocks:
    """Blocks added in order of importance while the message's limits allow."""

    def __init__(self, max_blocks: int = MAX_BLOCKS, max_chars: int = MAX_TOTAL) -> None:
        self.blocks: list[Block] = []
        self.max_blocks = max_blocks
        self.max_chars = max_chars
        self.used = 0

    def add(self, block: Block, *, keep_blocks: int = 0, keep_chars: int = 0) -> bool:
        cost = chars(block)
        if len(self.blocks) + 1 + keep_blocks > self.max_blocks or self.used + cost + keep_chars > self.max_chars:
            return False
        self.blocks.append(block)
        self.used += cost
        return True


def packed(items: Iterable[tuple[str, int]], first: str = "") -> list[tuple[str, int]]:
    """Lines packed into section texts of at most MAX_SECTION characters, each with the sum of its lines'
    weights (how many steps, actions... it shows); `first` heads the first one."""
    chunks: list[tuple[str, int]] = []
    current, weight = first, 0
    size = slack_len(first)  # Slack's length of `current` (lengths add up: each line is counted once)
    for line, line_weight in items:
        line = truncate(line, MAX_SECTION)
        length = slack_len(line)
        together = size + 1 + length if current else length  # current, a line break, the line
        if together <= MAX_SECTION:
            current, weight, size = (f"{current}\n{line}" if current else line), weight + line_weight, together
        else:
            if current:
                chunks.append((current, weight))
            current, weight, size = line, line_weight, length
    if current:
        chunks.append((current, weight))
    return chunks


def chunked(lines: Iterable[str], first: str = "") -> list[str]:
    return [text for text, _ in packed(((line, 1) for line in lines), first)]


def message(fallback: str, blocks: list[Block]) -> SlackMessage:
    """The message, its blocks cut to what Slack takes (a safety net: builders stay well inside)."""
    kept = Blocks()
    for block in blocks:
        if not kept.add(block):
            break
    return SlackMessage(text=truncate(fallback, MAX_FALLBACK) or "…", blocks=kept.blocks)
