"""The three answers after "why": when (eta), who holds it (holders), what would admit it (what_if), for one
pending Workload, and their sentences as `Text`s (rendered by bot.copy in the reader's language). Pure.

    holders, eta, what_if = outlook(snapshot, workload, cq_name, verdict, position, history=h, now=now)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from bot.forecast import eta as eta_module
from bot.forecast import whatif
from bot.forecast.eta import Estimator, Eta, History, Observed, Waiting
from bot.forecast.holders import Contest, Holders, find_holders
from bot.forecast.whatif import WhatIf, what_if
from bot.trace.answer import queued_since
from bot.trace.codes import Verdict
from bot.trace.demand import demand_in
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation, Text
from bot.trace.model import Workload
from bot.trace.quantity import human
from bot.trace.snapshot import Live, Snapshot, handed_out, lasting, same_objects

WAITS = frozenset(
    {
        Verdict.WAITING_FOR_QUOTA,
        Verdict.WAITING_FOR_PREEMPTION,
        Verdict.WAITING_FOR_PODS_READY,
        Verdict.NOT_YET_EVALUATED,
    }
)
NEVER = frozenset({Verdict.EXCEEDS_MAX_QUOTA, Verdict.NO_MATCHING_FLAVOR})
WHAT_IF = frozenset(
    {
        Verdict.WAITING_FOR_QUOTA,
        Verdict.WAITING_FOR_PREEMPTION,
        Verdict.EXCEEDS_MAX_QUOTA,
        Verdict.NO_MATCHING_FLAVOR,
        Verdict.QUEUE_STOPPED,
        Verdict.NAMESPACE_NOT_ALLOWED,
        Verdict.QUEUE_INACTIVE,
    }
)
_COMMON = frozenset({"cpu", "memory", "pods", "ephemeral-storage"})
_ZERO = Decimal(0)


# --- what the history is made of -------------------------------------------------------------------


def main_resource(names: Iterable[str]) -> str:
    """What an admission is measured by: an accelerator (anything but cpu, memory, pods, storage) when
    it asks for one, else cpu."""
    special = [n for n in names if n not in _COMMON and not n.startswith("hugepages-")]
    return min(special) if special else "cpu"


def admissions_of(workload: Workload) -> list[Observed]:
    """The admission a Workload's own record shows, one per flavor it got (none when it holds no quota
    record)."""
    admission = workload.admission
    if admission is None:
        return []
    at, queued = workload.reserved_at, workload.queued_at
    if at is None or queued is None or queued > at:
        return []
    assignments = admission.assignments
    key = workload.meta.uid or f"{workload.namespace}/{workload.name}"
    cq = admission.cluster_queue
    if len(assignments) == 1:  # most: one pod set
        usage, flavors = assignments[0].usage, assignments[0].flavors
        resource = "cpu" if _COMMON.issuperset(usage) else main_resource(usage)
        if len(set(flavors.values())) == 1:  # one flavor for all its resources
            amount = usage.get(resource, _ZERO) if resource in flavors else _ZERO
            return [Observed(cq, next(iter(flavors.values())), queued, at, amount or None, key)]
    else:
        resource = main_resource(r for a in assignments for r in a.usage)
    amounts: dict[str, Decimal] = {}
    for assignment in assignments:
        for name, flavor in assignment.flavors.items():
            amount = assignment.usage.get(resource, _ZERO) if name == resource else _ZERO
            amounts[flavor] = amounts.get(flavor, _ZERO) + amount
    return [Observed(cq, flavor, queued, at, amount or None, key) for flavor, amount in sorted(amounts.items())]


def snapshot_history(snapshot: Snapshot, cluster_queue: str) -> History:
    """The admissions the snapshot itself still shows in a ClusterQueue (admitted or finished Workloads not
    deleted yet): a CLI reading a dump has no other history. Read when the queue's Estimator is made (which is
    kept, see `_estimator`), then let go."""
    found: list[Observed] = []
    for workload in snapshot.workloads_in_cluster_queue(cluster_queue):
        if workload.admission is not None and workload.admission.cluster_queue == cluster_queue:
            found += admissions_of(workload)  # each in its admission's ClusterQueue
    return History(tuple(found))


# --- the three answers ------------------------------------------------------------------------------


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
    if cq is not None and verdict in WAITS:
        holders = find_holders(
            snapshot, workload, cq, now=now, pods_ready_blocked=verdict == Verdict.WAITING_FOR_PODS_READY
        )
        if holders.empty:
            holders = None
    eta: Eta | None = None
    if verdict in NEVER:
        eta = eta_module.never()
    elif cq is not None and verdict in WAITS and position is not None and with_eta:
        eta = _eta(snapshot, workload, cq_name, holders, position, history, now)
    changes = what_if(snapshot, workload) if verdict in WHAT_IF and with_what_if else None
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
    demand = demand_in(snapshot.derived(), workload)  # kept per pod sets (Workloads alike share it)
    resource = main_resource(demand)
    amount = demand.get(resource)
    bound = None
    if contest is not None and position == 1 and contest.resource == resource:
        bound = contest.frees_within
    return _estimator(snapshot, history, cq_name, flavor, now).eta(position, bound_seconds=bound, amount=amount)


# A queue's Estimator replays its history once; every question about the queue reads it (a Slack question, each
# Workload of a watcher pass). Kept in the view's memo while its sources are the same (the queue's admissions in
# the recorded history, or without one the ClusterQueue's Workloads they are read from, and the queue's order),
# as of the minute: the replay rests on the recorder's last pass (up to a pass behind) and a 10-minute grid, so
# answers within one minute share it. Two minutes' are kept per queue and flavor: the current one and the next,
# which the warmer makes ahead (`prepare`, bot.service.warmer) so that the turn of a minute rebuilds nothing in
# a question. A flavor without enough admissions of its own shares the queue's (`eta.flavor_counts`). The History
# and waiting jobs it is made from are let go once it is: thousands of small objects per queue that every full
# collection would walk (its replay keeps plain tuples).
_ESTIMATORS = "outlook.estimators"
_KEPT_GRAINS = 2  # per queue and flavor: this minute's and the next's

# One kept Estimator: (its source: the queue's recorded admissions or its Workloads, whether recorded, its
# queue order, as of, the Estimator).
_Kept = tuple[Any, bool, Any, datetime, Estimator]


def _current_sources(entry: tuple[_Kept, ...], live: Live) -> bool:
    return all(handed_out(live, kept[2]) and (kept[1] or handed_out(live, kept[0])) for kept in entry)


lasting(_ESTIMATORS, _current_sources)
ESTIMATE_GRAIN_SECONDS = 60


def estimate_as_of(now: datetime) -> datetime:
    """The moment an estimate is made as of: `now` down to the minute."""
    late = now.timestamp() % ESTIMATE_GRAIN_SECONDS
    return now - timedelta(seconds=late) if late else now


def next_estimate_at(now: datetime) -> datetime:
    """When the next minute's estimates are made as of (what `prepare` makes ahead)."""
    return estimate_as_of(now) + timedelta(seconds=ESTIMATE_GRAIN_SECONDS)


def _sources(snapshot: Snapshot, history: History | None, cq_name: str) -> tuple[Any, bool, Any]:
    if history is not None:
        return history.admissions_in(cq_name), True, snapshot.pending_in(cq_name)
    return snapshot.workloads_in_cluster_queue(cq_name), False, snapshot.pending_in(cq_name)


def _found(
    table: dict[tuple[str, str], tuple[_Kept, ...]],
    key: tuple[str, str],
    sources: tuple[Any, bool, Any],
    as_of: datetime,
) -> Estimator | None:
    """The kept Estimator of `key` as of `as_of` made from these same sources. A new recorded History (the
    recorder's pass) holds the same admission objects for a queue nothing was admitted in: still the same."""
    source, recorded, order = sources
    entries = table.get(key, ())
    for index, kept in enumerate(entries):
        if kept[2] is not order or kept[3] != as_of or kept[1] is not recorded:
            continue
        if kept[0] is source:
            return kept[4]
        if recorded and same_objects(kept[0], source):
            table[key] = (*entries[:index], (source, *kept[1:]), *entries[index + 1 :])  # read by identity next
            return kept[4]
    return None


def _keep(table: dict[tuple[str, str], tuple[_Kept, ...]], key: tuple[str, str], kept: _Kept) -> None:
    """Keep `kept` with the other minutes' of the same sources (the latest _KEPT_GRAINS)."""
    others = [k for k in table.get(key, ()) if k[3] != kept[3] and k[0] is kept[0] and k[2] is kept[2]]
    table[key] = tuple(sorted([*others, kept], key=lambda k: k[3])[-_KEPT_GRAINS:])


def _estimators(
    snapshot: Snapshot, history: History | None, cq_name: str, flavors: Sequence[str], as_of: datetime
) -> tuple[list[Estimator], int]:
    """The queue's Estimators for `flavors` as of `as_of`, from the view's memo or made (and kept), and how many
    were made. One made knows when a question last read its predecessors' calibration (another minute's, or
    other sources'; `last_read`): questions there get estimates, and will read its calibration."""
    table: Any = snapshot.derived().setdefault(_ESTIMATORS, {})
    sources = _sources(snapshot, history, cq_name)
    found: list[Estimator] = []
    made = 0
    full: History | None = None
    pending: tuple[Waiting, ...] | None = None
    for flavor in flavors:
        estimator = _found(table, (cq_name, flavor), sources, as_of)
        if estimator is None:
            if full is None:
                full = history if history is not None else snapshot_history(snapshot, cq_name)
            mine, every = eta_module.flavor_counts(full, cq_name, flavor, as_of) if flavor else (0, 0)
            own = flavor if mine >= eta_module.MIN_ADMISSIONS else ""
            estimator = _found(table, (cq_name, own), sources, as_of) if own != flavor else None
            if estimator is None:
                # All of the queue's admissions are the flavor's: the queue's replay, when it is made already.
                twin = _found(table, (cq_name, ""), sources, as_of) if own and mine == every else None
                if twin is None and pending is None:
                    pending = waiting(snapshot, cq_name)
                estimator = Estimator(
                    full, cluster_queue=cq_name, flavor=own, now=as_of, pending=pending or (), twin=twin
                )
                made += twin is None
                estimator.last_read = _last_read(table, (cq_name, own), (cq_name, flavor))
                _keep(table, (cq_name, own), (*sources, as_of, estimator))
            if own != flavor:
                _keep(table, (cq_name, flavor), (*sources, as_of, estimator))
        found.append(estimator)
    return found, made


def _last_read(table: dict[tuple[str, str], tuple[_Kept, ...]], *keys: tuple[str, str]) -> datetime | None:
    """The last minute a question read the calibration of the Estimators kept under `keys` (or of theirs)."""
    found = None
    for key in keys:
        for kept in table.get(key, ()):
            estimator = kept[4]
            read = estimator.now if estimator.questioned else estimator.last_read
            if read is not None and (found is None or read > found):
                found = read
    return found


def _estimator(snapshot: Snapshot, history: History | None, cq_name: str, flavor: str, now: datetime) -> Estimator:
    """The queue's Estimator from the view's memo. The recorded `history` already holds what the snapshot shows
    (the recorder reads the same Workloads); without one (the CLI, a dump) the snapshot's own admitted Workloads
    are all there is."""
    return _estimators(snapshot, history, cq_name, (flavor,), estimate_as_of(now))[0][0]


def prepare(snapshot: Snapshot, cluster_queue: str, *, history: History | None, now: datetime) -> int:
    """Make the queue's ETA Estimators as of `now`'s minute (the queue's and each of its flavors') ready in the
    view's memo, as a question about a Workload waiting in it would find them; nothing for a queue with none
    waiting (no question reads an ETA there). The warmer (bot.service.warmer) calls it for every queue, this
    minute's and ahead of the next, so that no question replays a queue's history. How many it made (0: all
    were there). Their calibration is `calibrations`'."""
    return _prepared(snapshot, cluster_queue, history, now)[1]


def _prepared(
    snapshot: Snapshot, cluster_queue: str, history: History | None, now: datetime
) -> tuple[list[Estimator], int]:
    if not snapshot.pending_in(cluster_queue):
        return [], 0
    queue = snapshot.cluster_queue(cluster_queue)
    flavors = ("", *queue.flavor_names()) if queue is not None else ("",)
    return _estimators(snapshot, history, cluster_queue, flavors, estimate_as_of(now))


def calibrations(
    snapshot: Snapshot,
    cluster_queue: str,
    *,
    history: History | None,
    now: datetime,
    asked: tuple[int, Decimal | None] | None = None,
) -> list[Iterator[None]]:
    """The calibrations due of the queue's Estimators as of `now`'s minute (made first, as `prepare` makes
    them), each as its steps (`Estimator.calibration`, a few ms each: the caller turns the event loop between
    them). Due: one begun and not finished; one whose predecessors' calibration a question read within the
    last CALIBRATED_AHEAD_FOR (`last_read`: questions there get estimates; the warmer makes it ahead, and lets a
    queue nobody asks about any more go after that); and with `asked` (the position and amount of a question's
    job waiting in the queue: bot.service.slices) every one whose estimate there reads it. Without them, a
    question that reads a calibration makes it at once: tens of ms a queue, up to 0.4 s for a queue whose jobs
    wait for hours (bench/README.md)."""
    return _due(_prepared(snapshot, cluster_queue, history, now)[0], asked)


def _due(found: Sequence[Estimator], asked: tuple[int, Decimal | None] | None) -> list[Iterator[None]]:
    steps: list[Iterator[None]] = []
    for estimator in found:
        if estimator.calibrated or not estimator.estimates:
            continue
        if _reads_again(estimator) or estimator.calibrating or (asked is not None and estimator.reads_factor(*asked)):
            step = estimator.calibration(eta_module.CONFIDENCE)  # twins share theirs
            if not any(step is other for other in steps):
                steps.append(step)
    return steps


CALIBRATED_AHEAD_FOR = timedelta(hours=1)


def _reads_again(estimator: Estimator) -> bool:
    """Whether a question read its predecessors' calibration within CALIBRATED_AHEAD_FOR of its minute."""
    read = estimator.last_read
    return read is not None and estimator.now - read <= CALIBRATED_AHEAD_FOR


def forget_before(snapshot: Snapshot, now: datetime) -> int:
    """Let go of the Estimators made as of a minute before `now`'s: no question asks about a minute past (the
    warmer calls it at the turn of each minute, so that two minutes' are kept only while the next one's is made
    ahead). How many it let go."""
    table = snapshot.derived().get(_ESTIMATORS)
    if not isinstance(table, dict):
        return 0
    as_of = estimate_as_of(now)
    dropped = 0
    for key, entries in list(table.items()):
        kept = tuple(k for k in entries if k[3] >= as_of)
        if len(kept) != len(entries):
            dropped += len(entries) - len(kept)
            if kept:
                table[key] = kept
            else:
                del table[key]
    return dropped


def waiting(snapshot: Snapshot, cluster_queue: str) -> tuple[Waiting, ...]:
    """The Workloads waiting in the ClusterQueue now: since when, and how much of its main resource each
    asks for (their waits so far are lower bounds the estimator counts)."""
    memo = snapshot.derived()
    found = []
    # main_resource per demand: Workloads alike share theirs (demand_in); each held, so its id is not reused
    measured: dict[int, tuple[Mapping[str, Decimal], str]] = {}
    for workload in snapshot.pending_in(cluster_queue):
        since = queued_since(workload)
        if since is not None:
            demand = demand_in(memo, workload)
            known = measured.get(id(demand))
            if known is None or known[0] is not demand:
                known = measured[id(demand)] = (demand, main_resource(demand))
            found.append(Waiting(since, demand.get(known[1])))
    return tuple(found)


# --- their sentences ----------------------------------------------------------------------------------


def eta_text(eta: Eta) -> Text:
    if eta.status == eta_module.NEVER:
        return Text("eta.never")
    if eta.status != eta_module.ESTIMATE or eta.low_seconds is None or eta.high_seconds is None:
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
    if explanation.workload is None or verdict not in WAITS | NEVER | WHAT_IF:
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


def calibrations_for(
    snapshot: Snapshot, explanation: Explanation, *, history: History | None, now: datetime
) -> list[Iterator[None]]:
    """The calibrations `outlook_of` may read for this explanation's ETA (those of its ClusterQueue's
    Estimators whose estimate at its position and amount reads one: it reads the one of its contested flavor)
    and are not made yet, as steps (`calibrations`)."""
    if explanation.workload is None or explanation.verdict not in WAITS:
        return []
    if explanation.position is None or explanation.position.cluster_queue is None:
        return []  # no ETA without a position
    workload = snapshot.workload(*explanation.workload)
    if workload is None or workload.holds_quota or workload.finished or not explanation.cluster_queue:
        return []
    found, _ = _prepared(snapshot, explanation.cluster_queue, history, now)
    if all(estimator.calibrated or not estimator.estimates for estimator in found):
        return []  # (nearly every question: its amount is not summed for nothing)
    demand = demand_in(snapshot.derived(), workload)  # kept per pod sets (Workloads alike share it)
    return _due(found, (explanation.position.cluster_queue, demand.get(main_resource(demand))))  # as `_eta` asks


ESTIMATES_PER_STEP = 32  # `estimates_ahead`: jobs a step (~1 ms compiled at 50,000)


def estimates_ahead(
    snapshot: Snapshot,
    cluster_queue: str,
    *,
    history: History | None,
    now: datetime,
    per_step: int = ESTIMATES_PER_STEP,
) -> Iterator[None]:
    """What the ETA of each job waiting in the queue reads first, made ahead in steps of `per_step` jobs (the
    warmer's, bot.service.warmer): the waits near its place for its amount and their central share, in each of
    the queue's Estimators that estimates (every one `calibrations_for` checks; twins once). A question about
    a job waiting then finds it made: ~80 us of a question at 50,000 Workloads (bench/README.md, session 17).
    An Estimator is made for one order of the queue (its sources), so once done nothing is left of it."""
    found, _ = _prepared(snapshot, cluster_queue, history, now)
    estimators: list[Estimator] = []
    for estimator in found:
        if estimator.estimates and not estimator.ahead and not any(estimator.shares_estimates(e) for e in estimators):
            estimators.append(estimator)
    if not estimators:
        return
    memo = snapshot.derived()
    measured: dict[int, tuple[Mapping[str, Decimal], str]] = {}  # main_resource per demand (as `waiting`)
    for place, workload in enumerate(snapshot.pending_in(cluster_queue), start=1):
        demand = demand_in(memo, workload)
        known = measured.get(id(demand))
        if known is None or known[0] is not demand:
            known = measured[id(demand)] = (demand, main_resource(demand))
        amount = demand.get(known[1])
        for estimator in estimators:
            estimator.ready(place, amount)
        if place % per_step == 0:
            yield
    for estimator in estimators:
        estimator.let_go_of_waits()  # its estimates are kept, not the waits they were read from
    for estimator in found:
        if any(estimator.shares_estimates(e) for e in estimators):
            estimator.ahead = True


ETA_MARK = "|eta="  # between a delivery's headline key and its ETA mark (bot.notify)


def eta_mark(eta: Eta | None) -> str:
    """A coarse mark of an ETA that changes only when it moves meaningfully: its status, and for an
    estimate the power of two its midpoint (in minutes) rounds to (so 20 → 35 min is no news; 20 → 45 is)."""
    if eta is None:
        return ""
    if eta.status != eta_module.ESTIMATE or eta.low_seconds is None or eta.high_seconds is None:
        return eta.status
    middle = max(1.0, (eta.low_seconds + eta.high_seconds) / 120)
    return f"{eta.status}:{round(math.log2(middle))}"


def eta_moved(before: str, eta: Eta | None) -> bool:
    """Whether the ETA moved meaningfully since the mark `before` ("" when none was recorded: no news)."""
    return bool(before) and before != eta_mark(eta)
