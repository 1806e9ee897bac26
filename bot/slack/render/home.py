"""The App Home tab: the person's jobs (those they watch, those the bot tells them or their namespaces'
channels about) with their verdicts now and a Why? each, and how to ask. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.copy import render
from bot.slack.mrkdwn import bold, code, truncate
from bot.slack.render.blocks import (
    ACTION_STOP,
    ACTION_WHY,
    FAMILY_EMOJI,
    MAX_HEADLINE_IN_LIST,
    MAX_VIEW_BLOCKS,
    MAX_VIEW_TOTAL,
    Block,
    Blocks,
    actions_block,
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

Listed = Sequence[tuple[str, str, Explanation | None]]  # (namespace, job, its explanation now or None)


def home_view(watched: Listed, *, language: str, told: Listed = ()) -> dict[str, Any]:
    """The App Home: how to ask; the jobs the user watches (Why? and Stop watching each), or how to watch one;
    then the jobs the bot tells them (or their namespaces' channels) about, with a Why? each."""
    out = Blocks(MAX_VIEW_BLOCKS, MAX_VIEW_TOTAL)
    out.add(header(words("notify.home.title", language)))
    out.add(section(say("notify.home.ask", language, command=code("/kueue why <namespace>/<job>"))))
    out.add(section(bold(render("slack.home.title", language=language))))
    if not watched:
        example = code("/kueue watch <namespace>/<job>")
        button = bold(render("slack.button.watch", language=language))
        out.add(section(say("slack.home.empty", language, example=example, button=button)))
    else:
        out.add(context(say("slack.home.intro", language)))
        _listed(out, watched, language, stop=True)
    if told:
        out.add(section(bold(render("notify.home.told", language=language))))
        _listed(out, told, language, stop=False)
    return {"type": "home", "blocks": out.blocks}


def _listed(out: Blocks, jobs: Listed, language: str, *, stop: bool) -> None:
    """Each job: its verdict and headline now, with Why? (and Stop watching); "and N more" for the rest."""
    shown = 0
    for namespace, name, explanation in jobs:
        job = job_name(namespace, name)
        if explanation is None:
            text = f":grey_question: {job}\n{say('slack.home.no-news', language)}"
            kind = None
        else:
            headline = truncate(engine_text(explanation.headline, language), MAX_HEADLINE_IN_LIST * 2)
            emoji = FAMILY_EMOJI[family(explanation.verdict)]
            text = f"{emoji} {job} · {code(explanation.verdict.value)}\n{headline}"
            kind = explanation.job.kind
        value = button_value(ns=namespace, name=name, kind=kind)
        blocks = _job_blocks(text, value, language, stop=stop)
        if not all(out.add(block, keep_blocks=2, keep_chars=300) for block in blocks):
            break
        shown += 1
    if shown < len(jobs):
        out.add(context(say("slack.home.more", language, count=len(jobs) - shown)))


def _job_blocks(text: str, value: str | None, language: str, *, stop: bool) -> list[Block]:
    if value is None:
        return [section(text)]
    why = button_block(words("notify.button.why", language), ACTION_WHY, value)
    if not stop:
        return [section(text, why)]
    return [
        section(text),
        actions_block([why, button_block(words("slack.button.unwatch", language), ACTION_STOP, value)]),
    ]
