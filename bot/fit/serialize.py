"""A Fitting as JSON (`fit --format json`): the explanation's keys (steps, demand, position, eta, what_if, ...)
with the dry run's own: fits, verdict, flavors, headline."""

from __future__ import annotations

from typing import Any

from bot.copy import DEFAULT_LANGUAGE
from bot.fit.decide import NOW, Fitting, FlavorChoice
from bot.forecast.serialize import to_json
from bot.trace.serialize import text


def flavors_json(choices: tuple[FlavorChoice, ...]) -> dict[str, dict[str, str]]:
    """{pod set: {resource: flavor}}."""
    result: dict[str, dict[str, str]] = {}
    for choice in choices:
        result.setdefault(choice.pod_set, {})[choice.resource] = choice.flavor
    return result


def _steps(fitting: Fitting, language: str) -> list[dict[str, Any]]:
    return [
        {"step": s.step, "outcome": s.outcome.value, "code": s.code, "text": text(s.text, language), "data": {}}
        for s in fitting.refusal
    ]


def fit_json(fitting: Fitting, language: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """The JSON document `fit --format json` prints."""
    job = fitting.job
    base: dict[str, Any] = (
        to_json(fitting.explanation, fitting.outlook, language)
        if fitting.explanation is not None
        else {"job": {"kind": job.meta.kind, "namespace": job.meta.namespace, "name": job.meta.name}}
    )
    if fitting.explanation is None:
        base |= {"workload": None, "steps": _steps(fitting, language), "demand": None, "position": None}
        base |= {"localQueue": None, "clusterQueue": None, "eta": None, "holders": None, "what_if": None}
    base["job"]["uid"] = None  # not created yet
    result: dict[str, Any] = {
        "fits": fitting.fits,
        "verdict": fitting.verdict,
        "engineVerdict": base.pop("verdict", fitting.verdict),
        "headline": text(fitting.headline, language),
        "flavors": flavors_json(fitting.flavors),
        "priority": fitting.built.workload.priority if fitting.built and fitting.built.workload else None,
    }
    if fitting.fits == NOW:
        base["eta"] = None
    base.pop("headline", None)
    if fitting.explanation is not None:
        result["why"] = text(fitting.explanation.headline, language)
    return {**result, **base}
