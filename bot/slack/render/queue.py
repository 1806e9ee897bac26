"""`/kueue queue ns/lq`: the queue's state, its quota, and who waits. Pure."""

from __future__ import annotations

from decimal import Decimal

from bot.slack.render.blocks import (
    Blocks,
    SlackMessage,
    chunked,
    code_name,
    context,
    free_text,
    header,
    job_name,
    message,
    say,
    section,
    words,
)
from bot.trace.codes import Verdict
from bot.trace.explain import amounts
from bot.trace.quantity import human
from bot.trace.queueview import QueueView


def _queue_state(view: QueueView, language: str) -> str:
    queue = code_name(view.name)
    if not view.exists:
        return say("slack.queue.missing", language, queue=queue, namespace=code_name(view.namespace))
    chain = view.chain
    if view.blocker == Verdict.CLUSTER_QUEUE_MISSING:
        return ":no_entry: " + say(
            "slack.queue.cluster-queue-missing", language, cluster_queue=code_name(view.cluster_queue or "-")
        )
    if view.blocker == Verdict.QUEUE_STOPPED:
        stopped = view.name if chain.stopped_by == "LocalQueue" else view.cluster_queue
        params: dict[str, str | int] = {}
        if chain.stopped_by and stopped:
            params = {"kind": free_text(chain.stopped_by), "stopped": code_name(stopped)}
            params["policy"] = free_text(chain.stop_policy or "-")
        return ":double_vertical_bar: " + say("slack.queue.stopped", language, **params)
    if view.blocker is not None:
        detail = chain.inactive_reason or chain.inactive_message
        params = {"cluster_queue": code_name(view.cluster_queue or "-")}
        if detail:
            params["detail"] = free_text(detail)
        return ":no_entry: " + say("slack.queue.inactive", language, **params)
    return ":large_green_circle: " + say("slack.queue.open", language)


NOTE_ROOM = 300  # the closing "N more" line of the queue view
SHOWN_WAITING = 5  # who waits first: the answer is read at a glance, the rest counted in "and N more"


def queue_view(view: QueueView, *, language: str, show_names: bool) -> SlackMessage:
    """`/kueue queue ns/lq`: the queue's state, its quota, and who waits (names only for readers who may see)."""
    out = Blocks()
    out.add(header(words("slack.queue.title", language, {"queue": f"{view.namespace}/{view.name}"})))
    fed = view.exists and bool(view.cluster_queue)  # the queue exists and names its ClusterQueue
    out.add(section("\n".join([_queue_state(view, language), *(_feeds(view, language) if fed else [])])))
    if fed:
        title = f"*{say('slack.queue.quota-title', language)}*"
        for chunk in chunked(_quota_lines(view, language), first=title):
            if not out.add(section(chunk), keep_blocks=2, keep_chars=NOTE_ROOM + 600):
                break
        lines, hidden = _waiting_lines(view, language, show_names=show_names)
        title = f"*{say('slack.queue.waiting-title', language)}*"
        for chunk in chunked(lines, first=title):
            if not out.add(section(chunk), keep_blocks=1, keep_chars=NOTE_ROOM):
                break
        notes = []
        if hidden and not show_names:
            notes.append(say("slack.queue.other-namespaces", language, count=hidden))
        more = view.pending_in_cluster_queue - len(view.waiting[:SHOWN_WAITING])
        if more > 0:
            notes.append(say("slack.queue.more", language, count=more))
        if notes:
            out.add(context(*notes))
    fallback = say(
        "slack.queue.fallback",
        language,
        queue=job_name(view.namespace, view.name),
        pending_here=view.pending_here,
        admitted_here=view.admitted_here,
    )
    return message(fallback, out.blocks)


def _feeds(view: QueueView, language: str) -> list[str]:
    """Which ClusterQueue the queue feeds (its strategy, its cohort), and how many wait there and here."""
    cluster_queue = code_name(view.cluster_queue or "-")
    feeds: dict[str, str | int] = {"cluster_queue": cluster_queue}
    if view.strategy:
        feeds["strategy"] = free_text(view.strategy)
        if view.cohort:
            feeds["cohort"] = code_name(view.cohort)
    counts = say(
        "slack.queue.counts",
        language,
        pending_total=view.pending_in_cluster_queue,
        cluster_queue=cluster_queue,
        pending_here=view.pending_here,
        admitted_here=view.admitted_here,
    )
    return [say("slack.queue.feeds", language, **feeds), counts]


def _cohort_params(cohort: str, borrowed: Decimal, resource: str) -> dict[str, str]:
    """What a quota line says of the cohort: its name, and what this queue borrows from it (when it does)."""
    if not cohort:
        return {}
    params = {"cohort": code_name(cohort)}
    if borrowed > 0:
        params["borrowed"] = free_text(human(borrowed, resource))
    return params


def _quota_lines(view: QueueView, language: str) -> list[str]:
    """One line a flavor and resource: nominal, used, available, maximum (or that there is no quota)."""
    return [
        "• "
        + say(
            "slack.queue.quota-line",
            language,
            flavor=code_name(line.flavor),
            resource=code_name(line.resource),
            nominal=free_text(human(line.nominal, line.resource)),
            used=free_text(human(line.used, line.resource)),
            available=free_text(human(line.available, line.resource)),
            maximum=free_text(human(line.maximum, line.resource)),
            **_cohort_params(view.cohort, line.used - line.nominal, line.resource),
        )
        for line in view.quotas
    ] or [say("slack.queue.no-quota", language)]


def _waiting_lines(view: QueueView, language: str, *, show_names: bool) -> tuple[list[str], int]:
    """One line a waiting Workload, named only when the readers may see its namespace; and how many were not."""
    lines: list[str] = []
    hidden = 0
    for waiting in view.waiting[:SHOWN_WAITING]:
        visible = show_names or waiting.namespace == view.namespace
        hidden += 0 if visible else 1
        fragments: dict[str, str | int] = {
            "position": waiting.position,
            "priority": free_text(str(waiting.priority)),
            "demand": free_text(amounts(waiting.demand) or "-"),
        }
        if visible:
            fragments["name"] = job_name(waiting.namespace, waiting.name)
        lines.append(say("slack.queue.waiting-line", language, **fragments))
    return lines or [say("slack.queue.nobody-waits", language)], hidden
