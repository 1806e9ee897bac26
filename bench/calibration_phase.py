"""The first question whose answer reads a queue's ETA calibration (bench/run.py: the `calibration_*` keys).

The generated cluster of bench/run.py never gives an interval (its history is too even: `recorded_estimates`
is 0), so this phase builds queues that do, from the replayed queues of bench/eta_calibration.py: a
ClusterQueue of C GPUs simulated for six days under one scenario (arrivals, sizes, run times), then, at the
end of the fifth day, what the bot would see: the jobs waiting (their Workloads, queued when the simulation
queued them), the jobs running, and the admissions of the retention window in the recorder's history.

For each scenario, the first question about the queue whose answer states an interval is asked twice, each
time on a cache of its own (every memo cold):

  sliced      as the bot asks it (ServiceBase.explain_job: the trace, then the calibrations the answer reads
              made in slices with the loop's turn between them, bot.service.explaining), with a probe coroutine
              sleeping 1 ms at a time (bench/watcher_phase.py: LagProbe): the question's time and the loop's
              worst lag meanwhile;
  at once     the baseline, in the same run: `explain` on the loop, the calibration made inside the trace
              (as every question did before): its time is how long it held the loop.

Keys (ms): calibration_question_ms / _at_once_ms / _loop_lag_max_ms / _loop_hold_max_ms: the worst scenario's;
`calibration` holds each scenario's, with its calibration questions (`tests`) and steps.
"""

from __future__ import annotations

import asyncio
import gc
import random
import time
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from bot.forecast import estimators
from bot.forecast.eta import ESTIMATE
from bot.forecast.history import History, Observed
from bot.forecast.outlook import Outlook, explain_with_outlook
from bot.kube.cache import ClusterCache
from bot.kube.ondemand import OnDemand
from bot.notify.history import MAX_PER_QUEUE, RETENTION
from bot.trace.explain import Query
from tests.builders import NOW
from tests.contention import base, gpu_queue, lq, running, waiting

import eta_calibration
import sweep
from watcher_phase import PROBE_INTERVAL, LagProbe

DAYS = 6
MOMENT = 5 * 86400.0  # the end of the fifth day: four days of history behind it, jobs still waiting


def queue(scenario: eta_calibration.Scenario, seed: int) -> tuple[list[dict[str, Any]], History, list[str]]:
    """The objects of one simulated queue at MOMENT (as of tests.builders.NOW), its recorded history, and its
    waiting jobs' names in queue order."""
    jobs = eta_calibration.simulate(scenario, DAYS, random.Random(seed))

    def at(seconds: float) -> datetime:
        return NOW - timedelta(seconds=MOMENT - seconds)

    objects = base(gpu_queue("cq-0", ("a100", scenario.capacity)), namespaces=("team-a",))
    objects += [lq("gpus", "team-a", "cq-0")]
    waiting_jobs = sorted(
        (j for j in jobs if j.queued <= MOMENT and (j.admitted is None or j.admitted > MOMENT)),
        key=lambda j: (j.queued, j.id),
    )
    for j in jobs:
        if j.admitted is not None and j.admitted <= MOMENT and (j.finished is None or j.finished > MOMENT):
            minutes = (MOMENT - j.admitted) / 60
            objects += running(f"run-{j.id}", "team-a", "cq-0", gpus_per_pod=j.size, minutes=minutes)
    names = []
    for j in waiting_jobs:
        names.append(f"job-{j.id}")
        objects += waiting(f"job-{j.id}", "team-a", gpus_per_pod=j.size, minutes=(MOMENT - j.queued) / 60)
    kept = [j for j in jobs if j.admitted is not None and MOMENT - RETENTION.total_seconds() <= j.admitted <= MOMENT]
    kept = sorted(kept, key=lambda j: j.admitted or 0.0)[-MAX_PER_QUEUE:]
    history = History(
        tuple(
            Observed("cq-0", "a100", at(j.queued), at(j.admitted or 0.0), Decimal(j.size), f"uid-{j.id}") for j in kept
        )
    )
    return objects, history, names


def _cache(objects: list[dict[str, Any]]) -> ClusterCache:
    """A cache of the objects, frozen as the production cache is once synced (`measure` unfreezes)."""
    cache = sweep.filled_cache(objects, NOW)
    gc.collect()
    gc.freeze()
    return cache


async def scenario_result(scenario: eta_calibration.Scenario, seed: int) -> dict[str, Any]:
    objects, history, names = queue(scenario, seed)
    # The job asked about: the first, in queue order, whose answer states an interval.
    probe_cache = _cache(objects)
    asked = None
    for name in names:
        _, answer = explain_with_outlook(probe_cache, Query("team-a", name, "Job"), now=NOW, history=history)
        if answer.eta is not None and answer.eta.status == ESTIMATE:
            asked = name
            break
    del probe_cache
    if asked is None:
        return {"scenario": scenario.name, "seed": seed, "estimate": False}
    # As the bot asks it: the server's warmer has made the queue's Estimators (not their calibration: no
    # question read it yet), then the question, sliced, with the probe.
    cache = _cache(objects)
    service = sweep.asker(cache, OnDemand(cache.client, cache, visibility=False), NOW, history)
    await sweep.warmed(service)
    async with LagProbe() as probe:
        started = time.perf_counter()
        _, sliced = await service.explain_job("team-a", asked, "Job")
        took = (time.perf_counter() - started) * 1000
        await asyncio.sleep(2 * PROBE_INTERVAL)  # the probe's last sleep ends (a lag is counted as it wakes)
    # The baseline: the same, at once (the calibration made inside the trace), on a cache of its own.
    cache = _cache(objects)
    service = sweep.asker(cache, OnDemand(cache.client, cache, visibility=False), NOW, history)
    await sweep.warmed(service)
    view = cache.view("team-a", (asked,))
    started = time.perf_counter()
    _, whole = explain_with_outlook(view, Query("team-a", asked, "Job"), now=NOW, history=history)
    at_once = (time.perf_counter() - started) * 1000
    assert _same_eta(sliced, whole), (sliced.eta, whole.eta)
    estimator = _estimator_of(cache)
    return {
        "scenario": scenario.name,
        "seed": seed,
        "estimate": True,
        "waiting": len(names),
        "admissions": len(history.admissions),
        "tests": len(estimator._calibration.tests) if estimator is not None else 0,
        "question_ms": round(took, 2),
        "at_once_ms": round(at_once, 2),
        "loop_lag_max_ms": round(probe.worst * 1000, 2),
        "loop_hold_max_ms": round(probe.held * 1000, 2),
    }


def _same_eta(one: Outlook, other: Outlook) -> bool:
    return one.eta == other.eta


def _estimator_of(cache: ClusterCache) -> Any:
    table = cache.memos().get(estimators._ESTIMATORS, {})
    for entries in table.values():
        for kept in entries:
            if kept.estimator.calibrated:
                return kept.estimator
    return None


async def measure(seed: int = 1) -> dict[str, Any]:
    try:
        results = [await scenario_result(scenario, seed) for scenario in eta_calibration.SCENARIOS]
    finally:
        gc.unfreeze()
    answered = [r for r in results if r["estimate"]]
    return {
        "calibration_question_ms": max((r["question_ms"] for r in answered), default=0.0),
        "calibration_at_once_ms": max((r["at_once_ms"] for r in answered), default=0.0),
        "calibration_loop_lag_max_ms": max((r["loop_lag_max_ms"] for r in answered), default=0.0),
        "calibration_loop_hold_max_ms": max((r["loop_hold_max_ms"] for r in answered), default=0.0),
        "calibration": results,
    }
