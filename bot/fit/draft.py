"""The Workload Kueue would create for a job not yet created (FACTS §2.3): its pod sets and counts, its queue
(the label; the LocalQueue `default` of the namespace when the job names none: LocalQueueDefaulting), its
priority (the WorkloadPriorityClass of kueue.x-k8s.io/priority-class, else the pods' PriorityClass), its
minimum count (kueue.x-k8s.io/job-min-parallelism: partial admission), created `now` so that it sorts last
among equals. Pure."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from bot.trace import blockers
from bot.trace.model import (
    ADMISSION_GATED_BY,
    JOB_UID_LABEL,
    MAX_EXEC_TIME_LABEL,
    POD_GROUP_LABEL,
    POD_GROUP_TOTAL_COUNT,
    PRIORITY_CLASS_LABEL,
    QUEUE_NAME_LABEL,
    Event,
    Job,
    Meta,
    OwnerRef,
    PodSet,
    Workload,
)
from bot.trace.resolve import JOB_KIND_GROUPS, workload_name
from bot.trace.snapshot import Snapshot

MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
DRY_RUN_UID = "00000000-0000-4000-8000-00000000f17e"  # the job has no UID yet: one that no object has
DEFAULT_QUEUE = "default"
KUEUE_API = "kueue.x-k8s.io/v1beta2"


@dataclass(frozen=True)
class Draft:
    """A job as the user would apply it: the decoded object and the pod sets Kueue would make of it."""

    job: Job
    pod_sets: tuple[PodSet, ...]
    per_pod: bool = False  # a Deployment: each of its pods gets a Workload of its own (this is one of them)
    replicas: int = 1


@dataclass(frozen=True)
class Built:
    """What Kueue would make of a draft: the job as created (its namespace and UID set, suspended by Kueue's
    webhook when it manages it), its Workload (None when it would make none) and the events it would emit."""

    job: Job
    workload: Workload | None
    events: tuple[Event, ...] = ()
    defaulted_queue: bool = False  # the queue is the namespace's `default` LocalQueue (the job names none)
    priority_unknown: str = ""  # a Kubernetes PriorityClass the snapshot does not hold (counted as 0)


def placed(draft: Draft, namespace: str) -> Job:
    """The job in `namespace` (the file's own, else the one given), with a UID."""
    meta = draft.job.meta
    return replace(draft.job, meta=replace(meta, namespace=meta.namespace or namespace, uid=meta.uid or DRY_RUN_UID))


def queue_of(snapshot: Snapshot, job: Job) -> tuple[str, bool]:
    """The LocalQueue Kueue would put the job's Workload in ("" when it would not manage the job), and whether
    the webhook defaulted it."""
    namespace = job.meta.namespace or ""
    if blockers.queue_by_annotation_only(job):
        if blockers.kueue_api_version(snapshot, namespace) == blockers.V1BETA2:
            return "", False  # v0.15+ reads the label only
        return job.queue_name, False
    named = job.meta.labels.get(QUEUE_NAME_LABEL, "").strip()
    if named:
        return named, False
    if job.meta.kind == "Pod" and not job.meta.labels.get(POD_GROUP_LABEL):
        return "", False  # a plain Pod is managed by its label only
    if snapshot.local_queue(namespace, DEFAULT_QUEUE) is not None:
        return DEFAULT_QUEUE, True
    return "", False


def _priority(snapshot: Snapshot, job: Job, pod_sets: tuple[PodSet, ...]) -> tuple[int, str, str, bool]:
    """(priority, class name, a Kubernetes PriorityClass not known, whether the WorkloadPriorityClass is missing)."""
    named = job.meta.labels.get(PRIORITY_CLASS_LABEL, "").strip()
    if named:
        found = snapshot.priority_class(named)
        return (found.value, named, "", False) if found is not None else (0, named, "", True)
    for pod_set in pod_sets[:1]:
        name = pod_set.template.priority_class_name
        if name:
            found = snapshot.priority_class(name)
            return (found.value, name, "", False) if found is not None else (0, name, name, False)
    return 0, "", "", False


def _with_min_count(job: Job, pod_sets: tuple[PodSet, ...]) -> tuple[PodSet, ...]:
    text = job.meta.annotations.get(MIN_PARALLELISM, "").strip()
    if job.meta.kind != "Job" or not text.isdigit() or not pod_sets:
        return pod_sets
    return (replace(pod_sets[0], min_count=min(int(text), pod_sets[0].count)), *pod_sets[1:])


def _pod_group_count(job: Job, pod_sets: tuple[PodSet, ...]) -> tuple[PodSet, ...]:
    """A Pod of a group stands for the whole group: kueue.x-k8s.io/pod-group-total-count pods like it."""
    total = job.meta.annotations.get(POD_GROUP_TOTAL_COUNT, "").strip()
    if job.meta.kind != "Pod" or not job.meta.labels.get(POD_GROUP_LABEL) or not total.isdigit() or not pod_sets:
        return pod_sets
    return (replace(pod_sets[0], count=max(1, int(total))),)


def _workload_name(job: Job) -> str:
    group_name = job.meta.labels.get(POD_GROUP_LABEL)
    if job.meta.kind == "Pod" and group_name:
        return group_name
    group = JOB_KIND_GROUPS.get(job.meta.kind, job.meta.group)
    return workload_name(job.meta.kind, group, job.meta.name, job.meta.uid)


def _max_exec(job: Job) -> int | None:
    text = job.meta.labels.get(MAX_EXEC_TIME_LABEL, "").strip()
    return int(text) if text.isdigit() else None


def _missing_class(job: Job, name: str, now: datetime) -> Event:
    return Event(
        namespace=job.meta.namespace or "",
        involved_kind=job.meta.kind,
        involved_name=job.meta.name,
        involved_uid=job.meta.uid,
        reason="WorkloadPriorityClassNotFound",
        message=f'WorkloadPriorityClass "{name}" not found',
        type="Warning",
        last_seen=now,
    )


def build(snapshot: Snapshot, draft: Draft, *, namespace: str, now: datetime) -> Built:
    """The job as created in `namespace` at `now`, and the Workload Kueue would create for it."""
    job = placed(draft, namespace)
    queue, defaulted = queue_of(snapshot, job)
    if not queue:
        return Built(job, None)
    job = replace(job, suspended=True)
    pod_sets = _with_min_count(job, _pod_group_count(job, draft.pod_sets))
    priority, class_name, unknown, missing = _priority(snapshot, job, pod_sets)
    if missing:
        return Built(job, None, (_missing_class(job, class_name, now),), defaulted)
    annotations = {k: v for k, v in job.meta.annotations.items() if k == ADMISSION_GATED_BY}
    meta = Meta(
        kind="Workload",
        name=_workload_name(job),
        namespace=job.meta.namespace,
        api_version=KUEUE_API,
        uid=DRY_RUN_UID,
        created=now,
        labels={JOB_UID_LABEL: job.meta.uid},
        annotations=annotations,
        owners=(OwnerRef(job.meta.api_version, job.meta.kind, job.meta.name, job.meta.uid, controller=True),),
    )
    workload = Workload(
        meta=meta,
        queue_name=queue,
        pod_sets=pod_sets,
        priority=priority,
        priority_class=class_name,
        maximum_execution_seconds=_max_exec(job),
    )
    return Built(job, workload, (), defaulted, unknown)
