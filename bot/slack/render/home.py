"""The App Home tab: the jobs a person watches and their verdicts now. Pure."""

from __future__ import annotations

from typing import Any

from bot.copy import render
from bot.slack.mrkdwn import bold, code, truncate
from bot.slack.render.answer import job_value
from bot.slack.render.blocks import (
    ACTION_STOP,
    FAMILY_EMOJI,
    MAX_HEADLINE_IN_LIST,
    MAX_VIEW_BLOCKS,
    MAX_VIEW_TOTAL,
    Blocks,
    button_block,
    button_value,
    context,
    engine_text,
    family,
    header,
    job_name,
    say,
    section,
    words,
)
from bot.trace.explanation import Explanation


def home_view(watched: list[tuple[str, str, Explanation | None]], *, language: str) -> dict[str, Any]:
    """The App Home: the jobs the user watches and their verdicts now, or how to watch one."""
    out = Blocks(MAX_VIEW_BLOCKS, MAX_VIEW_TOTAL)
    out.add(header(words("slack.home.title", language)))
    if not watched:
        example = code("/kueue watch <namespace>/<job>")
        button = bold(render("slack.button.watch", language=language))
        out.add(section(say("slack.home.empty", language, example=example, button=button)))
        return {"type": "home", "blocks": out.blocks}
    out.add(context(say("slack.home.intro", language)))
    stop = words("slack.button.unwatch", language)
    shown = 0
    for namespace, name, explanation in watched:
        job = job_name(namespace, name)
        if explanation is None:
            text = f":grey_question: {job}\n{say('slack.home.no-news', language)}"
            value = button_value(ns=namespace, name=name, kind=None, lq=None)
        else:
            headline = truncate(engine_text(explanation.headline, language), MAX_HEADLINE_IN_LIST * 2)
            emoji = FAMILY_EMOJI[family(explanation.verdict)]
            text = f"{emoji} {job} · {code(explanation.verdict.value)}\n{headline}"
            value = job_value(explanation)
        accessory = button_block(stop, ACTION_STOP, value) if value is not None else None
        if not out.add(section(text, accessory), keep_blocks=1, keep_chars=300):
            break
        shown += 1
    if shown < len(watched):
        out.add(context(say("slack.home.more", language, count=len(watched) - shown)))
    return {"type": "home", "blocks": out.blocks}
