"""A Workload, raw -> the engine's model: its metadata, pod sets, conditions, admission and its parts (see
`bot.kube.decode` for parts and views). Split from bot.kube.decode, which dispatches to it."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from bot.kube.decode_parts import (
    _EMPTY,
    PLAIN,
    Parts,
    Raw,
    View,
    _int,
    _is_map,
    _list,
    _map,
    _pod_spec_view,
    _pod_template,
    _str,
    _strings,
    conditions,
    meta,
    parse_time,
)
from bot.trace.model import (
    Admission,
    CheckState,
    PodSet,
    PodSetAssignment,
    PodSetUpdate,
    RequeueState,
    Workload,
)
from bot.trace.quantity import Quantities, parse_map

__all__ = ["workload"]


def _pod_sets_view(raw: object) -> View:
    return tuple(
        (
            item.get("name"),
            item.get("count"),
            item.get("minCount"),
            item.get("topologyRequest"),
            _pod_spec_view(_map(item.get("template")).get("spec")),
        )
        for item in map(_map, _list(raw))
    )


def _pod_sets(view: View, parts: Parts) -> tuple[PodSet, ...]:
    return tuple(
        PodSet(
            name=_str(name, "main") or "main",
            count=_int(count, 1),
            template=parts.part(_pod_template, template),
            min_count=_int(min_count) if min_count is not None else None,
            topology_request=_strings(topology),
        )
        for name, count, min_count, topology, template in view
    )


def _assignments_view(raw: Raw) -> View:
    return tuple(
        (
            item.get("name"),
            item.get("flavors"),
            item.get("resourceUsage"),
            item.get("count"),
            item.get("delayedTopologyRequest"),
        )
        for item in map(_map, _list(raw.get("podSetAssignments")))
    )


def _assignments(view: View, parts: Parts) -> tuple[PodSetAssignment, ...]:
    return tuple(
        PodSetAssignment(
            name=_str(name, "main"),
            flavors=parts.words(flavors),
            usage=parse_map(usage),
            count=_int(count) if count is not None else None,
            delayed_topology=_str(delayed),
        )
        for name, flavors, usage, count, delayed in view
    )


def _admission(raw: Raw, parts: Parts) -> Admission:
    """The ClusterQueue's name and the pod sets' assignments, a shared part: the same shapes admitted in
    many ClusterQueues share their assignments (a part per ClusterQueue and shape held a copy of each)."""
    return Admission(
        cluster_queue=parts.text(_str(raw.get("clusterQueue"))),
        assignments=parts.part(_assignments, _assignments_view(raw)),
    )


def _checks_view(raw: object) -> View:
    return tuple(
        (
            item.get("name"),
            item.get("state"),
            item.get("message"),
            item.get("lastTransitionTime"),
            item.get("requeueAfterSeconds"),
            item.get("retryCount"),
            tuple(
                (
                    _str(update.get("name")),
                    tuple(sorted(_strings(update.get("nodeSelector")).items())),
                    tuple(sorted(_strings(update.get("labels")).items())),
                    len(_list(update.get("tolerations"))),
                )
                for update in map(_map, _list(item.get("podSetUpdates")))
            ),
        )
        for item in map(_map, _list(raw))
    )


def _checks(view: View, parts: Parts) -> tuple[CheckState, ...]:
    return tuple(
        CheckState(
            name=parts.text(_str(name)),
            state=parts.text(_str(state, "Pending")),
            message=parts.text(_str(message)),
            since=parse_time(since),
            requeue_after_seconds=_int(requeue_after) if requeue_after else None,
            retry_count=_int(retries) if retries is not None else None,
            pod_set_updates=tuple(
                PodSetUpdate(update, dict(selector), dict(labels), tolerations)
                for update, selector, labels, tolerations in updates
            ),
        )
        for name, state, message, since, requeue_after, retries, updates in view
    )


def _resource_requests_view(raw: object) -> View:
    return tuple((item.get("name"), item.get("resources")) for item in map(_map, _list(raw)))


def _resource_requests(view: View, parts: Parts) -> tuple[tuple[str, Quantities], ...]:
    return tuple((_str(name, "main"), parse_map(resources)) for name, resources in view)


def _reclaimable_view(raw: object) -> View:
    return tuple((item.get("name"), item.get("count")) for item in map(_map, _list(raw)))


def _reclaimable(view: View, parts: Parts) -> Mapping[str, int]:
    return {_str(name): _int(count) for name, count in view}


def workload(raw: Raw, parts: Parts = PLAIN) -> Workload:
    spec = _map(raw.get("spec"))
    status = _map(raw.get("status"))
    text = parts.text
    # v1beta2 priorityClassRef {group, kind, name}; v1beta1 priorityClassName + priorityClassSource.
    priority_class = _str(_map(spec.get("priorityClassRef")).get("name")) or _str(spec.get("priorityClassName"))
    admission = status.get("admission")
    checks = status.get("admissionChecks")
    requests = status.get("resourceRequests")
    reclaimable = status.get("reclaimablePods")
    maximum = spec.get("maximumExecutionTimeSeconds")
    return Workload(
        meta=meta(raw, parts),
        queue_name=text(_str(spec.get("queueName"))),
        pod_sets=parts.part(_pod_sets, _pod_sets_view(spec.get("podSets"))),
        priority=_int(spec.get("priority"), 0),
        priority_class=text(priority_class),
        active=spec.get("active") is not False,
        conditions=conditions(status.get("conditions"), parts),
        admission=_admission(admission, parts) if _is_map(admission) else None,
        requeue=_requeue(status.get("requeueState")),
        checks=parts.part(_checks, _checks_view(checks)) if _some(checks) else (),
        resource_requests=parts.part(_resource_requests, _resource_requests_view(requests)) if _some(requests) else (),
        reclaimable=parts.part(_reclaimable, _reclaimable_view(reclaimable)) if _some(reclaimable) else _EMPTY,
        cluster_name=text(_str(status.get("clusterName"))),
        nominated_clusters=_nominated(status.get("nominatedClusterNames"), text),
        maximum_execution_seconds=_int(maximum) if maximum is not None else None,
        past_execution_seconds=_past_execution(status),
    )


def _some(value: object) -> bool:
    """A list with items: a part is built of it (of anything else, none)."""
    return isinstance(value, list) and bool(value)


def _requeue(raw: object) -> RequeueState | None:
    if not _is_map(raw):
        return None
    count = raw.get("count")
    return RequeueState(
        count=_int(count) if count is not None else None,
        requeue_at=parse_time(raw.get("requeueAt")),
    )


def _nominated(value: object, text: Callable[[str], str]) -> tuple[str, ...]:
    """status.nominatedClusterNames (MultiKueue): its names (what is not a list names none)."""
    if not isinstance(value, list) or not value:
        return ()
    return tuple(text(name) for name in value if isinstance(name, str) and name)


def _past_execution(status: Raw) -> int | None:
    """status.accumulatedPastExecutionTimeSeconds (v1beta2), accumulatedPastExexcutionTimeSeconds (v1beta1's
    spelling, FACTS §1)."""
    for key in ("accumulatedPastExecutionTimeSeconds", "accumulatedPastExexcutionTimeSeconds"):
        if status.get(key) is not None:
            return _int(status[key])
    return None
