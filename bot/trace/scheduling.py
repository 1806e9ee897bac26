"""The hand-over to the kube-scheduler: once Kueue admitted a Workload, where its pods are.

An admitted job's pods may still wait for a node: gated (by Kueue itself for topology, or by someone else),
unschedulable (the scheduler's event says why), or just not looked at yet. This module reads the pods, their
events and the nodes the assigned flavors send them to.
"""

from __future__ import annotations

from bot.trace.codes import Outcome, Verdict
from bot.trace.explanation import Params
from bot.trace.model import Job, Pod, Workload
from bot.trace.walk import Walk

KUEUE_GATES = ("kueue.x-k8s.io/admission", "kueue.x-k8s.io/topology")
_SCHEDULING_REASONS = ("FailedScheduling", "NotTriggerScaleUp", "FailedCreate")


def admitted(walk: Walk, workload: Workload, job: Job | None) -> tuple[Verdict, Params]:
    """The verdict and headline parameters of an admitted Workload: running, or pods that wait for a node."""
    cq = workload.admission.cluster_queue if workload.admission else walk.cluster_queue_name
    walk.step("cluster-queue", Outcome.PASS, "cluster-queue.admitted", {"cluster_queue": cq})
    if job is None:
        return Verdict.RUNNING, {"cluster_queue": cq}
    pods = pods_of(walk, job, workload)
    waiting = [pod for pod in pods if pod.phase == "Pending" and not pod.node_name]
    walk.step(
        "scheduling",
        Outcome.PASS if not waiting else Outcome.FAIL,
        "scheduling.pods",
        {"total": len(pods), "running": sum(1 for p in pods if p.phase == "Running"), "pending": len(waiting)},
    )
    if not waiting:
        return Verdict.RUNNING, {"cluster_queue": cq}
    first_reason = _waiting_pod_steps(walk, waiting)
    _flavor_node_steps(walk, workload)
    walk.act("check-scheduler", {"namespace": job.meta.namespace or "", "pod": waiting[0].meta.name})
    walk.act("ask-admin-nodes")
    return Verdict.PODS_PENDING, {"pending": len(waiting), "reason": first_reason}


def _waiting_pod_steps(walk: Walk, waiting: list[Pod]) -> str:
    """A step for each of the first waiting pods; returns the first reason found."""
    first_reason = ""
    for pod in waiting[:3]:
        gates = [gate for gate in pod.template.scheduling_gates if gate]
        if gates:
            walk.step(
                "scheduling",
                Outcome.FAIL,
                "scheduling.gated",
                {"pod": pod.meta.name, "gates": ", ".join(gates)},
                kueue_gate=any(g in KUEUE_GATES for g in gates),
            )
            first_reason = first_reason or ", ".join(gates)
            continue
        message = scheduling_message(walk, pod)
        if message:
            walk.step("scheduling", Outcome.FAIL, "scheduling.failed", {"pod": pod.meta.name, "message": message})
            first_reason = first_reason or message
        else:
            walk.step("scheduling", Outcome.INFO, "scheduling.waiting", {"pod": pod.meta.name})
    return first_reason


def _flavor_node_steps(walk: Walk, workload: Workload) -> None:
    """Which nodes each assigned flavor sends the pods to, and how many such nodes are known."""
    flavors = sorted(
        {f for a in (workload.admission.assignments if workload.admission else ()) for f in a.flavors.values()}
    )
    nodes = walk.snapshot.nodes()
    for flavor_name in flavors:
        flavor = walk.snapshot.flavor(flavor_name)
        if flavor is None or not flavor.node_labels:
            continue
        labels = ", ".join(f"{k}={v}" for k, v in sorted(flavor.node_labels.items()))
        matching = [n for n in nodes if all(n.meta.labels.get(k) == v for k, v in flavor.node_labels.items())]
        walk.step(
            "scheduling",
            Outcome.INFO,
            "scheduling.flavor-nodes",
            {"flavor": flavor_name, "labels": labels, "nodes": len(matching)},
            known_nodes=len(nodes),
        )


def scheduling_message(walk: Walk, pod: Pod) -> str:
    """The scheduler's last word about a pod: its last event, else its PodScheduled=False message."""
    events = [
        e
        for e in walk.snapshot.events_about(pod.meta.namespace or "", "Pod", pod.meta.name)
        if e.reason in _SCHEDULING_REASONS
    ]
    if events:
        return events[-1].message
    scheduled = pod.condition("PodScheduled")
    if scheduled is not None and scheduled.is_false and scheduled.message:
        return scheduled.message
    return ""


def _owned_uids(walk: Walk, job: Job) -> set[str]:
    """The job's UID and those of its children, and of their children (a JobSet's Jobs, a RayJob's RayCluster)."""
    owners = {job.meta.uid} if job.meta.uid else set()
    jobs = walk.snapshot.jobs_in(job.meta.namespace or "")
    changed = True
    while changed:
        changed = False
        for child in jobs:
            if child.meta.uid and child.meta.uid not in owners and any(o.uid in owners for o in child.meta.owners):
                owners.add(child.meta.uid)
                changed = True
    return owners


def pods_of(walk: Walk, job: Job, workload: Workload) -> list[Pod]:
    """The pods of a job: owned by it (or its children), of its pod group, or labelled with its name."""
    owners = _owned_uids(walk, job)
    pods = []
    for pod in walk.snapshot.pods_in(job.meta.namespace or ""):
        labels = pod.meta.labels
        if (
            (job.meta.kind == "Pod" and pod.meta.uid == job.meta.uid)
            or any(o.uid in owners for o in pod.meta.owners)
            or labels.get("kueue.x-k8s.io/pod-group-name") == workload.name
            or (job.meta.kind == "Job" and labels.get("batch.kubernetes.io/job-name") == job.meta.name)
        ):
            pods.append(pod)
    return pods
