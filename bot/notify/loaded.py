"""The SQLite store's last loaded State, kept with what this connection wrote since (bot.notify.store).

A load returns it again while no other connection committed (SQLite's data_version did not move); after this
connection's own writes it reads again only what they touched: the deliveries they name (a watcher pass that
told 30 people reads 30 rows, not every delivery), the small tables whole, and drops in memory the closed
deliveries a housekeeping write forgot (the same condition as its DELETE: text order is time order). Another
connection's commit, or a write that says nothing of what it touched, reads everything again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from bot.notify.state import Delivery, Mute, Snooze, State, Subscription, parse_time

SMALL_TABLES = ("subscriptions", "snoozes", "mutes")


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
    return State.of(
        _subscriptions(db), map(delivery_of, db.execute("SELECT * FROM deliveries")), _snoozes(db), _mutes(db)
    )


def read_again(db: sqlite3.Connection, loaded: Loaded) -> State:
    """The loaded State with what this connection wrote since read again."""
    state = loaded.state
    deliveries: Iterable[Delivery] = state.deliveries
    if loaded.deliveries or loaded.forgotten_before is not None:
        by_id = {(d.key, d.target): d for d in state.deliveries}
        before = loaded.forgotten_before
        if before is not None:
            by_id = {i: d for i, d in by_id.items() if d.closed_at is None or d.closed_at >= before}
        for ident in loaded.deliveries:
            row = db.execute("SELECT * FROM deliveries WHERE key = ? AND target = ?", ident).fetchone()
            if row is None:
                by_id.pop(ident, None)
            else:
                by_id[ident] = delivery_of(row)
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


def delivery_of(row: sqlite3.Row) -> Delivery:
    return Delivery(
        key=row["key"],
        target=row["target"],
        channel=row["channel"],
        ts=row["ts"],
        verdict=row["verdict"],
        position=row["position"],
        headline=row["headline"],
        sent_at=parse_time(row["sent_at"]),
        updated_at=parse_time(row["updated_at"]),
        closed_at=parse_time(row["closed_at"]) if row["closed_at"] is not None else None,
        digest=bool(row["digest"]),
        job=row["job"],
        since=parse_time(row["since"]) if row["since"] is not None else None,
        eta=row["eta"],
    )


def _subscriptions(db: sqlite3.Connection) -> Iterable[Subscription]:
    return map(subscription_of, db.execute("SELECT * FROM subscriptions"))


def _snoozes(db: sqlite3.Connection) -> Iterable[Snooze]:
    return (Snooze(r["user"], r["key"], parse_time(r["until"])) for r in db.execute("SELECT * FROM snoozes"))


def _mutes(db: sqlite3.Connection) -> Iterable[Mute]:
    return (Mute(r["user"], parse_time(r["since"])) for r in db.execute("SELECT * FROM mutes"))
