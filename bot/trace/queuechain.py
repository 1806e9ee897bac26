"""The queue chain a Workload meets first: the LocalQueue it names, the ClusterQueue behind it, their stop
policies and state, and the ClusterQueue's namespace selector."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.trace.codes import Verdict
from bot.trace.model import ClusterQueue, Condition, LocalQueue, find_condition
from bot.trace.snapshot import Snapshot


@dataclass(frozen=True)
class QueueChain:
    """The LocalQueue a Workload names and the ClusterQueue behind it, with the first thing in the way."""

    local_queue: LocalQueue | None
    cluster_queue: ClusterQueue | None
    cluster_queue_name: str
    blocker: Verdict | None = None
    stopped_by: str = ""  # "LocalQueue" | "ClusterQueue" when a stopPolicy holds it
    stop_policy: str = ""
    inactive_reason: str = ""
    inactive_message: str = ""
    missing_flavors: tuple[str, ...] = ()
    missing_checks: tuple[str, ...] = ()


def _inactive(conditions: tuple[Condition, ...]) -> tuple[str, str] | None:
    active = find_condition(conditions, "Active")
    if active is not None and active.is_false:
        return active.reason, active.message
    return None


def queue_chain(snapshot: Snapshot, namespace: str, queue_name: str, admitted_in: str = "") -> QueueChain:
    """Follow LocalQueue -> ClusterQueue; stop at the first problem Kueue would meet."""
    local_queue = snapshot.local_queue(namespace, queue_name) if queue_name else None
    cq_name = admitted_in or (local_queue.cluster_queue if local_queue else "")
    cluster_queue = snapshot.cluster_queue(cq_name) if cq_name else None
    if local_queue is None:
        return QueueChain(None, cluster_queue, cq_name, Verdict.LOCAL_QUEUE_MISSING)
    if local_queue.stop_policy not in ("", "None"):
        return QueueChain(
            local_queue, cluster_queue, cq_name, Verdict.QUEUE_STOPPED, "LocalQueue", local_queue.stop_policy
        )
    if cluster_queue is None:
        return QueueChain(local_queue, None, cq_name, Verdict.CLUSTER_QUEUE_MISSING)
    if cluster_queue.stop_policy not in ("", "None"):
        return QueueChain(
            local_queue,
            cluster_queue,
            cq_name,
            Verdict.QUEUE_STOPPED,
            "ClusterQueue",
            cluster_queue.stop_policy,
        )
    missing_flavors = tuple(name for name in cluster_queue.flavor_names() if snapshot.flavor(name) is None)
    missing_checks = tuple(name for name, _ in cluster_queue.admission_checks if snapshot.admission_check(name) is None)
    inactive = _inactive(cluster_queue.conditions)
    if inactive is not None or missing_flavors or missing_checks or cluster_queue.meta.deleting:
        reason, message = inactive or ("", "")
        if cluster_queue.meta.deleting and not reason:
            reason = "Terminating"
        return QueueChain(
            local_queue,
            cluster_queue,
            cq_name,
            Verdict.QUEUE_INACTIVE,
            inactive_reason=reason,
            inactive_message=message,
            missing_flavors=missing_flavors,
            missing_checks=missing_checks,
        )
    return QueueChain(local_queue, cluster_queue, cq_name)


def namespace_allowed(snapshot: Snapshot, cluster_queue: ClusterQueue, namespace: str) -> bool | None:
    """Whether the ClusterQueue's namespaceSelector selects the namespace (None: its labels are unknown)."""
    selector = cluster_queue.namespace_selector
    if selector is None or (not selector.match_labels and not selector.expressions):
        return True
    known = snapshot.namespace(namespace)
    labels: Mapping[str, str]
    if known is not None:
        labels = {**known.meta.labels, "kubernetes.io/metadata.name": namespace}
    else:
        keys = set(selector.match_labels) | {r.key for r in selector.expressions}
        if keys - {"kubernetes.io/metadata.name"}:
            return None
        labels = {"kubernetes.io/metadata.name": namespace}
    return selector.matches(labels)
