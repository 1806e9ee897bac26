"""The live phase of `bench/run.py`: the one-shot `explain NAME -n NS` on a live cluster (the fake API server over
HTTP), as the CLI answers it: `bot.kube.live.read_live`, then the explanation and its outlook. Against it, in
the same run and on the same questions, the reads alone: the same requests (one LIST per kind, page by page, side
by side; then the pending-workloads API), their JSON parsed, nothing decoded: what a plain client doing the same
reads costs, the floor of any answer read live."""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from bot.kube import kinds
from bot.kube.client import PAGE_SIZE, KubeClient
from bot.kube.informer import parse_json
from bot.kube.live import read_live
from bot.service.explaining import explain_job
from bot.trace.explain import Query
from bot.trace.model import Workload


def _read(client: KubeClient, path: str, query: Mapping[str, str | int] | None = None) -> int:
    """Every page of a LIST (or one GET), parsed: how many items it held."""
    params: dict[str, str | int] = {**(query or {}), "limit": PAGE_SIZE}
    count = 0
    while True:
        response = client.open("GET", path, query=params)
        page = parse_json(response.data)
        count += len(page.get("items") or [])
        token = (page.get("metadata") or {}).get("continue")
        if response.status != 200 or not token:
            return count
        params = {**(query or {}), "limit": PAGE_SIZE, "continue": token}


def reads_alone(client: KubeClient, workload: Workload, job: str) -> int:
    """The requests `read_live` makes for a question about `job` (the Workload's owner), parsed: the API groups,
    one LIST per kind side by side (the job's GET and its namespace's jobs, as for a job not found), then the
    pending-workloads API of its LocalQueue. How many objects they held."""
    namespace, version = workload.namespace, kinds.KUEUE_VERSIONS[0]
    paths = [f"/apis/{kinds.KUEUE_GROUP}", f"/apis/{kinds.VISIBILITY_GROUP}", f"/apis/{kinds.JOBS['Job'].group}"]
    paths += [kinds.KUEUE[kind].path(version) for kind in ("ClusterQueue", "ResourceFlavor", "AdmissionCheck")]
    paths += [kinds.KUEUE[kind].path(version) for kind in ("WorkloadPriorityClass", "Cohort", "LocalQueue", "Workload")]
    paths += [kinds.JOBS["Job"].path("v1", namespace, job), kinds.JOBS["Job"].path("v1", namespace)]
    paths += [kinds.CORE[kind].path("v1", namespace) for kind in ("Pod", "Event")]
    paths += [kinds.CORE["Node"].path("v1"), kinds.CORE["Namespace"].path("v1", name=namespace)]
    with ThreadPoolExecutor(max_workers=len(paths), thread_name_prefix="bench-read") as pool:
        count = sum(pool.map(lambda path: _read(client, path), paths))
    pending = f"/apis/{kinds.VISIBILITY_GROUP}/{version}/namespaces/{namespace}/localqueues/{workload.queue_name}"
    return count + _read(client, f"{pending}/pendingworkloads", {"limit": 100000})


def live_phase(client: KubeClient, sample: list[Workload], *, now: datetime) -> dict[str, Any]:
    """For each Workload of `sample`: the reads alone, then the CLI's answer about its job, read live."""
    reads, answers, read_only = [], [], []
    for workload in sample:
        job = workload.meta.owners[0].name
        started = time.perf_counter()
        reads_alone(client, workload, job)
        reads.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        live = read_live(client, workload.namespace, job, "Job")
        read = time.perf_counter()
        explanation, _ = explain_job(live.snapshot, Query(workload.namespace, job, "Job"), now=now)
        answers.append((time.perf_counter() - started) * 1000)
        read_only.append((read - started) * 1000)
        assert explanation.position is not None, (workload.name, explanation.verdict)
        del live, explanation  # not alive through the next question's reads (the collector would walk them)
    if not answers:
        return {"live_p50_ms": None, "live_samples": 0}
    result: dict[str, Any] = {
        "live_p50_ms": round(statistics.median(answers), 1),
        "live_read_p50_ms": round(statistics.median(read_only), 1),
        "live_reads_alone_p50_ms": round(statistics.median(reads), 1),
        "live_samples": len(answers),
    }
    result["live_p50_over_reads_alone"] = round(result["live_p50_ms"] / result["live_reads_alone_p50_ms"], 2)
    return result
