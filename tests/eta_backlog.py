"""A ClusterQueue draining a backlog, written as Kueue and the Job controller leave it: the dump an ETA with an
interval is read from when no history was recorded (the CLI, `bot.forecast.outlook.snapshot_history`: the
admissions the Workloads' own records show).

Every object was created at once, a day before NOW (a backlog submitted together). The queue has 3 GPUs; a job
of 1 GPU runs 90 minutes, and one was admitted every 30 minutes as the one before last finished, the last 10
minutes (and 17 s) before NOW: the last three admitted run now (the quota is full), the 44 before finished
(their Workloads are still there: `Finished`). Five more jobs of 1 GPU wait: as the queue goes, they would be
admitted 20, 50, 80, 110 and 140 minutes (less 17 s) after NOW, in their order in the queue.

Used by tests/unit/test_eta_backlog.py (the dump) and tests/real/test_real_scenarios.py (the same objects
written into a real kube-apiserver)."""

from __future__ import annotations

from datetime import timedelta

from tests import raw_objects as raw
from tests.builders import NOW, Raw, assignment, reserved, stamp, workload
from tests.builders import condition as made_condition
from tests.builders import job as made_job
from tests.contention import GPU, base, gpu_queue, gpu_spec, lq

NAMESPACE = "eta-backlog"
CLUSTER_QUEUE = "eta-backlog-cq"
QUEUE = "gpus"
EVERY_MINUTES = 30
RUN_MINUTES = 90
# The last admission 10 min 17 s before NOW: admissions off the replay's 10-minute grid, as real ones are (on
# it, each sample would fall on an admission's very instant, a boundary no real queue sits on).
LAST_AGO = timedelta(minutes=10, seconds=17)
ADMITTED = 47  # admissions in the last day (the window an ETA replays)
WAITING = 5
CREATED = NOW - timedelta(hours=24)


def _one_gpu() -> Raw:
    """A pod of 1 CPU and 1 GPU; the GPU's limit set too, as a real API server insists for a resource that
    cannot be overcommitted (the test builders' `gpu_spec` leaves it out: the fake and the dumps take that)."""
    spec = gpu_spec(1)
    spec["containers"][0]["resources"]["limits"] = {GPU: "1"}
    return spec


def objects() -> list[Raw]:
    found = [*base(gpu_queue(CLUSTER_QUEUE, ("a100", 3)), namespaces=(NAMESPACE,)), lq(QUEUE, NAMESPACE, CLUSTER_QUEUE)]
    created = stamp(CREATED)
    for k in range(ADMITTED - 1, -1, -1):  # the earliest admitted first
        admitted = NOW - LAST_AGO - timedelta(minutes=EVERY_MINUTES * k)
        ends = admitted + timedelta(minutes=RUN_MINUTES)
        the_job = made_job(
            f"done-{k:02d}" if ends <= NOW else f"running-{k}", NAMESPACE, queue=QUEUE, spec=_one_gpu(),
            suspend=False, created=created,
        )  # fmt: skip
        status = reserved(CLUSTER_QUEUE, assignment("main", 1, a100={"cpu": "1", GPU: "1"}), at=stamp(admitted))
        status["conditions"].append(made_condition("PodsReady", True, "PodsReady", "", stamp(admitted)))
        if ends <= NOW:
            status["conditions"].append(raw.condition("Finished", "True", "Succeeded", "Job finished", stamp(ends)))
        found += [the_job, workload(of=the_job, namespace=NAMESPACE, queue=QUEUE, status=status, created=created)]
    for n in range(WAITING):
        the_job = made_job(f"waiting-{n}", NAMESPACE, queue=QUEUE, spec=_one_gpu(), created=created)
        found += [the_job, workload(of=the_job, namespace=NAMESPACE, queue=QUEUE, created=created)]
    return found


def admitted_in_seconds(position: int) -> float:
    """When the job at `position` would be admitted as the queue goes, in seconds after NOW: when the one before
    last finishes (19 min 43 s after NOW for the first), then every 30 minutes."""
    first = timedelta(minutes=RUN_MINUTES - 2 * EVERY_MINUTES) - LAST_AGO
    return first.total_seconds() + (position - 1) * EVERY_MINUTES * 60
