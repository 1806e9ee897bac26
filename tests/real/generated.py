"""Generated clusters for the comparison with the real Kueue (issue 11, "against the real Kueue"): from a seed,
1 to 3 ClusterQueues (in a cohort or not, BestEffortFIFO or StrictFIFO), 1 or 2 flavors, two priorities and 3
to 8 Jobs of 1 to 3 pods of 1 to 3 CPUs each, some larger than the queue (and its cohort) can ever give.

Pure: the objects as dicts, named with the run's suffix so that clusters of one run never meet."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

Raw = dict[str, Any]
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


@dataclass(frozen=True)
class GeneratedJob:
    name: str
    queue: str  # the LocalQueue
    pods: int
    cpu: int  # per pod
    priority: str  # a WorkloadPriorityClass name, or "" for none

    @property
    def demand(self) -> int:
        return self.pods * self.cpu


@dataclass
class World:
    """One generated cluster: its cluster-scoped objects, its namespace's LocalQueues, and its Jobs in order."""

    seed: int
    namespace: str
    cluster_scoped: list[tuple[str, Raw]] = field(default_factory=list)  # (plural, body), creation order
    local_queues: list[Raw] = field(default_factory=list)
    jobs: list[GeneratedJob] = field(default_factory=list)
    queue_of: dict[str, str] = field(default_factory=dict)  # LocalQueue -> ClusterQueue


def generate(seed: int, suffix: str, api_version: str) -> World:
    rnd = random.Random(seed)
    tag = f"{suffix}-{seed}"
    world = World(seed, f"gen-{tag}")

    def kueue(kind: str, name: str, spec: Raw | None, **top: Any) -> Raw:
        return {"apiVersion": f"kueue.x-k8s.io/{api_version}", "kind": kind, "metadata": {"name": name}, **top} | (
            {"spec": spec} if spec is not None else {}
        )

    flavors = [f"f{i}-{tag}" for i in range(rnd.randint(1, 2))]
    for flavor in flavors:
        world.cluster_scoped.append(("resourceflavors", kueue("ResourceFlavor", flavor, {})))
    for name, value in ((f"low-{tag}", 10), (f"high-{tag}", 1000)):
        priority_class = kueue("WorkloadPriorityClass", name, None, value=value)
        world.cluster_scoped.append(("workloadpriorityclasses", priority_class))
    cohort = f"pool-{tag}" if rnd.random() < 0.5 else ""
    for i in range(rnd.randint(1, 3)):
        name = f"cq{i}-{tag}"
        spec: Raw = {
            "namespaceSelector": {},
            "queueingStrategy": rnd.choice(["BestEffortFIFO", "StrictFIFO"]),
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [
                        {"name": flavor, "resources": [{"name": "cpu", "nominalQuota": str(rnd.randint(1, 5))}]}
                        for flavor in flavors
                    ],
                }
            ],
        }
        if cohort:
            spec["cohort" if api_version == "v1beta1" else "cohortName"] = cohort
        world.cluster_scoped.append(("clusterqueues", kueue("ClusterQueue", name, spec)))
        local = f"lq{i}"
        world.local_queues.append(kueue("LocalQueue", local, {"clusterQueue": name}))
        world.queue_of[local] = name
    priorities = ["", f"low-{tag}", f"high-{tag}"]
    for j in range(rnd.randint(3, 8)):
        world.jobs.append(
            GeneratedJob(
                f"job{j}",
                rnd.choice(sorted(world.queue_of)),
                rnd.randint(1, 3),
                rnd.randint(1, 3),
                rnd.choice(priorities),
            )
        )
    return world


def job_body(world: World, job: GeneratedJob) -> Raw:
    labels = {QUEUE_LABEL: job.queue}
    if job.priority:
        labels[PRIORITY_LABEL] = job.priority
    container = {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": str(job.cpu)}}}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": job.name, "namespace": world.namespace, "labels": labels},
        "spec": {
            "suspend": True,
            "parallelism": job.pods,
            "completions": job.pods,
            "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
        },
    }
