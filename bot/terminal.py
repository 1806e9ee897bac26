"""An Explanation (or a dry run's Fitting) for a terminal: the headline, the numbered steps, what to do. Pure;
colour is optional."""

from __future__ import annotations

from bot.copy import DEFAULT_LANGUAGE, render
from bot.fit import text as fit_text
from bot.fit.decide import Fitting
from bot.trace.codes import Outcome
from bot.trace.explain import amounts
from bot.trace.explanation import LOWER_BOUND, Explanation
from bot.trace.quantity import human
from bot.trace.queueview import QueueView
from bot.trace.serialize import quantities, text

_MARK = {Outcome.PASS: "✓", Outcome.FAIL: "✗", Outcome.INFO: "•", Outcome.SKIPPED: "-"}
_COLOUR = {Outcome.PASS: "32", Outcome.FAIL: "31", Outcome.INFO: "36", Outcome.SKIPPED: "2"}


def _paint(value: str, code: str, colour: bool) -> str:
    return f"\x1b[{code}m{value}\x1b[0m" if colour else value


def render_text(explanation: Explanation, *, colour: bool = False, language: str = DEFAULT_LANGUAGE) -> str:
    """The explanation as lines of text, coloured with ANSI codes only when asked."""
    verdict = explanation.verdict.value
    lines = [
        _paint(
            f"{render('label.verdict', language=language)}: {verdict}",
            "1;31" if explanation.never_fixes_itself else "1;33",
            colour,
        ),
        text(explanation.headline, language),
        "",
    ]
    if explanation.position is not None:
        position = explanation.position
        where = render(
            "terminal.position-at-least" if position.source == LOWER_BOUND else "terminal.position",
            {
                "position": position.cluster_queue,
                "cluster_queue": position.cluster_queue_name,
                "local_position": position.local_queue or "",
                "local_queue": position.local_queue_name,
                "source": position.source,
            }
            if position.local_queue
            else {
                "position": position.cluster_queue,
                "cluster_queue": position.cluster_queue_name,
                "source": position.source,
            },
            language,
        )
        lines.append(f"{render('label.position', language=language)}: {where}")
        lines.append("")
    lines.append(_paint(render("label.steps", language=language), "1", colour))
    for number, step in enumerate(explanation.steps, start=1):
        mark = _paint(_MARK[step.outcome], _COLOUR[step.outcome], colour)
        lines.append(f"{number:>3}. {mark} [{step.step}] {text(step.text, language)}")
    if explanation.actions:
        lines.append("")
        lines.append(_paint(render("label.next", language=language), "1", colour))
        lines.extend(f"  → {text(action.text, language)}" for action in explanation.actions)
    if explanation.demand:
        lines.append("")
        demand = ", ".join(f"{k}={v}" for k, v in quantities(explanation.demand).items())
        lines.append(render("terminal.demand", {"demand": demand}, language))
    return "\n".join(lines) + "\n"


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
