"""What the bot saw a queue do, what an estimate rests on: the admissions it observed per ClusterQueue and
flavor (when each waited from, when it was admitted), the finishes, the Workloads waiting now, and how far back
an estimate looks (`window`). Pure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from bot.trace.model import Workload
from bot.trace.snapshot import Snapshot

WINDOW = timedelta(hours=24)  # the history an estimate rests on, at least
MAX_WINDOW = timedelta(hours=72)  # ... at most: a queue whose waits last hours is looked at over longer
WAITS_PER_WINDOW = 16  # the window spans at least this many typical (median) waits
MIN_ADMISSIONS = 8  # fewer admissions in the window: "no estimate yet"
MAX_REPLAYED = 300  # the most recent admissions replayed


@dataclass(frozen=True, slots=True)
class Observed:
    """One admission the bot saw: a Workload that waited in `cluster_queue` from `queued_at` and got its
    quota in `flavor` at `admitted_at`."""

    cluster_queue: str
    flavor: str
    queued_at: datetime
    admitted_at: datetime
    amount: Decimal | None = None  # what it asked for of the resource its flavor was contested for
    workload: str = ""  # its UID: a Workload admitted in two flavors is one admission


@dataclass(frozen=True, slots=True)
class Waiting:
    """A Workload waiting now in the ClusterQueue (its wait so far is a lower bound of its whole wait)."""

    queued_at: datetime
    amount: Decimal | None = None


@dataclass(frozen=True, slots=True)
class Finished:
    """A Workload that held quota in `cluster_queue`/`flavor` from `admitted_at` until `finished_at`."""

    cluster_queue: str
    flavor: str
    admitted_at: datetime
    finished_at: datetime


@dataclass(frozen=True)
class History:
    admissions: tuple[Observed, ...] = ()
    finishes: tuple[Finished, ...] = ()

    # The admissions by ClusterQueue, made when first asked.
    _by_queue: dict[str, tuple[Observed, ...]] | None = field(default=None, init=False, repr=False, compare=False)

    def admissions_in(self, cluster_queue: str) -> tuple[Observed, ...]:
        """The admissions of one ClusterQueue, in the history's order. A recorded history holds every queue's
        (up to thousands each): the index is made once per History, not one scan of it all per queue."""
        index = self._by_queue
        if index is None:
            found: dict[str, list[Observed]] = {}
            for admission in self.admissions:
                found.setdefault(admission.cluster_queue, []).append(admission)
            index = {queue: tuple(admissions) for queue, admissions in found.items()}
            object.__setattr__(self, "_by_queue", index)
        return index.get(cluster_queue, ())

    def union(self, other: History) -> History:
        return History(
            tuple(dict.fromkeys((*self.admissions, *other.admissions))),
            tuple(dict.fromkeys((*self.finishes, *other.finishes))),
        )


def window(history: History, cluster_queue: str, now: datetime) -> timedelta:
    """How far back an estimate looks: 24 h, or WAITS_PER_WINDOW typical waits of the queue when they are
    longer (a queue whose waits last hours holds only a few of them in a day, and its state persists for
    longer than the calibration's hours would see), up to MAX_WINDOW, in whole hours. The typical wait is the
    median of the waits of the admissions of the last 24 h."""
    since = now - WINDOW
    waits = sorted(
        (a.admitted_at - a.queued_at).total_seconds()
        for a in history.admissions_in(cluster_queue)
        if since <= a.admitted_at <= now
    )
    if not waits:
        return WINDOW
    typical = waits[len(waits) // 2]
    hours = math.ceil(WAITS_PER_WINDOW * typical / 3600)
    return min(MAX_WINDOW, max(WINDOW, timedelta(hours=hours)))


def flavor_counts(history: History, cluster_queue: str, flavor: str, now: datetime) -> tuple[int, int]:
    """The admissions in the queue's window of `flavor`, and of the whole queue. With fewer than MIN_ADMISSIONS
    of its own, an Estimator for the flavor is the queue's (`flavor=""`: the same replay, the same answers); with
    all of the queue's, its replay is the queue's (`Estimator(twin=...)`)."""
    since = now - window(history, cluster_queue, now)
    mine = every = 0
    for admission in history.admissions_in(cluster_queue):
        if since <= admission.admitted_at <= now:
            every += 1
            mine += admission.flavor == flavor
    return mine, every


# --- what the history is made of: a Workload's own record -------------------------------------------


_COMMON = frozenset({"cpu", "memory", "pods", "ephemeral-storage"})
_ZERO = Decimal(0)


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
