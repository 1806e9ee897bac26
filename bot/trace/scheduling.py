"""The hand-over to the kube-scheduler: once Kueue admitted a Workload, where its pods are.

An admitted job's pods may still wait for a node: gated (by Kueue itself for topology, or by someone else),
unschedulable (the scheduler's event says why), or just not looked at yet. This module reads the pods, their
events and the nodes the assigned flavors send them to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.trace import nodecapacity, rootcause
from bot.trace.codes import Outcome, Verdict
from bot.trace.explanation import Params
from bot.trace.model import Job, Pod, Workload
from bot.trace.walk import Walk

KUEUE_GATES = ("kueue.x-k8s.io/admission", "kueue.x-k8s.io/topology")
_SCHEDULING_REASONS = ("FailedScheduling", "NotTriggerScaleUp", "FailedCreate")
_PODS_EXAMINED = 3  # the first waiting pods are looked at one by one (the on-demand reads fetch their events)

# The kube-scheduler's summary of a failed scheduling attempt (kubernetes pkg/scheduler/framework/types.go,
# FitError.Error: "0/%v nodes are available: %v." with the reasons "N <reason>" sorted and joined by ", ";
# the PostFilter (preemption) adds " preemption: 0/%v nodes are available: ..." in the same form).
_NODES = re.compile(r"(?P<fit>[0-9]{1,6})/(?P<total>[0-9]{1,6}) nodes are available(?:: (?P<reasons>.*))?", re.DOTALL)
_COUNTED = re.compile(r"(?:\A|, )(?P<count>[0-9]{1,6}) (?P<reason>.+?)(?=, [0-9]{1,6} |\Z)", re.DOTALL)
_PREEMPTION = re.compile(r"\.?\s+preemption: ")


@dataclass(frozen=True)
class NodeSummary:
    """A FailedScheduling message read into its counts: of `total` nodes, how many had each reason."""

    available: int
    total: int
    reasons: tuple[tuple[int, str], ...]  # (nodes, reason) as the scheduler counted them
    preemption: tuple[tuple[int, str], ...] = ()  # the same for the preemption attempt

    @property
    def text(self) -> str:
        """The scheduler's own summary without the preemption part: "0/5 nodes are available: 3 ..."."""
        listed = ", ".join(f"{count} {reason}" for count, reason in self.reasons)
        head = f"{self.available}/{self.total} nodes are available"
        return f"{head}: {listed}." if listed else f"{head}."


def _counted(text: str) -> tuple[tuple[int, str], ...]:
    return tuple((int(m["count"]), m["reason"].strip().rstrip(".")) for m in _COUNTED.finditer(text.strip()))


def parse_failed_scheduling(message: str) -> NodeSummary | None:
    """ "0/5 nodes are available: 3 Insufficient nvidia.com/gpu, 2 node(s) had untolerated taint {gpu: true}.
    preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling." -> the counts; None
    when the message is not the scheduler's summary (a volume binding error, an autoscaler's event)."""
    text = (message if isinstance(message, str) else "").strip()
    m = _NODES.match(text)
    if m is None:
        return None
    body = m["reasons"] or ""
    main, preemption = body, ""
    cut = _PREEMPTION.search(body)
    if cut is not None:
        main, preemption = body[: cut.start()], body[cut.end() :]
    post = _NODES.match(preemption.strip()) if preemption else None
    return NodeSummary(
        available=int(m["fit"]),
        total=int(m["total"]),
        reasons=_counted(main.strip().rstrip(".")),
        preemption=_counted((post["reasons"] or "").strip().rstrip(".")) if post is not None else (),
    )


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
        return _not_ready(walk, workload, job, pods, cq)
    first_reason = _waiting_pod_steps(walk, waiting)
    _flavor_node_steps(walk, workload)
    _excluding_label_steps(walk, waiting[0])
    short = nodecapacity.below_quota(walk, workload, first_reason)
    walk.act("check-scheduler", {"namespace": job.meta.namespace or "", "pod": waiting[0].meta.name})
    walk.act("ask-admin-nodes")
    return Verdict.PODS_PENDING, {"pending": len(waiting), "reason": first_reason, **short}


def _not_ready(walk: Walk, workload: Workload, job: Job, pods: list[Pod], cq: str) -> tuple[Verdict, Params]:
    """Admitted, every pod on a node (or none created): running, unless the pods cannot become ready (an
    image that cannot be pulled, a crashing container, a volume, a pod the API server refuses), said first
    with the fix: under waitForPodsReady Kueue evicts such a job at its timeout and a requeue fails the same
    way (rootcause)."""
    assigned = workload.admission.assignments if workload.admission else ()
    expected = sum(a.count or 0 for a in assigned) or sum(pod_set.count for pod_set in workload.pod_sets)
    found = rootcause.troubles(walk.snapshot, job, rootcause.not_ready(pods), gone=False, created=len(pods) < expected)
    found = _with_unscheduled(found, workload)
    if not found:
        return Verdict.RUNNING, {"cluster_queue": cq}
    params = rootcause.say(walk, job, found, lead=True)
    pending = sum(1 for pod in pods if pod.phase == "Pending")
    if pending or not pods:
        return Verdict.PODS_PENDING, {"pending": pending or expected, **params}
    return Verdict.RUNNING, {"cluster_queue": cq, **params}


def _with_unscheduled(found: list[rootcause.Trouble], workload: Workload) -> list[rootcause.Trouble]:
    """The pods' troubles, and Kueue's own word (v0.20) that required pods were never scheduled, in order."""
    unscheduled = rootcause.unscheduled(workload)
    if unscheduled is None or any(trouble.kind == unscheduled.kind for trouble in found):
        return found
    return sorted([*found, unscheduled], key=lambda trouble: rootcause.KINDS.index(trouble.kind))


_GIVE_WAY = frozenset({"check-pods-ready", "wait-backoff"})


def after_eviction(walk: Walk, workload: Workload, job: Job | None) -> Params:
    """A Workload Kueue evicted (or deactivated) because its pods were not ready in time: what kept them from
    being ready, from their states and events (the pods themselves are deleted on eviction), said before the
    requeue: waiting for it leads to the next eviction. The headline's parameters (`trouble`)."""
    if job is None or not rootcause.evicted_for_pods_ready(workload):
        return {}
    pods = pods_of(walk, job, workload)
    found = rootcause.troubles(walk.snapshot, job, rootcause.not_ready(pods) or pods, gone=True, created=True)
    found = _with_unscheduled(found, workload)
    if found:  # "check the image, the volumes and the events" and "wait" give way to the cause itself
        walk.actions[:] = [action for action in walk.actions if action.code not in _GIVE_WAY]
    return rootcause.say(walk, job, found, lead=True)


def _waiting_pod_steps(walk: Walk, waiting: list[Pod]) -> str:
    """Steps for the first waiting pods: their gates, and the scheduler's messages, each distinct message
    once with the pods it is about and its counted reasons. Returns the headline's reason."""
    first_reason = ""
    said: dict[str, list[str]] = {}  # message -> pods, in the order first seen
    quiet: list[str] = []
    for pod in waiting[:_PODS_EXAMINED]:
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
            said.setdefault(message, []).append(pod.meta.name)
        else:
            quiet.append(pod.meta.name)
    for message, pods in said.items():
        summary = parse_failed_scheduling(message)
        if summary is not None and summary.reasons:
            _node_reasons_step(walk, summary, pods)
            _scheduler_advice(walk, summary)
            first_reason = first_reason or summary.text
            continue
        if len(pods) == 1:
            walk.step("scheduling", Outcome.FAIL, "scheduling.failed", {"pod": pods[0], "message": message})
        else:
            many: Params = {"count": len(pods), "pods": ", ".join(pods), "message": message}
            walk.step("scheduling", Outcome.FAIL, "scheduling.failed-pods", many)
        first_reason = first_reason or message
    for name in quiet:
        walk.step("scheduling", Outcome.INFO, "scheduling.waiting", {"pod": name})
    return first_reason


_SCHEDULER_TAINT = re.compile(r"untolerated taint\(?s?\)? \{(?P<key>[^:{}]+): ?(?P<value>[^{}]*)\}")


def _scheduler_advice(walk: Walk, summary: NodeSummary) -> None:
    """What the scheduler's counted reasons ask of the job: a toleration for the taint it names, a
    nodeSelector that some nodes match."""
    for count, reason in summary.reasons:
        taint = _SCHEDULER_TAINT.search(reason)
        if taint is not None:
            value = taint["value"].strip()
            walk.act("add-toleration", {"taint": f"{taint['key']}={value}" if value else taint["key"]})
        elif "didn't match Pod's node affinity" in reason or "didn't match node selector" in reason:
            walk.act("check-node-selector", {"nodes": count})


def _node_reasons_step(walk: Walk, summary: NodeSummary, pods: list[str]) -> None:
    """The scheduler's summary once for the pods it is about: of how many nodes, how many had each reason."""
    params: dict[str, str | int | None] = {
        "pods": ", ".join(pods),
        "count": len(pods),
        "fit": summary.available,
        "total": summary.total,
        "reasons": "; ".join(f"{count} × {reason}" for count, reason in summary.reasons),
    }
    if summary.preemption:
        params["preemption"] = "; ".join(f"{count} × {reason}" for count, reason in summary.preemption)
    walk.step(
        "scheduling",
        Outcome.FAIL,
        "scheduling.node-reasons",
        params,
        nodes=summary.total,
        reasons={reason: count for count, reason in summary.reasons},
        pods=list(pods),
    )


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


def _excluding_label_steps(walk: Walk, pod: Pod) -> None:
    """The labels of the pod's nodeSelector (its own and the assigned flavors' nodeLabels, which Kueue adds
    when it admits) that no known node has: the label that excludes every node."""
    nodes = walk.snapshot.nodes()
    if not nodes:
        return
    for key, value in sorted(pod.template.node_selector.items()):
        if not any(node.meta.labels.get(key) == value for node in nodes):
            params: Params = {"label": f"{key}={value}", "pod": pod.meta.name, "nodes": len(nodes)}
            walk.step("scheduling", Outcome.FAIL, "scheduling.label-excludes", params, label=key)


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
