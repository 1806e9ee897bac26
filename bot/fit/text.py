"""A Fitting's sentences beyond the explanation's: the flavors, the place, the ETA, the one change, the notes.
As `Text`s, rendered by bot.copy in the reader's language (the terminal and Slack both read them). Pure."""

from __future__ import annotations

from bot.copy.text import Text
from bot.fit.decide import LATER, NOW, Fitting
from bot.forecast.texts import eta_text, what_if_texts
from bot.trace.explanation import Position


def flavor_lines(fitting: Fitting) -> list[Text]:
    """One line per pod set and flavor: the resources it would take there."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for choice in fitting.flavors:
        grouped.setdefault((choice.pod_set, choice.flavor), []).append(choice.resource)
    return [
        Text("fit.flavor-line", {"pod_set": pod_set, "flavor": flavor, "resources": ", ".join(resources)})
        for (pod_set, flavor), resources in grouped.items()
    ]


def position_text(position: Position) -> Text:
    ahead = position.ahead.count if position.ahead is not None else position.cluster_queue - 1
    params: dict[str, str | int] = {
        "position": position.cluster_queue,
        "cluster_queue": position.cluster_queue_name,
        "ahead": ahead,
    }
    if position.local_queue:
        params |= {"local_position": position.local_queue, "local_queue": position.local_queue_name}
    return Text("fit.position", params)


def place(fitting: Fitting) -> Text | None:
    """Where it would wait (later only: when it fits now it does not wait)."""
    explanation = fitting.explanation
    if fitting.fits != LATER or explanation is None or explanation.position is None:
        return None
    return position_text(explanation.position)


def when(fitting: Fitting) -> Text | None:
    eta = fitting.outlook.eta
    if fitting.fits != LATER or fitting.explanation is None or eta is None:
        return None
    return eta_text(eta)


def change(fitting: Fitting) -> Text | None:
    """The first verified change that would admit it (when it never fits, or waits)."""
    what_if = fitting.outlook.what_if
    if fitting.fits == NOW or fitting.explanation is None or what_if is None:
        return None
    texts = what_if_texts(what_if)
    return texts[0] if texts else None


def notes(fitting: Fitting) -> list[Text]:
    found: list[Text] = []
    built = fitting.built
    if built is not None and built.defaulted_queue:
        found.append(Text("fit.note.defaulted-queue"))
    if built is not None and built.priority_unknown:
        found.append(Text("fit.note.priority-unknown", {"name": built.priority_unknown}))
    if fitting.per_pod:
        found.append(Text("fit.note.per-pod", {"replicas": fitting.replicas}))
    return found


__all__ = ["change", "flavor_lines", "notes", "place", "position_text", "when"]
