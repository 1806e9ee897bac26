"""The three answers after "why", beside the Explanation: when it will likely run (eta), who holds what it waits
for (holders), what would admit it (what_if), for one pending Workload, when its verdict calls for them. Pure.

    explanation, outlook = explain_with_outlook(snapshot, query, now=now, history=history)

Readers of an answer reach it through the service's one way to explain a job (bot.service.explaining); the dry
run (bot.fit) calls it on its overlay.

Their sentences are bot.forecast.texts', their JSON bot.forecast.serialize's; the queue's Estimators, kept per
view, bot.forecast.estimators'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from bot.forecast.estimators import estimator_for
from bot.forecast.eta import ESTIMATE, Eta, never
from bot.forecast.history import History, main_resource
from bot.forecast.holders import Holders, find_holders
from bot.forecast.whatif import WhatIf, what_if
from bot.trace.codes import Verdict
from bot.trace.demand import demand_in
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation
from bot.trace.model import Workload
from bot.trace.snapshot import Snapshot


@dataclass(frozen=True)
class Outlook:
    """What comes after "why" for one job, beside its Explanation: who holds what it waits for, when it will
    likely run, what would admit it (each None where its verdict does not call for it)."""

    holders: Holders | None = None
    eta: Eta | None = None
    what_if: WhatIf | None = None


NO_OUTLOOK = Outlook()


def outlook(
    snapshot: Snapshot,
    workload: Workload,
    cq_name: str,
    verdict: Verdict,
    position: int | None,
    *,
    history: History | None,
    now: datetime,
    with_what_if: bool = True,
    with_eta: bool = True,
) -> Outlook:
    cq = snapshot.cluster_queue(cq_name) if cq_name else None
    holders = None
    if cq is not None and verdict.waits_for_capacity:
        holders = find_holders(
            snapshot, workload, cq, now=now, pods_ready_blocked=verdict == Verdict.WAITING_FOR_PODS_READY
        )
        if holders.empty:
            holders = None
    eta: Eta | None = None
    if verdict.never_fits_queue:
        eta = never()
    elif cq is not None and verdict.waits_for_capacity and position is not None and with_eta:
        eta = _eta(snapshot, workload, cq_name, holders, position, history, now)
    changes = what_if(snapshot, workload) if verdict.change_could_admit and with_what_if else None
    return Outlook(holders, eta, changes)


def _eta(
    snapshot: Snapshot,
    workload: Workload,
    cq_name: str,
    holders: Holders | None,
    position: int,
    history: History | None,
    now: datetime,
) -> Eta:
    contest = holders.contests[0] if holders is not None and holders.contests else None
    flavor = contest.flavor if contest is not None else ""
    demand = demand_in(snapshot.memos(), workload)  # kept per pod sets (Workloads alike share it)
    resource = main_resource(demand)
    amount = demand.get(resource)
    bound = None
    if contest is not None and position == 1 and contest.resource == resource:
        bound = contest.frees_within
    return estimator_for(snapshot, history, cq_name, flavor, now).eta(position, bound_seconds=bound, amount=amount)


def outlook_of(
    snapshot: Snapshot,
    explanation: Explanation,
    *,
    history: History | None,
    now: datetime,
    with_what_if: bool = True,
    with_eta: bool = True,
) -> Outlook:
    """The explanation's eta, holders and what_if (unless `with_what_if` is False: the notifier's DMs carry only
    the ETA; unless `with_eta` is False: the admins' view shows none, and reads no queue's history for it), when
    its verdict calls for them; NO_OUTLOOK otherwise."""
    verdict = explanation.verdict
    if explanation.workload is None or not (
        verdict.waits_for_capacity or verdict.never_fits_queue or verdict.change_could_admit
    ):
        return NO_OUTLOOK
    workload = snapshot.workload(*explanation.workload)
    if workload is None or workload.holds_quota or workload.finished:
        return NO_OUTLOOK
    position = explanation.position.cluster_queue if explanation.position is not None else None
    return outlook(
        snapshot,
        workload,
        explanation.cluster_queue,
        verdict,
        position,
        history=history,
        now=now,
        with_what_if=with_what_if,
        with_eta=with_eta,
    )


def explain_with_outlook(
    snapshot: Snapshot,
    query: Query,
    *,
    now: datetime,
    history: History | None = None,
    what_if: bool = True,
    eta: bool = True,
) -> tuple[Explanation, Outlook]:
    """Why the job named by `query` is (or is not) pending (bot.trace.explain), and its outlook (`outlook_of`:
    its ETA from the observed `history`, when given, unless `eta` is False; who holds what it waits for; and,
    unless `what_if` is False, what would admit it)."""
    explanation = explain(snapshot, query, now=now)
    return explanation, outlook_of(snapshot, explanation, history=history, now=now, with_what_if=what_if, with_eta=eta)


ETA_MARK = "|eta="  # between a delivery's headline key and its ETA mark (bot.notify)


def eta_mark(eta: Eta | None) -> str:
    """A coarse mark of an ETA that changes only when it moves meaningfully: its status, and for an
    estimate the power of two its midpoint (in minutes) rounds to (so 20 → 35 min is no news; 20 → 45 is)."""
    if eta is None:
        return ""
    if eta.status != ESTIMATE or eta.low_seconds is None or eta.high_seconds is None:
        return eta.status
    middle = max(1.0, (eta.low_seconds + eta.high_seconds) / 120)
    return f"{eta.status}:{round(math.log2(middle))}"


def eta_moved(before: str, eta: Eta | None) -> bool:
    """Whether the ETA moved meaningfully since the mark `before` ("" when none was recorded: no news)."""
    return bool(before) and before != eta_mark(eta)
