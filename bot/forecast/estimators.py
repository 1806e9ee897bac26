"""A queue's ETA Estimators, kept in the view's memo: made once per queue, flavor and minute from the recorded
history (or, without one, the ClusterQueue's own Workloads), read by every question about the queue; made ahead
by the warmer (`prepare`, `calibrations`, `estimates_ahead`: bot.service.warmer) so that no question replays a
queue's history or calibrates it on the event loop at once. Pure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, NamedTuple

from bot.forecast.eta import CONFIDENCE, Estimator
from bot.forecast.history import MIN_ADMISSIONS, History, Waiting, flavor_counts, main_resource, snapshot_history
from bot.trace.answer import queued_since
from bot.trace.demand import demand_in
from bot.trace.explanation import Explanation
from bot.trace.snapshot import Live, Snapshot, lasting_table, same_objects, still_handed_out

# A queue's Estimator replays its history once; every question about the queue reads it (a Slack question, each
# Workload of a watcher pass). Kept in the view's memo while its sources are the same (the queue's admissions in
# the recorded history, or without one the ClusterQueue's Workloads they are read from, and the queue's order),
# as of the minute: the replay rests on the recorder's last pass (up to a pass behind) and a 10-minute grid, so
# answers within one minute share it. Two minutes' are kept per queue and flavor: the current one and the next,
# which the warmer makes ahead (`prepare`, bot.service.warmer) so that the turn of a minute rebuilds nothing in
# a question. A flavor without enough admissions of its own shares the queue's (`history.flavor_counts`). The History
# and waiting jobs it is made from are let go once it is: thousands of small objects per queue that every full
# collection would walk (its replay keeps plain tuples).
_ESTIMATORS = "outlook.estimators"
_KEPT_GRAINS = 2  # per queue and flavor: this minute's and the next's


class _KeptEstimator(NamedTuple):
    """One kept Estimator, and what it was made from."""

    source: Any  # the queue's admissions in the recorded history, or (without one) its Workloads
    recorded: bool  # whether `source` is the recorded history's
    order: Any  # the queue's order (its pending Workloads)
    as_of: datetime
    estimator: Estimator


def _current_sources(entry: tuple[_KeptEstimator, ...], live: Live) -> bool:
    return all(
        still_handed_out(live, kept.order) and (kept.recorded or still_handed_out(live, kept.source)) for kept in entry
    )


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
    table: dict[tuple[str, str], tuple[_KeptEstimator, ...]],
    key: tuple[str, str],
    sources: tuple[Any, bool, Any],
    as_of: datetime,
) -> Estimator | None:
    """The kept Estimator of `key` as of `as_of` made from these same sources. A new recorded History (the
    recorder's pass) holds the same admission objects for a queue nothing was admitted in: still the same."""
    source, recorded, order = sources
    entries = table.get(key, ())
    for index, kept in enumerate(entries):
        if kept.order is not order or kept.as_of != as_of or kept.recorded is not recorded:
            continue
        if kept.source is source:
            return kept.estimator
        if recorded and same_objects(kept.source, source):
            table[key] = (*entries[:index], kept._replace(source=source), *entries[index + 1 :])  # by identity next
            return kept.estimator
    return None


def _keep(table: dict[tuple[str, str], tuple[_KeptEstimator, ...]], key: tuple[str, str], kept: _KeptEstimator) -> None:
    """Keep `kept` with the other minutes' of the same sources (the latest _KEPT_GRAINS)."""
    others = [
        k for k in table.get(key, ()) if k.as_of != kept.as_of and k.source is kept.source and k.order is kept.order
    ]
    table[key] = tuple(sorted([*others, kept], key=lambda k: k.as_of)[-_KEPT_GRAINS:])


def _estimators(
    snapshot: Snapshot, history: History | None, cq_name: str, flavors: Sequence[str], as_of: datetime
) -> tuple[list[Estimator], int]:
    """The queue's Estimators for `flavors` as of `as_of`, from the view's memo or made (and kept), and how many
    were made. One made knows when a question last read its predecessors' calibration (another minute's, or
    other sources'; `last_read`): questions there get estimates, and will read its calibration."""
    table: Any = lasting_table(snapshot.memos(), _ESTIMATORS, _current_sources)
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
            mine, every = flavor_counts(full, cq_name, flavor, as_of) if flavor else (0, 0)
            own = flavor if mine >= MIN_ADMISSIONS else ""
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
                _keep(table, (cq_name, own), _KeptEstimator(*sources, as_of, estimator))
            if own != flavor:
                _keep(table, (cq_name, flavor), _KeptEstimator(*sources, as_of, estimator))
        found.append(estimator)
    return found, made


def _last_read(table: dict[tuple[str, str], tuple[_KeptEstimator, ...]], *keys: tuple[str, str]) -> datetime | None:
    """The last minute a question read the calibration of the Estimators kept under `keys` (or of theirs)."""
    found = None
    for key in keys:
        for kept in table.get(key, ()):
            estimator = kept.estimator
            read = estimator.now if estimator.questioned else estimator.last_read
            if read is not None and (found is None or read > found):
                found = read
    return found


def estimator_for(snapshot: Snapshot, history: History | None, cq_name: str, flavor: str, now: datetime) -> Estimator:
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
    job waiting in the queue: bot.service.explaining) every one whose estimate there reads it. Without them, a
    question that reads a calibration makes it at once, longer the longer the queue's jobs wait
    (bench/README.md)."""
    return _due(_prepared(snapshot, cluster_queue, history, now)[0], asked)


def _due(found: Sequence[Estimator], asked: tuple[int, Decimal | None] | None) -> list[Iterator[None]]:
    steps: list[Iterator[None]] = []
    for estimator in found:
        if estimator.calibrated or not estimator.estimates:
            continue
        if _reads_again(estimator) or estimator.calibrating or (asked is not None and estimator.reads_factor(*asked)):
            step = estimator.calibration(CONFIDENCE)  # twins share theirs
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
    table = snapshot.memos().get(_ESTIMATORS)
    if not isinstance(table, dict):
        return 0
    as_of = estimate_as_of(now)
    dropped = 0
    for key, entries in list(table.items()):
        kept = tuple(k for k in entries if k.as_of >= as_of)
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
    memo = snapshot.memos()
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


def calibrations_for(
    snapshot: Snapshot, explanation: Explanation, *, history: History | None, now: datetime
) -> list[Iterator[None]]:
    """The calibrations `outlook_of` may read for this explanation's ETA (those of its ClusterQueue's
    Estimators whose estimate at its position and amount reads one: it reads the one of its contested flavor)
    and are not made yet, as steps (`calibrations`)."""
    if explanation.workload is None or not explanation.verdict.waits_for_capacity:
        return []
    if explanation.position is None or explanation.position.cluster_queue is None:
        return []  # no ETA without a position
    workload = snapshot.workload(*explanation.workload)
    if workload is None or workload.holds_quota or workload.finished or not explanation.cluster_queue:
        return []
    found, _ = _prepared(snapshot, explanation.cluster_queue, history, now)
    if all(estimator.calibrated or not estimator.estimates for estimator in found):
        return []  # (nearly every question: its amount is not summed for nothing)
    demand = demand_in(snapshot.memos(), workload)  # kept per pod sets (Workloads alike share it)
    return _due(found, (explanation.position.cluster_queue, demand.get(main_resource(demand))))  # as `_eta` asks


ESTIMATES_PER_STEP = 32  # `estimates_ahead`: jobs a step


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
    a job waiting then finds it made (what it saves a question: bench/README.md).
    An Estimator is made for one order of the queue (its sources), so once done nothing is left of it."""
    found, _ = _prepared(snapshot, cluster_queue, history, now)
    estimators: list[Estimator] = []
    for estimator in found:
        if estimator.estimates and not estimator.ahead and not any(estimator.shares_estimates(e) for e in estimators):
            estimators.append(estimator)
    if not estimators:
        return
    memo = snapshot.memos()
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
