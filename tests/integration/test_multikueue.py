"""MultiKueue-aware answers (issue 17, item 2), end to end: a manager and a worker, each a fake Kubernetes API
server, both served by one bot (CLUSTERS). On the manager, a Workload dispatched by the MultiKueue admission
check: the answer names the nominated and assigned worker clusters, each MultiKueueCluster's connection
(Active condition), and the worker's own explanation of its copy (same Workload name); a disconnected or
unknown worker is said plainly.

Both fields read here are in the shared CRDs (tests/data/kueue/crds, kueue.x-k8s.io_workloads.yaml, v1beta1 and
v1beta2): status.nominatedClusterNames and status.clusterName; MultiKueueCluster is served at both versions."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from bot.kube.client import KubeClient, load_api_client
from bot.kube.ondemand import CacheSource
from bot.server import build_server

from tests import builders as b
from tests.cache_support import wait_ready
from tests.fakes.kube_api import FakeKubeAPI
from tests.fakes.slack_api import FakeSlack
from tests.integration.steps import show_steps
from tests.integration.test_clusters import _ask, _settings

USER = "U0ALICE01"
CHANNEL = "C0MLVISION"
NOW = b.NOW
MK = "kueue.x-k8s.io/multikueue"


def _mk_cluster(name: str, active: bool, reason: str, message: str) -> dict[str, Any]:
    return {
        "apiVersion": b.KUEUE,
        "kind": "MultiKueueCluster",
        "metadata": {"name": name, "uid": b.uid_of("mkc", name), "creationTimestamp": b.ago(600)},
        "spec": {"clusterSource": {"kubeConfig": {"locationType": "Secret", "location": f"{name}-kubeconfig"}}},
        "status": {"conditions": [b.condition("Active", active, reason, message, b.ago(60))]},
    }


def _manager(**status: Any) -> list[dict[str, Any]]:
    job = b.job("train", queue="user-queue", parallelism=1, spec=b.cpu_spec("2"), created=b.ago(20))
    workload = b.workload(
        of=job,
        created=b.ago(20),
        status={
            **b.reserved("cq", b.assignment("main", 1, default={"cpu": "2"}), admitted=False, at=b.ago(19)),
            "admissionChecks": [b.check_state("mk", "Pending", "The workload was nominated to worker clusters")],
            **status,
        },
    )
    return [
        b.namespace(),
        b.resource_flavor(),
        b.admission_check("mk", controller=MK),
        b.cluster_queue("cq", b.cpu_group(cpu=8), checks=["mk"]),
        b.local_queue(),
        job,
        workload,
        _mk_cluster("worker-1", True, "Active", "Connected"),
        _mk_cluster("worker-2", False, "ClientConnectionFailed", "load client config failed: no such secret"),
    ]


def _worker(manager: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The worker's copy: the same Workload name, waiting for quota there (1 cpu for a 2 cpu job)."""
    workload = copy.deepcopy(next(o for o in manager if o["kind"] == "Workload"))
    workload["status"] = {}
    job = copy.deepcopy(next(o for o in manager if o["kind"] == "Job"))
    return [*b.cluster(cpu=1), job, workload]


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user(USER, name="alice", locale="en-US")
        fake.add_channel(CHANNEL, "ml-vision", members=[USER])
        yield fake


async def _answer_for(slack: FakeSlack, tmp_path: Path, manager: list[dict[str, Any]]) -> str:
    async with FakeKubeAPI() as manager_api, FakeKubeAPI() as worker_api:
        manager_api.add_all(manager)
        worker_api.add_all(_worker(manager))
        opened = []
        sources: dict[str, CacheSource] = {}
        for name, api in (("manager", manager_api), ("worker-1", worker_api)):
            api_client = load_api_client(str(api.write_kubeconfig(tmp_path / f"kubeconfig-{name}")))
            opened.append(api_client)
            sources[name] = CacheSource.connect(KubeClient(api_client), clock=lambda: NOW, freeze_gc=False)
        server = build_server(_settings(slack), sources["manager"], clock=lambda: NOW, clusters=sources)
        await server.start()
        try:
            for source in sources.values():
                await wait_ready(source.cache, 15)
            first = await _ask(slack, server, "manager/team-a/train", 1)
            steps = await show_steps(slack, server.url, USER, slack.calls("chat.postMessage")[0])
            return first + str(steps.params.get("text", "")) + json.dumps(steps.params.get("blocks") or [])
        finally:
            await server.stop()
            for api_client in opened:
                api_client.close()  # type: ignore[no-untyped-call]


async def test_nominated_workers_their_connection_and_the_workers_own_explanation(
    slack: FakeSlack, tmp_path: Path
) -> None:
    answer = await _answer_for(slack, tmp_path, _manager(nominatedClusterNames=["worker-1", "worker-2"]))
    assert "MultiKueue: dispatched by admission check" in answer and "Pending" in answer
    assert "Nominated worker clusters" in answer and "`worker-1`, `worker-2`" in answer
    assert "`worker-1`: connected" in answer
    assert "`worker-2`: DISCONNECTED (ClientConnectionFailed): load client config failed" in answer
    assert "On worker `worker-1`, its copy:" in answer  # the worker's own explanation of its copy
    assert "can never give more than 1 cpu" in answer or "never be admitted" in answer


async def test_an_assigned_worker_that_is_unknown_is_said_plainly(slack: FakeSlack, tmp_path: Path) -> None:
    answer = await _answer_for(slack, tmp_path, _manager(clusterName="worker-9"))
    assert "Assigned to worker cluster `worker-9`" in answer
    assert "`worker-9`: unknown to this manager" in answer
    assert "On worker" not in answer  # the bot does not serve worker-9


def test_the_fields_read_are_in_the_shared_crds() -> None:
    crd = (
        Path(__file__).resolve().parents[1] / "data" / "kueue" / "crds" / "kueue.x-k8s.io_workloads.yaml"
    ).read_text()
    assert crd.count("nominatedClusterNames:") == 2 and crd.count("clusterName:") >= 2  # v1beta1 and v1beta2
