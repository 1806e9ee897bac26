"""The state of a LocalQueue for `/kueue queue ns/queue`: its ClusterQueue, quota use, who waits, the head."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from bot.trace.codes import Verdict
from bot.trace.demand import workload_demand
from bot.trace.model import Workload, job_name
from bot.trace.queuechain import QueueChain, queue_chain
from bot.trace.quota import capacity
from bot.trace.snapshot import Snapshot

MAX_LISTED = 10


@dataclass(frozen=True)
class QuotaLine:
    flavor: str
    resource: str
    nominal: Decimal
    used: Decimal
    available: Decimal
    maximum: Decimal


@dataclass(frozen=True)
class Waiting:
    namespace: str
    name: str  # the job's name (what people call it); the Workload's when it has no owner
    local_queue: str
    priority: int
    position: int  # 1-based in the ClusterQueue
    demand: dict[str, Decimal]


@dataclass(frozen=True)
class QueueView:
    namespace: str
    name: str
    exists: bool
    blocker: Verdict | None  # local-queue-missing, cluster-queue-missing, queue-stopped, queue-inactive
    cluster_queue: str
    cohort: str
    strategy: str
    quotas: tuple[QuotaLine, ...]
    pending_in_cluster_queue: int
    pending_here: int
    admitted_here: int
    waiting: tuple[Waiting, ...]  # the first MAX_LISTED of the ClusterQueue, in Kueue's order
    chain: QueueChain


def describe_queue(snapshot: Snapshot, namespace: str, name: str) -> QueueView:
    chain = queue_chain(snapshot, namespace, name)
    cq = chain.cluster_queue
    quotas: list[QuotaLine] = []
    if cq is not None:
        for group in cq.resource_groups:
            for flavor in group.flavors:
                for quota in flavor.resources:
                    cap = capacity(snapshot, cq, flavor.name, quota.name)
                    quotas.append(
                        QuotaLine(
                            flavor.name, quota.name, cap.nominal, cap.used, max(Decimal(0), cap.available), cap.maximum
                        )
                    )
    pending: list[Workload] = list(snapshot.pending_in(chain.cluster_queue_name)) if chain.cluster_queue_name else []
    here = [w for w in snapshot.workloads_in(namespace) if w.queue_name == name]
    waiting = tuple(
        Waiting(w.namespace, job_name(w), w.queue_name, w.priority, index + 1, workload_demand(w))
        for index, w in enumerate(pending[:MAX_LISTED])
    )
    return QueueView(
        namespace=namespace,
        name=name,
        exists=chain.local_queue is not None,
        blocker=chain.blocker,
        cluster_queue=chain.cluster_queue_name,
        cohort=cq.cohort if cq else "",
        strategy=cq.queueing_strategy if cq else "",
        quotas=tuple(quotas),
        pending_in_cluster_queue=len(pending),
        pending_here=sum(1 for w in pending if w.namespace == namespace and w.queue_name == name),
        admitted_here=sum(1 for w in here if w.admitted and not w.finished),
        waiting=waiting,
        chain=chain,
    )
