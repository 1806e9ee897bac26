"""MultiKueue placement (issue 17, item 2): pure, from the manager's snapshot and the MultiKueueClusters."""

from __future__ import annotations

import json

import pytest
from bot.slack.render import MAX_SECTION
from bot.slack.render_multikueue import placement_message
from bot.trace.multikueue import CONNECTED, DISCONNECTED, UNKNOWN, Placement, Worker, placement

from tests import builders as b

MK = "kueue.x-k8s.io/multikueue"
CLUSTERS = {"w1": ("True", "Active", "Connected"), "w2": ("False", "ClientConnectionFailed", "no secret")}


def _objects(checks: list[str], controller: str = MK, **status: object) -> list[dict[str, object]]:
    job = b.job("train", spec=b.cpu_spec("1"))
    return [
        *b.cluster(checks=checks),
        b.admission_check("mk", controller=controller),
        job,
        b.workload(of=job, status=dict(status)),
    ]


def _placement(
    objects: list[dict[str, object]], clusters: dict[str, tuple[str, str, str]] | None = CLUSTERS
) -> Placement | None:
    snapshot = b.snapshot(objects)
    workload = next(w for w in snapshot.workloads_in(b.NS))
    return placement(snapshot, workload, clusters)


def test_not_a_multikueue_workload() -> None:
    assert _placement(_objects([])) is None
    assert _placement(_objects(["mk"], controller="kueue.x-k8s.io/provisioning-request")) is None


def test_nominated_workers_and_their_connection() -> None:
    found = _placement(_objects(["mk"], nominatedClusterNames=["w1", "w2", "w3"]))
    assert found is not None and found.check == "mk" and found.assigned == ""
    assert [(w.name, w.role, w.state) for w in found.workers] == [
        ("w1", "nominated", CONNECTED),
        ("w2", "nominated", DISCONNECTED),
        ("w3", "nominated", UNKNOWN),
    ]


def test_the_assigned_worker_and_unreadable_clusters() -> None:
    found = _placement(_objects(["mk"], clusterName="w2"), clusters=None)
    assert found is not None and found.assigned == "w2" and found.workers == (Worker("w2", "assigned", UNKNOWN),)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_message_stays_within_limits(language: str) -> None:
    long = "x" * 5000
    workers = tuple(Worker(f"w{i}", "nominated", DISCONNECTED, "Reason", long) for i in range(20))
    found = Placement("mk", "Pending", long, "", tuple(w.name for w in workers), workers)
    message = placement_message(found, (), language=language)
    assert all(len(str(block["text"]["text"])) <= MAX_SECTION for block in message.blocks)
    assert "w19" in json.dumps(message.blocks) or "…" in json.dumps(message.blocks, ensure_ascii=False)
