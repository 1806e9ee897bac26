"""The admins' view end to end (issue 17): the production server with ADMINS, a SQLite store on disk, the Slack
stand-in over HTTP. The digest is posted once to each admin, in their language, edited in place when the
cluster changes, never posted again when nothing changed, not even by a restarted bot; `/kueue admin` answers
an admin privately and tells anyone else it is for admins."""

from __future__ import annotations

import contextlib
import copy
import json
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from bot.notify.store import SQLiteStore
from bot.server import Server, build_server

from tests.clocks import Clock
from tests.fakes.slack_api import FakeSlack
from tests.fakes.slack_api import bot_settings as _settings
from tests.integration.test_notifier import Timeline, _docs, _find, _snapshot

ANNE = "U0ANNEADM"  # an admin who reads English
BRUNO = "U0BRUNOAD"  # an admin who reads French
CAROL = "U0CAROLUS"  # not an admin
CHANNEL = "C0MLVISION"
SCENARIO = "waiting-for-quota-computed-position"  # gpu-a100-shared: a job that never fits, three that wait
START = datetime(2026, 11, 3, 9, 41, tzinfo=UTC)


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user(ANNE, name="anne", locale="en-US")
        fake.add_user(BRUNO, name="bruno", locale="fr-FR")
        fake.add_user(CAROL, name="carol", locale="en-US")
        fake.add_channel(CHANNEL, "ml-vision", members=[ANNE, BRUNO, CAROL])
        yield fake


async def _server(slack: FakeSlack, source: Timeline, clock: Clock, db: Path, **admin: Any) -> Server:
    settings = _settings(slack, admin_users=(ANNE, BRUNO), **admin)
    server = build_server(settings, source, clock=clock, store=SQLiteStore(str(db)), tick_seconds=3600)
    await server.start()
    return server


def _posts(slack: FakeSlack) -> list[Any]:
    return [c for c in slack.calls("chat.postMessage") if "admin" in json.dumps(c.params.get("metadata") or {})]


def _text(params: dict[str, Any]) -> str:
    return str(params.get("text", "")) + json.dumps(params.get("blocks") or [], ensure_ascii=False)


def _stopped(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    docs = copy.deepcopy(docs)
    _find(docs, "ClusterQueue", "gpu-a100-shared")["spec"]["stopPolicy"] = "Hold"
    return docs


async def test_the_digest_is_sent_once_edited_on_change_and_never_repeated(slack: FakeSlack, tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite3"
    docs = _docs(SCENARIO)
    clock = Clock(START)
    source = Timeline(_snapshot(docs))
    server = await _server(slack, source, clock, db)
    try:
        assert server.admin_digest is not None
        done = await server.admin_digest.run_once()
        assert sorted(done) == [(ANNE, "post"), (BRUNO, "post")]
        posts = {p.params["channel"]: p for p in _posts(slack)}
        assert set(posts) == {slack.dm_channel(ANNE), slack.dm_channel(BRUNO)}
        english, french = _text(posts[slack.dm_channel(ANNE)].params), _text(posts[slack.dm_channel(BRUNO)].params)
        assert "What only an admin can fix" in english and "ml-nlp/llm-eval-suite-xl" in english
        assert "raise the nominal quota of nvidia.com/gpu" in english  # the quota that would admit it
        assert "Ce que seul un admin peut corriger" in french and "ml-nlp/llm-eval-suite-xl" in french
        # Nothing changed (only time passed): nothing is sent or edited.
        clock.now = START + timedelta(minutes=20)
        assert await server.admin_digest.run_once() == []
        assert len(_posts(slack)) == 2 and slack.calls("chat.update") == []
        # The queue is stopped: both messages are edited in place, nothing new is posted.
        source.become(_snapshot(_stopped(docs)))
        assert sorted(await server.admin_digest.run_once()) == [(ANNE, "update"), (BRUNO, "update")]
        updates = {u.params["channel"]: u for u in slack.calls("chat.update")}
        assert updates[slack.dm_channel(ANNE)].params["ts"] == posts[slack.dm_channel(ANNE)].response["ts"]
        assert "is stopped (stopPolicy Hold)" in _text(updates[slack.dm_channel(ANNE)].params)
        assert "est arrêtée (stopPolicy Hold)" in _text(updates[slack.dm_channel(BRUNO)].params)
        assert len(_posts(slack)) == 2
    finally:
        await server.stop()
    # A restarted bot remembers what it sent: nothing again while nothing changes.
    clock.now = START + timedelta(hours=1)
    server = await _server(slack, source, clock, db)
    try:
        assert server.admin_digest is not None
        assert await server.admin_digest.run_once() == []
        assert len(_posts(slack)) == 2 and len(slack.calls("chat.update")) == 2
        # The next day, a change makes a new day's digest (a new message), not an edit of yesterday's.
        clock.now = START + timedelta(days=1)
        source.become(_snapshot(docs))
        assert sorted(await server.admin_digest.run_once()) == [(ANNE, "post"), (BRUNO, "post")]
    finally:
        await server.stop()


async def test_the_digest_goes_to_the_admin_channel_when_one_is_set(slack: FakeSlack, tmp_path: Path) -> None:
    server = await _server(
        slack, Timeline(_snapshot(_docs(SCENARIO))), Clock(START), tmp_path / "s.sqlite3", admin_channel=CHANNEL
    )
    try:
        assert server.admin_digest is not None
        assert await server.admin_digest.run_once() == [(CHANNEL, "post")]
        assert [p.params["channel"] for p in _posts(slack)] == [CHANNEL]
    finally:
        await server.stop()


async def test_slash_admin_answers_admins_privately_and_no_one_else(slack: FakeSlack, tmp_path: Path) -> None:
    server = await _server(slack, Timeline(_snapshot(_docs(SCENARIO))), Clock(START), tmp_path / "s.sqlite3")
    try:
        url = f"{server.url}/slack/events"
        await slack.deliver_slash_command(url, text="admin", user_id=BRUNO, channel_id=CHANNEL)
        answer = await slack.wait_for_response_url()
        assert answer.body.get("response_type") == "ephemeral"
        assert "Ce que seul un admin peut corriger" in _text(answer.body)
        await slack.deliver_slash_command(url, text="admin", user_id=CAROL, channel_id=CHANNEL)
        refused = await slack.wait_for_response_url(nth=2)
        assert "for the admins named in ADMINS" in _text(refused.body)
        assert "llm-eval-suite-xl" not in _text(refused.body)
        assert _posts(slack) == []
    finally:
        await server.stop()


def _fail_confirmed_saves_for(db: Path, target: str) -> None:
    """The database refuses to record a confirmed post for `target` (as a full disk would refuse a write)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute(
            "CREATE TRIGGER refuse_save BEFORE INSERT ON admin_digests"
            f" WHEN NEW.target = '{target}' AND NEW.ts != ''"
            " BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
        )


def _allow_saves(db: Path) -> None:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("DROP TRIGGER refuse_save")


async def test_a_failing_save_neither_silences_the_next_admin_nor_posts_twice(slack: FakeSlack, tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite3"
    clock = Clock(START)
    server = await _server(slack, Timeline(_snapshot(_docs(SCENARIO))), clock, db)
    try:
        assert server.admin_digest is not None
        assert await server.admin_digest.store.load() == {}  # the database made
        _fail_confirmed_saves_for(db, ANNE)
        # Anne's digest leaves but cannot be recorded: Bruno, next in line, still gets his.
        assert await server.admin_digest.run_once() == [(BRUNO, "post")]
        channels = sorted(p.params["channel"] for p in _posts(slack))
        assert channels == sorted([slack.dm_channel(ANNE), slack.dm_channel(BRUNO)])
        _allow_saves(db)
        # The next looks find Anne's post by its metadata instead of posting it again.
        clock.now = START + timedelta(minutes=5)
        assert await server.admin_digest.run_once() == []
        clock.now = START + timedelta(minutes=10)
        assert await server.admin_digest.run_once() == []
        assert len(_posts(slack)) == 2
    finally:
        await server.stop()


async def test_a_replica_that_lost_the_lease_posts_no_digest(slack: FakeSlack, tmp_path: Path) -> None:
    settings = _settings(slack, admin_users=(ANNE, BRUNO))
    source = Timeline(_snapshot(_docs(SCENARIO)))
    store = SQLiteStore(str(tmp_path / "state.sqlite3"))
    server = build_server(settings, source, clock=Clock(START), store=store, tick_seconds=3600, fence=lambda: None)
    await server.start()
    try:
        assert server.admin_digest is not None
        assert await server.admin_digest.run_once() == []
        assert _posts(slack) == []
    finally:
        await server.stop()
