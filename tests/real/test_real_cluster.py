"""Against a real kube-apiserver (and the real Kueue manager when it runs there): see conftest.py.

What the fakes cannot prove: Kueue's own conditions and messages explained, its pending-workloads API read
through the aggregation layer, deploy/'s ClusterRole enough and truly read-only, `serve` syncing and
answering in Slack, and watches of quiet kinds left alone for five minutes without a restart or an answer
that says it is old (issue 12)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from bot.cli import EXIT_OK, main
from bot.config import Secret, Settings
from bot.errors import Forbidden
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.ondemand import CacheSource, OnDemand
from bot.server import build_server
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation

from tests.cache_support import wait_for, wait_ready
from tests.fakes.slack_api import FakeSlack
from tests.real.cluster import Cluster, Queues


def _now() -> datetime:
    return datetime.now(UTC)


def _owned(cache: ClusterCache, namespace: str, job: str) -> Any:
    found = cache.workloads_owned_by(namespace, "Job", job)
    return found[0] if found else None


def _condition(cache: ClusterCache, namespace: str, job: str, kind: str) -> Any:
    workload = _owned(cache, namespace, job)
    return workload.condition(kind) if workload is not None else None


async def _ask(cache: ClusterCache, reader: KubeClient, namespace: str, job: str) -> Explanation:
    view = await OnDemand(reader, cache).snapshot_for(namespace, job, "Job")
    return explain(view, Query(namespace, job, "Job"), now=_now())


async def _three_jobs(cluster: Cluster, cache: ClusterCache, q: Queues) -> None:
    """one-a and one-b (1 CPU each) admitted by Kueue; three (3 CPU) never fits; one-c (1 CPU) waits."""
    for name, cpu in (("one-a", "1"), ("one-b", "1"), ("three", "3")):
        cluster.job(q.namespace, name, q.local_queue, cpu)
    await wait_for(cache, lambda: all(_condition(cache, q.namespace, j, "Admitted") for j in ("one-a", "one-b")), 60)
    await wait_for(cache, lambda: _condition(cache, q.namespace, "three", "QuotaReserved") is not None, 60)
    cluster.job(q.namespace, "one-c", q.local_queue, "1")
    await wait_for(cache, lambda: _condition(cache, q.namespace, "one-c", "QuotaReserved") is not None, 60)


async def test_real_jobs_and_kueue_s_own_conditions_are_explained(
    cluster: Cluster, reader: KubeClient, cache: ClusterCache, queues: Queues
) -> None:
    await _three_jobs(cluster, cache, queues)
    three = _condition(cache, queues.namespace, "three", "QuotaReserved")
    assert three.is_false and "3 > 2" in three.message  # Kueue's own words, as it writes them
    never = await _ask(cache, reader, queues.namespace, "three")
    assert never.verdict.value == "exceeds-max-quota"
    waiting = await _ask(cache, reader, queues.namespace, "one-c")
    assert waiting.verdict.value == "waiting-for-quota"
    assert waiting.position is not None and waiting.position.source == "visibility-api"
    admitted = await _ask(cache, reader, queues.namespace, "one-a")
    assert admitted.verdict.value != "waiting-for-quota"


def test_the_cli_reads_the_same_answer_live(
    cluster: Cluster, queues: Queues, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, cpu in (("one-a", "1"), ("one-b", "1"), ("three", "3")):
        cluster.job(queues.namespace, name, queues.local_queue, cpu)
    answers = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # Kueue writes its conditions within a second or two
        code = main(
            ["explain", f"{queues.namespace}/three", "--kubeconfig", str(cluster.reader_path), "--format", "json"]
        )
        out = capsys.readouterr().out
        assert code == EXIT_OK
        answers = json.loads(out)
        if answers["verdict"] == "exceeds-max-quota":
            break
        time.sleep(0.5)
    assert answers["verdict"] == "exceeds-max-quota"


async def test_the_deploy_cluster_role_is_enough_and_read_only(
    cluster: Cluster, reader: KubeClient, cache: ClusterCache
) -> None:
    served = {kind for kind in cache.informers if cache.served(kind)}
    assert {"Workload", "LocalQueue", "ClusterQueue", "ResourceFlavor"} <= served and not cache.errors
    with pytest.raises(Forbidden):
        reader.create(
            f"/api/v1/namespaces/{cluster.reader_namespace}/configmaps",
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "nope"}},
        )
    with pytest.raises(Forbidden):
        reader.delete(cluster.kueue_path("clusterqueues", name="anything"))
    with pytest.raises(Forbidden):
        reader.patch(f"/api/v1/namespaces/{cluster.reader_namespace}", {"metadata": {"labels": {"a": "b"}}})


@pytest.mark.timeout(900)
async def test_quiet_watches_live_five_minutes_and_answers_stay_fresh(
    cluster: Cluster, reader: KubeClient, cache: ClusterCache, queues: Queues
) -> None:
    """Nobody edits ResourceFlavors or ClusterQueues for five minutes: the API server sends their watches
    nothing, not even bookmarks. No watch may be restarted for it and the cache must not call itself old."""
    await _three_jobs(cluster, cache, queues)
    watches = {kind: informer.watches for kind, informer in cache.informers.items()}
    await asyncio.sleep(300)  # the point of the test: five quiet minutes on a real server
    for kind, informer in cache.informers.items():
        if cache.served(kind):
            assert informer.last_error == "" and informer.failures == 0 and informer.lists == 1, kind
            assert informer.watches - watches[kind] <= 1, kind  # at most the renewal at its timeoutSeconds
    assert cache.stale_seconds(_now()) == 0 and cache.watching() == {k for k in cache.informers if cache.served(k)}
    changed = time.monotonic()
    cluster.set_quota(queues.cluster_queue, "6")  # 2 in use + three (3) + one-c (1): Kueue admits both
    await wait_for(cache, lambda: bool(_condition(cache, queues.namespace, "three", "QuotaReserved").is_true), 60)
    seen_after = time.monotonic() - changed
    answer = await _ask(cache, reader, queues.namespace, "three")
    assert answer.verdict.value != "exceeds-max-quota", answer.verdict
    print(f"quota change to Kueue's admission seen by the cache after {seen_after:.2f} s")


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user("U0ALICE01", name="alice", email="alice@example.com")
        fake.add_channel("C0REAL", "real", members=["U0ALICE01"])
        yield fake


async def test_serve_syncs_and_answers_in_slack(
    cluster: Cluster, reader: KubeClient, queues: Queues, slack: FakeSlack
) -> None:
    settings = Settings(
        slack_bot_token=Secret(slack.bot_token),
        slack_signing_secret=Secret(slack.signing_secret),
        slack_api_url=slack.api_url,
        host="127.0.0.1",
        port=0,
        log_format="text",
    )
    source = CacheSource.connect(reader, clock=_now, freeze_gc=False)
    server = build_server(settings, source, clock=_now)
    await server.start()
    try:
        await wait_ready(source.cache, 60)
        await _three_jobs(cluster, source.cache, queues)
        event = slack.app_mention_event("U0ALICE01", "C0REAL", f"why is {queues.namespace}/three pending?")
        await slack.deliver_event(f"{server.url}/slack/events", event)
        call = await slack.wait_for_call(
            "chat.postMessage",
            lambda c: c.params.get("thread_ts") == event["ts"] and bool(c.response and c.response["ok"]),
        )
        reply = str(call.params.get("text", "")) + json.dumps(call.params.get("blocks") or [])
        assert "exceeds-max-quota" in reply
        assert "min ago" not in reply  # fresh: the watches are open
        # The ETA warmer runs over the real API server's cache: woken by its changes, it made the queue's
        # Estimators (bot.service.warmer).
        (warmer,) = server.warmers
        async with asyncio.timeout(30):
            while warmer.made < 1:
                await warmer.wait_for_pass(warmer.passes + 1, timeout=30)
    finally:
        await server.stop()
