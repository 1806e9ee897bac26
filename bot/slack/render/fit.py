"""A dry run (will it fit?) and a LocalQueue's quota as Slack messages. Pure. The first-screen rules of an answer:
at most FIRST_SCREEN_BLOCKS blocks and FIRST_SCREEN_CHARS visible characters: the verdict, the flavor, now /
later / never with the place and the ETA, one change when it never fits."""

from __future__ import annotations

from datetime import datetime

from bot.fit import text as fit_text
from bot.fit.decide import NEVER, Fitting
from bot.fit.quota import QueueQuota
from bot.slack.mrkdwn import code, date_token, truncate
from bot.slack.render.answer import for_readers
from bot.slack.render.blocks import (
    SlackMessage,
    chars,
    code_name,
    context,
    engine_text,
    message,
    say,
    section,
)
from bot.trace.quantity import human

FIRST_SCREEN_BLOCKS = 8
FIRST_SCREEN_CHARS = 900


def _readable(fitting: Fitting, language: str, show_names: bool) -> dict[str, str]:
    own = fitting.job.meta.namespace or ""
    parts = {"headline": engine_text(for_readers(fitting.headline, own, show_names=show_names), language)}
    flavors = [engine_text(line, language) for line in fit_text.flavor_lines(fitting)]
    if flavors:
        parts["flavors"] = say("fit.slack.flavors", language, flavors="; ".join(flavors))
    place, when = fit_text.place(fitting), fit_text.when(fitting)
    if place is not None:
        parts["position"] = say("fit.slack.position", language, position=engine_text(place, language))
    if when is not None:
        parts["eta"] = say("fit.slack.eta", language, eta=engine_text(when, language))
    change = fit_text.change(fitting)
    if change is not None and fitting.fits == NEVER:
        parts["change"] = say("fit.slack.change", language, change=engine_text(change, language))
    return parts


def fit_message(
    fitting: Fitting, *, language: str, show_names: bool = False, as_of: str = "", at: datetime | None = None
) -> SlackMessage:
    """The answer to "will this fit?": within the first screen. With `at` (the moment `as_of` writes), each
    reader sees the time in their own time zone."""
    parts = _readable(fitting, language, show_names)
    title = f"*{say(f'fit.slack.title.{fitting.fits}', language)}* · {code(fitting.verdict)}"
    others = [parts[k] for k in ("flavors", "position", "eta", "change") if k in parts]
    footer = context(say("fit.slack.footer", language, time=date_token(at, as_of) if at else code_name(as_of or "-")))
    budget = FIRST_SCREEN_CHARS - sum(chars(section(p)) for p in others) - chars(footer) - len(title) - 1
    blocks = [section(f"{title}\n{truncate(parts['headline'], max(80, budget))}")]
    blocks += [section(p) for p in others]
    blocks.append(footer)
    return message(f"{title} {parts['headline']}", blocks[:FIRST_SCREEN_BLOCKS])


def quota_message(quota: QueueQuota, *, language: str) -> SlackMessage:
    """`/kueue quota ns/lq`: per flavor and resource, what the queue can give now."""
    names = {"namespace": code_name(quota.namespace), "local_queue": code_name(quota.local_queue)}
    if quota.problem == "local-queue-missing":
        text = say("queue-quota.missing", language, **names)
        return message(text, [section(text)])
    cq = code_name(quota.cluster_queue)
    if quota.problem:
        text = say("queue-quota.cq-missing", language, cluster_queue=cq, **names)
        return message(text, [section(text)])
    title = say("queue-quota.title", language, cluster_queue=cq, **names)
    rows = [
        say(
            "queue-quota.row",
            language,
            flavor=code_name(row.flavor),
            resource=code_name(row.resource),
            nominal=human(row.nominal, row.resource),
            borrowable=human(row.borrowable, row.resource),
            lendable=human(row.lendable, row.resource) if row.lendable is not None else "-",
            used=human(row.used, row.resource),
            free=human(row.free, row.resource),
            maximum=human(row.maximum, row.resource),
        )
        for row in quota.rows
    ]
    if not rows:
        rows = [say("queue-quota.none", language, cluster_queue=cq)]
    blocks = [section(f"*{title}*")] + [
        section("\n".join(f"• {row}" for row in rows[i : i + 20])) for i in range(0, len(rows), 20)
    ]
    return message(title, blocks)


def short(key: str, language: str, **fragments: str) -> SlackMessage:
    """A one-sentence reply of the dry run's catalogue (no YAML, a spec not understood, a job not readable)."""
    text = say(key, language, **fragments)
    return message(text, [section(text)])
