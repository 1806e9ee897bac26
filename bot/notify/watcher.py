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
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timedelta

from bot.errors import BotError, Fenced, LeaseLost, StoreUnavailable
from bot.forecast.eta import Eta
from bot.forecast.history import History
from bot.forecast.outlook import eta_mark
from bot.metrics import Metrics
from bot.notify.failures import SlackFailures
from bot.notify.grouping import by_message, by_ts
from bot.notify.history import HistoryRecorder
from bot.notify.owners import Audience
from bot.notify.policy import Candidate, Close, Decision, JobFacts, PolicyConfig, Reconcile, Send, Update, decide, slim
from bot.notify.ports import Closing, Messenger, job_of, split_key
from bot.notify.state import Delivery, Fence, State, Told
from bot.notify.store import StateStore
from bot.notify.walk import Walker
from bot.pacing import Pacer, full_collections_wait, paced
from bot.service.explaining import explain_job_in_slices
from bot.service.ports import SnapshotSource
from bot.service.tasks import stop_task
from bot.trace.codes import Verdict
from bot.trace.explain import Query
from bot.trace.explanation import Explanation
from bot.trace.resolve import known_namespaces
from bot.trace.snapshot import Snapshot

log = logging.getLogger(__name__)

# Closed DMs (and ended snoozes) are forgotten after this long: enough to never resend about a wait that
# just ended, short enough to keep nothing about people for long (SECURITY.md).
RETENTION = timedelta(days=30)

MAX_OWNERS_PER_JOB = 10  # annotations naming more people: the first ten are told (an annotation is no broadcast)
MAX_DMS_PER_PASS = 200  # new DMs (a digest is one) a pass; the rest wait for the next pass
ANNOUNCED = frozenset({"admitted", "finished"})  # the ends of a wait told so that they notify (not "deleted")


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
        settle_seconds: float = 0.5,
        max_owners_per_job: int = MAX_OWNERS_PER_JOB,
        max_dms_per_pass: int = MAX_DMS_PER_PASS,
        history: HistoryRecorder | None = None,
        freeze_gc: bool = False,
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
        self.settle_seconds = settle_seconds
        self.max_owners_per_job = max_owners_per_job
        self.max_dms_per_pass = max_dms_per_pass
        self.history = history  # admissions and finishes observed, for the ETA
        self.freeze_gc = freeze_gc  # as the cache's: gc.freeze() once each pass has left its state (pacing)
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self.audience = Audience(source, messenger, self.namespace_notify, max_owners_per_job, metrics)
        self.walker = Walker(self.audience, self.namespace_notify, config.notify_after)  # the last traces
        # This pass only (emptied when it ends: no Explanation outlives its pass): the Explanations traced,
        # and the deliveries grouped by the message they share.
        self._explained: dict[str, tuple[Explanation, Eta | None]] = {}  # with its ETA
        self._by_job: dict[Query, tuple[Explanation, Eta | None]] = {}  # the same, by the job asked about
        self._messages: dict[tuple[str | None, str | None], list[Delivery]] | None = None
        self._store_was_empty = False  # this pass: the store held no delivery (look in Slack before sending)
        self.traced = 0  # jobs traced so far, once a pass each (the rest were unchanged)
        self.passes = 0
        self.stopped_passes = 0  # passes stopped because the lease was lost
        self.last_decisions: list[Decision] = []
        self.pass_done = asyncio.Condition()
        self.failures = SlackFailures(metrics)  # Slack's failures: undeliverable DMs closed, the others paced

    # --- lifecycle ----------------------------------------------------------------------------------

    def wake(self) -> None:
        """Something changed in the cluster (the cache's change listener): run a pass soon. Wakes coalesce:
        those during the settling delay or during a pass make one more pass."""
        self._wake.set()

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="kueue-bot-notifier")

    async def stop(self) -> None:
        await stop_task(self._task)
        self._task = None

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.tick_seconds)
            if self._wake.is_set() and self.settle_seconds > 0:
                await asyncio.sleep(self.settle_seconds)  # a burst of changes: one pass after it
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
                with full_collections_wait(freeze=self.freeze_gc):
                    return await self._pass()
            except (LeaseLost, Fenced) as error:
                self.stopped_passes += 1
                if self.metrics is not None:
                    self.metrics.notify_lease_lost.inc()
                log.warning("notifier: this replica lost the lease; the pass stopped", extra={"why": str(error)})
                return []
            finally:
                self._explained, self._by_job = {}, {}
                self._messages = None
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
        self._explained, self._by_job = {}, {}  # this pass's traces only
        state = await self.store.load()
        self._store_was_empty = not state.deliveries
        snapshot = await self.source.snapshot()
        await self._observe(snapshot, now)
        candidates = await self.walker.candidates(snapshot, state, now, self._explain, self._explained)
        offsets = await self._offsets(candidates)
        # Long at 50,000 candidates: in a worker thread, so the event loop runs between its GIL slices.
        decisions = await asyncio.to_thread(self._decided, state, candidates, now, offsets)
        for decision in [d for d in decisions if not isinstance(d, Close)]:
            try:
                await self.failures.attempt([decision], self._apply(decision, state, now), now, self._undeliverable)
            except (LeaseLost, Fenced):
                raise
            except Exception:
                log.exception("notifier: a decision failed", extra={"decision": type(decision).__name__})
        for group in by_message([d for d in decisions if isinstance(d, Close)]):
            try:
                await self.failures.attempt(group, self._close(group, state, now), now, self._undeliverable)
            except (LeaseLost, Fenced):
                raise
            except Exception:  # the delivery stays open: the next pass edits the DM again
                log.exception("notifier: a DM could not be closed; retried next pass")
        self.last_decisions = kept = await paced(slim, decisions, Pacer())  # a digest is no cheap step: clock each
        self._explained, self._by_job = {}, {}
        while decisions or candidates:  # let go in steps (every Workload's Candidate, a broadcast's Explanations):
            del decisions[-8:], candidates[-1024:]  # freed at once they held the loop, and alive they made every
            await asyncio.sleep(0)  # full collection of the next pass scan them
        await self._forget_old(now)
        return kept

    async def _observe(self, snapshot: Snapshot, now: datetime) -> None:
        """The queue history the ETA rests on: a failure to record it costs the ETA, never the DMs."""
        if self.history is None:
            return
        try:
            await self.history.observe(snapshot, known_namespaces(snapshot), now)
        except StoreUnavailable as error:
            log.warning("notifier: could not record the queue history", extra={"error": str(error)})

    async def _offsets(self, candidates: Sequence[Candidate]) -> dict[str, timedelta]:
        """Each person's UTC offset, for the quiet hours (none asked when there are no quiet hours)."""
        offsets: dict[str, timedelta] = {}
        if self.config.quiet_hours is None:
            return offsets
        for target in {t for c in candidates for t in c.targets if t[:1] in ("U", "W")}:
            offset = await self.messenger.utc_offset(target)
            if offset is not None:
                offsets[target] = offset
        return offsets

    async def _forget_old(self, now: datetime) -> None:
        """Housekeeping: closed DMs past the retention are forgotten; the next pass tries again on failure."""
        try:
            await self.store.forget_closed(now - RETENTION, fence=self._held())
        except Fenced:
            raise
        except StoreUnavailable as error:
            log.warning("notifier: could not forget old DMs", extra={"error": str(error)})

    def _decided(
        self, state: State, candidates: Sequence[Candidate], now: datetime, offsets: Mapping[str, timedelta]
    ) -> list[Decision]:
        """What to do now (decide), capped, none about a DM gone or pausing (read before the pass acts on any)."""
        decisions = decide(state, candidates, now, self.config, utc_offsets=offsets)
        return self.failures.held_back(self._capped(decisions), now)

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

    # --- doing what was decided ---------------------------------------------------------------------

    async def _apply(self, decision: Decision, state: State, now: datetime) -> None:
        if isinstance(decision, Send):
            await self._send(decision, now)
        elif isinstance(decision, Reconcile):
            await self._reconcile(decision, now)
        elif isinstance(decision, Update):
            await self._update(decision, state, now)

    async def _fresh(self, candidate: Candidate, now: datetime) -> Candidate | None:
        """The candidate with a full Explanation of now (decided on its JobFacts; None: the Workload is gone)."""
        if not isinstance(candidate.explanation, JobFacts):
            return candidate
        found = await self._explain_key(candidate.key, now)
        if found is None:
            return None
        explanation, eta = found
        return Candidate(candidate.key, explanation, candidate.targets, explanation.waiting_since, eta)

    async def _send(self, decision: Send, now: datetime, *, replace: bool = False) -> None:
        items = [c for c in [await self._fresh(i, now) for i in decision.items] if c is not None]
        if self._store_was_empty and not replace:
            items = await self._not_sent_yet(decision.target, items, now)
        digest = len(items) > 1
        fence = self._held()
        intended = []
        for item in items:
            if await self.store.record_intent(_told(item, decision.target, digest), now, replace=replace, fence=fence):
                intended.append(item)
        if not intended:
            log.info("notifier: a DM was sent meanwhile by another replica", extra={"target": decision.target})
            return
        fence = self._held()  # the very moment before the DM leaves
        channel, ts = await self.messenger.send(
            decision.target,
            [_explanation(i) for i in intended],
            [i.key for i in intended],
            eta=intended[0].eta if len(intended) == 1 else None,
        )
        fence = self._held()
        for item in intended:
            await self.store.record_sent(_told(item, decision.target, digest), channel, ts, now, fence=fence)
        if self.metrics is not None:
            self.metrics.dms_sent.inc()
        log.info("notifier: DM sent", extra={"target": decision.target, "workloads": len(intended)})

    async def _not_sent_yet(self, target: str, items: list[Candidate], now: datetime) -> list[Candidate]:
        """The store held nothing when the pass began (a new store, or one lost and made anew): the items with
        no DM in the target's conversation already (its metadata names their Workloads); those found are
        recorded as sent instead of being sent again."""
        unsent = []
        for item in items:
            found = await self.messenger.find_sent(target, item.key)
            if found is None:
                unsent.append(item)
                continue
            channel, ts = found
            await self.store.record_sent(_told(item, target, False), channel, ts, now, fence=self._held())
            log.info("notifier: a DM already in Slack was recorded, not sent again", extra={"target": target})
        return unsent

    async def _reconcile(self, decision: Reconcile, now: datetime) -> None:
        found = await self.messenger.find_sent(decision.target, decision.delivery.key)
        item = decision.candidate
        if found is not None:
            channel, ts = found
            await self.store.record_sent(Told.of(decision.delivery), channel, ts, now, fence=self._held())
            log.info("notifier: a DM sent before a crash was found in Slack", extra={"target": decision.target})
            return
        await self._send(Send(decision.target, (item,)), now, replace=True)

    async def _update(self, decision: Update, state: State, now: datetime) -> None:
        delivery = decision.delivery
        assert delivery.ts is not None
        fresh = await self._fresh(decision.candidate, now)
        if fresh is None:
            return
        siblings = await self._same_message(state, delivery)
        digest = sum(1 for other in siblings if other.key == delivery.key or other.closed_at is None) > 1
        explanations: list[Explanation] = []
        keys: list[str] = []
        for other in siblings:
            if other.key == delivery.key:
                explanations.append(_explanation(fresh))
                keys.append(other.key)
            elif other.closed_at is None:
                explanation = await self._listed(other.key, now, digest=digest)
                if explanation is not None:
                    explanations.append(explanation)
                    keys.append(other.key)
        self._held()
        eta = fresh.eta if len(explanations) == 1 else None
        await self.messenger.update(delivery.channel, delivery.ts, explanations, keys, eta=eta)
        item = fresh
        await self.store.record_update(_told(item, decision.target, delivery.digest), now, fence=self._held())
        if item.verdict.never_fixes_itself and not _never_fits(delivery.verdict):  # news that notifies
            self._held()
            await _announced(
                self.messenger.announce_never_fits(delivery.channel, delivery.ts, _explanation(fresh), decision.target)
            )
        if self.metrics is not None:
            self.metrics.dms_updated.inc()

    async def _close(self, group: list[Close], state: State, now: datetime) -> None:
        """The Close decisions of one message: edit it (what remains of a digest, or the closing text), record
        the deliveries closed, then say it so that it notifies; the watch of each job ends with its wait."""
        first = group[0].delivery
        if first.ts is not None:
            await self._edit_closed(group, first.channel, first.ts, state, now)
        fence = self._held()
        for decision in group:
            await self.store.close(decision.delivery.key, decision.target, now, fence=fence)
        news = [Closing(_closed_job(d), d.outcome, d.waited_seconds) for d in group if d.outcome in ANNOUNCED]
        if first.ts is not None and news:
            self._held()
            await _announced(self.messenger.announce_closed(first.channel, first.ts, news, group[0].target))
        for decision in group:  # the watch ends with the wait
            namespace, _, name = _closed_job(decision).partition("/")
            for subscription in state.watchers_of(namespace, name):
                await self.store.unsubscribe(subscription.user, namespace, name, fence=self._held())

    async def _edit_closed(self, group: list[Close], channel: str, ts: str, state: State, now: datetime) -> None:
        """The message edited: the jobs of a digest still waiting listed, else the closing text."""
        closing = {d.delivery.key for d in group}
        remaining = [
            d
            for d in await self._same_message(state, group[0].delivery)
            if d.key not in closing and d.closed_at is None and d.ts
        ]
        explanations: list[Explanation] = []
        keys: list[str] = []
        for other in remaining:
            explanation = await self._listed(other.key, now, digest=len(remaining) > 1)
            if explanation is not None:
                explanations.append(explanation)
                keys.append(other.key)
        self._held()
        if explanations:
            await self.messenger.update(channel, ts, explanations, keys)
        else:
            closings = [Closing(_closed_job(d), d.outcome, d.waited_seconds) for d in group]
            await self.messenger.close(channel, ts, closings, group[0].target)
        if self.metrics is not None:
            self.metrics.dms_updated.inc()

    async def _undeliverable(self, key: str, target: str, now: datetime) -> None:
        """Slack says this DM can never be delivered (bot.notify.failures): closed, never tried again."""
        await self.store.close(key, target, now, fence=self._held())

    async def _same_message(self, state: State, delivery: Delivery) -> list[Delivery]:
        """Every delivery sharing this DM (a digest covers several Workloads); indexed once a pass (every
        delivery read: in a worker thread, the loop let run)."""
        if delivery.ts is None:
            return [delivery]
        if self._messages is None:
            self._messages = await asyncio.to_thread(by_ts, state)
        return [d for d in self._messages.get((delivery.channel, delivery.ts), ()) if d.target == delivery.target]

    async def _listed(self, key: str, now: datetime, *, digest: bool) -> Explanation | None:
        """A job of a message being rewritten: traced in this pass, or, in a digest (which lists each job by
        its verdict and headline, bot.slack.render.digest), its line from the JobFacts of its last trace when
        that still holds and it did not move since (its headline counts those ahead); else traced now."""
        explained = self._explained.get(key)
        if explained is not None:
            return explained[0]
        seen = self.walker.seen(key)  # this pass's: its JobFacts checked against its inputs of now
        if digest and seen is not None and seen.exact:
            return _listed_from(seen.facts)
        found = await self._explain_key(key, now)
        return found[0] if found is not None else None

    async def _explain_key(self, key: str, now: datetime) -> tuple[Explanation, Eta | None] | None:
        known = self._explained.get(key)
        if known is not None:
            return known
        namespace, name, _ = split_key(key)
        snapshot = await self.source.snapshot()
        workload = snapshot.workload(namespace, name)
        if workload is None:
            return None
        job_name, kind = job_of(workload)
        found = self._explained[key] = await self._explain(Query(namespace, job_name, kind), now)
        return found

    async def _explain(self, query: Query, now: datetime) -> tuple[Explanation, Eta | None]:
        """The job traced once a pass, whichever of its Workloads (a job re-created has two) asks first."""
        known = self._by_job.get(query)
        if known is not None:
            return known
        job_snapshot = await self.source.snapshot_for(query.namespace, query.name, query.kind)
        explanation, outlook = await explain_job_in_slices(
            job_snapshot, query, now=now, history=self._history(), what_if=False, freeze=self.source.freezes_gc
        )
        found = self._by_job[query] = (explanation, outlook.eta)
        self.traced += 1
        return found

    def _history(self) -> History | None:
        return self.history.history if self.history is not None else None


async def _announced(announcement: Awaitable[None]) -> None:
    """News said so that it notifies, once its delivery is recorded: a failure costs the notification (the
    edited DM says it too), never a second one."""
    try:
        await announcement
    except BotError as error:
        log.warning("notifier: news could not be said so that it notifies", extra={"error": str(error)})


def _never_fits(verdict: str) -> bool:
    """Whether a delivery's recorded verdict was one that waiting never fixes."""
    try:
        return Verdict(verdict).never_fixes_itself
    except ValueError:
        return False


def _listed_from(facts: JobFacts) -> Explanation:
    """A job's line in a digest, from its JobFacts: what a digest shows of each job (its job, verdict and
    headline); nothing else of it is read (a digest has no steps, advice or ETA per job)."""
    return Explanation(job=facts.job, workload=None, verdict=facts.verdict, headline=facts.headline, steps=())


def _told(candidate: Candidate, target: str, digest: bool) -> Told:
    """What a delivery remembers of its message: the verdict, the position, the headline's key and the ETA's
    mark."""
    explanation = candidate.explanation
    eta = eta_mark(candidate.eta if isinstance(explanation, Explanation) else None)
    return Told(
        candidate.key, target, candidate.verdict.value, candidate.position, explanation.headline.key, eta, digest,
        candidate.job_label, candidate.waiting_since,
    )  # fmt: skip


def _explanation(candidate: Candidate) -> Explanation:
    assert isinstance(candidate.explanation, Explanation), "a candidate made fresh first"
    return candidate.explanation


def _closed_job(decision: Close) -> str:
    """The job a closing DM names: as the cluster says, else as recorded with the DM, else (a DM recorded
    before the bot kept the job) the Workload's name."""
    if decision.candidate is not None:
        return decision.candidate.job_label
    if decision.delivery.job:
        return decision.delivery.job
    namespace, workload, _ = split_key(decision.delivery.key)
    return f"{namespace}/{workload}"


def watcher(
    source: SnapshotSource,
    store: StateStore,
    messenger: Messenger,
    clock: Callable[[], datetime],
    *,
    config: PolicyConfig | None = None,
) -> Notifier:
    """A watcher for tools and the bench: `await notifier.run_pass()` runs one pass. Keep it to run the next
    passes: what it remembers of the last traces is what makes them cheap."""
    return Notifier(source=source, store=store, messenger=messenger, clock=clock, config=config or PolicyConfig())
