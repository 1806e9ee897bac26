"""MultiKueue on a manager cluster: where a Workload is dispatched and whether its workers
are connected. Pure: the manager's snapshot, the Workload, and each MultiKueueCluster's Active condition in.

    placement(snapshot, workload, clusters)   # None: no MultiKueue admission check on it

The manager reserves quota first, then its MultiKueue admission check nominates worker clusters
(status.nominatedClusterNames, v1beta2) and, once a worker admits its copy, records that one
(status.clusterName; the nominations are cleared). Kueue's sources: apis/kueue/v1beta2/workload_types.go
(nominatedClusterNames, clusterName), pkg/controller/admissionchecks/multikueue (FACTS §8, §12).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.trace.model import Workload
from bot.trace.snapshot import Snapshot

MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"

CONNECTED = "connected"
DISCONNECTED = "disconnected"
UNKNOWN = "unknown"  # no MultiKueueCluster of that name, or its condition could not be read


@dataclass(frozen=True)
class Worker:
    name: str
    role: str  # assigned | nominated
    state: str  # connected | disconnected | unknown
    reason: str = ""
    message: str = ""


@dataclass(frozen=True)
class Placement:
    check: str  # the MultiKueue AdmissionCheck
    check_state: str  # Pending | Ready | Retry | Rejected ("" when not reported yet)
    check_message: str
    assigned: str  # status.clusterName ("" until a worker admits it)
    nominated: tuple[str, ...]
    workers: tuple[Worker, ...]


def multikueue_check(snapshot: Snapshot, workload: Workload) -> str | None:
    """The name of the Workload's MultiKueue admission check, if it has one."""
    for state in workload.checks:
        check = snapshot.admission_check(state.name)
        if check is not None and check.controller == MULTIKUEUE_CONTROLLER:
            return state.name
    cq_name = workload.admission.cluster_queue if workload.admission is not None else ""
    if not cq_name:
        local_queue = snapshot.local_queue(workload.namespace, workload.queue_name)
        cq_name = local_queue.cluster_queue if local_queue is not None else ""
    cq = snapshot.cluster_queue(cq_name) if cq_name else None
    for name, _ in cq.admission_checks if cq is not None else ():
        check = snapshot.admission_check(name)
        if check is not None and check.controller == MULTIKUEUE_CONTROLLER:
            return name
    return None


def _worker(name: str, role: str, clusters: Mapping[str, tuple[str, str, str]] | None) -> Worker:
    if clusters is None or name not in clusters:
        return Worker(name, role, UNKNOWN)
    status, reason, message = clusters[name]
    state = CONNECTED if status == "True" else DISCONNECTED if status == "False" else UNKNOWN
    return Worker(name, role, state, reason, message)


def placement(
    snapshot: Snapshot, workload: Workload, clusters: Mapping[str, tuple[str, str, str]] | None
) -> Placement | None:
    """Where MultiKueue dispatches the Workload, with each worker's connection (None: not a MultiKueue one)."""
    check = multikueue_check(snapshot, workload)
    if check is None:
        return None
    state = next((s for s in workload.checks if s.name == check), None)
    nominated = tuple(n for n in workload.nominated_clusters if n != workload.cluster_name)
    workers = []
    if workload.cluster_name:
        workers.append(_worker(workload.cluster_name, "assigned", clusters))
    workers.extend(_worker(name, "nominated", clusters) for name in nominated)
    return Placement(
        check,
        state.state if state is not None else "",
        state.message if state is not None else "",
        workload.cluster_name,
        nominated,
        tuple(workers),
    )
