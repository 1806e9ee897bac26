"""Slack messages as a person reads them, for a terminal: Block Kit and mrkdwn to lines of text. Pure.

Headers and *bold* are bold, `code` is cyan, context lines are dim, buttons read [Re-check] [Watch this job];
emoji names become emoji, mentions become @name, links "label (url)", and Slack's &amp; &lt; &gt; are undone.
Without colour the same text comes out plain: no escape codes at all.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Block = Mapping[str, Any]

EMOJI = {
    "no_entry": "⛔",
    "hourglass_flowing_sand": "⏳",
    "white_check_mark": "✅",
    "x": "❌",
    "information_source": "ℹ️",
    "heavy_minus_sign": "➖",
    "grey_question": "❔",
    "checkered_flag": "🏁",
    "wastebasket": "🗑️",
    "large_green_circle": "🟢",
    "double_vertical_bar": "⏸️",
    "warning": "⚠️",
    "eyes": "👀",
    "satellite_antenna": "📡",
    "bell": "🔔",
    "zzz": "💤",
}
_CODE = re.compile(r"`([^`\n]*)`")
_SPAN = re.compile("\x00([0-9]+)\x00")
_ANGLE = re.compile(r"<([^<>\n]+)>")
_BOLD = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_STRIKE = re.compile(r"(?<![\w~])~(?=\S)([^~\n]+?)(?<=\S)~(?![\w~])")
_EMOJI = re.compile(r":([a-z0-9_+-]+):")
_ENTITY = re.compile(r"&(amp|lt|gt);")
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">"}


def unescape(text: str) -> str:
    return _ENTITY.sub(lambda match: _ENTITIES[match.group(1)], text)


@dataclass(frozen=True)
class Style:
    """How emphasis shows: ANSI escape codes on a colour terminal, nothing otherwise."""

    colour: bool = False

    def _paint(self, text: str, on: str, off: str) -> str:
        """`text` between an SGR code and the code that undoes only it, so that styles nest."""
        return f"\x1b[{on}m{text}\x1b[{off}m" if self.colour and text else text

    def bold(self, text: str) -> str:
        return self._paint(text, "1", "22")

    def italic(self, text: str) -> str:
        return self._paint(text, "3", "23")

    def dim(self, text: str) -> str:
        return self._paint(text, "2", "22")

    def code(self, text: str) -> str:
        return self._paint(text, "36", "39")

    def accent(self, text: str) -> str:
        return self._paint(self._paint(text, "35", "39"), "1", "22")

    def button(self, text: str) -> str:
        return self._paint(self._paint(f"[{text}]", "34", "39"), "1", "22")


@dataclass(frozen=True)
class Button:
    label: str
    action_id: str
    value: str | None


def mrkdwn(text: str, style: Style, users: Mapping[str, str] | None = None) -> str:
    """One mrkdwn text (possibly several lines) as terminal text. Code spans are set aside first (nothing
    inside them is formatting), so that *bold around `code`* still reads bold."""
    spans: list[str] = []

    def aside(match: re.Match[str]) -> str:
        spans.append(style.code(unescape(match.group(1))))
        return f"\x00{len(spans) - 1}\x00"

    inline = _inline(_CODE.sub(aside, text.replace("\x00", "")), style, users or {})
    return _SPAN.sub(lambda match: spans[int(match.group(1))], inline)


def _angle(inner: str, users: Mapping[str, str]) -> str:
    target, _, label = inner.partition("|")
    if target.startswith("@"):
        return "@" + (label or users.get(target[1:], target[1:]))
    if target.startswith("#"):
        return "#" + (label or target[1:])
    if target.startswith("!date^"):
        return label  # a date token: its fallback, as a client that cannot show it would
    if target.startswith("!"):
        return "@" + (label or target[1:].split("^")[0])
    return f"{label} ({target})" if label and label != target else target


def _inline(text: str, style: Style, users: Mapping[str, str]) -> str:
    text = _ANGLE.sub(lambda match: _angle(match.group(1), users), text)
    text = _EMOJI.sub(lambda match: EMOJI.get(match.group(1), match.group(0)), text)
    text = _BOLD.sub(lambda match: style.bold(match.group(1)), text)
    text = _ITALIC.sub(lambda match: style.italic(match.group(1)), text)
    text = _STRIKE.sub(lambda match: match.group(1), text)
    return unescape(text)


def _text_object(value: object, style: Style, users: Mapping[str, str]) -> str:
    if not isinstance(value, Mapping):
        return ""
    text = str(value.get("text") or "")
    if value.get("type") == "mrkdwn":
        return mrkdwn(text, style, users)
    return _EMOJI.sub(lambda match: EMOJI.get(match.group(1), match.group(0)), text)


def _element(element: Block, style: Style, users: Mapping[str, str], labels: Mapping[int, str] | None = None) -> str:
    kind = element.get("type")
    if kind == "button":
        return style.button((labels or {}).get(id(element)) or _text_object(element.get("text"), Style(), users))
    if kind == "image":
        return f"[image: {element.get('alt_text', '')}]"
    if kind in ("mrkdwn", "plain_text"):
        return _text_object(element, style, users)
    placeholder = _text_object(element.get("placeholder"), Style(), users)
    return style.button(f"{placeholder or kind} ▾")


def _button_elements(blocks: Sequence[Block] | None) -> list[Block]:
    """The buttons of a message, in order: in actions blocks and as section accessories."""
    found: list[Block] = []
    for block in blocks or ():
        if block.get("type") == "actions":
            candidates = list(block.get("elements") or [])
        elif block.get("type") == "section":
            candidates = [block.get("accessory")]
        else:
            continue
        found.extend(e for e in candidates if isinstance(e, Mapping) and e.get("type") == "button")
    return found


def button_labels(blocks: Sequence[Block] | None) -> dict[int, str]:
    """Each button's label as the terminal shows it: buttons of one message that Slack labels alike (a choice's
    "This one" beside each job) are numbered, "This one 1", "This one 2", so that each can be told and clicked."""
    elements = _button_elements(blocks)
    plain = [str((e.get("text") or {}).get("text") or "") for e in elements]
    seen: dict[str, int] = {}
    labels: dict[int, str] = {}
    for element, label in zip(elements, plain, strict=True):
        if plain.count(label) > 1:
            seen[label] = seen.get(label, 0) + 1
            label = f"{label} {seen[label]}"
        labels[id(element)] = label
    return labels


def block_lines(
    block: Block, style: Style, users: Mapping[str, str], labels: Mapping[int, str] | None = None
) -> list[str]:
    kind = block.get("type")
    if kind == "header":
        return [style.bold(_text_object(block.get("text"), Style(), users))]
    if kind == "section":
        lines = _text_object(block.get("text"), style, users).splitlines() if block.get("text") else []
        lines += [_text_object(field, style, users) for field in block.get("fields") or []]
        accessory = block.get("accessory")
        if isinstance(accessory, Mapping):
            shown = _element(accessory, style, users, labels)
            if lines:
                lines[-1] += "  " + shown
            else:
                lines.append(shown)
        return lines
    if kind == "context":
        parts = [_element(e, style, users) for e in block.get("elements") or [] if isinstance(e, Mapping)]
        return [style.dim(unstyled) for unstyled in ("  ·  ".join(parts)).splitlines()]
    if kind == "actions":
        elements = [e for e in block.get("elements") or [] if isinstance(e, Mapping)]
        return [" ".join(_element(e, style, users, labels) for e in elements)]
    if kind == "divider":
        return [style.dim("─" * 40)]
    if kind == "image":
        return [f"[image: {block.get('alt_text', '')}]"]
    return []


def message_lines(
    text: str, blocks: Sequence[Block] | None, style: Style, users: Mapping[str, str] | None = None
) -> list[str]:
    """A whole message: its blocks when it has some, else its text."""
    known = users or {}
    if not blocks:
        return mrkdwn(text, style, known).splitlines() or [""]
    lines: list[str] = []
    labels = button_labels(blocks)
    for block in blocks:
        lines.extend(block_lines(block, style, known, labels))
    return lines or mrkdwn(text, style, known).splitlines()


def buttons(blocks: Sequence[Block] | None) -> list[Button]:
    """The buttons of a message, in order (in actions blocks and as section accessories), labelled as the
    terminal shows them (button_labels)."""
    labels = button_labels(blocks)
    found: list[Button] = []
    for element in _button_elements(blocks):
        value = element.get("value")
        action = str(element.get("action_id") or "")
        found.append(Button(labels[id(element)], action, str(value) if value is not None else None))
    return found


def _squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def matches(button: Button, wanted: str) -> bool:
    """ "watch" finds [Watch this job] (kueue_watch); "recheck" and "re-check" find [Re-check]; "queue" and
    "show queue" find [Show the queue] (kueue_show_queue): the label or the action, from any of its words."""
    key = _squash(wanted)
    if not key:
        return False
    words = button.label.split()
    labels = {_squash(" ".join(words[index:])) for index in range(len(words))}
    action = button.action_id.removeprefix("kueue_").split("_")
    actions = {"".join(action[index:]) for index in range(len(action))}
    return any(text.startswith(key) for text in labels | actions if text)


def strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def width_of(text: str) -> int:
    """The columns `text` takes on a terminal: no escape code counts, a wide character (an emoji) counts 2."""
    columns = 0
    for char in _ANSI.sub("", text):
        if char == "\ufe0f":  # the emoji presentation selector: the character before it shows wide
            columns += 1
        elif unicodedata.combining(char) or char == "\u200d":
            continue
        else:
            columns += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return columns


def _cut(word: str, width: int) -> list[str]:
    """A word wider than the line, in pieces that fit (escape codes kept with the character after them)."""
    pieces, piece = [], ""
    for token in re.findall(r"\x1b\[[0-9;]*m|.", word, flags=re.DOTALL):
        if token.startswith("\x1b") or width_of(piece + token) <= width:
            piece += token
        else:
            pieces.append(piece)
            piece = token
    return [*pieces, piece] if piece else pieces


def wrap(line: str, width: int | None, *, margin: str = "", hang: str = "  ") -> list[str]:
    """`line` broken between words into lines of at most `width` columns, each after `margin`; the lines
    after the first are indented by `hang` more. No width (not a terminal): the line as it is."""
    if width is None or width_of(margin + line) <= width:
        return [margin + line]
    room = max(10, width - width_of(margin))
    lines: list[str] = []
    current = ""
    for word in line.split(" "):
        limit = room - (width_of(hang) if lines else 0)
        candidate = f"{current} {word}" if current else word
        if width_of(candidate) <= limit or (not current and width_of(word) <= limit):
            current = candidate
            continue
        if current:
            lines.append(current)
        limit = room - width_of(hang)
        pieces = _cut(word, limit) if width_of(word) > limit else [word]
        lines.extend(pieces[:-1])
        current = pieces[-1] if pieces else ""
    if current or not lines:
        lines.append(current)
    return [margin + (hang if index else "") + text.rstrip(" ") for index, text in enumerate(lines)]
