"""Where a job named NAME lives, when the question names no namespace (`explain NAME` without `-n`).

On a live cluster: one cluster-wide LIST per job kind, with `fieldSelector=metadata.name=NAME` (read-only,
what deploy/'s ClusterRole grants); a kind the cluster does not serve is skipped, and a kind the identity may
not list cluster-wide is said. On a dump or any snapshot: the namespaces the snapshot knows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.errors import Forbidden
from bot.kube import kinds
from bot.kube.client import KubeClient, NotFound
from bot.kube.reads import Reads
from bot.trace.resolve import known_namespaces
from bot.trace.snapshot import Snapshot


@dataclass
class Found:
    """The (namespace, kind) pairs that have a job of that name, and what could not be searched."""

    matches: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _kinds(kind: str | None) -> list[str]:
    return [kind] if kind else ["Job", *[k for k in kinds.JOBS if k != "Job"]]


def in_cluster(client: KubeClient, name: str, kind: str | None) -> Found:
    """Search every namespace the identity may list, one LIST per kind. Raises ClusterUnavailable."""
    reads = Reads(client)
    found = Found()
    for job_kind in _kinds(kind):
        resource = kinds.JOBS.get(job_kind)
        if resource is None:
            continue
        version = reads.version(resource.group, resource.versions)
        if version is None:
            continue
        what = f"{resource.plural}.{resource.group or 'core'}"
        try:
            items = client.list(resource.path(version), {"fieldSelector": f"metadata.name={name}"}, what=what)
            for item in items:
                namespace = str((item.get("metadata") or {}).get("namespace") or "")
                if namespace and (namespace, job_kind) not in found.matches:
                    found.matches.append((namespace, job_kind))
        except Forbidden:
            found.notes.append(f"not allowed to list {what} in every namespace")
        except NotFound:
            continue
    return found


def in_snapshot(snapshot: Snapshot, name: str, kind: str | None) -> Found:
    """Search the namespaces a snapshot (a dump) knows: jobs of that name, else Workloads owned by that name."""
    found = Found()
    namespaces = set(known_namespaces(snapshot))
    for cluster_queue in snapshot.cluster_queues():
        namespaces.update(w.meta.namespace or "" for w in snapshot.workloads_in_cluster_queue(cluster_queue.name))
    namespaces.discard("")
    for namespace in sorted(namespaces):
        for job in snapshot.jobs_named(namespace, name):
            if (kind is None or job.meta.kind == kind) and (namespace, job.meta.kind) not in found.matches:
                found.matches.append((namespace, job.meta.kind))
    if not found.matches:
        for namespace in sorted(namespaces):
            for workload in snapshot.workloads_in(namespace):
                owner = next((o for o in workload.meta.owners if o.name == name), None)
                if owner is not None and (kind is None or owner.kind == kind):
                    found.matches.append((namespace, owner.kind))
                    break
    return found


def search_live(name: str, kind: str | None, *, kubeconfig: str | None, context: str | None) -> Found:
    """Connect with the kubeconfig (or the in-cluster configuration) and search."""
    from bot.kube.client import load_api_client

    api_client = load_api_client(kubeconfig, context)
    try:
        return in_cluster(KubeClient(api_client), name, kind)
    finally:
        api_client.close()  # type: ignore[no-untyped-call]
