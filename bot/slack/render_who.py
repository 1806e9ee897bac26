"""`/kueue who [resource|flavor] [clusterqueue]` and "who is using the GPUs?" as a Slack message. Pure.

The admitted Workloads holding the resource (bot.forecast.usage), grouped by ClusterQueue then namespace, with
amounts. Names (namespaces, jobs) only of the namespaces in `shown` (those every reader of the answer may
see); the others are counted and summed per ClusterQueue. Within Slack's limits (SLACK.md §3): at most
MAX_QUEUES ClusterQueue sections, MAX_NAMESPACES namespaces each and MAX_HOLDERS jobs a namespace, each
section under 3000 characters and the message under render.MAX_TOTAL; the rest counted in "and N more".
"""

from __future__ import annotations

from collections.abc import Collection
from decimal import Decimal

from bot.copy import render
from bot.forecast.usage import QueueUse, Unknown, Usage
from bot.slack.mrkdwn import code, literal, slack_len, truncate, truncate_plain
from bot.slack.render import MAX_FALLBACK, MAX_HEADER, MAX_SECTION, MAX_TOTAL, SlackMessage
from bot.slack.render.blocks import say, section
from bot.trace.quantity import human

MAX_QUEUES = 5
MAX_NAMESPACES = 4
MAX_HOLDERS = 3
FIRST_SCREEN = 900  # visible characters: the answer is read at a glance, the rest counted in "and N more"


def _scope(usage: Usage) -> dict[str, str]:
    subject = usage.subject
    found = {"resource": code(subject.resource)}
    if subject.flavor:
        found["flavor"] = code(subject.flavor)
    if subject.cluster_queue:
        found["cluster_queue"] = code(subject.cluster_queue)
    return found


def _queue_lines(queue: QueueUse, resource: str, shown: Collection[str], language: str) -> list[str]:
    head: dict[str, str | int] = {
        "cluster_queue": code(queue.cluster_queue),
        "used": literal(human(queue.used, resource)),
    }
    if queue.cohort:
        head["cohort"] = code(queue.cohort)
    if queue.nominal is not None:
        head["nominal"] = literal(human(queue.nominal, resource))
    lines = ["*" + say("slack.who.queue", language, **head) + "*"]
    hidden_amount = sum((n.amount for n in queue.namespaces if n.namespace not in shown), Decimal(0))
    hidden_count = listed = 0
    for use in queue.namespaces:
        if use.namespace not in shown:
            hidden_count += len(use.holders)
            continue
        listed += 1
        if listed > MAX_NAMESPACES:
            continue
        lines.append(
            "• " + say("slack.who.namespace", language, namespace=code(use.namespace),
                        amount=literal(human(use.amount, resource)), count=len(use.holders))
        )  # fmt: skip
        for holder in use.holders[:MAX_HOLDERS]:
            item: dict[str, str | int] = {"name": code(holder.name), "amount": literal(human(holder.amount, resource))}
            if holder.running_seconds is not None:
                item["running_seconds"] = holder.running_seconds
            lines.append("    ◦ " + say("slack.who.holder", language, **item))
        if len(use.holders) > MAX_HOLDERS:
            lines.append("    ◦ " + say("slack.who.more", language, count=len(use.holders) - MAX_HOLDERS))
    if listed > MAX_NAMESPACES:
        lines.append("• " + say("slack.who.more", language, count=listed - MAX_NAMESPACES))
    if hidden_count:
        amount = literal(human(hidden_amount, resource))
        lines.append("• " + say("slack.who.hidden", language, count=hidden_count, amount=amount))
    return lines


def who_view(usage: Usage, *, language: str, shown: Collection[str]) -> SlackMessage:
    """The answer: a title, the totals, then one section per ClusterQueue (the largest users first)."""
    resource = usage.subject.resource
    scope = _scope(usage)
    title = render("slack.who.title", {"resource": resource}, language)
    blocks: list[dict[str, object]] = [
        {"type": "header", "text": {"type": "plain_text", "text": truncate_plain(title, MAX_HEADER) or "…"}}
    ]
    if not usage.count:
        where = say("slack.who.where", language, **{k: v for k, v in scope.items() if k != "resource"})
        summary = say("slack.who.nobody", language, resource=scope["resource"], where=where if len(scope) > 1 else "")
    else:
        summary = say(
            "slack.who.scope", language, **scope, total=literal(human(usage.total, resource)), count=usage.count,
            queues=len(usage.queues),
        )  # fmt: skip
    blocks.append(section(summary))
    used = slack_len(summary) + len(title)
    shown_queues = 0
    for queue in usage.queues:
        if shown_queues >= MAX_QUEUES:
            break
        text = truncate("\n".join(_queue_lines(queue, resource, shown, language)), MAX_SECTION)
        if used + slack_len(text) > min(MAX_TOTAL - 400, FIRST_SCREEN) and shown_queues:
            break
        blocks.append(section(text))
        used += slack_len(text)
        shown_queues += 1
    if shown_queues < len(usage.queues):
        more = say("slack.who.more-queues", language, count=len(usage.queues) - shown_queues)
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": more}]})
    return SlackMessage(text=truncate(f"{title}: {summary}", MAX_FALLBACK) or "…", blocks=blocks)


def unknown_subject(unknown: Unknown, *, language: str) -> SlackMessage:
    """A word that names nothing the cluster has: which ones it does have."""
    known = ", ".join(code(k) for k in unknown.known) or "-"
    text = say("slack.who.unknown", language, word=code(unknown.word[:63]), known=known)
    return SlackMessage(text=truncate(text, MAX_FALLBACK), blocks=[section(text)])
