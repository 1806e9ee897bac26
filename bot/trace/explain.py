"""The admission trace: `explain(snapshot, query, now=...) -> Explanation`. Pure: no I/O, no clock.

It walks the admission path as Kueue does (FACTS §11): find the Workload; read Kueue's record
(conditions, reasons, messages, admission checks, requeue state: bot.trace.record); compare the demand
with what was assigned; follow the LocalQueue to its ClusterQueue and weigh the quota of each flavor within
the cohort (bot.trace.queuecheck); place the Workload in its queue (bot.trace.position); say what to do
(bot.trace.advice); and, once admitted, hand over to the scheduler's view of the pods (bot.trace.scheduling).
Kueue's own record decides first; the engine's checks decide where Kueue has recorded nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from bot.trace import (
    blockers,
    messages,
    podgroup,
    podsready,
    preemptions,
    provisioning,
    queuechain,
    record,
    scheduling,
)
from bot.trace.advice import advise, headline_params
from bot.trace.answer import result
from bot.trace.codes import Outcome, Verdict
from bot.trace.demand import assigned, demand_in, pod_requests, templates_demand
from bot.trace.explanation import Explanation, Value
from bot.trace.model import (
    ADMISSION_GATED_BY,
    PREBUILT_WORKLOAD_LABEL,
    PRIORITY_CLASS_LABEL,
    QUEUE_NAME_LABEL,
    Condition,
    Job,
    Workload,
)
from bot.trace.multikueue import multikueue_check
from bot.trace.position import MAX_AHEAD_DETAILED, MAX_AHEAD_LISTED, place
from bot.trace.queuecheck import decide, inactive_detail, local_queue_missing, queue_checks
from bot.trace.resolve import Resolution, other_namespaces, resolve, similar_jobs
from bot.trace.snapshot import Snapshot
from bot.trace.unreadable import Unreadable, unreadable_job, unreadable_workload
from bot.trace.walk import Query, Walk, amounts, present, seconds_between

__all__ = [
    "MAX_AHEAD_DETAILED",
    "MAX_AHEAD_LISTED",
    "Query",
    "amounts",
    "explain",
    "inactive_detail",
    "present",
    "seconds_between",
]


def explain(snapshot: Snapshot, query: Query, *, now: datetime) -> Explanation:
    """Explain why the job named by `query` is (or is not) pending, as of `now`: the admission path walked. When
    it will likely run, who holds what it waits for and what would admit it are the forecast's
    (bot.forecast.outlook), beside this answer."""
    return _explain(snapshot, query, now)


def _explain(snapshot: Snapshot, query: Query, now: datetime) -> Explanation:
    walk = Walk(snapshot, query, now)
    found = resolve(snapshot, query.namespace, query.name, query.kind)
    unread = tuple(snapshot.unreadable_in(query.namespace)) if found.workload is None else ()
    if unread:
        item = unreadable_job(unread, query.name, query.kind) if found.job is None else None
        item = item or unreadable_workload(unread, found.job, query.name)
        if item is not None:
            return _unreadable(walk, item, found.job)
    if found.job is None and found.workload is None:
        return _job_not_found(walk)
    if found.workload is None:
        assert found.job is not None
        return _no_workload(walk, found.job)
    return _with_workload(walk, found)


def _unreadable(walk: Walk, item: Unreadable, job: Job | None) -> Explanation:
    """The job, or its Workload, is there but could not be read: said with its name and why, not "not found"."""
    params: dict[str, Value | None] = {
        "kind": item.kind,
        "name": f"{item.namespace}/{item.name}",
        "reason": item.reason,
    }
    if job is not None:
        walk.step("job", Outcome.PASS, "job.found", {"kind": job.meta.kind, "job": walk.job_label})
    walk.step("workload" if item.kind == "Workload" else "job", Outcome.FAIL, "object.unreadable", params)
    walk.act("report-unreadable", params)
    return result(walk, Verdict.OBJECT_UNREADABLE, params, job=job)


def _job_not_found(walk: Walk) -> Explanation:
    query = walk.query
    kind = query.kind or "job"
    walk.suggestions = tuple(similar_jobs(walk.snapshot, query.namespace, query.name, query.kind))
    walk.other_namespaces = tuple(other_namespaces(walk.snapshot, query.namespace, query.name, query.kind))
    params: dict[str, str | int | None] = {"kind": kind, "namespace": query.namespace, "name": query.name}
    walk.step("job", Outcome.FAIL, "job.not-found", params)
    if walk.suggestions:
        walk.act("did-you-mean", {"names": ", ".join(walk.suggestions)}, names=list(walk.suggestions))
    if walk.other_namespaces:
        walk.act("other-namespace", {"namespaces": ", ".join(walk.other_namespaces), "name": query.name})
    walk.act("check-name", {"namespace": query.namespace, "resource": kind.lower() + "s"})  # kubectl's plural
    return result(walk, Verdict.JOB_NOT_FOUND, params)


def _no_workload(walk: Walk, job: Job) -> Explanation:
    """A job without a Workload: not managed, or Kueue could not create its Workload."""
    namespace = job.meta.namespace or ""
    walk.demand = templates_demand((t.template, t.count) for t in job.templates) or None
    walk.step("job", Outcome.PASS, "job.found", {"kind": job.meta.kind, "job": walk.job_label})
    queue = job.queue_name
    queues = sorted(lq.name for lq in walk.snapshot.local_queues_in(namespace))
    annotated = _queue_annotation(walk, job)
    if annotated:  # v0.15+ ignores the annotation: the job is not managed
        queue = ""
    if not queue:
        walk.step("workload", Outcome.FAIL, "workload.not-managed", {"label": QUEUE_NAME_LABEL})
        if job.suspended is False or job.suspended is None:
            walk.step("scheduling", Outcome.INFO, "scheduling.not-held-by-kueue", {"kind": job.meta.kind})
        if queues and not annotated:  # with the annotation, the advice is the label (use-queue-label)
            walk.act("add-queue-label", {"label": QUEUE_NAME_LABEL, "queues": ", ".join(queues)}, queues=queues)
        elif not queues:
            walk.act("ask-admin-local-queue", {"namespace": namespace})
        return result(walk, Verdict.NOT_MANAGED, {"label": QUEUE_NAME_LABEL, **_annotated(job)}, job=job)
    walk.step("workload", Outcome.FAIL, "workload.missing", {"queue": queue})
    for reason, message in _job_events(walk, job):
        walk.step("workload", Outcome.INFO, "workload.event", {"reason": reason, "message": message})
    headline: dict[str, Value | None] = {"queue": queue}
    group = podgroup.group_of(walk, job)
    if group is not None:
        headline.update(podgroup.missing_workload(walk, job, group))
    if walk.snapshot.local_queue(namespace, queue) is None:
        local_queue_missing(walk, namespace, queue, queues)
    missing_class = _missing_priority_class(walk, job)
    if missing_class:
        headline["priority_class"] = missing_class
    elif group is None or not (group.missing or group.total is None):
        walk.act("ask-admin-kueue", {"kind": job.meta.kind})
    return result(walk, Verdict.WORKLOAD_MISSING, headline, job=job)


def _missing_priority_class(walk: Walk, job: Job) -> str:
    """The WorkloadPriorityClass the job names (label kueue.x-k8s.io/priority-class) when it does not exist:
    Kueue then creates no Workload (jobframework/reconciler.go ExtractPriority fails in prepareWorkload; newer
    Kueue adds a Warning event WorkloadPriorityClassNotFound). A step and the fix; "" when it exists."""
    name = job.meta.labels.get(PRIORITY_CLASS_LABEL, "").strip()
    if not name or walk.snapshot.priority_class(name) is not None:
        return ""
    params: dict[str, Value | None] = {"priority_class": name, "label": PRIORITY_CLASS_LABEL}
    walk.step("workload", Outcome.FAIL, "workload.priority-class-missing", params)
    walk.act("fix-priority-class", {**params, "kind": job.meta.kind})
    return name


def _annotated(job: Job) -> dict[str, Value | None]:
    return {"annotated": blockers.queue_by_annotation_only(job) or None}


def _queue_annotation(walk: Walk, job: Job) -> bool:
    """A job naming its queue by the annotation kueue.x-k8s.io/queue-name alone: Kueue v0.15.0 removed that
    fallback (#7271; v0.14 jobframework/interface.go QueueNameForObject read it), so on the v1beta2 objects
    of a v0.15+ Kueue the job is not managed (True). On v1beta1 objects the version is not certain: the
    step says so and the advice is the label all the same."""
    queue = blockers.queue_by_annotation_only(job)
    if not queue:
        return False
    version = blockers.kueue_api_version(walk.snapshot, job.meta.namespace or "")
    params: dict[str, Value | None] = {"label": QUEUE_NAME_LABEL, "queue": queue, "api_version": version}
    ignored = version == blockers.V1BETA2
    code = "workload.queue-annotation-ignored" if ignored else "workload.queue-annotation-deprecated"
    walk.step("workload", Outcome.FAIL if ignored else Outcome.INFO, code, params, api_version=version)
    walk.act("use-queue-label", {"label": QUEUE_NAME_LABEL, "queue": queue, "kind": job.meta.kind})
    return ignored


def _job_events(walk: Walk, job: Job) -> list[tuple[str, str]]:
    namespace = job.meta.namespace or ""
    return [
        (event.reason, event.message)
        for event in walk.snapshot.events_about(namespace, job.meta.kind, job.meta.name)
        if event.type == "Warning"
    ][-3:]


# --- with a Workload --------------------------------------------------------------------------------


def _with_workload(walk: Walk, found: Resolution) -> Explanation:
    workload = found.workload
    assert workload is not None
    job = found.job
    _workload_step(walk, found, workload)
    walk.demand = dict(demand_in(walk.snapshot.memos(), workload))  # its own copy: the memo's is shared
    _demand_steps(walk, workload)
    if workload.finished:
        finished = workload.condition("Finished")
        reason = finished.reason if finished else ""
        if reason == "OutOfSync" and job is not None:
            return _out_of_sync(walk, workload, job, finished.message if finished else "")
        walk.step("conditions", Outcome.INFO, "conditions.finished", {"reason": reason})
        return result(walk, Verdict.FINISHED, {"reason": reason}, workload=workload, job=job)
    walk.chain = queuechain.queue_chain(
        walk.snapshot,
        workload.namespace,
        workload.queue_name,
        workload.admission.cluster_queue if workload.admission and workload.holds_quota else "",
    )
    record.condition_steps(walk, workload)  # after the chain: its resource groups read Kueue's record
    if not workload.active or workload.is_true("DeactivationTarget"):
        return _deactivated(walk, workload, job)
    being = preemptions.being_preempted(walk, workload)
    if being is not None:  # still admitted while its pods stop: not running
        return result(walk, Verdict.PREEMPTED, being[0], workload=workload, job=job)
    if workload.admitted:
        record.execution_time_step(walk, workload)
        provisioning.pod_set_update_steps(walk, workload.checks)
        verdict, headline = scheduling.admitted(walk, workload, job)
        return result(walk, verdict, {**headline, **_workers(walk, workload)}, workload=workload, job=job)
    if workload.is_true("QuotaReserved"):
        return _quota_reserved(walk, workload, job)
    return _pending(walk, workload, job)


def _workload_step(walk: Walk, found: Resolution, workload: Workload) -> None:
    params: dict[str, str | int | None] = {"workload": workload.name, "how": found.how or "name"}
    age = seconds_between(workload.meta.created, walk.now)
    if age is not None:
        params["age_seconds"] = age
    if found.managed_through is not None:
        params["parent"] = f"{found.managed_through.meta.kind} {found.managed_through.meta.name}"
        walk.step("workload", Outcome.PASS, "workload.found-through-parent", params, how=found.how)
    else:
        walk.step("workload", Outcome.PASS, "workload.found", params, how=found.how)
    if found.how == "deployment-pods" and found.job is not None:
        podgroup.per_pod_step(walk, found.job.meta.kind, [workload, *found.siblings])
    elif found.siblings:
        walk.step("workload", Outcome.INFO, "workload.siblings", {"count": len(found.siblings)})
    group = podgroup.group_of(walk, found.job) if found.job is not None else None
    if group is not None:
        podgroup.composition_step(walk, group)
    if found.job is not None:
        _queue_annotation(walk, found.job)


def _demand_steps(walk: Walk, workload: Workload) -> None:
    assert walk.demand is not None
    per_set = [
        (pod_set.name, pod_set.count, amounts(pod_requests(pod_set.template)))
        for pod_set in workload.pod_sets
        if pod_set.count
    ]
    shape = "; ".join(f"{name}: {count} × ({per_pod})" for name, count, per_pod in per_set)
    walk.step(
        "demand",
        Outcome.INFO,
        "demand.total",
        {"total": amounts(walk.demand), "shape": shape},
        demand={k: str(v) for k, v in walk.demand.items()},
    )
    if workload.admission is not None and workload.holds_quota:
        given = assigned(workload)
        text = "; ".join(f"{flavor or '-'}: {amounts(values)}" for flavor, values in given.items())
        walk.step(
            "demand",
            Outcome.PASS,
            "demand.assigned",
            {"cluster_queue": workload.admission.cluster_queue, "assigned": text},
        )


def _out_of_sync(walk: Walk, workload: Workload, job: Job, message: str) -> Explanation:
    """A prebuilt Workload (label kueue.x-k8s.io/prebuilt-workload-name) that no longer matches its job: Kueue
    finished it (reason OutOfSync, "The prebuilt workload is out of sync with its user job") and the job
    stays as it is; a Workload made anew from the job, or the label removed, lets Kueue queue it again."""
    walk.step("conditions", Outcome.FAIL, "conditions.out-of-sync", {"workload": workload.name, "message": message})
    walk.act("fix-prebuilt", {"workload": workload.name, "label": PREBUILT_WORKLOAD_LABEL, "kind": job.meta.kind})
    return result(walk, Verdict.WORKLOAD_OUT_OF_SYNC, {"workload": workload.name}, workload=workload, job=job)


# --- deactivated, reserved ----------------------------------------------------------------------------


def _deactivation(workload: Workload) -> Condition | None:
    """The eviction that deactivated the Workload: DeactivationTarget is set first and the eviction follows
    (workload_controller.go), so a target alone stands for it."""
    evicted = workload.condition("Evicted")
    target = workload.condition("DeactivationTarget")
    if (evicted is None or not evicted.is_true) and target is not None and target.is_true:
        return Condition("Evicted", "True", f"DeactivatedDueTo{target.reason}", target.message, target.since)
    return evicted


def _deactivated(walk: Walk, workload: Workload, job: Job | None) -> Explanation:
    evicted = _deactivation(workload)
    reason = evicted.reason if evicted is not None else ""
    message = evicted.message if evicted is not None else ""
    eviction = messages.parse_eviction(reason, message)
    rejected = [check for check in workload.checks if check.state == "Rejected"]
    if rejected or eviction.underlying == "AdmissionCheck" or reason == "DeactivatedDueToAdmissionCheck":
        names = [check.name for check in rejected] or [name for name, _, _ in eviction.checks]
        record.check_steps(walk, workload)
        walk.act("fix-and-resubmit")
        said: dict[str, Value | None] = {"checks": ", ".join(names), "check_count": len(names)}
        return result(walk, Verdict.ADMISSION_CHECK_REJECTED, said, workload=workload, job=job)
    walk.step(
        "workload",
        Outcome.FAIL,
        "workload.deactivated",
        {"reason": eviction.underlying or reason, "message": message},
    )
    headline: dict[str, Value | None] = {"reason": eviction.underlying or reason or "spec.active=false"}
    if eviction.underlying == record.MAX_EXEC_EXCEEDED:
        headline.update(record.max_exec_deactivation(walk, workload, job))
    elif eviction.underlying == record.REQUEUING_LIMIT_EXCEEDED:
        record.requeuing_limit_steps(walk, workload)
    if eviction.underlying != record.MAX_EXEC_EXCEEDED:
        record.max_exec_used_up(walk, workload)
    headline.update(scheduling.after_eviction(walk, workload, job))  # deactivated for pods never ready: why
    walk.act("reactivate", {"namespace": workload.namespace, "workload": workload.name})
    return result(walk, Verdict.DEACTIVATED, headline, workload=workload, job=job)


def _quota_reserved(walk: Walk, workload: Workload, job: Job | None) -> Explanation:
    cq = workload.admission.cluster_queue if workload.admission else ""
    walk.step("cluster-queue", Outcome.PASS, "cluster-queue.reserved", {"cluster_queue": cq})
    record.check_steps(walk, workload)
    rejected = [c.name for c in workload.checks if c.state == "Rejected"]
    if rejected:
        walk.act("fix-and-resubmit")
        return result(
            walk,
            Verdict.ADMISSION_CHECK_REJECTED,
            {"checks": ", ".join(rejected), "check_count": len(rejected)},
            workload=workload,
            job=job,
        )
    waiting = [c for c in workload.checks if c.state != "Ready"]
    delayed = [
        a.name
        for a in (workload.admission.assignments if workload.admission else ())
        if a.delayed_topology == "Pending"
    ]
    if waiting or delayed:
        names = [c.name for c in waiting] or ["topology"]
        message = next((c.message for c in waiting if c.message), "")
        walk.act("wait-for-checks", {"checks": ", ".join(names)})
        headline = {
            "checks": ", ".join(names),
            "check_count": len(names),
            "message": message,
            "cluster_queue": cq,
            **_workers(walk, workload),
        }
        return result(walk, Verdict.ADMISSION_CHECKS_PENDING, headline, workload=workload, job=job)
    walk.act("wait")
    return result(walk, Verdict.NOT_YET_EVALUATED, {"cluster_queue": cq}, workload=workload, job=job)


# --- pending: no quota reserved -----------------------------------------------------------------------


def _pending(walk: Walk, workload: Workload, job: Job | None) -> Explanation:
    backoff = record.backoff(walk, workload)
    evicted = scheduling.after_eviction(walk, workload, job)  # pods never ready: why, before any requeue
    if backoff is not None:
        return result(walk, Verdict.REQUEUE_BACKOFF, {**backoff, **evicted}, workload=workload, job=job)
    gate = workload.meta.annotations.get(ADMISSION_GATED_BY, "").strip()
    if gate:
        walk.step("workload", Outcome.FAIL, "workload.admission-gated", {"gates": gate})
        walk.act("ask-gate-owner", {"gates": gate})
        return result(walk, Verdict.ADMISSION_GATED, {"gates": gate}, workload=workload, job=job)
    recorded = record.read_record(walk, workload)
    walk.unknown = record.unknown_state(workload, recorded)
    if walk.unknown is not None:  # said verbatim; no place in a queue Kueue may not hold it in (unknown reason)
        walk.step("conditions", Outcome.FAIL, "record.unknown-state", present(_unknown_params(walk.unknown)))
    own = queue_checks(walk, workload)
    verdict = decide(walk, recorded, own)
    if verdict.in_queue and (walk.unknown is None or walk.unknown.reason in messages.KNOWN_REASONS):
        place(walk, workload)  # a known reason (Pending, Inadmissible) with words the bot cannot read is queued
    if verdict == Verdict.WAITING_FOR_PODS_READY:  # blockAdmission: the workloads whose pods hold it, named
        walk.pods_ready = podsready.blockers(walk, workload)
    headline = headline_params(walk, workload, verdict, recorded)
    headline.update(_parties(walk, workload, verdict, headline))
    advise(walk, workload, verdict, recorded)
    preempted = preemptions.after_preemption(walk, workload)
    explanation = result(walk, verdict, headline, workload=workload, job=job)
    return explanation if preempted is None else preemptions.headline_after_preemption(walk, explanation, preempted)


def _parties(
    walk: Walk, workload: Workload, verdict: Verdict, headline: Mapping[str, object]
) -> dict[str, Value | None]:
    """The headline's parties: the workloads Kueue preempts for it, the ClusterQueues that borrow what it
    waits for when its ClusterQueue may not reclaim it."""
    cq = walk.chain.cluster_queue if walk.chain is not None else None
    if verdict == Verdict.WAITING_FOR_PREEMPTION and cq is not None:  # the victims, else the queue or its cohort
        return dict(preemptions.victims(walk, workload, cq)) or {"cohort": cq.cohort or None}
    shortfalls = walk.fit.shortfalls() if walk.fit is not None else []
    if verdict != Verdict.WAITING_FOR_QUOTA or cq is None or not shortfalls or not cq.cohort:
        return {}
    said = (headline.get("flavor"), headline.get("resource"))
    first = next((s for s in shortfalls if (s.flavor, s.resource) == said), shortfalls[0])
    return dict(preemptions.borrowed(walk, cq, first.flavor, first.resource))


def _workers(walk: Walk, workload: Workload) -> dict[str, Value | None]:
    """MultiKueue's worker clusters for a Workload with a MultiKueue admission check: the one that admitted
    it (status.clusterName), else the ones it was nominated to (status.nominatedClusterNames): a step and the
    headline's parameters (apis/kueue/v1beta2/workload_types.go:697-708; set by
    pkg/controller/admissionchecks/multikueue/workload.go:880-917,1305-1310)."""
    if not (workload.cluster_name or workload.nominated_clusters) or multikueue_check(walk.snapshot, workload) is None:
        return {}
    if workload.cluster_name:
        walk.step(
            "admission-checks", Outcome.INFO, "admission-checks.multikueue-worker", {"worker": workload.cluster_name}
        )
        return {"worker": workload.cluster_name}
    said: dict[str, Value | None] = {
        "nominated": ", ".join(workload.nominated_clusters),
        "nominated_count": len(workload.nominated_clusters),
    }
    walk.step("admission-checks", Outcome.INFO, "admission-checks.multikueue-nominated", said)
    return said


def _unknown_params(condition: Condition) -> dict[str, Value | None]:
    return {
        "kind": f"{condition.type}={condition.status}",
        "reason": condition.reason,
        "message": condition.message.strip() or None,
    }
