"""What-if: the smallest changes that would get a pending job admitted now (or, when it can never fit as it
is, ever), each one verified by the engine's own quota math on the same snapshot with the change applied.

    result = what_if(snapshot, workload)
    for change in result.changes:            # only changes that work; () means "none would"
        after, changed = apply(snapshot, workload, change)
        assert verify(after, changed) is Fit.FITS if change.now else ...

The changes, cheapest first: another LocalQueue of the namespace whose ClusterQueue takes it; fewer pods
(the largest count that fits; partial admission where the job allows it); a smaller per-pod request of the
short resource; another flavor of its ClusterQueue (node selector / tolerations); and, for an admin, which
quota to raise and by how much. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import partial
from typing import TypeVar

from bot.trace import checks, flavormatch
from bot.trace.checks import Fit, QueueFit
from bot.trace.demand import PODS, pod_requests
from bot.trace.forwarding import Forwarding
from bot.trace.model import (
    ClusterQueue,
    FlavorQuotas,
    PendingEntry,
    PodSet,
    ResourceGroup,
    ResourceQuota,
    Taint,
    Toleration,
    Workload,
)
from bot.trace.quota import ZERO
from bot.trace.snapshot import Snapshot

# Change codes (stable: JSON `what_if[].change`, Slack copy keys `whatif.<code>`).
OTHER_QUEUE = "other-queue"
FEWER_PODS = "fewer-pods"
PARTIAL_ADMISSION = "partial-admission"
SMALLER_REQUEST = "smaller-request"
OTHER_FLAVOR = "other-flavor"
RAISE_QUOTA = "raise-quota"

_SEARCH_STEPS = 40  # a binary search over a count or an amount never takes more
_MAX_QUEUES = 20  # LocalQueues of a namespace tried for other-queue
_MAX_UNITS = Decimal(10) ** 15  # a per-pod request of more units than this is not searched

T = TypeVar("T")


@dataclass(frozen=True)
class Raise:
    cluster_queue: str
    flavor: str
    resource: str
    by: Decimal
    to: Decimal  # the nominal quota it would become


@dataclass(frozen=True)
class Change:
    code: str
    now: bool  # True: admitted now; False: fits the queue's maximum (admitted once quota frees)
    pod_set: str = ""
    pods: int | None = None  # fewer-pods, partial-admission: the count
    was_pods: int | None = None
    resource: str = ""  # smaller-request
    per_pod: Decimal | None = None
    was_per_pod: Decimal | None = None
    queue: str = ""  # other-queue
    cluster_queue: str = ""
    flavor: str = ""  # other-flavor
    node_labels: tuple[tuple[str, str], ...] = ()
    tolerate: tuple[tuple[str, str, str], ...] = ()  # (key, value, effect) of taints to tolerate
    raises: tuple[Raise, ...] = ()  # raise-quota


@dataclass(frozen=True)
class WhatIf:
    changes: tuple[Change, ...] = ()
    fits_now: bool = False  # by the engine's math it fits already (Kueue has not admitted it yet)
    considered: tuple[str, ...] = field(default_factory=tuple)  # the change codes tried


# --- a snapshot with a change applied ---------------------------------------------------------------


class WithChange(Forwarding):
    """A snapshot with a change made: it reads through to `base`, with one Workload and some ClusterQueues
    replaced (as bot.fit.overlay.WithJob adds a job not yet created)."""

    def __init__(
        self, base: Snapshot, workload: Workload | None = None, cluster_queues: Mapping[str, ClusterQueue] | None = None
    ) -> None:
        self._base = base
        self._workload = workload
        self._key = (workload.namespace, workload.name) if workload is not None else None
        self._cqs = dict(cluster_queues or {})
        self._memos: dict[object, object] = {}  # its own: its ClusterQueues are not the base's

    def _swap(self, workloads: Sequence[Workload]) -> list[Workload]:
        return [w for w in workloads if (w.namespace, w.name) != self._key]

    def workload(self, namespace: str, name: str) -> Workload | None:
        if (namespace, name) == self._key:
            return self._workload
        return self._base.workload(namespace, name)

    def workloads_in(self, namespace: str) -> Sequence[Workload]:
        found = self._swap(self._base.workloads_in(namespace))
        if self._workload is not None and self._workload.namespace == namespace:
            found.append(self._workload)
        return found

    def workloads_for_job_uid(self, namespace: str, uid: str) -> Sequence[Workload]:
        found = self._base.workloads_for_job_uid(namespace, uid)
        return [self._workload if (w.namespace, w.name) == self._key and self._workload else w for w in found]

    def workloads_of_owner(self, namespace: str, name: str) -> Sequence[Workload]:
        found = self._swap(self._base.workloads_of_owner(namespace, name))
        changed = self._workload
        if changed is not None and changed.namespace == namespace and any(o.name == name for o in changed.meta.owners):
            found.append(changed)
        return found

    def memos(self) -> dict[object, object]:
        return self._memos

    def sequences_token(self) -> object | None:
        return None  # its sequences are made anew each time

    def workloads_in_cluster_queue(self, cluster_queue: str) -> Sequence[Workload]:
        # The changed Workload holds no quota: leaving it out changes no usage.
        return self._swap(self._base.workloads_in_cluster_queue(cluster_queue))

    def cluster_queue(self, name: str) -> ClusterQueue | None:
        return self._cqs.get(name) or self._base.cluster_queue(name)

    def cluster_queues(self) -> Sequence[ClusterQueue]:
        return [self._cqs.get(cq.name, cq) for cq in self._base.cluster_queues()]

    def pending_entry(self, namespace: str, name: str) -> PendingEntry | None:
        if (namespace, name) == self._key:
            return None  # a changed job is a new Workload: the API's old row no longer describes it
        return self._base.pending_entry(namespace, name)

    def pending_in(self, cluster_queue: str) -> Sequence[Workload]:
        return self._swap(self._base.pending_in(cluster_queue))

    def position_in(self, cluster_queue: str, workload: Workload) -> tuple[int, int] | None:
        if (workload.namespace, workload.name) == self._key:
            return None
        return self._base.position_in(cluster_queue, workload)


def recreated(workload: Workload) -> Workload:
    """The Workload as Kueue would create it again after the job changed: no record, no quota. (`replace(workload,
    conditions=(), admission=None, requeue=None, checks=(), reclaimable={})` spelled out: a question makes
    one, and replace reads every field anew; tests/unit/test_explanation_fields.py: every field.)"""
    return Workload(
        meta=workload.meta,
        queue_name=workload.queue_name,
        pod_sets=workload.pod_sets,
        priority=workload.priority,
        priority_class=workload.priority_class,
        active=workload.active,
        conditions=(),
        admission=None,
        requeue=None,
        checks=(),
        resource_requests=workload.resource_requests,
        reclaimable={},
        cluster_name=workload.cluster_name,
        nominated_clusters=workload.nominated_clusters,
        maximum_execution_seconds=workload.maximum_execution_seconds,
        past_execution_seconds=workload.past_execution_seconds,
    )


def _with_pod_set(workload: Workload, index: int, pod_set: PodSet) -> Workload:
    pod_sets = list(workload.pod_sets)
    pod_sets[index] = pod_set
    return replace(recreated(workload), pod_sets=tuple(pod_sets))


def _raised(cq: ClusterQueue, raises: Sequence[Raise]) -> ClusterQueue:
    wanted = {(r.flavor, r.resource): r.to for r in raises if r.cluster_queue == cq.name}
    groups: list[ResourceGroup] = []
    for group in cq.resource_groups:
        flavors: list[FlavorQuotas] = []
        for flavor in group.flavors:
            quotas: list[ResourceQuota] = []
            for quota in flavor.resources:
                to = wanted.get((flavor.name, quota.name))
                quotas.append(replace(quota, nominal=to) if to is not None else quota)
            flavors.append(replace(flavor, resources=tuple(quotas)))
        groups.append(replace(group, flavors=tuple(flavors)))
    return replace(cq, resource_groups=tuple(groups))


def _retemplate(pod_set: PodSet, change: Change) -> PodSet:
    template = pod_set.template
    if change.code in (FEWER_PODS, PARTIAL_ADMISSION) and change.pods is not None:
        return replace(pod_set, count=change.pods)
    if change.code == SMALLER_REQUEST and change.per_pod is not None:
        overhead = template.overhead.get(change.resource, ZERO)
        pod_level = {**template.pod_requests, change.resource: change.per_pod - overhead}
        return replace(pod_set, template=replace(template, pod_requests=pod_level))
    if change.code == OTHER_FLAVOR:
        labels = dict(change.node_labels)
        selector = {k: v for k, v in template.node_selector.items() if k not in labels}
        selector.update(labels)
        terms = tuple(tuple(r for r in term if r.key not in labels) for term in template.affinity_terms)
        terms = tuple(term for term in terms if term)
        tolerations = template.tolerations + tuple(
            Toleration(key=k, operator="Equal", value=v, effect=e) for k, v, e in change.tolerate
        )
        return replace(
            pod_set, template=replace(template, node_selector=selector, affinity_terms=terms, tolerations=tolerations)
        )
    return pod_set


def apply(snapshot: Snapshot, workload: Workload, change: Change) -> tuple[Snapshot, Workload]:
    """The snapshot with `change` made, and the job's Workload as Kueue would then see it."""
    changed = recreated(workload)
    cqs: dict[str, ClusterQueue] = {}
    if change.code == OTHER_QUEUE:
        changed = replace(changed, queue_name=change.queue)
    elif change.code == RAISE_QUOTA:
        for name in {r.cluster_queue for r in change.raises}:
            cq = snapshot.cluster_queue(name)
            if cq is not None:
                cqs[name] = _raised(cq, change.raises)
    else:
        pod_sets = tuple(
            _retemplate(pod_set, change) if pod_set.name == change.pod_set else pod_set for pod_set in workload.pod_sets
        )
        changed = replace(changed, pod_sets=pod_sets)
    return WithChange(snapshot, changed, cqs), changed


def verify(snapshot: Snapshot, workload: Workload) -> Fit | None:
    """The engine's verdict on quota and flavors for `workload` in `snapshot` (None: its queue chain or the
    namespace selector stops it before quota is weighed)."""
    cq = _queue_of(snapshot, workload)
    return checks.fit_of(snapshot, cq, workload.pod_sets, workload) if cq is not None else None


def _fit(snapshot: Snapshot, workload: Workload) -> QueueFit | None:
    cq = _queue_of(snapshot, workload)
    return checks.shape_fit(snapshot, cq, workload) if cq is not None else None


def _queue_of(snapshot: Snapshot, workload: Workload) -> ClusterQueue | None:
    """The ClusterQueue that would weigh `workload`'s quota (None: its queue chain or the namespace selector
    stops it before)."""
    chain = checks.queue_chain(snapshot, workload.namespace, workload.queue_name)
    if chain.blocker is not None or chain.cluster_queue is None:
        return None
    if checks.namespace_allowed(snapshot, chain.cluster_queue, workload.namespace) is False:
        return None
    return chain.cluster_queue


def works(snapshot: Snapshot, workload: Workload, change: Change) -> bool:
    """Whether `change` does what it says, by the engine's math on the changed snapshot."""
    after, changed = apply(snapshot, workload, change)
    fit = verify(after, changed)
    if fit is None:
        return False
    return fit == Fit.FITS if change.now else fit in (Fit.FITS, Fit.WAITS)


# --- the search -------------------------------------------------------------------------------------


def what_if(snapshot: Snapshot, workload: Workload) -> WhatIf:
    """Changes that would admit `workload` now, or ever when it cannot fit as it is; verified, cheapest first."""
    current = _fit(snapshot, recreated(workload))
    if current is not None and current.fit == Fit.FITS:
        return WhatIf(fits_now=True)
    never = current is None or current.fit in (Fit.NEVER, Fit.NO_MATCH)
    goals = (True, False) if never else (True,)
    changes = list(_for_first_goal(goals, lambda now: _other_queues(snapshot, workload, now)) or ())
    tried = [OTHER_QUEUE]
    if current is not None:
        tried.extend(_in_its_queue(snapshot, workload, current, goals, changes))
    unique = list(dict.fromkeys(changes))
    return WhatIf(tuple(c for c in unique if works(snapshot, workload, c)), False, tuple(dict.fromkeys(tried)))


def _for_first_goal(goals: Sequence[bool], find: Callable[[bool], T | None]) -> T | None:
    """What `find` finds for the first goal (now, then ever) that it finds anything for."""
    for now in goals:
        found = find(now)
        if found:
            return found
    return None


def _in_its_queue(
    snapshot: Snapshot, workload: Workload, current: QueueFit, goals: Sequence[bool], changes: list[Change]
) -> list[str]:
    """The changes within its own ClusterQueue (fewer pods, a smaller request, another flavor, more quota),
    appended to `changes`; returns what was tried."""
    tried: list[str] = []
    for index, pod_set in enumerate(workload.pod_sets):
        if pod_set.count > 1:
            tried.append(FEWER_PODS)
            changes.extend(_for_first_goal(goals, partial(_fewer_pods, snapshot, workload, index)) or ())
    tried.append(SMALLER_REQUEST)
    for resource, index in _short_resources(current, workload):
        smaller = _for_first_goal(goals, partial(_smaller_request, snapshot, workload, index, resource))
        if smaller is not None:
            changes.append(smaller)
    tried.append(OTHER_FLAVOR)
    cq_name = current.cluster_queue
    flavor = _for_first_goal(
        goals, lambda now: _first_working(snapshot, workload, _other_flavors(snapshot, workload, cq_name, now))
    )
    if flavor is not None:
        changes.append(flavor)
    tried.append(RAISE_QUOTA)
    raised = _for_first_goal(goals, lambda now: _raise_quota(snapshot, workload, cq_name, now))
    if raised is not None:
        changes.append(raised)
    return tried


def _first_working(snapshot: Snapshot, workload: Workload, candidates: Sequence[Change]) -> Change | None:
    for candidate in candidates:
        if works(snapshot, workload, candidate):
            return candidate
    return None


def _fewer_pods(snapshot: Snapshot, workload: Workload, index: int, now: bool) -> list[Change]:
    """The largest count of pod set `index` that works, and partial admission to it when the job does not
    allow that few yet (and it works)."""
    pod_set = workload.pod_sets[index]
    pods = _largest_count(snapshot, workload, index, now)
    if pods is None:
        return []
    found = [Change(FEWER_PODS, now, pod_set.name, pods=pods, was_pods=pod_set.count)]
    partial = Change(PARTIAL_ADMISSION, now, pod_set.name, pods=pods, was_pods=pod_set.count)
    if (pod_set.min_count is None or pod_set.min_count > pods) and works(snapshot, workload, partial):
        found.append(partial)
    return found


def _other_queues(snapshot: Snapshot, workload: Workload, now: bool) -> list[Change]:
    current = snapshot.local_queue(workload.namespace, workload.queue_name)
    current_cq = current.cluster_queue if current is not None else ""
    found: list[Change] = []
    queues = sorted(snapshot.local_queues_in(workload.namespace), key=lambda lq: lq.name)[:_MAX_QUEUES]
    for local_queue in queues:
        if local_queue.name == workload.queue_name or local_queue.cluster_queue == current_cq:
            continue
        change = Change(OTHER_QUEUE, now, queue=local_queue.name, cluster_queue=local_queue.cluster_queue)
        if works(snapshot, workload, change):
            found.append(change)
    return found


def _largest_count(snapshot: Snapshot, workload: Workload, index: int, now: bool) -> int | None:
    """The largest count of pod set `index`, below its count, that works (the fit is monotone in the count)."""
    pod_set = workload.pod_sets[index]
    low, high = 0, pod_set.count - 1  # invariant: `low` works (0 = none found), counts above `high` do not

    def ok(count: int) -> bool:
        return works(snapshot, workload, Change(FEWER_PODS, now, pod_set.name, pods=count))

    if high < 1 or not ok(1):
        return None
    low = 1
    for _ in range(_SEARCH_STEPS):
        if low >= high:
            break
        middle = (low + high + 1) // 2
        if ok(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _short_resources(fit: QueueFit, workload: Workload) -> list[tuple[str, int]]:
    """(resource, pod set index) for the resources that fall short, other than `pods`."""
    found: dict[tuple[str, int], None] = {}
    names = [pod_set.name for pod_set in workload.pod_sets]
    for pod_set_fit in fit.pod_sets:
        for group in pod_set_fit.groups:
            best = group.best
            if best is None:
                continue
            for shortfall in best.shortfalls:
                if shortfall.resource != PODS and pod_set_fit.pod_set in names:
                    found[(shortfall.resource, names.index(pod_set_fit.pod_set))] = None
    return list(found)


def _unit(resource: str, amount: Decimal) -> Decimal:
    """The step a request is searched in: millicores for cpu, MiB for bytes, whole units otherwise."""
    if resource == "cpu":
        return Decimal("0.001")
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        return Decimal(1024 * 1024)
    return Decimal(1) if amount == amount.to_integral_value() else Decimal("0.001")


def _smaller_request(snapshot: Snapshot, workload: Workload, index: int, resource: str, now: bool) -> Change | None:
    pod_set = workload.pod_sets[index]
    current = pod_requests(pod_set.template).get(resource, ZERO)
    if current <= 0:
        return None
    unit = _unit(resource, current)
    if current > unit * _MAX_UNITS:
        return None  # no request this large is worth a search (nor would any smaller one be news)
    low, high = 0, int(current / unit) - (1 if current % unit == 0 else 0)

    def change(units: int) -> Change:
        return Change(SMALLER_REQUEST, now, pod_set.name, resource=resource, per_pod=unit * units, was_per_pod=current)

    if high < 1 or not works(snapshot, workload, change(1)):
        return None
    low = 1
    for _ in range(_SEARCH_STEPS):
        if low >= high:
            break
        middle = (low + high + 1) // 2
        if works(snapshot, workload, change(middle)):
            low = middle
        else:
            high = middle - 1
    return change(low)


def _other_flavors(snapshot: Snapshot, workload: Workload, cq_name: str, now: bool) -> list[Change]:
    """Flavors of the ClusterQueue the job's node selector, affinity or tolerations keep it out of."""
    cq = snapshot.cluster_queue(cq_name)
    if cq is None:
        return []
    found: list[Change] = []
    for pod_set in workload.pod_sets:
        for group in cq.resource_groups:
            for quotas in group.flavors:
                flavor = snapshot.flavor(quotas.name)
                if flavor is None:
                    continue
                taints: list[Taint] = []
                while True:
                    probe = replace(
                        pod_set,
                        template=replace(
                            pod_set.template,
                            tolerations=pod_set.template.tolerations
                            + tuple(Toleration(t.key, "Equal", t.value, t.effect) for t in taints),
                        ),
                    )
                    taint = flavormatch.untolerated_taint(probe, flavor)
                    if taint is None or len(taints) > 8:
                        break
                    taints.append(taint)
                selected = flavormatch.matches_node_labels(pod_set, flavor)
                if not taints and selected:
                    continue  # nothing keeps the job off this flavor: Kueue tried it already
                labels = tuple(sorted(flavor.node_labels.items())) if not selected else ()
                found.append(
                    Change(
                        OTHER_FLAVOR,
                        now,
                        pod_set.name,
                        flavor=flavor.name,
                        cluster_queue=cq_name,
                        node_labels=labels,
                        tolerate=tuple((t.key, t.value, t.effect) for t in taints),
                    )
                )
    return found


def _raise_quota(snapshot: Snapshot, workload: Workload, cq_name: str, now: bool) -> Change | None:
    """How much to raise the nominal quota of the job's ClusterQueue, per short (flavor, resource)."""
    cq = snapshot.cluster_queue(cq_name)
    if cq is None:
        return None
    raises: dict[tuple[str, str], Raise] = {}
    after: Snapshot = snapshot
    for _ in range(4):  # raising one resource can uncover the next; a few rounds settle it
        fit = _fit(after, recreated(workload))
        if fit is None or fit.fit == Fit.NO_MATCH:
            return None
        if fit.fit == Fit.FITS or (not now and fit.fit == Fit.WAITS):
            break
        for shortfall in fit.shortfalls():
            cap = shortfall.capacity
            short = shortfall.requested - (cap.available if now else cap.maximum)
            if short <= 0:
                continue
            key = (shortfall.flavor, shortfall.resource)
            earlier = raises.get(key)
            by = short + (earlier.by if earlier else ZERO)
            base = cap.nominal - (earlier.by if earlier else ZERO)
            raises[key] = Raise(cq_name, shortfall.flavor, shortfall.resource, by, base + by)
        if not raises:
            return None
        after = WithChange(snapshot, None, {cq_name: _raised(cq, list(raises.values()))})
    else:
        return None
    if not raises:
        return None
    return Change(RAISE_QUOTA, now, cluster_queue=cq_name, raises=tuple(raises.values()))
