"""Persistence of the notification state: the `StateStore` port and its SQLite implementation.

    store = open_store(settings.state_url, kubernetes=lambda: ConfigMapStore(kube, settings.pod_namespace))
    state = await store.load()
    if await store.subscribe(Subscription("U123", "team-a", "train", "Job", now)): ...
    told = Told(key, target, verdict, position, headline, eta)
    await store.record_intent(told, now)                 # before chat.postMessage
    await store.record_sent(told, channel, ts, now)      # Slack confirmed it
    await store.aclose()

Every method is a coroutine; a store that cannot do its work raises StoreUnavailable (and changed nothing).

Fencing: the notifier's writes carry a `Fence` (the leader's identity and its tenure's token). A store
remembers the largest token it has seen and refuses (bot.errors.Fenced, nothing changed) a write with a
smaller one, or with the same token from another holder: a leader that was frozen past its lease and
resumed cannot write over its successor's state. Writes without a fence (a user's own click) are not fenced.
Two implementations: `SQLiteStore` here (one replica, a file on a volume) and `ConfigMapStore` in
bot.kube.configmap_store (several replicas; the composition root hands it to `open_store` as a factory,
since bot.notify may not import bot.kube, which imports `kubernetes`).

SQLite: stdlib sqlite3 in WAL mode with synchronous=FULL (a committed change survives a power cut), one
connection used by one worker thread at a time (a lock), one transaction per call, `BEGIN IMMEDIATE` for
writes so that a busy database waits (busy_timeout) instead of deadlocking; while other writers keep
committing the write waits again (bounded, BUSY_ROUNDS), and a lock held with no progress fails clearly. The schema
is versioned: `schema_version` holds the number of MIGRATIONS applied; each migration runs in its own
transaction; a database newer than this code is refused rather than touched.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from bot.errors import ConfigError, StoreUnavailable
from bot.notify.loaded import Loaded, Touch, read_again, read_all
from bot.notify.sqlite import BUSY_ROUNDS as BUSY_ROUNDS
from bot.notify.sqlite import DEFAULT_BUSY_TIMEOUT as DEFAULT_BUSY_TIMEOUT
from bot.notify.sqlite import MIGRATIONS as MIGRATIONS
from bot.notify.sqlite import FileWatch, cannot_keep_writes, connect, unavailable
from bot.notify.sqlite import check_fence as check_fence
from bot.notify.sqlite import migrate as migrate
from bot.notify.sqlite import schema_version as schema_version
from bot.notify.state import Fence, State, Subscription, Told, format_time

log = logging.getLogger(__name__)

T = TypeVar("T")


class StateStore(Protocol):
    """Where the notification state lives. Identities: a subscription is (user, namespace, name), a delivery
    (key, target), a snooze (user, key), a mute (user). Writes are idempotent."""

    async def load(self) -> State:
        """Everything, as one consistent snapshot."""
        ...

    async def subscribe(self, subscription: Subscription) -> bool:
        """Add a subscription; False (and nothing changed) when the user already watches that job."""
        ...

    async def unsubscribe(self, user: str, namespace: str, name: str, *, fence: Fence | None = None) -> bool:
        """False when there was no such subscription."""
        ...

    async def record_intent(
        self, told: Told, now: datetime, *, replace: bool = False, fence: Fence | None = None
    ) -> bool:
        """Before sending a new message: the delivery (key, target) becomes open and unconfirmed (ts None,
        channel ""), replacing a closed one (or, with `replace`, an unconfirmed one: a reconciliation).
        False, and nothing changed, when an open delivery is there already: someone sent it (or is sending
        it) since the caller looked, so the caller must not send."""
        ...

    async def record_sent(
        self, told: Told, channel: str, ts: str, now: datetime, *, fence: Fence | None = None
    ) -> None:
        """Slack confirmed the message (channel, ts): the delivery is open and confirmed, as `told` says. Works
        without an intent too."""
        ...

    async def record_update(self, told: Told, now: datetime, *, fence: Fence | None = None) -> bool:
        """The message was edited in place (its verdict, position, headline and ETA); False when there is no
        such delivery."""
        ...

    async def close(self, key: str, target: str, now: datetime, *, fence: Fence | None = None) -> bool:
        """The workload was admitted or went away and its message says so: the delivery is closed (kept for
        retention). False when there is no such delivery or it was closed already."""
        ...

    async def forget_closed(self, before: datetime, *, fence: Fence | None = None) -> int:
        """Retention: forget the deliveries closed before `before` (and the snoozes that ended before it).
        Returns how many deliveries were forgotten."""
        ...

    async def snooze(self, user: str, key: str, until: datetime) -> None:
        """No notification about `key` ("*": any) to `user` until `until` (replaces an earlier snooze)."""
        ...

    async def unsnooze(self, user: str, key: str) -> bool: ...

    async def mute(self, user: str, now: datetime) -> bool:
        """False when the user was muted already (the first `since` is kept)."""
        ...

    async def unmute(self, user: str) -> bool: ...

    async def aclose(self) -> None:
        """Release the store's resources; it is not usable afterwards. (Not `close`: that closes a delivery.)"""
        ...


def open_store(
    state_url: str,
    *,
    kubernetes: Callable[[], StateStore] | None = None,
    busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
) -> StateStore:
    """The store a STATE_URL names: "sqlite:///relative/path", "sqlite:////absolute/path", or
    "kubernetes://" (made by the `kubernetes` factory the composition root provides). Raises ConfigError."""
    if state_url.startswith("sqlite:///"):
        path = state_url.removeprefix("sqlite:///")
        if not path or path.endswith("/"):
            raise ConfigError(f"STATE_URL: {state_url!r} names no database file (sqlite:///PATH)")
        return SQLiteStore(path, busy_timeout=busy_timeout)
    if state_url.rstrip("/") == "kubernetes:":
        if kubernetes is None:
            raise ConfigError("STATE_URL: kubernetes:// needs a Kubernetes client, and none was configured")
        return kubernetes()
    raise ConfigError(f"STATE_URL: {state_url!r} is neither sqlite:///PATH nor kubernetes://")


def _told_row(t: Told) -> tuple[str, str, str, int | None, str, str]:
    return (t.key, t.target, t.verdict, t.position, t.headline, t.eta)


def _time_or_none(moment: datetime | None) -> str | None:
    return format_time(moment) if moment is not None else None


class SQLiteStore:
    """The state in a SQLite file. The connection opens (and migrates) on first use, in a worker thread.

    max_bytes caps the database's size (PRAGMA max_page_count): past it a write fails as a full disk would.
    """

    def __init__(
        self, path: str | Path, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT, max_bytes: int | None = None
    ) -> None:
        self.path = str(path)
        self.busy_timeout = busy_timeout
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._closed = False
        self._file = FileWatch(self.path)  # the file opened, to notice it deleted or replaced under us
        self._write_failure: str | None = None  # the last write's lasting failure (full disk...), for readiness
        self._loaded: Loaded | None = None  # the last State loaded, and what this connection wrote since

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"

    # -- plumbing ------------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        return connect(self.path, self.busy_timeout, max_bytes=self.max_bytes)

    def _run(
        self, work: Callable[[sqlite3.Connection], T], *, write: bool, fence: Fence | None = None, touch: Touch | None
    ) -> T:
        """In a worker thread: `work` in one transaction, with the connection to ourselves (after the fence
        check, in the same transaction, for a fenced write).

        A database busy for a whole busy_timeout is retried (up to BUSY_ROUNDS rounds) when other writers
        committed meanwhile: that is contention, and SQLite's busy wait (it sleeps between tries) can lose every
        race against a writer that commits back to back. A lock held with no commit for busy_timeout fails."""
        with self._lock:
            if self._closed:
                raise StoreUnavailable(f"the state database {self.path} is closed")
            rounds = 0
            while True:
                rounds += 1
                progress = self._progress()
                try:
                    result = self._attempt(work, write=write, fence=fence, touch=touch)
                except (sqlite3.ProgrammingError, sqlite3.IntegrityError):
                    raise  # our bugs, not the database's state
                except sqlite3.DatabaseError as error:  # locked, full, unreadable, corrupt...
                    busy = getattr(error, "sqlite_errorname", "").startswith("SQLITE_BUSY")
                    if busy and rounds < BUSY_ROUNDS and self._progress() != progress:
                        log.info("state database busy, others progress: waiting again", extra={"round": rounds})
                        continue
                    failure = unavailable(error, self.path, self.busy_timeout)
                    if write and cannot_keep_writes(error):
                        self._write_failure = str(failure)
                    raise failure from error
                if write:
                    self._write_failure = None
                return result

    def _attempt(
        self, work: Callable[[sqlite3.Connection], T], *, write: bool, fence: Fence | None, touch: Touch | None
    ) -> T:
        if self._db is None:
            self._db = self._connect()
            self._file.opening()
        self._file.check()
        db = self._db
        changes = db.total_changes
        db.execute("BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")
        try:
            if fence is not None:
                row = db.execute("SELECT holder, token FROM fence WHERE id = 1").fetchone()
                check_fence((row[0], int(row[1])) if row else None, fence, f"the state database {self.path}")
                db.execute(
                    "INSERT OR REPLACE INTO fence (id, holder, token) VALUES (1, ?, ?)",
                    (fence.holder, fence.token),
                )
            result = work(db)
            db.execute("COMMIT")
            if self._loaded is not None and db.total_changes != changes:  # our writes leave data_version as it is
                if touch is None:
                    self._loaded = None
                else:
                    self._loaded.note(touch)
        except BaseException:
            if db.in_transaction:
                db.rollback()
            raise
        return result

    def _progress(self) -> tuple[tuple[int, int] | None, ...]:
        """What changes when any connection commits (WAL: the -wal file grows or restarts; a checkpoint
        writes the database file), read without a connection so that it works before one is open."""
        marks: list[tuple[int, int] | None] = []
        for name in (self.path, self.path + "-wal"):
            try:
                st = Path(name).stat()
            except OSError:
                marks.append(None)
            else:
                marks.append((st.st_size, st.st_mtime_ns))
        return tuple(marks)

    async def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.to_thread(self._run, work, write=False, touch=Touch())

    async def _write(
        self, work: Callable[[sqlite3.Connection], T], fence: Fence | None = None, *, touch: Touch | None
    ) -> T:
        """`touch`: what the write may change of the State (None: anything, the next load reads all)."""
        return await asyncio.to_thread(self._run, work, write=True, fence=fence, touch=touch)

    # -- the port ------------------------------------------------------------------------------------

    async def load(self) -> State:
        def work(db: sqlite3.Connection) -> State:
            version = int(db.execute("PRAGMA data_version").fetchone()[0])
            loaded = self._loaded
            if loaded is not None and loaded.version == version and not loaded.written:
                return loaded.state
            # what this connection wrote read again; everything when another connection committed
            state = read_again(db, loaded) if loaded is not None and loaded.version == version else read_all(db)
            self._loaded = Loaded(version, state)
            return state

        return await self._read(work)

    async def subscribe(self, subscription: Subscription) -> bool:
        s = subscription
        row = (s.user, s.namespace, s.name, s.kind, format_time(s.created))
        return await self._write(
            lambda db: (
                db.execute(
                    "INSERT OR IGNORE INTO subscriptions (user, namespace, name, kind, created) VALUES (?, ?, ?, ?, ?)",
                    row,
                ).rowcount
                == 1
            ),
            touch=Touch(tables=("subscriptions",)),
        )

    async def unsubscribe(self, user: str, namespace: str, name: str, *, fence: Fence | None = None) -> bool:
        return await self._write(
            lambda db: (
                db.execute(
                    "DELETE FROM subscriptions WHERE user = ? AND namespace = ? AND name = ?", (user, namespace, name)
                ).rowcount
                > 0
            ),
            fence,
            touch=Touch(tables=("subscriptions",)),
        )

    async def record_intent(
        self, told: Told, now: datetime, *, replace: bool = False, fence: Fence | None = None
    ) -> bool:
        t = told

        def work(db: sqlite3.Connection) -> bool:
            row = db.execute(
                "SELECT ts, closed_at FROM deliveries WHERE key = ? AND target = ?", (t.key, t.target)
            ).fetchone()
            if row is not None and row["closed_at"] is None and (row["ts"] is not None or not replace):
                return False
            db.execute(
                "INSERT OR REPLACE INTO deliveries (key, target, channel, ts, verdict, position, headline, eta,"
                " sent_at, updated_at, closed_at, digest, job, since)"
                " VALUES (?, ?, '', NULL, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
                (*_told_row(t), format_time(now), format_time(now), int(t.digest), t.job, _time_or_none(t.since)),
            )
            return True

        return await self._write(work, fence, touch=Touch(deliveries=((t.key, t.target),)))

    async def record_sent(
        self, told: Told, channel: str, ts: str, now: datetime, *, fence: Fence | None = None
    ) -> None:
        t, at = told, format_time(now)
        await self._write(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO deliveries (key, target, verdict, position, headline, eta, channel, ts,"
                " sent_at, updated_at, closed_at, digest, job, since)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
                (*_told_row(t), channel, ts, at, at, int(t.digest), t.job, _time_or_none(t.since)),
            ),
            fence,
            touch=Touch(deliveries=((t.key, t.target),)),
        )

    async def record_update(self, told: Told, now: datetime, *, fence: Fence | None = None) -> bool:
        t, at = told, format_time(now)
        return await self._write(
            lambda db: (
                db.execute(
                    "UPDATE deliveries SET verdict = ?, position = ?, headline = ?, eta = ?, updated_at = ?"
                    " WHERE key = ? AND target = ?",
                    (t.verdict, t.position, t.headline, t.eta, at, t.key, t.target),
                ).rowcount
                > 0
            ),
            fence,
            touch=Touch(deliveries=((t.key, t.target),)),
        )

    async def close(self, key: str, target: str, now: datetime, *, fence: Fence | None = None) -> bool:
        at = format_time(now)
        return await self._write(
            lambda db: (
                db.execute(
                    "UPDATE deliveries SET closed_at = ? WHERE key = ? AND target = ? AND closed_at IS NULL",
                    (at, key, target),
                ).rowcount
                > 0
            ),
            fence,
            touch=Touch(deliveries=((key, target),)),
        )

    async def forget_closed(self, before: datetime, *, fence: Fence | None = None) -> int:
        limit = format_time(before)

        def work(db: sqlite3.Connection) -> int:
            db.execute("DELETE FROM snoozes WHERE until < ?", (limit,))
            return db.execute("DELETE FROM deliveries WHERE closed_at IS NOT NULL AND closed_at < ?", (limit,)).rowcount

        return await self._write(work, fence, touch=Touch(forgotten_before=before))

    async def snooze(self, user: str, key: str, until: datetime) -> None:
        row = (user, key, format_time(until))
        await self._write(
            lambda db: db.execute("INSERT OR REPLACE INTO snoozes (user, key, until) VALUES (?, ?, ?)", row),
            touch=Touch(tables=("snoozes",)),
        )

    async def unsnooze(self, user: str, key: str) -> bool:
        return await self._write(
            lambda db: db.execute("DELETE FROM snoozes WHERE user = ? AND key = ?", (user, key)).rowcount > 0,
            touch=Touch(tables=("snoozes",)),
        )

    async def mute(self, user: str, now: datetime) -> bool:
        row = (user, format_time(now))
        return await self._write(
            lambda db: db.execute("INSERT OR IGNORE INTO mutes (user, since) VALUES (?, ?)", row).rowcount == 1,
            touch=Touch(tables=("mutes",)),
        )

    async def unmute(self, user: str) -> bool:
        return await self._write(
            lambda db: db.execute("DELETE FROM mutes WHERE user = ?", (user,)).rowcount > 0,
            touch=Touch(tables=("mutes",)),
        )

    # -- requests already seen (replay protection of Slack's deliveries; see bot.slack.gate) ------------
    # A table outside the versioned schema: it holds only keys that expire within minutes, nothing that a
    # downgrade or a restore must keep.

    async def remember_request(self, key: str, now: datetime, until: datetime) -> bool:
        """Remember `key` until `until`; False when it is already remembered (a replay). Expired keys go."""

        def work(db: sqlite3.Connection) -> bool:
            db.execute("CREATE TABLE IF NOT EXISTS seen_requests (key TEXT NOT NULL PRIMARY KEY, until TEXT NOT NULL)")
            db.execute("DELETE FROM seen_requests WHERE until < ?", (format_time(now),))
            row = (key, format_time(until))
            return db.execute("INSERT OR IGNORE INTO seen_requests (key, until) VALUES (?, ?)", row).rowcount == 1

        return await self._write(work, touch=Touch())  # nothing of the State

    async def ping(self) -> None:
        """Raise StoreUnavailable unless the database can be read now and its file is still the one opened, nor
        did the last write fail for good (a full disk...): readiness."""
        await self._read(lambda db: db.execute("SELECT version FROM schema_version").fetchone())
        if self._write_failure is not None:
            raise StoreUnavailable(self._write_failure)

    async def aclose(self) -> None:
        await asyncio.to_thread(self._close)

    def _close(self) -> None:
        with self._lock:
            self._closed = True
            if self._db is not None:
                self._db.close()
                self._db = None


if TYPE_CHECKING:

    def _conforms(store: SQLiteStore) -> StateStore:  # mypy checks that SQLiteStore is a StateStore
        return store
