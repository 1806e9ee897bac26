"""The informer cache over real HTTP to the fake API server: the same answers as a dump, questions that
cost no request, updates applied, and a cache that keeps answering (and says how old it is) when the
API server goes away."""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.dump import parse_text
from bot.kube.informer import InformerSettings
from bot.kube.ondemand import CacheSource, OnDemand
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation

from tests.cache_support import wait_for, wait_ready
from tests.clocks import Clock
from tests.fakes.kube_api import FakeKubeAPI
from tests.paths import SCENARIOS

ROOT = Path(__file__).resolve().parents[2]
NAMES = sorted(p.parent.name for p in SCENARIOS.glob("*/expect.yaml"))
FAST = InformerSettings(backoff_base=0.05, backoff_cap=0.2, watch_timeout_seconds=60, request_timeout=5.0)
NS = "team-a"


pytestmark = pytest.mark.fake_kube(bookmark_interval=0.1)


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    yield
    leaked = [t.name for t in threading.enumerate() if t.name.startswith("informer-")]
    assert not leaked, f"informer threads left running: {leaked}"


def _expect(name: str) -> dict[str, Any]:
    data = yaml.safe_load((SCENARIOS / name / "expect.yaml").read_text())
    assert isinstance(data, dict)
    return data


def _position(explanation: Explanation) -> tuple[int, int | None, str] | None:
    position = explanation.position
    return None if position is None else (position.cluster_queue, position.local_queue, position.source)


@pytest.mark.parametrize("name", NAMES)
async def test_the_cache_answers_as_the_dump(name: str, api: FakeKubeAPI, client: KubeClient) -> None:
    path = SCENARIOS / name / "cluster.yaml"
    api.load_dump(path)
    expect = _expect(name)
    query = Query(expect["query"]["namespace"], expect["query"]["name"], expect["query"].get("kind", "Job"))
    now = datetime.fromisoformat(str(expect["now"]).replace("Z", "+00:00"))
    dump = explain(parse_text(path.read_text()).snapshot, query, now=now)
    async with ClusterCache(client, clock=Clock(), settings=FAST) as cache:
        await wait_ready(cache, 10)
        view = await OnDemand(client, cache).snapshot_for(query.namespace, query.name, query.kind)
        live = explain(view, query, now=now)
        view = await OnDemand(client, cache, visibility=False).snapshot_for(query.namespace, query.name, query.kind)
        computed = explain(view, query, now=now)
    assert live.verdict == dump.verdict
    assert live.verdict.value == expect["verdict"]
    assert live.workload == dump.workload
    assert live.demand == dump.demand
    # The fake serves the pending-workloads API (computed by itself, or the dump's summary): same numbers.
    assert (_position(live) or ())[:2] == (_position(dump) or ())[:2]
    if dump.position is None or dump.position.source == "computed":
        assert _position(computed) == _position(dump)


# --- a cluster built for the tests ------------------------------------------------------------------


def _namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _cluster_queue(name: str, *, selector: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {
            "namespaceSelector": selector or {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": 4}]}],
                }
            ],
        },
    }


def _local_queue(namespace: str, name: str, cluster_queue: str) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": cluster_queue},
    }


def _workload(
    name: str, *, queue: str = "lq", priority: int = 0, created: str = "2026-11-03T08:00:00Z", cpu: str = "8"
) -> dict[str, Any]:
    job_uid = f"uid-job-{name}"
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": f"job-{name}-abcde",
            "namespace": NS,
            "uid": f"uid-{name}",
            "creationTimestamp": created,
            "labels": {"kueue.x-k8s.io/job-uid": job_uid},
            "ownerReferences": [
                {"apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": job_uid, "controller": True}
            ],
        },
        "spec": {
            "queueName": queue,
            "priority": priority,
            "podSets": [
                {
                    "name": "main",
                    "count": 1,
                    "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}},
                }
            ],
        },
        "status": {
            "conditions": [
                {
                    "type": "QuotaReserved",
                    "status": "False",
                    "reason": "Pending",
                    "message": f"couldn't assign flavors to pod set main: insufficient quota for cpu in flavor "
                    f"default, previously considered podsets requests (0) + current podset request ({cpu}) > "
                    f"maximum capacity (4)",
                    "lastTransitionTime": "2026-11-03T08:00:01Z",
                }
            ]
        },
    }


def _admitted(raw: dict[str, Any]) -> dict[str, Any]:
    raw = copy.deepcopy(raw)
    raw["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
    raw["status"] = {
        "admission": {
            "clusterQueue": "cq",
            "podSetAssignments": [
                {"name": "main", "count": 1, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "1"}}
            ],
        },
        "conditions": [
            {"type": t, "status": "True", "reason": t, "message": t, "lastTransitionTime": "2026-11-03T08:00:02Z"}
            for t in ("QuotaReserved", "Admitted")
        ],
    }
    return raw


def _job(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-job-{name}",
            "labels": {"kueue.x-k8s.io/queue-name": "lq"},
        },
        "spec": {
            "suspend": False,
            "template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]},
            },
        },
    }


def _pod(job: str, *, phase: str = "Pending") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{job}-pod",
            "namespace": NS,
            "labels": {"batch.kubernetes.io/job-name": job},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job, "uid": f"uid-job-{job}"}],
        },
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        "status": {"phase": phase},
    }


def _small_cluster(api: FakeKubeAPI, jobs: int = 4) -> list[str]:
    api.add(_namespace(NS))
    api.add(
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}, "spec": {}}
    )
    api.add(_cluster_queue("cq"))
    api.add(_local_queue(NS, "lq", "cq"))
    names = [f"train-{i}" for i in range(jobs)]
    for i, name in enumerate(names):
        api.add(_workload(name, created=f"2026-11-03T08:0{i}:00Z"))
    return names


def _queue(cache: ClusterCache) -> list[str]:
    return [w.name for w in cache.pending_in("cq")]


async def test_a_question_about_a_pending_workload_costs_no_request(api: FakeKubeAPI, client: KubeClient) -> None:
    names = _small_cluster(api)
    for name in names:
        api.add(_job(name))
    now = datetime(2026, 11, 3, 9, 0, tzinfo=UTC)
    async with ClusterCache(client, clock=Clock(), settings=FAST) as cache:
        await wait_ready(cache, 10)
        ondemand = OnDemand(client, cache, visibility=False)
        api.clear_requests()
        for name in names:
            view = await ondemand.snapshot_for(NS, name, "Job")
            answer = explain(view, Query(NS, name, "Job"), now=now)
            assert answer.verdict.value == "exceeds-max-quota"
            assert answer.position is not None and answer.position.source == "computed"
        assert [r for r in api.requests if not r.watch] == [], "no request but the watches"


async def test_the_pending_workloads_api_is_asked_once_per_queue_per_ttl(api: FakeKubeAPI, client: KubeClient) -> None:
    names = _small_cluster(api)
    ticks = [0.0]
    async with ClusterCache(client, clock=Clock(), settings=FAST) as cache:
        await wait_ready(cache, 10)
        ondemand = OnDemand(client, cache, pending_ttl=10.0, monotonic=lambda: ticks[0])
        api.clear_requests()
        for name in names:
            view = await ondemand.snapshot_for(NS, name, "Job")
            answer = explain(view, Query(NS, name, "Job"), now=datetime(2026, 11, 3, 9, 0, tzinfo=UTC))
            assert answer.position is not None and answer.position.source == "visibility-api"
        pending = r"/apis/visibility\.kueue\.x-k8s\.io/.*/pendingworkloads"
        assert api.count_requests(path=pending) == 1
        ticks[0] = 11.0
        await ondemand.snapshot_for(NS, names[0], "Job")
        assert api.count_requests(path=pending) == 2


async def test_an_admitted_workload_reads_the_job_its_pods_and_their_events(
    api: FakeKubeAPI, client: KubeClient
) -> None:
    names = _small_cluster(api, jobs=1)
    api.update(_admitted(_workload(names[0])))
    api.add(_job(names[0]))
    api.add(_pod(names[0]))
    async with ClusterCache(client, clock=Clock(), settings=FAST) as cache:
        await wait_ready(cache, 10)
        api.clear_requests()
        view = await OnDemand(client, cache).snapshot_for(NS, names[0], "Job")
        answer = explain(view, Query(NS, names[0], "Job"), now=datetime(2026, 11, 3, 9, 0, tzinfo=UTC))
    assert answer.verdict.value == "pods-pending"
    assert api.count_requests(method="GET", path=f"/apis/batch/v1/namespaces/{NS}/jobs/{names[0]}") == 1
    pods = [r for r in api.requests if r.path == f"/api/v1/namespaces/{NS}/pods"]
    assert [r.query.get("labelSelector") for r in pods] == [f"batch.kubernetes.io/job-name={names[0]}"]


async def test_a_job_without_a_workload_is_read_to_say_so(api: FakeKubeAPI, client: KubeClient) -> None:
    _small_cluster(api, jobs=0)
    api.add(_job("lonely"))
    async with ClusterCache(client, clock=Clock(), settings=FAST) as cache:
        await wait_ready(cache, 10)
        ondemand = OnDemand(client, cache)
        found = explain(await ondemand.snapshot_for(NS, "lonely", "Job"), Query(NS, "lonely", "Job"), now=Clock().now)
        missing = explain(await ondemand.snapshot_for(NS, "ghost", "Job"), Query(NS, "ghost", "Job"), now=Clock().now)
    assert found.verdict.value == "workload-missing"
    assert missing.verdict.value == "job-not-found"


async def test_the_namespace_is_read_only_when_a_selector_looks_at_its_labels(
    api: FakeKubeAPI, client: KubeClient
) -> None:
    """Whether a question reads the Namespace is kept per namespace with the small kinds: a ClusterQueue or a
    LocalQueue added or changed decides it anew."""
    _small_cluster(api, jobs=1)
    path = f"/api/v1/namespaces/{NS}"
    async with ClusterCache(client, clock=Clock(), settings=FAST) as cache:
        await wait_ready(cache, 10)
        ondemand = OnDemand(client, cache, visibility=False)
        api.clear_requests()
        for _ in range(2):
            await ondemand.snapshot_for(NS, "train-0", "Job")
        assert api.count_requests(method="GET", path=path) == 0  # no selector looks at labels
        api.add(_cluster_queue("picky", selector={"matchLabels": {"team": "a"}}))
        api.add(_local_queue(NS, "picky-lq", "picky"))
        await wait_for(cache, lambda: cache.local_queue(NS, "picky-lq") is not None)
        await ondemand.snapshot_for(NS, "train-0", "Job")
        assert api.count_requests(method="GET", path=path) == 1
        api.update(_cluster_queue("picky", selector={"matchLabels": {"kubernetes.io/metadata.name": NS}}))

        def by_name() -> bool:
            cq = cache.cluster_queue("picky")
            selector = cq.namespace_selector if cq is not None else None
            return selector is not None and "team" not in selector.match_labels

        await wait_for(cache, by_name)
        await ondemand.snapshot_for(NS, "train-0", "Job")
        assert api.count_requests(method="GET", path=path) == 1  # its name only: known without reading it


async def test_watch_updates_change_the_order(api: FakeKubeAPI, client: KubeClient) -> None:
    names = _small_cluster(api)
    async with ClusterCache(client, clock=Clock(), settings=FAST) as cache:
        await wait_ready(cache, 10)
        assert _queue(cache) == [f"job-{n}-abcde" for n in names]
        api.add(_workload("urgent", priority=100, created="2026-11-03T09:00:00Z"))
        await wait_for(cache, lambda: _queue(cache)[:1] == ["job-urgent-abcde"])
        api.update(_admitted(_workload(names[0])))
        await wait_for(cache, lambda: "job-train-0-abcde" not in _queue(cache))
        api.delete("Workload", NS, "job-train-1-abcde")
        await wait_for(cache, lambda: cache.workload(NS, "job-train-1-abcde") is None)
        assert _queue(cache) == ["job-urgent-abcde", "job-train-2-abcde", "job-train-3-abcde"]
        last = cache.workload(NS, "job-train-3-abcde")
        assert last is not None and cache.position_in("cq", last) == (2, 2)
        api.update(_local_queue(NS, "lq", "elsewhere"))
        await wait_for(cache, lambda: not _queue(cache))
        assert [w.name for w in cache.pending_in("elsewhere")][:1] == ["job-urgent-abcde"]


async def test_not_ready_until_every_kind_has_synced(api: FakeKubeAPI, client: KubeClient) -> None:
    _small_cluster(api)
    api.delay(0.5, method="GET", path=r"/apis/kueue\.x-k8s\.io/v1beta2/clusterqueues", watch=False)
    async with ClusterCache(client, clock=Clock(), settings=FAST) as cache:
        await api.wait_for_request(path=r"/apis/kueue\.x-k8s\.io/v1beta2/workloads", watch=True)
        assert not cache.ready and cache.taken_at is None
        await wait_ready(cache, 10)
        assert cache.counts()["ClusterQueue"] == 1


async def test_offline_the_cache_answers_and_says_how_old_then_catches_up(api: FakeKubeAPI, client: KubeClient) -> None:
    names = _small_cluster(api)
    clock = Clock()
    async with ClusterCache(client, clock=clock, settings=FAST) as cache:
        await wait_ready(cache, 10)
        synced_at = cache.taken_at
        assert synced_at == clock.now and cache.stale_seconds(clock.now) == 0
        await api.go_offline()
        await wait_for(cache, lambda: len(cache.errors) == len(cache.informers))
        clock.now += timedelta(minutes=5)
        assert cache.taken_at == synced_at
        assert cache.stale_seconds(clock.now) == 300
        view = await OnDemand(client, cache, visibility=False).snapshot_for(NS, names[0], "Job")
        answer = explain(view, Query(NS, names[0], "Job"), now=clock.now)
        assert answer.verdict.value == "exceeds-max-quota" and answer.snapshot_taken_at == synced_at
        api.add(_workload("while-away"))
        await api.go_online()
        await wait_for(cache, lambda: cache.workload(NS, "job-while-away-abcde") is not None)
        await wait_for(cache, lambda: cache.stale_seconds(clock.now) == 0)


async def test_quiet_open_watches_are_fresh_however_long_nothing_changes(api: FakeKubeAPI, client: KubeClient) -> None:
    """The real API server sends quiet kinds nothing at all: an open watch is still a fresh one (issue 12)."""
    _small_cluster(api)
    clock = Clock()
    async with ClusterCache(client, clock=clock, settings=FAST) as cache:
        await wait_ready(cache, 10)
        await wait_for(cache, lambda: cache.watching() == {kind for kind in cache.informers if cache.served(kind)})
        clock.now += timedelta(minutes=15)
        assert cache.stale_seconds(clock.now) == 0 and cache.taken_at == clock.now
        assert not cache.errors
        broken_at = clock.now
        await api.go_offline()
        await wait_for(cache, lambda: not cache.watching())
        clock.now += timedelta(minutes=2)
        assert cache.taken_at == broken_at and cache.stale_seconds(clock.now) == 120


async def test_the_source_port(api: FakeKubeAPI, client: KubeClient) -> None:
    _small_cluster(api)
    source = CacheSource.connect(client, clock=Clock())
    await source.start()
    try:
        await wait_ready(source.cache, 10)
        assert source.ready and source.taken_at() == Clock().now
        assert await source.snapshot() is source.cache
    finally:
        await source.stop()
