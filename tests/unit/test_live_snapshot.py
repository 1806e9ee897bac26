"""bot.kube.live_snapshot: a live read's snapshot, its Workloads decoded when read, answers every question as the
MemorySnapshot over every object decoded at once does (the same JSON, the same text, the same queue view).

Every cluster of tests/data (the scenarios, the parties' cases, the demo's steps) is asked about each of its
Workloads' jobs, by owner and by Workload name, and about each LocalQueue; a question whose answer differs fails.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.forecast.serialize import to_json
from bot.kube import kinds
from bot.kube.decode import read_or_unreadable
from bot.kube.live_snapshot import ListedWorkloads, LiveSnapshot
from bot.service.explaining import explain_job
from bot.terminal import render_text
from bot.trace.explain import Query
from bot.trace.queueview import describe_queue
from bot.trace.snapshot import MemorySnapshot, Snapshot

from tests.paths import DATA, ROOT

CLUSTERS = sorted(
    [
        *DATA.glob("scenarios/*/cluster.yaml"),
        *DATA.glob("parties/*/cluster.yaml"),
        *ROOT.glob("bot/demo/cluster/*.yaml"),
    ]
)
SMALL = [path for path in CLUSTERS if path.name == "cluster.yaml"]
AS_DUMPED = "as dumped"
# Each admitted Workload's LocalQueue deleted (its ClusterQueue still counts it), and the first Workload beyond
# Kueue's bounds (unreadable): what a snapshot that finds Workloads by their queue or namespace must not miss.
ALTERED = ("admitted from deleted LocalQueues", "first Workload unreadable")
CASES = [(path, AS_DUMPED) for path in CLUSTERS] + [(path, how) for path in SMALL for how in ALTERED]
IDS = [f"{path.parent.name}/{path.name}, {how}" for path, how in CASES]
NOW = datetime(2026, 11, 3, 12, 0, tzinfo=UTC)


@functools.cache
def _objects(path: Path, how: str = AS_DUMPED) -> list[dict[str, Any]]:
    """The dump's objects, its Lists' items included (with the List's kind and apiVersion when they have none)."""
    found: list[dict[str, Any]] = []
    for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
        if not isinstance(document, Mapping):
            continue
        items = document.get("items")
        if isinstance(items, list):
            kind = str(document.get("kind", "")).removesuffix("List")
            found.extend({"kind": kind, "apiVersion": document.get("apiVersion"), **item} for item in items)
        else:
            found.append(dict(document))
    workloads = [o for o in found if o.get("kind") == "Workload"]
    if how == ALTERED[0]:
        for raw in workloads:
            if (raw.get("status") or {}).get("admission"):
                raw["spec"] = {**raw["spec"], "queueName": "deleted-queue"}
    elif how == ALTERED[1] and workloads:
        pod_set = workloads[0]["spec"]["podSets"][0]
        workloads[0]["spec"] = {**workloads[0]["spec"], "podSets": [{**pod_set, "name": f"p{i}"} for i in range(30)]}
    return found


def _snapshots(path: Path, how: str = AS_DUMPED) -> tuple[MemorySnapshot, LiveSnapshot]:
    """Both snapshots over the same objects, in the order a live read makes: the other kinds, then the
    Workloads (kept raw by the live one)."""
    objects = _objects(path, how)
    workloads = [o for o in objects if o.get("kind") == "Workload"]
    others = [decoded for o in objects if o.get("kind") != "Workload" for decoded in read_or_unreadable(o)]
    eager = MemorySnapshot([*others, *(d for o in workloads for d in read_or_unreadable(o))])
    return eager, LiveSnapshot(others, ListedWorkloads(workloads), [])


def _questions(objects: list[dict[str, Any]]) -> Iterator[Query]:
    """About each Workload (by its name) and each job (the dump's and the Workloads' owners), once each."""
    asked = set()
    for raw in objects:
        metadata = raw.get("metadata") or {}
        namespace, name, kind = str(metadata.get("namespace") or ""), str(metadata.get("name")), raw.get("kind")
        if kind == "Workload":
            asked.add(Query(namespace, name, "Workload"))
            asked.update(
                Query(namespace, str(o.get("name")), str(o.get("kind"))) for o in metadata.get("ownerReferences") or []
            )
        elif kind in kinds.JOBS:
            asked.add(Query(namespace, name, str(kind)))
    yield from sorted(asked, key=str)
    yield Query("nowhere", "no-such-job", "Job")


def _answer(snapshot: Snapshot, query: Query) -> tuple[str, str]:
    explanation, outlook = explain_job(snapshot, query, now=NOW)
    as_json = json.dumps(to_json(explanation, outlook, "en"), sort_keys=True, default=str)
    return as_json, render_text(explanation, colour=False, outlook=outlook)


@pytest.mark.parametrize(("path", "how"), CASES, ids=IDS)
def test_every_question_has_the_answer_of_the_snapshot_decoded_at_once(path: Path, how: str) -> None:
    for query in _questions(_objects(path, how)):
        eager, lazy = _snapshots(path, how)  # fresh: no memo of an earlier question helps either
        assert _answer(lazy, query) == _answer(eager, query), query


@pytest.mark.parametrize(("path", "how"), CASES, ids=IDS)
def test_every_queue_view_is_the_one_of_the_snapshot_decoded_at_once(path: Path, how: str) -> None:
    eager, lazy = _snapshots(path, how)
    queues = [o["metadata"] for o in _objects(path, how) if o.get("kind") == "LocalQueue"]
    for namespace, name in [(q.get("namespace", ""), q["name"]) for q in queues] + [("nowhere", "none")]:
        got, expected = describe_queue(lazy, namespace, name), describe_queue(eager, namespace, name)
        assert dataclasses.asdict(got) == dataclasses.asdict(expected), (namespace, name)


def test_only_the_workloads_a_read_returns_are_decoded() -> None:
    workloads = _objects(DATA / "scenarios" / "cohort-borrowing-waits" / "cluster.yaml")
    workloads = [o for o in workloads if o.get("kind") == "Workload"]
    listed = ListedWorkloads(workloads)
    lazy = LiveSnapshot([], listed, [])
    assert len(workloads) > 2 and not lazy.workloads_in("nowhere")
    assert listed.decoded_count == 0
    metadata = workloads[1]["metadata"]
    assert lazy.workload(metadata["namespace"], metadata["name"]) is not None
    assert listed.decoded_count == 1
