"""Whether a message asks "will this fit?" (a job's YAML in a code block), `/kueue fit` (a short spec, or YAML) or
`/kueue quota ns/lq`, and what it gives. Pure and total: None when the text asks something else (then
bot.slack.parse reads it as a question)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from bot.fit.spec import Spec, parse_spec

MAX_JOB_TEXT = 40_000  # characters of YAML read from a message
_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")
_CODE = re.compile(r"```(?:ya?ml|json)?\s*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_ASKS = re.compile(
    r"\b(will|would|does|do|can)\s+(this|it|that|my\s+job|the\s+job)\s+fit\b|\bfit\s*\?|"
    r"\b(est-ce\s+que\s+)?(ça|ca|cela|il|mon\s+job)\s+(rentre|tient|passe)\b",
    re.IGNORECASE,
)
_QUEUE = re.compile(r"^(?:([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)/)?([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)$")


@dataclass(frozen=True)
class FitAsk:
    what: str  # yaml | no-yaml | spec | bad-spec | quota | quota-usage
    text: str = ""  # yaml: the job's text
    spec: Spec | None = None
    namespace: str | None = None  # quota
    local_queue: str = ""


def code_block(text: str) -> str | None:
    """The first code block's text (Slack's entities undone), or None."""
    found = _CODE.search(text[: MAX_JOB_TEXT * 2])
    return html.unescape(found.group(1))[:MAX_JOB_TEXT] if found else None


def _quota(rest: str) -> FitAsk:
    found = _QUEUE.match(rest.strip().lower())
    if found is None or not rest.strip():
        return FitAsk("quota-usage")
    return FitAsk("quota", namespace=found.group(1), local_queue=found.group(2))


def _subcommand(words: str, text: str) -> FitAsk | None:
    first, _, rest = words.partition(" ")
    first = first.lower()
    if first in ("quota", "quotas"):
        return _quota(rest)
    if first not in ("fit", "fits", "dry-run"):
        return None
    block = code_block(text)
    if block is not None:
        return FitAsk("yaml", block)
    spec = parse_spec(html.unescape(rest))
    return FitAsk("spec", spec=spec) if spec is not None else FitAsk("bad-spec")


def fit_request(text: str) -> FitAsk | None:
    """What a mention, a DM or the slash command's text asks of the dry run (None: something else)."""
    cleaned = _MENTION.sub(" ", text[: MAX_JOB_TEXT * 2]).strip()
    words = " ".join(cleaned.split())
    found = _subcommand(words, cleaned)
    if found is not None:
        return found
    outside = _CODE.sub(" ", cleaned)
    if not _ASKS.search(outside):
        return None
    block = code_block(cleaned)
    return FitAsk("yaml", block) if block is not None else FitAsk("no-yaml")


def shortcut_job(text: str) -> str:
    """The YAML of a message a "Will it fit?" shortcut was used on: its code block, else the whole text."""
    block = code_block(text)
    return block if block is not None else html.unescape(text)[:MAX_JOB_TEXT]
