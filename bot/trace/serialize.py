"""An Explanation as the JSON contract of ../shared/scenarios/README.md (more keys are welcome)."""

from __future__ import annotations

from typing import Any

from bot.copy import DEFAULT_LANGUAGE, render
from bot.trace.explanation import Explanation, Position, Text
from bot.trace.quantity import Quantities, format_quantity


def text(value: Text, language: str = DEFAULT_LANGUAGE) -> str:
    return render(value.key, value.params, language)


def quantities(values: Quantities) -> dict[str, str]:
    return {name: format_quantity(amount, name) for name, amount in sorted(values.items())}


def _position(position: Position | None) -> dict[str, Any] | None:
    if position is None:
        return None
    result: dict[str, Any] = {
        "clusterQueue": position.cluster_queue,
        "localQueue": position.local_queue,
        "source": position.source,
        "clusterQueueName": position.cluster_queue_name,
        "localQueueName": position.local_queue_name,
        "pendingInClusterQueue": position.pending_total,
    }
    if position.ahead is not None:
        result["ahead"] = {
            "count": position.ahead.count,
            "byPriority": (
                None
                if position.ahead.by_priority is None
                else [{"priority": p, "count": n} for p, n in position.ahead.by_priority]
            ),
        }
    return result


def _plain(value: object) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def explanation_json(explanation: Explanation, language: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """The engine's keys of the JSON document `explain --format json` prints (bot.forecast.serialize adds the
    forecast's)."""
    job = explanation.job
    return {
        "job": {"kind": job.kind, "namespace": job.namespace, "name": job.name},
        "workload": (
            {"namespace": explanation.workload[0], "name": explanation.workload[1]} if explanation.workload else None
        ),
        "verdict": explanation.verdict.value,
        "neverFixesItself": explanation.never_fixes_itself,
        "headline": text(explanation.headline, language),
        "steps": [
            {
                "step": step.step,
                "outcome": step.outcome.value,
                "code": step.code,
                "text": text(step.text, language),
                "data": _plain(dict(step.data)),
            }
            for step in explanation.steps
        ],
        "demand": quantities(explanation.demand) if explanation.demand is not None else None,
        "assigned": (
            {flavor: quantities(values) for flavor, values in explanation.assigned.items()}
            if explanation.assigned is not None
            else None
        ),
        "position": _position(explanation.position),
        "localQueue": explanation.local_queue or None,
        "clusterQueue": explanation.cluster_queue or None,
        "waitingSince": explanation.waiting_since.isoformat() if explanation.waiting_since else None,
        "actions": [
            {"code": action.code, "text": text(action.text, language), "data": _plain(dict(action.data))}
            for action in explanation.actions
        ],
    }
