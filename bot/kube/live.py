"""A snapshot read from a live cluster for one question (the CLI's `explain` without --from-file).

Read-only GET and LIST of what the trace needs: the Kueue objects (cluster-wide when allowed, the asked
namespace otherwise), the job, its namespace's pods and events, the nodes when allowed, and the
pending-workloads API for the Workload's queue (the LocalQueue endpoint first: namespace-scoped users may
read it). What the identity may not read is left out and said; what the question cannot do without
(Kueue's API, the job's kind) raises a clear error. The Workloads are kept as listed and decoded when the answer
reads them (`bot.kube.live_snapshot`): an answer reads a few ClusterQueues' worth of a cluster's Workloads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot import pacing
from bot.errors import Forbidden, NotServed
from bot.kube import kinds
from bot.kube.client import KubeClient, NotFound, load_api_client
from bot.kube.decode import read_or_unreadable
from bot.kube.live_snapshot import ListedWorkloads, LiveSnapshot
from bot.kube.reads import Reads
from bot.trace.resolve import resolve
from bot.trace.snapshot import Snapshot
from bot.trace.unreadable import Unreadable

log = logging.getLogger(__name__)


@dataclass
class LiveRead:
    snapshot: Snapshot
    kueue_version: str
    notes: list[str] = field(default_factory=list)  # what could not be read, for the reader
    requests: int = 0


class _Reader:
    def __init__(self, client: KubeClient, namespace: str, kueue_version: str | None = None) -> None:
        self.client = client
        self.namespace = namespace
        self.raw: list[dict[str, Any]] = []
        self.workloads: list[dict[str, Any]] = []  # kept raw: decoded when the answer reads them (LiveSnapshot)
        self.workloads_at: int | None = None  # how many objects of `raw` were read before the Workloads
        self.notes: list[str] = []
        self.scope: str | None = None  # the namespace Workloads or LocalQueues were read in, when not all
        self.reads = Reads(client)
        version = kueue_version or self.reads.version(kinds.KUEUE_GROUP, kinds.KUEUE_VERSIONS)
        if version is None:
            raise NotServed("this cluster does not serve Kueue's API (kueue.x-k8s.io): is Kueue installed?")
        self.kueue_version = version

    def apart(self) -> _Reader:
        """A reader of its own for one read made beside the others (merged back in order: `take`)."""
        return _Reader(self.client, self.namespace, self.kueue_version)

    def take(self, part: _Reader) -> None:
        if part.workloads and self.workloads_at is None:
            self.workloads_at = len(self.raw)
        self.workloads.extend(part.workloads)
        self.raw.extend(part.raw)
        self.notes.extend(part.notes)
        self.scope = self.scope or part.scope

    def _keep(self, items: Iterable[dict[str, Any]], into: list[dict[str, Any]] | None = None) -> None:
        (self.raw if into is None else into).extend(items)

    def kueue(self, kind: str, *, namespaced_fallback: bool = False, optional: bool = False) -> None:
        resource = kinds.KUEUE[kind]
        what = f"{resource.plural}.{resource.group}"
        into = self.workloads if kind == "Workload" else self.raw
        try:
            self._keep(self.client.list(resource.path(self.kueue_version), what=what), into)
            return
        except NotFound:
            if optional:
                return
            raise
        except Forbidden:
            if not namespaced_fallback:
                if optional:
                    self.notes.append(f"not allowed to list {what}")
                    return
                raise
        self.scope = self.namespace
        try:
            self._keep(self.client.list(resource.path(self.kueue_version, self.namespace), what=what), into)
            self.notes.append(f"{what} read in namespace {self.namespace} only (not allowed cluster-wide)")
        except Forbidden:
            self.notes.append(f"not allowed to list {what} in namespace {self.namespace}")

    def optional(self, path: str, what: str) -> None:
        try:
            self._keep(self.client.list(path, what=what))
        except (Forbidden, NotFound) as error:
            self.notes.append(f"{what} not read: {error}")

    def provisioning(self) -> None:
        """ProvisioningRequestConfigs and the namespace's ProvisioningRequests (the first version served)."""
        config = kinds.PROVISIONING_CONFIG
        self.optional(config.path(self.kueue_version), f"{config.plural}.{config.group}")
        request = kinds.PROVISIONING_REQUEST
        for version in request.versions:
            try:
                self._keep(self.client.list(request.path(version, self.namespace), what=request.plural))
                return
            except NotFound:
                continue
            except Forbidden as error:
                self.notes.append(f"{request.plural} not read: {error}")
                return

    def job(self, name: str, kind: str | None) -> None:
        self.raw.extend(self.reads.job(self.namespace, name, kind))

    def pending_summary(self, namespace: str, local_queue: str, cluster_queue: str) -> None:
        summary, notes = self.reads.pending_summary(namespace, local_queue, cluster_queue)
        self.notes.extend(notes)
        if summary is not None:
            self.raw.append(summary)

    def namespace_object(self) -> None:
        core = kinds.CORE
        try:
            self.raw.append(self.client.get(core["Namespace"].path("v1", name=self.namespace), what="the namespace"))
        except (Forbidden, NotFound) as error:
            self.notes.append(f"namespace {self.namespace} not read: {error}")

    def decoded(self, start: int = 0, stop: int | None = None) -> list[object]:
        """The objects read (the raw ones from `start` to `stop`), decoded; what cannot be is said."""
        objects: list[object] = []
        for raw in self.raw[start:stop]:
            decoded = read_or_unreadable(raw)
            for item in decoded:
                if isinstance(item, Unreadable):
                    self.notes.append(f"could not read {item.kind} {item.namespace}/{item.name}: {item.reason}")
            objects.extend(decoded)
        return objects


def read_live(
    client: KubeClient, namespace: str, name: str, kind: str | None, *, taken_at: datetime | None = None
) -> LiveRead:
    """Read what explaining `namespace/name` needs: one LIST per kind, each made beside the others (they are
    independent), then the pending-workloads summary of its queue. Raises ClusterUnavailable, Forbidden,
    NotServed (the first in the order below, as one read after the other would)."""
    with pacing.full_collections_wait():  # what is read stays alive until the answer: nothing to collect
        return _read_live(client, namespace, name, kind, taken_at)


def _read_live(client: KubeClient, namespace: str, name: str, kind: str | None, taken_at: datetime | None) -> LiveRead:
    reader = _Reader(client, namespace)
    core = kinds.CORE
    reads: list[Callable[[_Reader], None]] = [
        lambda r: r.kueue("ClusterQueue"),
        *(_optional_kueue(each) for each in ("ResourceFlavor", "AdmissionCheck", "WorkloadPriorityClass", "Cohort")),
        lambda r: r.kueue("LocalQueue", namespaced_fallback=True),
        lambda r: r.kueue("Workload", namespaced_fallback=True),
        *([] if kind == "Workload" else [lambda r: r.job(name, kind)]),
        lambda r: r.optional(core["Pod"].path("v1", namespace), "pods"),
        lambda r: r.optional(core["Event"].path("v1", namespace), "events"),
        lambda r: r.optional(core["Node"].path("v1"), "nodes"),
        _Reader.namespace_object,
    ]
    parts = [reader.apart() for _ in reads]
    lenient = client.lenient_answers
    with ThreadPoolExecutor(max_workers=len(reads), thread_name_prefix="kueue-bot-read") as pool:
        for _ in pool.map(lambda read, part: read(part), reads, parts):
            pass  # the first failure, in order, is raised here
    *lists, namespace_read = parts
    for part in lists:
        reader.take(part)
    if any(
        raw.get("kind") == "AdmissionCheck"
        and (raw.get("spec") or {}).get("controllerName") == "kueue.x-k8s.io/provisioning-request"
        for raw in reader.raw
    ):
        reader.provisioning()
    reader.take(namespace_read)
    split = len(reader.raw) if reader.workloads_at is None else reader.workloads_at
    earlier, later = reader.decoded(0, split), reader.decoded(split)
    # orjson read every answer of the LISTs: their strings are Unicode text (no lone surrogate to look for)
    listed = ListedWorkloads(reader.workloads, text_checked=client.lenient_answers == lenient)
    snapshot = LiveSnapshot(earlier, listed, later, taken_at=taken_at, read_scope=reader.scope)
    found = resolve(snapshot, namespace, name, kind)
    workload = found.workload
    if workload is not None and workload.queue_name and not workload.is_true("QuotaReserved") and not workload.finished:
        local_queue = snapshot.local_queue(namespace, workload.queue_name)
        cluster_queue = local_queue.cluster_queue if local_queue else ""
        if local_queue is not None:
            read = len(reader.raw)
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kueue-bot-read") as pool:
                asked = pool.submit(reader.pending_summary, namespace, workload.queue_name, cluster_queue)
                if snapshot.cluster_queue(cluster_queue) is not None:
                    snapshot.pending_in(cluster_queue)  # the answer's queue order, decoded while the API answers
                asked.result()
            snapshot = snapshot.adding(reader.decoded(read))
    notes = [*reader.notes, *listed.notes]
    for note in notes:
        log.info("live read: partial", extra={"note": note})
    return LiveRead(snapshot, reader.kueue_version, notes, client.requests)


def _optional_kueue(kind: str) -> Callable[[_Reader], None]:
    return lambda r: r.kueue(kind, optional=True)


def read_live_snapshot(
    namespace: str,
    name: str,
    kind: str | None,
    *,
    kubeconfig: str | None = None,
    context: str | None = None,
    taken_at: datetime | None = None,
) -> LiveRead:
    """Connect with the kubeconfig (or in-cluster config) and read."""
    api_client = load_api_client(kubeconfig, context)
    try:
        return read_live(KubeClient(api_client), namespace, name, kind, taken_at=taken_at)
    finally:
        api_client.close()  # type: ignore[no-untyped-call]
