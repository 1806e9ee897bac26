"""The forecast's part of the JSON contract (`explain --format json`: the keys eta, holders, what_if), and the
whole document: the engine's keys (bot.trace.serialize) then these, null where the verdict does not call for them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from bot.copy import DEFAULT_LANGUAGE, render
from bot.forecast.eta import Eta
from bot.forecast.holders import Holders
from bot.forecast.outlook import Outlook
from bot.forecast.texts import eta_text, holders_texts, what_if_texts
from bot.forecast.whatif import WhatIf
from bot.trace.explanation import Explanation
from bot.trace.quantity import format_quantity
from bot.trace.serialize import explanation_json


def to_json(explanation: Explanation, outlook: Outlook, language: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """The JSON document `explain --format json` prints."""
    return {**explanation_json(explanation, language), **outlook_json(outlook, explanation.job.namespace, language)}


def _number(value: Decimal | None, resource: str) -> str | None:
    return None if value is None else format_quantity(value, resource)


def eta_json(eta: Eta, language: str) -> dict[str, Any]:
    return {
        "status": eta.status,
        "position": eta.position,
        "lowSeconds": eta.low_seconds,
        "highSeconds": eta.high_seconds,
        "confidence": eta.confidence,
        "admissions": eta.admissions,
        "windowHours": eta.window_hours,
        "scope": eta.scope or None,
        "samples": eta.samples,
        "boundSeconds": eta.bound_seconds,
        "reason": eta.reason or None,
        "text": render(eta_text(eta).key, eta_text(eta).params, language),
    }


def holders_json(holders: Holders, own_namespace: str, language: str) -> dict[str, Any]:
    return {
        "clusterQueue": holders.cluster_queue,
        "cohort": holders.cohort or None,
        "preemption": dict(holders.policy),
        "contests": [
            {
                "flavor": c.flavor,
                "resource": c.resource,
                "needed": _number(c.needed, c.resource),
                "heldHere": _number(c.held_here, c.resource),
                "heldInCohort": _number(c.held_in_cohort, c.resource),
                "reclaimable": _number(c.reclaimable, c.resource),
                "preemptible": _number(c.preemptible, c.resource),
                "count": c.count,
                "freesWithinSeconds": c.frees_within,
                "holders": [
                    {
                        "namespace": h.namespace,
                        "name": h.name,
                        "clusterQueue": h.cluster_queue,
                        "priority": h.priority,
                        "amount": _number(h.amount, c.resource),
                        "runningSeconds": h.running_seconds,
                        "borrowing": h.borrowing,
                        "preemptible": h.preemptible or None,
                        "secondsLeft": h.seconds_left,
                    }
                    for h in c.holders
                ],
            }
            for c in holders.contests
        ],
        "blockers": [
            {
                "kind": b.kind,
                "namespace": b.namespace,
                "name": b.name,
                "priority": b.priority,
                "sinceSeconds": b.since_seconds,
            }
            for b in holders.blockers
        ],
        "blockersCount": holders.blockers_count,
        "text": [
            render(t.key, t.params, language)
            for t in holders_texts(holders, own_namespace=own_namespace, show_names=True)
        ],
    }


def what_if_json(result: WhatIf, language: str) -> dict[str, Any]:
    changes = []
    for change in result.changes:
        item: dict[str, Any] = {"change": change.code, "now": change.now}
        if change.pod_set:
            item["podSet"] = change.pod_set
        if change.pods is not None:
            item.update(pods=change.pods, wasPods=change.was_pods)
        if change.per_pod is not None:
            item.update(
                resource=change.resource,
                perPod=_number(change.per_pod, change.resource),
                wasPerPod=_number(change.was_per_pod, change.resource),
            )
        if change.queue:
            item["localQueue"] = change.queue
        if change.cluster_queue:
            item["clusterQueue"] = change.cluster_queue
        if change.flavor:
            item.update(flavor=change.flavor, nodeLabels=dict(change.node_labels))
            item["tolerate"] = [{"key": k, "value": v, "effect": e} for k, v, e in change.tolerate]
        if change.raises:
            item["raise"] = [
                {
                    "clusterQueue": r.cluster_queue,
                    "flavor": r.flavor,
                    "resource": r.resource,
                    "by": _number(r.by, r.resource),
                    "to": _number(r.to, r.resource),
                }
                for r in change.raises
            ]
        item["text"] = [render(t.key, t.params, language) for t in what_if_texts(WhatIf((change,)))]
        changes.append(item)
    return {
        "fitsNow": result.fits_now,
        "considered": list(result.considered),
        "changes": changes,
        "text": [render(t.key, t.params, language) for t in what_if_texts(result)],
    }


def outlook_json(outlook: Outlook, own_namespace: str, language: str) -> dict[str, Any]:
    """The keys eta, holders and what_if, null when they do not apply to the verdict."""
    return {
        "eta": eta_json(outlook.eta, language) if outlook.eta is not None else None,
        "holders": holders_json(outlook.holders, own_namespace, language) if outlook.holders is not None else None,
        "what_if": what_if_json(outlook.what_if, language) if outlook.what_if is not None else None,
    }
