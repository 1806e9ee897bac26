"""The buttons: every button the renderer makes has a listener, and every listener a button (the action ids are
written once, in bot.slack.render; bot.slack.clicks maps them to the service's use cases)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from bot.metrics import Metrics
from bot.service.botservice import BotService
from bot.service.ports import StaticSource
from bot.service.results import Asker, Silence
from bot.slack import render
from bot.slack.calls import BoundedClient
from bot.slack.clicks import SILENCES, BadButton, Buttons, read_click
from bot.slack.posting import Poster
from bot.slack.replies import Replies
from bot.trace.explain import Query, explain

from tests.builders import ago, cluster, pending, snapshot

NOW = datetime(2026, 10, 14, 10, 30, tzinfo=UTC)


def _action_ids(value: object) -> set[str]:
    if isinstance(value, dict):
        found = {str(value["action_id"])} if "action_id" in value else set()
        return found.union(*(_action_ids(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(_action_ids(item) for item in value))
    return set()


async def _language(user: str) -> str:
    return "en"


async def _asker(user: str, channel: str) -> Asker:
    return Asker(user, channel)


async def test_every_button_the_renderer_makes_has_a_listener_and_every_listener_a_button() -> None:
    world = snapshot([*cluster(), *pending("train", created=ago(50))])
    explanation = explain(world, Query("team-a", "train", None), now=NOW)
    made: list[Any] = [
        render.answer_summary(explanation, language="en", links=render.Links("https://headlamp.example/c/main")).blocks,
        render.notification(explanation, language="en", reason="updated").blocks,
        render.choose_job([("team-a", "train", "Job"), ("team-b", "train", "Job")], language="en").blocks,
        render.choose_queue("user-queue", ["team-a", "team-b"], language="en").blocks,
        render.not_found("team-a", "trian", None, ["team-a/train"], language="en").blocks,
        render.home_view([("team-a", "train", explanation)], language="en")["blocks"],
    ]
    service = BotService(StaticSource(world), clock=lambda: NOW)
    metrics = Metrics()
    client = BoundedClient(token="xoxb-test")
    buttons = Buttons(
        service, metrics, Replies(service, metrics), Poster(client, metrics, _language, "en"), _language, _asker
    )
    assert _action_ids(made) == set(buttons.listeners())
    assert set(SILENCES.values()) == set(Silence)  # every way to silence a job has its button


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("not json", id="not-json"),
        pytest.param("[1, 2]", id="not-an-object"),
        pytest.param('{"ns": ["a"], "name": "x"}', id="a-list-for-a-string"),
        pytest.param('{"ns": "a", "name": 7}', id="a-number-for-a-string"),
    ],
)
def test_a_button_value_that_is_not_ours_is_a_bad_button(value: str) -> None:
    body = {"user": {"id": "U1"}, "actions": [{"action_id": render.ACTION_PICK, "value": value}]}
    with pytest.raises(BadButton):
        read_click(body)


def test_a_click_reads_who_where_which_and_its_thread() -> None:
    body = {
        "user": {"id": "U1"},
        "channel": {"id": "C1"},
        "container": {"message_ts": "1.2"},
        "message": {"ts": "1.2", "thread_ts": "1.0", "blocks": [{"type": "section"}, {"type": "divider"}]},
        "actions": [{"action_id": render.ACTION_RECHECK, "value": render.button_value(ns="team-a", name="train")}],
    }
    click = read_click(body)
    assert (click.user, click.channel, click.ts, click.thread, click.action) == (
        "U1",
        "C1",
        "1.2",
        "1.0",
        "kueue_recheck",
    )
    assert click.value == {
        "ns": "team-a",
        "name": "train",
        "kind": None,
        "lq": None,
        "cl": None,
    }  # cl: no cluster named (one cluster, or an older message)
    assert click.had_details
