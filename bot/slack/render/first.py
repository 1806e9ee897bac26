"""The first message of an answer: enough to act on its own. Pure.

The verdict in plain words with its cause (the engine's headline: the resource, flavor, queue, blocker and
numbers), ONE thing to do (the first of the one list, bot.forecast.todo), the place in the queue and the ETA in
the message's own text (not small grey context), and buttons for the situation: "Show the steps" (the
admission path, one click away), Re-check, Watch while it waits, the queue when it has one, Headlamp when
HEADLAMP_URL is set. At most FIRST_MAX_VISIBLE visible characters and FIRST_MAX_BLOCKS blocks.

`first_blocks` is the message without buttons or footer, for a caller that adds its own (a DM's Snooze/Stop).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from bot.copy import render
from bot.forecast.outlook import NO_OUTLOOK, Outlook
from bot.forecast.texts import eta_text
from bot.forecast.todo import Todo, todo_list
from bot.slack.mrkdwn import bold, code, truncate
from bot.slack.render.answer import job_value, position_text
from bot.slack.render.blocks import (
    ACTION_OPEN_LINK,
    ACTION_RECHECK,
    ACTION_SHOW_QUEUE,
    ACTION_SHOW_STEPS,
    ACTION_WATCH,
    FAMILY_EMOJI,
    Block,
    SlackMessage,
    actions_block,
    button_block,
    context,
    engine_text,
    family,
    message,
    say,
    section,
    words,
)
from bot.trace.explanation import Explanation

FIRST_MAX_VISIBLE = 900
FIRST_MAX_BLOCKS = 8
_MAX_HEADLINE = 520  # visible characters of the headline kept in the first message
_MAX_TODO = 240
_MAX_WHEN = 170

# Kueue's words a first message may use, and the concept page that explains each (docs/glossary.md too).
_KUEUE_DOCS = "https://kueue.sigs.k8s.io/docs/concepts/"
TERMS: tuple[tuple[str, str], ...] = (
    ("term.cluster-queue", "cluster_queue/"),
    ("term.local-queue", "local_queue/"),
    ("term.flavor", "resource_flavor/"),
    ("term.cohort", "cohort/"),
    ("term.nominal-quota", "cluster_queue/#resources"),
    ("term.pod-set", "workload/"),
    ("term.admission-check", "admission_check/"),
    ("term.priority-class", "workload_priority_class/"),
)
_CODE_SPAN = re.compile(r"`[^`]*`")


@dataclass(frozen=True)
class Links:
    """Where readers look besides Slack: Headlamp's Kueue plugin (HEADLAMP_URL, with its cluster path)."""

    headlamp: str = ""

    def workload(self, namespace: str, name: str) -> str:
        return f"{self.headlamp.rstrip('/')}/kueue/workloads/{quote(namespace, safe='')}/{quote(name, safe='')}"

    def cluster_queue(self, name: str) -> str:
        return f"{self.headlamp.rstrip('/')}/kueue/clusterqueues/{quote(name, safe='')}"


def first_todo(explanation: Explanation, outlook: Outlook = NO_OUTLOOK) -> tuple[Todo | None, int]:
    """The one thing the first message says to do, and how many more the steps list."""
    items = todo_list(explanation, outlook)
    return (items[0], len(items) - 1) if items else (None, 0)


def first_blocks(
    explanation: Explanation, *, language: str, show_queue_names: bool = True, outlook: Outlook = NO_OUTLOOK
) -> list[Block]:
    """The verdict and its cause, the one thing to do, the place and the ETA: the blocks any first message
    (a thread's answer, a DM) opens with."""
    kind = family(explanation.verdict)
    headline = truncate(engine_text(explanation.headline, language), _MAX_HEADLINE)
    blocks = [section(f"{FAMILY_EMOJI[kind]} {bold(say(f'slack.family.{kind}', language))}\n{headline}")]
    todo, more = first_todo(explanation, outlook)
    if todo is not None:
        line = f"{bold(say('answer.todo', language))} {truncate(engine_text(todo.text, language), _MAX_TODO)}"
        if more:
            line += " " + say("answer.todo.more", language, count=more)
        blocks.append(section(line))
    facts: list[str] = []
    if explanation.position is not None:
        where = position_text(explanation.position, language, named=show_queue_names)
        facts.append(f"{bold(say('answer.where', language))} {where}")
    if outlook.eta is not None:
        when = truncate(engine_text(eta_text(outlook.eta), language), _MAX_WHEN)
        facts.append(f"{bold(say('answer.when', language))} {when}")
    if facts:
        blocks.append(section("\n".join(facts)))
    return blocks


def glossary_line(blocks: list[Block], language: str) -> str | None:
    """Links to Kueue's concept pages for its words these blocks use (outside names), or None."""
    text = " ".join(
        _CODE_SPAN.sub(" ", str(block.get("text", {}).get("text", "")))
        for block in blocks
        if block["type"] == "section"
    )
    used = []
    for key, page in TERMS:
        term = render(key, language=language)
        if re.search(rf"(?<![\w`]){re.escape(term)}", text, re.IGNORECASE):
            used.append(f"<{_KUEUE_DOCS}{page}|{term}>")
    return say("answer.glossary", language, terms=" · ".join(used)) if used else None


def _buttons(explanation: Explanation, language: str, *, cluster: str, steps: bool, links: Links | None) -> list[Block]:
    value = job_value(explanation, cluster)
    if value is None:
        return []
    kind = family(explanation.verdict)
    buttons = []
    if steps:
        buttons.append(button_block(words("answer.button.steps", language), ACTION_SHOW_STEPS, value, "primary"))
    buttons.append(button_block(words("slack.button.recheck", language), ACTION_RECHECK, value))
    if kind != "ok":
        buttons.append(button_block(words("slack.button.watch", language), ACTION_WATCH, value))
    if kind != "ok" and (explanation.local_queue or explanation.position is not None):
        buttons.append(button_block(words("slack.button.show-queue", language), ACTION_SHOW_QUEUE, value))
    if links is not None and links.headlamp and explanation.workload is not None:
        link = button_block(words("answer.button.headlamp", language), ACTION_OPEN_LINK, None)
        link["url"] = links.workload(*explanation.workload)
        buttons.append(link)
    return buttons


def answer_summary(
    explanation: Explanation,
    *,
    language: str,
    outlook: Outlook = NO_OUTLOOK,
    snapshot_age_seconds: int | float | None = None,
    show_queue_names: bool = True,
    cluster: str = "",
    steps: bool = True,
    links: Links | None = None,
) -> SlackMessage:
    """The first message: enough to act on its own (see the module's docstring); the buttons name the cluster
    the answer comes from when the bot serves several."""
    blocks = first_blocks(explanation, language=language, show_queue_names=show_queue_names, outlook=outlook)
    footer = [code(explanation.verdict.value)]  # the verdict's stable code, for whoever helps the asker
    glossary = glossary_line(blocks, language)
    if glossary is not None:
        footer.append(glossary)
    if snapshot_age_seconds is not None:
        footer.append(say("slack.summary.age", language, age_seconds=max(0, int(snapshot_age_seconds))))
    buttons = _buttons(explanation, language, cluster=cluster, steps=steps, links=links)
    if buttons:
        blocks.append(actions_block(buttons))
    blocks.append(context(*footer))
    return message(fallback(explanation, language, outlook), blocks)


def fallback(explanation: Explanation, language: str, outlook: Outlook = NO_OUTLOOK) -> str:
    """The notification's text: the verdict and the fix first, the job named once, no mrkdwn marks (the verdict's
    code last, for whoever helps the asker)."""
    kind = family(explanation.verdict)
    todo, _ = first_todo(explanation, outlook)
    said = {
        "family": render(f"slack.family.{kind}", language=language),
        "headline": _plain(engine_text(explanation.headline, language)),
        "verdict": explanation.verdict.value,
    }
    if todo is not None:
        said["todo"] = _plain(engine_text(todo.text, language))
    return render("answer.fallback", said, language)


def _plain(mrkdwn: str) -> str:
    """mrkdwn as a notification shows it: no backticks or stars (entities stay: Slack's text needs them)."""
    return mrkdwn.replace("`", "").replace("*", "")
