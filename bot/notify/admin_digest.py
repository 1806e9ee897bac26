"""The admins' daily digest (issue 17): the admins' view (bot.admin.view) posted once to each target (an
admin's DM, or ADMIN_CHANNEL), edited in place (chat.update) when it changes, never posted again when nothing
changed; a new message the first time it changes after the day's digest time. What was posted where, and its
fingerprint, is kept in the notifier's store (migration 5), so a restart does not post again.

    digest = AdminDigest(look, SQLiteDigests(path), poster, targets=("U1",), clock=clock, at=(9, 0))
    await digest.run_once()      # one look: post, update or nothing, per target
    await digest.start(); ...; await digest.stop()   # the same every tick_seconds, on the leader only

`decide(record, fingerprint, empty, now, at)` is the pure rule.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Literal, Protocol, TypeVar

from bot.admin.view import AdminView
from bot.errors import BotError
from bot.notify.sqlite import DEFAULT_BUSY_TIMEOUT, Database
from bot.notify.state import format_time, parse_time
from bot.service.tasks import stop_task

log = logging.getLogger(__name__)
T = TypeVar("T")

Action = Literal["post", "update"]


@dataclass(frozen=True)
class DigestRecord:
    target: str
    channel: str
    ts: str
    fingerprint: str
    posted_at: datetime
    updated_at: datetime


def due_at(now: datetime, at: tuple[int, int]) -> datetime:
    """The latest digest time at or before `now` (today's, or yesterday's when today's is still ahead)."""
    today = datetime.combine(now.date(), time(at[0], at[1]), tzinfo=now.tzinfo)
    return today if today <= now else today - timedelta(days=1)


def decide(
    record: DigestRecord | None, fingerprint: str, empty: bool, now: datetime, at: tuple[int, int]
) -> Action | None:
    """post: a first digest (when there is something to fix), or the first change after a new digest time;
    update: a change since the message was last written; None: nothing changed (never repeated)."""
    if record is None:
        return None if empty else "post"
    if record.fingerprint == fingerprint:
        return None
    if not empty and record.posted_at < due_at(now, at):
        return "post"
    return "update"


class DigestStore(Protocol):
    async def load(self) -> dict[str, DigestRecord]: ...
    async def save(self, record: DigestRecord) -> None: ...
    async def aclose(self) -> None: ...


class MemoryDigests:
    """Where no SQLite file is configured (STATE_URL=kubernetes://): kept while the process lives."""

    def __init__(self) -> None:
        self.records: dict[str, DigestRecord] = {}

    async def load(self) -> dict[str, DigestRecord]:
        return dict(self.records)

    async def save(self, record: DigestRecord) -> None:
        self.records[record.target] = record

    async def aclose(self) -> None:
        return None


class SQLiteDigests:
    """The admin_digests table of the notifier's SQLite file."""

    def __init__(self, path: str | Path, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> None:
        self.path = str(path)
        self.busy_timeout = busy_timeout
        self._database = Database(self.path, busy_timeout)

    def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return self._database.run(work)

    async def load(self) -> dict[str, DigestRecord]:
        def work(db: sqlite3.Connection) -> dict[str, DigestRecord]:
            rows = db.execute("SELECT target, channel, ts, fingerprint, posted_at, updated_at FROM admin_digests")
            return {
                row[0]: DigestRecord(row[0], row[1], row[2], row[3], parse_time(row[4]), parse_time(row[5]))
                for row in rows
            }

        return await asyncio.to_thread(self._run, work)

    async def save(self, record: DigestRecord) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT OR REPLACE INTO admin_digests (target, channel, ts, fingerprint, posted_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    record.target,
                    record.channel,
                    record.ts,
                    record.fingerprint,
                    format_time(record.posted_at),
                    format_time(record.updated_at),
                ),
            )

        await asyncio.to_thread(self._run, work)

    async def aclose(self) -> None:
        await self._database.aclose()


class DigestPoster(Protocol):
    """The Slack side (bot.slack.admin): post or edit the view for a target. Raises SlackUnavailable."""

    async def post(self, target: str, view: AdminView) -> tuple[str, str]:
        """(channel, ts) of the new message."""

    async def update(self, target: str, channel: str, ts: str, view: AdminView) -> None: ...


Look = Callable[[datetime], "Awaitable[AdminView | None]"]  # the admins' view now (None: no cluster is ready)


class AdminDigest:
    def __init__(
        self,
        look: Look,
        store: DigestStore,
        poster: DigestPoster,
        *,
        targets: Sequence[str],
        clock: Callable[[], datetime],
        at: tuple[int, int],
        is_leader: Callable[[], bool] = lambda: True,
        tick_seconds: float = 300.0,
    ) -> None:
        self.look = look
        self.store = store
        self.poster = poster
        self.targets = tuple(targets)
        self.clock = clock
        self.at = at
        self.is_leader = is_leader
        self.tick_seconds = tick_seconds
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def run_once(self) -> list[tuple[str, Action]]:
        """One look at the cluster: what was posted or edited, per target. Looks never overlap."""
        async with self._lock:
            if not self.targets or not self.is_leader():
                return []
            return await self._look()

    async def _look(self) -> list[tuple[str, Action]]:
        now = self.clock()
        view = await self.look(now)
        if view is None:
            return []
        fingerprint = view.fingerprint
        records = await self.store.load()
        done: list[tuple[str, Action]] = []
        for target in self.targets:
            record = records.get(target)
            action = decide(record, fingerprint, view.empty, now, self.at)
            if action is None:
                continue
            try:
                if action == "post":
                    channel, ts = await self.poster.post(target, view)
                    record = DigestRecord(target, channel, ts, fingerprint, now, now)
                else:
                    assert record is not None
                    await self.poster.update(target, record.channel, record.ts, view)
                    record = DigestRecord(target, record.channel, record.ts, fingerprint, record.posted_at, now)
            except BotError as error:  # Slack away: the next look tries again (nothing was recorded)
                log.warning("admin digest: could not write", extra={"target": target, "error": str(error)})
                continue
            await self.store.save(record)
            done.append((target, action))
        return done

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="kueue-bot-admin-digest")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.tick_seconds)
            try:
                await self.run_once()
            except BotError as error:
                log.warning("admin digest: a look failed", extra={"error": str(error)})
            except Exception:
                log.exception("admin digest: a look failed")

    async def stop(self) -> None:
        await stop_task(self._task)
        self._task = None
        await self.store.aclose()
