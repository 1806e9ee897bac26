"""A snapshot that reads through to another: the base of the views that change a few things of a cluster (a job
added before it is submitted, a Workload changed to see whether it would fit) and read the rest as it is."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.trace.model import (
    AdmissionCheck,
    ClusterQueue,
    Cohort,
    Event,
    Job,
    LocalQueue,
    Namespace,
    Node,
    Pod,
    PriorityClass,
    ProvisioningConfig,
    ProvisioningRequest,
    ResourceFlavor,
    Workload,
)
from bot.trace.snapshot import Snapshot
from bot.trace.unreadable import Unreadable


class Forwarding:
    """Every read of `_base`, as it is; a subclass sets `_base` and overrides what it changes."""

    _base: Snapshot

    @property
    def taken_at(self) -> datetime | None:
        return self._base.taken_at

    @property
    def read_scope(self) -> str | None:
        return self._base.read_scope

    def unreadable_in(self, namespace: str) -> Sequence[Unreadable]:
        return self._base.unreadable_in(namespace)

    def local_queue(self, namespace: str, name: str) -> LocalQueue | None:
        return self._base.local_queue(namespace, name)

    def local_queues_in(self, namespace: str) -> Sequence[LocalQueue]:
        return self._base.local_queues_in(namespace)

    def local_queues_of(self, cluster_queue: str) -> Sequence[LocalQueue]:
        return self._base.local_queues_of(cluster_queue)

    def cluster_queue(self, name: str) -> ClusterQueue | None:
        return self._base.cluster_queue(name)

    def cluster_queues(self) -> Sequence[ClusterQueue]:
        return self._base.cluster_queues()

    def flavor(self, name: str) -> ResourceFlavor | None:
        return self._base.flavor(name)

    def cohort(self, name: str) -> Cohort | None:
        return self._base.cohort(name)

    def cohorts(self) -> Sequence[Cohort]:
        return self._base.cohorts()

    def admission_check(self, name: str) -> AdmissionCheck | None:
        return self._base.admission_check(name)

    def provisioning_config(self, name: str) -> ProvisioningConfig | None:
        return self._base.provisioning_config(name)

    def provisioning_requests_in(self, namespace: str) -> Sequence[ProvisioningRequest]:
        return self._base.provisioning_requests_in(namespace)

    def priority_class(self, name: str) -> PriorityClass | None:
        return self._base.priority_class(name)

    def namespace(self, name: str) -> Namespace | None:
        return self._base.namespace(name)

    def namespaces(self) -> Sequence[Namespace]:
        return self._base.namespaces()

    def pods_in(self, namespace: str) -> Sequence[Pod]:
        return self._base.pods_in(namespace)

    def nodes(self) -> Sequence[Node]:
        return self._base.nodes()

    def workloads_not_ready(self) -> Sequence[Workload]:
        return self._base.workloads_not_ready()

    def jobs_named(self, namespace: str, name: str) -> Sequence[Job]:
        return self._base.jobs_named(namespace, name)

    def jobs_in(self, namespace: str) -> Sequence[Job]:
        return self._base.jobs_in(namespace)

    def events_about(self, namespace: str, kind: str, name: str) -> Sequence[Event]:
        return self._base.events_about(namespace, kind, name)

    def events_in(self, namespace: str) -> Sequence[Event]:
        return self._base.events_in(namespace)
