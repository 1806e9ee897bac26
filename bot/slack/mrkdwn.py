"""Slack mrkdwn, made safe for text the bot does not control (names and messages from the cluster, user input).

Slack asks for three escapes only: `&` `<` `>` (SLACK.md §3). That stops mentions (`<!channel>`, `<@U1>`) and
links (`<https://x|y>`), but not formatting: Slack has no escape for `*` `_` `~` and backticks. So text that
must read literally goes through `literal()`, which also swaps those characters for look-alikes that Slack
does not interpret, keeps the text on one line (a line starting with `&gt;` is a quote), and breaks bare
URLs and `@here`-style words. Names go in `code()` spans, where Slack formats nothing and links nothing.

`truncate()` shortens mrkdwn the bot composed without cutting an entity, a code span or a bold run in two.
Lengths are counted in UTF-16 code units, as Slack's limits are (never fewer than Python's `len`).
"""

from __future__ import annotations

import re

ELLIPSIS = "…"
_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_UNESCAPES = {"amp": "&", "lt": "<", "gt": ">"}
_ENTITY = re.compile(r"&(amp|lt|gt);")
# Characters Slack reads as formatting, and look-alikes it does not.
_LOOK_ALIKES = str.maketrans({"*": "∗", "~": "∼", "`": "ˋ"})
# An underscore formats only next to a non-word character (`_x_`); inside a word (`node_pool`) it is plain.
_EDGE_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
_LOW_LINE = "ˍ"
_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")
_SCHEME = re.compile(r"://")
_BROADCAST = re.compile(r"@(?=(?:here|channel|everyone)\b)", re.IGNORECASE)
_ZWSP = "\u200b"
_WORD_JOINER = "\u2060"


def escape(text: str) -> str:
    """`&`, `<` and `>` as the entities Slack asks for; nothing else changes."""
    return "".join(_ESCAPES.get(char, char) for char in text)


def unescape(text: str) -> str:
    """The inverse of `escape`: `unescape(escape(x)) == x` for every string."""
    return _ENTITY.sub(lambda match: _UNESCAPES[match.group(1)], text)


def literal(text: str) -> str:
    """Text shown as it is, inside a sentence: escaped, on one line, with nothing Slack would format or link."""
    flat = _LINE_BREAKS.sub(" ", text)
    flat = _EDGE_UNDERSCORE.sub(_LOW_LINE, flat.translate(_LOOK_ALIKES))
    flat = _SCHEME.sub(":" + _ZWSP + "//", flat)
    flat = _BROADCAST.sub("@" + _WORD_JOINER, flat)
    if flat.lstrip().startswith(">"):
        flat = "›" + flat.lstrip()[1:]
    return escape(flat)


def code(text: str) -> str:
    """An inline code span: Slack formats, links and mentions nothing inside it. Safe with backticks."""
    inner = _LINE_BREAKS.sub(" ", text).replace("`", "ˋ").strip()
    return f"`{escape(inner) or ' '}`"


def bold(text: str) -> str:
    """Bold literal text (empty text stays empty: `**` would show as two stars)."""
    inner = literal(text).strip()
    return f"*{inner}*" if inner else ""


def plain(text: str) -> str:
    """Text for a `plain_text` object: one line, and no `<` or `>` at all (shown as ‹ ›), so nothing parses."""
    return _LINE_BREAKS.sub(" ", text).replace("<", "‹").replace(">", "›").strip()


def slack_len(text: str) -> int:
    """Length as Slack counts it: UTF-16 code units (an emoji outside the BMP counts 2)."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def truncate(text: str, limit: int) -> str:
    """`text` (mrkdwn the bot built) shortened to `limit` with "…", never inside an entity, code span or bold run."""
    if slack_len(text) <= limit:
        return text
    budget = limit - slack_len(ELLIPSIS)
    safe = 0  # the longest prefix that is whole: outside any entity, code span and bold run
    used = 0
    in_code = in_bold = False
    index = 0
    while index < len(text):
        char = text[index]
        if char == "&" and (match := _ENTITY.match(text, index)) is not None:
            step = match.end() - index
        else:
            step = 1
            if char == "`":
                in_code = not in_code
            elif char == "*" and not in_code:
                in_bold = not in_bold
        width = slack_len(text[index : index + step])
        if used + width > budget:
            break
        used += width
        index += step
        if not in_code and not in_bold:
            safe = index
    return text[:safe].rstrip() + ELLIPSIS


def truncate_plain(text: str, limit: int) -> str:
    """Plain text shortened to `limit` (UTF-16 units) with "…"."""
    if slack_len(text) <= limit:
        return text
    budget = limit - slack_len(ELLIPSIS)
    used = cut = 0
    for char in text:
        width = slack_len(char)
        if used + width > budget:
            break
        used += width
        cut += 1
    return text[:cut].rstrip() + ELLIPSIS
