"""The StateStore contract, kept by every store, and what is particular to SQLite (migrations, a locked or
full database, STATE_URL). The same contract runs against the ConfigMap store in
tests/integration/test_configmap_store.py (a subclass of StoreContract with its own `backend`)."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from bot.errors import ConfigError, Fenced, StoreUnavailable
from bot.notify.sqlite import connect
from bot.notify.state import ALL, Delivery, Fence, Mute, Snooze, State, Subscription, Told, format_time, parse_time
from bot.notify.store import MIGRATIONS, SQLiteStore, StateStore, migrate, open_store, schema_version

T0 = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
KEY = "team-a/job-train-5x2k/0b5c6f0e-1111-4c1e-9a52-1f4c9b1e2a3d"
OTHER_KEY = "team-b/job-eval-9q8w/7d2e1c3b-2222-4e5f-8a9b-0c1d2e3f4a5b"

Backend = Callable[[], StateStore]


def _at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def _sub(user: str = "U1", namespace: str = "team-a", name: str = "train", kind: str | None = "Job") -> Subscription:
    return Subscription(user, namespace, name, kind, T0)


@pytest.fixture(autouse=True)
async def no_leaked_tasks() -> AsyncIterator[None]:
    yield
    current = asyncio.current_task()
    leaked = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    assert not leaked, f"tasks left running: {leaked}"


class StoreContract:
    """What the notifier may rely on, whatever the store. A subclass provides `backend`: a callable that
    opens a new store over the same data (a second replica, or the bot after a restart)."""

    @pytest.fixture
    async def store(self, backend: Backend) -> AsyncIterator[StateStore]:
        store = backend()
        yield store
        await store.aclose()

    async def test_a_new_store_is_empty(self, store: StateStore) -> None:
        assert await store.load() == State()

    async def test_subscribing_twice_keeps_the_first_subscription(self, store: StateStore) -> None:
        assert await store.subscribe(_sub(kind="Job")) is True
        assert await store.subscribe(Subscription("U1", "team-a", "train", "RayJob", _at(5))) is False
        assert (await store.load()).subscriptions == (_sub(kind="Job"),)

    async def test_unsubscribing_is_idempotent(self, store: StateStore) -> None:
        await store.subscribe(_sub())
        assert await store.unsubscribe("U1", "team-a", "train") is True
        assert await store.unsubscribe("U1", "team-a", "train") is False
        assert await store.unsubscribe("U9", "nowhere", "nothing") is False
        assert (await store.load()).subscriptions == ()

    async def test_subscriptions_are_found_by_user_and_by_job(self, store: StateStore) -> None:
        subs = [_sub("U1"), _sub("U2"), _sub("U1", "team-b", "eval", None), _sub("U2", "team-a", "other")]
        for sub in subs:
            assert await store.subscribe(sub)
        await store.unsubscribe("U2", "team-a", "other")
        state = await store.load()
        assert state.subscriptions == (_sub("U1"), _sub("U1", "team-b", "eval", None), _sub("U2"))
        assert state.subscriptions_of("U1") == (_sub("U1"), _sub("U1", "team-b", "eval", None))
        assert [s.user for s in state.watchers_of("team-a", "train")] == ["U1", "U2"]
        assert state.watchers_of("team-a", "other") == ()

    async def test_an_intent_is_an_open_unconfirmed_delivery_until_sent(self, store: StateStore) -> None:
        await store.record_intent(Told(KEY, "U1", "waiting-for-quota", 3, "3rd in line", digest=True), T0)
        intent = (await store.load()).delivery_for(KEY, "U1")
        assert intent == Delivery(KEY, "U1", "", None, "waiting-for-quota", 3, "3rd in line", T0, T0, None, True)
        assert (await store.load()).unconfirmed() == (intent,)

        await store.record_sent(
            Told(KEY, "U1", "waiting-for-quota", 3, "3rd in line", digest=True), "D0CHAN", "1730628000.000100", _at(1)
        )
        state = await store.load()
        sent = Delivery(
            KEY, "U1", "D0CHAN", "1730628000.000100", "waiting-for-quota", 3, "3rd in line", _at(1), _at(1), None, True
        )
        assert state.deliveries == (sent,)
        assert state.unconfirmed() == ()
        assert state.open_deliveries() == (sent,)

    async def test_a_send_is_recorded_without_an_intent(self, store: StateStore) -> None:
        await store.record_sent(Told(KEY, "C0TEAM", "no-local-queue", None, "no queue"), "C0TEAM", "1.2", T0)
        assert (await store.load()).deliveries == (
            Delivery(KEY, "C0TEAM", "C0TEAM", "1.2", "no-local-queue", None, "no queue", T0, T0, None, False),
        )

    async def test_deliveries_are_per_workload_and_target(self, store: StateStore) -> None:
        await store.record_sent(Told(KEY, "U1", "v", 1, "h"), "D1", "1.1", T0)
        await store.record_sent(Told(KEY, "U2", "v", 1, "h"), "D2", "1.2", T0)
        await store.record_intent(Told(OTHER_KEY, "U1", "v", None, "h"), T0)
        state = await store.load()
        assert [(d.key, d.target) for d in state.deliveries] == [(KEY, "U1"), (KEY, "U2"), (OTHER_KEY, "U1")]
        second = state.delivery_for(KEY, "U2")
        assert second is not None and second.channel == "D2"
        assert state.delivery_for(OTHER_KEY, "U2") is None

    async def test_an_update_changes_the_verdict_position_headline_and_time_only(self, store: StateStore) -> None:
        await store.record_sent(Told(KEY, "U1", "waiting-for-quota", 3, "3rd in line"), "D1", "1.1", T0)
        assert await store.record_update(Told(KEY, "U1", "waiting-for-quota", 1, "next in line é 🚀"), _at(10)) is True
        assert await store.record_update(Told(KEY, "U9", "v", 1, "h"), _at(10)) is False
        assert (await store.load()).deliveries == (
            Delivery(KEY, "U1", "D1", "1.1", "waiting-for-quota", 1, "next in line é 🚀", T0, _at(10), None),
        )

    async def test_closing_is_idempotent_and_retention_forgets_only_old_closed_deliveries(
        self, store: StateStore
    ) -> None:
        await store.record_sent(Told(KEY, "U1", "v", 1, "h"), "D1", "1.1", T0)
        await store.record_sent(Told(KEY, "U2", "v", 1, "h"), "D2", "1.2", T0)
        await store.record_sent(Told(OTHER_KEY, "U1", "v", 1, "h"), "D1", "1.3", T0)
        assert await store.close(KEY, "U1", _at(10)) is True
        assert await store.close(KEY, "U1", _at(20)) is False  # closed already: the first time is kept
        assert await store.close(KEY, "U3", _at(20)) is False
        assert await store.close(KEY, "U2", _at(30)) is True
        state = await store.load()
        closed = state.delivery_for(KEY, "U1")
        assert closed is not None and closed.closed_at == _at(10)
        assert [(d.key, d.target) for d in state.open_deliveries()] == [(OTHER_KEY, "U1")]

        assert await store.forget_closed(_at(10)) == 0  # strictly before
        assert await store.forget_closed(_at(20)) == 1
        assert await store.forget_closed(_at(20)) == 0
        assert [(d.key, d.target) for d in (await store.load()).deliveries] == [(KEY, "U2"), (OTHER_KEY, "U1")]
        assert await store.forget_closed(_at(60 * 24 * 365)) == 1
        assert [(d.key, d.target) for d in (await store.load()).deliveries] == [(OTHER_KEY, "U1")]

    async def test_a_new_intent_reopens_a_closed_delivery(self, store: StateStore) -> None:
        await store.record_sent(Told(KEY, "U1", "v", 1, "h"), "D1", "1.1", T0)
        await store.close(KEY, "U1", _at(10))
        await store.record_intent(Told(KEY, "U1", "evicted", None, "evicted again"), _at(20))
        assert (await store.load()).deliveries == (
            Delivery(KEY, "U1", "", None, "evicted", None, "evicted again", _at(20), _at(20), None),
        )

    async def test_an_intent_is_refused_when_an_open_delivery_appeared_meanwhile(self, store: StateStore) -> None:
        assert await store.record_intent(Told(KEY, "U1", "v", 1, "h"), T0) is True
        assert await store.record_intent(Told(KEY, "U1", "v", 2, "again"), _at(1)) is False  # another sender is at it
        assert await store.record_intent(Told(KEY, "U1", "v", 3, "reconciled"), _at(2), replace=True) is True
        await store.record_sent(Told(KEY, "U1", "v", 3, "reconciled"), "D1", "1.1", _at(3))
        assert (
            await store.record_intent(Told(KEY, "U1", "v", 4, "h"), _at(4), replace=True) is False
        )  # sent: never twice
        delivery = (await store.load()).delivery_for(KEY, "U1")
        assert delivery is not None and (delivery.ts, delivery.position) == ("1.1", 3)
        await store.close(KEY, "U1", _at(5))
        assert await store.record_intent(Told(KEY, "U1", "v", 5, "h"), _at(6)) is True  # closed: a new wait, a new DM

    async def test_a_delivery_keeps_its_job_and_when_its_wait_began(self, store: StateStore) -> None:
        await store.record_intent(Told(KEY, "U1", "v", 1, "h", job="team-a/train", since=_at(-60 * 24 * 28)), T0)
        await store.record_sent(
            Told(KEY, "U1", "v", 1, "h", job="team-a/train", since=_at(-60 * 24 * 28)), "D1", "1.1", _at(1)
        )
        delivery = (await store.load()).delivery_for(KEY, "U1")
        assert delivery is not None and (delivery.job, delivery.since) == ("team-a/train", _at(-60 * 24 * 28))
        await store.record_update(Told(KEY, "U1", "v", 2, "h"), _at(2))
        await store.close(KEY, "U1", _at(3))
        assert (await store.load()).deliveries[0].job == "team-a/train"

    async def test_a_write_fenced_by_an_older_leader_is_refused_and_changes_nothing(self, store: StateStore) -> None:
        old, new = Fence("replica-a", 1), Fence("replica-b", 2)
        assert await store.record_intent(Told(KEY, "U1", "v", 1, "h"), T0, fence=old) is True
        await store.record_sent(Told(KEY, "U1", "v", 1, "h"), "D1", "1.1", T0, fence=new)  # the successor writes
        before = await store.load()
        with pytest.raises(Fenced, match="replica-b"):
            await store.record_sent(Told(KEY, "U1", "v", 1, "h"), "D1", "9.9", _at(1), fence=old)
        with pytest.raises(Fenced):
            await store.close(KEY, "U1", _at(1), fence=old)
        with pytest.raises(Fenced):
            await store.record_update(Told(KEY, "U1", "v", 9, "h"), _at(1), fence=Fence("replica-c", 2))  # same token
        assert await store.load() == before
        assert await store.close(KEY, "U1", _at(2), fence=new) is True  # the leader itself goes on
        assert (
            await store.record_intent(Told(OTHER_KEY, "U2", "v", 1, "h"), _at(3)) is True
        )  # a user's own write: unfenced

    async def test_snoozes_per_workload_and_for_everything(self, store: StateStore) -> None:
        await store.snooze("U1", KEY, _at(60))
        await store.snooze("U2", ALL, _at(30))
        state = await store.load()
        assert state.snoozes == (Snooze("U1", KEY, _at(60)), Snooze("U2", ALL, _at(30)))
        assert state.is_snoozed("U1", KEY, _at(59)) is True
        assert state.is_snoozed("U1", KEY, _at(60)) is False  # until is exclusive
        assert state.is_snoozed("U1", OTHER_KEY, _at(1)) is False
        assert state.is_snoozed("U2", KEY, _at(1)) is True
        assert state.is_snoozed("U2", OTHER_KEY, _at(29)) is True
        assert state.is_snoozed("U3", KEY, _at(1)) is False

        await store.snooze("U1", KEY, _at(120))  # a new snooze replaces the earlier one
        assert await store.unsnooze("U2", ALL) is True
        assert await store.unsnooze("U2", ALL) is False
        assert (await store.load()).snoozes == (Snooze("U1", KEY, _at(120)),)

    async def test_retention_forgets_ended_snoozes(self, store: StateStore) -> None:
        await store.snooze("U1", KEY, _at(10))
        await store.snooze("U1", OTHER_KEY, _at(100))
        assert await store.forget_closed(_at(50)) == 0
        assert (await store.load()).snoozes == (Snooze("U1", OTHER_KEY, _at(100)),)

    async def test_mutes_are_idempotent_and_keep_the_first_time(self, store: StateStore) -> None:
        assert await store.mute("U1", T0) is True
        assert await store.mute("U1", _at(5)) is False
        assert await store.mute("U2", _at(5)) is True
        state = await store.load()
        assert state.mutes == (Mute("U1", T0), Mute("U2", _at(5)))
        assert state.is_muted("U1") and not state.is_muted("U3")
        assert await store.unmute("U1") is True
        assert await store.unmute("U1") is False
        assert (await store.load()).mutes == (Mute("U2", _at(5)),)

    async def test_a_restart_remembers_everything(self, backend: Backend, store: StateStore) -> None:
        await store.subscribe(_sub("U1"))
        await store.subscribe(_sub("U2", "team-b", "eval", None))
        await store.record_intent(Told(KEY, "U1", "waiting-for-quota", 2, "2nd"), T0)
        await store.record_sent(Told(OTHER_KEY, "U2", "inadmissible", None, "never fits", digest=True), "D2", "9.9", T0)
        await store.close(OTHER_KEY, "U2", _at(3))
        await store.snooze("U1", ALL, _at(60))
        await store.mute("U3", T0)
        before = await store.load()
        await store.aclose()

        again = backend()
        try:
            assert await again.load() == before
        finally:
            await again.aclose()
        assert len(before.subscriptions) == 2 and len(before.deliveries) == 2

    async def test_two_writers_at_once_lose_nothing(self, backend: Backend, store: StateStore) -> None:
        other = backend()

        async def subscribe_many(writer: StateStore, user: str) -> list[bool]:
            return [await writer.subscribe(_sub(user, "team-a", f"job-{i}")) for i in range(50)]

        async def mute_some(writer: StateStore, users: range) -> None:
            for i in users:
                await writer.mute(f"M{i}", T0)

        try:
            first, second, *_ = await asyncio.gather(
                subscribe_many(store, "U1"),
                subscribe_many(other, "U2"),
                mute_some(store, range(0, 10)),
                mute_some(other, range(10, 20)),
            )
            state = await backend_load(backend)
        finally:
            await other.aclose()
        assert all(first) and all(second)
        assert len(state.subscriptions) == 100
        assert len(state.mutes) == 20

    async def test_naive_times_are_refused(self, store: StateStore) -> None:
        naive = datetime(2026, 11, 3, 10, 0)  # the point of the test
        with pytest.raises(ValueError, match="naive"):
            await store.record_intent(Told(KEY, "U1", "v", None, "h"), naive)
        with pytest.raises(ValueError, match="naive"):
            Subscription("U1", "team-a", "train", None, naive)
        assert await store.load() == State()

    async def test_a_closed_store_refuses_work(self, backend: Backend) -> None:
        store = backend()
        await store.subscribe(_sub())
        await store.aclose()
        with pytest.raises(StoreUnavailable, match="closed"):
            await store.subscribe(_sub("U2"))


async def backend_load(backend: Backend) -> State:
    """The state as a fresh store sees it."""
    reader = backend()
    try:
        return await reader.load()
    finally:
        await reader.aclose()


# -------------------------------------------------------------------------------------------------
# SQLite


class TestSQLiteStore(StoreContract):
    @pytest.fixture
    def backend(self, tmp_path: Path) -> Backend:
        return lambda: SQLiteStore(tmp_path / "state.sqlite3")


def _v1_database(path: Path) -> None:
    """A database as the first release of the bot left it, with data."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        assert migrate(db, upto=1) == 1
        db.execute(
            "INSERT INTO subscriptions VALUES (?, ?, ?, ?, ?)", ("U1", "team-a", "train", "Job", format_time(T0))
        )
        db.execute(
            "INSERT INTO deliveries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (KEY, "U1", "D1", "1.1", "v", 2, "h", format_time(T0), format_time(T0), None, 0),
        )
        db.execute("INSERT INTO snoozes VALUES (?, ?, ?)", ("U1", ALL, format_time(_at(60))))
        db.execute("INSERT INTO mutes VALUES (?, ?)", ("U2", format_time(T0)))
    finally:
        db.close()


def _indexes(path: Path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")}
    finally:
        db.close()


async def test_a_version_1_database_is_migrated_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    _v1_database(path)
    assert _indexes(path) == set()

    store = SQLiteStore(path)
    try:
        state = await store.load()
    finally:
        await store.aclose()
    assert state == State(
        (Subscription("U1", "team-a", "train", "Job", T0),),
        (Delivery(KEY, "U1", "D1", "1.1", "v", 2, "h", T0, T0, None),),
        (Snooze("U1", ALL, _at(60)),),
        (Mute("U2", T0),),
    )
    db = sqlite3.connect(path)
    try:
        assert schema_version(db) == len(MIGRATIONS) == 6
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        db.close()
    assert _indexes(path) == {"deliveries_closed_at", "subscriptions_job"}


async def test_migrating_twice_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    for _ in range(2):
        store = SQLiteStore(path)
        await store.subscribe(_sub())
        await store.aclose()
    db = sqlite3.connect(path)
    try:
        assert schema_version(db) == len(MIGRATIONS) == 6
        assert db.execute("SELECT count(*) FROM schema_version").fetchone()[0] == 1
    finally:
        db.close()


async def test_a_database_newer_than_the_bot_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    _v1_database(path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE schema_version SET version = 7")
    db.close()
    store = SQLiteStore(path)
    with pytest.raises(StoreUnavailable, match="schema version 7, newer than this bot knows"):
        await store.load()
    await store.aclose()
    assert _indexes(path) == set()


async def test_a_database_locked_by_another_process_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    store = SQLiteStore(path, busy_timeout=0.2)
    await store.subscribe(_sub("U1"))
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")
        other.execute("INSERT INTO mutes VALUES ('U9', ?)", (format_time(T0),))
        with pytest.raises(StoreUnavailable, match=r"is locked by another process \(waited 0.2 s\)") as caught:
            await store.subscribe(_sub("U2"))
        assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
        assert [s.user for s in (await store.load()).subscriptions] == ["U1"]  # readers are not blocked (WAL)
        other.execute("COMMIT")
        assert await store.subscribe(_sub("U2")) is True  # and the store works again once the lock is gone
    finally:
        other.close()
        await store.aclose()
    assert [s.user for s in (await backend_load(lambda: SQLiteStore(path))).subscriptions] == ["U1", "U2"]


async def test_a_writer_waits_out_a_neighbour_that_keeps_committing(tmp_path: Path) -> None:
    """Contention is not a stuck lock: while another writer keeps committing, a write waits its turn (past its
    busy_timeout) instead of failing; only a lock held with no progress for busy_timeout is an error."""
    path = tmp_path / "state.sqlite3"
    store = SQLiteStore(path, busy_timeout=0.2)
    await store.subscribe(_sub("U1"))
    started = threading.Event()

    def neighbour() -> None:  # another process's writer: many short transactions, back to back, for 0.6 s
        db = sqlite3.connect(path, isolation_level=None, timeout=30)
        try:
            for i in range(30):
                db.execute("BEGIN IMMEDIATE")
                db.execute("INSERT INTO mutes VALUES (?, ?)", (f"N{i}", format_time(T0)))
                started.set()
                time.sleep(0.02)  # the neighbour's work inside its transaction: the lock is held
                db.execute("COMMIT")
        finally:
            db.close()

    thread = threading.Thread(target=neighbour)
    thread.start()
    try:
        assert await asyncio.to_thread(started.wait, 30)
        assert await store.subscribe(_sub("U2")) is True
    finally:
        await asyncio.to_thread(thread.join)
        await store.aclose()
    state = await backend_load(lambda: SQLiteStore(path))
    assert [s.user for s in state.subscriptions] == ["U1", "U2"]
    assert len(state.mutes) == 30


async def test_a_full_database_is_a_clear_error_and_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    store = SQLiteStore(path, max_bytes=96 * 1024)  # PRAGMA max_page_count: SQLite's own "database or disk is full"
    subscribed = []
    try:
        with pytest.raises(StoreUnavailable, match="is full") as caught:
            for i in range(10_000):
                sub = _sub("U1", "team-a", f"job-{i:05d}-" + "x" * 200)
                await store.subscribe(sub)
                subscribed.append(sub)
        assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
        assert "full" in str(caught.value.__cause__)
        assert subscribed, "the limit is too low to test anything"
        assert (await store.load()).subscriptions == tuple(subscribed)
        with pytest.raises(StoreUnavailable, match="is full"):
            await store.ping()  # readiness says so while no write succeeds
        assert await store.unsubscribe("U1", "team-a", subscribed[0].name) is True  # still usable
        await store.ping()  # a write went through: ready again
    finally:
        await store.aclose()
    assert (await backend_load(lambda: SQLiteStore(path))).subscriptions == tuple(subscribed[1:])


@pytest.mark.parametrize("how", ["deleted", "replaced"])
async def test_a_database_file_deleted_or_replaced_under_the_store_is_refused(tmp_path: Path, how: str) -> None:
    """An open connection would go on writing to a file nobody reads again: every later call says so."""
    path = tmp_path / "state.sqlite3"
    store = SQLiteStore(path)
    try:
        await store.subscribe(_sub())
        for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            name.unlink(missing_ok=True)
        if how == "replaced":
            fresh = SQLiteStore(path)
            await fresh.load()
            await fresh.aclose()
        for call in (store.ping(), store.subscribe(_sub("U2")), store.load()):
            with pytest.raises(StoreUnavailable, match="was deleted or replaced while the bot ran"):
                await call
    finally:
        await store.aclose()


async def test_a_database_in_a_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "no" / "such" / "dir" / "state.sqlite3")
    with pytest.raises(StoreUnavailable, match="cannot be opened"):
        await store.load()
    await store.aclose()


# -------------------------------------------------------------------------------------------------
# STATE_URL


def _never() -> StateStore:
    raise AssertionError("the Kubernetes store is not wanted here")


@pytest.mark.parametrize(
    ("url", "path"),
    [
        pytest.param("sqlite:///kueue-bot-state.sqlite3", "kueue-bot-state.sqlite3", id="relative"),
        pytest.param("sqlite:///data/state.db", "data/state.db", id="relative-dir"),
        pytest.param("sqlite:////var/lib/kueue-bot/state.db", "/var/lib/kueue-bot/state.db", id="absolute"),
    ],
)
async def test_sqlite_urls_name_a_file(url: str, path: str) -> None:
    store = open_store(url, kubernetes=_never)
    assert isinstance(store, SQLiteStore)
    assert store.path == path
    await store.aclose()  # never opened, so nothing was created


async def test_the_kubernetes_url_uses_the_factory(tmp_path: Path) -> None:
    made = SQLiteStore(tmp_path / "stand-in.db")
    assert open_store("kubernetes://", kubernetes=lambda: made) is made
    await made.aclose()


@pytest.mark.parametrize(
    ("url", "kubernetes", "message"),
    [
        pytest.param("kubernetes://", None, "needs a Kubernetes client", id="kubernetes-without-client"),
        pytest.param("sqlite:///", _never, "names no database file", id="sqlite-without-path"),
        pytest.param("sqlite:///data/", _never, "names no database file", id="sqlite-directory"),
        pytest.param("redis://localhost", _never, "neither sqlite", id="unknown-scheme"),
        pytest.param("sqlite://relative.db", _never, "neither sqlite", id="two-slashes"),
    ],
)
def test_bad_state_urls_are_config_errors(url: str, kubernetes: Callable[[], StateStore] | None, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        open_store(url, kubernetes=kubernetes)


# -------------------------------------------------------------------------------------------------
# The records


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("2026-11-03T10:00:00.000000Z", T0, id="our-format"),
        pytest.param("2026-11-03T10:00:00Z", T0, id="no-fraction"),
        pytest.param("2026-11-03T11:00:00+01:00", T0, id="other-zone"),
    ],
)
def test_times_are_read_in_utc(text: str, expected: datetime) -> None:
    parsed = parse_time(text)
    assert parsed == expected and parsed.tzinfo is UTC


def test_times_are_written_fixed_width_so_text_order_is_time_order() -> None:
    times = [T0, T0 + timedelta(microseconds=1), T0 + timedelta(seconds=1), T0 + timedelta(days=400)]
    texts = [format_time(t) for t in times]
    assert texts[0] == "2026-11-03T10:00:00.000000Z"
    assert sorted(texts) == texts and len({len(t) for t in texts}) == 1


def test_records_in_another_zone_are_kept_in_utc() -> None:
    paris = datetime(2026, 11, 3, 11, 0, tzinfo=datetime.fromisoformat("2026-01-01T00:00+01:00").tzinfo)
    sub = Subscription("U1", "team-a", "train", None, paris)
    assert sub.created == T0 and sub.created.tzinfo is UTC


def test_state_is_sorted_by_identity() -> None:
    state = State.of([_sub("U2"), _sub("U1", "team-b"), _sub("U1")], mutes=[Mute("U2", T0), Mute("U1", T0)])
    assert [(s.user, s.namespace) for s in state.subscriptions] == [
        ("U1", "team-a"),
        ("U1", "team-b"),
        ("U2", "team-a"),
    ]
    assert [m.user for m in state.mutes] == ["U1", "U2"]


async def test_a_load_after_another_connections_write_sees_it_and_an_unchanged_one_is_not_decoded_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.sqlite3"
    one, two = SQLiteStore(path), SQLiteStore(path)
    try:
        await one.record_sent(Told(KEY, "U1", "v", 1, "h"), "D1", "1.1", T0)
        first = await one.load()
        assert await one.load() is first  # nothing changed: the same State, not decoded again
        await one.forget_closed(T0)  # a write that changes nothing keeps it
        assert await one.load() is first
        await two.close(KEY, "U1", _at(1))  # another connection (another process) writes
        again = await one.load()
        assert again is not first and again.open_deliveries() == ()
        await one.snooze("U1", KEY, _at(60))  # and this one
        assert (await one.load()).snoozes == (Snooze("U1", KEY, _at(60)),)
    finally:
        await one.aclose()
        await two.aclose()


async def test_a_load_after_its_own_writes_reads_only_what_they_touched_and_equals_a_full_read(
    tmp_path: Path,
) -> None:
    """Every kind of write, in a random order, each followed by a load: the load equals what a new connection
    reads of the whole database, and a delivery no write touched is the very object of the last load."""
    path = tmp_path / "state.sqlite3"
    store = SQLiteStore(path)
    keys = [f"team-{n % 3}/job-{n}/uid-{n}" for n in range(12)]
    writes: list[Callable[[int], Awaitable[object]]] = [
        lambda n: store.record_intent(Told(keys[n % 12], "U1", "v", n, "h"), _at(n)),
        lambda n: store.record_sent(Told(keys[n % 12], f"U{n % 2}", "v", n, "h", "eta"), "D1", f"{n}.1", _at(n)),
        lambda n: store.record_update(Told(keys[n % 12], "U1", "w", n + 1, "h2"), _at(n)),
        lambda n: store.close(keys[n % 12], f"U{n % 2}", _at(n)),
        lambda n: store.forget_closed(_at(n - 20)),
        lambda n: store.subscribe(_sub(f"U{n % 4}", "team-a", f"job-{n % 5}")),
        lambda n: store.unsubscribe(f"U{n % 4}", "team-a", f"job-{n % 5}"),
        lambda n: store.snooze("U1", keys[n % 12], _at(n + 30)),
        lambda n: store.unsnooze("U1", keys[n % 12]),
        lambda n: store.mute(f"U{n % 3}", _at(n)),
        lambda n: store.unmute(f"U{n % 3}"),
    ]
    rng = random.Random(7)
    try:
        last = await store.load()
        for n in range(300):
            write = rng.randrange(len(writes))
            touched = keys[n % 12]
            await writes[write](n)
            state = await store.load()
            reader = SQLiteStore(path)
            try:
                assert state == await reader.load(), (n, write)
            finally:
                await reader.aclose()
            if write < 4:  # a delivery written by its identity: the others are the objects loaded before
                before = {(d.key, d.target): d for d in last.deliveries if d.key != touched}
                assert all(before.get((d.key, d.target), d) is d for d in state.deliveries if d.key != touched)
            last = state
    finally:
        await store.aclose()


def test_processes_opening_a_new_database_together_all_get_in(tmp_path: Path) -> None:
    """Two connections switching a new database to WAL at once both hold a shared lock and want the exclusive
    one: SQLite breaks that deadlock by refusing one at once, without its busy wait ("database is locked" on
    `PRAGMA journal_mode = WAL`, seen in CI when a second store opened while the first was writing). The
    refused one must try again within the busy timeout, not fail."""
    failures: list[BaseException] = []
    for attempt in range(60):
        path = str(tmp_path / f"state-{attempt}.sqlite3")
        start = threading.Barrier(4)

        def open_and_write(user: str, path: str = path, start: threading.Barrier = start) -> None:
            start.wait()
            try:
                db = connect(path, 5.0)
                try:
                    db.execute("BEGIN IMMEDIATE")
                    db.execute("INSERT INTO mutes (user, since) VALUES (?, ?)", (user, format_time(T0)))
                    db.execute("COMMIT")
                finally:
                    db.close()
            except sqlite3.Error as error:  # collected: the assertion below names them
                failures.append(error)

        threads = [threading.Thread(target=open_and_write, args=(f"U{i}",)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []


async def test_the_eta_kept_inside_the_headline_moves_to_its_own_column(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    try:
        assert migrate(db, upto=5) == 5
        db.execute(
            "INSERT INTO deliveries (key, target, channel, ts, verdict, position, headline, sent_at, updated_at)"
            " VALUES (?, 'U1', 'D1', '1.1', 'v', 2, ?, ?, ?)",
            (KEY, "headline.waiting-for-quota|eta=cq:2h", format_time(T0), format_time(T0)),
        )
        db.execute(
            "INSERT INTO deliveries (key, target, channel, ts, verdict, position, headline, sent_at, updated_at)"
            " VALUES (?, 'U1', 'D1', '1.2', 'v', 2, 'headline.queue-stopped', ?, ?)",
            (OTHER_KEY, format_time(T0), format_time(T0)),
        )
    finally:
        db.close()
    store = SQLiteStore(path)
    try:
        deliveries = {d.key: d for d in (await store.load()).deliveries}
        await store.record_update(Told(KEY, "U1", "v", 1, "headline.waiting-for-quota", "cq:1h"), _at(1))
        updated = (await store.load()).delivery_for(KEY, "U1")
    finally:
        await store.aclose()
    assert (deliveries[KEY].headline, deliveries[KEY].eta) == ("headline.waiting-for-quota", "cq:2h")
    assert (deliveries[OTHER_KEY].headline, deliveries[OTHER_KEY].eta) == ("headline.queue-stopped", "")
    assert updated is not None and (updated.headline, updated.eta, updated.position) == (
        "headline.waiting-for-quota",
        "cq:1h",
        1,
    )
