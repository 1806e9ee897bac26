"""Several clusters in one bot (issue 17, item 1), end to end: two fake Kubernetes API servers, each behind its
own informer cache, the production server with both, the Slack stand-in over HTTP. A question names its
cluster or is looked for in both; one cluster going away mid-test never stops the other's answers, and
/readyz and /metrics say which one is away."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from bot.config import Secret, Settings
from bot.kube.client import KubeClient, load_api_client
from bot.kube.ondemand import CacheSource
from bot.server import Server, build_server

from tests.cache_support import wait_for, wait_ready
from tests.fakes.kube_api import FakeKubeAPI
from tests.fakes.slack_api import FakeSlack
from tests.paths import SCENARIOS

USER = "U0ALICE01"
CHANNEL = "C0MLVISION"
NOW = datetime(2026, 11, 3, 9, 41, tzinfo=UTC)
EU = "waiting-for-quota-computed-position"  # ml-vision/segformer-finetune, ml-nlp/llm-eval-suite-xl
US = "article-three-cpus"  # equipe-data/train-octobre


@dataclass
class Two:
    server: Server
    eu: FakeKubeAPI
    us: FakeKubeAPI
    sources: dict[str, CacheSource]


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user(USER, name="alice", locale="en-US")
        fake.add_channel(CHANNEL, "ml-vision", members=[USER])
        yield fake


def _settings(slack: FakeSlack, **overrides: Any) -> Settings:
    base = Settings(
        slack_bot_token=Secret(slack.bot_token),
        slack_signing_secret=Secret(slack.signing_secret),
        slack_api_url=slack.api_url,
        host="127.0.0.1",
        port=0,
        log_format="text",
    )
    return base.__class__(**{**base.__dict__, **overrides})


@pytest.fixture
def closing() -> Iterator[list[Any]]:
    opened: list[Any] = []
    yield opened
    for api_client in opened:
        api_client.close()


async def _two(
    slack: FakeSlack,
    tmp_path: Path,
    closing: list[Any],
    eu: FakeKubeAPI,
    us: FakeKubeAPI,
    store: Any = None,
    **kw: Any,
) -> Two:
    sources: dict[str, CacheSource] = {}
    for name, api in (("prod-eu", eu), ("prod-us", us)):
        api_client = load_api_client(str(api.write_kubeconfig(tmp_path / f"kubeconfig-{name}")))
        closing.append(api_client)
        sources[name] = CacheSource.connect(KubeClient(api_client), clock=lambda: NOW, freeze_gc=False)
    settings = _settings(slack, **kw)
    server = build_server(settings, sources["prod-eu"], clock=lambda: NOW, clusters=sources, store=store)
    await server.start()
    for source in sources.values():
        await wait_ready(source.cache, 15)
    return Two(server, eu, us, sources)


@pytest.fixture
async def apis() -> AsyncIterator[tuple[FakeKubeAPI, FakeKubeAPI]]:
    async with FakeKubeAPI() as eu, FakeKubeAPI() as us:
        eu.load_dump(SCENARIOS / EU / "cluster.yaml")
        us.load_dump(SCENARIOS / US / "cluster.yaml")
        yield eu, us


async def _ask(slack: FakeSlack, server: Server, text: str, nth: int) -> str:
    event = slack.app_mention_event(USER, CHANNEL, text)
    await slack.deliver_event(f"{server.url}/slack/events", event)
    post = await slack.wait_for_call("chat.postMessage", nth=nth)
    return str(post.params.get("text", "")) + json.dumps(post.params.get("blocks") or [])


async def _get(server: Server, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(f"{server.url}{path}") as response:
        return response.status, await response.text()


async def test_answers_from_either_cluster_and_the_other_keeps_answering_when_one_goes_away(
    slack: FakeSlack, tmp_path: Path, closing: list[Any], apis: tuple[FakeKubeAPI, FakeKubeAPI]
) -> None:
    two = await _two(slack, tmp_path, closing, *apis)
    try:
        # No cluster named: found in the one cluster that has it, and the answer says which.
        answer = await _ask(slack, two.server, "why is train-octobre pending?", 1)
        assert "exceeds-max-quota" in answer or "never be admitted" in answer
        assert "prod-us" in answer
        answer = await _ask(slack, two.server, "prod-eu/ml-vision/segformer-finetune", 2)
        assert "prod-eu" in answer and "segformer-finetune" in answer
        status, body = await _get(two.server, "/readyz")
        assert status == 200 and json.loads(body)["clusters"]["prod-us"]["state"] == "ok"
        # prod-us goes away: prod-eu's answers keep coming; /readyz and /metrics say prod-us is away.
        await two.us.go_offline()
        await wait_for(two.sources["prod-us"].cache, lambda: bool(two.sources["prod-us"].cache.errors), 15)
        answer = await _ask(slack, two.server, "why is segformer-finetune pending --cluster prod-eu", 3)
        assert "prod-eu" in answer and "segformer-finetune" in answer
        status, body = await _get(two.server, "/readyz")
        clusters = json.loads(body)["clusters"]
        assert status == 200 and clusters["prod-us"]["state"] == "stale" and clusters["prod-eu"]["state"] == "ok"
        _, metrics = await _get(two.server, "/metrics")
        assert 'kueue_bot_cluster_up{cluster="prod-us"} 0.0' in metrics
        assert 'kueue_bot_cluster_up{cluster="prod-eu"} 1.0' in metrics
        assert 'kueue_bot_cluster_cache_objects{cluster="prod-eu",kind="Workload"}' in metrics
        await two.us.go_online()
    finally:
        await two.server.stop()


async def test_a_job_in_both_clusters_offers_the_choice(slack: FakeSlack, tmp_path: Path, closing: list[Any]) -> None:
    async with FakeKubeAPI() as eu, FakeKubeAPI() as us:
        eu.load_dump(SCENARIOS / EU / "cluster.yaml")
        us.load_dump(SCENARIOS / EU / "cluster.yaml")
        two = await _two(slack, tmp_path, closing, eu, us)
        try:
            answer = await _ask(slack, two.server, "why is segformer-finetune pending?", 1)
            assert "prod-eu/ml-vision" in answer and "prod-us/ml-vision" in answer
        finally:
            await two.server.stop()


async def test_access_rules_per_cluster(
    slack: FakeSlack, tmp_path: Path, closing: list[Any], apis: tuple[FakeKubeAPI, FakeKubeAPI]
) -> None:
    # The channel sees ml-vision in prod-eu only: prod-us's equipe-data is not found, prod-eu's job is.
    two = await _two(slack, tmp_path, closing, *apis, channel_namespaces={CHANNEL: ("prod-eu/ml-vision",)})
    try:
        answer = await _ask(slack, two.server, "why is train-octobre pending?", 1)
        assert "exceeds-max-quota" not in answer and "never be admitted" not in answer
        answer = await _ask(slack, two.server, "why is segformer-finetune pending?", 2)
        assert "prod-eu" in answer and "segformer-finetune" in answer
    finally:
        await two.server.stop()


async def test_an_unknown_cluster_is_refused_never_answered_from_another(
    slack: FakeSlack, tmp_path: Path, closing: list[Any], apis: tuple[FakeKubeAPI, FakeKubeAPI]
) -> None:
    # train-octobre exists in prod-us only: "--cluster prod-uss" must not be answered from prod-us (or prod-eu).
    two = await _two(slack, tmp_path, closing, *apis)
    try:
        answer = await _ask(slack, two.server, "why is train-octobre pending --cluster prod-uss", 1)
        assert "I serve no cluster named `prod-uss`; did you mean `prod-us`?" in answer
        assert "`prod-eu`, `prod-us`" in answer
        assert "exceeds-max-quota" not in answer and "never be admitted" not in answer
        post = slack.calls("chat.postMessage")[0]
        assert post.params.get("thread_ts"), "the refusal is in the question's thread"
        url = f"{two.server.url}/slack/events"
        await slack.deliver_slash_command(
            url, text="why train-octobre --cluster=mars", user_id=USER, channel_id=CHANNEL
        )
        refusal = await slack.wait_for_response_url()
        text = str(refusal.body.get("text", ""))
        assert refusal.body.get("response_type") == "ephemeral"
        assert "I serve no cluster named `mars`. The clusters I serve: `prod-eu`, `prod-us`." in text
        slack.add_user("U0BRUNO01", name="bruno", locale="fr-FR")
        event = slack.app_mention_event("U0BRUNO01", CHANNEL, "pourquoi train-octobre --cluster prod-uss")
        await slack.deliver_event(url, event)
        french = await slack.wait_for_call("chat.postMessage", nth=2)
        assert "Je ne sers aucun cluster nommé `prod-uss` ; vouliez-vous dire `prod-us` ?" in str(french.params["text"])
    finally:
        await two.server.stop()


async def test_buttons_name_their_cluster_and_older_buttons_still_work(
    slack: FakeSlack, tmp_path: Path, closing: list[Any]
) -> None:
    # The same job in both clusters: a Re-check must answer from the cluster its answer came from.
    async with FakeKubeAPI() as eu, FakeKubeAPI() as us:
        eu.load_dump(SCENARIOS / EU / "cluster.yaml")
        us.load_dump(SCENARIOS / EU / "cluster.yaml")
        two = await _two(slack, tmp_path, closing, eu, us)
        try:
            await _ask(slack, two.server, "prod-us/ml-vision/segformer-finetune", 1)
            post = slack.calls("chat.postMessage")[0]
            values = [
                json.loads(element["value"])
                for block in post.params["blocks"]
                if block.get("type") == "actions"
                for element in block["elements"]
            ]
            assert values and all(value.get("cl") == "prod-us" for value in values)
            recheck = values[0]  # Re-check's, as the bot made it
            assert post.response is not None
            url = f"{two.server.url}/slack/events"
            await slack.deliver_block_action(
                url,
                action_id="kueue_recheck",
                user_id=USER,
                channel_id=CHANNEL,
                message_ts=post.response["ts"],
            )
            update = await slack.wait_for_call("chat.update")
            blocks = json.dumps(update.params.get("blocks") or [])
            assert "segformer-finetune" in blocks and '\\"cl\\":\\"prod-us\\"' in blocks
            # A button of an older message names no cluster: asked as it was, the job is in both: a choice.
            older = {key: value for key, value in recheck.items() if key != "cl"}
            await slack.deliver_block_action(
                url,
                action_id="kueue_recheck",
                user_id=USER,
                channel_id=CHANNEL,
                message_ts=post.response["ts"],
                value=json.dumps(older),
            )
            choice = await slack.wait_for_call("chat.postMessage", nth=2)
            text = json.dumps(choice.params.get("blocks") or []) + str(choice.params.get("text"))
            assert "prod-eu/ml-vision" in text and "prod-us/ml-vision" in text
        finally:
            await two.server.stop()


async def test_a_recheck_in_one_cluster_and_a_question_in_the_other_handled_together_each_keep_theirs(
    slack: FakeSlack, tmp_path: Path, closing: list[Any]
) -> None:
    # The same job in both clusters. An answer from prod-us; then its Re-check and a question naming prod-eu
    # arrive together (handled at the same time): the Re-check answers from prod-us, the question from prod-eu.
    async with FakeKubeAPI() as eu, FakeKubeAPI() as us:
        eu.load_dump(SCENARIOS / EU / "cluster.yaml")
        us.load_dump(SCENARIOS / EU / "cluster.yaml")
        two = await _two(slack, tmp_path, closing, eu, us)
        try:
            await _ask(slack, two.server, "why is segformer-finetune pending? --cluster prod-us", 1)
            post = slack.calls("chat.postMessage")[0]
            assert post.response is not None
            url = f"{two.server.url}/slack/events"
            question = slack.app_mention_event(USER, CHANNEL, "why is segformer-finetune pending --cluster prod-eu")
            await asyncio.gather(
                slack.deliver_block_action(
                    url, action_id="kueue_recheck", user_id=USER, channel_id=CHANNEL, message_ts=post.response["ts"]
                ),
                slack.deliver_event(url, question),
            )
            rechecked = json.dumps((await slack.wait_for_call("chat.update")).params.get("blocks") or [])
            answered = json.dumps((await slack.wait_for_call("chat.postMessage", nth=2)).params.get("blocks") or [])
            assert '\\"cl\\":\\"prod-us\\"' in rechecked and "prod-eu" not in rechecked
            assert "Cluster `prod-eu`" in answered and '\\"cl\\":\\"prod-eu\\"' in answered
            assert "prod-us" not in answered
        finally:
            await two.server.stop()


async def test_each_clusters_rbac_decides_for_its_namespaces(
    tmp_path: Path, closing: list[Any], apis: tuple[FakeKubeAPI, FakeKubeAPI]
) -> None:
    # Alice may read every namespace by prod-eu's RBAC, none of prod-us's: a question about prod-us is refused
    # (it was reviewed by the first cluster's API server, which allowed it).
    eu, us = apis
    identity = "oidc:alice@example.com"
    eu.add_identity("alice-eu", identity)  # no rules given: allowed everything
    us.add_identity("alice-us", identity, rules=[])  # allowed nothing
    async with FakeSlack() as slack:
        slack.add_user(USER, name="alice", locale="en-US", email="alice@example.com")
        slack.add_channel(CHANNEL, "ml-vision", members=[USER])
        kubeconfig = str(eu.write_kubeconfig(tmp_path / "kubeconfig-first"))
        two = await _two(slack, tmp_path, closing, eu, us, user_identity_template="oidc:{email}", kubeconfig=kubeconfig)
        try:
            url = f"{two.server.url}/slack/events"
            await slack.deliver_event(url, slack.app_mention_event(USER, CHANNEL, "prod-us/equipe-data/train-octobre"))
            refusal = await slack.wait_for_call("chat.postEphemeral")
            assert "equipe-data" in str(refusal.params.get("text"))
            assert "prod-us" in str(refusal.params.get("text"))  # the refusal names the cluster too
            answer = await _ask(slack, two.server, "prod-eu/ml-vision/segformer-finetune", 1)
            assert "segformer-finetune" in answer and "prod-eu" in answer
            posts = json.dumps([call.params for call in slack.calls("chat.postMessage")])
            assert "exceeds-max-quota" not in posts  # prod-us answered nothing about its job
        finally:
            await two.server.stop()


async def test_a_watch_in_the_second_cluster_gets_one_dm_from_that_clusters_watcher(
    slack: FakeSlack, tmp_path: Path, closing: list[Any], apis: tuple[FakeKubeAPI, FakeKubeAPI]
) -> None:
    # Proactive DMs for every cluster (they watched the first one only): a watch of prod-us's job gets its DM,
    # naming the cluster, once; the first cluster's watcher never closes it (the job is not in its cluster).
    from bot.notify.store import SQLiteStore

    store = SQLiteStore(str(tmp_path / "state.sqlite3"))
    two = await _two(slack, tmp_path, closing, *apis, store=store)
    try:
        assert two.server.notifier is not None and set(two.server.cluster_notifiers) == {"prod-us"}
        await _ask(slack, two.server, "watch prod-us/equipe-data/train-octobre", 1)
        state = await store.load()
        assert [(s.namespace, s.name) for s in state.subscriptions] == [("prod-us/equipe-data", "train-octobre")]
        us = two.server.cluster_notifiers["prod-us"]
        await us.run_pass()
        dms = [c for c in slack.calls("chat.postMessage") if c.params["channel"] == slack.dm_channel(USER)]
        assert len(dms) == 1
        text = json.dumps(dms[0].params.get("blocks") or [])
        assert "train-octobre" in text and "Cluster `prod-us`" in text and '\\"cl\\":\\"prod-us\\"' in text
        await two.server.notifier.run_pass()  # the first cluster's watcher: not its job, nothing to close
        await us.run_pass()  # nothing changed: nothing sent again
        state = await store.load()
        assert [d.closed_at for d in state.deliveries] == [None]
        assert all(d.key.startswith("prod-us/equipe-data/") for d in state.deliveries)
        assert len([c for c in slack.calls("chat.postMessage") if c.params["channel"] == slack.dm_channel(USER)]) == 1
        assert slack.calls("chat.update") == []
    finally:
        await two.server.stop()
