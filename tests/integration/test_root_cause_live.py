"""Issue 11 on the bot's live path (the informer cache and the reads it does for one question, over real HTTP
to the fake API server), answered as a dump is: why an evicted job's pods never became ready (the job, its
pods and the namespace's Warning events about Pods are read for a Workload Kueue evicted for the PodsReady
timeout, and only for such a Workload), and the workloads waitForPodsReady.blockAdmission waits on."""

from __future__ import annotations

from datetime import datetime

import pytest
import yaml
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.dump import parse_text
from bot.kube.informer import InformerSettings
from bot.kube.ondemand import OnDemand
from bot.trace.codes import Verdict
from bot.trace.explain import Query, explain
from bot.trace.serialize import text

from tests.builders import (
    NOW,
    NS,
    ago,
    assignment,
    cluster,
    cluster_queue,
    condition,
    job,
    local_queue,
    namespace,
    pending,
    reserved,
    snapshot,
    workload,
)
from tests.cache_support import wait_for, wait_ready
from tests.clocks import Clock
from tests.fakes.kube_api import FakeKubeAPI
from tests.paths import SCENARIOS

FAST = InformerSettings(backoff_base=0.05, backoff_cap=0.2, watch_timeout_seconds=60, request_timeout=5.0)
pytestmark = pytest.mark.fake_kube(bookmark_interval=0.1)


async def test_an_evicted_job_gets_its_root_cause_live(api: FakeKubeAPI, client: KubeClient) -> None:
    path = SCENARIOS / "requeue-backoff" / "cluster.yaml"
    api.load_dump(path)
    expect = yaml.safe_load((SCENARIOS / "requeue-backoff" / "expect.yaml").read_text())
    query = Query(expect["query"]["namespace"], expect["query"]["name"], "Job")
    now = datetime.fromisoformat(str(expect["now"]).replace("Z", "+00:00"))
    dump = explain(parse_text(path.read_text()).snapshot, query, now=now)
    async with ClusterCache(client, clock=Clock(), settings=FAST) as cache:
        await wait_ready(cache, 10)
        api.clear_requests()
        view = await OnDemand(client, cache, visibility=False).snapshot_for(query.namespace, query.name, "Job")
        live = explain(view, query, now=now)
    assert live.verdict == dump.verdict
    for language in ("en", "fr"):
        assert text(live.headline, language) == text(dump.headline, language)
    assert "detector-retrain-v2-n5w8c" in text(live.headline, "en")
    assert [a.code for a in live.actions] == [a.code for a in dump.actions] == ["fix-image"]
    events = [r for r in api.requests if r.path.endswith("/events")]
    assert [r.query.get("fieldSelector") for r in events] == [
        "involvedObject.kind=Job,involvedObject.name=detector-retrain-v2",
        "involvedObject.kind=Pod,type=Warning",
    ]


async def test_the_workloads_holding_admission_are_named_live(api: FakeKubeAPI, client: KubeClient) -> None:
    # the informer cache's view holds one namespace's Workloads; those blockAdmission waits on come from the
    # whole cache (OnDemand adds them for a Workload Kueue holds back for them), at no request
    waits = condition(
        "QuotaReserved", False, "WaitingForPodsReady", "waiting for all admitted workloads to be in PodsReady condition"
    )
    loader = job("loader", "team-b", suspend=False)
    holder = workload(
        of=loader,
        namespace="team-b",
        status=reserved("cq2", assignment("main", 1, default={"cpu": "1"}), at=ago(7)),
        conditions=[condition("PodsReady", False, "WaitForStart", "")],
    )
    objects = [
        *cluster(),
        namespace("team-b"),
        cluster_queue("cq2"),
        local_queue(namespace="team-b", cluster_queue="cq2"),
        holder,
        *pending(conditions=[waits]),
    ]
    for raw in objects:
        api.add(raw)
    query = Query(NS, "train", "Job")
    async with ClusterCache(client, clock=Clock(), settings=FAST) as cache:
        await wait_ready(cache, 10)
        await wait_for(cache, lambda: cache.workload("team-b", holder["metadata"]["name"]) is not None)
        api.clear_requests()
        view = await OnDemand(client, cache, visibility=False).snapshot_for(NS, "train", "Job")
        live = explain(view, query, now=NOW)
    assert [r for r in api.requests if not r.watch] == [], "no request but the watches"
    dump = explain(snapshot(objects), query, now=NOW)
    assert live.verdict == dump.verdict == Verdict.WAITING_FOR_PODS_READY
    codes = [s.code for s in live.steps]
    assert "position.pods-ready-blocker" in codes and "position.pods-ready-none" not in codes
    assert [s.data.get("blocker") for s in live.steps if s.code == "position.pods-ready-blocker"] == ["team-b/loader"]
    for language in ("en", "fr"):
        assert text(live.headline, language) == text(dump.headline, language)
