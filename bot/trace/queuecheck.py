"""The engine's own checks of a pending Workload's queues: LocalQueue, ClusterQueue, namespace, flavors, quota.

Kueue's record decides first (bot.trace.record); these checks decide where Kueue has recorded nothing, and
overrule it when a queue problem came up that Kueue has not written down yet (`decide`).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from decimal import Decimal

from bot.trace import blockers, checks, fits, holdings, messages, queuechain
from bot.trace.codes import Outcome, Verdict
from bot.trace.demand import PODS
from bot.trace.explanation import Step, Text, Value
from bot.trace.fits import FlavorTry, PodSetFit, QueueFit
from bot.trace.model import QUEUE_NAME_LABEL, ClusterQueue, Workload
from bot.trace.partial import Partial, partial_fit
from bot.trace.quantity import human
from bot.trace.queuechain import QueueChain
from bot.trace.quota import Capacity
from bot.trace.walk import Walk

MIN_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-min-parallelism"
_STRUCTURAL = frozenset(
    {
        Verdict.LOCAL_QUEUE_MISSING,
        Verdict.CLUSTER_QUEUE_MISSING,
        Verdict.QUEUE_STOPPED,
        Verdict.QUEUE_INACTIVE,
        Verdict.NAMESPACE_NOT_ALLOWED,
    }
)


def inactive_detail(chain: QueueChain) -> Value:
    """Why a ClusterQueue is inactive, in Kueue's words when it wrote them, else what the engine found."""
    if chain.missing_flavors:
        return Text(
            "fragment.missing-flavors",
            {"flavors": ", ".join(chain.missing_flavors), "count": len(chain.missing_flavors)},
        )
    if chain.missing_checks:
        return Text(
            "fragment.missing-checks", {"checks": ", ".join(chain.missing_checks), "count": len(chain.missing_checks)}
        )
    return chain.inactive_message or chain.inactive_reason


def local_queue_missing(walk: Walk, namespace: str, queue: str, queues: Sequence[str]) -> None:
    walk.step(
        "local-queue",
        Outcome.FAIL,
        "local-queue.missing",
        {"queue": queue, "namespace": namespace, "queues": ", ".join(queues)},
        existing=list(queues),
    )
    close = difflib.get_close_matches(queue, list(queues), n=1, cutoff=0.3)
    if queues:
        walk.act(
            "fix-queue-name",
            {"label": QUEUE_NAME_LABEL, "queue": close[0] if close else queues[0], "queues": ", ".join(queues)},
        )
    walk.act("ask-admin-local-queue", {"namespace": namespace})


def decide(walk: Walk, record: messages.Classification | None, own: Verdict | None) -> Verdict:
    """Kueue's record first; the engine's checks where Kueue recorded nothing (or was overtaken by a
    queue problem it has not written down yet)."""
    if record is None or record.verdict == Verdict.NOT_YET_EVALUATED:
        return own or Verdict.NOT_YET_EVALUATED
    verdict = record.verdict
    if verdict == Verdict.EXCEEDS_MAX_QUOTA and walk.partial is not None and walk.partial.ever is not None:
        # Kueue records the full counts' message when no reduced count fits now (scheduler.go
        # getInitialAssignments returns fullAssignment): fewer pods fit once capacity frees.
        return own or Verdict.NOT_YET_EVALUATED
    if verdict == Verdict.QUEUE_INACTIVE and own == Verdict.QUEUE_STOPPED:
        return Verdict.QUEUE_STOPPED
    if verdict == Verdict.QUEUE_INACTIVE and walk.chain and walk.chain.blocker == Verdict.QUEUE_STOPPED:
        return Verdict.QUEUE_STOPPED
    if own in _STRUCTURAL and verdict not in _STRUCTURAL:
        return own
    return verdict


def queue_checks(walk: Walk, workload: Workload) -> Verdict | None:
    """Queue chain, namespace selector, flavors and quota; returns the first blocker (None: fits)."""
    chain = walk.chain
    assert chain is not None
    blocker = _local_queue_checks(walk, workload, chain)
    if blocker is not None or chain.cluster_queue is None:
        return blocker
    blocker = _cluster_queue_checks(walk, chain)
    if blocker is not None:
        return blocker
    cq = chain.cluster_queue
    allowed = queuechain.namespace_allowed(walk.snapshot, cq, workload.namespace)
    if allowed is False:
        namespace_not_selected(walk, cq, workload.namespace)
        return Verdict.NAMESPACE_NOT_ALLOWED
    snapshot = walk.snapshot
    weighed = False

    def can_preempt(attempt: FlavorTry) -> bool:
        nonlocal weighed
        weighed = True
        return holdings.preemption_could_make_room(snapshot, workload, cq, attempt)

    excluded = recorded_exclusions(workload)
    walk.fit = checks.fit_in_queue(
        snapshot, cq, workload.pod_sets, workload, can_preempt=can_preempt, excluded=excluded
    )
    if not weighed and not excluded:  # the same search as without preemption weighed: the one the others read
        checks.keep_shape_fit(snapshot, cq, workload, walk.fit)
    flavor_steps(walk, walk.fit)
    return _partial_verdict(walk, workload, fits.verdict_of(walk.fit))


def namespace_not_selected(walk: Walk, cq: ClusterQueue, namespace: str) -> None:
    """The ClusterQueue's namespaceSelector leaves the namespace out: which requirement it fails, with the
    namespace's own value (Kueue's scheduler: "Workload namespace doesn't match ClusterQueue selector",
    pkg/scheduler/scheduler.go:423-425 at v0.14; a StrictFIFO queue does not keep such a head in front)."""
    params: dict[str, Value | None] = {"cluster_queue": cq.name, "namespace": namespace}
    unmet = blockers.namespace_unmet(walk.snapshot, cq.namespace_selector, namespace)
    if unmet is not None:
        params.update(requirement=unmet.requirement, has=unmet.has)
    walk.step("cluster-queue", Outcome.FAIL, "cluster-queue.namespace-not-selected", params)
    if unmet is not None and unmet.fix:
        params["label"] = unmet.fix
    walk.act("ask-admin-namespace", params)


def _partial_verdict(walk: Walk, workload: Workload, verdict: Verdict | None) -> Verdict | None:
    """Kueue's partial admission (checks.partial_fit): a Workload whose full counts never fit is not
    "never fits" when fewer pods (at least its minCount) fit; with what is free now it is admitted."""
    if verdict not in (Verdict.EXCEEDS_MAX_QUOTA, Verdict.WAITING_FOR_QUOTA):
        return verdict
    chain = walk.chain
    assert chain is not None and chain.cluster_queue is not None
    walk.partial = partial = partial_fit(walk.snapshot, chain.cluster_queue, workload.pod_sets, workload)
    if partial is None:
        return verdict
    if partial.now is None and partial.ever is None:
        return Verdict.EXCEEDS_MAX_QUOTA
    _partial_steps(walk, workload, partial)
    return None if partial.now is not None else Verdict.WAITING_FOR_QUOTA


_FULL_COUNT_CODES = frozenset({"quota.never-fits", "quota.waits", "quota.in-cohort-waits"})


def _partial_steps(walk: Walk, workload: Workload, partial: Partial) -> None:
    """The quota steps were written for every pod: with partial admission they say so, as information (not
    "it will never fit" under a headline that says it fits with fewer), and one step says how many fit, by
    which annotation (a Job's kueue.x-k8s.io/job-min-parallelism becomes its pod set's minCount:
    pkg/controller/jobs/job/job_controller.go:460)."""
    never_only = partial.now is None  # it waits: what is short now still holds it
    for index, step in enumerate(walk.steps):
        if step.code not in _FULL_COUNT_CODES or (never_only and step.code != "quota.never-fits"):
            continue
        text = Text(step.code, {**step.text.params, "all_pods": partial.pods})
        walk.steps[index] = Step(step.step, Outcome.INFO, step.code, text, step.data)
    owner = next((o for o in workload.meta.owners if o.controller), None)
    params: dict[str, Value | None] = {
        "pods": partial.pods_at(partial.now if partial.now is not None else partial.ever),
        "all_pods": partial.pods,
        "min_pods": partial.min_pods,
        "annotation": MIN_PARALLELISM_ANNOTATION if owner is not None and owner.kind == "Job" else None,
    }
    code = "quota.partial-fits" if partial.now is not None else "quota.partial-waits"
    walk.step("quota", Outcome.PASS if partial.now is not None else Outcome.INFO, code, params)


def recorded_exclusions(workload: Workload) -> frozenset[tuple[str, str]]:
    """The (pod set, flavor) pairs Kueue's QuotaReserved=False record excludes: "flavor X doesn't match node
    affinity" (flavorassigner.go). Kueue's record counts in the engine's own flavor check, whatever rule of
    label keys its version follows."""
    condition = workload.condition("QuotaReserved")
    if condition is None or not condition.is_false:
        return frozenset()
    record = messages.classify_quota_reserved(condition.reason, condition.message)
    return frozenset(
        (fact.pod_set or "", fact.flavor)
        for fact in record.facts
        if fact.cause is messages.Cause.NODE_AFFINITY_MISMATCH and fact.flavor
    )


def _local_queue_checks(walk: Walk, workload: Workload, chain: QueueChain) -> Verdict | None:
    namespace = workload.namespace
    if chain.local_queue is None:
        queues = sorted(lq.name for lq in walk.snapshot.local_queues_in(namespace))
        local_queue_missing(walk, namespace, workload.queue_name, queues)
        return Verdict.LOCAL_QUEUE_MISSING
    lq_params = {"queue": chain.local_queue.name, "cluster_queue": chain.cluster_queue_name}
    if chain.blocker == Verdict.QUEUE_STOPPED and chain.stopped_by == "LocalQueue":
        walk.step("local-queue", Outcome.FAIL, "local-queue.stopped", {**lq_params, "policy": chain.stop_policy})
        walk.act("ask-admin-resume", {"kind": "LocalQueue", "queue": chain.local_queue.name})
        return Verdict.QUEUE_STOPPED
    walk.step("local-queue", Outcome.PASS, "local-queue.ok", lq_params)
    if chain.cluster_queue is None:
        params = {"cluster_queue": chain.cluster_queue_name}
        walk.step("cluster-queue", Outcome.FAIL, "cluster-queue.missing", params)
        walk.act("ask-admin-cluster-queue", params)
        return Verdict.CLUSTER_QUEUE_MISSING
    return None


def _cluster_queue_checks(walk: Walk, chain: QueueChain) -> Verdict | None:
    cq = chain.cluster_queue
    assert cq is not None
    if chain.blocker == Verdict.QUEUE_STOPPED:
        params = {"cluster_queue": cq.name, "policy": chain.stop_policy}
        walk.step("cluster-queue", Outcome.FAIL, "cluster-queue.stopped", params)
        walk.act("ask-admin-resume", {"kind": "ClusterQueue", "queue": cq.name})
        return Verdict.QUEUE_STOPPED
    if chain.blocker == Verdict.QUEUE_INACTIVE:
        detail = inactive_detail(chain)
        walk.step("cluster-queue", Outcome.FAIL, "cluster-queue.inactive", {"cluster_queue": cq.name, "detail": detail})
        walk.act("ask-admin-inactive", {"cluster_queue": cq.name, "detail": detail})
        return Verdict.QUEUE_INACTIVE
    cq_params: dict[str, str | int | None] = {"cluster_queue": cq.name, "strategy": cq.queueing_strategy}
    if walk.snapshot.read_scope is None:  # one namespace's LocalQueues are not those of the ClusterQueue
        cq_params["local_queues"] = len(walk.snapshot.local_queues_of(cq.name))
    if cq.cohort:
        cq_params["cohort"] = cq.cohort
    walk.step("cluster-queue", Outcome.PASS, "cluster-queue.ok", cq_params, cohort=cq.cohort)
    _effective_quota_steps(walk, cq)
    return None


def _effective_quota_steps(walk: Walk, cq: ClusterQueue) -> None:
    """v0.20's status.effectiveQuotas (KEP-12382, DynamicQuotaOrchestration): the quota Kueue schedules
    with is the orchestrator's, not spec.resourceGroups; raising the spec changes nothing."""
    owners = [("ClusterQueue", cq.name, cq.effective_quota_by)] if cq.effective_quota_by else []
    cohort = walk.snapshot.cohort(cq.cohort) if cq.cohort else None
    if cohort is not None and cohort.effective_quota_by:
        owners.append(("Cohort", cohort.name, cohort.effective_quota_by))
    for kind, name, by in owners:
        params = {"kind": kind, "name": name, "by": by}
        walk.step("cluster-queue", Outcome.INFO, "cluster-queue.effective-quotas", params, by=by)


def flavor_steps(walk: Walk, fit: QueueFit) -> None:
    for resource in fit.uncovered:
        walk.step(
            "flavors",
            Outcome.FAIL,
            "flavors.resource-not-covered",
            {"resource": resource, "cluster_queue": fit.cluster_queue},
        )
    for pod_set in fit.pod_sets:
        for group in pod_set.groups:
            for attempt in group.tries:
                _attempt_steps(walk, pod_set, attempt)
            _fungibility_steps(walk, pod_set, group)


def _fungibility_steps(walk: Walk, pod_set: PodSetFit, group: fits.GroupFit) -> None:
    """Why Kueue settles on its flavor when flavorFungibility decided it (flavorassigner.go
    shouldTryNextFlavor, isPreferred)."""
    chosen = group.chosen
    if chosen is None:
        return
    base: dict[str, str | int | None] = {"pod_set": pod_set.pod_set, "flavor": chosen.flavor}
    if group.stopped_by:
        how = "preempt" if group.stopped_by == fits.WHEN_CAN_PREEMPT else "borrow"
        walk.step(
            "flavors",
            Outcome.INFO,
            f"flavors.stops-to-{how}",
            {**base, "policy": group.stopped_by, "free": group.skipped_free},
            policy=group.stopped_by,
            free=group.skipped_free,
        )
        return
    skipped = [a.flavor for a in group.tries if a is not chosen and a.fit == fits.Fit.FITS and a.borrows]
    if skipped and chosen.fit == fits.Fit.FITS:
        walk.step("flavors", Outcome.INFO, "flavors.skips-borrowing", {**base, "skipped": ", ".join(skipped)})


def _attempt_steps(walk: Walk, pod_set: PodSetFit, attempt: FlavorTry) -> None:
    base: dict[str, str | int | None] = {"flavor": attempt.flavor, "pod_set": pod_set.pod_set}
    if attempt.missing_flavor:
        walk.step("flavors", Outcome.FAIL, "flavors.missing", base)
    elif attempt.taint is not None:
        walk.step("flavors", Outcome.FAIL, "flavors.taint", {**base, "taint": str(attempt.taint)})
    elif attempt.affinity_mismatch:
        flavor = walk.snapshot.flavor(attempt.flavor)
        labels = ", ".join(f"{k}={v}" for k, v in sorted((flavor.node_labels if flavor else {}).items()))
        code = (
            "flavors.recorded-exclusion"
            if attempt.recorded
            else "flavors.group-label-keys"
            if attempt.group_keys
            else "flavors.node-labels"
        )
        params: dict[str, str | int | None] = {**base, "labels": labels, "keys": ", ".join(attempt.excluding)}
        walk.step("flavors", Outcome.FAIL, code, params)
        if attempt.group_keys:
            walk.act("ask-admin-flavor-keys", {"flavor": attempt.flavor, "keys": ", ".join(attempt.excluding)})
    elif attempt.missing_resources:
        walk.step(
            "flavors", Outcome.FAIL, "flavors.no-quota-for", {**base, "resources": ", ".join(attempt.missing_resources)}
        )
    for cap in attempt.capacities:
        _capacity_step(walk, pod_set, attempt, cap, base)


def _capacity_step(
    walk: Walk, pod_set: PodSetFit, attempt: FlavorTry, cap: Capacity, base: dict[str, str | int | None]
) -> None:
    shortfall = next((s for s in attempt.shortfalls if s.resource == cap.resource), None)
    need = shortfall.requested if shortfall is not None else _requested(pod_set, cap.resource)
    params: dict[str, str | int | None] = {
        **base,
        "resource": cap.resource,
        "requested": human(need, cap.resource),
        "nominal": human(cap.nominal, cap.resource),
        "used": human(cap.used, cap.resource),
        "available": human(max(Decimal(0), cap.available), cap.resource),
        "maximum": human(cap.maximum, cap.resource),
        "cluster_queue": cap.cluster_queue,
        "borrowed": human(cap.borrowed, cap.resource),
        "elsewhere": human(cap.cohort_used_elsewhere, cap.resource),
    }
    data = {
        "resource": cap.resource,
        "flavor": cap.flavor,
        "requested": str(need),
        "nominal": str(cap.nominal),
        "used": str(cap.used),
        "available": str(cap.available),
        "maximum": str(cap.maximum),
        "borrowingLimit": None if cap.borrowing_limit is None else str(cap.borrowing_limit),
        "lendingLimit": None if cap.lending_limit is None else str(cap.lending_limit),
    }
    if cap.cohort:
        params["cohort"] = cap.cohort
    if shortfall is not None and shortfall.never:
        code, outcome = "quota.never-fits", Outcome.FAIL
    elif shortfall is not None:
        params["needed"] = human(shortfall.needed, cap.resource)
        code, outcome = ("quota.in-cohort-waits" if cap.cohort else "quota.waits"), Outcome.FAIL
    else:
        code, outcome = ("quota.in-cohort-fits" if cap.cohort else "quota.fits"), Outcome.PASS
    walk.step("quota", outcome, code, params, **data)


def _requested(pod_set: PodSetFit, resource: str) -> Decimal:
    if resource == PODS:
        return Decimal(pod_set.count)
    return pod_set.per_pod.get(resource, Decimal(0)) * pod_set.count
