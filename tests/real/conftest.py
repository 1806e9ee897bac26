"""The suite against a real API server (issue 12): runs when KUEUE_BOT_REAL_KUBECONFIG names an admin
kubeconfig, e.g. the throwaway cluster of ../shared/real-cluster:

    bash ../shared/real-cluster/cluster.sh start kueue
    KUEUE_BOT_REAL_KUBECONFIG=/var/tmp/real-cluster/admin.kubeconfig .venv/bin/python -m pytest tests/real -v

Without the variable nothing here is collected, and the run says so once at its end (CI's counts are
those of the fakes). Every test makes its own namespace and cluster-scoped objects, with a random suffix,
and deletes them afterwards (the kit's cluster has no garbage collector: finalizers are stripped).
The admin identity creates a ServiceAccount bound to deploy/'s ClusterRole; the bot reads as that one.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient, load_api_client

from tests.cache_support import wait_ready
from tests.real.cluster import Cluster, Queues

ENV = "KUEUE_BOT_REAL_KUBECONFIG"
ROOT = Path(__file__).resolve().parents[2]
CLUSTER_ROLE = ROOT / "deploy" / "kustomize" / "base" / "clusterrole.yaml"
ADMIN_KUBECONFIG = os.environ.get(ENV, "")

if not ADMIN_KUBECONFIG:
    collect_ignore_glob = ["test_*.py"]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not ADMIN_KUBECONFIG:
        terminalreporter.write_line(
            f"tests/real: not run ({ENV} is not set; see tests/real/conftest.py to run it against a real API server)"
        )


@pytest.fixture(scope="session")
def run_id() -> str:
    return secrets.token_hex(3)


@pytest.fixture(scope="session")
def cluster(run_id: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    api_client = load_api_client(ADMIN_KUBECONFIG)
    try:
        admin = Cluster(KubeClient(api_client, timeout=(5.0, 60.0)), run_id)
        reader = admin.reader_kubeconfig(
            yaml.safe_load(CLUSTER_ROLE.read_text()), tmp_path_factory.mktemp("reader") / "kubeconfig"
        )
        admin.reader_path = reader
        yield admin
        admin.remove_reader()
    finally:
        api_client.close()  # type: ignore[no-untyped-call]


@pytest.fixture
def reader(cluster: Cluster) -> Iterator[KubeClient]:
    api_client = load_api_client(str(cluster.reader_path))
    try:
        yield KubeClient(api_client, timeout=(5.0, 60.0))
    finally:
        api_client.close()  # type: ignore[no-untyped-call]


def now() -> datetime:
    return datetime.now(UTC)


@pytest.fixture
async def cache(reader: KubeClient) -> AsyncIterator[ClusterCache]:
    """The bot's informer cache over the cluster, as the read-only identity, synced."""
    cache = ClusterCache(reader, clock=now)
    await cache.start()
    try:
        await wait_ready(cache, 60)
        yield cache
    finally:
        await cache.stop()


@pytest.fixture
def queues(cluster: Cluster, run_id: str, request: pytest.FixtureRequest) -> Iterator[Queues]:
    if not cluster.kueue_running:
        pytest.skip("the Kueue manager does not run on this cluster (cluster.sh start kueue): nothing admits Jobs")
    suffix = f"{run_id}-{abs(hash(request.node.name)) % 10000}"
    made = Queues(f"real-{suffix}", f"flavor-{suffix}", f"cq-{suffix}")
    cluster.create_namespace(made.namespace)
    cluster.flavor(made.flavor)
    cluster.cluster_queue(made.cluster_queue, made.flavor, "2")
    cluster.local_queue(made.namespace, made.local_queue, made.cluster_queue)
    try:
        yield made
    finally:
        cluster.remove_namespace(made.namespace)
        cluster.remove_cluster_scoped("clusterqueues", made.cluster_queue)
        cluster.remove_cluster_scoped("resourceflavors", made.flavor)
