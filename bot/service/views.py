"""The cluster-wide use cases: who holds a resource, a LocalQueue's state, which namespaces have a
LocalQueue of some name."""

from __future__ import annotations

from collections.abc import Sequence

from bot.forecast.usage import Unknown, resolve, who_uses
from bot.service.base import AccessUnknown, ServiceBase
from bot.service.results import Asker, Refused, Unavailable, Using, outcome_name
from bot.trace.queueview import QueueView, describe_queue


class ClusterViews(ServiceBase):
    """The views over the whole cluster: `who`, `queue`, `local_queue_namespaces`."""

    async def who(
        self, asker: Asker, words: Sequence[str], *, only_if_known: bool = False, cluster: str | None = None
    ) -> Using | Unknown | Unavailable | None:
        """Who holds a resource (in a flavor, a ClusterQueue: `words`), cluster-wide, with the
        names of the namespaces every reader may see (the others counted). With `only_if_known`, None when a
        word names none of them (then it was a job's name)."""
        if not self.source.ready:
            return Unavailable()
        snapshot = await self.source.snapshot()
        subject = resolve(snapshot, words)
        if isinstance(subject, Unknown):
            if only_if_known:
                return None
            self._audit(asker, "who", None, subject.word, None, "unknown")
            return subject
        usage = who_uses(snapshot, subject, now=self.clock())
        shown = [ns for ns in sorted(usage.namespaces()) if await self.audience_sees(asker, [ns])]
        self._audit(asker, "who", subject.cluster_queue or None, subject.resource, None, "answered")
        return Using(usage, frozenset(shown))

    async def queue(
        self, asker: Asker, namespace: str, local_queue: str, *, cluster: str | None = None
    ) -> QueueView | Refused | Unavailable:
        """`/kueue queue ns/lq`: the queue's state (one audit entry). Names in it are for the caller to
        hide: see may_see_all."""
        result: QueueView | Refused | Unavailable
        try:
            if not self.source.ready:
                result = Unavailable()
            elif not await self._may_see(asker, namespace):
                result = Refused(namespace)
            else:
                # On the loop thread, without awaiting: the live cache is consistent there, and this is
                # cheap (the queue order is kept sorted; only the first few waiting are read in full).
                snapshot = await self.source.snapshot()
                result = describe_queue(snapshot, namespace, local_queue)
        except AccessUnknown:
            result = Unavailable()
        except Exception:
            self._audit(asker, "queue", namespace, local_queue, "LocalQueue", "error")
            raise
        self._audit(asker, "queue", namespace, local_queue, "LocalQueue", outcome_name(result))
        return result

    async def local_queue_namespaces(self, asker: Asker, local_queue: str, *, cluster: str | None = None) -> list[str]:
        """Namespaces (visible to the asker) that have a LocalQueue of that name."""
        snapshot = await self.source.snapshot()
        found = set()
        for cq in snapshot.cluster_queues():
            for lq in snapshot.local_queues_of(cq.name):
                if lq.name == local_queue and lq.meta.namespace:
                    found.add(lq.meta.namespace)
        visible = []
        for namespace in sorted(found):
            try:
                if await self._may_see(asker, namespace):
                    visible.append(namespace)
            except AccessUnknown:
                continue
        return visible
