"""The admins' view as Block Kit: a header, one section per ClusterQueue with each finding and its
fix, within Slack's limits (50 blocks, 3000 characters a section). Pure."""

from __future__ import annotations

from datetime import datetime

from bot.admin.view import AdminView, Finding, Group
from bot.copy import render as render_words
from bot.copy import render_value
from bot.copy.text import Text
from bot.slack.mrkdwn import code, date_token, literal, plain, truncate, truncate_plain
from bot.slack.render import MAX_BLOCKS, MAX_FALLBACK, MAX_HEADER, MAX_SECTION, SlackMessage

MAX_GROUPS = MAX_BLOCKS - 6  # header, intro, dividers and the "and more" line leave room for this many
MAX_FINDINGS = 12  # per ClusterQueue; the rest are counted


def _mrkdwn(sentence: str) -> str:
    """One of our sentences as mrkdwn: `spans` as code, the rest literal (cluster text included: safe)."""
    parts = sentence.split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks (from the cluster): no code spans at all
        return literal(sentence)
    return "".join(code(part) if index % 2 else literal(part) for index, part in enumerate(parts))


def _say(text: Text, language: str) -> str:
    return _mrkdwn(render_value(text, language))


def _finding(finding: Finding, language: str) -> str:
    """What to do, in the imperative (each fix capitalised), then why."""
    fixes = " ".join(_capitalised(_say(fix, language)) for fix in finding.fix)
    label = literal(render_words("admin.why", None, language))
    return f"• {fixes}\n    _{label}_ {_say(finding.what, language)}"


def _capitalised(sentence: str) -> str:
    """The sentence with its first letter in capitals (one that starts with a name in `code` is left as it is)."""
    return sentence[:1].upper() + sentence[1:]


def _group(group: Group, language: str) -> str:
    key = "admin.group" if group.exists else "admin.group-missing"
    title = f"*{literal(render_words(key, {'cluster_queue': group.cluster_queue or '-'}, language))}*"
    lines = [_finding(f, language) for f in group.findings[:MAX_FINDINGS]]
    hidden = len(group.findings) - len(lines)
    if hidden > 0:
        lines.append(literal(render_words("admin.more", {"count": hidden}, language)))
    return truncate("\n".join([title, *lines]), MAX_SECTION)


_TIME = "\ue000time\ue001"  # where the time goes in its sentence (a private-use mark literal() keeps)


def admin_message(
    view: AdminView, *, language: str, cluster: str = "", as_of: str = "", at: datetime | None = None
) -> SlackMessage:
    """The whole view, grouped by ClusterQueue; "all clear" when there is nothing to fix. `as_of` is the time the
    view was taken, as text; with `at` (that moment) each reader sees it in their own time zone."""
    title = render_words("admin.title", None, language)
    if cluster:
        title = f"{title} · {render_words('admin.cluster', {'cluster': cluster}, language)}"
    blocks: list[dict[str, object]] = [
        {"type": "header", "text": {"type": "plain_text", "text": truncate_plain(plain(title), MAX_HEADER)}}
    ]
    count = len(view.findings)
    intro = (
        render_words("admin.intro", {"count": count}, language)
        if count
        else render_words("admin.all-clear", None, language)
    )
    context = literal(intro)
    if as_of:
        sentence = literal(render_words("admin.as-of", {"time": _TIME}, language))
        context += " " + sentence.replace(_TIME, date_token(at, as_of) if at is not None else literal(as_of))
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": truncate(context, MAX_SECTION)}]})
    shown = view.groups[:MAX_GROUPS]
    for group in shown:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": _group(group, language)}})
    rest = sum(len(g.findings) for g in view.groups[len(shown) :])
    if rest:
        more = literal(render_words("admin.more", {"count": rest}, language))
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": more}]})
    fallback = f"{title}: {intro}"
    return SlackMessage(truncate_plain(fallback, MAX_FALLBACK), blocks)
