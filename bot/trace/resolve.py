"""Job -> Workload, for every integration Kueue has (FACTS §2.4), most reliable way first:
the prebuilt-workload name, the job-uid label, owner references, a pod group's label, the naming rule,
the job's CreatedWorkload event; and through the owner chain for child objects (a Job of a JobSet)."""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.trace.model import (
    POD_GROUP_LABEL,
    PREBUILT_WORKLOAD_LABEL,
    Job,
    Pod,
    Workload,
)
from bot.trace.snapshot import Snapshot

# Every kind Kueue integrates, with the API group its Workload name hash uses (FACTS §2.2).
JOB_KIND_GROUPS: dict[str, str] = {
    "Job": "batch",
    "JobSet": "jobset.x-k8s.io",
    "RayJob": "ray.io",
    "RayCluster": "ray.io",
    "RayService": "ray.io",
    "PyTorchJob": "kubeflow.org",
    "TFJob": "kubeflow.org",
    "PaddleJob": "kubeflow.org",
    "XGBoostJob": "kubeflow.org",
    "JAXJob": "kubeflow.org",
    "MPIJob": "kubeflow.org",
    "TrainJob": "trainer.kubeflow.org",
    "AppWrapper": "workload.codeflare.dev",
    "SparkApplication": "sparkoperator.k8s.io",
    "StatefulSet": "apps",
    "Deployment": "apps",
    "LeaderWorkerSet": "leaderworkerset.x-k8s.io",
    "Pod": "",
}
WORKLOAD_KIND = "Workload"
_BY_LOWER = {kind.lower(): kind for kind in [*JOB_KIND_GROUPS, WORKLOAD_KIND]}
_ALIASES = {
    "jobs": "Job",
    "po": "Pod",
    "pods": "Pod",
    "deploy": "Deployment",
    "sts": "StatefulSet",
    "lws": "LeaderWorkerSet",
    "wl": WORKLOAD_KIND,
    "kwl": WORKLOAD_KIND,
    "kueueworkload": WORKLOAD_KIND,
    "kueueworkloads": WORKLOAD_KIND,
    "rayjobs": "RayJob",
    "mpijobs": "MPIJob",
    "pytorchjobs": "PyTorchJob",
    "tfjobs": "TFJob",
    "jobsets": "JobSet",
    "trainjobs": "TrainJob",
    "appwrappers": "AppWrapper",
}
_MAX_OWNER_DEPTH = 10  # Kueue's own limit (JobNestingTooDeep)
_CREATED = re.compile(r"Created Workload: ([^/\s]+)/(\S+)")


def canonical_kind(text: str | None) -> str | None:
    """ "job", "Jobs", "jobs.batch", "rayjob.ray.io", "kwl" -> "Job", "Job", "Job", "RayJob", "Workload".
    None for an unknown kind."""
    if not text:
        return None
    base = text.strip().split(".", 1)[0].lower()
    if base in _BY_LOWER:
        return _BY_LOWER[base]
    if base in _ALIASES:
        return _ALIASES[base]
    if base.endswith("s") and base[:-1] in _BY_LOWER:
        return _BY_LOWER[base[:-1]]
    return None


def workload_name(kind: str, group: str, name: str, uid: str, extra: str = "", max_length: int = 253) -> str:
    """Kueue's Workload name for a job (pkg/controller/jobframework/workload_names.go, FACTS §2.1)."""
    parts = [kind, group, name, uid] + ([extra] if extra else [])
    digest = hashlib.sha1("\n".join(parts).encode(), usedforsecurity=False).hexdigest()[:5]
    prefix = f"{kind.lower()}-{name}"[: max_length - 6]
    return f"{prefix}-{digest}"


@dataclass(frozen=True)
class Resolution:
    job: Job | None
    workload: Workload | None
    how: str = ""  # prebuilt | job-uid-label | owner-reference | pod-group | name | event | parent:<how> | workload
    managed_through: Job | None = None  # the Kueue-managed parent of a child object
    siblings: tuple[Workload, ...] = ()  # other Workloads of the same job (LeaderWorkerSet groups, old slices)


def _pick(workloads: Sequence[Workload]) -> tuple[Workload | None, tuple[Workload, ...]]:
    """Prefer a Workload that is not finished, then the newest."""
    if not workloads:
        return None, ()
    ordered = sorted(
        workloads, key=lambda w: (w.finished, -(w.meta.created.timestamp() if w.meta.created else 0.0), w.name)
    )
    return ordered[0], tuple(ordered[1:])


_Found = tuple[Workload, str, tuple[Workload, ...]]


def _by_prebuilt(snapshot: Snapshot, job: Job, namespace: str) -> _Found | None:
    prebuilt = job.meta.labels.get(PREBUILT_WORKLOAD_LABEL) or job.meta.annotations.get(PREBUILT_WORKLOAD_LABEL)
    found = snapshot.workload(namespace, prebuilt) if prebuilt else None
    return (found, "prebuilt", ()) if found is not None else None


def _by_uid(snapshot: Snapshot, job: Job, namespace: str) -> _Found | None:
    if not job.meta.uid:
        return None
    chosen, others = _pick(snapshot.workloads_for_job_uid(namespace, job.meta.uid))
    if chosen is not None:
        return chosen, "job-uid-label", others
    # An owner reference carries the owner's name and uid: the index by name, then the uid.
    owned = [
        w
        for w in snapshot.workloads_of_owner(namespace, job.meta.name)
        if any(o.uid == job.meta.uid for o in w.meta.owners)
    ]
    chosen, others = _pick(owned)
    return (chosen, "owner-reference", others) if chosen is not None else None


def _by_pod_group(snapshot: Snapshot, job: Job, namespace: str) -> _Found | None:
    group_name = job.meta.labels.get(POD_GROUP_LABEL) if job.meta.kind == "Pod" else None
    found = snapshot.workload(namespace, group_name) if group_name else None
    return (found, "pod-group", ()) if found is not None else None


def deployment_pods(snapshot: Snapshot, deployment: Job) -> list[Pod]:
    """The pods of a Deployment: owned by one of its ReplicaSets, named <deployment>-<pod-template-hash>."""
    prefix = f"{deployment.meta.name}-"
    return [
        pod
        for pod in snapshot.pods_in(deployment.meta.namespace or "")
        if any(
            owner.kind == "ReplicaSet"
            and owner.name.startswith(prefix)
            and owner.name[len(prefix) :] == pod.meta.labels.get("pod-template-hash", "")
            for owner in pod.meta.owners
        )
    ]


def _by_deployment_pods(snapshot: Snapshot, job: Job, namespace: str) -> _Found | None:
    """A Deployment has no Workload of its own: each of its pods has one (jobs/deployment/deployment_webhook.go:
    93-106, the pod template is labelled for the pod integration). The one that waits answers for the
    Deployment, the others are its siblings."""
    if job.meta.kind != "Deployment":
        return None
    found: dict[str, Workload] = {}
    for pod in deployment_pods(snapshot, job):
        for workload in snapshot.workloads_for_job_uid(namespace, pod.meta.uid) if pod.meta.uid else ():
            found[workload.name] = workload
        for workload in snapshot.workloads_of_owner(namespace, pod.meta.name):
            if any(o.uid == pod.meta.uid for o in workload.meta.owners):
                found[workload.name] = workload
    if not found:
        return None
    ordered = sorted(
        found.values(),
        key=lambda w: (w.finished, w.admitted, -(w.meta.created.timestamp() if w.meta.created else 0.0), w.name),
    )
    return ordered[0], "deployment-pods", tuple(ordered[1:])


def _by_name(snapshot: Snapshot, job: Job, namespace: str) -> _Found | None:
    kind = job.meta.kind
    if kind not in JOB_KIND_GROUPS or not job.meta.uid:
        return None
    group = job.meta.group if job.meta.api_version else JOB_KIND_GROUPS[kind]
    for max_length in (253, 63):
        found = snapshot.workload(namespace, workload_name(kind, group, job.meta.name, job.meta.uid, "", max_length))
        if found is not None:
            return found, "name", ()
    return None


def _by_event(snapshot: Snapshot, job: Job, namespace: str) -> _Found | None:
    for event in reversed(snapshot.events_about(namespace, job.meta.kind, job.meta.name)):
        match = _CREATED.search(event.message) if event.reason == "CreatedWorkload" else None
        if match and match.group(1) == namespace:
            found = snapshot.workload(namespace, match.group(2))
            if found is not None:
                return found, "event", ()
    return None


_FINDERS = (_by_prebuilt, _by_uid, _by_pod_group, _by_deployment_pods, _by_name, _by_event)


def _workload_of(snapshot: Snapshot, job: Job) -> tuple[Workload | None, str, tuple[Workload, ...]]:
    """A job's Workload, found the first way that works (Kueue's own links first, its event last)."""
    namespace = job.meta.namespace or ""
    for finder in _FINDERS:
        found = finder(snapshot, job, namespace)
        if found is not None:
            return found
    return None, "", ()


def _parent(snapshot: Snapshot, job: Job) -> Job | None:
    namespace = job.meta.namespace or ""
    for owner in job.meta.owners:
        if owner.controller or len(job.meta.owners) == 1:
            for candidate in snapshot.jobs_named(namespace, owner.name):
                if candidate.meta.kind == owner.kind and (not owner.uid or candidate.meta.uid == owner.uid):
                    return candidate
    return None


def resolve(snapshot: Snapshot, namespace: str, name: str, kind: str | None) -> Resolution:
    """Find the job and its Workload. `kind` None means any kind (a batch Job preferred)."""
    if kind == WORKLOAD_KIND:
        found = snapshot.workload(namespace, name)
        return Resolution(None, found, "workload" if found else "")
    candidates = [j for j in snapshot.jobs_named(namespace, name) if kind is None or j.meta.kind == kind]
    candidates.sort(key=lambda j: (j.meta.kind != "Job", j.meta.kind == "Pod", j.meta.kind))
    for job in candidates:
        workload, how, siblings = _workload_of(snapshot, job)
        if workload is not None:
            return Resolution(job, workload, how, siblings=siblings)
        current, depth = job, 0
        while depth < _MAX_OWNER_DEPTH:
            parent = _parent(snapshot, current)
            if parent is None:
                break
            workload, how, siblings = _workload_of(snapshot, parent)
            if workload is not None:
                return Resolution(job, workload, f"parent:{how}", managed_through=parent, siblings=siblings)
            current, depth = parent, depth + 1
    if candidates:
        return Resolution(candidates[0], None)
    if kind in (None, "Pod"):
        group = _pod_group_named(snapshot, namespace, name)
        if group is not None:
            return group
    # The job itself is not in the snapshot; a Workload may still name it as its owner.
    owned = [
        w
        for w in snapshot.workloads_of_owner(namespace, name)
        if any(o.name == name and (kind is None or o.kind == kind) for o in w.meta.owners)
    ]
    chosen, others = _pick(owned)
    return Resolution(None, chosen, "owner-name" if chosen else "", siblings=others)


def _pod_group_named(snapshot: Snapshot, namespace: str, name: str) -> Resolution | None:
    """A question about a pod group by its name (kueue.x-k8s.io/pod-group-name): its Workload bears that
    name (jobs/pod/pod_controller.go:1127-1199); one of its pods stands for the group."""
    members = sorted(
        (j for j in snapshot.jobs_in(namespace) if j.meta.kind == "Pod" and j.meta.labels.get(POD_GROUP_LABEL) == name),
        key=lambda j: j.meta.name,
    )
    if not members:
        return None
    found = snapshot.workload(namespace, name)
    return Resolution(members[0], found, "pod-group" if found is not None else "")


def similar_jobs(snapshot: Snapshot, namespace: str, name: str, kind: str | None) -> list[str]:
    """Names close to `name` in the namespace, for "did you mean"."""
    names = sorted(
        {
            j.meta.name
            for j in snapshot.jobs_in(namespace)
            if kind == j.meta.kind or (kind is None and not is_part_of_a_job(j))
        }
    )
    return difflib.get_close_matches(name, names, n=3, cutoff=0.6)


def is_part_of_a_job(job: Job) -> bool:
    """A Pod that something owns (a Job's, a JobSet's pods): not offered as a job of its own."""
    return job.meta.kind == "Pod" and bool(job.meta.owners)


def other_namespaces(snapshot: Snapshot, namespace: str, name: str, kind: str | None) -> list[str]:
    """Namespaces where a job of that name exists."""
    found = set()
    for ns in snapshot.namespaces():
        other = ns.meta.name
        if other != namespace and any(kind is None or j.meta.kind == kind for j in snapshot.jobs_named(other, name)):
            found.add(other)
    return sorted(found)


def known_namespaces(snapshot: Snapshot) -> list[str]:
    """Namespaces the view knows of: Namespace objects, and every namespace with a LocalQueue."""
    names = {ns.meta.name for ns in snapshot.namespaces()}
    for cq in snapshot.cluster_queues():
        names.update(lq.meta.namespace or "" for lq in snapshot.local_queues_of(cq.name))
    names.discard("")
    return sorted(names)
