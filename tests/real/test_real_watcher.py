"""The proactive-DM watcher over the bot's informer cache of a real kube-apiserver, with the real Kueue manager
admitting: the owner a Job's annotation names (read from the Job on demand, as on any live cluster) is told once;
once the cluster is quiet a pass walks no namespace (bot.notify.walk); a new Job is walked and told, once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient
from bot.kube.ondemand import CacheSource, OnDemand
from bot.notify.store import SQLiteStore
from bot.notify.watcher import Notifier, watcher

from tests.cache_support import wait_for
from tests.real.cluster import Cluster, Queues
from tests.real.test_real_cluster import _condition
from tests.unit.test_watcher import Recorder

OWNER = "U0REALOWNER"
NOTIFY = {"kueue-bot.io/notify": OWNER}


def _an_hour_on() -> datetime:
    """The watcher's clock: every job waits past NOTIFY_AFTER."""
    return datetime.now(UTC) + timedelta(hours=1)


async def _quiet_pass(notifier: Notifier) -> None:
    """Passes until one walks no namespace: the cluster is quiet (Kueue done writing what it admitted)."""
    async with asyncio.timeout(60):
        while True:
            before = notifier.walker.namespaces_walked
            await notifier.run_pass()
            if notifier.walker.namespaces_walked == before:
                return
            await asyncio.sleep(1)


async def test_the_watcher_tells_each_owner_once_and_a_quiet_pass_walks_nothing(
    cluster: Cluster, reader: KubeClient, cache: ClusterCache, queues: Queues, state_store: SQLiteStore
) -> None:
    q = queues
    for name, cpu in (("one-a", "1"), ("one-b", "1"), ("three", "3")):
        cluster.job(q.namespace, name, q.local_queue, cpu, annotations=NOTIFY)
    await wait_for(cache, lambda: all(_condition(cache, q.namespace, j, "Admitted") for j in ("one-a", "one-b")), 60)
    await wait_for(cache, lambda: _condition(cache, q.namespace, "three", "QuotaReserved") is not None, 60)
    messenger = Recorder()
    notifier = watcher(CacheSource(cache, OnDemand(reader, cache)), state_store, messenger, _an_hour_on)
    await notifier.run_pass()
    assert messenger.sent == [(OWNER, 1)]  # "three": it can never fit; the two admitted are not told
    await _quiet_pass(notifier)
    traced = notifier.traced
    await notifier.run_pass()
    assert notifier.traced == traced and messenger.sent == [(OWNER, 1)]
    cluster.job(q.namespace, "one-c", q.local_queue, "1", annotations=NOTIFY)  # waits: the queue is full
    await wait_for(cache, lambda: _condition(cache, q.namespace, "one-c", "QuotaReserved") is not None, 60)
    await _quiet_pass(notifier)
    await _quiet_pass(notifier)
    assert messenger.sent == [(OWNER, 1), (OWNER, 1)]  # one-c told, once
