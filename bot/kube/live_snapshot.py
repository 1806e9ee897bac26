"""The snapshot of a live read (`bot.kube.live`): its Workloads decoded only when the answer reads them.

A one-shot `explain` lists every Workload of the cluster, but its answer reads a few: the asked job's, those of
the ClusterQueues its trace looks at, and (when Kueue's waitForPodsReady holds it back) those holding quota.
Decoding them all would cost more than reading them. So the listed Workloads are kept as the API server sent
them, grouped by what the snapshot's reads select them by, read from the raw JSON the way the decoder reads it
(`bot.kube.decode`): their namespace, their spec.queueName, their status.admission.clusterQueue. A read decodes
its group once (shared parts: `bot.kube.compact.Interner`) and keeps the objects, so every read hands out the
same objects, in the order of the LIST, as `MemorySnapshot` over every decoded object would: the answer is the
same, the groups are only a way to find which Workloads it needs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from bot.kube.compact import Interner
from bot.kube.decode import read_or_unreadable
from bot.kube.decode_limits import MAX_NAME
from bot.trace.forwarding import Forwarding
from bot.trace.model import JOB_UID_LABEL, LocalQueue, PendingEntry, Workload
from bot.trace.snapshot import MemorySnapshot
from bot.trace.unreadable import Unreadable

Raw = Mapping[str, Any]


def _text(value: object) -> str:
    """A raw value as the decoder reads a string field (absent: "", anything else: its str)."""
    if type(value) is str:
        return value
    return "" if value is None else str(value)


def _map(value: object) -> Raw:
    return value if isinstance(value, Mapping) else {}


def _namespace(raw: Raw) -> str:
    namespace = _map(raw.get("metadata")).get("namespace")
    return namespace if isinstance(namespace, str) else ""


class ListedWorkloads:
    """The Workloads of a LIST, raw, each decoded once when first read. `notes` says each one that could not
    be read (for the reader of the answer). `text_checked`: their strings are known to be Unicode text."""

    def __init__(self, raws: Sequence[Raw], *, text_checked: bool = False) -> None:
        self._raws = raws
        self._text_checked = text_checked
        self._decoded: dict[int, list[object]] = {}
        self._parts = Interner()
        self.notes: list[str] = []
        self._by_namespace: dict[str, list[int]] = defaultdict(list)
        self._by_queue: dict[tuple[str, str], list[int]] = defaultdict(list)
        self._by_admission: dict[str, list[int]] = defaultdict(list)
        self._unusual: list[int] = []  # a namespace its unreadable record would name otherwise (cut, replaced)
        self._namespace_keys: dict[str, dict[tuple[str, str], list[int]]] = {}
        for index, raw in enumerate(raws):
            namespace = _namespace(raw)
            self._by_namespace[namespace].append(index)
            self._by_queue[(namespace, _text(_map(raw.get("spec")).get("queueName")))].append(index)
            admission = _map(raw.get("status")).get("admission")
            if isinstance(admission, Mapping):
                self._by_admission[_text(admission.get("clusterQueue"))].append(index)
            if len(namespace) > MAX_NAME or not namespace.isprintable():
                self._unusual.append(index)

    def decoded(self, indexes: Iterable[int]) -> list[object]:
        """The objects of these Workloads (a Workload or its Unreadable record), in the LIST's order."""
        found: list[object] = []
        for index in sorted(set(indexes)):
            objects = self._decoded.get(index)
            if objects is None:
                objects = self._decoded[index] = read_or_unreadable(
                    self._raws[index], self._parts, text_checked=self._text_checked
                )
                for item in objects:
                    if isinstance(item, Unreadable):
                        self.notes.append(f"could not read {item.kind} {item.namespace}/{item.name}: {item.reason}")
            found.extend(objects)
        return found

    @property
    def decoded_count(self) -> int:
        return len(self._decoded)

    def workloads(self, indexes: Iterable[int]) -> list[Workload]:
        return [item for item in self.decoded(indexes) if isinstance(item, Workload)]

    def in_namespace(self, namespace: str) -> list[int]:
        return self._by_namespace.get(namespace, [])

    def unusual(self) -> list[int]:
        return self._unusual

    def in_queue(self, namespace: str, queue: str) -> list[int]:
        return self._by_queue.get((namespace, queue), [])

    def admitted_to(self, cluster_queue: str) -> list[int]:
        return self._by_admission.get(cluster_queue, [])

    def every(self) -> range:
        return range(len(self._raws))

    def keyed(self, namespace: str, how: str, key: str) -> list[int]:
        """The namespace's Workloads by name ("name"), job-uid label ("uid") or owner name ("owner")."""
        keys = self._namespace_keys.get(namespace)
        if keys is None:
            keys = self._namespace_keys[namespace] = self._keys(namespace)
        return keys.get((how, key), [])

    def _keys(self, namespace: str) -> dict[tuple[str, str], list[int]]:
        keys: dict[tuple[str, str], list[int]] = defaultdict(list)
        for index in self.in_namespace(namespace):
            metadata = _map(self._raws[index].get("metadata"))
            keys[("name", _text(metadata.get("name")))].append(index)
            keys[("uid", _text(_map(metadata.get("labels")).get(JOB_UID_LABEL)))].append(index)
            owners = metadata.get("ownerReferences")
            owners = owners if isinstance(owners, list) else ()
            for owner in dict.fromkeys(_text(_map(o).get("name")) for o in owners):
                keys[("owner", owner)].append(index)
        return keys

    def reserving(self) -> list[int]:
        """Those with a QuotaReserved condition that is True (what waitForPodsReady may wait on is among them)."""
        return [index for index, raw in enumerate(self._raws) if _reserves(raw)]


def _reserves(raw: Raw) -> bool:
    conditions = _map(raw.get("status")).get("conditions")
    return isinstance(conditions, list) and any(
        _text(_map(c).get("type")) == "QuotaReserved" and _text(_map(c).get("status")) == "True" for c in conditions
    )


class LiveSnapshot(Forwarding):
    """A Snapshot over the objects read before the Workloads (`earlier`), the listed Workloads and those read
    after them (`later`): what MemorySnapshot over all of them, in that order, would answer."""

    def __init__(
        self,
        earlier: Sequence[object],
        workloads: ListedWorkloads,
        later: Sequence[object],
        *,
        taken_at: datetime | None = None,
        read_scope: str | None = None,
    ) -> None:
        self._base = MemorySnapshot([*earlier, *later], taken_at=taken_at, read_scope=read_scope)
        self._earlier, self._later = earlier, later
        self._listed = workloads
        self._earlier_unreadable = [item for item in earlier if isinstance(item, Unreadable)]
        self._later_unreadable = [item for item in later if isinstance(item, Unreadable)]
        self._queues: dict[str, MemorySnapshot] = {}
        self._memos: dict[object, object] = {}
        self._namespaces: dict[str, list[Workload]] = {}
        self._not_ready: Sequence[Workload] | None = None

    def adding(self, later: Sequence[object]) -> LiveSnapshot:
        """This snapshot and more objects read after the Workloads; what it found of them is kept."""
        taken_at, read_scope = self._base.taken_at, self._base.read_scope
        snapshot = LiveSnapshot(
            self._earlier, self._listed, [*self._later, *later], taken_at=taken_at, read_scope=read_scope
        )
        snapshot._queues, snapshot._namespaces = self._queues, self._namespaces
        return snapshot

    def workload(self, namespace: str, name: str) -> Workload | None:
        found = [w for w in self._listed.workloads(self._listed.keyed(namespace, "name", name)) if w.name == name]
        return found[-1] if found else None

    def workloads_in(self, namespace: str) -> Sequence[Workload]:
        found = self._namespaces.get(namespace)
        if found is None:
            every = self._listed.workloads(self._listed.in_namespace(namespace))
            found = self._namespaces[namespace] = [w for w in every if w.namespace == namespace]
        return found

    def workloads_for_job_uid(self, namespace: str, uid: str) -> Sequence[Workload]:
        found = self._listed.workloads(self._listed.keyed(namespace, "uid", uid)) if uid else []
        return [w for w in found if w.meta.labels.get(JOB_UID_LABEL) == uid]

    def workloads_of_owner(self, namespace: str, name: str) -> Sequence[Workload]:
        found = self._listed.workloads(self._listed.keyed(namespace, "owner", name))
        return [w for w in found if any(o.name == name for o in w.meta.owners)]

    def unreadable_in(self, namespace: str) -> Sequence[Unreadable]:
        listed = self._listed.decoded([*self._listed.in_namespace(namespace), *self._listed.unusual()])
        return [
            item
            for item in (*self._earlier_unreadable, *listed, *self._later_unreadable)
            if isinstance(item, Unreadable) and item.namespace == namespace
        ]

    def sequences_token(self) -> object | None:
        return self  # immutable: the same sequence for a ClusterQueue each time (made once, when first asked)

    def _queue(self, cluster_queue: str) -> MemorySnapshot:
        """The ClusterQueue's LocalQueues and every Workload that names one of them or is admitted to it: its
        order and its Workloads are those of the whole snapshot."""
        found = self._queues.get(cluster_queue)
        if found is None:
            local_queues: Sequence[LocalQueue] = self._base.local_queues_of(cluster_queue)
            indexes = [*self._listed.admitted_to(cluster_queue)]
            for local_queue in local_queues:
                indexes.extend(self._listed.in_queue(local_queue.meta.namespace or "", local_queue.name))
            found = MemorySnapshot([*local_queues, *self._listed.workloads(indexes)])
            self._queues[cluster_queue] = found
        return found

    def workloads_in_cluster_queue(self, cluster_queue: str) -> Sequence[Workload]:
        return self._queue(cluster_queue).workloads_in_cluster_queue(cluster_queue)

    def pending_in(self, cluster_queue: str) -> Sequence[Workload]:
        return self._queue(cluster_queue).pending_in(cluster_queue)

    def position_in(self, cluster_queue: str, workload: Workload) -> tuple[int, int] | None:
        return self._queue(cluster_queue).position_in(cluster_queue, workload)

    def workloads_not_ready(self) -> Sequence[Workload]:
        if self._not_ready is None:
            self._not_ready = MemorySnapshot(self._listed.workloads(self._listed.reserving())).workloads_not_ready()
        return self._not_ready

    def pending_entry(self, namespace: str, name: str) -> PendingEntry | None:
        return self._base.pending_entry(namespace, name)

    def memos(self) -> dict[object, object]:
        return self._memos  # the snapshot never changes
