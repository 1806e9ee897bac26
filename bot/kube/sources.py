"""What `serve` needs from Kubernetes, assembled for the composition root: the informer cache as the
snapshot source, the ConfigMap state store, and the leader election."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable
from datetime import datetime

from bot.config import Settings
from bot.kube.client import KubeClient, load_api_client
from bot.kube.configmap_store import ConfigMapStore
from bot.kube.lease import LeaderElector
from bot.kube.ondemand import CacheSource
from bot.notify.store import StateStore, open_store


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
