"""The service's `Watches` port over the notifier's state store: what watch, unwatch, mute, snooze and the
App Home (`bot.service.botservice.BotService`) keep, and where the notifier reads it. A new watch wakes the
notifier (a pass runs soon), which is made first (bot.background):

    notifier = Notifier(source=source, store=store, ...)
    service = BotService(source, clock=clock, watches=StoreWatches(store, wake=notifier.wake))

A snooze is keyed by the job ("namespace/name", `job_key`), so it holds whatever Workload the job has (none
yet, or a new one after a re-creation) and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from bot.notify.ports import split_key
from bot.notify.state import Subscription, job_key
from bot.notify.store import StateStore


class StoreWatches:
    """Watches kept in the state store; a new watch wakes the notifier (when one is wired)."""

    def __init__(self, store: StateStore, wake: Callable[[], None] | None = None) -> None:
        self.store = store
        self.wake = wake

    async def watch(self, user: str, namespace: str, name: str, kind: str | None, since: datetime) -> bool:
        added = await self.store.subscribe(Subscription(user, namespace, name, kind, since))
        if self.wake is not None:
            self.wake()
        return added

    async def unwatch(self, user: str, namespace: str, name: str) -> bool:
        return await self.store.unsubscribe(user, namespace, name)

    async def mute(self, user: str, since: datetime) -> bool:
        return await self.store.mute(user, since)

    async def unmute(self, user: str) -> bool:
        return await self.store.unmute(user)

    async def snooze(self, user: str, namespace: str, name: str, until: datetime) -> None:
        await self.store.snooze(user, job_key(namespace, name), until)

    async def watched(self, user: str) -> Sequence[tuple[str, str, str | None]]:
        state = await self.store.load()
        return [(s.namespace, s.name, s.kind) for s in state.subscriptions_of(user)]

    async def told(self, user: str) -> Sequence[tuple[str, str]]:
        state = await self.store.load()
        mine: dict[tuple[str, str], None] = {}
        channels: dict[tuple[str, str], None] = {}
        for delivery in state.open_deliveries():
            if delivery.target != user and delivery.target[:1] not in ("C", "G"):
                continue
            namespace, workload, _ = split_key(delivery.key)
            job = delivery.job.partition("/")[::2] if delivery.job else (namespace, workload)
            (mine if delivery.target == user else channels)[job] = None
        return [*mine, *(job for job in channels if job not in mine)]
