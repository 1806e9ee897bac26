"""What a LocalQueue can give now (`/kueue quota ns/lq`): per flavor and resource of its ClusterQueue, the
nominal quota, what it may borrow from its cohort and lend to it, what is in use, what is free now, and the most
it can ever get. The engine's own quota math (bot.trace.quota). Pure."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from bot.trace.quota import ZERO, capacity
from bot.trace.snapshot import Snapshot


@dataclass(frozen=True)
class QuotaRow:
    flavor: str
    resource: str
    nominal: Decimal
    borrowable: Decimal  # the most it can borrow (its maximum above its nominal quota)
    lendable: Decimal | None  # what its cohort may take of its nominal quota (None: no cohort to lend to)
    used: Decimal
    free: Decimal  # free for it now (its own unused, and what the cohort can lend now)
    maximum: Decimal


@dataclass(frozen=True)
class QueueQuota:
    namespace: str
    local_queue: str
    cluster_queue: str = ""
    rows: tuple[QuotaRow, ...] = ()
    problem: str = ""  # local-queue-missing | cluster-queue-missing


def queue_quota(snapshot: Snapshot, namespace: str, local_queue: str) -> QueueQuota:
    lq = snapshot.local_queue(namespace, local_queue)
    if lq is None:
        return QueueQuota(namespace, local_queue, problem="local-queue-missing")
    cq = snapshot.cluster_queue(lq.cluster_queue)
    if cq is None:
        return QueueQuota(namespace, local_queue, lq.cluster_queue, problem="cluster-queue-missing")
    rows: list[QuotaRow] = []
    for group in cq.resource_groups:
        for flavor in group.flavors:
            for quota in flavor.resources:
                cap = capacity(snapshot, cq, flavor.name, quota.name)
                lendable = None
                if cq.cohort:
                    lendable = quota.nominal if quota.lending_limit is None else min(quota.nominal, quota.lending_limit)
                rows.append(
                    QuotaRow(
                        flavor.name,
                        quota.name,
                        quota.nominal,
                        max(ZERO, cap.maximum - quota.nominal),
                        lendable,
                        cap.used,
                        cap.available,
                        cap.maximum,
                    )
                )
    return QueueQuota(namespace, local_queue, cq.name, tuple(rows))
