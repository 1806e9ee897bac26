"""The watcher: wakes on cluster changes and on a tick, asks the pure policy what to say, says it once.

Every DM is recorded before it is sent (an intent) and after (its channel and ts), so a crash in between is
reconciled from Slack itself (the DM carries metadata naming its Workload) instead of sending twice. Only
the leader replica runs a pass. Slack and the store are ports: `Messenger` and `StateStore`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from bot.errors import StoreUnavailable
from bot.metrics import Metrics
from bot.notify.policy import Candidate, Close, Decision, PolicyConfig, Reconcile, Send, Update, decide
from bot.notify.state import Delivery, State
from bot.notify.store import StateStore
from bot.service import SnapshotSource, known_namespaces
from bot.trace import messages
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation
from bot.trace.model import Workload
from bot.trace.snapshot import Snapshot

log = logging.getLogger(__name__)

# Closed DMs (and ended snoozes) are forgotten after this long: enough to never resend about a wait that
# just ended, short enough to keep nothing about people for long (SECURITY.md).
RETENTION = timedelta(days=30)


class Messenger(Protocol):
    """What the watcher needs from Slack (implemented in bot.slack.messenger)."""

    async def send(self, target: str, explanations: Sequence[Explanation], keys: Sequence[str]) -> tuple[str, str]:
        """Post a DM (or a digest, for several) to a user or channel; returns (channel, ts)."""

    async def update(self, channel: str, ts: str, explanations: Sequence[Explanation], keys: Sequence[str]) -> None: ...

    async def close(self, channel: str, ts: str, job: str, outcome: str, waited_seconds: int, target: str) -> None: ...

    async def find_sent(self, target: str, key: str) -> tuple[str, str] | None:
        """A DM about `key` already in the target's conversation (from its metadata): (channel, ts)."""

    async def user_for_email(self, email: str) -> str | None: ...

    async def utc_offset(self, user: str) -> timedelta | None: ...


def workload_key(workload: Workload) -> str:
    return f"{workload.namespace}/{workload.name}/{workload.meta.uid}"


def split_key(key: str) -> tuple[str, str, str]:
    """ "namespace/workload/uid" -> its three parts ("" for a missing one)."""
    parts = [*key.split("/", 2), "", ""]
    return parts[0], parts[1], parts[2]


def job_of(workload: Workload) -> tuple[str, str | None]:
    """(job name, kind) of a Workload's owner; the Workload itself when it has none."""
    owner = next((o for o in workload.meta.owners if o.controller), None) or next(iter(workload.meta.owners), None)
    if owner is None:
        return workload.name, "Workload"
    return owner.name, owner.kind


def _might_be_due(workload: Workload, now: datetime, after: timedelta) -> bool:
    """A cheap pre-filter before explaining: waiting long enough, or Kueue already says it can never fit."""
    if workload.finished or workload.admitted:
        return False
    since = workload.meta.created
    evicted = workload.condition("Evicted")
    if evicted is not None and evicted.is_true and evicted.since:
        since = evicted.since
    if since is not None and now - since >= after:
        return True
    condition = workload.condition("QuotaReserved")
    if condition is not None and condition.is_false:
        return messages.classify_quota_reserved(condition.reason, condition.message).verdict.tells_at_once
    return not workload.active


class Notifier:
    def __init__(
        self,
        *,
        source: SnapshotSource,
        store: StateStore,
        messenger: Messenger,
        clock: Callable[[], datetime],
        config: PolicyConfig,
        namespace_notify: Mapping[str, str] | None = None,
        is_leader: Callable[[], bool] = lambda: True,
        metrics: Metrics | None = None,
        tick_seconds: float = 30.0,
    ) -> None:
        self.source = source
        self.store = store
        self.messenger = messenger
        self.clock = clock
        self.config = config
        self.namespace_notify = dict(namespace_notify or {})
        self.is_leader = is_leader
        self.metrics = metrics
        self.tick_seconds = tick_seconds
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._emails: dict[str, str | None] = {}
        self.passes = 0
        self.last_decisions: list[Decision] = []
        self.pass_done = asyncio.Condition()

    # --- lifecycle ----------------------------------------------------------------------------------

    def wake(self) -> None:
        """Something changed in the cluster: run a pass soon."""
        self._wake.set()

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="kueue-bot-notifier")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.tick_seconds)
            self._wake.clear()
            if not self.source.ready:
                continue
            try:
                await self.run_pass()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("notifier: a pass failed")

    async def wait_for_pass(self, count: int, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """For tests and the demo: wait until `count` passes have completed."""
        async with asyncio.timeout(timeout), self.pass_done:
            await self.pass_done.wait_for(lambda: self.passes >= count)

    # --- one pass -----------------------------------------------------------------------------------

    async def run_pass(self) -> list[Decision]:
        """One pass, on the leader only; passes never overlap (a wake during a pass runs another after it)."""
        async with self._lock:
            if not self.is_leader():
                return []
            return await self._pass()

    async def _pass(self) -> list[Decision]:
        now = self.clock()
        state = await self.store.load()
        snapshot = await self.source.snapshot()
        candidates = await self._candidates(snapshot, state, now)
        offsets: dict[str, timedelta] = {}
        if self.config.quiet_hours is not None:
            for target in {t for c in candidates for t in c.targets if t[:1] in ("U", "W")}:
                offset = await self.messenger.utc_offset(target)
                if offset is not None:
                    offsets[target] = offset
        decisions = decide(state, candidates, now, self.config, utc_offsets=offsets)
        for decision in decisions:
            try:
                await self._apply(decision, state, now)
            except Exception:
                log.exception("notifier: a decision failed", extra={"decision": type(decision).__name__})
        self.last_decisions = decisions
        try:
            await self.store.forget_closed(now - RETENTION)
        except StoreUnavailable as error:  # housekeeping: the next pass tries again
            log.warning("notifier: could not forget old DMs", extra={"error": str(error)})
        async with self.pass_done:
            self.passes += 1
            self.pass_done.notify_all()
        return decisions

    async def _candidates(self, snapshot: Snapshot, state: State, now: datetime) -> list[Candidate]:
        open_keys = {d.key for d in state.deliveries if d.closed_at is None}
        watched = {(s.namespace, s.name) for s in state.subscriptions}
        found: list[Candidate] = []
        for namespace in known_namespaces(snapshot):
            for workload in snapshot.workloads_in(namespace):
                key = workload_key(workload)
                name, kind = job_of(workload)
                interesting = (
                    key in open_keys
                    or (namespace, name) in watched
                    or namespace in self.namespace_notify
                    or _might_be_due(workload, now, self.config.notify_after)
                )
                if not interesting or (workload.finished and key not in open_keys):
                    continue
                job_snapshot = await self.source.snapshot_for(namespace, name, kind)
                explanation = await asyncio.to_thread(explain, job_snapshot, Query(namespace, name, kind), now=now)
                targets = await self._targets(state, namespace, name, explanation)
                if not targets and key not in open_keys:
                    continue
                found.append(Candidate(key, explanation, targets, explanation.waiting_since))
        return found

    async def _targets(self, state: State, namespace: str, name: str, explanation: Explanation) -> tuple[str, ...]:
        """Who is told, first source that names someone: subscriptions, annotations, the namespace mapping."""
        subscribers = tuple(
            sorted({s.user for s in state.subscriptions if s.namespace == namespace and s.name == name})
        )
        if subscribers:
            return subscribers
        owners: list[str] = []
        for value in explanation.owners:
            for part in (p.strip() for p in value.replace(";", ",").split(",")):
                if "@" in part:
                    user = await self._user_for_email(part)
                    if user:
                        owners.append(user)
                elif part[:1] in ("U", "W") and part.isalnum():
                    # People only: a channel named in a job's annotation would let anyone who can annotate a job
                    # have the bot post in that channel. Channels are an admin's choice (NAMESPACE_NOTIFY).
                    owners.append(part)
        if owners:
            return tuple(dict.fromkeys(owners))
        mapped = self.namespace_notify.get(namespace)
        return (mapped,) if mapped else ()

    async def _user_for_email(self, email: str) -> str | None:
        if email not in self._emails:
            self._emails[email] = await self.messenger.user_for_email(email)
        return self._emails[email]

    # --- doing what was decided ---------------------------------------------------------------------

    async def _apply(self, decision: Decision, state: State, now: datetime) -> None:
        if isinstance(decision, Send):
            await self._send(decision, now)
        elif isinstance(decision, Reconcile):
            await self._reconcile(decision, now)
        elif isinstance(decision, Update):
            await self._update(decision, state, now)
        elif isinstance(decision, Close):
            await self._close(decision, state, now)

    async def _send(self, decision: Send, now: datetime) -> None:
        keys = [item.key for item in decision.items]
        for item in decision.items:
            await self.store.record_intent(
                item.key, decision.target, item.verdict.value, item.position, _headline(item), now, digest=len(keys) > 1
            )
        channel, ts = await self.messenger.send(decision.target, [i.explanation for i in decision.items], keys)
        for item in decision.items:
            await self.store.record_sent(
                item.key, decision.target, channel, ts, item.verdict.value, item.position, _headline(item), now
            )
        if self.metrics is not None:
            self.metrics.dms_sent.inc()
        log.info("notifier: DM sent", extra={"target": decision.target, "workloads": len(keys)})

    async def _reconcile(self, decision: Reconcile, now: datetime) -> None:
        found = await self.messenger.find_sent(decision.target, decision.delivery.key)
        item = decision.candidate
        if found is not None:
            channel, ts = found
            await self.store.record_sent(
                item.key, decision.target, channel, ts, decision.delivery.verdict, decision.delivery.position,
                decision.delivery.headline, now,
            )  # fmt: skip
            log.info("notifier: a DM sent before a crash was found in Slack", extra={"target": decision.target})
            return
        await self._send(Send(decision.target, (item,)), now)

    async def _update(self, decision: Update, state: State, now: datetime) -> None:
        delivery = decision.delivery
        assert delivery.ts is not None
        siblings = _same_message(state, delivery)
        explanations: list[Explanation] = []
        keys: list[str] = []
        for other in siblings:
            if other.key == delivery.key:
                explanations.append(decision.candidate.explanation)
                keys.append(other.key)
            else:
                explanation = await self._explain_key(other.key, now)
                if explanation is not None:
                    explanations.append(explanation)
                    keys.append(other.key)
        await self.messenger.update(delivery.channel, delivery.ts, explanations, keys)
        item = decision.candidate
        await self.store.record_update(
            item.key, decision.target, item.verdict.value, item.position, _headline(item), now
        )
        if self.metrics is not None:
            self.metrics.dms_updated.inc()

    async def _close(self, decision: Close, state: State, now: datetime) -> None:
        delivery = decision.delivery
        await self.store.close(delivery.key, decision.target, now)
        namespace, workload_name, _ = split_key(delivery.key)
        job = decision.candidate.explanation.job if decision.candidate is not None else None
        job_label = f"{job.namespace}/{job.name}" if job is not None else f"{namespace}/{workload_name}"
        if delivery.ts is not None:
            siblings = [d for d in _same_message(state, delivery) if d.key != delivery.key and d.closed_at is None]
            if siblings:
                explanations = [e for e in [await self._explain_key(d.key, now) for d in siblings] if e is not None]
                await self.messenger.update(delivery.channel, delivery.ts, explanations, [d.key for d in siblings])
            else:
                await self.messenger.close(
                    delivery.channel, delivery.ts, job_label, decision.outcome, decision.waited_seconds, decision.target
                )
            if self.metrics is not None:
                self.metrics.dms_updated.inc()
        if job is not None:  # the watch ends with the wait
            for subscription in state.subscriptions:
                if subscription.namespace == job.namespace and subscription.name == job.name:
                    await self.store.unsubscribe(subscription.user, subscription.namespace, subscription.name)

    async def _explain_key(self, key: str, now: datetime) -> Explanation | None:
        namespace, name, _ = split_key(key)
        snapshot = await self.source.snapshot()
        workload = snapshot.workload(namespace, name)
        if workload is None:
            return None
        job_name, kind = job_of(workload)
        job_snapshot = await self.source.snapshot_for(namespace, job_name, kind)
        return await asyncio.to_thread(explain, job_snapshot, Query(namespace, job_name, kind), now=now)


def _same_message(state: State, delivery: Delivery) -> list[Delivery]:
    """Every delivery sharing this DM (a digest covers several Workloads)."""
    if delivery.ts is None:
        return [delivery]
    grouped: dict[tuple[str, str | None], list[Delivery]] = defaultdict(list)
    for other in state.deliveries:
        grouped[(other.channel, other.ts)].append(other)
    return [d for d in grouped[(delivery.channel, delivery.ts)] if d.target == delivery.target]


def _headline(candidate: Candidate) -> str:
    return candidate.explanation.headline.key
