"""Leader election with a coordination.k8s.io/v1 Lease in the bot's namespace: one replica sends notifications.

    elector = LeaderElector(kube, "kueue-bot", "kueue-bot-leader", identity=pod_name_and_random, clock=clock)
    async with elector:                   # or: task = elector.start() ... await elector.stop()
        await elector.leading.wait()      # is_leader, leading/following events, on_change callback

The algorithm is client-go's. A candidate GETs the Lease; it takes it when it is absent (POST), free (no
holderIdentity), its own, or expired, by PUT with the resourceVersion it read: a 409 means another
candidate won. Expiry is judged by *our* clock from when we last saw the Lease change (its renewTime is
another pod's clock), so a candidate waits a full leaseDurationSeconds after the holder's last renewal.

The leader renews every `renew_every`. When it cannot renew (errors, timeouts) for `renew_deadline`
(default two thirds of the lease, measured from the start of its last successful renewal), or finds
another holder, it stops being leader at once: it has stopped acting before anyone else may start.
stop() ends leadership at once (before any request), abandons a request in flight, then releases the
Lease (clears holderIdentity), so another replica takes over at its next try instead of after an expiry.

Fencing: `fence()` is the proof of leadership the notifier checks before each Slack call and hands to each
state write: None unless this replica leads *at this moment* by its own clock (its last successful renewal
began less than `renew_deadline` ago; a process frozen past its lease learns it here, before its renewal
loop even runs), else Fence(identity, token) where token is the Lease's leaseTransitions of this tenure (a
successor's is larger). The state stores refuse a fenced write older than one they saw.

Identity must be unique per process (pod name plus a random suffix): a restarted process that reused it
would inherit a Lease it does not know it holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Any, Self

from bot.errors import BotError
from bot.kube.client import AlreadyExists, Conflict, KubeClient, NotFound
from bot.notify.state import Fence

log = logging.getLogger(__name__)

_MICRO_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"


def _micro_time(moment: datetime) -> str:
    """A MicroTime: 2026-11-03T10:00:00.000000Z."""
    return moment.astimezone(UTC).strftime(_MICRO_TIME)


class LeaderElector:
    """Campaigns for the Lease `namespace/name` as `identity` while `run()` runs."""

    def __init__(
        self,
        client: KubeClient,
        namespace: str,
        name: str,
        identity: str,
        *,
        lease_seconds: float = 15.0,
        renew_every: float = 5.0,
        renew_deadline: float | None = None,
        retry_every: float | None = None,
        clock: Callable[[], datetime],
        on_change: Callable[[bool], None] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        """lease_seconds: how long a Lease lasts unrenewed (others wait that long after its last renewal);
        renew_every: the leader's renewal period; renew_deadline: how long the leader keeps leading without
        a successful renewal (default 2/3 of the lease); retry_every: the candidates' period, and the
        leader's between failed renewals (default renew_every / 2, jittered); clock: aware UTC datetimes."""
        deadline = lease_seconds * 2 / 3 if renew_deadline is None else renew_deadline
        if not identity:
            raise ValueError("a leader election identity must not be empty")
        if not 0 < renew_every < deadline <= lease_seconds:
            raise ValueError(
                f"need 0 < renew_every ({renew_every}) < renew_deadline ({deadline}) <= lease_seconds ({lease_seconds})"
            )
        self.client = client
        self.namespace = namespace
        self.name = name
        self.identity = identity
        self.lease_seconds = lease_seconds
        self.renew_every = renew_every
        self.renew_deadline = deadline
        self.retry_every = renew_every / 2 if retry_every is None else retry_every
        self._clock = clock
        self._listeners: list[Callable[[bool], None]] = [on_change] if on_change is not None else []
        self._rng = rng or random.Random()
        self.leading = asyncio.Event()  # set while this replica is the leader
        self.following = asyncio.Event()  # set while it is not
        self.following.set()
        self.holder: str | None = None  # the holder last seen ("" when free, None before the first read)
        self._is_leader = False
        self._renewed_at: datetime | None = None  # when our last successful write was started
        self._token = 0  # the Lease's leaseTransitions of our tenure
        self._observed: tuple[Any, ...] | None = None
        self._observed_at: datetime | None = None
        self._stop = asyncio.Event()
        self._stopped = asyncio.Event()
        self._running = False
        self._task: asyncio.Task[None] | None = None
        self._attempt_scope: asyncio.Timeout | None = None
        self._wrote = False  # this run wrote the Lease as its holder: release it on the way out

    def __repr__(self) -> str:
        return f"LeaderElector({self.namespace}/{self.name} as {self.identity}, leader={self._is_leader})"

    @property
    def is_leader(self) -> bool:
        return self._is_leader

    def fence(self) -> Fence | None:
        """Fence(identity, token) while this replica leads at this very moment, else None (and, when the
        renewal deadline has passed unnoticed, leadership ends here and now)."""
        if not self._is_leader or self._renewed_at is None:
            return None
        if self._until_deadline() <= 0:
            self._set_leader(False, "the renewal deadline passed (was the process frozen?)")
            return None
        return Fence(self.identity, self._token)

    def listen(self, callback: Callable[[bool], None]) -> None:
        """Call `callback(leading)` at each change of leadership (after on_change)."""
        self._listeners.append(callback)

    @property
    def _path(self) -> str:
        return f"/apis/coordination.k8s.io/v1/namespaces/{self.namespace}/leases/{self.name}"

    @property
    def _what(self) -> str:
        return f"the Lease {self.namespace}/{self.name}"

    # -- lifecycle -----------------------------------------------------------------------------------

    def start(self) -> asyncio.Task[None]:
        """Run the election in a task owned by this elector (stop() ends it; start() again campaigns again)."""
        if self._running or (self._task is not None and not self._task.done()):
            raise RuntimeError("the leader election is already running")
        self._stop.clear()
        self._task = asyncio.create_task(self.run(), name=f"leader-election-{self.name}")
        return self._task

    async def stop(self) -> None:
        """Stop campaigning: a request in flight is abandoned, leadership ends at once, the Lease is released;
        returns when run() has ended (raising what it raised, if it failed)."""
        self._stop.set()
        self._set_leader(False, "stopping")
        if self._attempt_scope is not None:
            self._attempt_scope.reschedule(asyncio.get_running_loop().time())
        if self._task is not None:
            await asyncio.wait([self._task])
            if not self._task.cancelled() and (failure := self._task.exception()) is not None:
                raise failure
        elif self._running:
            await self._stopped.wait()

    async def __aenter__(self) -> Self:
        self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    async def run(self) -> None:
        """Campaign, lead, renew, until stop() (or cancellation); then release the Lease if we hold it."""
        if self._running:
            raise RuntimeError("the leader election is already running")
        self._running = True
        self._wrote = False
        self._stopped.clear()
        try:
            while not self._stop.is_set():
                if self._is_leader:
                    await self._lead()
                else:
                    await self._campaign()
        finally:
            self._set_leader(False, "stopped")
            try:
                if self._wrote:
                    await self._release()
            finally:
                self._running = False
                self._stopped.set()

    # -- the loop ------------------------------------------------------------------------------------

    async def _campaign(self) -> None:
        started = self._clock()
        held = await self._attempt(within=self.lease_seconds)
        if held:
            self._renewed_at = started
            self._set_leader(True, "acquired")
            return
        await self._pause(self._jittered(self.retry_every))

    async def _lead(self) -> None:
        assert self._renewed_at is not None
        if await self._pause(self._until(self._renewed_at + timedelta(seconds=self.renew_every))):
            return
        while self._is_leader and not self._stop.is_set():
            remaining = self._until(self._renewed_at + timedelta(seconds=self.renew_deadline))
            if remaining <= 0:
                self._set_leader(False, "could not renew within the deadline")
                return
            started = self._clock()
            held = await self._attempt(within=remaining)
            if held:
                self._renewed_at = started
                return
            if held is False:
                self._set_leader(False, "another replica holds the lease")
                return
            await self._pause(min(self._jittered(self.retry_every), max(0.0, self._until_deadline())))

    def _until_deadline(self) -> float:
        assert self._renewed_at is not None
        return self._until(self._renewed_at + timedelta(seconds=self.renew_deadline))

    def _until(self, moment: datetime) -> float:
        return (moment - self._clock()).total_seconds()

    def _jittered(self, seconds: float) -> float:
        return seconds * self._rng.uniform(0.9, 1.1)

    async def _pause(self, seconds: float) -> bool:
        """Wait `seconds` or until stop(); True when stopping."""
        if seconds > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(seconds):
                    await self._stop.wait()
        return self._stop.is_set()

    def _set_leader(self, leader: bool, why: str) -> None:
        if leader == self._is_leader or (leader and self._stop.is_set()):
            return
        self._is_leader = leader
        if leader:
            self.following.clear()
            self.leading.set()
        else:
            self.leading.clear()
            self.following.set()
        log.info(
            "leadership acquired" if leader else "leadership lost",
            extra={"lease": f"{self.namespace}/{self.name}", "identity": self.identity, "reason": why},
        )
        for listener in list(self._listeners):
            try:
                listener(leader)
            except Exception:
                log.exception("leader election: the on_change callback failed")

    # -- one try -------------------------------------------------------------------------------------

    async def _attempt(self, *, within: float) -> bool | None:
        """Take or renew the Lease. True: we hold it; False: another replica does (or won the race);
        None: we cannot tell (the API server failed, or `within` seconds passed)."""
        try:
            async with asyncio.timeout(within) as scope:
                self._attempt_scope = scope
                return await self._try_acquire_or_renew()
        except TimeoutError:
            if not self._stop.is_set():
                log.warning("leader election: the API server is too slow", extra={"lease": self._what})
            return None
        except BotError as error:
            log.warning("leader election: cannot reach the Lease", extra={"lease": self._what, "error": str(error)})
            return None
        finally:
            self._attempt_scope = None

    async def _try_acquire_or_renew(self) -> bool:
        now = self._clock()
        try:
            lease = await asyncio.to_thread(self.client.get, self._path, what=self._what)
        except NotFound:
            body = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {"name": self.name, "namespace": self.namespace},
                "spec": self._spec(now, acquired=now, transitions=0),
            }
            collection = self._path.rpartition("/")[0]
            try:
                await asyncio.to_thread(self.client.create, collection, body, what=self._what)
            except AlreadyExists:
                return False
            self.holder, self._wrote, self._token = self.identity, True, 0
            return True
        spec = lease.get("spec") or {}
        holder = str(spec.get("holderIdentity") or "")
        self._observe(lease, now)
        self.holder = holder
        if holder and holder != self.identity and not self._expired(spec, now):
            return False
        if holder == self.identity:
            acquired = spec.get("acquireTime") or _micro_time(now)
            transitions = int(spec.get("leaseTransitions") or 0)
        else:
            acquired = _micro_time(now)
            transitions = int(spec.get("leaseTransitions") or 0) + 1
        body = {**lease, "spec": {**spec, **self._spec(now, acquired=acquired, transitions=transitions)}}
        try:
            await asyncio.to_thread(self.client.replace, self._path, body, what=self._what)
        except Conflict:
            return False  # someone else wrote first: they won this round
        self.holder, self._wrote, self._token = self.identity, True, transitions
        return True

    def _spec(self, now: datetime, *, acquired: datetime | str, transitions: int) -> dict[str, Any]:
        return {
            "holderIdentity": self.identity,
            "leaseDurationSeconds": math.ceil(self.lease_seconds),
            "acquireTime": acquired if isinstance(acquired, str) else _micro_time(acquired),
            "renewTime": _micro_time(now),
            "leaseTransitions": transitions,
        }

    def _observe(self, lease: dict[str, Any], now: datetime) -> None:
        """Remember when the Lease was last seen to change (by our clock)."""
        spec = lease.get("spec") or {}
        seen = ((lease.get("metadata") or {}).get("resourceVersion"), spec.get("holderIdentity"), spec.get("renewTime"))
        if seen != self._observed:
            self._observed, self._observed_at = seen, now

    def _expired(self, spec: dict[str, Any], now: datetime) -> bool:
        assert self._observed_at is not None
        duration = spec.get("leaseDurationSeconds") or self.lease_seconds
        return now >= self._observed_at + timedelta(seconds=float(duration))

    async def _release(self) -> None:
        """Clear holderIdentity if we still hold the Lease (best effort: otherwise it expires)."""
        try:
            async with asyncio.timeout(self.renew_deadline):
                lease = await asyncio.to_thread(self.client.get, self._path, what=self._what)
                spec = lease.get("spec") or {}
                if spec.get("holderIdentity") != self.identity:
                    return
                now = _micro_time(self._clock())
                released = {**spec, "holderIdentity": None, "leaseDurationSeconds": 1, "renewTime": now}
                await asyncio.to_thread(self.client.replace, self._path, {**lease, "spec": released}, what=self._what)
            self.holder, self._wrote = "", False
            log.info("leadership released", extra={"lease": self._what, "identity": self.identity})
        except (BotError, TimeoutError) as error:
            log.warning(
                "leader election: could not release the Lease", extra={"lease": self._what, "error": str(error)}
            )
