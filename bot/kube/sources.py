"""What `serve` needs from Kubernetes, assembled for the composition root: the informer cache as the
snapshot source, the ConfigMap state store, and the leader election."""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Callable
from datetime import datetime

from bot.clusters import CONTEXT, IN_CLUSTER, ClusterSpec
from bot.config import Settings
from bot.errors import ClusterUnavailable
from bot.kube.client import KubeClient, load_api_client
from bot.kube.configmap_store import ConfigMapStore
from bot.kube.lease import LeaderElector
from bot.kube.ondemand import CacheSource
from bot.notify.store import StateStore, open_store
from bot.service.ports import Source
from bot.trace.snapshot import Snapshot

log = logging.getLogger(__name__)


def kube_client(settings: Settings) -> KubeClient:
    """The cluster of the settings (in-cluster, else the kubeconfig). Raises ClusterUnavailable."""
    return KubeClient(load_api_client(settings.kubeconfig, settings.kube_context))


def live_source(client: KubeClient, clock: Callable[[], datetime]) -> CacheSource:
    return CacheSource.connect(client, clock=clock)


def state_store(settings: Settings, client: KubeClient | None) -> StateStore:
    """STATE_URL: SQLite, or ConfigMaps in the bot's namespace (kubernetes://)."""

    def configmaps() -> StateStore:
        if client is None:
            from bot.errors import ConfigError

            raise ConfigError("STATE_URL=kubernetes:// needs a cluster; serve --from-file has none: use sqlite:///")
        lease = settings.lease_name if settings.leader_election else None  # fenced writes check the Lease
        return ConfigMapStore(client, settings.pod_namespace, lease=lease)

    return open_store(settings.state_url, kubernetes=configmaps)


def leader_elector(settings: Settings, client: KubeClient, clock: Callable[[], datetime]) -> LeaderElector:
    """A Lease in the bot's namespace; the identity is the pod's name plus a random suffix."""
    identity = f"{os.environ.get('HOSTNAME') or socket.gethostname()}-{uuid.uuid4().hex[:6]}"
    return LeaderElector(client, settings.pod_namespace, settings.lease_name, identity, clock=clock)


class UnreachableSource(Source):
    """A cluster of CLUSTERS whose configuration could not be loaded: never ready, never blocks the others."""

    def __init__(self, why: str) -> None:
        self.why = why

    @property
    def ready(self) -> bool:
        return False

    def taken_at(self) -> datetime | None:
        return None

    async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> Snapshot:
        raise ClusterUnavailable(self.why)

    async def snapshot(self) -> Snapshot:
        raise ClusterUnavailable(self.why)


def cluster_client(settings: Settings, spec: ClusterSpec) -> KubeClient:
    """One cluster of CLUSTERS: in-cluster, a context of KUBECONFIG, or a kubeconfig file."""
    if spec.how == IN_CLUSTER:
        return KubeClient(load_api_client(None, None))
    if spec.how == CONTEXT:
        return KubeClient(load_api_client(settings.kubeconfig, spec.context))
    return KubeClient(load_api_client(spec.path, spec.context))


def cluster_sources(
    settings: Settings, clock: Callable[[], datetime]
) -> tuple[dict[str, CacheSource | UnreachableSource], KubeClient | None]:
    """Each cluster's own cache (not started), and the first reachable cluster's client (the bot's own state,
    its Lease). A cluster whose configuration cannot be loaded is said once and stays unavailable."""
    sources: dict[str, CacheSource | UnreachableSource] = {}
    first: KubeClient | None = None
    for spec in settings.clusters:
        try:
            client = cluster_client(settings, spec)
        except ClusterUnavailable as error:
            log.error("a cluster cannot be configured", extra={"cluster": spec.name, "error": str(error)})
            sources[spec.name] = UnreachableSource(str(error))
            continue
        first = first or client
        sources[spec.name] = live_source(client, clock)
    return sources, first
