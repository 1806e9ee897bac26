"""The admissions and finishes the bot observes, per ClusterQueue and flavor: what the ETA rests on.

    recorder = HistoryRecorder(SQLiteHistory(path))   # or MemoryHistory() where no database is configured
    await recorder.load()                              # what earlier runs saw (survives restarts)
    await recorder.observe(snapshot, now)              # each notifier pass: new admissions and finishes
    explain_with_outlook(snapshot, query, now=now, history=recorder.history)   # bot.forecast.outlook

`observations(snapshot, ...)` is pure: it reads each Workload's own record (QuotaReserved/Admitted and
Finished conditions, with their times), so an admission is seen even when it happened between two passes,
and recording it twice is harmless (its identity is the Workload's UID, the flavor and the admission time).
A Workload that disappears while holding quota finished at the pass that no longer sees it. The history is
bounded: at most MAX_PER_QUEUE admissions and finishes per ClusterQueue, none older than RETENTION.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Protocol, TypeVar

from bot.forecast.history import Finished, History, Observed, admissions_of
from bot.notify.sqlite import DEFAULT_BUSY_TIMEOUT, Database
from bot.notify.state import format_time, parse_time
from bot.trace.model import Workload
from bot.trace.snapshot import Snapshot

log = logging.getLogger(__name__)

T = TypeVar("T")

RETENTION = timedelta(days=7)
MAX_PER_QUEUE = 2000


@dataclass(frozen=True)
class Seen:
    """What the previous pass saw holding quota: key -> (cluster queue, flavors, admitted at)."""

    holding: dict[str, tuple[str, tuple[str, ...], datetime]]


def observations(
    snapshot: Snapshot, namespaces: Iterable[str], seen: Seen, now: datetime
) -> tuple[list[Observed], list[Finished], Seen]:
    """New admissions and finishes in `snapshot` (and the Workloads gone since `seen`), and what to remember."""
    admissions: list[Observed] = []
    finishes: list[Finished] = []
    holding: dict[str, tuple[str, tuple[str, ...], datetime]] = {}
    for namespace in namespaces:
        _scan(snapshot.workloads_in(namespace), admissions, finishes, holding)
    return admissions, finishes, _gone(seen, holding, finishes, now)


def _scan(
    workloads: Iterable[Workload],
    admissions: list[Observed],
    finishes: list[Finished],
    holding: dict[str, tuple[str, tuple[str, ...], datetime]],
) -> None:
    """The admissions, finishes and quota holders of `workloads`, added to the three."""
    for workload in workloads:
        admitted = admissions_of(workload)
        if not admitted:
            continue
        admissions.extend(admitted)
        cq, at, key = admitted[0].cluster_queue, admitted[0].admitted_at, admitted[0].workload
        flavors = tuple(a.flavor for a in admitted)
        finished = workload.condition("Finished")
        if finished is not None and finished.is_true and finished.since is not None:
            finishes.extend(Finished(cq, flavor, at, finished.since) for flavor in flavors)
        elif workload.holds_quota:
            holding[key] = (cq, flavors, at)


def _gone(
    seen: Seen, holding: dict[str, tuple[str, tuple[str, ...], datetime]], finishes: list[Finished], now: datetime
) -> Seen:
    """The finishes of those `seen` holding quota that hold none now (gone, or evicted: freed), added to
    `finishes`; and what to remember."""
    for key, (queue, held, since) in seen.holding.items():
        if key not in holding and not any(f.admitted_at == since and f.cluster_queue == queue for f in finishes):
            finishes.extend(Finished(queue, flavor, since, now) for flavor in held)
    return Seen(holding)


def bounded(
    history: History, now: datetime, *, retention: timedelta = RETENTION, per_queue: int = MAX_PER_QUEUE
) -> History:
    """At most `per_queue` of each per ClusterQueue, the most recent, none older than `retention`."""
    since = now - retention
    admissions: dict[str, list[Observed]] = {}
    for a in sorted(history.admissions, key=lambda a: a.admitted_at):
        if a.admitted_at >= since:
            admissions.setdefault(a.cluster_queue, []).append(a)
    finishes: dict[str, list[Finished]] = {}
    for f in sorted(history.finishes, key=lambda f: f.finished_at):
        if f.finished_at >= since:
            finishes.setdefault(f.cluster_queue, []).append(f)
    return History(
        tuple(a for items in admissions.values() for a in items[-per_queue:]),
        tuple(f for items in finishes.values() for f in items[-per_queue:]),
    )


def bounded_union(history: History, added: History, now: datetime) -> History:
    """`bounded(history.union(added), now)`."""
    return bounded(history.union(added), now)


class HistoryStore(Protocol):
    async def load(self) -> History: ...
    async def add(self, admissions: Sequence[Observed], finishes: Sequence[Finished], now: datetime) -> None:
        """Record these (idempotent), then forget what falls outside the bounds."""
        ...

    async def aclose(self) -> None: ...


class MemoryHistory:
    """A history kept in memory only (a store that has no database: it starts empty after a restart)."""

    def __init__(self) -> None:
        self._history = History()

    async def load(self) -> History:
        return self._history

    async def add(self, admissions: Sequence[Observed], finishes: Sequence[Finished], now: datetime) -> None:
        added = History(tuple(admissions), tuple(finishes))
        self._history = await asyncio.to_thread(bounded_union, self._history, added, now)

    async def aclose(self) -> None:
        return None


class SQLiteHistory:
    """The history in the state database (the `history` table of the store's schema, migration 4)."""

    def __init__(self, path: str | Path, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> None:
        self.path = str(path)
        self.busy_timeout = busy_timeout
        self._database = Database(self.path, busy_timeout)

    def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return self._database.run(work)

    async def load(self) -> History:
        def work(db: sqlite3.Connection) -> History:
            admissions: list[Observed] = []
            finishes: list[Finished] = []
            for kind, cq, flavor, uid, queued, admitted, finished, amount in db.execute(
                "SELECT kind, cluster_queue, flavor, uid, queued_at, admitted_at, finished_at, amount FROM history"
            ):
                if kind == "admitted":
                    admissions.append(
                        Observed(
                            cq,
                            flavor,
                            parse_time(queued),
                            parse_time(admitted),
                            Decimal(amount) if amount else None,
                            uid,
                        )
                    )
                else:
                    finishes.append(Finished(cq, flavor, parse_time(admitted), parse_time(finished)))
            return History(tuple(admissions), tuple(finishes))

        return await asyncio.to_thread(self._run, work)

    async def add(self, admissions: Sequence[Observed], finishes: Sequence[Finished], now: datetime) -> None:
        if not admissions and not finishes:
            return
        limit = format_time(now - RETENTION)

        def work(db: sqlite3.Connection) -> None:
            # The rows are made in the worker thread too: made on the loop, they held it.
            rows = [
                ("admitted", a.cluster_queue, a.flavor, a.workload, format_time(a.queued_at),
                 format_time(a.admitted_at), "", str(a.amount) if a.amount is not None else None)
                for a in admissions
            ] + [
                ("finished", f.cluster_queue, f.flavor, "", "", format_time(f.admitted_at),
                 format_time(f.finished_at), None)
                for f in finishes
            ]  # fmt: skip
            db.executemany(
                "INSERT OR IGNORE INTO history (kind, cluster_queue, flavor, uid, queued_at, admitted_at,"
                " finished_at, amount) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            db.execute("DELETE FROM history WHERE coalesce(nullif(finished_at, ''), admitted_at) < ?", (limit,))
            for kind, cq in {(row[0], row[1]) for row in rows}:
                db.execute(
                    "DELETE FROM history WHERE kind = ? AND cluster_queue = ? AND rowid NOT IN (SELECT rowid FROM"
                    " history WHERE kind = ? AND cluster_queue = ? ORDER BY coalesce(nullif(finished_at, ''),"
                    " admitted_at) DESC LIMIT ?)",
                    (kind, cq, kind, cq, MAX_PER_QUEUE),
                )

        await asyncio.to_thread(self._run, work)

    async def aclose(self) -> None:
        await self._database.aclose()


_Scanned = tuple[Sequence[Workload], tuple[Finished, ...], dict[str, tuple[str, tuple[str, ...], datetime]]]


@dataclass
class _Read:
    """What a pass read of the namespaces: per namespace its Workloads, finishes and holders (`_Scanned`); the
    admissions and finishes of those read anew; and who held quota at the last pass and no longer does."""

    scanned: dict[str, _Scanned] = field(default_factory=dict)
    admissions: list[Observed] = field(default_factory=list)
    finishes: list[Finished] = field(default_factory=list)
    went: list[tuple[str, tuple[str, tuple[str, ...], datetime]]] = field(default_factory=list)


class HistoryRecorder:
    """Keeps the history in memory for the engine (a pure value) and in its store for restarts."""

    def __init__(self, store: HistoryStore) -> None:
        self.store = store
        self.history = History()
        self._loaded = False
        self._known: tuple[History, set[object]] | None = None  # the records recorded, as a set
        # Per namespace: its Workloads as the last pass read them (the source hands out the same sequence while
        # none of them changed), their finishes and who of them held quota (one that no longer does, or is no
        # longer there, finished: `_gone`, read for the namespaces that changed only).
        self._scanned: dict[str, _Scanned] = {}

    async def load(self) -> History:
        self.history = await self.store.load()
        self._loaded = True
        return self.history

    async def observe(self, snapshot: Snapshot, namespaces: Iterable[str], now: datetime) -> int:
        """Record what changed since the last pass; returns how many new records it made."""
        if not self._loaded:
            await self.load()
        known = await self._known_records()
        found = await self._read(snapshot, namespaces, known)
        new_admissions, new_finishes = found.admissions, found.finishes
        if found.went:  # `_gone`: finished at this pass (unless this pass reads their Finished condition)
            finishes = [f for entry in found.scanned.values() for f in entry[1]]
            read = len(finishes)
            _gone(Seen(dict(found.went)), {}, finishes, now)
            new_finishes += [f for f in finishes[read:] if f not in known]
        if new_admissions or new_finishes:
            await self._record(new_admissions, new_finishes, known, now)
        self._scanned = found.scanned  # (namespaces no longer listed let go)
        return len(new_admissions) + len(new_finishes)

    async def _read(self, snapshot: Snapshot, namespaces: Iterable[str], known: set[object]) -> _Read:
        """A namespace at a time, the loop let run after each one read; one whose Workloads are the sequence the
        last pass read is not read again (what it showed is recorded). The admissions and finishes read are
        those not `known` yet, looked up a namespace at a time too (each lookup hashes a record anew)."""
        scan = _Read()
        for namespace in list(namespaces):
            workloads = snapshot.workloads_in(namespace)
            last = self._scanned.get(namespace)
            if last is not None and last[0] is workloads:
                scan.scanned[namespace] = last
                continue
            found: list[Observed] = []
            ended: list[Finished] = []
            held: dict[str, tuple[str, tuple[str, ...], datetime]] = {}
            _scan(workloads, found, ended, held)
            scan.scanned[namespace] = (workloads, tuple(ended), held)
            scan.admissions += [a for a in found if a not in known]
            scan.finishes += [f for f in ended if f not in known]
            if last is not None:
                scan.went += [(key, value) for key, value in last[2].items() if key not in held]
            await asyncio.sleep(0)
        for namespace, last in self._scanned.items():
            if namespace not in scan.scanned:  # no longer listed: every one of it that held quota went
                scan.went += last[2].items()
        return scan

    async def _record(
        self, admissions: list[Observed], finishes: list[Finished], known: set[object], now: datetime
    ) -> None:
        """The new records in the store (raises: the next pass reads them again), then in memory."""
        await self.store.add(admissions, finishes, now)
        added = History(tuple(admissions), tuple(finishes))
        # in worker threads (pure, of immutable values; `known` is this recorder's alone), the loop let run
        await asyncio.to_thread(known.update, (*added.admissions, *added.finishes))
        self.history = await asyncio.to_thread(bounded_union, self.history, added, now)
        self._known = (self.history, known)

    async def _known_records(self) -> set[object]:
        """Every record recorded: the history's, and those this recorder added since (kept up to date, not
        hashed again each pass; made anew from the history, in a worker thread, when that was loaded, or once
        those the bounds let go outnumber it)."""
        history = self.history
        records = len(history.admissions) + len(history.finishes)
        if self._known is None or self._known[0] is not history or len(self._known[1]) > 2 * records + 10_000:
            self._known = (history, await asyncio.to_thread(set, (*history.admissions, *history.finishes)))
        return self._known[1]
