"""An Explanation (or a dry run's Fitting) for a terminal. An answer: the verdict and its cause, what to do, the
place and the ETA, who holds what it waits for, then the numbered steps; wrapped to the terminal's width with
hanging indents, commands kept whole (a line passes the width only to keep one whole, so it can be copied).
Pure; colour is optional."""

from __future__ import annotations

import re
import textwrap

from bot.copy import CATALOGUES, DEFAULT_LANGUAGE, render
from bot.fit import text as fit_text
from bot.fit.decide import Fitting
from bot.forecast.outlook import NO_OUTLOOK, Outlook
from bot.forecast.texts import eta_text, holders_texts
from bot.forecast.todo import todo_list
from bot.trace.codes import Outcome
from bot.trace.explain import amounts
from bot.trace.explanation import LOWER_BOUND, Explanation, Position
from bot.trace.quantity import human
from bot.trace.queueview import QueueView
from bot.trace.serialize import quantities, text

_MARK = {Outcome.PASS: "✓", Outcome.FAIL: "✗", Outcome.INFO: "•", Outcome.SKIPPED: "-"}
_COLOUR = {Outcome.PASS: "32", Outcome.FAIL: "31", Outcome.INFO: "36", Outcome.SKIPPED: "2"}
DEFAULT_WIDTH = 100
MIN_WIDTH = 40
# A command in a sentence: from `kubectl` to the end of its clause (a bracket, a backtick, a semicolon, the
# sentence's full stop, or the words that follow a command in the catalogues).
_COMMAND = re.compile(r"kubectl\b[^()`;]*?(?=\)|`|;|\.(?:\s|$)|\s(?:shows|montre)\s|$)")
_COMPARED = re.compile(r"\S+ [<>≤≥] \S+")  # "pods 3 > 2" is not broken around its sign
_KEEP = "\u00a0"  # a space inside a command: textwrap never breaks there


def _paint(value: str, code: str, colour: bool) -> str:
    return f"\x1b[{code}m{value}\x1b[0m" if colour else value


def wrap(line: str, width: int, indent: str = "", hanging: str | None = None) -> list[str]:
    """`line` wrapped to `width`, the first line after `indent`, the others after `hanging` (aligned under the
    text by default); commands are never broken."""
    kept = _COMMAND.sub(lambda match: match.group(0).replace(" ", _KEEP), line)
    kept = _COMPARED.sub(lambda match: match.group(0).replace(" ", _KEEP), kept)
    rest = hanging if hanging is not None else " " * len(indent)
    wrapped = textwrap.wrap(
        kept,
        width=max(width, MIN_WIDTH),
        initial_indent=indent,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [part.replace(_KEEP, " ") for part in wrapped] or [indent.rstrip()]


def _source(source: str, language: str) -> str:
    """Where a position comes from, in the reader's words (the engine's code when it has none)."""
    key = f"position.source.{source}"
    return render(key, language=language) if key in CATALOGUES[DEFAULT_LANGUAGE] else source


def _position(position: Position, language: str) -> str:
    params: dict[str, object] = {
        "position": position.cluster_queue,
        "cluster_queue": position.cluster_queue_name,
        "source": _source(position.source, language),
    }
    if position.local_queue:
        params.update(local_position=position.local_queue, local_queue=position.local_queue_name)
    key = "terminal.position-at-least" if position.source == LOWER_BOUND else "terminal.position"
    return render(key, params, language)


def render_text(
    explanation: Explanation,
    *,
    colour: bool = False,
    language: str = DEFAULT_LANGUAGE,
    width: int = DEFAULT_WIDTH,
    outlook: Outlook = NO_OUTLOOK,
) -> str:
    """The explanation and its `outlook` as lines of text at most `width` wide (but for a command kept whole),
    coloured with ANSI codes only when asked."""
    out: list[str] = []
    verdict = f"{render('label.verdict', language=language)}: {explanation.verdict.value}"
    out.append(_paint(verdict, "1;31" if explanation.never_fixes_itself else "1;33", colour))
    out.extend(wrap(text(explanation.headline, language), width))
    out.append("")
    items = todo_list(explanation, outlook)
    if items:
        out.append(_paint(render("label.next", language=language), "1", colour))
        for item in items:
            out.extend(wrap(text(item.text, language), width, "  → ", "    "))
        out.append("")
    if explanation.position is not None:
        label = render("label.position", language=language)
        out.extend(wrap(f"{label}: {_position(explanation.position, language)}", width, hanging="  "))
    if outlook.eta is not None:
        label = render("answer.when", language=language)
        out.extend(wrap(f"{label} {text(eta_text(outlook.eta), language)}", width, hanging="  "))
    if explanation.position is not None or outlook.eta is not None:
        out.append("")
    if outlook.holders is not None:
        own = explanation.job.namespace
        holders = holders_texts(outlook.holders, own_namespace=own, show_names=True)
        if holders:
            out.append(_paint(render("slack.details.step.holders", language=language), "1", colour))
            for line in holders:
                out.extend(wrap(text(line, language), width, "  ↳ ", "    "))
            out.append("")
    out.append(_paint(render("label.steps", language=language), "1", colour))
    for number, step in enumerate(explanation.steps, start=1):
        mark = _paint(_MARK[step.outcome], _COLOUR[step.outcome], colour)
        head = f"{number:>3}. {mark} [{step.step}] "
        plain_head = f"{number:>3}. {_MARK[step.outcome]} [{step.step}] "
        wrapped = wrap(text(step.text, language), width, plain_head, " " * 7)
        out.append(head + wrapped[0][len(plain_head) :])
        out.extend(wrapped[1:])
    if explanation.demand:
        out.append("")
        demand = ", ".join(f"{k}={v}" for k, v in quantities(explanation.demand).items())
        out.extend(wrap(render("terminal.demand", {"demand": demand}, language), width, hanging="  "))
    return "\n".join(out) + "\n"


def _labelled(label: str, value: str, language: str) -> str:
    return render("fit.labelled", {"label": render(label, language=language), "value": value}, language)


def render_fit_text(fitting: Fitting, *, colour: bool = False, language: str = DEFAULT_LANGUAGE) -> str:
    """A dry run (`fit`) as lines of text: now, later or never, the flavors, the place and the ETA, the one
    change, then the admission path it would take."""
    fits = render(f"fit.fits.{fitting.fits}", language=language)
    code = "1;32" if fitting.fits == "now" else "1;33" if fitting.fits == "later" else "1;31"
    fits_line = _labelled("fit.label.fits", f"{fits} ({fitting.verdict})", language)
    lines = [_paint(fits_line, code, colour)]
    lines += [text(fitting.headline, language), ""]
    flavors = fit_text.flavor_lines(fitting)
    if flavors:
        lines.append(_labelled("fit.label.flavors", "", language).rstrip())
        lines.extend(f"  {text(line, language)}" for line in flavors)
    for label, found in (
        ("label.position", fit_text.place(fitting)),
        ("fit.label.eta", fit_text.when(fitting)),
        ("fit.label.change", fit_text.change(fitting)),
    ):
        if found is not None:
            lines.append(_labelled(label, text(found, language), language))
    lines.extend(text(note, language) for note in fit_text.notes(fitting))
    lines += ["", _paint(render("fit.label.path", language=language), "1", colour)]
    for number, step in enumerate(fitting.steps, start=1):
        mark = _paint(_MARK[step.outcome], _COLOUR[step.outcome], colour)
        lines.append(f"{number:>3}. {mark} [{step.step}] {text(step.text, language)}")
    demand = fitting.explanation.demand if fitting.explanation is not None else None
    if demand:
        amounts = ", ".join(f"{k}={v}" for k, v in quantities(demand).items())
        lines += ["", render("terminal.demand", {"demand": amounts}, language)]
    return "\n".join(lines) + "\n"


def render_queue_text(view: QueueView, language: str = DEFAULT_LANGUAGE) -> str:
    """`queue NS/LQ` in a terminal: the queue's state, what it feeds, its quota, who waits in Kueue's order."""
    lines = [render("slack.queue.title", {"queue": f"{view.namespace}/{view.name}"}, language)]
    if not view.exists:
        lines.append(render("slack.queue.missing", {"queue": view.name, "namespace": view.namespace}, language))
        return "\n".join(lines) + "\n"
    if view.blocker is not None:
        lines.append(f"{render('label.verdict', language=language)}: {view.blocker.value}")
    feeds: dict[str, object] = {"cluster_queue": view.cluster_queue or "-"}
    if view.strategy:
        feeds["strategy"] = view.strategy
        if view.cohort:
            feeds["cohort"] = view.cohort
    lines.append(render("slack.queue.feeds", feeds, language))
    counts = {
        "pending_total": view.pending_in_cluster_queue,
        "cluster_queue": view.cluster_queue,
        "pending_here": view.pending_here,
        "admitted_here": view.admitted_here,
    }
    lines += [render("slack.queue.counts", counts, language), "", render("slack.queue.quota-title", language=language)]
    for quota in view.quotas:
        params: dict[str, object] = {
            "flavor": quota.flavor,
            "resource": quota.resource,
            **{key: human(getattr(quota, key), quota.resource) for key in ("nominal", "used", "available", "maximum")},
        }
        if view.cohort:
            params["cohort"] = view.cohort
        lines.append("  " + render("slack.queue.quota-line", params, language))
    lines += ["", render("slack.queue.waiting-title", language=language)]
    for waiting in view.waiting:
        entry = {"position": waiting.position, "priority": waiting.priority, "demand": amounts(waiting.demand) or "-"}
        entry["name"] = f"{waiting.namespace}/{waiting.name}"
        lines.append("  " + render("slack.queue.waiting-line", entry, language))
    if not view.waiting:
        lines.append("  " + render("slack.queue.nobody-waits", language=language))
    more = view.pending_in_cluster_queue - len(view.waiting)
    if more > 0:
        lines.append("  " + render("slack.queue.more", {"count": more}, language))
    return "\n".join(lines) + "\n"
