"""Proactive DMs whose conversation, message or person is gone (retention policies, deactivated users): the
real server's watcher, a SQLite store on disk and the Slack stand-in answering Slack's permanent errors over
HTTP. Each is closed as undeliverable with one WARNING and a metric, and never tried again; a passing failure
is one WARNING and is tried again later, each time later. Every test says what would make it fail."""

from __future__ import annotations

import copy
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from bot.notify.store import SQLiteStore
from bot.server import Server, build_server

from tests.clocks import Clock
from tests.fakes.slack_api import FakeSlack, bot_settings
from tests.integration.test_notifier import (
    SEG_WORKLOAD,
    SEGFORMER,
    Timeline,
    _admit,
    _annotate,
    _docs,
    _find,
    _snapshot,
)

ALICE = "U0ALICE01"
T0 = datetime(2026, 11, 3, 9, 41, tzinfo=UTC)


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user(ALICE, name="alice", email="alice@example.com")
        yield fake


@pytest.fixture
def docs() -> list[dict[str, Any]]:
    return _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)


@pytest.fixture
async def started(
    slack: FakeSlack, docs: list[dict[str, Any]], tmp_path: Path
) -> AsyncIterator[tuple[Server, Timeline]]:
    """The server with one DM sent to Alice about segformer-finetune (waiting)."""
    source = Timeline(_snapshot(docs))
    server = build_server(
        bot_settings(slack), source, clock=Clock(T0), store=SQLiteStore(str(tmp_path / "s.db")), tick_seconds=3600
    )
    await server.start()
    try:
        assert server.notifier is not None
        yield server, source
    finally:
        await server.stop()


def _dms(slack: FakeSlack) -> list[Any]:
    return [c for c in slack.calls("chat.postMessage") if str(c.params.get("channel", "")).startswith("D")]


def _noise(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the passes logged at ERROR or with a traceback."""
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def _warnings(caplog: pytest.LogCaptureFixture, words: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno == logging.WARNING and words in r.getMessage()]


GONE = ["channel_not_found", "message_not_found", "cant_update_message", "account_inactive", "is_archived"]


@pytest.mark.parametrize("code", GONE)
async def test_a_closing_edit_slack_says_is_gone_closes_the_dm_once_with_one_warning(
    slack: FakeSlack, started: tuple[Server, Timeline], docs: list[dict[str, Any]], code: str,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    # Fails before the sorting of Slack's errors: every pass edited the DM again, each time with a traceback.
    server, source = started
    assert server.notifier is not None and server.store is not None
    await server.notifier.run_pass()
    assert len(_dms(slack)) == 1
    source.become(_snapshot(_admit(docs, SEG_WORKLOAD, "2026-11-03T10:00:00Z")))
    slack.fail("chat.update", error=code, times=100)
    caplog.set_level(logging.INFO)
    for _ in range(3):
        await server.notifier.run_pass()
    assert len(slack.calls("chat.update")) == 1
    assert (await server.store.load()).open_deliveries() == ()
    assert len(_warnings(caplog, "undeliverable")) == 1 and _noise(caplog) == []
    metrics = server.metrics.exposition().decode()
    assert f'kueue_bot_slack_undeliverable_total{{error="{code}"}} 1.0' in metrics


async def test_an_update_to_a_vanished_dm_is_closed_and_no_new_dm_replaces_it(
    slack: FakeSlack, started: tuple[Server, Timeline], docs: list[dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    # The DM's conversation went away while the job still waits. Fails if each pass edited it again (one
    # traceback a pass), or if the bot sent a new DM instead (never twice).
    server, source = started
    assert server.notifier is not None and server.store is not None
    await server.notifier.run_pass()
    stopped = copy.deepcopy(docs)
    _find(stopped, "ClusterQueue", "gpu-a100-shared")["spec"]["stopPolicy"] = "Hold"
    source.become(_snapshot(stopped))
    slack.fail("chat.update", error="channel_not_found", times=100)
    caplog.set_level(logging.INFO)
    for _ in range(3):
        await server.notifier.run_pass()
    assert len(slack.calls("chat.update")) == 1 and len(_dms(slack)) == 1
    assert (await server.store.load()).open_deliveries() == ()
    assert len(_warnings(caplog, "undeliverable")) == 1 and _noise(caplog) == []


async def test_a_dm_to_a_person_slack_no_longer_knows_is_given_up_once(
    slack: FakeSlack, docs: list[dict[str, Any]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A deactivated person: conversations.open says user_not_found. Fails if each pass tried again (the intent
    # recorded, then reconciled, opened and failed, a traceback each time).
    slack.fail("conversations.open", error="user_not_found", times=100)
    source = Timeline(_snapshot(docs))
    store = SQLiteStore(str(tmp_path / "s.db"))
    server = build_server(bot_settings(slack), source, clock=Clock(T0), store=store, tick_seconds=3600)
    await server.start()
    try:
        assert server.notifier is not None
        caplog.set_level(logging.INFO)
        for _ in range(3):
            await server.notifier.run_pass()
        assert len(slack.calls("conversations.open")) == 1 and _dms(slack) == []
        assert (await store.load()).open_deliveries() == ()
        assert len(_warnings(caplog, "undeliverable")) == 1 and _noise(caplog) == []
    finally:
        await server.stop()


async def test_a_passing_failure_is_one_warning_and_tried_again_later_each_time_later(
    slack: FakeSlack, started: tuple[Server, Timeline], docs: list[dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    # Slack fails the closing edit for a while (internal_error). Fails if a pass logged a traceback, if the
    # failing edit were tried at every pass for ever, or if it were never tried again.
    server, source = started
    assert server.notifier is not None and server.store is not None
    clock = server.notifier.clock
    assert isinstance(clock, Clock)
    await server.notifier.run_pass()
    source.become(_snapshot(_admit(docs, SEG_WORKLOAD, "2026-11-03T10:00:00Z")))
    slack.fail("chat.update", error="internal_error", times=3)
    caplog.set_level(logging.INFO)
    tries = []
    for _ in range(4):  # the first failure is tried at the next pass; the second one waits a minute
        await server.notifier.run_pass()
        tries.append(len(slack.calls("chat.update")))
    assert tries == [1, 2, 2, 2]
    clock.now += timedelta(minutes=1)
    await server.notifier.run_pass()  # the third failure: two minutes now
    clock.now += timedelta(minutes=1)
    await server.notifier.run_pass()
    assert len(slack.calls("chat.update")) == 3
    clock.now += timedelta(minutes=1)
    await server.notifier.run_pass()
    assert len(slack.calls("chat.update")) == 4  # Slack answers again: the DM says the job was admitted
    assert (await server.store.load()).open_deliveries() == ()
    assert len(_warnings(caplog, "tried again later")) == 3 and _noise(caplog) == []
