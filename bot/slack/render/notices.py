"""The proactive direct messages: a watched job's notification, its closing, a digest of many. Pure."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from bot.copy import render as render_words
from bot.forecast.eta import Eta
from bot.forecast.texts import eta_text
from bot.slack.mrkdwn import bold, code, truncate
from bot.slack.render.answer import job_value, position_text, verdict_line
from bot.slack.render.blocks import (
    ACTION_SNOOZE_1D,
    ACTION_SNOOZE_2H,
    ACTION_STOP,
    ACTION_WHY,
    FAMILY_EMOJI,
    MAX_DIGEST_LISTED,
    MAX_HEADLINE_IN_LIST,
    Block,
    Blocks,
    SlackMessage,
    actions_block,
    button_block,
    button_value,
    context,
    engine_text,
    family,
    job_name,
    message,
    say,
    section,
    words,
)
from bot.slack.render.replies import _short
from bot.trace.explanation import Explanation

_CLOSED_EMOJI = {"admitted": ":white_check_mark:", "finished": ":checkered_flag:", "deleted": ":wastebasket:"}


NotificationReason = Literal["inadmissible", "never-fits", "updated"]
ClosedOutcome = Literal["admitted", "finished", "deleted"]


def notification(
    explanation: Explanation,
    *,
    language: str,
    reason: NotificationReason,
    cluster: str = "",
    eta: Eta | None = None,
) -> SlackMessage:
    """The proactive direct message about a watched job, with Why?, Snooze 2 h, Snooze 1 day and Stop these
    DMs; a job that will never fit says what to do too (with several clusters, the cluster it is in is
    said, and its buttons name it)."""
    job = job_name(explanation.job.namespace, explanation.job.name)
    key = reason if reason in ("inadmissible", "never-fits", "updated") else "updated"
    why = say(f"slack.notify.{key}", language, job=job)
    headline = engine_text(explanation.headline, language)
    lines = [why, verdict_line(explanation, language), headline]
    fix = _fix(explanation, language)
    if fix:
        lines.append(_labelled("notify.fix", fix, language))
    blocks = [section("\n".join(lines))]
    if explanation.position is not None:
        blocks.append(context(position_text(explanation.position, language, named=True)))
    if eta is not None:  # the DM carries the ETA (updated in place when it moves)
        blocks.append(context(say("slack.summary.when", language, eta=engine_text(eta_text(eta), language))))
    if cluster:
        blocks.append(context(say("admin.cluster", language, cluster=code(cluster))))
    value = job_value(explanation, cluster)
    if value is not None:
        blocks.append(actions_block(_dm_buttons(value, language)))
    blocks.append(context(say("notify.footer", language)))
    return message(f"{why} {headline}", blocks)


def _dm_buttons(value: str, language: str) -> list[Block]:
    """Under a DM: Why? (the answer in its thread), the snoozes, and Stop these DMs (no danger in it)."""
    return [
        button_block(words("notify.button.why", language), ACTION_WHY, value),
        button_block(words("slack.button.snooze-2h", language), ACTION_SNOOZE_2H, value),
        button_block(words("slack.button.snooze-1d", language), ACTION_SNOOZE_1D, value),
        button_block(words("notify.button.stop", language), ACTION_STOP, value),
    ]


def _labelled(label: str, text: str, language: str) -> str:
    """ "*Why:* the job needs..." (the label in bold, the text as it is)."""
    return f"{bold(render_words(label, language=language))} {text}"


def _fix(explanation: Explanation, language: str) -> str:
    """What to do about a job that will never fit as it is: the engine's first action ("" when waiting will
    do, or the engine has none)."""
    if not explanation.verdict.never_fixes_itself or not explanation.actions:
        return ""
    return engine_text(explanation.actions[0].text, language)


def never_fits_news(explanation: Explanation, *, language: str, cluster: str = "") -> SlackMessage:
    """Said so that it notifies (a reply broadcast from the DM's thread): the job will now never fit, why, and
    what to do."""
    job = job_name(explanation.job.namespace, explanation.job.name)
    news = say("notify.now-never-fits", language, job=job)
    why = _labelled("notify.why", engine_text(explanation.headline, language), language)
    lines = [f"{FAMILY_EMOJI['never']} {news}", why]
    fix = _fix(explanation, language)
    if fix:
        lines.append(_labelled("notify.fix", fix, language))
    blocks = [section("\n".join(lines))]
    value = job_value(explanation, cluster)
    if value is not None:
        blocks.append(actions_block(_dm_buttons(value, language)))
    return message(" ".join([news, engine_text(explanation.headline, language), fix]).strip(), blocks)


def notification_closed(
    namespace: str, name: str, outcome: ClosedOutcome, waited_seconds: int | float | None, *, language: str
) -> SlackMessage:
    """The watch is over: admitted (after how long), finished or deleted."""
    key = outcome if outcome in _CLOSED_EMOJI else "finished"
    fragments: dict[str, str | int] = {"job": job_name(namespace, name)}
    if waited_seconds is not None:
        fragments["waited_seconds"] = max(0, int(waited_seconds))
    text = f"{_CLOSED_EMOJI[key]} {say(f'slack.closed.{key}', language, **fragments)} "
    text += say("slack.closed.stopped", language)
    return _short(text)


_FAMILY_ORDER = {"never": 0, "waits": 1, "ok": 2}


def digest(items: list[Explanation], *, language: str) -> SlackMessage:
    """Many jobs of one person at once: the counts by verdict, the first 20 (each with its Why?), and how many
    more."""
    ordered = sorted(items, key=lambda e: _FAMILY_ORDER[family(e.verdict)])
    counts = Counter(e.verdict for e in ordered)
    by_verdict = " · ".join(
        f"{FAMILY_EMOJI[family(verdict)]} {code(verdict.value)} × {count}"
        for verdict, count in sorted(counts.items(), key=lambda item: (_FAMILY_ORDER[family(item[0])], -item[1]))
    )
    title = say("slack.digest.title", language, count=len(items))
    out = Blocks()
    out.add(section(f"*{title}*"))
    out.add(context(say("slack.digest.counts", language, counts=by_verdict)))
    lines = [
        f"{FAMILY_EMOJI[family(e.verdict)]} {job_name(e.job.namespace, e.job.name)} · {code(e.verdict.value)} — "
        + truncate(engine_text(e.headline, language), MAX_HEADLINE_IN_LIST)
        for e in ordered[:MAX_DIGEST_LISTED]
    ]
    listed = 0
    for explanation, line in zip(ordered, lines, strict=False):
        job = explanation.job  # a line's job only: a line may come from what was kept of an older trace
        value = button_value(ns=job.namespace, name=job.name, kind=job.kind)
        why = button_block(words("notify.button.why", language), ACTION_WHY, value) if value is not None else None
        if not out.add(section(line, why), keep_blocks=1, keep_chars=300):
            break
        listed += 1
    more = len(items) - listed
    if more > 0:
        out.add(context(say("slack.digest.more", language, count=more)))
    fallback = say("slack.digest.fallback", language, count=len(items), counts=by_verdict)
    return message(fallback, out.blocks)
