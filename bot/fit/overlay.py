"""A snapshot with one job not yet created, and the Workload Kueue would make of it, added (or none: a job
Kueue would not manage, or whose Workload it could not create). Everything else reads through to the cluster."""

from __future__ import annotations

from collections.abc import Sequence

from bot.trace.forwarding import Forwarding
from bot.trace.model import (
    JOB_UID_LABEL,
    Event,
    Job,
    PendingEntry,
    Workload,
)
from bot.trace.snapshot import Snapshot, in_queue_order, queue_order_key, waits_in_queue


class WithJob(Forwarding):
    """`base` with `job` (and its `workload`, and `events` about the job) added. The job replaces any job of the
    same kind and name in its namespace: the dry run is about the one in the file."""

    def __init__(self, base: Snapshot, job: Job, workload: Workload | None, events: Sequence[Event] = ()) -> None:
        self._base = base
        self._job = job
        self._workload = workload
        self._events = tuple(events)
        self._namespace = job.meta.namespace or ""
        self._memos: dict[object, object] = {}  # its own: its queues hold one Workload more
        self._in_cq: dict[str, Sequence[Workload]] = {}
        self._pending: dict[str, tuple[Workload, ...]] = {}

    def _ours(self, workload: Workload) -> bool:
        new = self._workload
        return new is not None and (workload.namespace, workload.name) == (new.namespace, new.name)

    def _with(self, namespace: str, workloads: Sequence[Workload], wanted: bool = True) -> Sequence[Workload]:
        new = self._workload
        if new is None or namespace != new.namespace or not wanted:
            return workloads
        return [*(w for w in workloads if not self._ours(w)), new]

    def _same_job(self, other: Job) -> bool:
        return other.meta.kind == self._job.meta.kind and other.meta.name == self._job.meta.name

    def jobs_named(self, namespace: str, name: str) -> Sequence[Job]:
        found = self._base.jobs_named(namespace, name)
        if (namespace, name) != (self._namespace, self._job.meta.name):
            return found
        return [*(j for j in found if not self._same_job(j)), self._job]

    def jobs_in(self, namespace: str) -> Sequence[Job]:
        found = self._base.jobs_in(namespace)
        if namespace != self._namespace:
            return found
        return [*(j for j in found if not self._same_job(j)), self._job]

    def workload(self, namespace: str, name: str) -> Workload | None:
        new = self._workload
        if new is not None and (namespace, name) == (new.namespace, new.name):
            return new
        return self._base.workload(namespace, name)

    def workloads_in(self, namespace: str) -> Sequence[Workload]:
        return self._with(namespace, self._base.workloads_in(namespace))

    def workloads_for_job_uid(self, namespace: str, uid: str) -> Sequence[Workload]:
        new = self._workload
        wanted = new is not None and new.meta.labels.get(JOB_UID_LABEL) == uid
        return self._with(namespace, self._base.workloads_for_job_uid(namespace, uid), wanted)

    def workloads_of_owner(self, namespace: str, name: str) -> Sequence[Workload]:
        new = self._workload
        wanted = new is not None and any(owner.name == name for owner in new.meta.owners)
        return self._with(namespace, self._base.workloads_of_owner(namespace, name), wanted)

    def _cluster_queue_of(self, workload: Workload) -> str:
        local_queue = self._base.local_queue(workload.namespace, workload.queue_name)
        return local_queue.cluster_queue if local_queue is not None else ""

    def workloads_in_cluster_queue(self, cluster_queue: str) -> Sequence[Workload]:
        known = self._in_cq.get(cluster_queue)
        if known is None:
            found = self._base.workloads_in_cluster_queue(cluster_queue)
            new = self._workload
            if new is not None and self._cluster_queue_of(new) == cluster_queue:
                found = [*found, new]
            known = self._in_cq[cluster_queue] = found
        return known

    def sequences_token(self) -> object | None:
        return None

    def memos(self) -> dict[object, object]:
        return self._memos

    def events_about(self, namespace: str, kind: str, name: str) -> Sequence[Event]:
        found = self._base.events_about(namespace, kind, name)
        if (namespace, kind, name) == (self._namespace, self._job.meta.kind, self._job.meta.name):
            return list(self._events)  # the job in the file is new: the old one's events are not its own
        return found

    def events_in(self, namespace: str) -> Sequence[Event]:
        found = self._base.events_in(namespace)
        return [*found, *self._events] if namespace == self._namespace and self._events else found

    def pending_entry(self, namespace: str, name: str) -> PendingEntry | None:
        new = self._workload
        if new is not None and (namespace, name) == (new.namespace, new.name):
            return None  # not yet in the pending-workloads API's answers: its place is computed
        return self._base.pending_entry(namespace, name)

    def pending_in(self, cluster_queue: str) -> Sequence[Workload]:
        known = self._pending.get(cluster_queue)
        if known is None:
            waiting = list(self._base.pending_in(cluster_queue))
            new = self._workload
            local_queue = self._base.local_queue(new.namespace, new.queue_name) if new is not None else None
            if (
                new is not None
                and local_queue is not None
                and local_queue.cluster_queue == cluster_queue
                and in_queue_order(local_queue)
                and waits_in_queue(new)
            ):
                waiting = [w for w in waiting if not self._ours(w)]
                waiting.append(new)
                waiting.sort(key=queue_order_key)
            known = self._pending[cluster_queue] = tuple(waiting)
        return known

    def position_in(self, cluster_queue: str, workload: Workload) -> tuple[int, int] | None:
        if self._workload is None:
            return self._base.position_in(cluster_queue, workload)
        order = self.pending_in(cluster_queue)
        key = (workload.namespace, workload.name)
        in_local = 0
        for index, other in enumerate(order):
            if (other.namespace, other.name) == key:
                return index, in_local
            if (other.namespace, other.queue_name) == (workload.namespace, workload.queue_name):
                in_local += 1
        return None
