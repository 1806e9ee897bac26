"""Writes the demo cluster (`bot/demo/cluster/*.yaml`): one `kubectl get -o yaml` dump per moment of the story.

    .venv/bin/python tools/build_cluster.py          # rewrite the dumps (review the diff)
    .venv/bin/python tools/build_cluster.py --check  # exit 1 when the dumps differ from what this file says

A hand-run tool, not the product: the package ships the dumps, not this file (tests/integration/test_demo.py
checks that the dumps are what it writes). The dumps' header still names the generator's former home
(`bot.demo.build_cluster`): it is kept byte for byte so that regenerating leaves the shipped dumps unchanged.

A small multi-team cluster on 2026-10-14: four namespaces, four nodes (two CPU, two A100 nodes, one of them
with two unhealthy GPUs), four ClusterQueues (two of them lend each other GPUs in the cohort ml-gpu-pool).
The objects are what Kueue and Kubernetes would write, with Kueue's own names (bot.trace.resolve.workload_name)
and messages (FACTS §4), and the stories:

- equipe-data/train-octobre: 3 pods x 1 cpu in a ClusterQueue of 2 cpu and no cohort: it can never fit.
- ml-vision/vit-large-finetune: 4 GPUs, third in vision-gpu behind detr-hotfix (priority) and sam-distill;
  it climbs to second when yolo-nightly finishes (10:45), and is admitted, borrowing from ml-nlp, once
  llm-eval-70b finishes (11:00).
- robotics/isaac-policy-sweep: quota reserved, held by the ProvisioningRequest admission check dws-prov.
- ml-nlp/llm-eval-70b: admitted, one of its two pods waits for a node (0/4 nodes are available: 2 Insufficient
  nvidia.com/gpu, ...): Kueue's quota counts 16 GPUs, the nodes have 14 healthy ones.

Everything is deterministic: UIDs are name-based (uuid5), pod names and event names are hashes. The Kueue
objects are made by the one builder of raw Kueue objects (tests/raw_objects.py), which the tests and the
benchmark use too.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml
from bot.demo.source import MOMENTS
from bot.trace.quantity import format_quantity, parse
from bot.trace.resolve import workload_name

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as `python tools/build_cluster.py`
    sys.path.insert(0, str(ROOT))

from tests import raw_objects as raw  # noqa: E402

Obj = dict[str, Any]

CLUSTER_DIR = ROOT / "bot" / "demo" / "cluster"
_UID_SPACE = uuid.UUID("6f1c2a3e-5b4d-4c8e-9a7f-0d2e4b6a8c10")
_POD_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_KUEUE_MANAGER = "kueue-controller-manager-7c9f6d8b5-x2k4p"
_SCHEDULER = "default-scheduler-gke-ml-platform-control-1"
_EVENT_TTL = timedelta(hours=1)
_DAY = "2026-10-14"

GPU = "nvidia.com/gpu"
GPU_TAINT: Obj = {"effect": "NoSchedule", "key": GPU, "value": "present"}
GPU_TOLERATION: Obj = {"effect": "NoSchedule", "key": GPU, "operator": "Exists"}
_DEFAULT_TOLERATIONS: list[Obj] = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
]


def at(clock: str) -> datetime:
    """ "10:30:00" (on the story's day) or a full RFC 3339 time."""
    text = clock if "T" in clock else f"{_DAY}T{clock}Z"
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def micro_stamp(moment: datetime, salt: str) -> str:
    micros = int(hashlib.sha1(salt.encode(), usedforsecurity=False).hexdigest()[:8], 16) % 1_000_000
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S") + f".{micros:06d}Z"


def name_uid(*parts: str) -> str:
    return str(uuid.uuid5(_UID_SPACE, "/".join(parts)))


def short_hash(*parts: str, length: int = 16) -> str:
    return hashlib.sha1("/".join(parts).encode(), usedforsecurity=False).hexdigest()[:length]


def pod_suffix(*parts: str) -> str:
    digest = hashlib.sha1("/".join(parts).encode(), usedforsecurity=False).digest()
    return "".join(_POD_ALPHABET[byte % len(_POD_ALPHABET)] for byte in digest[:5])


def quantity(value: Decimal, resource: str) -> str:
    return format_quantity(value, resource)


# --- the cluster's fixed parts ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    name: str
    pool: str
    instance_type: str
    cpu: str
    allocatable_cpu: str
    memory: str
    allocatable_memory: str
    gpus: int = 0
    healthy_gpus: int = 0
    ip: str = ""


NODES = (
    Node("gke-ml-platform-cpu-pool-6c0f1e2d-2xkq", "cpu-pool", "n2-standard-16", "16", "15890m", "65851336Ki",
         "60620232Ki", ip="10.128.0.21"),
    Node("gke-ml-platform-cpu-pool-6c0f1e2d-9vbn", "cpu-pool", "n2-standard-16", "16", "15890m", "65851336Ki",
         "60620232Ki", ip="10.128.0.22"),
    Node("gke-ml-platform-a100-pool-3b7e9d41-k2mz", "a100-pool", "a2-highgpu-8g", "96", "95690m", "713031680Ki",
         "701287424Ki", gpus=8, healthy_gpus=8, ip="10.128.0.31"),
    Node("gke-ml-platform-a100-pool-3b7e9d41-r8tq", "a100-pool", "a2-highgpu-8g", "96", "95690m", "713031680Ki",
         "701287424Ki", gpus=8, healthy_gpus=6, ip="10.128.0.32"),
)  # fmt: skip
CPU_A, CPU_B, GPU_A, GPU_B = (node.name for node in NODES)


@dataclass(frozen=True)
class Flavor:
    name: str
    node_labels: Mapping[str, str]
    taints: tuple[Obj, ...] = ()
    tolerations: tuple[Obj, ...] = ()


FLAVORS = {
    "default-flavor": Flavor("default-flavor", {"cloud.google.com/gke-nodepool": "cpu-pool"}),
    "gpu-a100": Flavor(
        "gpu-a100",
        {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100", "cloud.google.com/gke-nodepool": "a100-pool"},
        taints=(GPU_TAINT,),
        tolerations=(GPU_TOLERATION,),
    ),
    "l4-dws": Flavor(
        "l4-dws", {"cloud.google.com/gke-accelerator": "nvidia-l4", "cloud.google.com/gke-nodepool": "dws-l4"}
    ),
}


@dataclass(frozen=True)
class Queue:
    """A ClusterQueue, its one flavor and nominal quotas, and the LocalQueue that feeds it."""

    name: str
    team: str
    namespace: str
    local_queue: str
    flavor: str
    quota: Mapping[str, str]
    cohort: str | None = None
    check: str | None = None


QUEUES = {
    "cq-equipe-data": Queue("cq-equipe-data", "data", "equipe-data", "default", "default-flavor",
                            {"cpu": "2", "pods": "2"}),
    "vision-gpu": Queue("vision-gpu", "vision", "ml-vision", "default", "gpu-a100",
                        {"cpu": "96", "memory": "768Gi", GPU: "8"}, cohort="ml-gpu-pool"),
    "nlp-gpu": Queue("nlp-gpu", "nlp", "ml-nlp", "default", "gpu-a100",
                     {"cpu": "96", "memory": "768Gi", GPU: "8"}, cohort="ml-gpu-pool"),
    "robotics-dws": Queue("robotics-dws", "robotics", "robotics", "dws-queue", "l4-dws",
                          {"cpu": "64", "memory": "256Gi", GPU: "8"}, check="dws-prov"),
}  # fmt: skip
NAMESPACES = {"equipe-data": "data", "ml-vision": "vision", "ml-nlp": "nlp", "robotics": "robotics"}
DWS_WAITING = "Waiting for resources. Currently there are not enough resources available to fulfill the request."


# --- the jobs and what happens to them --------------------------------------------------------------------


@dataclass(frozen=True)
class Pending:
    """Kueue's record of a failed admission attempt, from `since` on."""

    since: str
    reason: str
    message: str
    attempts: int = 1


@dataclass(frozen=True)
class PodPlan:
    node: str | None  # where it runs once scheduled
    scheduled: str | None = None  # when the scheduler bound it (None: admitted with the job, +2 s)
    unschedulable: str = ""  # the scheduler's message while it waits


@dataclass(frozen=True)
class Job:
    namespace: str
    name: str
    cluster_queue: str
    created: str
    pods: int
    container: Obj
    pending: Mapping[int, Pending] = field(default_factory=dict)  # the record, per state index
    admitted: str | None = None
    reserved: str | None = None  # quota reserved, an admission check still pending
    finished: str | None = None
    placement: tuple[PodPlan, ...] = ()
    priority_class: str | None = None
    priority: int = 0
    annotations: Mapping[str, str] = field(default_factory=dict)

    @property
    def uid(self) -> str:
        return name_uid("batch/Job", self.namespace, self.name)

    @property
    def workload(self) -> str:
        return workload_name("Job", "batch", self.name, self.uid)

    @property
    def queue(self) -> Queue:
        return QUEUES[self.cluster_queue]

    def per_pod(self) -> dict[str, Decimal]:
        requests = self.container.get("resources", {}).get("requests", {})
        limits = self.container.get("resources", {}).get("limits", {})
        merged = {**{k: parse(v) for k, v in limits.items()}, **{k: parse(v) for k, v in requests.items()}}
        return merged

    def total(self) -> dict[str, Decimal]:
        return {resource: value * self.pods for resource, value in self.per_pod().items()}

    def phase(self, now: datetime) -> str:
        if self.finished is not None and at(self.finished) <= now:
            return "finished"
        if self.admitted is not None and at(self.admitted) <= now:
            return "admitted"
        if self.reserved is not None and at(self.reserved) <= now:
            return "reserved"
        return "pending"


def _container(
    name: str, image: str, args: Sequence[str], requests: Mapping[str, str], *, gpu: str = "", gpu_limit: str = ""
) -> Obj:
    """A container; `gpu` is requested and limited, `gpu_limit` only limited (the request follows the limit)."""
    resources: Obj = {"requests": dict(requests)}
    if gpu:
        resources["limits"] = {GPU: gpu}
        resources["requests"][GPU] = gpu
    elif gpu_limit:
        resources["limits"] = {GPU: gpu_limit}
    return {
        "args": list(args),
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "resources": resources,
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }


_OCTOBRE = (
    "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default-flavor, previously "
    "considered podsets requests (0) + current podset request (3) > maximum capacity (2), insufficient quota for "
    "pods in flavor default-flavor, previously considered podsets requests (0) + current podset request (3) > "
    "maximum capacity (2)"
)


def _short_of(needed: int) -> str:
    return (
        "couldn't assign flavors to pod set main: "
        f"insufficient unused quota for {GPU} in flavor gpu-a100, {needed} more needed"
    )


_NO_NODE = (
    f"0/4 nodes are available: 2 Insufficient {GPU}, 2 node(s) didn't match Pod's node affinity/selector. "
    "preemption: 0/4 nodes are available: 2 No preemption victims found for incoming pod, 2 Preemption is not "
    "helpful for scheduling."
)
NOTIFY = {"kueue-bot.io/notify": "U0DEMOUSER"}

JOBS = (
    Job("equipe-data", "nettoyage-donnees", "cq-equipe-data", "10:05:12", 1,
        _container("nettoyage", "registry.example.com/equipe-data/nettoyage:2.3",
                   ["--source", "s3://equipe-data/brut/2026-10-13"], {"cpu": "1"}),
        admitted="10:05:13", placement=(PodPlan(CPU_A),)),
    Job("equipe-data", "train-octobre", "cq-equipe-data", "10:12:03", 3,
        _container("entrainement", "registry.example.com/equipe-data/train-octobre:1.4",
                   ["train.py", "--epochs", "20"], {"cpu": "1"}),
        pending={s: Pending("10:12:04", "ExceedsMaxQuota", _OCTOBRE) for s in range(3)}, annotations=NOTIFY),
    Job("ml-vision", "clip-pretrain", "vision-gpu", "08:10:40", 2,
        _container("trainer", "registry.example.com/ml-vision/clip:2026.10",
                   ["--config", "configs/vit-b16-laion400m.yaml"], {"cpu": "12", "memory": "96Gi"}, gpu="2"),
        admitted="08:10:41", placement=(PodPlan(GPU_A), PodPlan(GPU_A))),
    Job("ml-vision", "yolo-nightly", "vision-gpu", "02:00:00", 1,
        _container("detector", "registry.example.com/ml-vision/yolo:11.2",
                   ["train", "--data", "coco-ships.yaml", "--epochs", "120"], {"cpu": "16", "memory": "64Gi"},
                   gpu="4"),
        admitted="02:00:01", finished="10:40:58", placement=(PodPlan(GPU_B),)),
    Job("ml-vision", "detr-hotfix", "vision-gpu", "10:02:10", 1,
        _container("trainer", "registry.example.com/ml-vision/detr:3.1-hotfix",
                   ["--resume", "gs://ml-vision/detr/ckpt-0412"], {"cpu": "8", "memory": "48Gi"}, gpu="2"),
        pending={0: Pending("10:02:11", "WaitingForQuota", _short_of(2), attempts=4)},
        admitted="10:41:02", placement=(PodPlan(GPU_B, scheduled="10:41:06"),),
        priority_class="production", priority=1000),
    Job("ml-vision", "sam-distill", "vision-gpu", "09:31:40", 1,
        _container("distill", "registry.example.com/ml-vision/sam2:1.0",
                   ["--teacher", "sam2-hiera-large", "--student", "sam2-tiny"], {"cpu": "16", "memory": "96Gi"},
                   gpu="4"),
        pending={0: Pending("09:31:41", "WaitingForQuota", _short_of(4), attempts=7),
                 1: Pending("10:41:02", "WaitingForQuota", _short_of(2), attempts=2)},
        admitted="10:53:41", placement=(PodPlan(GPU_A),)),
    Job("ml-vision", "vit-large-finetune", "vision-gpu", "09:48:27", 2,
        _container("trainer", "registry.example.com/ml-vision/vit:2026.10",
                   ["--model", "vit-large-patch16-224", "--dataset", "inat-2021"], {"cpu": "8", "memory": "64Gi"},
                   gpu="2"),
        pending={0: Pending("09:48:28", "WaitingForQuota", _short_of(4), attempts=5),
                 1: Pending("10:41:02", "WaitingForQuota", _short_of(2), attempts=2)},
        admitted="10:53:41", placement=(PodPlan(GPU_B), PodPlan(GPU_B)), annotations=NOTIFY),
    Job("ml-nlp", "llm-eval-70b", "nlp-gpu", "10:18:05", 2,
        _container("eval", "registry.example.com/ml-nlp/lm-eval:0.4.7",
                   ["--model", "llama-70b-ft-v3", "--tasks", "mmlu,gsm8k", "--shards", "2"],
                   {"cpu": "24", "memory": "320Gi"}, gpu="4"),
        admitted="10:18:06", finished="10:53:40",
        placement=(PodPlan(GPU_A), PodPlan(GPU_B, scheduled="10:41:05", unschedulable=_NO_NODE))),
    Job("robotics", "isaac-policy-sweep", "robotics-dws", "10:20:11", 4,
        _container("sim", "registry.example.com/robotics/isaac-lab:2026.2",
                   ["--task", "Isaac-Lift-Cube-Franka-v0", "--num_envs", "4096"], {"cpu": "8", "memory": "24Gi"},
                   gpu_limit="1"),
        reserved="10:20:12"),
)  # fmt: skip


# --- the day before: what the ETA rests on ---------------------------------------------------------------
#
# Generated, not hand-written: yesterday evening's batch in vision-gpu, so that the bot has seen this queue
# move (bot.notify.history records each Workload's own admission, from its conditions). Poisson arrivals from
# 10:40 to 22:30, 1 to 4 GPUs each, lognormal run times of 60 min on average, admitted as Kueue's
# BestEffortFIFO would (in order, any that fits the 8 GPUs); every run ends by 01:58, before yolo-nightly
# starts at 02:00 (a run that would last longer is cut there: the team's batch window). The Jobs and their
# Workloads stay (finished, as Kueue keeps them); their pods were cleaned up, so the dumps carry none.

_PAST_SEED = 1014
_PAST_FROM, _PAST_UNTIL, _PAST_DONE = "2026-10-13T10:40:00Z", "2026-10-13T22:30:00Z", "01:58:00"
_PAST_MODELS = ("resnet-ablation", "dino-probe", "swin-bench", "mask-rcnn", "depth-est", "ocr-batch")
_PAST_SIZES = ((1, 1, 0.3), (1, 2, 0.4), (2, 2, 0.3))  # (pods, GPUs per pod, probability)


def _past_jobs() -> tuple[Job, ...]:
    rng = random.Random(_PAST_SEED)
    start, until, done = at(_PAST_FROM), at(_PAST_UNTIL), at(_PAST_DONE)
    capacity = int(QUEUES["vision-gpu"].quota[GPU])
    mean_gpus = sum(pods * gpus * p for pods, gpus, p in _PAST_SIZES)
    rate = 0.9 * capacity / (mean_gpus * 60)  # arrivals a minute at a load of 0.9
    arrivals: list[tuple[datetime, int, int, float]] = []
    moment = start
    while True:
        moment += timedelta(seconds=round(rng.expovariate(rate) * 60))
        if moment > until:
            break
        pods, gpus, _ = rng.choices(_PAST_SIZES, [p for *_, p in _PAST_SIZES])[0]
        minutes = rng.lognormvariate(0, 0.6) * 60 / 1.197  # mean 60 (exp(0.6^2 / 2) = 1.197)
        arrivals.append((moment, pods, gpus, minutes))
    running: list[tuple[datetime, int]] = []  # (finish, GPUs)
    waiting: list[int] = []  # indexes into arrivals, in order
    admitted: dict[int, tuple[datetime, datetime]] = {}
    events = sorted({a[0] for a in arrivals})
    index = 0
    clock = start
    while index < len(arrivals) or waiting:
        next_finish = min((f for f, _ in running), default=None)
        next_arrival = arrivals[index][0] if index < len(arrivals) else None
        if next_arrival is not None and (next_finish is None or next_arrival <= next_finish):
            clock = next_arrival
            waiting.append(index)
            index += 1
        elif next_finish is not None:
            clock = next_finish
            running = [r for r in running if r[0] > clock]
        else:
            break
        free = capacity - sum(g for _, g in running)
        for queued in list(waiting):  # BestEffortFIFO: in order, any that fits
            _, pods, gpus, minutes = arrivals[queued]
            if pods * gpus <= free:
                end = min(clock + timedelta(seconds=round(minutes * 60)), done)
                admitted[queued] = (clock + timedelta(seconds=1), end)
                running.append((end, pods * gpus))
                free -= pods * gpus
                waiting.remove(queued)
    del events
    found = []
    for number, (created, pods, gpus, _) in enumerate(arrivals):
        if number not in admitted:
            continue
        began, ended = admitted[number]
        model = _PAST_MODELS[number % len(_PAST_MODELS)]
        found.append(
            Job("ml-vision", f"{model}-{number:03d}", "vision-gpu", stamp(created), pods,
                _container("trainer", f"registry.example.com/ml-vision/{model}:2026.10", ["--run", str(number)],
                           {"cpu": str(4 * gpus), "memory": f"{32 * gpus}Gi"}, gpu=str(gpus)),
                admitted=stamp(began), finished=stamp(ended))
        )  # fmt: skip
    return tuple(found)


PAST = _past_jobs()


# --- objects ----------------------------------------------------------------------------------------------


class Versions:
    """resourceVersions that grow in the order objects are written."""

    def __init__(self, start: int) -> None:
        self._next = start

    def __call__(self) -> str:
        self._next += 17
        return str(self._next)


def meta(name: str, rv: Versions, created: datetime, *, uid: str, namespace: str | None = None, **extra: Any) -> Obj:
    """metadata: the name, namespace, uid, a new resourceVersion, and the other fields given (None: left out)."""
    return raw.metadata(name, namespace, uid=uid, created=stamp(created), resource_version=rv(), **extra)


def namespace_obj(name: str, team: str, rv: Versions) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": meta(
            name,
            rv,
            at("2026-03-02T09:00:00Z"),
            labels={"kubernetes.io/metadata.name": name, "team": team},
            uid=name_uid("Namespace", name),
        ),
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def node_obj(node: Node, rv: Versions, now: datetime) -> Obj:
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "cloud.google.com/gke-nodepool": node.pool,
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": node.name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": node.instance_type,
    }
    capacity = {"cpu": node.cpu, "ephemeral-storage": "202218588Ki", "memory": node.memory, "pods": "110"}
    allocatable = {
        "cpu": node.allocatable_cpu,
        "ephemeral-storage": "94477937300",
        "memory": node.allocatable_memory,
        "pods": "110",
    }
    spec: Obj = {
        "podCIDR": f"10.52.{NODES.index(node) + 12}.0/24",
        "providerID": f"gce://ml-platform/europe-west4-a/{node.name}",
    }
    if node.gpus:
        labels["cloud.google.com/gke-accelerator"] = "nvidia-tesla-a100"
        capacity[GPU] = str(node.gpus)
        allocatable[GPU] = str(node.healthy_gpus)
        spec["taints"] = [dict(GPU_TAINT)]
    heartbeat = stamp(now - timedelta(seconds=41))
    since = stamp(at("2026-10-02T06:14:00Z"))
    conditions = [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": meta(node.name, rv, at("2026-10-02T06:13:20Z"), labels=labels, uid=name_uid("Node", node.name)),
        "spec": spec,
        "status": {
            "addresses": [{"address": node.ip, "type": "InternalIP"}, {"address": node.name, "type": "Hostname"}],
            "allocatable": allocatable,
            "capacity": capacity,
            "conditions": [
                {
                    "lastHeartbeatTime": heartbeat,
                    "lastTransitionTime": since,
                    "message": message,
                    "reason": reason,
                    "status": status,
                    "type": kind,
                }
                for kind, status, reason, message in conditions
            ],
            "nodeInfo": {
                "architecture": "amd64",
                "containerRuntimeVersion": "containerd://2.0.6",
                "kernelVersion": "6.6.97+",
                "kubeProxyVersion": "",
                "kubeletVersion": "v1.34.1-gke.1431000",
                "operatingSystem": "linux",
                "osImage": "Container-Optimized OS from Google",
            },
        },
    }


def flavor_obj(flavor: Flavor, rv: Versions) -> Obj:
    return raw.resource_flavor(
        meta(
            flavor.name,
            rv,
            at("2026-03-02T09:04:00Z"),
            finalizers=[raw.RESOURCE_IN_USE],
            generation=1,
            uid=name_uid("ResourceFlavor", flavor.name),
        ),
        node_labels=flavor.node_labels,
        taints=[dict(t) for t in flavor.taints],
        tolerations=[dict(t) for t in flavor.tolerations],
    )


def _usage(jobs: Iterable[Job], now: datetime, phases: set[str]) -> dict[str, Decimal]:
    totals: dict[str, Decimal] = {}
    for job in jobs:
        if job.phase(now) in phases:
            for resource, value in job.total().items():
                totals[resource] = totals.get(resource, Decimal(0)) + value
            if "pods" in job.queue.quota:
                totals["pods"] = totals.get("pods", Decimal(0)) + job.pods
    return totals


def _flavor_usage(queue: Queue, used: Mapping[str, Decimal], *, borrowed: bool) -> list[Obj]:
    totals = []
    for resource, nominal in queue.quota.items():
        total = used.get(resource, Decimal(0))
        lent = quantity(max(Decimal(0), total - parse(nominal)), resource) if borrowed else None
        totals.append((resource, quantity(total, resource), lent))
    return [raw.flavor_usage(queue.flavor, totals)]


def _queue_status(queue: Queue, jobs: Sequence[Job], now: datetime, active: Obj, *, borrowed: bool) -> Obj:
    return raw.queue_status(
        [active],
        reservation=_flavor_usage(queue, _usage(jobs, now, {"admitted", "reserved"}), borrowed=borrowed),
        usage=_flavor_usage(queue, _usage(jobs, now, {"admitted"}), borrowed=borrowed),
        counts=_counts(jobs, now),
    )


def _counts(jobs: Sequence[Job], now: datetime) -> dict[str, int]:
    phases = [job.phase(now) for job in jobs]
    return {
        "admittedWorkloads": phases.count("admitted"),
        "pendingWorkloads": phases.count("pending"),
        "reservingWorkloads": phases.count("admitted") + phases.count("reserved"),
    }


def _quota_value(value: str) -> int | str:
    """A quota as kubectl shows it: whole numbers unquoted."""
    return int(value) if value.isdigit() else value


def cluster_queue_obj(queue: Queue, rv: Versions, now: datetime) -> Obj:
    jobs = [job for job in JOBS if job.cluster_queue == queue.name and at(job.created) <= now]
    quotas = [raw.quota(resource, _quota_value(value)) for resource, value in queue.quota.items()]
    active = raw.cluster_queue_active(stamp(at("2026-03-02T09:04:31Z")))
    return raw.cluster_queue(
        meta(
            queue.name,
            rv,
            at("2026-03-02T09:04:30Z"),
            finalizers=[raw.RESOURCE_IN_USE],
            generation=1,
            uid=name_uid("ClusterQueue", queue.name),
        ),
        [raw.resource_group(queue.quota, [raw.flavor_quotas(queue.flavor, quotas)])],
        cohort=queue.cohort,
        selector={"matchLabels": {"team": queue.team}},
        stop_policy="None",
        strategy="BestEffortFIFO",
        checks=[queue.check] if queue.check else (),
        fungibility={"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
        preemption={
            "borrowWithinCohort": {"policy": "Never"},
            "reclaimWithinCohort": "Never",
            "withinClusterQueue": "Never",
        },
        status=_queue_status(queue, jobs, now, active, borrowed=True),
    )


def local_queue_obj(queue: Queue, rv: Versions, now: datetime) -> Obj:
    jobs = [job for job in JOBS if job.cluster_queue == queue.name and at(job.created) <= now]
    since = stamp(at("2026-03-02T09:06:00Z"))
    active = raw.condition("Active", "True", "Ready", "Can submit new workloads to localQueue", since)
    return raw.local_queue(
        meta(
            queue.local_queue,
            rv,
            at("2026-03-02T09:06:00Z"),
            namespace=queue.namespace,
            generation=1,
            uid=name_uid("LocalQueue", queue.namespace, queue.local_queue),
        ),
        queue.name,
        stop_policy="None",
        status=_queue_status(queue, jobs, now, active, borrowed=False),
    )


def cohort_obj(rv: Versions) -> Obj:
    return raw.cohort(
        meta("ml-gpu-pool", rv, at("2026-03-02T09:04:20Z"), generation=1, uid=name_uid("Cohort", "ml-gpu-pool"))
    )


def priority_class_obj(rv: Versions) -> Obj:
    return raw.priority_class(
        meta("production", rv, at("2026-03-02T09:03:00Z"), generation=1, uid=name_uid("WPC", "production")),
        1000,
        description="Fixes for models in production: ahead of research work in every queue.",
    )


def admission_check_objs(rv: Versions) -> list[Obj]:
    config = raw.provisioning_request_config(
        meta("dws-l4-config", rv, at("2026-05-12T08:31:10Z"), generation=1, uid=name_uid("PRC", "dws-l4")),
        "queued-provisioning.gke.io",
        managed_resources=[GPU],
        retry={"backoffBaseSeconds": 60, "backoffLimitCount": 3, "backoffMaxSeconds": 1800},
    )
    check = raw.admission_check(
        meta("dws-prov", rv, at("2026-05-12T08:31:12Z"), generation=1, uid=name_uid("AC", "dws-prov")),
        "kueue.x-k8s.io/provisioning-request",
        parameters={"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "dws-l4-config"},
        conditions=[raw.admission_check_active(stamp(at("2026-05-12T08:31:12Z")), observed_generation=1)],
    )
    return [config, check]


# --- a job, its Workload, its pods and their events -------------------------------------------------------


def _template(job: Job, *, injected: bool) -> Obj:
    spec: Obj = {
        "containers": [job.container],
        "dnsPolicy": "ClusterFirst",
        "restartPolicy": "Never",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "terminationGracePeriodSeconds": 30,
    }
    flavor = FLAVORS[job.queue.flavor]
    if injected:
        spec["nodeSelector"] = dict(flavor.node_labels)
        if flavor.tolerations:
            spec["tolerations"] = [dict(t) for t in flavor.tolerations]
    return spec


def job_obj(job: Job, rv: Versions, now: datetime) -> Obj:
    phase = job.phase(now)
    created = at(job.created)
    running = phase in ("admitted", "finished")
    labels = {"kueue.x-k8s.io/queue-name": job.queue.local_queue}
    if job.priority_class:
        labels["kueue.x-k8s.io/priority-class"] = job.priority_class
    selector = {"batch.kubernetes.io/controller-uid": job.uid}
    template_labels = {
        "batch.kubernetes.io/controller-uid": job.uid,
        "batch.kubernetes.io/job-name": job.name,
        "controller-uid": job.uid,
        "job-name": job.name,
    }
    status: Obj = {"ready": 0, "terminating": 0}
    suspended = {
        "lastProbeTime": stamp(created),
        "lastTransitionTime": stamp(created),
        "message": "Job suspended",
        "reason": "JobSuspended",
        "status": "True",
        "type": "Suspended",
    }
    if running:
        assert job.admitted is not None
        resumed = stamp(at(job.admitted))
        suspended = {**suspended, "lastProbeTime": resumed, "lastTransitionTime": resumed}
        suspended.update(message="Job resumed", reason="JobResumed", status="False")
        status["startTime"] = resumed
        status["uncountedTerminatedPods"] = {}
    status["conditions"] = [suspended]
    if phase == "admitted":
        placed = [plan for plan in job.placement if _scheduled(job, plan, now) is not None]
        status["active"] = job.pods
        status["ready"] = len(placed)
    if phase == "finished":
        assert job.finished is not None
        done = stamp(at(job.finished))
        for kind in ("SuccessCriteriaMet", "Complete"):
            status["conditions"].append(
                {
                    "lastProbeTime": done,
                    "lastTransitionTime": done,
                    "message": "Reached expected number of succeeded pods",
                    "reason": "CompletionsReached",
                    "status": "True",
                    "type": kind,
                }
            )
        status["completionTime"] = done
        status["succeeded"] = job.pods
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta(
            job.name,
            rv,
            created,
            namespace=job.namespace,
            annotations=dict(job.annotations) or None,
            generation=2 if running else 1,
            labels=labels,
            uid=job.uid,
        ),
        "spec": {
            "backoffLimit": 6,
            "completionMode": "NonIndexed",
            "completions": job.pods,
            "manualSelector": False,
            "parallelism": job.pods,
            "podReplacementPolicy": "TerminatingOrFailed",
            "selector": {"matchLabels": selector},
            "suspend": not running,
            "template": {"metadata": {"labels": template_labels}, "spec": _template(job, injected=running)},
        },
        "status": status,
    }


def _admission(job: Job) -> Obj:
    usage = {r: quantity(v, r) for r, v in sorted(job.total().items())}
    flavors = dict.fromkeys(sorted(job.total()), job.queue.flavor)
    return raw.admission(job.cluster_queue, [raw.pod_set_assignment("main", job.pods, flavors, usage)])


def _condition(kind: str, status: str, reason: str, message: str, since: datetime) -> Obj:
    return raw.condition(kind, status, reason, message, stamp(since), observed_generation=1)


def _workload_status(job: Job, state: int, now: datetime) -> Obj:
    phase = job.phase(now)
    if phase == "pending":
        record = job.pending[state]
        since = at(record.since)
        return {
            "conditions": [
                _condition("QuotaReserved", "False", record.reason, record.message, since),
                _condition("Admitted", "False", "NoReservation", "The workload has no reservation", since),
            ],
            "resourceRequests": [
                raw.pod_set_requests("main", {r: quantity(v, r) for r, v in sorted(job.total().items())})
            ],
        }
    cq = job.cluster_queue
    if phase == "reserved":
        assert job.reserved is not None and job.queue.check is not None
        reserved = at(job.reserved)
        waiting = "The workload has not all checks ready"
        return {
            "admission": _admission(job),
            "admissionChecks": [raw.check_state(job.queue.check, "Pending", DWS_WAITING, stamp(reserved))],
            "conditions": [
                raw.quota_reserved(cq, stamp(reserved), observed_generation=1),
                _condition("Admitted", "False", "UnsatisfiedAdmissionChecks", waiting, reserved),
            ],
        }
    assert job.admitted is not None
    when = stamp(at(job.admitted))
    conditions = [raw.quota_reserved(cq, when, observed_generation=1), raw.admitted(when, observed_generation=1)]
    if phase == "finished":
        assert job.finished is not None
        done = at(job.finished) + timedelta(seconds=1)
        finished = "Reached expected number of succeeded pods"
        conditions.append(_condition("Finished", "True", "Succeeded", finished, done))
    return {"admission": _admission(job), "conditions": conditions}


def workload_obj(job: Job, state: int, rv: Versions, now: datetime) -> Obj:
    template = {
        "metadata": {"labels": {"batch.kubernetes.io/job-name": job.name}},
        "spec": _template(job, injected=False),
    }
    topology = {"podIndexLabel": "batch.kubernetes.io/job-completion-index"}
    return raw.workload(
        meta(
            job.workload,
            rv,
            at(job.created),
            namespace=job.namespace,
            finalizers=[raw.RESOURCE_IN_USE],
            generation=1,
            labels={raw.JOB_UID_LABEL: job.uid},
            owners=[raw.owner_reference("batch/v1", "Job", job.name, job.uid)],
            uid=name_uid("Workload", job.namespace, job.workload),
        ),
        pod_sets=[raw.pod_set("main", job.pods, template, topology_request=topology)],
        queue=job.queue.local_queue,
        priority=job.priority,
        priority_class=job.priority_class,
        active=True,
        status=_workload_status(job, state, now),
    )


def _pod_created(job: Job) -> datetime:
    assert job.admitted is not None
    return at(job.admitted) + timedelta(seconds=1)


def _scheduled(job: Job, plan: PodPlan, now: datetime) -> datetime | None:
    """When the pod was bound to its node, if it was by `now`."""
    moment = at(plan.scheduled) if plan.scheduled else _pod_created(job) + timedelta(seconds=1)
    return moment if moment <= now else None


def pod_name(job: Job, index: int) -> str:
    return f"{job.name}-{pod_suffix(job.namespace, job.name, str(index))}"


def _pod_condition(kind: str, status: str, since: datetime, reason: str | None = None) -> Obj:
    condition: Obj = {"lastProbeTime": None, "lastTransitionTime": stamp(since), "status": status, "type": kind}
    if reason is not None:
        condition["reason"] = reason
    return condition


def pod_obj(job: Job, index: int, plan: PodPlan, rv: Versions, now: datetime) -> Obj:
    name = pod_name(job, index)
    created = _pod_created(job)
    finished = job.phase(now) == "finished"
    scheduled = _scheduled(job, plan, now)
    spec: Obj = {
        **_template(job, injected=True),
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "serviceAccount": "default",
        "serviceAccountName": "default",
    }
    spec["tolerations"] = [*spec.get("tolerations", []), *_DEFAULT_TOLERATIONS]
    container = job.container["name"]
    status: Obj = {"qosClass": "Burstable"}
    if scheduled is None:
        status["conditions"] = [
            {
                "lastProbeTime": None,
                "lastTransitionTime": stamp(created),
                "message": plan.unschedulable,
                "reason": "Unschedulable",
                "status": "False",
                "type": "PodScheduled",
            }
        ]
        status["phase"] = "Pending"
    else:
        assert plan.node is not None
        spec["nodeName"] = plan.node
        started = scheduled + timedelta(seconds=4)
        ready = scheduled + timedelta(seconds=38)
        node = next(n for n in NODES if n.name == plan.node)
        pod_ip = f"10.52.{NODES.index(node) + 12}.{20 + index + len(job.name)}"
        container_id = "containerd://" + short_hash("container", job.name, str(index), length=64)
        image_id = (
            job.container["image"].split(":")[0] + "@sha256:" + short_hash("image", job.container["image"], length=64)
        )
        if finished:
            assert job.finished is not None
            ended = at(job.finished) - timedelta(seconds=2)
            status["conditions"] = [
                _pod_condition("PodReadyToStartContainers", "False", ended),
                _pod_condition("Initialized", "True", started),
                _pod_condition("Ready", "False", ended, "PodCompleted"),
                _pod_condition("ContainersReady", "False", ended, "PodCompleted"),
                _pod_condition("PodScheduled", "True", scheduled),
            ]
            state: Obj = {
                "terminated": {
                    "containerID": container_id,
                    "exitCode": 0,
                    "finishedAt": stamp(ended),
                    "reason": "Completed",
                    "startedAt": stamp(started),
                }
            }
            status["phase"] = "Succeeded"
            ready_now = False
        else:
            status["conditions"] = [
                _pod_condition("PodReadyToStartContainers", "True", started),
                _pod_condition("Initialized", "True", started),
                _pod_condition("Ready", "True", ready),
                _pod_condition("ContainersReady", "True", ready),
                _pod_condition("PodScheduled", "True", scheduled),
            ]
            state = {"running": {"startedAt": stamp(started)}}
            status["phase"] = "Running"
            ready_now = True
        status["containerStatuses"] = [
            {
                "containerID": container_id,
                "image": job.container["image"],
                "imageID": image_id,
                "lastState": {},
                "name": container,
                "ready": ready_now,
                "restartCount": 0,
                "started": ready_now,
                "state": state,
            }
        ]
        status["hostIP"] = node.ip
        status["podIP"] = pod_ip
        status["startTime"] = stamp(scheduled)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta(
            name,
            rv,
            created,
            namespace=job.namespace,
            finalizers=None if finished else ["batch.kubernetes.io/job-tracking"],
            generateName=f"{job.name}-",
            labels={
                "batch.kubernetes.io/controller-uid": job.uid,
                "batch.kubernetes.io/job-name": job.name,
                "controller-uid": job.uid,
                "job-name": job.name,
            },
            owners=[raw.owner_reference("batch/v1", "Job", job.name, job.uid)],
            uid=name_uid("Pod", job.namespace, name),
        ),
        "spec": spec,
        "status": status,
    }


def provisioning_request_obj(job: Job, rv: Versions) -> Obj:
    assert job.reserved is not None and job.queue.check is not None
    reserved = at(job.reserved)
    name = f"{job.workload}-{job.queue.check}-1"
    return {
        "apiVersion": "autoscaling.x-k8s.io/v1",
        "kind": "ProvisioningRequest",
        "metadata": meta(
            name,
            rv,
            reserved + timedelta(seconds=1),
            namespace=job.namespace,
            generation=1,
            owners=[raw.owner_reference(raw.KUEUE, "Workload", job.workload, _workload_ref(job).uid)],
            uid=name_uid("ProvisioningRequest", job.namespace, name),
        ),
        "spec": {
            "podSets": [{"count": job.pods, "podTemplateRef": {"name": f"ppt-{name}-main"}}],
            "provisioningClassName": "queued-provisioning.gke.io",
        },
        "status": {
            "conditions": [
                {
                    "lastTransitionTime": stamp(reserved + timedelta(seconds=3)),
                    "message": "Provisioning Request was accepted.",
                    "observedGeneration": 1,
                    "reason": "Accepted",
                    "status": "True",
                    "type": "Accepted",
                },
                {
                    "lastTransitionTime": stamp(reserved + timedelta(seconds=3)),
                    "message": DWS_WAITING,
                    "observedGeneration": 1,
                    "reason": "ResourcePoolExhausted",
                    "status": "False",
                    "type": "Provisioned",
                },
            ]
        },
    }


@dataclass(frozen=True)
class Involved:
    api_version: str
    kind: str
    namespace: str
    name: str
    uid: str

    def ref(self) -> Obj:
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "namespace": self.namespace,
            "uid": self.uid,
        }


def _job_ref(job: Job) -> Involved:
    return Involved("batch/v1", "Job", job.namespace, job.name, job.uid)


def _workload_ref(job: Job) -> Involved:
    return Involved(
        raw.KUEUE,
        "Workload",
        job.namespace,
        job.workload,
        name_uid("Workload", job.namespace, job.workload),
    )


def _pod_ref(job: Job, index: int) -> Involved:
    name = pod_name(job, index)
    return Involved("v1", "Pod", job.namespace, name, name_uid("Pod", job.namespace, name))


def core_event(about: Involved, reason: str, message: str, when: datetime, rv: Versions, *, component: str) -> Obj:
    """An event as the job controller writes it (core/v1 fields)."""
    return {
        "apiVersion": "v1",
        "count": 1,
        "firstTimestamp": stamp(when),
        "involvedObject": about.ref(),
        "kind": "Event",
        "lastTimestamp": stamp(when),
        "message": message,
        "metadata": _event_meta(about, reason, message, when, rv),
        "reason": reason,
        "reportingComponent": component,
        "reportingInstance": "",
        "source": {"component": component},
        "type": "Normal",
    }


def _event_meta(about: Involved, reason: str, message: str, when: datetime, rv: Versions) -> Obj:
    """An event's metadata: its name and uid derived from what it says, so that rebuilding gives the same."""
    return meta(
        f"{about.name}.{short_hash(about.name, reason, message, stamp(when))}",
        rv,
        when,
        namespace=about.namespace,
        uid=name_uid("Event", about.namespace, about.name, reason, message, stamp(when)),
    )


def new_event(
    about: Involved,
    reason: str,
    message: str,
    when: datetime,
    rv: Versions,
    *,
    by: tuple[str, str],
    action: str | None = None,
    warning: bool = False,
    series: tuple[int, datetime] | None = None,
) -> Obj:
    """An event as controllers using the events.k8s.io recorder write it (Kueue, the scheduler); `by` is the
    reporting component and instance."""
    component, instance = by
    event: Obj = {
        "action": action or reason,
        "apiVersion": "v1",
        "eventTime": micro_stamp(when, about.name + reason),
        "firstTimestamp": None,
        "involvedObject": about.ref(),
        "kind": "Event",
        "lastTimestamp": None,
        "message": message,
        "metadata": _event_meta(about, reason, message, when, rv),
        "reason": reason,
        "reportingComponent": component,
        "reportingInstance": instance,
        "source": {},
        "type": "Warning" if warning else "Normal",
    }
    if series is not None:
        count, last = series
        event["series"] = {"count": count, "lastObservedTime": micro_stamp(last, about.name + "series")}
    return event


def job_events(job: Job, state: int, rv: Versions, now: datetime) -> list[tuple[datetime, Obj]]:
    """Every event about the job, its Workload and its pods up to `now` (the caller keeps the last hour's)."""
    phase = job.phase(now)
    created = at(job.created)
    jref, wref = _job_ref(job), _workload_ref(job)
    kueue = ("batch/job-kueue-controller", _KUEUE_MANAGER)
    admission = ("kueue-admission", _KUEUE_MANAGER)
    made = f"Created Workload: {job.namespace}/{job.workload}"
    out: list[tuple[datetime, Obj]] = [
        (created, core_event(jref, "Suspended", "Job suspended", created, rv, component="job-controller")),
        (created, new_event(jref, "CreatedWorkload", made, created, rv, by=kueue)),
    ]
    if phase == "pending":
        record = job.pending[state]
        since = at(record.since)
        last = since + (now - since) * 0.9 if record.attempts > 1 else since
        series = (record.attempts, last) if record.attempts > 1 else None
        out.append(
            (
                last,
                new_event(wref, record.reason, record.message, since, rv, warning=True, series=series, by=admission),
            )
        )
        return out
    cq = job.cluster_queue
    entered = at(job.reserved or job.admitted or job.created)
    waited = int((entered - created).total_seconds())
    out.append(
        (
            entered,
            new_event(
                wref,
                "QuotaReserved",
                f"Quota reserved in ClusterQueue {cq}, wait time since queued was {waited}s",
                entered,
                rv,
                by=admission,
            ),
        )
    )
    if phase == "reserved":
        check = job.queue.check or ""
        when = entered + timedelta(seconds=4)
        out.append((when, new_event(jref, "UpdatedAdmissionCheck", f"{check}: {DWS_WAITING}", when, rv, by=kueue)))
        return out
    out.append(
        (
            entered,
            new_event(
                wref, "Admitted", f"Admitted by ClusterQueue {cq}, wait time since reservation was 0s", entered, rv,
                by=admission,
            ),
        )
    )  # fmt: skip
    out.append((entered, new_event(jref, "Started", f"Admitted by clusterQueue {cq}", entered, rv, by=kueue)))
    out.append((entered, core_event(jref, "Resumed", "Job resumed", entered, rv, component="job-controller")))
    pod_created = _pod_created(job)
    for index, plan in enumerate(job.placement):
        name = pod_name(job, index)
        created_pod = core_event(
            jref, "SuccessfulCreate", f"Created pod: {name}", pod_created, rv, component="job-controller"
        )
        out.append((pod_created, created_pod))
        scheduled = _scheduled(job, plan, now)
        pref = _pod_ref(job, index)
        scheduler = ("default-scheduler", _SCHEDULER)
        if plan.unschedulable:
            end = scheduled or now
            attempts = max(1, int((end - pod_created).total_seconds() // 150))
            last = end - timedelta(seconds=48) if scheduled is None else end - timedelta(seconds=3)
            out.append(
                (
                    last,
                    new_event(
                        pref, "FailedScheduling", plan.unschedulable, pod_created + timedelta(seconds=1), rv,
                        action="Scheduling", warning=True, series=(attempts, last) if attempts > 1 else None,
                        by=scheduler,
                    ),
                )
            )  # fmt: skip
        if scheduled is not None:
            message = f"Successfully assigned {job.namespace}/{name} to {plan.node}"
            out.append(
                (scheduled, new_event(pref, "Scheduled", message, scheduled, rv, action="Binding", by=scheduler))
            )
    if phase == "finished":
        assert job.finished is not None
        done = at(job.finished)
        out.append((done, core_event(jref, "Completed", "Job completed", done, rv, component="job-controller")))
        message = f"Workload '{job.namespace}/{job.workload}' is declared finished"
        out.append((done, new_event(jref, "FinishedWorkload", message, done + timedelta(seconds=1), rv, by=kueue)))
    return out


# --- a whole dump -----------------------------------------------------------------------------------------


def cluster(state_index: int) -> list[Obj]:
    """Every object of the cluster at that moment of the story, in the order kubectl lists kinds."""
    now = MOMENTS[state_index].at
    rv = Versions(48_120_000 + state_index * 9_000)
    objects: list[Obj] = [namespace_obj(name, team, rv) for name, team in NAMESPACES.items()]
    objects += [node_obj(node, rv, now) for node in NODES]
    objects += [flavor_obj(flavor, rv) for flavor in FLAVORS.values()]
    objects.append(cohort_obj(rv))
    objects.append(priority_class_obj(rv))
    objects += admission_check_objs(rv)
    objects += [cluster_queue_obj(queue, rv, now) for queue in QUEUES.values()]
    objects += [local_queue_obj(queue, rv, now) for queue in QUEUES.values()]
    jobs = [job for job in (*PAST, *JOBS) if at(job.created) <= now]
    objects += [job_obj(job, rv, now) for job in jobs]
    objects += [workload_obj(job, state_index, rv, now) for job in jobs]
    for job in jobs:
        if job.phase(now) in ("admitted", "finished") and job not in PAST:  # the day before's: cleaned up
            objects += [pod_obj(job, index, plan, rv, now) for index, plan in enumerate(job.placement)]
    objects += [provisioning_request_obj(job, rv) for job in jobs if job.phase(now) == "reserved"]
    events = [(when, event) for job in jobs for when, event in job_events(job, state_index, rv, now)]
    objects += [event for when, event in sorted(events, key=lambda item: item[0]) if now - when <= _EVENT_TTL]
    return objects


_HEADER = """\
# The kueue-bot demo cluster at {title}.
# Its objects as `kubectl get <kind> -A -o yaml` returns them (namespaces, nodes, the Kueue objects, jobs,
# workloads, pods, provisioningrequests, the last hour's events), one YAML document each.
# Written by `python -m bot.demo.build_cluster`: bot/demo/build_cluster.py says what happens and why.
"""


class _Dumper(yaml.SafeDumper):
    pass


def _no_aliases(dumper: yaml.SafeDumper, data: Any) -> bool:
    return True


_Dumper.ignore_aliases = _no_aliases  # type: ignore[method-assign, assignment]


def render(state_index: int) -> str:
    body = yaml.dump_all(cluster(state_index), Dumper=_Dumper, sort_keys=True, default_flow_style=False, width=4096)
    return _HEADER.format(title=MOMENTS[state_index].title) + body


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/build_cluster.py", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a dump differs from what this file writes")
    args = parser.parse_args(argv)
    stale = []
    for index, state in enumerate(MOMENTS):
        path = CLUSTER_DIR / state.file
        text = render(index)
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(state.file)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)} (run tools/build_cluster.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
