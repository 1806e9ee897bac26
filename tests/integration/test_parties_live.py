"""The situations of tests/data/parties on a live cluster (the fake API server, over HTTP), from the CLI's reads
and from the bot's informer cache with its on-demand reads: the live answer is the dump's (verdict, Workload,
position), so the reads find what the dump holds (a Deployment's pods, through its ReplicaSet, before v0.20's
Deployment-level Workloads)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from bot.cli import EXIT_OK, main
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.decode import parse_time
from bot.kube.dump import read_dump
from bot.kube.informer import InformerSettings
from bot.kube.ondemand import OnDemand
from bot.trace.explain import Query, explain
from bot.trace.resolve import canonical_kind

from tests.cache_support import wait_ready
from tests.clocks import Clock
from tests.fakes.kube_api import FakeKubeAPI
from tests.paths import DATA

PARTIES = DATA / "parties"
FAST = InformerSettings(backoff_base=0.05, backoff_cap=0.2, watch_timeout_seconds=60, request_timeout=5.0)
NAMES = sorted(p.parent.name for p in PARTIES.glob("*/expect.yaml"))


@pytest.fixture
def server() -> Iterator[FakeKubeAPI]:
    api = FakeKubeAPI(token="admin-token")
    handle = api.start_in_thread()
    try:
        yield api
    finally:
        handle.stop()


def _answer(capsys: pytest.CaptureFixture[str], expect: dict[str, object], *source: str) -> dict[str, object]:
    query = expect["query"]
    assert isinstance(query, dict)
    target = f"{query['namespace']}/{query['name']}"
    code = main(
        [
            "explain",
            target,
            "--kind",
            str(query.get("kind", "Job")),
            *source,
            "--now",
            str(expect["now"]),
            "--format",
            "json",
        ]
    )
    captured = capsys.readouterr()
    assert code == EXIT_OK, captured.err
    answer = json.loads(captured.out)
    assert isinstance(answer, dict)
    return answer


@pytest.mark.parametrize("name", NAMES)
def test_the_live_answer_is_the_dump_answer(
    name: str, server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = PARTIES / name / "cluster.yaml"
    server.load_dump(dump)
    expect = yaml.safe_load((PARTIES / name / "expect.yaml").read_text(encoding="utf-8"))
    live = _answer(capsys, expect, "--kubeconfig", str(server.write_kubeconfig(tmp_path / "kubeconfig")))
    offline = _answer(capsys, expect, "--from-file", str(dump))
    assert (live["verdict"], live["workload"]) == (offline["verdict"], offline["workload"])
    places = [_place(answer) for answer in (live, offline)]
    assert places[0] == places[1]
    assert live["verdict"] == expect["verdict"]


@pytest.mark.fake_kube(bookmark_interval=0.1)
@pytest.mark.parametrize("name", NAMES)
async def test_the_cache_answers_as_the_dump(name: str, api: FakeKubeAPI, client: KubeClient) -> None:
    dump = PARTIES / name / "cluster.yaml"
    api.load_dump(dump)
    expect = yaml.safe_load((PARTIES / name / "expect.yaml").read_text(encoding="utf-8"))
    query = Query(expect["query"]["namespace"], expect["query"]["name"], canonical_kind(expect["query"]["kind"]))
    now = parse_time(str(expect["now"]))
    assert now is not None
    offline = explain(read_dump(dump).snapshot, query, now=now)
    async with ClusterCache(client, clock=Clock(), settings=FAST) as cache:
        await wait_ready(cache, 10)
        view = await OnDemand(client, cache, visibility=False).snapshot_for(query.namespace, query.name, query.kind)
        live = explain(view, query, now=now)
    assert (live.verdict, live.workload) == (offline.verdict, offline.workload)
    assert live.verdict.value == expect["verdict"]


def _place(answer: dict[str, object]) -> dict[str, object]:
    """The answer's place in its ClusterQueue and LocalQueue (None each when it has no position)."""
    position = answer["position"]
    found = position if isinstance(position, dict) else {}
    return {key: found.get(key) for key in ("clusterQueue", "localQueue")}
