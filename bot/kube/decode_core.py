"""Raw Kubernetes objects of the core API (Pod, Event, Node) and Kueue's pending-workloads summaries -> the
engine's model. Split from bot.kube.decode, which dispatches to these."""

from __future__ import annotations

from dataclasses import replace

from bot.kube.decode_parts import (
    Raw,
    _int,
    _list,
    _map,
    _str,
    _taints,
    conditions,
    meta,
    parse_time,
    pod_template,
)
from bot.trace.model import ContainerStatus, Event, Node, PendingEntry, Pod
from bot.trace.quantity import parse_map

__all__ = ["event", "node", "pending_entries", "pod", "ranked_by_local_queue"]


def pod(raw: Raw) -> Pod:
    status = _map(raw.get("status"))
    spec = _map(raw.get("spec"))
    return Pod(
        meta=meta(raw),
        phase=_str(status.get("phase")),
        conditions=conditions(status.get("conditions")),
        node_name=_str(spec.get("nodeName")),
        template=pod_template(spec),
        containers=(
            *(_container_status(item, init=True) for item in map(_map, _list(status.get("initContainerStatuses")))),
            *(_container_status(item, init=False) for item in map(_map, _list(status.get("containerStatuses")))),
        ),
    )


def _container_status(raw: Raw, *, init: bool) -> ContainerStatus:
    waiting = _map(_map(raw.get("state")).get("waiting"))
    last = _map(_map(raw.get("lastState")).get("terminated"))
    code = last.get("exitCode")
    return ContainerStatus(
        name=_str(raw.get("name")),
        ready=raw.get("ready") is True,
        waiting_reason=_str(waiting.get("reason")),
        message=_str(waiting.get("message")),
        restarts=_int(raw.get("restartCount")),
        last_reason=_str(last.get("reason")),
        last_exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
        image=_str(raw.get("image")),
        init=init,
    )


def event(raw: Raw) -> Event:
    involved = _map(raw.get("involvedObject") or raw.get("regarding"))
    metadata = _map(raw.get("metadata"))
    seen = (
        parse_time(raw.get("lastTimestamp"))
        or parse_time(raw.get("eventTime"))
        or parse_time(_map(raw.get("series")).get("lastObservedTime"))
        or parse_time(raw.get("firstTimestamp"))
        or parse_time(metadata.get("creationTimestamp"))
    )
    return Event(
        namespace=_str(involved.get("namespace")) or _str(metadata.get("namespace")),
        involved_kind=_str(involved.get("kind")),
        involved_name=_str(involved.get("name")),
        involved_uid=_str(involved.get("uid")),
        reason=_str(raw.get("reason")),
        message=_str(raw.get("message") or raw.get("note")),
        type=_str(raw.get("type"), "Normal"),
        last_seen=seen,
        count=_int(raw.get("count"), 1) or 1,
    )


def node(raw: Raw) -> Node:
    spec = _map(raw.get("spec"))
    return Node(
        meta=meta(raw),
        taints=_taints(spec.get("taints")),
        unschedulable=spec.get("unschedulable") is True,
        allocatable=parse_map(_map(raw.get("status")).get("allocatable")),
    )


def pending_entries(raw: Raw) -> list[PendingEntry]:
    """A PendingWorkloadsSummary's items (any visibility API version), their LocalQueue positions ranked by
    (namespace, LocalQueue) (`ranked_by_local_queue`)."""
    return ranked_by_local_queue(_pending_items(raw))


def ranked_by_local_queue(entries: list[PendingEntry]) -> list[PendingEntry]:
    """Kueue before v0.18 counts positionInLocalQueue by the LocalQueue's name alone: the ClusterQueue
    endpoint keys its counters by `Spec.QueueName` and the LocalQueue endpoint keeps every Workload whose
    queue name matches, whatever its namespace (v0.14 pkg/visibility/api/v1beta1/pending_workloads_cq.go:76-86,
    pending_workloads_lq.go:80-92; fixed upstream in #10672 and #14431). With LocalQueues of one name in
    several namespaces, such a summary gives a wrong place; ranked again by (namespace, name) within its
    items, in ClusterQueue order, it is right in every version, provided the summary starts at the head:
    the ClusterQueue's first Workload (position 0), or the LocalQueue's (all items of one queue name, the
    first at 0). Otherwise, or with no shared name, the items are kept as given."""
    namespaces: dict[str, set[str]] = {}
    for entry in entries:
        namespaces.setdefault(entry.local_queue, set()).add(entry.namespace)
    if not entries or all(len(found) < 2 for found in namespaces.values()):
        return entries
    from_head = min(e.position_in_cluster_queue for e in entries) == 0 or (
        len(namespaces) == 1 and min(e.position_in_local_queue for e in entries) == 0
    )
    if not from_head:
        return entries
    seen: dict[tuple[str, str], int] = {}
    ranked: dict[int, PendingEntry] = {}
    for index, entry in sorted(enumerate(entries), key=lambda item: item[1].position_in_cluster_queue):
        key = (entry.namespace, entry.local_queue)
        ranked[index] = replace(entry, position_in_local_queue=seen.get(key, 0))
        seen[key] = seen.get(key, 0) + 1
    return [ranked[index] for index in range(len(entries))]


def _pending_items(raw: Raw) -> list[PendingEntry]:
    entries = []
    for item in map(_map, _list(raw.get("items"))):
        metadata = _map(item.get("metadata"))
        name = _str(metadata.get("name"))
        if not name:
            continue
        entries.append(
            PendingEntry(
                namespace=_str(metadata.get("namespace")),
                name=name,
                local_queue=_str(item.get("localQueueName")),
                priority=_int(item.get("priority")),
                position_in_cluster_queue=_int(item.get("positionInClusterQueue")),
                position_in_local_queue=_int(item.get("positionInLocalQueue")),
            )
        )
    return entries
