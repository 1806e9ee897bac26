"""Several clusters behind one router (bot.multicluster): the cluster is an argument of every call, never state
kept between calls, so a question settled in one cluster is followed up there while another task handles another
cluster at the same time; and a choice within a named cluster names it, so that the pick is answered there."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bot.kube.dump import read_dump
from bot.metrics import Metrics
from bot.multicluster import ClusterRouter
from bot.service.botservice import BotService
from bot.service.ports import AccessPolicy, ChannelPolicy, StaticSource
from bot.service.results import Answered, Asker, Choose
from bot.slack.parse import Command, Question
from bot.slack.posting import Private
from bot.slack.replies import Replies

from tests.builders import ago, cluster, local_queue, namespace, pending, snapshot
from tests.paths import SCENARIOS

NOW = datetime(2026, 11, 3, 9, 41, tzinfo=UTC)
USER, READER, CHANNEL = "U0ALICE01", "U0READER1", "C0MLVISION"
EU = "waiting-for-quota-computed-position"  # ml-vision/segformer-finetune
US = "article-three-cpus"  # equipe-data/train-octobre, in LocalQueue file-equipe-data


class HeldForOneReader:
    """Everyone may see every namespace; a check for `reader` waits until `release` is set (and says it began)."""

    per_person = True

    def __init__(self, reader: str) -> None:
        self.reader = reader
        self.reached = asyncio.Event()
        self.release = asyncio.Event()

    async def visible_namespaces(self, user: str, channel: str) -> Sequence[str] | None:
        return None

    async def may_see(self, user: str, channel: str, namespace: str) -> bool:
        if user == self.reader:
            self.reached.set()
            await self.release.wait()
        return True


async def _held_or_done(held: HeldForOneReader, task: asyncio.Task[Any]) -> None:
    """Until the task is held at its reader's check (or is done without one: then the asserts say what went
    wrong, rather than a test that never ends)."""
    reached = asyncio.create_task(held.reached.wait())
    await asyncio.wait({reached, task}, return_when=asyncio.FIRST_COMPLETED)
    reached.cancel()


def _service(scenario: str, policy: AccessPolicy) -> BotService:
    source = StaticSource(read_dump(SCENARIOS / scenario / "cluster.yaml").snapshot)
    return BotService(source, clock=lambda: NOW, policy=policy)


def _said(message: object) -> str:
    return str(getattr(message, "text", "")) + json.dumps(getattr(message, "blocks", []))


async def test_a_queue_found_in_one_cluster_is_followed_up_there_while_another_task_asks_the_other() -> None:
    # The channel sees ml-vision only in prod-eu; in prod-us it sees everything. A queue named alone is found in
    # prod-us; while its readers are checked there, another task answers a question in prod-eu. The queue's
    # follow-ups (who may read the names of those waiting) stay in prod-us: public, names shown.
    held = HeldForOneReader(READER)
    eu = _service(EU, ChannelPolicy(lambda channel: ("ml-vision",)))
    us = _service(US, held)
    replies = Replies(ClusterRouter({"prod-eu": eu, "prod-us": us}, clock=lambda: NOW), Metrics())
    queue = asyncio.create_task(replies.queue(Asker(USER, CHANNEL, (READER,)), None, "file-equipe-data", "en"))
    await _held_or_done(held, queue)  # settled in prod-us, its follow-up under way
    question = Question(Command.WHY, "ml-vision", "segformer-finetune", cluster="prod-eu")
    other = await replies.to_question(question, Asker(USER, CHANNEL), "en")
    held.release.set()
    shown = await queue
    assert "segformer-finetune" in _said(other[-1]) and "Cluster `prod-eu`" in _said(other[-1])
    assert not isinstance(shown, Private)
    assert "`equipe-data/train-octobre`" in _said(shown)  # the names, as prod-us's rules allow


async def test_a_question_settled_in_one_cluster_while_another_is_asked_concurrently_says_each_cluster() -> None:
    # No cluster named: each question is looked for in both and settled where its job is, at the same time.
    held = HeldForOneReader(READER)
    eu = _service(EU, ChannelPolicy(lambda channel: None))
    us = _service(US, held)
    router = ClusterRouter({"prod-eu": eu, "prod-us": us}, clock=lambda: NOW)
    in_us = asyncio.create_task(router.ask(Asker(USER, CHANNEL, (READER,)), "train-octobre", namespace=None, kind=None))
    await _held_or_done(held, in_us)  # prod-us found it; who else reads the answer is being checked there
    in_eu = await router.ask(Asker(USER, CHANNEL), "segformer-finetune", namespace=None, kind=None)
    held.release.set()
    found = await in_us
    assert isinstance(in_eu, Answered) and in_eu.cluster == "prod-eu"
    assert isinstance(found, Answered) and found.cluster == "prod-us"
    assert found.explanation.job.name == "train-octobre" and found.public


async def test_a_choice_within_a_named_cluster_names_it_and_the_pick_is_answered_there() -> None:
    # The same name in two namespaces of both clusters: asked in prod-us, the choice names prod-us, and the
    # namespace picked from it is asked about in prod-us (not looked for again in both).
    team_b = [namespace("team-b"), local_queue(namespace="team-b")]
    world = snapshot(
        [*cluster(), *team_b, *pending("train", created=ago(50)), *pending("train", namespace_name="team-b")]
    )
    eu, us = (BotService(StaticSource(world), clock=lambda: NOW) for _ in range(2))
    router = ClusterRouter({"prod-eu": eu, "prod-us": us}, clock=lambda: NOW)
    choice = await router.ask(Asker(USER, CHANNEL), "train", namespace=None, kind=None, cluster="prod-us")
    assert isinstance(choice, Choose)
    assert sorted(ns for ns, _, _ in choice.candidates) == ["prod-us/team-a", "prod-us/team-b"]
    picked = await router.ask(Asker(USER, CHANNEL), "train", namespace=choice.candidates[0][0], kind=None)
    assert isinstance(picked, Answered) and picked.cluster == "prod-us"
