"""What a person sees of a Slack message: its visible text, as Slack's client shows it (mrkdwn marks dropped,
an emoji code one character, an entity its character, a link or a date token its label), and its blocks."""

from __future__ import annotations

import html
import re
from typing import Any

_LINK = re.compile(r"<(?:[^<>|]*)\|([^<>]*)>")
_BARE_LINK = re.compile(r"<([^<>|]*)>")
_EMOJI = re.compile(r":[a-z][a-z0-9_+-]*:")
_MARKS = re.compile(r"[*`]|(?<!\w)_|_(?!\w)|~")


def visible(text: str) -> str:
    """One mrkdwn text as a reader sees it."""
    shown = _LINK.sub(r"\1", text)
    shown = _BARE_LINK.sub(r"\1", shown)
    shown = _EMOJI.sub("☐", shown)
    shown = _MARKS.sub("", shown)
    return html.unescape(shown)


def _texts(block: dict[str, Any]) -> list[str]:
    kind = block.get("type")
    if kind in ("section", "header"):
        found = [str(block.get("text", {}).get("text", ""))] if "text" in block else []
        found += [str(field.get("text", "")) for field in block.get("fields", [])]
        accessory = block.get("accessory")
        if isinstance(accessory, dict) and accessory.get("type") == "button":
            found.append(str(accessory["text"]["text"]))
        return found
    if kind == "context":
        return [str(element.get("text", "")) for element in block.get("elements", []) if "text" in element]
    if kind == "actions":
        return [str(element["text"]["text"]) for element in block.get("elements", []) if "text" in element]
    return []


def visible_text(blocks: list[dict[str, Any]]) -> str:
    """Every visible text of these blocks, one per line."""
    return "\n".join(visible(text) for block in blocks for text in _texts(block))


def visible_chars(blocks: list[dict[str, Any]]) -> int:
    """How many characters a reader sees (line breaks between texts not counted)."""
    return sum(len(visible(text)) for block in blocks for text in _texts(block))
