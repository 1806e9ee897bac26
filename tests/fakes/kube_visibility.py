"""Kueue's pending-workloads visibility API, computed from stored Workloads as Kueue's queue manager does
(`pkg/visibility/storage/pending_workloads_{cq,lq}.go`, `pkg/cache/queue/cluster_queue.go`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from tests.fakes.kube_registry import VISIBILITY_GROUP

DEFAULT_LIMIT = 1000
MAX_LIMIT = 100_000
_REQUEUE_ORDER_REASONS = ("PodsReadyTimeout", "AdmissionCheck")


def _condition(workload: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    conditions: list[Mapping[str, Any]] = workload.get("status", {}).get("conditions") or []
    return next((c for c in conditions if c.get("type") == kind), None)


def _is_true(workload: Mapping[str, Any], kind: str) -> bool:
    condition = _condition(workload, kind)
    return condition is not None and condition.get("status") == "True"


def is_pending(workload: Mapping[str, Any]) -> bool:
    """Active, not finished, holding no quota."""
    return (
        workload.get("spec", {}).get("active", True) is not False
        and not _is_true(workload, "Finished")
        and not _is_true(workload, "QuotaReserved")
    )


def _timestamp(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def queue_order_time(workload: Mapping[str, Any]) -> datetime:
    """The eviction time after a PodsReady-timeout or admission-check eviction, else the creation time."""
    evicted = _condition(workload, "Evicted")
    if evicted is not None and evicted.get("status") == "True" and evicted.get("reason") in _REQUEUE_ORDER_REASONS:
        return _timestamp(evicted["lastTransitionTime"])
    return _timestamp(workload["metadata"]["creationTimestamp"])


def priority(workload: Mapping[str, Any]) -> int:
    return int(workload.get("spec", {}).get("priority") or 0)


def order_pending(
    workloads: Iterable[Mapping[str, Any]], local_queues: Iterable[tuple[str, str]]
) -> list[Mapping[str, Any]]:
    """A ClusterQueue's pending Workloads (those of its LocalQueues `(namespace, name)`), in queue order:
    priority first, then queue-order time, then UID."""
    queues = set(local_queues)
    pending = [
        w
        for w in workloads
        if (w["metadata"].get("namespace"), w.get("spec", {}).get("queueName")) in queues and is_pending(w)
    ]
    return sorted(pending, key=lambda w: (-priority(w), queue_order_time(w), w["metadata"].get("uid", "")))


def _item(workload: Mapping[str, Any], in_cluster_queue: int, in_local_queue: int) -> dict[str, Any]:
    meta = workload["metadata"]
    item_meta: dict[str, Any] = {
        "name": meta["name"],
        "namespace": meta["namespace"],
        "creationTimestamp": meta["creationTimestamp"],
    }
    owners = [{k: ref[k] for k in ("apiVersion", "kind", "name", "uid")} for ref in meta.get("ownerReferences", ())]
    if owners:
        item_meta["ownerReferences"] = owners
    return {
        "metadata": item_meta,
        "priority": priority(workload),
        "localQueueName": workload["spec"]["queueName"],
        "positionInClusterQueue": in_cluster_queue,
        "positionInLocalQueue": in_local_queue,
    }


def cluster_queue_items(ordered: Sequence[Mapping[str, Any]], limit: int, offset: int) -> list[dict[str, Any]]:
    # Kueue counts LocalQueue positions by queue name alone here (not namespace+name): mirrored as is.
    seen: Counter[str] = Counter()
    items = []
    for index, workload in enumerate(ordered[: offset + limit]):
        queue = workload["spec"]["queueName"]
        if index >= offset:
            items.append(_item(workload, index, seen[queue]))
        seen[queue] += 1
    return items


def local_queue_items(
    ordered: Sequence[Mapping[str, Any]], namespace: str, name: str, limit: int, offset: int
) -> list[dict[str, Any]]:
    mine = [
        (index, w)
        for index, w in enumerate(ordered)
        if w["metadata"]["namespace"] == namespace and w["spec"]["queueName"] == name
    ]
    return [_item(w, index, offset + n) for n, (index, w) in enumerate(mine[offset : offset + limit])]


def summary(version: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "kind": "PendingWorkloadsSummary",
        "apiVersion": f"{VISIBILITY_GROUP}/{version}",
        "metadata": {"creationTimestamp": None},
        "items": items,
    }


def bounded_limit_offset(limit: int | None, offset: int | None) -> tuple[int, int]:
    return min(max(DEFAULT_LIMIT if limit is None else limit, 0), MAX_LIMIT), max(offset or 0, 0)
