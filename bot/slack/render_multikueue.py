"""A MultiKueue manager's answer, continued: where the job is dispatched, each worker's connection,
and the worker's own explanation of its copy when the bot serves that worker. Pure; within Slack's limits."""

from __future__ import annotations

from bot.copy import render as render_words
from bot.copy import render_value
from bot.slack.mrkdwn import code, literal, truncate
from bot.slack.render import MAX_FREE_TEXT, MAX_SECTION, SlackMessage
from bot.trace.explanation import Explanation
from bot.trace.multikueue import CONNECTED, DISCONNECTED, Placement

_MAX_WORKERS = 20


def _say(key: str, language: str, **params: str) -> str:
    """A sentence with names as code and cluster text literal (slots filled after the words are escaped)."""
    slots = {name: f"\ue000{index}\ue001" for index, name in enumerate(params)}
    sentence = literal(render_words(key, slots, language))
    for index, value in enumerate(params.values()):
        sentence = sentence.replace(f"\ue000{index}\ue001", value)
    return sentence


def _free(text: str) -> str:
    return literal(text[:MAX_FREE_TEXT])


def placement_message(
    placement: Placement, workers: tuple[tuple[str, Explanation], ...], *, language: str
) -> SlackMessage:
    if placement.check_state:
        title = _say("multikueue.title", language, check=code(placement.check), state=_free(placement.check_state))
    else:
        title = _say("multikueue.title-no-state", language, check=code(placement.check))
    lines = [f"*{title}*"]
    if placement.assigned:
        lines.append(_say("multikueue.assigned", language, cluster=code(placement.assigned)))
    elif placement.nominated:
        lines.append(
            _say(
                "multikueue.nominated",
                language,
                clusters=", ".join(code(n) for n in placement.nominated[:_MAX_WORKERS]),
            )
        )
    else:
        lines.append(literal(render_words("multikueue.none-yet", None, language)))
    if placement.check_message:
        lines.append(_say("multikueue.check-message", language, message=_free(placement.check_message)))
    for worker in placement.workers[:_MAX_WORKERS]:
        if worker.state == CONNECTED:
            lines.append("• " + _say("multikueue.connected", language, cluster=code(worker.name)))
        elif worker.state == DISCONNECTED:
            lines.append(
                "• "
                + _say(
                    "multikueue.disconnected",
                    language,
                    cluster=code(worker.name),
                    reason=_free(worker.reason or "-"),
                    message=_free(worker.message or "-"),
                )
            )
        else:
            lines.append("• " + _say("multikueue.unknown", language, cluster=code(worker.name)))
    for name, explanation in workers:
        headline = _free(render_value(explanation.headline, language))
        lines.append(_say("multikueue.worker-says", language, cluster=code(name), headline=headline))
    text = truncate("\n".join(lines), MAX_SECTION)
    fallback = render_words("multikueue.title-no-state", {"check": placement.check}, language)
    return SlackMessage(fallback, [{"type": "section", "text": {"type": "mrkdwn", "text": text}}])
