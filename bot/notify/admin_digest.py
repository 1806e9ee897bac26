"""The admins' daily digest: the admins' view (bot.admin.view) posted once to each target (an
admin's DM, or ADMIN_CHANNEL), edited in place (chat.update) when it changes, never posted again when nothing
changed; a new message the first time it changes after the day's digest time. What was posted where, and its
fingerprint, is kept in the notifier's store (migration 5), so a restart does not post again.

A post is recorded before it is made (an intent: the record with no ts, marked with the moment of the look),
and confirmed after; an intent found at the next look is looked for in Slack (the post's metadata carries the
mark) before anything is posted again. Each target's failures stay its own. Only the leader acts, and only
while it leads at that moment: with a `fence` (the leader election's), leadership is checked before every Slack
call and every save carries the fence, as the notifier's writes do.

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
from bot.errors import BotError, Fenced, LeaseLost
from bot.notify.sqlite import DEFAULT_BUSY_TIMEOUT, Database, check_fence
from bot.notify.state import Fence, format_time, parse_time
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

    @property
    def confirmed(self) -> bool:
        """False for an intent: a post about to be made (or made, and its answer lost)."""
        return bool(self.ts)

    @property
    def mark(self) -> str:
        """What the post's metadata carries to be found again: the moment its intent was recorded."""
        return format_time(self.posted_at)


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
    async def save(self, record: DigestRecord, *, fence: Fence | None = None) -> None:
        """Raises StoreUnavailable (Fenced: a newer leader wrote since `fence`), and then changed nothing."""

    async def aclose(self) -> None: ...


class MemoryDigests:
    """Where no SQLite file is configured (STATE_URL=kubernetes://): kept while the process lives."""

    def __init__(self) -> None:
        self.records: dict[str, DigestRecord] = {}

    async def load(self) -> dict[str, DigestRecord]:
        return dict(self.records)

    async def save(self, record: DigestRecord, *, fence: Fence | None = None) -> None:
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

    async def save(self, record: DigestRecord, *, fence: Fence | None = None) -> None:
        def work(db: sqlite3.Connection) -> None:
            if fence is not None:  # the notifier's fence, in the same database
                row = db.execute("SELECT holder, token FROM fence WHERE id = 1").fetchone()
                check_fence((row[0], int(row[1])) if row else None, fence, f"the state database {self.path}")
                db.execute(
                    "INSERT OR REPLACE INTO fence (id, holder, token) VALUES (1, ?, ?)", (fence.holder, fence.token)
                )
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
    """The Slack side (bot.slack.admin_poster): post or edit the view for a target, find a post by its mark.
    Raises SlackUnavailable."""

    async def post(self, target: str, view: AdminView, mark: str) -> tuple[str, str]:
        """(channel, ts) of the new message, whose metadata carries `mark`."""

    async def update(self, target: str, channel: str, ts: str, view: AdminView) -> None: ...

    async def find(self, target: str, mark: str) -> tuple[str, str] | None:
        """(channel, ts) of the post to `target` whose metadata carries `mark`, if there is one."""


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
        fence: Callable[[], Fence | None] | None = None,
        tick_seconds: float = 300.0,
    ) -> None:
        """is_leader: whether to look at all; fence: the leader's proof of leadership at this moment (None:
        this replica does not lead), checked before each Slack call and carried by each save."""
        self.look = look
        self.store = store
        self.poster = poster
        self.targets = tuple(targets)
        self.clock = clock
        self.at = at
        self.is_leader = is_leader
        self.fence = fence
        self.tick_seconds = tick_seconds
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def run_once(self) -> list[tuple[str, Action]]:
        """One look at the cluster: what was posted or edited, per target. Looks never overlap."""
        async with self._lock:
            if not self.targets or not self.is_leader() or (self.fence is not None and self.fence() is None):
                return []
            try:
                return await self._look()
            except (LeaseLost, Fenced) as error:
                log.warning("admin digest: this replica lost the lease; the look stopped", extra={"why": str(error)})
                return []

    def _held(self) -> Fence | None:
        """The fence to act under right now; LeaseLost when this replica no longer leads."""
        if self.fence is None:
            return None
        fence = self.fence()
        if fence is None:
            raise LeaseLost("the lease is not held at this moment")
        return fence

    async def _look(self) -> list[tuple[str, Action]]:
        now = self.clock()
        view = await self.look(now)
        if view is None:
            return []
        records = await self.store.load()
        done: list[tuple[str, Action]] = []
        for target in self.targets:
            try:
                action = await self._write(target, records.get(target), view, now)
            except (LeaseLost, Fenced):
                raise
            except BotError as error:  # Slack or the store away: this target's next look tries again
                log.warning("admin digest: could not write", extra={"target": target, "error": str(error)})
                continue
            if action is not None:
                done.append((target, action))
        return done

    async def _write(self, target: str, record: DigestRecord | None, view: AdminView, now: datetime) -> Action | None:
        """Post, edit or leave the digest of one target; a post is recorded before it leaves."""
        if record is not None and not record.confirmed:
            self._held()
            found = await self.poster.find(target, record.mark)
            record = None if found is None else DigestRecord(target, *found, record.fingerprint, record.posted_at, now)
            if record is not None:
                log.info("admin digest: a post whose record was lost was found in Slack", extra={"target": target})
                await self.store.save(record, fence=self._held())
        fingerprint = view.fingerprint
        action = decide(record, fingerprint, view.empty, now, self.at)
        if action == "post":
            intent = DigestRecord(target, "", "", fingerprint, now, now)
            await self.store.save(intent, fence=self._held())
            self._held()  # the very moment before the post leaves
            channel, ts = await self.poster.post(target, view, intent.mark)
            await self.store.save(DigestRecord(target, channel, ts, fingerprint, now, now), fence=self._held())
        elif action == "update":
            assert record is not None
            self._held()
            await self.poster.update(target, record.channel, record.ts, view)
            edited = DigestRecord(target, record.channel, record.ts, fingerprint, record.posted_at, now)
            await self.store.save(edited, fence=self._held())
        return action

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
