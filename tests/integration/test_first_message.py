"""The first message of every answer is enough to act: over every scenario (the project's and, when the shared
folder sits beside it, the shared ones), `serve` answers a mention through the Slack stand-in, and the first
message in the thread is within 900 visible characters and 8 blocks, names every fact the scenario says a
correct answer names (its `mentions`) and the place in the queue, and has a "Show the steps" button that
posts the admission path in the thread. Real HTTP, no mocks."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.kube.dump import read_dump
from bot.server import Server, build_server
from bot.service.ports import StaticSource
from bot.slack.render import ACTION_SHOW_STEPS, FIRST_MAX_BLOCKS, FIRST_MAX_VISIBLE

from tests.fakes.slack_api import FakeSlack, bot_settings
from tests.paths import SCENARIOS, SHARED_SCENARIOS
from tests.visible import visible_chars, visible_text

USER = "U0ASKER01"
CHANNEL = "C0QUESTION"


def _folders() -> list[Path]:
    """Every scenario folder, each once (a shared one identical to the project's copy is not run twice)."""
    seen: set[str] = set()
    found = []
    for root in (SCENARIOS, SHARED_SCENARIOS):
        for folder in sorted(root.glob("*/expect.yaml")) if root.is_dir() else []:
            digest = hashlib.sha256(folder.read_bytes() + (folder.parent / "cluster.yaml").read_bytes()).hexdigest()
            if digest not in seen:
                seen.add(digest)
                found.append(folder.parent)
    return found


FOLDERS = _folders()


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user(USER, name="asker", locale="en-US")
        fake.add_channel(CHANNEL, "questions", members=[USER])
        yield fake


async def _served(slack: FakeSlack, folder: Path, now: datetime) -> Server:
    source = StaticSource(read_dump(folder / "cluster.yaml").snapshot)
    server = build_server(bot_settings(slack), source, clock=lambda: now)
    await server.start()
    return server


def _question(query: dict[str, Any]) -> str:
    kind = str(query.get("kind") or "Job")
    path = f"{query['namespace']}/{query['name']}" if kind == "Job" else f"{query['namespace']}/{kind}/{query['name']}"
    return f"why is {path} pending?"


def _ordinal(number: int) -> str:
    if number % 100 in (11, 12, 13):
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


def test_there_are_scenarios_to_read() -> None:
    assert len(FOLDERS) >= 13


@pytest.mark.parametrize("folder", FOLDERS, ids=[f"{f.parent.parent.name}-{f.name}" for f in FOLDERS])
async def test_the_first_message_is_enough_to_act(slack: FakeSlack, folder: Path) -> None:
    expect = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))
    now = datetime.fromisoformat(str(expect["now"]).replace("Z", "+00:00"))
    server = await _served(slack, folder, now)
    try:
        event = slack.app_mention_event(USER, CHANNEL, _question(expect["query"]))
        await slack.deliver_event(f"{server.url}/slack/events", event)
        first = await slack.wait_for_call("chat.postMessage")
        assert first.params["thread_ts"] == event["ts"]
        blocks = (
            json.loads(first.params["blocks"]) if isinstance(first.params["blocks"], str) else first.params["blocks"]
        )
        seen = visible_text(blocks)
        assert len(blocks) <= FIRST_MAX_BLOCKS, seen
        assert visible_chars(blocks) <= FIRST_MAX_VISIBLE, seen
        for fact in expect.get("mentions") or []:  # the blocker and its numbers, named by the first message alone
            assert str(fact) in seen, f"{fact!r} not in the first message:\n{seen}"
        place = (expect.get("position") or {}).get("clusterQueue")
        if place is not None:
            assert f"{_ordinal(int(place))} of" in seen, seen
        buttons = [e for b in blocks if b["type"] == "actions" for e in b["elements"]]
        assert ACTION_SHOW_STEPS in [b.get("action_id") for b in buttons]
        assert first.response is not None
        await slack.deliver_block_action(
            f"{server.url}/slack/events",
            action_id=ACTION_SHOW_STEPS,
            user_id=USER,
            channel_id=CHANNEL,
            message_ts=first.response["ts"],
        )
        steps = await slack.wait_for_call("chat.postMessage", nth=2)
        assert steps.params["thread_ts"] == event["ts"]
        assert "admission path" in str(steps.params.get("text"))
    finally:
        await server.stop()
