"""The headline's parameters and the advice of a pending Workload: one small function a verdict, in tables.

`headline_params` gives the names and numbers the headline of a verdict needs (the sentence is in
bot.copy, `headline.<verdict>`); `advise` writes what the reader can do about it. Both read Kueue's
record first and the engine's own checks (`walk.fit`) where Kueue recorded nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.trace import blockers, checks, messages, podsready, quota
from bot.trace.checks import Fit
from bot.trace.codes import Verdict
from bot.trace.explanation import LOWER_BOUND, Text, Value
from bot.trace.messages import Cause, Classification
from bot.trace.model import QUEUE_NAME_LABEL, ClusterQueue, LocalQueue, Workload
from bot.trace.quantity import human
from bot.trace.queuecheck import inactive_detail
from bot.trace.snapshot import Snapshot, on_hold, same_objects
from bot.trace.walk import Walk, present

HeadlineParams = dict[str, Value | None]
_Headline = Callable[[Walk, Workload, Classification | None], HeadlineParams]
_Advice = Callable[[Walk, Workload, Classification | None], None]
_FLAVOR_CAUSES = (Cause.UNTOLERATED_TAINT, Cause.NODE_AFFINITY_MISMATCH, Cause.RESOURCE_NOT_COVERED)


def _facts(record: Classification | None) -> tuple[messages.Fact, ...]:
    return record.facts if record is not None else ()


def _fact(record: Classification | None, *causes: Cause) -> messages.Fact | None:
    return next((f for f in _facts(record) if f.cause in causes), None)


def first_shortfall(walk: Walk, never: bool) -> checks.Shortfall | None:
    fit = walk.fit
    partial = walk.partial
    if partial is not None:  # with partial admission, what matters is at the counts Kueue would try
        fit = partial.min_fit if never else (partial.ever_fit or fit)
    if fit is None:
        return None
    shortfalls = [s for s in fit.shortfalls() if s.never == never]
    return shortfalls[0] if shortfalls else None


def shorts(walk: Walk, record: Classification | None, *, never: bool) -> list[blockers.Short]:
    """Every resource that does not fit, each once: the engine's own (at the counts partial admission would
    try), else those Kueue's record names (a job short of cpu and pods is told both, with both amounts)."""
    fit = walk.fit
    if walk.partial is not None:
        fit = walk.partial.min_fit if never else (walk.partial.ever_fit or fit)
    own = [
        blockers.Short(
            s.resource,
            s.flavor,
            requested=human(s.requested, s.resource),
            limit=human(s.capacity.maximum, s.resource),
            needed=human(s.needed, s.resource),
        )
        for s in (fit.shortfalls() if fit is not None else ())
        if s.never == never
    ]
    if own:
        return blockers.unique(own)
    cause = Cause.EXCEEDS_MAX_CAPACITY if never else Cause.INSUFFICIENT_UNUSED_QUOTA
    return blockers.unique(
        [
            blockers.Short(f.resource, f.flavor or "", f.requested or "", f.maximum or "", f.needed or "")
            for f in _facts(record)
            if f.cause == cause and f.resource
        ]
    )


def _others(walk: Walk, record: Classification | None, first: tuple[str, str], *, never: bool) -> HeadlineParams:
    """The headline's `others`: the short resources besides the first one (`first`: its flavor and resource)."""
    rest = [s for s in shorts(walk, record, never=never) if (s.flavor, s.resource) != first]
    return {"others": blockers.short_list(rest, never=never, flavor=first[0])} if rest else {}


def _partial_params(walk: Walk, counts: tuple[int, ...] | None) -> HeadlineParams:
    """The pods partial admission would give (`counts`), of all the pods, and the minimum."""
    partial = walk.partial
    if partial is None:
        return {}
    return {"pods": partial.pods_at(counts), "all_pods": partial.pods, "min_pods": partial.min_pods}


# --- headlines ---------------------------------------------------------------------------------------


def _exceeds_headline(walk: Walk, workload: Workload, record: Classification | None) -> HeadlineParams:
    shortfall = first_shortfall(walk, never=True)
    if shortfall is not None:
        params: HeadlineParams = {
            "resource": shortfall.resource,
            "flavor": shortfall.flavor,
            "requested": human(shortfall.requested, shortfall.resource),
            "maximum": human(shortfall.capacity.maximum, shortfall.resource),
        }
        if walk.partial is not None:  # not even its minCount fits: the minimum is what to name
            params.update(all_pods=walk.partial.pods, min_pods=walk.partial.min_pods)
        params.update(_others(walk, record, (shortfall.flavor, shortfall.resource), never=True))
        return params
    fact = _fact(record, Cause.EXCEEDS_MAX_CAPACITY)
    if fact is not None:
        params = {
            "resource": fact.resource,
            "flavor": fact.flavor,
            "requested": fact.requested,
            "maximum": fact.maximum,
        }
        params.update(_others(walk, record, (fact.flavor or "", fact.resource or ""), never=True))
        return params
    return {}


def _waiting_headline(walk: Walk, workload: Workload, record: Classification | None) -> HeadlineParams:
    params: HeadlineParams = {}
    fact = _fact(record, Cause.INSUFFICIENT_UNUSED_QUOTA)
    shortfall = first_shortfall(walk, never=False)
    partial_wait = walk.partial is not None and walk.partial.ever is not None and walk.partial.now is None
    if fact is not None and not (partial_wait and shortfall is not None):  # Kueue's fact is of the full counts
        params.update(resource=fact.resource, flavor=fact.flavor, needed=fact.needed)
        params.update(_others(walk, record, (fact.flavor or "", fact.resource or ""), never=False))
    elif shortfall is not None:
        params.update(
            resource=shortfall.resource, flavor=shortfall.flavor, needed=human(shortfall.needed, shortfall.resource)
        )
        params.update(_others(walk, record, (shortfall.flavor, shortfall.resource), never=False))
    if record is not None and record.preemptions_pending:
        params["preemptions"] = record.preemptions_pending
    if partial_wait and walk.partial is not None:
        params.update(_partial_params(walk, walk.partial.ever))
    stop = next((g for g in walk.fit.policy_stops() if g.skipped_free), None) if walk.fit else None
    if stop is not None and stop.chosen is not None and stop.chosen.fit != Fit.FITS:
        # flavorFungibility is why it waits on this flavor while a later one has room
        params.update(flavor=stop.chosen.flavor, free_flavor=stop.skipped_free, policy=stop.stopped_by)
    return params


def _not_yet_headline(walk: Walk, workload: Workload, record: Classification | None) -> HeadlineParams:
    if on_hold(workload):  # v0.20: out of the queue until the hold ends
        said = record.message.strip() if record is not None else ""
        return {"on_hold": said or Text("fragment.on-hold")}
    if walk.unknown is not None:  # a state this bot does not know: Kueue's words, no place in the queue
        recorded = f"{walk.unknown.type}={walk.unknown.status} ({walk.unknown.reason})"
        said = walk.unknown.message.strip()
        return {"unknown": f"{recorded}: {said}" if said else recorded}
    params = _record_headline(walk, workload, record)
    if walk.partial is not None and walk.partial.now is not None:
        params.update(_partial_params(walk, walk.partial.now))
    return params


def _no_flavor_headline(walk: Walk, workload: Workload, record: Classification | None) -> HeadlineParams:
    fact = _fact(record, *_FLAVOR_CAUSES)
    if fact is not None and fact.cause == Cause.UNTOLERATED_TAINT:
        return {"flavor": fact.flavor or "", "detail": Text("fragment.taint", {"taint": fact.taint or ""})}
    if fact is not None and fact.cause == Cause.RESOURCE_NOT_COVERED:
        return {"detail": Text("fragment.not-covered", {"resources": fact.resource or ""})}
    if fact is not None:
        return {"flavor": fact.flavor, "detail": Text("fragment.node-labels")}
    if walk.fit is not None and walk.fit.uncovered:
        return {"detail": Text("fragment.not-covered", {"resources": ", ".join(walk.fit.uncovered)})}
    blocking = walk.fit.blocking_flavors() if walk.fit else []
    taint = next((a for a in blocking if a.taint is not None), None)
    if taint is not None:
        return {"flavor": taint.flavor, "detail": Text("fragment.taint", {"taint": str(taint.taint)})}
    if blocking:
        return {"flavor": blocking[0].flavor, "detail": Text("fragment.node-labels")}
    return {}


def _stopped_headline(walk: Walk, workload: Workload, record: Classification | None) -> HeadlineParams:
    chain = walk.chain
    if chain is None:
        return _record_headline(walk, workload, record)
    stopped = workload.queue_name if chain.stopped_by == "LocalQueue" else chain.cluster_queue_name
    return {"kind": chain.stopped_by or "ClusterQueue", "policy": chain.stop_policy or "Hold", "stopped": stopped}


def _inactive_headline(walk: Walk, workload: Workload, record: Classification | None) -> HeadlineParams:
    if walk.chain is None:
        return _record_headline(walk, workload, record)
    return {"detail": inactive_detail(walk.chain)}


def _namespace_headline(walk: Walk, workload: Workload, record: Classification | None) -> HeadlineParams:
    """The namespaceSelector's requirement the namespace fails, and what the namespace has instead."""
    cq = walk.chain.cluster_queue if walk.chain is not None else None
    unmet = blockers.namespace_unmet(walk.snapshot, cq.namespace_selector, workload.namespace) if cq else None
    if unmet is None:
        return {"namespace": workload.namespace, **_record_headline(walk, workload, record)}
    return {"namespace": workload.namespace, "requirement": unmet.requirement, "has": unmet.has}


def _record_headline(walk: Walk, workload: Workload, record: Classification | None) -> HeadlineParams:
    facts = _facts(record)
    return {"detail": facts[0].text} if facts else {}


_HEADLINES: dict[Verdict, _Headline] = {
    Verdict.EXCEEDS_MAX_QUOTA: _exceeds_headline,
    Verdict.WAITING_FOR_QUOTA: _waiting_headline,
    Verdict.WAITING_FOR_PREEMPTION: _waiting_headline,
    Verdict.NOT_YET_EVALUATED: _not_yet_headline,
    Verdict.NO_MATCHING_FLAVOR: _no_flavor_headline,
    Verdict.QUEUE_STOPPED: _stopped_headline,
    Verdict.QUEUE_INACTIVE: _inactive_headline,
    Verdict.NAMESPACE_NOT_ALLOWED: _namespace_headline,
    Verdict.WAITING_FOR_PODS_READY: lambda walk, workload, record: podsready.headline(
        walk.pods_ready, workload.namespace
    ),
}


def headline_params(walk: Walk, workload: Workload, verdict: Verdict, record: Classification | None) -> HeadlineParams:
    params: HeadlineParams = {"cluster_queue": walk.cluster_queue_name, "queue": workload.queue_name}
    if walk.position is not None and walk.position.source != LOWER_BOUND:
        params["position"] = walk.position.cluster_queue
        params["ahead"] = walk.position.cluster_queue - 1
    params.update(_HEADLINES.get(verdict, _record_headline)(walk, workload, record))
    head = walk.head
    if head is not None and (head.never or verdict == Verdict.NOT_YET_EVALUATED) and verdict in _BEHIND_HEAD:
        # StrictFIFO: the head is what it waits behind (what it waits for itself comes second)
        behind: dict[str, Value | None] = {"head": head.headline_label(workload.namespace)}
        behind.update(cluster_queue=walk.cluster_queue_name, blocked_by=head.detail if head.never else None)
        params["behind"] = Text("fragment.waits-behind", present(behind))
    return params


# --- advice ------------------------------------------------------------------------------------------


def _exceeds_advice(walk: Walk, workload: Workload, record: Classification | None) -> None:
    shortfall = first_shortfall(walk, never=True)
    if shortfall is not None and walk.fit is not None and len(workload.pod_sets) == 1:
        pods = checks.max_pods_that_fit(walk.fit, workload.pod_sets[0].name, now=False)
        if pods and not _lower_minimum(walk, workload, pods):
            walk.act("shrink-request", {"pods": pods, "cluster_queue": walk.fit.cluster_queue}, pods=pods)
    other_queues(walk, workload, now=False)
    if shortfall is not None:
        _ask_admin_quota(walk, shortfall.capacity.cluster_queue, shorts(walk, record, never=True))


def _ask_admin_quota(walk: Walk, cluster_queue: str, short: Sequence[blockers.Short]) -> None:
    """One request to an admin per flavor, naming every resource short there with the quota it needs."""
    by_flavor: dict[str, list[blockers.Short]] = {}
    for item in short:
        by_flavor.setdefault(item.flavor, []).append(item)
    for flavor, items in by_flavor.items():
        params: dict[str, Value | None] = {"cluster_queue": cluster_queue, "flavor": flavor}
        if len(items) > 1:
            params["quotas"] = ", ".join(f"{i.resource} {i.requested}" for i in items)
        else:
            params.update(resource=items[0].resource, requested=items[0].requested)
        walk.act("ask-admin-quota", params, resources=[i.resource for i in items])


def _lower_minimum(walk: Walk, workload: Workload, pods: int) -> bool:
    """With partial admission, fewer pods than the minCount fit: the fix is a lower minimum, not a smaller
    job (Kueue never goes below minCount; a Job's comes from kueue.x-k8s.io/job-min-parallelism)."""
    minimum = workload.pod_sets[0].min_count
    if walk.partial is None or minimum is None or pods >= minimum:
        return False
    walk.act("lower-min-count", {"pods": pods, "min_pods": minimum}, pods=pods)
    return True


def _waiting_advice(walk: Walk, workload: Workload, record: Classification | None) -> None:
    waits = shorts(walk, record, never=False)
    if waits:  # how much more must be free, of every resource short now
        flavor = waits[0].flavor
        needed = blockers.short_list(waits, never=False, flavor=flavor)
        walk.act("wait", {"cluster_queue": walk.cluster_queue_name, "flavor": flavor, "needed": needed})
    else:
        walk.act("wait", {})
    if walk.fit is not None and len(workload.pod_sets) == 1:
        pods = checks.max_pods_that_fit(walk.fit, workload.pod_sets[0].name, now=True)
        if pods and pods < workload.pod_sets[0].count and not _lower_minimum(walk, workload, pods):
            walk.act("shrink-to-start-now", {"pods": pods}, pods=pods)
    other_queues(walk, workload, now=True)
    walk.act("ask-admin-priority")


def _no_flavor_advice(walk: Walk, workload: Workload, record: Classification | None) -> None:
    blocking = walk.fit.blocking_flavors() if walk.fit else []
    facts = _facts(record)
    taints = sorted({str(a.taint) for a in blocking if a.taint is not None})
    taints += [f.taint for f in facts if f.cause == Cause.UNTOLERATED_TAINT and f.taint and f.taint not in taints]
    for taint in taints[:3]:
        walk.act("add-toleration", {"taint": taint})
    if any(a.affinity_mismatch for a in blocking) or any(f.cause == Cause.NODE_AFFINITY_MISMATCH for f in facts):
        walk.act("fix-node-selector")
    uncovered = list(walk.fit.uncovered) if walk.fit else []
    uncovered += [
        f.resource
        for f in facts
        if f.cause == Cause.RESOURCE_NOT_COVERED and f.resource and f.resource not in uncovered
    ]
    for resource in uncovered[:3]:
        walk.act("ask-admin-cover", {"resource": resource, "cluster_queue": walk.cluster_queue_name})
    other_queues(walk, workload, now=False)


def _elsewhere_advice(walk: Walk, workload: Workload, record: Classification | None) -> None:
    other_queues(walk, workload, now=False)


def _missing_cq_advice(walk: Walk, workload: Workload, record: Classification | None) -> None:
    walk.act("ask-admin-cluster-queue", {"cluster_queue": walk.cluster_queue_name})


def _simply(code: str) -> _Advice:
    def advice(walk: Walk, workload: Workload, record: Classification | None) -> None:
        walk.act(code)

    return advice


_ADVICE: dict[Verdict, _Advice] = {
    Verdict.EXCEEDS_MAX_QUOTA: _exceeds_advice,
    Verdict.WAITING_FOR_QUOTA: _waiting_advice,
    Verdict.WAITING_FOR_PREEMPTION: _waiting_advice,
    Verdict.NO_MATCHING_FLAVOR: _no_flavor_advice,
    Verdict.QUEUE_STOPPED: _elsewhere_advice,
    Verdict.NAMESPACE_NOT_ALLOWED: _elsewhere_advice,
    Verdict.CLUSTER_QUEUE_MISSING: _missing_cq_advice,
    Verdict.WAITING_FOR_PODS_READY: lambda walk, workload, record: podsready.advise(walk, walk.pods_ready),
    Verdict.ADMISSION_GATED: _simply("ask-gate-owner"),
    Verdict.INVALID_REQUEST: _simply("fix-requests"),
    Verdict.TOPOLOGY_PLACEMENT_FAILED: _simply("relax-topology"),
    Verdict.ADMISSION_CHECKS_PENDING: _simply("wait"),
    Verdict.NOT_YET_EVALUATED: lambda walk, workload, record: _not_yet_advice(walk, workload),
}


def _not_yet_advice(walk: Walk, workload: Workload) -> None:
    if on_hold(workload):
        walk.act("end-hold", {"namespace": workload.namespace, "workload": workload.name})
    elif walk.unknown is not None:
        walk.act("unknown-state", {"namespace": workload.namespace, "workload": workload.name})
    else:
        walk.act("wait")


# Verdicts of a Workload that waits in its queue: behind a StrictFIFO head, the head is what it waits for.
_BEHIND_HEAD = frozenset({Verdict.NOT_YET_EVALUATED, Verdict.WAITING_FOR_QUOTA, Verdict.WAITING_FOR_PREEMPTION})


def _blocked_by_head(walk: Walk, workload: Workload) -> None:
    """Behind a StrictFIFO head that can never be admitted, waiting changes nothing: the head blocks the
    queue until an admin (or its owner) acts; another queue may take the job meanwhile."""
    found = walk.head
    assert found is not None
    params: dict[str, Value | None] = {
        "cluster_queue": walk.cluster_queue_name,
        "head": found.label,
        "blocked_by": found.detail,
        "behind": found.behind,
    }
    walk.act("unblock-head", params, head=f"{found.workload.namespace}/{found.name}")
    other_queues(walk, workload, now=False)


def advise(walk: Walk, workload: Workload, verdict: Verdict, record: Classification | None) -> None:
    if walk.head is not None and walk.head.never and verdict in _BEHIND_HEAD:
        _blocked_by_head(walk, workload)
        return
    advice = _ADVICE.get(verdict)
    if advice is not None:
        advice(walk, workload, record)
    if walk.behind and verdict.never_fixes_itself:  # a StrictFIFO head that never fits holds the whole queue
        walk.act("release-head", {"cluster_queue": walk.cluster_queue_name, "behind": walk.behind})


def other_queues(walk: Walk, workload: Workload, *, now: bool) -> None:
    """LocalQueues of the namespace whose ClusterQueue could take the job (now, or ever)."""
    current = walk.cluster_queue_name
    memo = walk.snapshot.memos()
    for local_queue, chain in _open_queues(walk.snapshot, memo, workload.namespace):
        if local_queue.name == workload.queue_name or chain.cluster_queue_name == current:
            continue
        assert chain.cluster_queue is not None
        if checks.namespace_allowed(walk.snapshot, chain.cluster_queue, workload.namespace) is False:
            continue
        fit = _fit_elsewhere(walk.snapshot, memo, chain.cluster_queue, workload)
        if fit == Fit.FITS if now else fit in (Fit.FITS, Fit.WAITS):
            walk.act(
                "use-other-queue",
                {"queue": local_queue.name, "cluster_queue": chain.cluster_queue_name, "label": QUEUE_NAME_LABEL},
                queue=local_queue.name,
                now=fit == Fit.FITS,
            )


# Cost. A question weighs every other LocalQueue of its namespace; what it reads of them is kept in the view's
# memos(), which the source renews when any LocalQueue, ClusterQueue, flavor or admission check changes
# (the small kinds): the namespace's LocalQueues in name order with their chains (those with nothing in the
# way), and the fit of a pod-set shape (the same tuple object for every Workload of that shape, the decoder
# shares them) in a ClusterQueue, kept while the usage it was computed from is the same (quota.usage_inputs).
_OPEN_QUEUES = "advice.open-queues"
_FIT_ELSEWHERE = "advice.fit-elsewhere"


def _open_queues(
    snapshot: Snapshot, memo: dict[object, object], namespace: str
) -> Sequence[tuple[LocalQueue, checks.QueueChain]]:
    """The namespace's LocalQueues by name whose chain reaches a ClusterQueue with nothing in the way."""
    table = memo.get(_OPEN_QUEUES)
    if not isinstance(table, dict):
        table = memo[_OPEN_QUEUES] = {}
    found = table.get(namespace)
    if found is None:
        found = []
        for local_queue in sorted(snapshot.local_queues_in(namespace), key=lambda lq: lq.name):
            chain = checks.queue_chain(snapshot, namespace, local_queue.name)
            if chain.blocker is None and chain.cluster_queue is not None:
                found.append((local_queue, chain))
        table[namespace] = found = tuple(found)
    return found


def _fit_elsewhere(snapshot: Snapshot, memo: dict[object, object], cq: ClusterQueue, workload: Workload) -> Fit:
    """checks.fit_of, memoised per (ClusterQueue, pod-set shape) while its usage inputs hold."""
    if workload.reclaimable:  # its counts are its own
        return checks.fit_of(snapshot, cq, workload.pod_sets, workload)
    table = memo.get(_FIT_ELSEWHERE)
    if not isinstance(table, dict):
        table = memo[_FIT_ELSEWHERE] = {}
    key = (cq.name, id(workload.pod_sets))
    inputs = quota.usage_inputs(snapshot, cq)
    known = table.get(key)
    if known is not None and known[0] is cq and known[1] is workload.pod_sets and same_objects(known[2], inputs):
        return known[3]  # type: ignore[no-any-return]
    fit = checks.fit_of(snapshot, cq, workload.pod_sets, workload)
    table[key] = (cq, workload.pod_sets, inputs, fit)  # the pod sets held: their id is not reused meanwhile
    return fit
