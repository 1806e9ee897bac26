"""Who is using the GPUs (or any resource, in any flavor, in any ClusterQueue), cluster-wide. Pure.

    subject = resolve(snapshot, ["gpus", "a100"])       # words -> resource / flavor / ClusterQueue, or Unknown
    usage = who_uses(snapshot, subject, now=now)         # the admitted Workloads holding it, grouped

The admitted Workloads (holding quota, not finished) that use the resource, grouped by ClusterQueue and then
namespace, with the amounts from their admissions (what Kueue counts against the quota) and, per
ClusterQueue, its nominal quota of that resource in the flavors asked about. Who may see which names is
decided above (bot.service); this lists everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from bot.forecast.history import main_resource
from bot.trace.holdings import reserved_at
from bot.trace.model import ClusterQueue, Workload, job_name
from bot.trace.snapshot import Snapshot

ZERO = Decimal(0)
MAX_WORDS = 3
_ALIASES = {
    "gpu": "gpu", "gpus": "gpu", "accelerator": "gpu", "accelerators": "gpu", "accelerateur": "gpu",
    "accelerateurs": "gpu", "accélérateur": "gpu", "accélérateurs": "gpu", "cpu": "cpu", "cpus": "cpu",
    "cores": "cpu", "coeurs": "cpu", "cœurs": "cpu", "memory": "memory", "mem": "memory", "ram": "memory",
    "memoire": "memory", "mémoire": "memory", "pods": "pods",
}  # fmt: skip


@dataclass(frozen=True)
class Subject:
    resource: str  # e.g. nvidia.com/gpu
    flavor: str = ""  # "": every flavor
    cluster_queue: str = ""  # "": every ClusterQueue


@dataclass(frozen=True)
class Unknown:
    """A word that names no resource, flavor or ClusterQueue of the cluster."""

    word: str
    known: tuple[str, ...]  # a few that do, to suggest


@dataclass(frozen=True)
class Holder:
    namespace: str
    name: str  # the Workload's owner (the job), else the Workload
    amount: Decimal
    running_seconds: int | None


@dataclass(frozen=True)
class NamespaceUse:
    namespace: str
    amount: Decimal
    holders: tuple[Holder, ...]  # largest first


@dataclass(frozen=True)
class QueueUse:
    cluster_queue: str
    cohort: str
    used: Decimal
    nominal: Decimal | None  # in the flavors asked about; None: no quota of the resource there
    namespaces: tuple[NamespaceUse, ...]  # largest first


@dataclass(frozen=True)
class Usage:
    subject: Subject
    queues: tuple[QueueUse, ...]  # largest first

    @property
    def total(self) -> Decimal:
        return sum((q.used for q in self.queues), ZERO)

    @property
    def count(self) -> int:
        return sum(len(n.holders) for q in self.queues for n in q.namespaces)

    def namespaces(self) -> set[str]:
        return {n.namespace for q in self.queues for n in q.namespaces}


def resources_of(snapshot: Snapshot) -> list[str]:
    """Every resource some ClusterQueue has quota for, sorted."""
    return sorted({r for cq in snapshot.cluster_queues() for group in cq.resource_groups for r in group.covered})


def flavors_of(snapshot: Snapshot) -> list[str]:
    return sorted({f.name for cq in snapshot.cluster_queues() for group in cq.resource_groups for f in group.flavors})


def _resource(word: str, resources: Sequence[str]) -> str | None:
    if word in resources:
        return word
    alias = _ALIASES.get(word)
    if alias is None:
        return None
    if alias in ("cpu", "memory", "pods"):
        return alias
    matching = [r for r in resources if alias in r.lower()]
    return sorted(matching, key=lambda r: (not r.startswith("nvidia.com/"), r))[0] if matching else None


def resolve(snapshot: Snapshot, words: Iterable[str]) -> Subject | Unknown:
    """The resource, flavor and ClusterQueue some words name (each word one of them; the resource by its
    name, "nvidia.com/gpu", or a common word, "gpus", "cpu", "memory"). Without a resource: the cluster's
    accelerator (the first non-cpu/memory resource with quota), else cpu."""
    resources = resources_of(snapshot)
    flavors = flavors_of(snapshot)
    queues = sorted(cq.name for cq in snapshot.cluster_queues())
    resource = flavor = cluster_queue = ""
    for word in list(words)[:MAX_WORDS]:
        found = _resource(word, resources)
        if found is not None:
            resource = found
        elif word in flavors:
            flavor = word
        elif word in queues:
            cluster_queue = word
        else:
            return Unknown(word, tuple([*resources[:4], *flavors[:3], *queues[:3]]))
    if not resource:
        covered = [r for r in resources if not flavor or _flavor_covers(snapshot, flavor, r)]
        resource = main_resource(covered or resources)
    return Subject(resource, flavor, cluster_queue)


def _flavor_covers(snapshot: Snapshot, flavor: str, resource: str) -> bool:
    return any(
        resource in group.covered and any(f.name == flavor for f in group.flavors)
        for cq in snapshot.cluster_queues()
        for group in cq.resource_groups
    )


def _nominal(cq: ClusterQueue, subject: Subject) -> Decimal | None:
    found: Decimal | None = None
    for group in cq.resource_groups:
        for flavor in group.flavors:
            quota = flavor.quota(subject.resource)
            if quota is not None and (not subject.flavor or flavor.name == subject.flavor):
                found = (found or ZERO) + quota.nominal
    return found


def _amount(workload: Workload, subject: Subject) -> Decimal:
    if workload.admission is None:
        return ZERO
    used = ZERO
    for assignment in workload.admission.assignments:
        flavor = assignment.flavors.get(subject.resource)
        if flavor is not None and (not subject.flavor or flavor == subject.flavor):
            used += assignment.usage.get(subject.resource, ZERO)
    return used


def who_uses(snapshot: Snapshot, subject: Subject, *, now: datetime) -> Usage:
    queues: list[QueueUse] = []
    for cq in sorted(snapshot.cluster_queues(), key=lambda c: c.name):
        if subject.cluster_queue and cq.name != subject.cluster_queue:
            continue
        by_namespace: dict[str, list[Holder]] = {}
        for workload in snapshot.workloads_in_cluster_queue(cq.name):
            if not workload.holds_quota or workload.finished or workload.admission is None:
                continue
            if workload.admission.cluster_queue != cq.name:
                continue
            amount = _amount(workload, subject)
            if amount <= 0:
                continue
            since = reserved_at(workload)  # a quota reserved, not admitted yet (admission checks): not running
            running = max(0, int((now - since).total_seconds())) if since is not None and workload.admitted else None
            by_namespace.setdefault(workload.namespace, []).append(
                Holder(workload.namespace, job_name(workload), amount, running)
            )
        nominal = _nominal(cq, subject)
        if not by_namespace and (nominal is None or subject.cluster_queue != cq.name):
            continue
        namespaces = [
            NamespaceUse(
                ns, sum((h.amount for h in holders), ZERO), tuple(sorted(holders, key=lambda h: (-h.amount, h.name)))
            )
            for ns, holders in by_namespace.items()
        ]
        namespaces.sort(key=lambda n: (-n.amount, n.namespace))
        queues.append(
            QueueUse(cq.name, cq.cohort, sum((n.amount for n in namespaces), ZERO), nominal, tuple(namespaces))
        )
    queues.sort(key=lambda q: (-q.used, q.cluster_queue))
    return Usage(subject, tuple(queues))
