"""What a Workload asks Kueue for: Kubernetes pod-request rules, times the pod count, summed over pod sets."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal

from bot.trace.model import Container, PodSet, PodTemplate, Workload
from bot.trace.quantity import Quantities, add, maximum, scale, total
from bot.trace.snapshot import lasting_table, read_current

PODS = "pods"


def _effective(container: Container) -> dict[str, Decimal]:
    """A container's requests; a limit stands in for a request that is missing."""
    result = dict(container.limits)
    result.update(container.requests)
    return result


def pod_requests(template: PodTemplate) -> dict[str, Decimal]:
    """One pod's requests, as the kube-scheduler and Kueue count them (k8s PodRequests):
    containers summed; sidecars (init containers with restartPolicy Always) added to them; each regular init
    container counted with the sidecars started before it; the larger of the two; pod-level resources where
    set; plus the pod overhead."""
    requests: dict[str, Decimal] = total(_effective(c) for c in template.containers)
    sidecars: dict[str, Decimal] = {}
    init_peak: dict[str, Decimal] = {}
    for container in template.init_containers:
        own = _effective(container)
        if container.restart_policy == "Always":
            requests = add(requests, own)
            sidecars = add(sidecars, own)
            init_peak = maximum(init_peak, sidecars)
        else:
            init_peak = maximum(init_peak, add(own, sidecars))
    requests = maximum(requests, init_peak)
    pod_level = dict(template.pod_limits)
    pod_level.update(template.pod_requests)
    requests.update(pod_level)
    requests = add(requests, template.overhead)
    return {name: amount for name, amount in requests.items() if amount != 0}


def pod_requests_in(memo: dict[object, object], template: PodTemplate) -> dict[str, Decimal]:
    """`pod_requests`, once per distinct template (shared between Workloads alike) in a view's memo."""
    key = ("requests-of", id(template))
    known = memo.get(key)
    if isinstance(known, tuple) and known[0] is template:
        return dict(known[1])
    requests = pod_requests(template)
    memo[key] = (template, requests)  # holding the template keeps its id from being reused
    return dict(requests)


def pod_set_count(pod_set: PodSet, workload: Workload | None = None) -> int:
    """Pods of a pod set that still count: the count less the pods Kueue already reclaimed."""
    reclaimed = workload.reclaimable.get(pod_set.name, 0) if workload is not None else 0
    return max(0, pod_set.count - reclaimed)


def pod_set_demand(pod_set: PodSet, workload: Workload | None = None) -> dict[str, Decimal]:
    """A pod set's total request, `pods` included."""
    count = pod_set_count(pod_set, workload)
    demand = scale(pod_requests(pod_set.template), count)
    demand[PODS] = Decimal(count)
    return demand


def workload_demand(workload: Workload) -> dict[str, Decimal]:
    """The Workload's total request per resource, `pods` = the number of pods."""
    return total(pod_set_demand(pod_set, workload) for pod_set in workload.pod_sets)


def templates_demand(templates: Iterable[tuple[PodTemplate, int]]) -> dict[str, Decimal]:
    """The same for a job that has no Workload yet: (template, pod count) pairs."""
    demand: dict[str, Decimal] = {}
    for template, count in templates:
        part = scale(pod_requests(template), count)
        part[PODS] = Decimal(count)
        demand = add(demand, part)
    return demand


def assigned(workload: Workload) -> dict[str, Quantities]:
    """What Kueue assigned at quota reservation: flavor -> resource -> total."""
    result: dict[str, dict[str, Decimal]] = {}
    if workload.admission is None:
        return {}
    for assignment in workload.admission.assignments:
        for resource, amount in assignment.usage.items():
            flavor = assignment.flavors.get(resource, "")
            per_flavor = result.setdefault(flavor, {})
            per_flavor[resource] = per_flavor.get(resource, Decimal(0)) + amount
    return dict(result)


# --- running totals along a queue order ------------------------------------------------------------------

_CHECKPOINT = 16  # a running total is kept every this many Workloads of an order


def demand_in(memo: dict[object, object], workload: Workload) -> Quantities:
    """`workload_demand`, once per distinct pod sets (shared between Workloads alike) in a view's memo."""
    if workload.reclaimable:
        return workload_demand(workload)
    key = ("demand-of", id(workload.pod_sets))
    known = memo.get(key)
    if isinstance(known, tuple) and known[0] is workload.pod_sets:
        demand: Quantities = known[1]
        return demand
    demand = workload_demand(workload)
    memo[key] = (workload.pod_sets, demand)  # holding the pod sets keeps their id from being reused
    return demand


def _summed(into: dict[str, Decimal], values: Quantities) -> None:
    for name, amount in values.items():
        into[name] = into.get(name, Decimal(0)) + amount


_DEMAND_BEFORE = "demand-before"


def demand_before(memo: dict[object, object], key: str, order: Sequence[Workload], count: int) -> dict[str, Decimal]:
    """The total demand of the first `count` Workloads of `order` (a queue order the view hands out, named
    `key`): running totals are kept in `memo` (a view's `memos()`) every _CHECKPOINT Workloads, grown as
    far as asked, and start again when the view hands out another order."""
    table = lasting_table(memo, _DEMAND_BEFORE, read_current)  # a renewal carries it over in one pass
    known = table.get(key)
    checkpoints: list[dict[str, Decimal]]
    if known is not None and known[0] is order:
        checkpoints = known[1]
    else:
        checkpoints = [{}]
        table[key] = (order, checkpoints)  # holding the order keeps its id from being reused
    count = max(0, min(count, len(order)))
    while len(checkpoints) <= count // _CHECKPOINT:
        start = (len(checkpoints) - 1) * _CHECKPOINT
        running = dict(checkpoints[-1])
        for workload in order[start : start + _CHECKPOINT]:
            _summed(running, demand_in(memo, workload))
        checkpoints.append(running)
    result = dict(checkpoints[count // _CHECKPOINT])
    for workload in order[count - count % _CHECKPOINT : count]:
        _summed(result, demand_in(memo, workload))
    return result
