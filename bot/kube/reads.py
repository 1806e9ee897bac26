"""The reads the CLI's live snapshot (`bot.kube.live`) and the server's on-demand reads (`bot.kube.ondemand`)
share, written once: a job by kind and name (with its neighbours for "did you mean"), and Kueue's
pending-workloads API for a queue (the LocalQueue endpoint first: namespace-scoped users may read it, and it
gives the place in the whole ClusterQueue). Raw JSON objects; each caller decodes them its own way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.errors import ClusterUnavailable, Forbidden, NotServed
from bot.kube import kinds
from bot.kube.client import KubeClient, NotFound

PENDING_LIMIT = 100000  # asked of the pending-workloads API: every row (its default is 1,000)


class Reads:
    """Blocking reads through one KubeClient; the API groups' served versions are asked once each."""

    def __init__(self, client: KubeClient) -> None:
        self.client = client
        self._versions: dict[str, str | None] = {}

    def version(self, group: str, preferred: tuple[str, ...]) -> str | None:
        """The version of `group` to use (the core group: the first preferred), None when not served."""
        if not group:
            return preferred[0]
        if group not in self._versions:
            self._versions[group] = self.client.served_version(group, preferred)
        return self._versions[group]

    def job(self, namespace: str, name: str, kind: str | None) -> list[dict[str, Any]]:
        """The job (kind None: a batch Job, else the first kind that has one); with a kind and no such job,
        its neighbours in the namespace (trimmed to what "did you mean" needs). Raises NotServed when the
        kind asked for is not served, and what the client raises (Forbidden, ClusterUnavailable)."""
        wanted = [kind] if kind else ["Job", *[k for k in kinds.JOBS if k != "Job"]]
        for job_kind in wanted:
            resource = kinds.JOBS.get(job_kind)
            if resource is None:
                continue
            version = self.version(resource.group, resource.versions)
            if version is None:
                if kind:
                    raise NotServed(
                        f"this cluster does not serve {job_kind} ({resource.group}): is its operator installed?"
                    )
                continue
            what = f"{resource.plural}.{resource.group or 'core'}"
            try:
                return [self.client.get(resource.path(version, namespace, name), what=what)]
            except NotFound:
                if kind:
                    return self._neighbours(resource.path(version, namespace), namespace, what)
        return []

    def job_object(self, namespace: str, kind: str, name: str) -> dict[str, Any] | None:
        """One job of a known kind, None when the kind is unknown or not served or there is no such job."""
        resource = kinds.JOBS.get(kind)
        version = self.version(resource.group, resource.versions) if resource is not None else None
        if resource is None or version is None:
            return None
        try:
            return self.client.get(resource.path(version, namespace, name), what=f"{resource.plural}.{resource.group}")
        except NotFound:
            return None

    def _neighbours(self, path: str, namespace: str, what: str) -> list[dict[str, Any]]:
        try:
            return [_trimmed(item, namespace) for item in self.client.list(path, what=what)]
        except (Forbidden, NotFound):
            return []

    def pending_summary(
        self, namespace: str, local_queue: str, cluster_queue: str
    ) -> tuple[dict[str, Any] | None, list[str]]:
        """The pending-workloads API's answer for the LocalQueue, else for the ClusterQueue, and why each
        endpoint tried was not read (None: no answer)."""
        version = self.version(kinds.VISIBILITY_GROUP, kinds.VISIBILITY_VERSIONS)
        if version is None:
            return None, ["the pending-workloads API (visibility.kueue.x-k8s.io) is not served: position computed"]
        base = f"/apis/{kinds.VISIBILITY_GROUP}/{version}"
        paths = [f"{base}/namespaces/{namespace}/localqueues/{local_queue}/pendingworkloads"]
        if cluster_queue:
            paths.append(f"{base}/clusterqueues/{cluster_queue}/pendingworkloads")
        notes = []
        for path in paths:
            try:
                summary = self.client.get(path, {"limit": PENDING_LIMIT}, what="the pending-workloads API")
            except (Forbidden, NotFound, ClusterUnavailable) as error:
                notes.append(f"pending-workloads API not read: {error}")
                continue
            summary.setdefault("kind", "PendingWorkloadsSummary")
            summary.setdefault("apiVersion", f"{kinds.VISIBILITY_GROUP}/{version}")
            return summary, notes
        return None, notes


def _trimmed(item: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    metadata = item.get("metadata") or {}
    return {
        "apiVersion": item.get("apiVersion"),
        "kind": item.get("kind"),
        "metadata": {
            "name": metadata.get("name"),
            "namespace": namespace,
            "uid": metadata.get("uid"),
            "labels": metadata.get("labels") or {},
            "ownerReferences": metadata.get("ownerReferences") or [],
        },
        "spec": item.get("spec") or {},
    }
