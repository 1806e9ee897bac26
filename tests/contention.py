"""Built clusters where jobs contend for GPUs: cohorts, borrowing, preemption policies, StrictFIFO, several
flavors. Used by the tables of who holds it, what-if and the ETA (issue 16)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from decimal import Decimal
from typing import Any

from bot.forecast.history import History, Observed
from bot.trace.snapshot import Snapshot

from tests.builders import (
    NOW,
    Raw,
    ago,
    assignment,
    cluster_queue,
    condition,
    cpu_spec,
    flavor_quotas,
    group,
    job,
    local_queue,
    namespace,
    quota,
    reserved,
    resource_flavor,
    taint,
    workload,
)
from tests.cache_support import cache_of

GPU = "nvidia.com/gpu"


def gpu_group(
    *flavors: tuple[str, int | str], cpu: int = 256, borrowing: int | None = None, lending: int | None = None
) -> Raw:
    """A resource group covering cpu and GPUs, one flavor per (name, GPU nominal quota)."""
    return group(
        ["cpu", GPU],
        *(
            flavor_quotas(name, quota("cpu", cpu), quota(GPU, gpus, borrowing=borrowing, lending=lending))
            for name, gpus in flavors
        ),
    )


def gpu_queue(
    name: str,
    *flavors: tuple[str, int | str],
    cohort_name: str | None = None,
    within: str | None = None,
    reclaim: str | None = None,
    borrow_within: str | None = None,
    strategy: str | None = None,
    borrowing: int | None = None,
    lending: int | None = None,
) -> Raw:
    gpus = gpu_group(*(flavors or (("a100", 8),)), borrowing=borrowing, lending=lending)
    cq = cluster_queue(name, gpus, cohort=cohort_name, strategy=strategy)
    preemption: dict[str, Any] = {}
    if within:
        preemption["withinClusterQueue"] = within
    if reclaim:
        preemption["reclaimWithinCohort"] = reclaim
    if borrow_within:
        preemption["borrowWithinCohort"] = {"policy": borrow_within}
    if preemption:
        cq["spec"]["preemption"] = preemption
    return cq


def base(*queues: Raw, namespaces: Sequence[str] = ("team-a", "team-b"), flavors: Sequence[Raw] = ()) -> list[Raw]:
    """Namespaces, flavors (a100 by default) and the ClusterQueues; add LocalQueues with `lq`."""
    return [
        *(namespace(ns) for ns in namespaces),
        *(flavors or [resource_flavor("a100", labels={"gpu": "a100"})]),
        *queues,
    ]


def lq(name: str, namespace_name: str, cq: str) -> Raw:
    return local_queue(name, namespace_name, cq)


def gpu_spec(gpus: int | str, node_selector: Mapping[str, str] | None = None) -> Raw:
    spec = cpu_spec("1", extra={GPU: str(gpus)})
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    return spec


def running(
    name: str,
    namespace_name: str,
    cq: str,
    *,
    queue: str = "gpus",
    pods: int = 1,
    gpus_per_pod: int = 1,
    flavor: str = "a100",
    priority: int = 0,
    minutes: float = 30,
    max_seconds: int | None = None,
    pods_ready: bool | None = True,
) -> list[Raw]:
    """A job of `pods` pods x `gpus_per_pod` GPUs, admitted in `cq` (flavor `flavor`) `minutes` ago."""
    the_job = job(name, namespace_name, queue=queue, parallelism=pods, spec=gpu_spec(gpus_per_pod), suspend=False)
    status = reserved(
        cq,
        assignment("main", pods, **{flavor: {"cpu": str(pods), GPU: str(pods * gpus_per_pod)}}),
        at=ago(minutes),
    )
    if pods_ready is not None:
        status["conditions"].append(condition("PodsReady", pods_ready, "PodsReady", "", ago(minutes)))
    wl = workload(
        of=the_job, namespace=namespace_name, queue=queue, priority=priority, status=status, created=ago(minutes + 5)
    )
    if max_seconds is not None:
        wl["spec"]["maximumExecutionTimeSeconds"] = max_seconds
    return [the_job, wl]


def waiting(
    name: str = "train",
    namespace_name: str = "team-a",
    *,
    queue: str = "gpus",
    pods: int = 1,
    gpus_per_pod: int = 1,
    priority: int = 0,
    minutes: float = 10,
    node_selector: Mapping[str, str] | None = None,
    min_count: int | None = None,
) -> list[Raw]:
    """A suspended job and its pending Workload, with no record from Kueue (the engine's own checks)."""
    the_job = job(
        name,
        namespace_name,
        queue=queue,
        parallelism=pods,
        spec=gpu_spec(gpus_per_pod, node_selector),
        created=ago(minutes),
    )
    wl = workload(of=the_job, namespace=namespace_name, queue=queue, priority=priority, created=ago(minutes))
    if min_count is not None:
        wl["spec"]["podSets"][0]["minCount"] = min_count
    return [the_job, wl]


def research_cohort(*, reclaim: str = "LowerPriority", within: str = "LowerPriority") -> list[Raw]:
    """Cohort "research": team-a-cq (8 GPUs) and team-b-cq (4 GPUs, borrowing 4 of team-a's). team-a runs
    `mine` (4 GPUs, priority 0); team-b runs `theirs` (8 GPUs, priority 0, borrowing). team-a's `train`
    (4 GPUs, priority 100) waits."""
    return [
        *base(
            gpu_queue("team-a-cq", ("a100", 8), cohort_name="research", within=within, reclaim=reclaim),
            gpu_queue("team-b-cq", ("a100", 4), cohort_name="research"),
        ),
        lq("gpus", "team-a", "team-a-cq"),
        lq("gpus", "team-b", "team-b-cq"),
        *running("mine", "team-a", "team-a-cq", pods=4, minutes=50),
        *running("theirs", "team-b", "team-b-cq", pods=8, minutes=20, max_seconds=3600),
        *waiting("train", pods=4, priority=100),
    ]


def taints_flavor(name: str, key: str) -> Raw:
    return resource_flavor(name, labels={"gpu": name}, taints=[taint(key, "true")])


def dense_admissions(cq: str = "cq-0") -> History:
    """An admission every 10 minutes over the last day, after 20 to 70 minutes, of 1, 2, 3 or 8 GPUs: an ETA's
    history with hundreds of calibration questions."""
    found = []
    for step in range(1, 145):
        admitted = NOW - timedelta(minutes=10 * step)
        wait = timedelta(minutes=20 + (step * 17) % 50)
        amount = Decimal((1, 2, 3, 8)[step % 4])
        found.append(Observed(cq, "a100", admitted - wait, admitted, amount, f"uid-{step}"))
    return History(tuple(found))


def gpu_waiters() -> Snapshot:
    """A cache's view of team-a: one ClusterQueue of 4 A100s held by one running job, three jobs of 2 GPUs
    waiting in it (w0 the oldest)."""
    objects = base(
        gpu_queue("cq-0", ("a100", 4)),
        namespaces=("team-a",),
        flavors=[resource_flavor("a100", labels={"gpu": "a100"})],
    )
    objects += [lq("gpus", "team-a", "cq-0")]
    objects += running("big", "team-a", "cq-0", gpus_per_pod=4)
    for n in range(3):
        objects += waiting(f"w{n}", "team-a", gpus_per_pod=2, minutes=40 - 10 * n)
    return cache_of(objects).view("team-a", [])
