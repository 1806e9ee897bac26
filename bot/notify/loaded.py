"""The SQLite store's last loaded State, kept with what this connection wrote since (bot.notify.store).

A load returns it again while no other connection committed (SQLite's data_version did not move); after this
connection's own writes it reads again only what they touched: the deliveries they name (a watcher pass that
told 30 people reads 30 rows, not every delivery), the small tables whole, and drops in memory the closed
deliveries a housekeeping write forgot (the same condition as its DELETE: text order is time order). Another
connection's commit, or a write that says nothing of what it touched, reads everything again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.notify.state import Delivery, Mute, Snooze, State, Subscription, parse_time

# In the order of Delivery's fields.
DELIVERIES = "SELECT key, target, channel, ts, verdict, position, headline, sent_at, updated_at, closed_at, digest,"
DELIVERIES += " job, since, eta FROM deliveries"
REREAD_ROWS = 1024  # deliveries written since the last load read again one by one, up to an eighth of them


@dataclass(frozen=True)
class Touch:
    """What one write may have changed of the State."""

    deliveries: tuple[tuple[str, str], ...] = ()  # (key, target) of each delivery written
    tables: tuple[str, ...] = ()  # small tables written (read again whole)
    forgotten_before: datetime | None = None  # closed deliveries before this moment deleted


@dataclass
class Loaded:
    version: int  # the database's data_version when it was read
    state: State
    deliveries: set[tuple[str, str]] = field(default_factory=set)
    tables: set[str] = field(default_factory=set)
    forgotten_before: datetime | None = None

    def note(self, touch: Touch) -> None:
        self.deliveries.update(touch.deliveries)
        self.tables.update(touch.tables)
        if touch.forgotten_before is not None and (
            self.forgotten_before is None or touch.forgotten_before > self.forgotten_before
        ):
            self.forgotten_before = touch.forgotten_before

    @property
    def written(self) -> bool:
        return bool(self.deliveries or self.tables or self.forgotten_before is not None)


def read_all(db: sqlite3.Connection) -> State:
    decode = Decoder()
    rows = db.execute(DELIVERIES)
    return State.of(_subscriptions(db), map(decode.delivery, rows), _snoozes(db), _mutes(db))


def read_again(db: sqlite3.Connection, loaded: Loaded) -> State:
    """The loaded State with what this connection wrote since read again."""
    state = loaded.state
    deliveries: Iterable[Delivery] = state.deliveries
    if len(loaded.deliveries) > max(REREAD_ROWS, len(state.deliveries) // 8):
        return read_all(db)  # most of them: one scan costs less than a lookup each
    if loaded.deliveries or loaded.forgotten_before is not None:
        decode = Decoder()
        by_id = {(d.key, d.target): d for d in state.deliveries}
        before = loaded.forgotten_before
        if before is not None:
            by_id = {i: d for i, d in by_id.items() if d.closed_at is None or d.closed_at >= before}
        for ident in loaded.deliveries:
            row = db.execute(DELIVERIES + " WHERE key = ? AND target = ?", ident).fetchone()
            if row is None:
                by_id.pop(ident, None)
            else:
                by_id[ident] = decode.delivery(row)
        deliveries = by_id.values()
    tables = loaded.tables
    return State.of(
        _subscriptions(db) if "subscriptions" in tables else state.subscriptions,
        deliveries,
        _snoozes(db) if "snoozes" in tables or loaded.forgotten_before is not None else state.snoozes,
        _mutes(db) if "mutes" in tables else state.mutes,
    )


def subscription_of(row: sqlite3.Row) -> Subscription:
    return Subscription(row["user"], row["namespace"], row["name"], row["kind"], parse_time(row["created"]))


class Decoder:
    """Rows into records; each distinct time text parsed once (the deliveries of one pass share theirs)."""

    def __init__(self) -> None:
        self._times: dict[str, datetime] = {}

    def time(self, text: str) -> datetime:
        moment = self._times.get(text)
        if moment is None:
            moment = self._times[text] = parse_time(text)
        return moment

    def delivery(self, row: Sequence[Any]) -> Delivery:
        """A row of DELIVERIES."""
        key, target, channel, ts, verdict, position, headline, sent, updated, closed_at, digest, job, since, eta = row
        return Delivery(
            key, target, channel, ts, verdict, position, headline, self.time(sent), self.time(updated),
            self.time(closed_at) if closed_at is not None else None, bool(digest), job,
            self.time(since) if since is not None else None, eta,
        )  # fmt: skip


def _subscriptions(db: sqlite3.Connection) -> Iterable[Subscription]:
    return map(subscription_of, db.execute("SELECT * FROM subscriptions"))


def _snoozes(db: sqlite3.Connection) -> Iterable[Snooze]:
    return (Snooze(r["user"], r["key"], parse_time(r["until"])) for r in db.execute("SELECT * FROM snoozes"))


def _mutes(db: sqlite3.Connection) -> Iterable[Mute]:
    return (Mute(r["user"], parse_time(r["since"])) for r in db.execute("SELECT * FROM mutes"))
