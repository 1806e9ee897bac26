"""Why a job's pods never became ready, from what is already read: the kubelet's container states and events
(an image that cannot be pulled, a container that keeps crashing, a volume that cannot be mounted, a
configuration the kubelet refuses) and the job controller's FailedCreate events (a ResourceQuota, a
LimitRange or an admission webhook refusing the pods).

Kueue's waitForPodsReady evicts a Workload whose pods are not all ready within its timeout
(pkg/controller/core/workload_controller.go, reason PodsReadyTimeout), requeues it after a backoff and, past
requeuingStrategy.backoffLimitCount, deactivates it (RequeuingLimitExceeded). None of that fixes an image or
a volume: requeued as it is, the job is evicted again. So the cause is said first, with the pod and the
kubelet's own words, before the requeue.

The Job controller deletes an evicted job's pods; their events stay (an hour by default). Events of pods that
are gone are matched to the job by name: a batch Job's pods are "<job>-<suffix>" (the longest job name of the
namespace that prefixes the pod's name wins, so job "train" does not take "train-big"'s pods).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bot.trace.codes import Outcome
from bot.trace.explanation import Params, Text
from bot.trace.model import Event, Job, Pod, Workload
from bot.trace.snapshot import Snapshot
from bot.trace.walk import Walk

IMAGE_REASONS = frozenset({"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"})
CRASH_REASONS = frozenset({"CrashLoopBackOff"})
CONFIG_REASONS = frozenset({"CreateContainerConfigError", "CreateContainerError", "RunContainerError"})
MOUNT_EVENTS = frozenset({"FailedMount", "FailedAttachVolume"})
CREATE_EVENT = "FailedCreate"
# What each kind of trouble is, in the order a reader should hear it: a pod that cannot even be created first.
KINDS = ("quota", "limit-range", "webhook", "create", "unscheduled", "image", "config", "mount", "crash")
WAIT_FOR_SCHEDULING = "WaitForScheduling"
_IMAGE = re.compile(r'image "(?P<image>[^"]{1,512})"')
MAX_SAID = 3  # troubles said (one step each)


@dataclass
class Trouble:
    """One thing keeping the job's pods from being ready, with the pods it is about and its verbatim words."""

    kind: str  # one of KINDS
    reason: str  # ErrImagePull, CrashLoopBackOff, FailedMount, FailedCreate, ...
    message: str
    pods: list[str] = field(default_factory=list)
    image: str = ""
    container: str = ""
    last: str = ""  # a crashing container's last termination: "Error, exit code 1"

    @property
    def fragment(self) -> Text:
        """The trouble as a short clause of a sentence (the message is said in its own step)."""
        params: dict[str, str | int] = {"reason": self.reason}
        if self.pods:
            params["pod"] = self.pods[0]
        if len(self.pods) > 1:
            params["more"] = len(self.pods) - 1
        for name, value in (("image", self.image), ("container", self.container), ("last", self.last)):
            if value:
                params[name] = value
        return Text(f"fragment.trouble.{self.kind}", params)

    def add_pod(self, pod: str) -> None:
        if pod and pod not in self.pods:
            self.pods.append(pod)


def _create_kind(message: str) -> str:
    """A FailedCreate of the job controller: what refused the pods (the API server's admission words)."""
    lowered = message.lower()
    if "exceeded quota" in lowered:
        return "quota"
    if "limitrange" in lowered or re.search(r"(maximum|minimum) [a-z0-9./-]+ usage per", lowered):
        return "limit-range"
    if "admission webhook" in lowered:
        return "webhook"
    return "create"


def _event_kind(event: Event) -> str | None:
    """What a kubelet event about a pod says, or None when it says nothing about readiness."""
    message = event.message
    if event.reason in MOUNT_EVENTS:
        return "mount"
    if event.reason == "BackOff":
        if "pulling image" in message:
            return "image"
        return "crash" if "restarting failed container" in message else None
    if event.reason in ("Failed", "InspectFailed", "ErrImageNeverPull"):
        if "image" in message.lower():
            return "image"
        return "config" if message.startswith("Error:") else None
    return None


def _status_troubles(pod: Pod) -> list[Trouble]:
    found = []
    for container in pod.containers:
        reason = container.waiting_reason
        kind = (
            "image"
            if reason in IMAGE_REASONS
            else "crash"
            if reason in CRASH_REASONS
            else "config"
            if reason in CONFIG_REASONS
            else None
        )
        if kind is None:
            continue
        last = ""
        if container.last_reason:
            code = f", exit code {container.last_exit_code}" if container.last_exit_code is not None else ""
            last = f"{container.last_reason}{code}"
        image = container.image if kind == "image" else ""
        found.append(Trouble(kind, reason, container.message, [pod.meta.name], image, container.name, last))
    return found


def owns_pod(job_name: str, pod_name: str, jobs: Iterable[str]) -> bool:
    """Whether a pod of that name was the job's: "<job>-<suffix>", no longer job name of the namespace
    prefixing it."""
    if not pod_name.startswith(job_name + "-"):
        return False
    return not any(len(other) > len(job_name) and pod_name.startswith(other + "-") for other in jobs)


class _Found:
    """Troubles by (kind, message): one per distinct cause, the pods it is about gathered."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, str], Trouble] = {}

    def add(self, trouble: Trouble) -> None:
        same_kind = [t for (kind, _), t in self.by_key.items() if kind == trouble.kind]
        known = self.by_key.get((trouble.kind, trouble.message))
        if known is None and same_kind and not trouble.message:
            known = same_kind[0]  # a status without words: the pods of the cause already known
        if known is None and same_kind and trouble.kind in ("image", "crash") and _weaker(trouble, same_kind[0]):
            known = same_kind[0]  # "Back-off pulling image": the pull error already known says more
        if known is None:
            self.by_key[(trouble.kind, trouble.message)] = trouble
            return
        for pod in trouble.pods:
            known.add_pod(pod)
        known.image = known.image or trouble.image
        known.container = known.container or trouble.container
        known.last = known.last or trouble.last

    def ordered(self) -> list[Trouble]:
        return sorted(self.by_key.values(), key=lambda t: KINDS.index(t.kind))


def _weaker(trouble: Trouble, known: Trouble) -> bool:
    """A back-off event or state, next to the error it backs off from."""
    return trouble.reason in ("BackOff", "ImagePullBackOff", "CrashLoopBackOff") or known.reason == trouble.reason


def _pod_event(event: Event) -> Trouble | None:
    kind = _event_kind(event)
    if kind is None:
        return None
    found = _IMAGE.search(event.message) if kind == "image" else None
    reason = _EVENT_STATE.get((kind, event.reason), event.reason)
    return Trouble(kind, reason, event.message, [event.involved_name], found["image"] if found else "")


# The container state a kubelet event stands for (pkg/kubelet/images, kuberuntime: "Failed" then
# "Error: ErrImagePull"; "BackOff" "Back-off pulling image" is ImagePullBackOff; "Back-off restarting failed
# container" is CrashLoopBackOff).
_EVENT_STATE = {
    ("image", "Failed"): "ErrImagePull",
    ("image", "BackOff"): "ImagePullBackOff",
    ("crash", "BackOff"): "CrashLoopBackOff",
    ("config", "Failed"): "CreateContainerConfigError",
}


def troubles(snapshot: Snapshot, job: Job, pods: Sequence[Pod], *, gone: bool, created: bool) -> list[Trouble]:
    """What keeps the job's pods from being ready: the container states and events of `pods` (those not
    ready), with `gone` the events of its pods that no longer exist, with `created` (pods are missing) the
    job's FailedCreate events."""
    namespace = job.meta.namespace or ""
    found = _Found()
    for event in snapshot.events_about(namespace, job.meta.kind, job.meta.name) if created else ():
        if event.reason == CREATE_EVENT and event.type == "Warning":
            found.add(Trouble(_create_kind(event.message), event.reason, event.message))
    for pod in pods:
        for trouble in _status_troubles(pod):
            found.add(trouble)
        for event in snapshot.events_about(namespace, "Pod", pod.meta.name):
            said = _pod_event(event)
            if said is not None:
                found.add(said)
    if gone:
        present = {pod.meta.name for pod in pods}
        jobs = {other.meta.name for other in snapshot.jobs_in(namespace)}
        for event in snapshot.events_in(namespace):
            if event.involved_kind != "Pod" or event.involved_name in present:
                continue
            said = _pod_event(event) if owns_pod(job.meta.name, event.involved_name, jobs) else None
            if said is not None:
                found.add(said)
    return found.ordered()


def unscheduled(workload: Workload) -> Trouble | None:
    """Kueue v0.20's own word that required pods were never scheduled: PodsScheduled=False (or PodsReady=False)
    with reason WaitForScheduling ("At least one required pod is not scheduled", "2 of 3 required pods are
    scheduled"; KEP "PodsScheduled condition": WaitForScheduling is also an eviction's underlying cause,
    Evicted reason "...DueToWaitForScheduling"). The PodsScheduled message is the one that counts pods."""
    for kind in ("PodsScheduled", "PodsReady"):
        condition = workload.condition(kind)
        if condition is not None and condition.is_false and condition.reason == WAIT_FOR_SCHEDULING:
            return Trouble("unscheduled", WAIT_FOR_SCHEDULING, condition.message)
    evicted = workload.condition("Evicted")
    if evicted is not None and evicted.is_true and evicted.reason.endswith(f"DueTo{WAIT_FOR_SCHEDULING}"):
        return Trouble("unscheduled", WAIT_FOR_SCHEDULING, evicted.message)
    return None


def not_ready(pods: Sequence[Pod]) -> list[Pod]:
    """The pods that are not ready: pending, or running with a container not ready."""
    return [
        pod
        for pod in pods
        if pod.phase == "Pending" or (pod.phase == "Running" and any(not c.ready for c in pod.containers))
    ]


# --- as steps and advice --------------------------------------------------------------------------------

_ADVICE = {
    "image": "fix-image",
    "crash": "read-crash-logs",
    "config": "fix-pod-config",
    "mount": "fix-volumes",
    "quota": "ask-admin-resource-quota",
    "limit-range": "fit-limit-range",
    "webhook": "ask-webhook-owner",
    "create": "check-job-events",
    "unscheduled": "check-unscheduled",
}


def advice_params(trouble: Trouble, namespace: str, job: Job) -> Params:
    return {
        "namespace": namespace,
        "pod": trouble.pods[0] if trouble.pods else None,
        "container": trouble.container or None,
        "image": trouble.image or None,
        "kind": job.meta.kind.lower(),
        "job": job.meta.name,
    }


def evicted_for_pods_ready(workload: Workload) -> bool:
    """Whether Kueue evicted (or deactivated) the Workload because its pods were not ready in time: Evicted
    or DeactivationTarget True, or Requeued False, for PodsReadyTimeout (or the RequeuingLimitExceeded that
    many of them lead to), by its reason or, whatever a version calls it, by Kueue's message ("Exceeded the
    PodsReady timeout ns/name"; "The workload is deactivated due to exceeding the maximum number of re-queuing
    retries": v0.14 workload_controller.go:236-243,593,608)."""
    for kind, status in (("Evicted", "True"), ("DeactivationTarget", "True"), ("Requeued", "False")):
        condition = workload.condition(kind)
        if condition is None or condition.status != status:
            continue
        if _PODS_READY.search(condition.reason) or _PODS_READY_SAID.search(condition.message):
            return True
    return False


_PODS_READY = re.compile(r"PodsReadyTimeout|RequeuingLimitExceeded")
_PODS_READY_SAID = re.compile(r"Exceeded the PodsReady timeout|maximum number of re-queuing retries")


def say(walk: Walk, job: Job, found: Sequence[Trouble], *, lead: bool) -> Params:
    """One step per trouble (its pods, the kubelet's or the controller's words) and what fixes each, before
    any other advice with `lead`; the headline's `trouble` (the first one)."""
    namespace = job.meta.namespace or ""
    for trouble in found[:MAX_SAID]:
        params: Params = {"trouble": trouble.fragment, "message": trouble.message or None}
        walk.step("scheduling", Outcome.FAIL, "scheduling.pod-trouble", params, kind=trouble.kind, pods=trouble.pods)
    for trouble in found[:MAX_SAID]:
        walk.act(_ADVICE[trouble.kind], advice_params(trouble, namespace, job), lead=lead, kind=trouble.kind)
    return {"trouble": found[0].fragment} if found else {}


__all__ = [
    "Trouble",
    "advice_params",
    "evicted_for_pods_ready",
    "not_ready",
    "owns_pod",
    "say",
    "troubles",
    "unscheduled",
]
