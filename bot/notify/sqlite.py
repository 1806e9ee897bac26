"""The state database's SQLite plumbing, one place for the store, the queue history and the admins' digests:
`connect` (WAL with synchronous=FULL: a committed change survives a power cut; the busy timeout; migrated), the
schema's migrations (`schema_version` holds how many of MIGRATIONS ran; each runs in its own transaction; a
database newer than this code is refused rather than touched), the fence check, and a database error in words."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bot.errors import Fenced, StoreUnavailable
from bot.notify.state import Fence

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_BUSY_TIMEOUT = 5.0  # seconds a write waits for a writer that commits nothing before StoreUnavailable
BUSY_ROUNDS = 12  # busy_timeouts a write waits at most while other writers keep committing


def connect(path: str, busy_timeout: float, *, max_bytes: int | None = None) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are the caller's: BEGIN IMMEDIATE to write), rows as
    sqlite3.Row, WAL and synchronous=FULL, the busy timeout, the size cap (PRAGMA max_page_count), migrated."""
    db = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    try:
        db.row_factory = sqlite3.Row
        db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        mode = _wal(db, busy_timeout)
        if str(mode).lower() != "wal":
            log.warning("state database not in WAL mode", extra={"path": path, "journal_mode": mode})
        db.execute("PRAGMA synchronous = FULL")
        if max_bytes is not None:
            page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
            db.execute(f"PRAGMA max_page_count = {max(1, max_bytes // page_size)}")
        migrate(db)
    except BaseException:
        db.close()
        raise
    return db


def _wal(db: sqlite3.Connection, busy_timeout: float) -> str:
    """Switch to WAL; returns the journal mode now. Connections switching a new database at once each hold a
    shared lock and want the exclusive one: SQLite breaks that deadlock by refusing all but one at once, with
    no busy wait ("database is locked"), so a refused one tries again until the busy timeout is spent."""
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            return str(db.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as error:
            busy = getattr(error, "sqlite_errorname", "").startswith("SQLITE_BUSY")
            if not busy or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


# -------------------------------------------------------------------------------------------------
# Schema migrations: MIGRATIONS[i] takes the schema from version i to i + 1. Append only; never edit one
# that has shipped.


def _v1_tables(db: sqlite3.Connection) -> None:
    db.execute(
        """CREATE TABLE subscriptions (
            user TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL, kind TEXT, created TEXT NOT NULL,
            PRIMARY KEY (user, namespace, name))"""
    )
    db.execute(
        """CREATE TABLE deliveries (
            key TEXT NOT NULL, target TEXT NOT NULL, channel TEXT NOT NULL, ts TEXT, verdict TEXT NOT NULL,
            position INTEGER, headline TEXT NOT NULL, sent_at TEXT NOT NULL, updated_at TEXT NOT NULL,
            closed_at TEXT, digest INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (key, target))"""
    )
    db.execute(
        "CREATE TABLE snoozes (user TEXT NOT NULL, key TEXT NOT NULL, until TEXT NOT NULL, PRIMARY KEY (user, key))"
    )
    db.execute("CREATE TABLE mutes (user TEXT NOT NULL PRIMARY KEY, since TEXT NOT NULL)")


def _v2_indexes(db: sqlite3.Connection) -> None:
    """Retention and "who watches this job" without full scans."""
    db.execute("CREATE INDEX deliveries_closed_at ON deliveries (closed_at) WHERE closed_at IS NOT NULL")
    db.execute("CREATE INDEX subscriptions_job ON subscriptions (namespace, name)")


def _v3_fencing(db: sqlite3.Connection) -> None:
    """The job a delivery is about and when its wait began (closing texts), and the fencing token."""
    db.execute("ALTER TABLE deliveries ADD COLUMN job TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE deliveries ADD COLUMN since TEXT")
    db.execute(
        "CREATE TABLE fence (id INTEGER PRIMARY KEY CHECK (id = 1), holder TEXT NOT NULL, token INTEGER NOT NULL)"
    )


def _v4_history(db: sqlite3.Connection) -> None:
    """The admissions and finishes the bot observed (bot.notify.history: what the ETA rests on)."""
    db.execute(
        """CREATE TABLE history (
            kind TEXT NOT NULL, cluster_queue TEXT NOT NULL, flavor TEXT NOT NULL, uid TEXT NOT NULL,
            queued_at TEXT NOT NULL, admitted_at TEXT NOT NULL, finished_at TEXT NOT NULL, amount TEXT,
            PRIMARY KEY (kind, cluster_queue, flavor, uid, admitted_at, finished_at))"""
    )


def _v5_admin_digests(db: sqlite3.Connection) -> None:
    """The admins' digest posted to each target, and what it said (bot.notify.admin_digest: edited in place,
    never posted again when nothing changed, across restarts)."""
    db.execute(
        """CREATE TABLE admin_digests (
            target TEXT NOT NULL PRIMARY KEY, channel TEXT NOT NULL, ts TEXT NOT NULL, fingerprint TEXT NOT NULL,
            posted_at TEXT NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID"""
    )


def _v6_eta(db: sqlite3.Connection) -> None:
    """The ETA's mark of a delivery in a column of its own (it was kept inside the headline: "key|eta=mark")."""
    db.execute("ALTER TABLE deliveries ADD COLUMN eta TEXT NOT NULL DEFAULT ''")
    db.execute(
        "UPDATE deliveries SET eta = substr(headline, instr(headline, '|eta=') + 5),"
        " headline = substr(headline, 1, instr(headline, '|eta=') - 1) WHERE instr(headline, '|eta=') > 0"
    )


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _v1_tables,
    _v2_indexes,
    _v3_fencing,
    _v4_history,
    _v5_admin_digests,
    _v6_eta,
)


def check_fence(seen: tuple[str, int] | None, fence: Fence, where: str) -> None:
    """Raise Fenced when `fence` is older than the (holder, token) a store saw last."""
    if seen is None:
        return
    holder, token = seen
    if token > fence.token or (token == fence.token and holder != fence.holder):
        raise Fenced(
            f"{where}: this replica ({fence.holder}, lease token {fence.token}) no longer leads; "
            f"{holder} (token {token}) wrote since: the write was refused"
        )


def schema_version(db: sqlite3.Connection) -> int:
    """The number of migrations applied (0: a new database)."""
    exists = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone()
    if not exists:
        return 0
    row = db.execute("SELECT version FROM schema_version WHERE id = 1").fetchone()
    return int(row[0]) if row else 0


def migrate(db: sqlite3.Connection, *, upto: int | None = None) -> int:
    """Apply the pending migrations (up to version `upto`, default all), each in its own transaction, on a
    connection in autocommit mode (isolation_level=None). Returns the version reached. Raises
    StoreUnavailable for a database newer than this code."""
    target = len(MIGRATIONS) if upto is None else upto
    while True:
        db.execute("BEGIN IMMEDIATE")  # re-read under the write lock: two processes may start together
        try:
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER)"
            )
            version = schema_version(db)
            if version > len(MIGRATIONS):
                raise StoreUnavailable(
                    f"the state database is at schema version {version}, newer than this bot knows "
                    f"({len(MIGRATIONS)}); refusing to use it (was the bot downgraded?)"
                )
            if version >= target:
                db.execute("COMMIT")
                return version
            MIGRATIONS[version](db)
            db.execute("INSERT OR REPLACE INTO schema_version (id, version) VALUES (1, ?)", (version + 1,))
            db.execute("COMMIT")
            log.info("state database migrated", extra={"schema_version": version + 1})
        except BaseException:
            if db.in_transaction:
                db.rollback()
            raise


# -------------------------------------------------------------------------------------------------
# The file itself: deleted or replaced under an open connection, SQLite goes on writing to the old inode, and
# every write would be lost at the next start. A connection remembers which file it opened and refuses to go on
# once the path names another file, or none.


def file_identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`; None when there is none."""
    try:
        st = Path(path).stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


class FileWatch:
    """Which file a connection opened, and whether `path` still names it. Once lost, lost for good: the state
    is in a file nobody will read again, and a restart (on a new file) must look in Slack for what was sent."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.opened: tuple[int, int] | None = None
        self.lost: str | None = None

    def opening(self) -> None:
        self.opened = file_identity(self.path)

    def check(self) -> None:
        """StoreUnavailable when the file was deleted or replaced since it was opened."""
        if self.lost is None and self.opened is not None and file_identity(self.path) != self.opened:
            self.lost = (
                f"the state database {self.path} was deleted or replaced while the bot ran: nothing more is "
                "written or confirmed; restart the bot (it then looks in Slack for the DMs it already sent)"
            )
            log.error("the state database file was deleted or replaced", extra={"path": self.path})
        if self.lost is not None:
            raise StoreUnavailable(self.lost)


def cannot_keep_writes(error: sqlite3.Error) -> bool:
    """A write error that says the store cannot keep what it is given (full, read-only, I/O): readiness fails
    until a write succeeds again."""
    name = getattr(error, "sqlite_errorname", "")
    return name == "SQLITE_FULL" or name.startswith(("SQLITE_READONLY", "SQLITE_IOERR")) or "full" in str(error)


def unavailable(error: sqlite3.Error, path: str, busy_timeout: float) -> StoreUnavailable:
    name = getattr(error, "sqlite_errorname", "")
    text = str(error)
    if name.startswith("SQLITE_BUSY") or name.startswith("SQLITE_LOCKED") or "locked" in text:
        why = f"is locked by another process (waited {busy_timeout:g} s)"
    elif name == "SQLITE_FULL" or "full" in text:
        why = "is full (no space left on the disk, or the size limit reached)"
    elif name.startswith("SQLITE_CANTOPEN"):
        why = "cannot be opened (does its directory exist, and may the bot write there?)"
    elif name.startswith("SQLITE_READONLY"):
        why = "is read-only"
    else:
        why = f"failed: {text}"
    return StoreUnavailable(f"the state database {path} {why}")


class Database:
    """One connection to the state database for a table's keeper (the queue history, the admins' digests):
    opened on first use, one worker thread at a time (a lock), each call one `BEGIN IMMEDIATE` transaction; a
    database error becomes StoreUnavailable."""

    def __init__(self, path: str, busy_timeout: float) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._file = FileWatch(path)

    def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Blocking: call it from a worker thread."""
        with self._lock:
            try:
                if self._db is None:
                    self._db = connect(self.path, self.busy_timeout)
                    self._file.opening()
                self._file.check()
                db = self._db
                db.execute("BEGIN IMMEDIATE")
                try:
                    result = work(db)
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:
                        db.rollback()
                    raise
                return result
            except sqlite3.DatabaseError as error:
                raise StoreUnavailable(f"the state database {self.path} failed: {error}") from error

    async def aclose(self) -> None:
        def close() -> None:
            with self._lock:
                if self._db is not None:
                    self._db.close()
                    self._db = None

        await asyncio.to_thread(close)
