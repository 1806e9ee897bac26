"""The notification state in ConfigMaps of the bot's own namespace (STATE_URL=kubernetes://), shared by replicas.

The records and their layout in shards: bot.kube.configmap_records. Shards are created on their first
write and carry the label kueue-bot/store=<prefix>; `load()` is one LIST by that label (a consistent snapshot).

A change: GET the shard (its resourceVersion) -> apply -> PUT with that resourceVersion (POST when the
shard does not exist yet). 409 Conflict or AlreadyExists: another replica wrote first; read again and
re-apply, up to `Retry.conflicts` times with jittered backoff. A failing or unreachable API server is
retried `Retry.failures` times. Then StoreUnavailable, with the cause chained. A shard that would grow past
`max_shard_bytes` (900 KiB) is refused with StoreUnavailable rather than sent to be rejected.

Fencing: a write that carries a `Fence` (the notifier's, as leader) is refused with Fenced when the shard
records a newer fence (data key "fence": {"holder", "token"}), or when the Lease (`lease`, in the same
namespace) names another holder or another tenure at that moment; the shard is written with the fence, in
the same optimistic-concurrency PUT, so a frozen leader that resumes cannot write over its successor.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from bot.errors import BotError, ClusterUnavailable, Fenced, Forbidden, StoreUnavailable
from bot.kube.client import AlreadyExists, Conflict, KubeClient, NotFound
from bot.kube.configmap_records import (
    DELIVERIES,
    PREFERENCES,
    SECTIONS,
    SUBSCRIPTIONS,
    Records,
    Section,
    decode,
    encode,
    shard_of,
)
from bot.notify.state import Delivery, Fence, Mute, Snooze, State, Subscription, Told, utc
from bot.notify.store import check_fence

if TYPE_CHECKING:
    from bot.kube.configmap_digests import ConfigMapDigests
    from bot.kube.configmap_history import ConfigMapHistory
    from bot.notify.store import StateStore

FENCE_KEY = "fence"
log = logging.getLogger(__name__)

T = TypeVar("T")

MAX_SHARD_BYTES = 900 * 1024
STORE_LABEL = "kueue-bot/store"
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,200}[a-z0-9])?$")


@dataclass(frozen=True)
class Retry:
    conflicts: int = 16  # attempts when another replica wrote the shard first
    failures: int = 4  # attempts when the API server fails (5xx, 429) or cannot be reached
    base: float = 0.02  # seconds; doubled per attempt, capped, jittered
    cap: float = 1.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        ceiling = min(self.cap, self.base * 2.0 ** max(0, attempt - 1))
        return rng.uniform(ceiling / 2, ceiling)


def _unavailable(error: BotError, what: str) -> StoreUnavailable:
    return StoreUnavailable(f"cannot keep the bot's state in ConfigMaps ({what}): {error}")


# -------------------------------------------------------------------------------------------------


class ConfigMapStore:
    """A StateStore (bot.notify.store) in ConfigMaps of `namespace`. Several replicas may share it."""

    def __init__(
        self,
        client: KubeClient,
        namespace: str,
        name_prefix: str = "kueue-bot-state",
        *,
        max_shard_bytes: int = MAX_SHARD_BYTES,
        retry: Retry = Retry(),  # frozen: one shared default is safe
        rng: random.Random | None = None,
        lease: str | None = None,
    ) -> None:
        """lease: the leader election's Lease in `namespace`, checked by every fenced write."""
        if not _NAME.match(name_prefix):
            raise ValueError(f"{name_prefix!r} cannot start a ConfigMap name (lowercase letters, digits, -)")
        self.client = client
        self.namespace = namespace
        self.name_prefix = name_prefix
        self.max_shard_bytes = max_shard_bytes
        self.retry = retry
        self._rng = rng or random.Random()
        self.lease = lease
        self._locks: dict[str, asyncio.Lock] = {}  # one writer per shard in this replica: fewer 409s
        self._closed = False

    def __repr__(self) -> str:
        return f"ConfigMapStore({self.namespace}/{self.name_prefix}-*)"

    def shard_name(self, section: Section, index: int) -> str:
        return f"{self.name_prefix}-{section.name}-{index}"

    @property
    def _collection(self) -> str:
        return f"/api/v1/namespaces/{self.namespace}/configmaps"

    # -- plumbing ------------------------------------------------------------------------------------

    async def _retrying(self, what: str, attempt: Callable[[], Awaitable[T]]) -> T:
        """`attempt` again after a Conflict/AlreadyExists or an unavailable API server, within bounds."""
        if self._closed:
            raise StoreUnavailable("the state store is closed")
        conflicts = failures = 0
        while True:
            try:
                return await attempt()
            except (Conflict, AlreadyExists) as error:
                conflicts += 1
                if conflicts >= self.retry.conflicts:
                    raise StoreUnavailable(
                        f"the state ConfigMaps kept changing under us ({conflicts} conflicts while {what})"
                    ) from error
                delay = self.retry.backoff(conflicts, self._rng)
                log.debug("state write conflict, retrying", extra={"what": what, "conflicts": conflicts})
            except Forbidden as error:
                raise StoreUnavailable(
                    f"the bot may not use its state ConfigMaps in {self.namespace} ({what}): {error}; its Role must "
                    "allow get, list, create and update on configmaps"
                ) from error
            except ClusterUnavailable as error:
                failures += 1
                if failures >= self.retry.failures:
                    raise _unavailable(error, what) from error
                delay = self.retry.backoff(failures, self._rng)
                log.warning("state store: API server unavailable, retrying", extra={"what": what, "error": str(error)})
            except StoreUnavailable:
                raise
            except BotError as error:
                raise _unavailable(error, what) from error
            await asyncio.sleep(delay)

    async def _read_shard(self, name: str) -> dict[str, Any] | None:
        try:
            return await asyncio.to_thread(
                self.client.get, f"{self._collection}/{name}", what=f"the ConfigMap {self.namespace}/{name}"
            )
        except NotFound:
            return None

    def _shard_fence(self, current: Mapping[str, Any] | None) -> tuple[str, int] | None:
        text = ((current or {}).get("data") or {}).get(FENCE_KEY)
        if not text:
            return None
        try:
            seen = json.loads(text)
            return str(seen["holder"]), int(seen["token"])
        except (ValueError, TypeError, KeyError) as error:
            raise StoreUnavailable(f"the state ConfigMap's fence cannot be read ({error}); left untouched") from error

    async def _check_lease(self, fence: Fence) -> None:
        """Fenced unless the Lease names `fence`'s holder and tenure right now."""
        if self.lease is None:
            return
        path = f"/apis/coordination.k8s.io/v1/namespaces/{self.namespace}/leases/{self.lease}"
        what = f"the Lease {self.namespace}/{self.lease}"
        try:
            lease = await asyncio.to_thread(self.client.get, path, what=what)
        except NotFound as error:
            raise Fenced(f"{what} does not exist: {fence.holder} does not lead; the write was refused") from error
        spec = lease.get("spec") or {}
        holder, token = str(spec.get("holderIdentity") or ""), int(spec.get("leaseTransitions") or 0)
        if (holder, token) != (fence.holder, fence.token):
            raise Fenced(
                f"{what} is held by {holder or 'nobody'} (token {token}), not by {fence.holder} "
                f"(token {fence.token}): the write was refused"
            )

    async def _change(
        self, section: Section, index: int, change: Callable[[Records], T], fence: Fence | None = None
    ) -> T:
        """Read-modify-write one shard under optimistic concurrency. `change` may run more than once."""
        name = self.shard_name(section, index)
        lock = self._locks.setdefault(name, asyncio.Lock())

        async def attempt() -> T:
            current = await self._read_shard(name)
            if fence is not None:
                check_fence(self._shard_fence(current), fence, f"the state ConfigMap {self.namespace}/{name}")
            records = decode(current, section)
            before = encode(records, section)
            result = change(records)
            after = encode(records, section)
            if after == before:
                return result
            if fence is not None:
                await self._check_lease(fence)
                after[FENCE_KEY] = json.dumps({"holder": fence.holder, "token": fence.token}, separators=(",", ":"))
            size = sum(len(k.encode()) + len(v.encode()) for k, v in after.items())
            if size > self.max_shard_bytes:
                raise StoreUnavailable(
                    f"the state ConfigMap {self.namespace}/{name} would grow to {size} bytes, past "
                    f"{self.max_shard_bytes}; forget closed deliveries sooner"
                )
            data = after if current is None else {**(current.get("data") or {}), **after}
            await self._write(name, current, data, self._labels(self.name_prefix, section.name))
            return result

        async with lock:
            return await self._retrying(f"writing {name}", attempt)

    async def _write(
        self, name: str, current: Mapping[str, Any] | None, data: dict[str, str], labels: dict[str, str]
    ) -> None:
        """Create the ConfigMap `name` (`current` None) or replace `current` (its resourceVersion: a Conflict
        when another replica wrote it since): `data` becomes its data, `labels` are added to its own."""
        what = f"the ConfigMap {self.namespace}/{name}"
        if current is None:
            body = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": self.namespace, "labels": labels},
                "data": data,
            }
            try:
                await asyncio.to_thread(self.client.create, self._collection, body, what=what)
            except NotFound as error:
                raise StoreUnavailable(f"the namespace {self.namespace} of the state does not exist") from error
            return
        metadata = dict(current.get("metadata") or {})
        metadata["labels"] = {**(metadata.get("labels") or {}), **labels}
        body = {**current, "metadata": metadata, "data": data}
        try:
            await asyncio.to_thread(self.client.replace, f"{self._collection}/{name}", body, what=what)
        except NotFound as error:  # deleted since we read it: as good as a conflict
            raise Conflict(str(error)) from error

    def _labels(self, store: str, component: str) -> dict[str, str]:
        return {
            STORE_LABEL: store,
            "app.kubernetes.io/managed-by": "kueue-bot",
            "app.kubernetes.io/component": f"state-{component}",
        }

    async def rewrite(
        self,
        name: str,
        component: str,
        edit: Callable[[Mapping[str, str]], dict[str, str] | None],
        *,
        fence: Fence | None = None,
    ) -> None:
        """Read-modify-write the data of the ConfigMap `<prefix>-<name>` (another part of the state kept
        beside these sections: bot.kube.configmap_history), under the same optimistic concurrency, limits,
        labels and fencing. `edit` gets its data ({} when it does not exist yet) and returns the keys to set, or
        None for no change; it may run more than once."""
        full = f"{self.name_prefix}-{name}"
        lock = self._locks.setdefault(full, asyncio.Lock())
        what = f"the ConfigMap {self.namespace}/{full}"
        labels = self._labels(f"{self.name_prefix}-{component}", component)  # not the sections': load() skips it

        async def attempt() -> None:
            current = await self._read_shard(full)
            if fence is not None:
                check_fence(self._shard_fence(current), fence, what)
            data = dict((current or {}).get("data") or {})
            changed = edit(data)
            if changed is None or all(data.get(k) == v for k, v in changed.items()):
                return
            data.update(changed)
            if fence is not None:
                await self._check_lease(fence)
                data[FENCE_KEY] = json.dumps({"holder": fence.holder, "token": fence.token}, separators=(",", ":"))
            size = sum(len(k.encode()) + len(v.encode()) for k, v in data.items())
            if size > self.max_shard_bytes:
                raise StoreUnavailable(f"{what} would grow to {size} bytes, past {self.max_shard_bytes}")
            await self._write(full, current, data, labels)

        async with lock:
            await self._retrying(f"writing {full}", attempt)

    def digest_store(self) -> ConfigMapDigests:
        """The admins' digest records kept beside this state (bot.kube.configmap_digests)."""
        from bot.kube.configmap_digests import ConfigMapDigests

        return ConfigMapDigests(self)

    def history_store(self) -> ConfigMapHistory:
        """The queue history kept beside this state (bot.kube.configmap_history)."""
        from bot.kube.configmap_history import ConfigMapHistory

        return ConfigMapHistory(self)

    async def read_all(self, component: str) -> list[Mapping[str, str]]:
        """The data of every ConfigMap `rewrite` wrote for `component` (one LIST by label)."""

        def list_them() -> list[dict[str, Any]]:
            query = {"labelSelector": f"{STORE_LABEL}={self.name_prefix}-{component}"}
            return list(self.client.list(self._collection, query, what=f"the state ConfigMaps in {self.namespace}"))

        async def attempt() -> list[Mapping[str, str]]:
            return [dict(item.get("data") or {}) for item in await asyncio.to_thread(list_them)]

        return await self._retrying("reading", attempt)

    # -- the port ------------------------------------------------------------------------------------

    async def load(self) -> State:
        def list_shards() -> list[dict[str, Any]]:
            query = {"labelSelector": f"{STORE_LABEL}={self.name_prefix}"}
            return list(self.client.list(self._collection, query, what=f"the state ConfigMaps in {self.namespace}"))

        async def attempt() -> State:
            items = await asyncio.to_thread(list_shards)
            sections = {self.shard_name(s, i): s for s in SECTIONS for i in range(s.shards)}
            records = Records()
            for item in items:
                section = sections.get((item.get("metadata") or {}).get("name", ""))
                if section is not None:
                    decode(item, section, into=records)
            return State.of(records.subscriptions, records.deliveries, records.snoozes, records.mutes)

        return await self._retrying("reading", attempt)

    async def subscribe(self, subscription: Subscription) -> bool:
        s = subscription

        def change(records: Records) -> bool:
            if any((o.user, o.namespace, o.name) == (s.user, s.namespace, s.name) for o in records.subscriptions):
                return False
            records.subscriptions.append(s)
            return True

        return await self._change(SUBSCRIPTIONS, shard_of(f"{s.user}/{s.namespace}/{s.name}", SUBSCRIPTIONS), change)

    async def unsubscribe(self, user: str, namespace: str, name: str, *, fence: Fence | None = None) -> bool:
        def change(records: Records) -> bool:
            kept = [o for o in records.subscriptions if (o.user, o.namespace, o.name) != (user, namespace, name)]
            removed = len(kept) != len(records.subscriptions)
            records.subscriptions[:] = kept
            return removed

        return await self._change(SUBSCRIPTIONS, shard_of(f"{user}/{namespace}/{name}", SUBSCRIPTIONS), change, fence)

    async def _change_delivery(
        self, key: str, target: str, change: Callable[[Delivery | None], Delivery | None], fence: Fence | None
    ) -> bool:
        """Replace the delivery (key, target) by change(it or None); False when `change` left it as it was."""

        def apply(records: Records) -> bool:
            index = next((i for i, d in enumerate(records.deliveries) if (d.key, d.target) == (key, target)), None)
            old = records.deliveries[index] if index is not None else None
            new = change(old)
            if new is old:
                return False
            if index is None:
                records.deliveries.extend([new] if new is not None else [])
            elif new is None:
                del records.deliveries[index]
            else:
                records.deliveries[index] = new
            return True

        return await self._change(DELIVERIES, shard_of(f"{key}\n{target}", DELIVERIES), apply, fence)

    async def record_intent(
        self, told: Told, now: datetime, *, replace: bool = False, fence: Fence | None = None
    ) -> bool:
        intent = _delivery(told, "", None, now)

        def change(old: Delivery | None) -> Delivery | None:
            if old is not None and old.closed_at is None and (old.ts is not None or not replace):
                return old  # someone sent (or is sending) it since the caller looked
            return intent

        return await self._change_delivery(told.key, told.target, change, fence)

    async def record_sent(
        self, told: Told, channel: str, ts: str, now: datetime, *, fence: Fence | None = None
    ) -> None:
        sent = _delivery(told, channel, ts, now)
        await self._change_delivery(told.key, told.target, lambda old: sent, fence)

    async def record_update(self, told: Told, now: datetime, *, fence: Fence | None = None) -> bool:
        def change(old: Delivery | None) -> Delivery | None:
            if old is None:
                return None
            t = told
            return dataclasses.replace(
                old, verdict=t.verdict, position=t.position, headline=t.headline, eta=t.eta, updated_at=now
            )

        return await self._change_delivery(told.key, told.target, change, fence)

    async def close(self, key: str, target: str, now: datetime, *, fence: Fence | None = None) -> bool:
        def change(old: Delivery | None) -> Delivery | None:
            if old is None or old.closed_at is not None:
                return old
            return dataclasses.replace(old, closed_at=now)

        return await self._change_delivery(key, target, change, fence)

    async def forget_closed(self, before: datetime, *, fence: Fence | None = None) -> int:
        before = utc(before)

        def forget_deliveries(records: Records) -> int:
            kept = [d for d in records.deliveries if d.closed_at is None or d.closed_at >= before]
            forgotten = len(records.deliveries) - len(kept)
            records.deliveries[:] = kept
            return forgotten

        def forget_snoozes(records: Records) -> int:
            records.snoozes[:] = [s for s in records.snoozes if s.until >= before]
            return 0

        forgotten = 0
        for index in range(DELIVERIES.shards):
            forgotten += await self._change(DELIVERIES, index, forget_deliveries, fence)
        for index in range(PREFERENCES.shards):
            await self._change(PREFERENCES, index, forget_snoozes, fence)
        return forgotten

    async def _change_preferences(self, user: str, change: Callable[[Records], T]) -> T:
        return await self._change(PREFERENCES, shard_of(user, PREFERENCES), change)

    async def snooze(self, user: str, key: str, until: datetime) -> None:
        def change(records: Records) -> None:
            records.snoozes[:] = [s for s in records.snoozes if (s.user, s.key) != (user, key)]
            records.snoozes.append(Snooze(user, key, until))

        await self._change_preferences(user, change)

    async def unsnooze(self, user: str, key: str) -> bool:
        def change(records: Records) -> bool:
            kept = [s for s in records.snoozes if (s.user, s.key) != (user, key)]
            removed = len(kept) != len(records.snoozes)
            records.snoozes[:] = kept
            return removed

        return await self._change_preferences(user, change)

    async def mute(self, user: str, now: datetime) -> bool:
        def change(records: Records) -> bool:
            if any(m.user == user for m in records.mutes):
                return False
            records.mutes.append(Mute(user, now))
            return True

        return await self._change_preferences(user, change)

    async def unmute(self, user: str) -> bool:
        def change(records: Records) -> bool:
            kept = [m for m in records.mutes if m.user != user]
            removed = len(kept) != len(records.mutes)
            records.mutes[:] = kept
            return removed

        return await self._change_preferences(user, change)

    async def aclose(self) -> None:
        """Nothing to release (the client belongs to the caller); later calls raise StoreUnavailable."""
        self._closed = True


def _delivery(told: Told, channel: str, ts: str | None, now: datetime) -> Delivery:
    """A delivery open since `now`, as `told` says (unconfirmed while ts is None)."""
    t = told
    return Delivery(
        t.key, t.target, channel, ts, t.verdict, t.position, t.headline, now, now, None, t.digest, t.job, t.since, t.eta
    )


if TYPE_CHECKING:

    def _conforms(store: ConfigMapStore) -> StateStore:  # mypy checks that ConfigMapStore is a StateStore
        return store
