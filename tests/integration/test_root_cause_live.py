"""Issue 11, root causes: the bot's live path (the informer cache and the reads it does for one question,
over real HTTP to the fake API server) says why an evicted job's pods never became ready as a dump does:
the job, its pods and the namespace's Warning events about Pods are read for a Workload Kueue evicted for
the PodsReady timeout, and only for such a Workload."""

from __future__ import annotations

from datetime import datetime

import pytest
import yaml
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.dump import parse_text
from bot.kube.informer import InformerSettings
from bot.kube.ondemand import OnDemand
from bot.trace.explain import Query, explain
from bot.trace.serialize import text

from tests.cache_support import wait_ready
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
