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
from datetime import datetime

ELLIPSIS = "…"
_ESCAPE_TABLE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
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
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_MARKERS = re.compile("[`*]")
# Every character one of literal()'s rewrites starts from (a text without any is shown as it is).
_SPECIAL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029*~`_/@>&<]")
_WORD_JOINER = "\u2060"


def escape(text: str) -> str:
    """`&`, `<` and `>` as the entities Slack asks for; nothing else changes."""
    return text.translate(_ESCAPE_TABLE)


def unescape(text: str) -> str:
    """The inverse of `escape`: `unescape(escape(x)) == x` for every string."""
    return _ENTITY.sub(lambda match: _UNESCAPES[match.group(1)], text)


def literal(text: str) -> str:
    """Text shown as it is, inside a sentence: escaped, on one line, with nothing Slack would format or link."""
    if _SPECIAL.search(text) is None:  # most words: nothing below would change them
        return text
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


def date_token(when: datetime, fallback: str) -> str:
    """A moment each reader sees in their own time zone ("Dec 7, 2026 at 18:00"-like, by Slack's
    `<!date^epoch^format|fallback>`); clients that cannot show it show `fallback`."""
    shown = escape(fallback.replace("|", "/").replace("<", "‹").replace(">", "›")) or "-"
    return f"<!date^{int(when.timestamp())}^{{date_short_pretty}} {{time}}|{shown}>"


def bold(text: str) -> str:
    """Bold literal text (empty text stays empty: `**` would show as two stars)."""
    inner = literal(text).strip()
    return f"*{inner}*" if inner else ""


def plain(text: str) -> str:
    """Text for a `plain_text` object: one line, and no `<` or `>` at all (shown as ‹ ›), so nothing parses."""
    return _LINE_BREAKS.sub(" ", text).replace("<", "‹").replace(">", "›").strip()


def slack_len(text: str) -> int:
    """Length as Slack counts it: UTF-16 code units (an emoji outside the BMP counts 2)."""
    if text.isascii():
        return len(text)
    # A lone surrogate (invalid, but a Python str may hold one) is one unit, as in UTF-16 itself.
    return len(text.encode("utf-16-le", "surrogatepass")) >> 1


def _fitting(text: str, budget: int) -> int:
    """The length (in characters) of the longest prefix of `text` that is at most `budget` UTF-16 units."""
    if budget <= 0:
        return 0
    cut = min(len(text), budget)
    if text.isascii():
        return cut
    # The prefix of i characters holding k characters outside the BMP is i + k units long: the first such
    # character at or after `budget - k` (k of them before it) ends the prefix there.
    found = 0
    for match in _ASTRAL.finditer(text, 0, cut):
        if match.start() >= budget - found:
            return budget - found
        found += 1
    return min(len(text), budget - found)


def truncate(text: str, limit: int) -> str:
    """`text` (mrkdwn the bot built) shortened to `limit` with "…", never inside an entity, code span or bold run."""
    if slack_len(text) <= limit:
        return text
    end = _fitting(text, limit - slack_len(ELLIPSIS))
    # An entity is one piece: the cut never falls inside one (entities hold no `&`, so the last `&` tells).
    amp = text.rfind("&", max(0, end - 4), end)
    if amp >= 0 and (match := _ENTITY.match(text, amp)) is not None and match.end() > end:
        end = amp
    # The longest whole prefix: outside every code span and bold run. Backticks toggle code; stars toggle
    # bold outside code; a marker that opens a span from the outside is the last safe place while it lasts.
    in_code = in_bold = False
    opened = 0
    for match in _MARKERS.finditer(text, 0, end):
        outside = not in_code and not in_bold
        if match.group() == "`":
            in_code = not in_code
        elif not in_code:
            in_bold = not in_bold
        if outside and (in_code or in_bold):
            opened = match.start()
    safe = end if not in_code and not in_bold else opened
    return text[:safe].rstrip() + ELLIPSIS


def truncate_plain(text: str, limit: int) -> str:
    """Plain text shortened to `limit` (UTF-16 units) with "…"."""
    if slack_len(text) <= limit:
        return text
    return text[: _fitting(text, limit - slack_len(ELLIPSIS))].rstrip() + ELLIPSIS
