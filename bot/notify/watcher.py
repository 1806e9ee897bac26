"""The watcher: wakes on cluster changes and on a tick, asks the pure policy what to say, says it once.

Every DM is recorded before it is sent (an intent) and after (its channel and ts), so a crash in between is
reconciled from Slack itself (the DM carries metadata naming its Workload) instead of sending twice. An
intent is refused when an open delivery appeared since the pass read the state (someone else sent it).

Only the leader acts, and only while it leads *at that moment*: with a `fence` (the leader election's),
leadership is checked before every Slack call, and every state write carries the fence, which the store
checks against its successor's; a replica that lost the lease (frozen past it, cut off) stops at once.

Who is told about a job: everyone watching it and every owner its annotations name (on the Workload, the job
and the job's owners: read on demand when the snapshot does not hold the job, as on a live cluster), at most
`max_owners_per_job` of them; or else the namespace's channel. At most `max_dms_per_pass` DMs a pass: the
rest wait for the next pass (a log line and a metric say so).

Closing: the DM is edited first ("admitted after waiting 28 d"), the delivery is recorded closed after; a
failed edit leaves it open, so the next pass tries again. A digest whose jobs all ended is edited to say so.
Slack and the store are ports: `Messenger` and `StateStore`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from bot.errors import Fenced, StoreUnavailable
from bot.metrics import Metrics
from bot.notify.policy import Candidate, Close, Decision, PolicyConfig, Reconcile, Send, Update, decide
from bot.notify.state import Delivery, Fence, State
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

MAX_OWNERS_PER_JOB = 10  # annotations naming more people: the first ten are told (an annotation is no broadcast)
MAX_DMS_PER_PASS = 200  # new DMs (a digest is one) a pass; the rest wait for the next pass


class LeaseLost(Exception):
    """This replica no longer leads: the pass stops here."""


@dataclass(frozen=True)
class Closing:
    """One job's end, as a closed DM says it."""

    job: str  # "namespace/name" of the job
    outcome: str  # admitted | finished | deleted
    waited_seconds: int


class OwnerSource(Protocol):
    """What a snapshot source may offer when its snapshots do not hold the jobs (a live cluster): the notify
    annotations of a job and of its owners, read on demand."""

    async def job_owners(self, namespace: str, kind: str | None, name: str) -> Sequence[str]: ...


class Messenger(Protocol):
    """What the watcher needs from Slack (implemented in bot.slack.messenger)."""

    async def send(self, target: str, explanations: Sequence[Explanation], keys: Sequence[str]) -> tuple[str, str]:
        """Post a DM (or a digest, for several) to a user or channel; returns (channel, ts)."""

    async def update(self, channel: str, ts: str, explanations: Sequence[Explanation], keys: Sequence[str]) -> None: ...

    async def close(self, channel: str, ts: str, closings: Sequence[Closing], target: str) -> None:
        """Edit the DM (or the digest) to say its jobs' waits are over."""

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
        fence: Callable[[], Fence | None] | None = None,
        metrics: Metrics | None = None,
        tick_seconds: float = 30.0,
        max_owners_per_job: int = MAX_OWNERS_PER_JOB,
        max_dms_per_pass: int = MAX_DMS_PER_PASS,
    ) -> None:
        """is_leader: whether to run a pass at all; fence: the leader's proof of leadership at this moment
        (None: this replica does not lead), checked before each Slack call and carried by each write."""
        self.source = source
        self.store = store
        self.messenger = messenger
        self.clock = clock
        self.config = config
        self.namespace_notify = dict(namespace_notify or {})
        self.is_leader = is_leader
        self.fence = fence
        self.metrics = metrics
        self.tick_seconds = tick_seconds
        self.max_owners_per_job = max_owners_per_job
        self.max_dms_per_pass = max_dms_per_pass
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._emails: dict[str, str | None] = {}
        self._over_cap: dict[str, int] = {}  # jobs whose annotations name more people than told (logged once)
        self.passes = 0
        self.stopped_passes = 0  # passes stopped because the lease was lost
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
            if not self.is_leader() or (self.fence is not None and self.fence() is None):
                return []
            try:
                return await self._pass()
            except (LeaseLost, Fenced) as error:
                self.stopped_passes += 1
                if self.metrics is not None:
                    self.metrics.notify_lease_lost.inc()
                log.warning("notifier: this replica lost the lease; the pass stopped", extra={"why": str(error)})
                return []
            finally:
                async with self.pass_done:
                    self.passes += 1
                    self.pass_done.notify_all()

    def _held(self) -> Fence | None:
        """The fence to act under right now; LeaseLost when this replica no longer leads."""
        if self.fence is None:
            return None
        fence = self.fence()
        if fence is None:
            raise LeaseLost("the lease is not held at this moment")
        return fence

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
        decisions = self._capped(decide(state, candidates, now, self.config, utc_offsets=offsets))
        closes = [d for d in decisions if isinstance(d, Close)]
        for decision in [d for d in decisions if not isinstance(d, Close)]:
            try:
                await self._apply(decision, state, now)
            except (LeaseLost, Fenced):
                raise
            except Exception:
                log.exception("notifier: a decision failed", extra={"decision": type(decision).__name__})
        for group in _by_message(closes):
            try:
                await self._close(group, state, now)
            except (LeaseLost, Fenced):
                raise
            except Exception:  # the delivery stays open: the next pass edits the DM again
                log.exception("notifier: a DM could not be closed; retried next pass")
        self.last_decisions = decisions
        try:
            await self.store.forget_closed(now - RETENTION, fence=self._held())
        except Fenced:
            raise
        except StoreUnavailable as error:  # housekeeping: the next pass tries again
            log.warning("notifier: could not forget old DMs", extra={"error": str(error)})
        return decisions

    def _capped(self, decisions: list[Decision]) -> list[Decision]:
        """At most max_dms_per_pass new DMs; the others are decided again (and sent) on the next passes."""
        sends = [d for d in decisions if isinstance(d, Send)]
        if len(sends) <= self.max_dms_per_pass:
            return decisions
        held = set(map(id, sends[self.max_dms_per_pass :]))
        log.warning(
            "notifier: more new DMs than a pass sends; the rest wait for the next pass",
            extra={"dms": len(sends), "cap": self.max_dms_per_pass},
        )
        if self.metrics is not None:
            self.metrics.notify_capped.labels("dms-per-pass").inc(len(held))
        return [d for d in decisions if id(d) not in held]

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
                targets = await self._targets(state, namespace, name, kind, explanation)
                if not targets and key not in open_keys:
                    continue
                found.append(Candidate(key, explanation, targets, explanation.waiting_since))
        return found

    async def _targets(
        self, state: State, namespace: str, name: str, kind: str | None, explanation: Explanation
    ) -> tuple[str, ...]:
        """Who is told: the job's watchers and its annotated owners (both: watching never hides a job from
        its owner), else the namespace's channel."""
        subscribers = sorted({s.user for s in state.subscriptions if s.namespace == namespace and s.name == name})
        owners = await self._owners(namespace, name, kind, explanation)
        if subscribers or owners:
            return tuple(dict.fromkeys([*subscribers, *owners]))
        mapped = self.namespace_notify.get(namespace)
        return (mapped,) if mapped else ()

    async def _owners(self, namespace: str, name: str, kind: str | None, explanation: Explanation) -> list[str]:
        """The people the notify annotations name (the Workload's, the job's and its owners'), at most
        max_owners_per_job."""
        values = list(explanation.owners)
        read = getattr(self.source, "job_owners", None)
        if read is not None and kind != "Workload":
            values += [v for v in await read(namespace, kind, name) if v not in values]
        owners: list[str] = []
        for value in values:
            for part in (p.strip() for p in value.replace(";", ",").split(",")):
                if "@" in part:
                    user = await self._user_for_email(part)
                    if user:
                        owners.append(user)
                elif part[:1] in ("U", "W") and part.isalnum():
                    # People only: a channel named in a job's annotation would let anyone who can annotate a job
                    # have the bot post in that channel. Channels are an admin's choice (NAMESPACE_NOTIFY).
                    owners.append(part)
        owners = list(dict.fromkeys(owners))
        if len(owners) > self.max_owners_per_job and self._over_cap.get(f"{namespace}/{name}") != len(owners):
            self._over_cap[f"{namespace}/{name}"] = len(owners)  # said once per job (and again if it changes)
            log.warning(
                "notifier: a job's annotations name too many people; only the first are told",
                extra={"job": f"{namespace}/{name}", "named": len(owners), "cap": self.max_owners_per_job},
            )
            if self.metrics is not None:
                self.metrics.notify_capped.labels("owners-per-job").inc(len(owners) - self.max_owners_per_job)
        return owners[: self.max_owners_per_job]

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

    async def _send(self, decision: Send, now: datetime, *, replace: bool = False) -> None:
        keys = [item.key for item in decision.items]
        digest = len(keys) > 1
        fence = self._held()
        intended = []
        for item in decision.items:
            if await self.store.record_intent(
                item.key, decision.target, item.verdict.value, item.position, _headline(item), now,
                digest=digest, job=_job_label(item.explanation), since=item.waiting_since, replace=replace,
                fence=fence,
            ):  # fmt: skip
                intended.append(item)
        if not intended:
            log.info("notifier: a DM was sent meanwhile by another replica", extra={"target": decision.target})
            return
        fence = self._held()  # the very moment before the DM leaves
        channel, ts = await self.messenger.send(
            decision.target, [i.explanation for i in intended], [i.key for i in intended]
        )
        fence = self._held()
        for item in intended:
            await self.store.record_sent(
                item.key, decision.target, channel, ts, item.verdict.value, item.position, _headline(item), now,
                fence=fence,
            )  # fmt: skip
        if self.metrics is not None:
            self.metrics.dms_sent.inc()
        log.info("notifier: DM sent", extra={"target": decision.target, "workloads": len(intended)})

    async def _reconcile(self, decision: Reconcile, now: datetime) -> None:
        found = await self.messenger.find_sent(decision.target, decision.delivery.key)
        item = decision.candidate
        if found is not None:
            channel, ts = found
            await self.store.record_sent(
                item.key, decision.target, channel, ts, decision.delivery.verdict, decision.delivery.position,
                decision.delivery.headline, now, fence=self._held(),
            )  # fmt: skip
            log.info("notifier: a DM sent before a crash was found in Slack", extra={"target": decision.target})
            return
        await self._send(Send(decision.target, (item,)), now, replace=True)

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
            elif other.closed_at is None:
                explanation = await self._explain_key(other.key, now)
                if explanation is not None:
                    explanations.append(explanation)
                    keys.append(other.key)
        self._held()
        await self.messenger.update(delivery.channel, delivery.ts, explanations, keys)
        item = decision.candidate
        await self.store.record_update(
            item.key, decision.target, item.verdict.value, item.position, _headline(item), now, fence=self._held()
        )
        if self.metrics is not None:
            self.metrics.dms_updated.inc()

    async def _close(self, group: list[Close], state: State, now: datetime) -> None:
        """The Close decisions of one message: edit it (what remains of a digest, or the closing text), then
        record the deliveries closed; the watch of each job ends with its wait."""
        first = group[0].delivery
        if first.ts is not None:
            closing = {d.delivery.key for d in group}
            remaining = [
                d for d in _same_message(state, first) if d.key not in closing and d.closed_at is None and d.ts
            ]
            explanations: list[Explanation] = []
            keys: list[str] = []
            for other in remaining:
                explanation = await self._explain_key(other.key, now)
                if explanation is not None:
                    explanations.append(explanation)
                    keys.append(other.key)
            self._held()
            if explanations:
                await self.messenger.update(first.channel, first.ts, explanations, keys)
            else:
                closings = [Closing(_closed_job(d), d.outcome, d.waited_seconds) for d in group]
                await self.messenger.close(first.channel, first.ts, closings, group[0].target)
            if self.metrics is not None:
                self.metrics.dms_updated.inc()
        fence = self._held()
        for decision in group:
            await self.store.close(decision.delivery.key, decision.target, now, fence=fence)
        for decision in group:  # the watch ends with the wait
            namespace, _, name = _closed_job(decision).partition("/")
            for subscription in state.watchers_of(namespace, name):
                await self.store.unsubscribe(subscription.user, namespace, name, fence=self._held())

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


def _job_label(explanation: Explanation) -> str:
    return f"{explanation.job.namespace}/{explanation.job.name}"


def _closed_job(decision: Close) -> str:
    """The job a closing DM names: as the cluster says, else as recorded with the DM, else (a DM recorded
    before the bot kept the job) the Workload's name."""
    if decision.candidate is not None:
        return _job_label(decision.candidate.explanation)
    if decision.delivery.job:
        return decision.delivery.job
    namespace, workload, _ = split_key(decision.delivery.key)
    return f"{namespace}/{workload}"


def _by_message(closes: Sequence[Close]) -> list[list[Close]]:
    """Close decisions grouped by the message they edit (unconfirmed ones alone)."""
    groups: dict[tuple[str, str, str], list[Close]] = defaultdict(list)
    for close in closes:
        delivery = close.delivery
        if delivery.ts is None:
            groups[(close.target, delivery.key, "")].append(close)
        else:
            groups[(close.target, delivery.channel, delivery.ts)].append(close)
    return list(groups.values())
