"""The Explanation a walk ends with: the verdict, its headline and what the walk wrote down."""

from __future__ import annotations

from datetime import datetime

from bot.trace.codes import Verdict
from bot.trace.demand import assigned
from bot.trace.explanation import Explanation, JobRef, Params, Text
from bot.trace.model import NOTIFY_ANNOTATION, NOTIFY_EMAIL_ANNOTATION, Job, Workload
from bot.trace.resolve import WORKLOAD_KIND
from bot.trace.walk import Walk, present


def queued_since(workload: Workload) -> datetime | None:
    """When the last wait began: the last eviction (Evicted, True or flipped back to False on re-admission),
    else the creation."""
    evicted = workload.condition("Evicted")
    if evicted is not None and evicted.since and (evicted.is_true or evicted.reason == "QuotaReserved"):
        return evicted.since
    return workload.meta.created


def _admitted_at(workload: Workload) -> datetime | None:
    admitted = workload.condition("Admitted")
    return admitted.since if admitted is not None and admitted.is_true else None


def _waiting_since(workload: Workload | None) -> datetime | None:
    if workload is None or workload.admitted or workload.finished:
        return None
    return queued_since(workload)


def _notify_owners(job: Job | None, workload: Workload | None) -> tuple[str, ...]:
    found: list[str] = []
    for meta in (job.meta if job else None, workload.meta if workload else None):
        if meta is None:
            continue
        for key in (NOTIFY_ANNOTATION, NOTIFY_EMAIL_ANNOTATION):
            value = meta.annotations.get(key, "").strip()
            if value and value not in found:
                found.append(value)
    return tuple(found)


def _kind(walk: Walk, workload: Workload | None, job: Job | None) -> str:
    kind = job.meta.kind if job is not None else (walk.query.kind or "Job")
    if kind == WORKLOAD_KIND and workload is not None:
        owner = next((o for o in workload.meta.owners if o.controller), None) or next(iter(workload.meta.owners), None)
        kind = owner.kind if owner is not None else WORKLOAD_KIND
    return kind


def result(
    walk: Walk, verdict: Verdict, headline: Params, *, workload: Workload | None = None, job: Job | None = None
) -> Explanation:
    query = walk.query
    return Explanation(
        job=JobRef(_kind(walk, workload, job), query.namespace, query.name),
        workload=(workload.namespace, workload.name) if workload else None,
        verdict=verdict,
        headline=Text(f"headline.{verdict.value}", present({"job": walk.job_label, **headline})),
        steps=tuple(walk.steps),
        actions=tuple(walk.actions),
        demand=walk.demand,
        assigned=assigned(workload) if workload is not None and workload.admission is not None else None,
        position=walk.position,
        local_queue=workload.queue_name if workload else (job.queue_name if job else ""),
        cluster_queue=walk.cluster_queue_name,
        waiting_since=_waiting_since(workload),
        queued_since=queued_since(workload) if workload is not None else None,
        admitted_at=_admitted_at(workload) if workload is not None else None,
        snapshot_taken_at=walk.snapshot.taken_at,
        owners=_notify_owners(job, workload),
        suggestions=walk.suggestions,
        other_namespaces=walk.other_namespaces,
    )
