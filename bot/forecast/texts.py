"""The forecast's sentences as `Text`s (rendered by bot.copy in the reader's language): the ETA, the "Who holds
it" lines (other namespaces' names only for readers who may see them), what would admit it. Pure.
"""

from __future__ import annotations

from decimal import Decimal

from bot.forecast import whatif
from bot.forecast.eta import ESTIMATE, NEVER, Eta
from bot.forecast.holders import Contest, Holders
from bot.forecast.whatif import WhatIf
from bot.trace.explanation import Text
from bot.trace.quantity import human


def eta_text(eta: Eta) -> Text:
    if eta.status == NEVER:
        return Text("eta.never")
    if eta.status != ESTIMATE or eta.low_seconds is None or eta.high_seconds is None:
        return Text("eta.no-estimate", {"admissions": eta.admissions, "hours": eta.window_hours})
    params: dict[str, str | int] = {
        "low_seconds": eta.low_seconds,
        "high_seconds": eta.high_seconds,
        "admissions": eta.admissions,
        "hours": eta.window_hours,
        "confidence": eta.confidence,
    }
    if eta.bound_seconds is not None and eta.high_seconds >= eta.bound_seconds:
        params["bound_seconds"] = eta.bound_seconds
    if eta.low_seconds == eta.high_seconds:
        params.pop("low_seconds")
    return Text(f"eta.estimate.{eta.scope or 'cluster-queue'}", params)


def _amount(value: Decimal, resource: str) -> str:
    return human(value, resource)


def holders_texts(holders: Holders, *, own_namespace: str, show_names: bool) -> list[Text]:
    """Lines of the "Who holds it" step; other namespaces' names only with `show_names` (counts otherwise)."""
    lines: list[Text] = []
    for contest in holders.contests:
        lines.extend(_contest_texts(holders, contest, own_namespace, show_names))
    by_kind: dict[str, list[str]] = {}
    hidden: dict[str, int] = {}
    for blocker in holders.blockers:
        if show_names or blocker.namespace == own_namespace:
            label = f"{blocker.namespace}/{blocker.name}"
            if blocker.kind == "strict-fifo-head":
                params: dict[str, str | int] = {"name": label, "priority": blocker.priority}
                if blocker.since_seconds is not None:
                    params["since_seconds"] = blocker.since_seconds
                lines.append(Text("holders.strict-fifo", params))
            else:
                by_kind.setdefault(blocker.kind, []).append(label)
        elif blocker.kind == "strict-fifo-head":
            lines.append(Text("holders.strict-fifo-hidden", {"priority": blocker.priority}))
        else:
            hidden[blocker.kind] = hidden.get(blocker.kind, 0) + 1
    if by_kind.get("pods-ready") or hidden.get("pods-ready"):
        names = by_kind.get("pods-ready", [])
        params = {"count": holders.blockers_count}
        if names:
            params["names"] = ", ".join(names)
        if hidden.get("pods-ready"):
            params["hidden"] = hidden["pods-ready"]
        lines.append(Text("holders.pods-ready", params))
    return lines


def _contest_texts(holders: Holders, contest: Contest, own: str, show_names: bool) -> list[Text]:
    resource = contest.resource
    head: dict[str, str | int] = {
        "resource": resource,
        "flavor": contest.flavor,
        "held_here": _amount(contest.held_here, resource),
        "cluster_queue": holders.cluster_queue,
        "count": contest.count,
    }
    if contest.needed > 0:
        head["needed"] = _amount(contest.needed, resource)
    if holders.cohort:
        head["cohort"] = holders.cohort
        head["held_in_cohort"] = _amount(contest.held_in_cohort, resource)
    lines = [Text("holders.contest", head)]
    hidden_count, hidden_amount = 0, Decimal(0)
    for holder in contest.holders:
        if not show_names and holder.namespace != own:
            hidden_count += 1
            hidden_amount += holder.amount
            continue
        item: dict[str, str | int] = {
            "name": f"{holder.namespace}/{holder.name}",
            "amount": _amount(holder.amount, resource),
            "cluster_queue": holder.cluster_queue,
        }
        if holder.running_seconds is not None:
            item["running_seconds"] = holder.running_seconds
        if holder.seconds_left is not None:
            item["left_seconds"] = holder.seconds_left
        if holder.preemptible == "reclaim":
            kind = "holders.item.reclaimable"
        elif holder.preemptible:
            kind = "holders.item.preemptible"
        elif holder.borrowing:
            kind = "holders.item.borrowing"
        else:
            kind = "holders.item"
        lines.append(Text(kind, item))
    unlisted = contest.count - len(contest.holders)
    if hidden_count:
        lines.append(Text("holders.others", {"count": hidden_count, "amount": _amount(hidden_amount, resource)}))
    if unlisted > 0:
        lines.append(Text("holders.more", {"count": unlisted}))
    if contest.reclaimable > 0:
        lines.append(Text("holders.reclaim", {"amount": _amount(contest.reclaimable, resource)}))
    policy = dict(holders.policy)
    if contest.preemptible > 0:
        lines.append(Text("holders.preemptible", {"amount": _amount(contest.preemptible, resource)}))
    else:
        lines.append(
            Text(
                "holders.none-preemptible",
                {
                    "within": policy.get("withinClusterQueue", "Never"),
                    "reclaim": policy.get("reclaimWithinCohort", "Never"),
                },
            )
        )
    return lines


def what_if_texts(result: WhatIf) -> list[Text]:
    if result.fits_now:
        return []
    if not result.changes:
        return [Text("whatif.none")]
    lines: list[Text] = []
    for change in result.changes:
        when = "now" if change.now else "ever"
        params: dict[str, str | int] = {}
        if change.code in (whatif.FEWER_PODS, whatif.PARTIAL_ADMISSION):
            params = {"pods": change.pods or 0, "was_pods": change.was_pods or 0}
        elif change.code == whatif.SMALLER_REQUEST and change.per_pod is not None:
            params = {
                "resource": change.resource,
                "per_pod": human(change.per_pod, change.resource),
                "was_per_pod": human(change.was_per_pod or Decimal(0), change.resource),
            }
        elif change.code == whatif.OTHER_QUEUE:
            params = {"queue": change.queue, "cluster_queue": change.cluster_queue}
        elif change.code == whatif.OTHER_FLAVOR:
            params = {"flavor": change.flavor}
            if change.node_labels:
                params["labels"] = ", ".join(f"{k}={v}" for k, v in change.node_labels)
            if change.tolerate:
                params["taints"] = ", ".join(f"{k}={v}:{e}" if v else f"{k}:{e}" for k, v, e in change.tolerate)
        elif change.code == whatif.RAISE_QUOTA:
            for raised in change.raises:
                lines.append(
                    Text(
                        f"whatif.raise-quota.{when}",
                        {
                            "cluster_queue": raised.cluster_queue,
                            "resource": raised.resource,
                            "flavor": raised.flavor,
                            "by": human(raised.by, raised.resource),
                            "to": human(raised.to, raised.resource),
                        },
                    )
                )
            continue
        lines.append(Text(f"whatif.{change.code}.{when}", params))
    return lines
