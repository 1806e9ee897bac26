"""Plain pods in a group (label kueue.x-k8s.io/pod-group-name, annotation kueue.x-k8s.io/pod-group-total-count)
and Deployments, whose pods each get a Workload of their own.

A pod group's Workload is named after the group and made only once the group has as many runnable pods as its
total count says (pkg/controller/jobs/pod/pod_controller.go:843-890, validatePodGroupMetadata: "'%s' group has
fewer runnable pods than expected", event ErrWorkloadCompose), unless the pods ask for fast admission
(annotation kueue.x-k8s.io/pod-group-fast-admission). Pods beyond the total count are deleted
(:1149-1156, removeExcessPods, event ExcessPodDeleted); pods that disagree on the queue name or the total count
stop the group (:866-889). A pod is runnable unless it failed, or is being deleted without a node (:905-912).

Pure: reads the snapshot only.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.trace.codes import Outcome
from bot.trace.explanation import Params, Value
from bot.trace.model import POD_GROUP_LABEL, POD_GROUP_TOTAL_COUNT, QUEUE_NAME_LABEL, Job, Pod, Workload
from bot.trace.walk import Walk

FAST_ADMISSION = "kueue.x-k8s.io/pod-group-fast-admission"


@dataclass(frozen=True)
class PodGroup:
    name: str
    total: int | None  # the pods' kueue.x-k8s.io/pod-group-total-count (None: missing or not a number)
    runnable: tuple[str, ...]  # names of the pods that count
    failed: tuple[str, ...]
    queues: tuple[str, ...]  # the distinct queue names the runnable pods give
    totals: tuple[str, ...]  # the distinct total counts they give
    fast_admission: bool

    @property
    def missing(self) -> int:
        return max(0, self.total - len(self.runnable)) if self.total is not None else 0

    @property
    def excess(self) -> int:
        return max(0, len(self.runnable) - self.total) if self.total is not None else 0


def _runnable(pod: Pod) -> bool:
    if pod.meta.deleting and not pod.node_name:
        return False
    return pod.phase != "Failed"


def _count(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 6 else None


def group_of(walk: Walk, job: Job) -> PodGroup | None:
    """The pod group a Pod belongs to, as Kueue counts it; None for a pod outside any group."""
    if job.meta.kind != "Pod":
        return None
    name = job.meta.labels.get(POD_GROUP_LABEL, "")
    if not name:
        return None
    members = [
        pod for pod in walk.snapshot.pods_in(job.meta.namespace or "") if pod.meta.labels.get(POD_GROUP_LABEL) == name
    ]
    runnable = [pod for pod in members if _runnable(pod)]
    totals = tuple(dict.fromkeys(pod.meta.annotations.get(POD_GROUP_TOTAL_COUNT, "").strip() for pod in runnable))
    queues = tuple(
        dict.fromkeys(
            pod.meta.labels.get(QUEUE_NAME_LABEL) or pod.meta.annotations.get(QUEUE_NAME_LABEL, "") for pod in runnable
        )
    )
    own_total = _count(job.meta.annotations.get(POD_GROUP_TOTAL_COUNT, ""))
    return PodGroup(
        name=name,
        total=own_total,
        runnable=tuple(sorted(pod.meta.name for pod in runnable)),
        failed=tuple(sorted(pod.meta.name for pod in members if not _runnable(pod))),
        queues=queues,
        totals=totals,
        fast_admission=job.meta.annotations.get(FAST_ADMISSION, "").strip().lower() == "true",
    )


def _base(group: PodGroup) -> Params:
    return {"group": group.name, "present": len(group.runnable), "total": group.total, "label": POD_GROUP_LABEL}


def composition_step(walk: Walk, group: PodGroup) -> None:
    """How many pods the group has against its total count; the extra ones Kueue deletes."""
    params = {**_base(group), "annotation": POD_GROUP_TOTAL_COUNT}
    if group.total is None:
        walk.step("workload", Outcome.FAIL, "workload.pod-group-no-total", params)
        return
    outcome = Outcome.PASS if group.missing == 0 else Outcome.FAIL
    walk.step("workload", outcome, "workload.pod-group", params, present=len(group.runnable), total=group.total)
    if group.failed:
        walk.step("workload", Outcome.INFO, "workload.pod-group-failed", {"pods": ", ".join(group.failed[:5])})
    if group.excess:
        walk.step("workload", Outcome.INFO, "workload.pod-group-excess", {"excess": group.excess, "total": group.total})


def missing_workload(walk: Walk, job: Job, group: PodGroup) -> dict[str, Value | None]:
    """A pod of a group without its Workload: what Kueue waits for. Returns the headline's parameters."""
    composition_step(walk, group)
    headline: dict[str, Value | None] = {"group": group.name}
    if len(group.totals) > 1 or len(group.queues) > 1:
        detail = ", ".join(value or "-" for value in group.totals) if len(group.totals) > 1 else ""
        queues = ", ".join(value or "-" for value in group.queues) if len(group.queues) > 1 else ""
        walk.step("workload", Outcome.FAIL, "workload.pod-group-mismatch", {"totals": detail, "queues": queues})
        walk.act("align-group-pods", {"group": group.name, "annotation": POD_GROUP_TOTAL_COUNT})
        return headline
    if group.total is None:
        walk.act("set-group-total", {"annotation": POD_GROUP_TOTAL_COUNT, "group": group.name})
        return headline
    if group.missing and not group.fast_admission:
        headline.update(present=len(group.runnable), total=group.total)
        walk.act(
            "add-group-pods",
            {
                "missing": group.missing,
                "group": group.name,
                "total": group.total,
                "label": POD_GROUP_LABEL,
                "annotation": POD_GROUP_TOTAL_COUNT,
            },
            missing=group.missing,
        )
    return headline


# --- Deployments: a Workload per pod ------------------------------------------------------------------


def per_pod_step(walk: Walk, kind: str, workloads: list[Workload]) -> None:
    """One answer for a Deployment: how its pods' Workloads stand."""
    admitted = sum(1 for w in workloads if w.admitted)
    finished = sum(1 for w in workloads if w.finished)
    pending = len(workloads) - admitted - finished
    params: Params = {"kind": kind, "count": len(workloads), "admitted": admitted, "pending": pending}
    walk.step("workload", Outcome.INFO, "workload.per-pod", params, count=len(workloads), admitted=admitted)
