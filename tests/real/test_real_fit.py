"""Will it fit? asked first, then the real Kueue decides (needs `cluster.sh start kueue`, see conftest.py).

For each generated cluster (tests/real/generated.py; KUEUE_BOT_REAL_FIT clusters, default 10, from seed
KUEUE_BOT_REAL_FIT_FIRST, default 1) the Jobs are submitted one by one; before each, `fit` is asked on the bot's
informer view of the cluster as it is (the job not created yet), then the Job is created and Kueue's record read
once it settles:

- now   <=> Kueue reserved quota for it at once, in the flavor predicted;
- later  => Kueue left it pending, at the place predicted in its ClusterQueue (the pending-workloads API's);
- never  => Kueue left it pending;
- then every Job not admitted is made again alone (the rest of its cohort emptied): one predicted "never" stays
  pending, one predicted "later" is admitted (its holders gone).

Disagreements are collected and reported together with the tally (printed; run with -s to see it)."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime

import pytest
from bot.fit.decide import LATER, NEVER, NOW, Fitting, fit
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.jobfile import draft_of
from bot.kube.ondemand import OnDemand
from bot.trace.explain import Query, explain

from tests.cache_support import wait_for
from tests.real.cluster import Cluster
from tests.real.generated import GeneratedJob, World, generate, job_body
from tests.real.test_real_generated import (
    CREATION_GAP,
    Tally,
    _create,
    _create_job,
    _remove,
    _remove_jobs,
    _settle,
    _workload,
)

COUNT = int(os.environ.get("KUEUE_BOT_REAL_FIT", "10"))
FIRST = int(os.environ.get("KUEUE_BOT_REAL_FIT_FIRST", "1"))  # the first seed (others: the next COUNT - 1)


def _now() -> datetime:
    return datetime.now(UTC)


def _where(world: World, job: GeneratedJob) -> str:
    return f"seed {world.seed} {job.name} ({job.pods}x{job.cpu} cpu in {job.queue}, {job.priority or 'no priority'})"


def _flavor(cache: ClusterCache, world: World, job: GeneratedJob) -> str:
    workload = _workload(cache, world.namespace, job.name)
    if workload is None or workload.admission is None or not workload.admission.assignments:
        return ""
    return workload.admission.assignments[0].flavors.get("cpu", "")


async def _api_position(cache: ClusterCache, reader: KubeClient, world: World, job: GeneratedJob) -> int | None:
    """Its place in its ClusterQueue as Kueue's pending-workloads API gives it (None: not listed)."""
    view = await OnDemand(reader, cache).snapshot_for(world.namespace, job.name, "Job")
    answer = explain(view, Query(world.namespace, job.name, "Job"), now=_now())  # the walk alone: no outlook
    position = answer.position
    return position.cluster_queue if position is not None and position.source == "visibility-api" else None


def _predicted_position(fitting: Fitting) -> int | None:
    explanation = fitting.explanation
    position = explanation.position if explanation is not None else None
    return position.cluster_queue if position is not None else None


async def _submit(
    tally: Tally, cluster: Cluster, cache: ClusterCache, reader: KubeClient, world: World, job: GeneratedJob
) -> Fitting:
    """Ask fit, submit, compare with Kueue's decision."""
    fitting = fit(cache.view(world.namespace), draft_of(job_body(world, job)), namespace=world.namespace, now=_now())
    _create_job(cluster, world, job)
    state = (await _settle(cache, world.namespace, [job]))[job.name]
    admitted, where = state[0] == "True", _where(world, job)
    said = f"fit said {fitting.fits} ({fitting.verdict})"
    if fitting.fits == NOW:
        tally.check(admitted, f"{where}: {said}, Kueue left it pending ({state[1]!r})")
        predicted = next((c.flavor for c in fitting.flavors if c.resource == "cpu"), "")
        if admitted:
            actual = _flavor(cache, world, job)
            tally.check(actual == predicted, f"{where}: fit predicted flavor {predicted}, Kueue assigned {actual}")
        return fitting
    tally.check(not admitted, f"{where}: {said}, Kueue admitted it at once")
    if fitting.fits == LATER and not admitted:
        predicted_position = _predicted_position(fitting)
        api = await _api_position(cache, reader, world, job)
        tally.check(
            api is not None and predicted_position == api,
            f"{where}: fit predicted position {predicted_position}, the pending-workloads API says {api}",
        )
    return fitting


async def _alone(
    tally: Tally, cluster: Cluster, cache: ClusterCache, world: World, job: GeneratedJob, fits: str
) -> None:
    """The Job made again with nothing else in its cluster: admitted iff fit said it only waits."""
    _remove_jobs(cluster, world)
    await wait_for(cache, lambda: not cache.workloads_in(world.namespace), 60)
    again = GeneratedJob(f"{job.name}-alone", job.queue, job.pods, job.cpu, job.priority)
    _create_job(cluster, world, again)
    state = (await _settle(cache, world.namespace, [again]))[again.name]
    admitted, where = state[0] == "True", _where(world, again)
    if fits == NEVER:
        tally.check(not admitted, f"{where}: fit said never, Kueue admitted it with the rest of its cohort emptied")
    else:
        tally.check(admitted, f"{where}: fit said later, Kueue left it pending with its holders gone ({state[1]!r})")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("seed", range(FIRST, FIRST + COUNT))
async def test_fit_asked_first_agrees_with_the_real_kueue(
    cluster: Cluster, reader: KubeClient, cache: ClusterCache, seed: int
) -> None:
    if not cluster.kueue_running:
        pytest.skip("the Kueue manager does not run on this cluster (cluster.sh start kueue): nothing decides")
    world = generate(seed, cluster.run_id, cluster.kueue_version)
    tally = Tally()
    _create(cluster, world)
    said: dict[str, str] = {}
    try:
        await wait_for(
            cache,
            lambda: len(cache.view(world.namespace).local_queues_in(world.namespace)) == len(world.local_queues),
            60,
        )
        for job in world.jobs:
            said[job.name] = (await _submit(tally, cluster, cache, reader, world, job)).fits
            await asyncio.sleep(CREATION_GAP)  # creationTimestamp counts seconds: a tie is Kueue's heap's to order
        states = await _settle(cache, world.namespace, world.jobs)
        for job in world.jobs:
            if states[job.name][0] != "True" and said[job.name] in (LATER, NEVER):
                await _alone(tally, cluster, cache, world, job, said[job.name])
    finally:
        _remove(cluster, world)
    counts = {word: sum(1 for v in said.values() if v == word) for word in (NOW, LATER, NEVER)}
    print(
        f"\nfit seed {seed}: {len(world.jobs)} jobs {counts}, {tally.checks} checks, "
        f"{len(tally.disagreements)} disagreements"
    )
    assert not tally.disagreements, "\n".join(tally.disagreements)
