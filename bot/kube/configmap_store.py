"""The notification state in ConfigMaps of the bot's own namespace (STATE_URL=kubernetes://), shared by replicas.

Layout: the records are spread over shards, each one ConfigMap, by a stable hash of their identity, so that
every change touches exactly one ConfigMap (one optimistic-concurrency write is atomic) and no ConfigMap
nears the API server's 1 MiB limit:

    <prefix>-subscriptions-0..3   data: {"format": "1", "subscriptions.json": "[{...}, ...]"}   by user/ns/name
    <prefix>-deliveries-0..7      data: {"format": "1", "deliveries.json": "[...]"}             by key + target
    <prefix>-preferences-0..1     data: {"format": "1", "snoozes.json": "[...]", "mutes.json": "[...]"} by user

Each record is a JSON object (times as 2026-11-03T10:00:00.000000Z), each list sorted by identity, so an
unchanged shard encodes to the same text and is not written. Shards are created on their first write and
carry the label kueue-bot/store=<prefix>; `load()` is one LIST by that label (a consistent snapshot).

A change: GET the shard (its resourceVersion) -> apply -> PUT with that resourceVersion (POST when the
shard does not exist yet). 409 Conflict or AlreadyExists: another replica wrote first; read again and
re-apply, up to `Retry.conflicts` times with jittered backoff. A failing or unreachable API server is
retried `Retry.failures` times. Then StoreUnavailable, with the cause chained. A shard that would grow past
`max_shard_bytes` (900 KiB) is refused with StoreUnavailable rather than sent to be rejected.

The shard counts are part of the format: changing them would strand records in the wrong shard.

Fencing: a write that carries a `Fence` (the notifier's, as leader) is refused with Fenced when the shard
records a newer fence (data key "fence": {"holder", "token"}), or when the Lease (`lease`, in the same
namespace) names another holder or another tenure at that moment; the shard is written with the fence, in
the same optimistic-concurrency PUT, so a frozen leader that resumes cannot write over its successor.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import zlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from bot.errors import BotError, ClusterUnavailable, Fenced, Forbidden, StoreUnavailable
from bot.kube.client import AlreadyExists, Conflict, KubeClient, NotFound
from bot.notify.state import Delivery, Fence, Mute, Snooze, State, Subscription, format_time, parse_time, utc
from bot.notify.store import check_fence

if TYPE_CHECKING:
    from bot.kube.configmap_history import ConfigMapHistory
    from bot.notify.store import StateStore

FENCE_KEY = "fence"
log = logging.getLogger(__name__)

T = TypeVar("T")

FORMAT = "1"
MAX_SHARD_BYTES = 900 * 1024
STORE_LABEL = "kueue-bot/store"
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,200}[a-z0-9])?$")


@dataclass(frozen=True)
class _Section:
    name: str
    shards: int
    keys: tuple[str, ...]  # the data keys (record lists) of its ConfigMaps


SUBSCRIPTIONS = _Section("subscriptions", 4, ("subscriptions.json",))
DELIVERIES = _Section("deliveries", 8, ("deliveries.json",))
PREFERENCES = _Section("preferences", 2, ("snoozes.json", "mutes.json"))
SECTIONS = (SUBSCRIPTIONS, DELIVERIES, PREFERENCES)


@dataclass(frozen=True)
class Retry:
    conflicts: int = 16  # attempts when another replica wrote the shard first
    failures: int = 4  # attempts when the API server fails (5xx, 429) or cannot be reached
    base: float = 0.02  # seconds; doubled per attempt, capped, jittered
    cap: float = 1.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        ceiling = min(self.cap, self.base * 2.0 ** max(0, attempt - 1))
        return rng.uniform(ceiling / 2, ceiling)


@dataclass
class _Records:
    """The decoded content of one shard, changed in place by an operation."""

    subscriptions: list[Subscription] = field(default_factory=list)
    deliveries: list[Delivery] = field(default_factory=list)
    snoozes: list[Snooze] = field(default_factory=list)
    mutes: list[Mute] = field(default_factory=list)


# -------------------------------------------------------------------------------------------------
# JSON records


def _time(value: datetime | None) -> str | None:
    return None if value is None else format_time(value)


def _encode(records: _Records, section: _Section) -> dict[str, str]:
    lists: dict[str, list[dict[str, Any]]] = {
        "subscriptions.json": [
            {"user": s.user, "namespace": s.namespace, "name": s.name, "kind": s.kind, "created": _time(s.created)}
            for s in sorted(records.subscriptions, key=lambda s: (s.user, s.namespace, s.name))
        ],
        "deliveries.json": [
            {
                "key": d.key,
                "target": d.target,
                "channel": d.channel,
                "ts": d.ts,
                "verdict": d.verdict,
                "position": d.position,
                "headline": d.headline,
                "sentAt": _time(d.sent_at),
                "updatedAt": _time(d.updated_at),
                "closedAt": _time(d.closed_at),
                "digest": d.digest,
                **({"job": d.job} if d.job else {}),  # both added later: absent when unknown
                **({"since": _time(d.since)} if d.since is not None else {}),
            }
            for d in sorted(records.deliveries, key=lambda d: (d.key, d.target))
        ],
        "snoozes.json": [
            {"user": s.user, "key": s.key, "until": _time(s.until)}
            for s in sorted(records.snoozes, key=lambda s: (s.user, s.key))
        ],
        "mutes.json": [{"user": m.user, "since": _time(m.since)} for m in sorted(records.mutes, key=lambda m: m.user)],
    }
    data = {key: json.dumps(lists[key], separators=(",", ":"), ensure_ascii=False) for key in section.keys}
    return {"format": FORMAT, **data}


def _optional_time(value: Any) -> datetime | None:
    return None if value is None else parse_time(str(value))


def _decode(configmap: Mapping[str, Any] | None, section: _Section, into: _Records | None = None) -> _Records:
    """The records of a shard (none when it does not exist). StoreUnavailable when it cannot be read: then it
    must not be written over either."""
    records = into if into is not None else _Records()
    if configmap is None:
        return records
    name = (configmap.get("metadata") or {}).get("name", "?")
    data = configmap.get("data") or {}
    try:
        if str(data.get("format", FORMAT)) != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, this bot knows {FORMAT!r}")
        for key in section.keys:
            items = json.loads(data.get(key) or "[]")
            if not isinstance(items, list):
                raise ValueError(f"{key} is not a JSON list")
            for item in items:
                if key == "subscriptions.json":
                    records.subscriptions.append(
                        Subscription(
                            str(item["user"]),
                            str(item["namespace"]),
                            str(item["name"]),
                            item.get("kind"),
                            parse_time(item["created"]),
                        )
                    )
                elif key == "deliveries.json":
                    records.deliveries.append(
                        Delivery(
                            key=str(item["key"]),
                            target=str(item["target"]),
                            channel=str(item["channel"]),
                            ts=item.get("ts"),
                            verdict=str(item["verdict"]),
                            position=item.get("position"),
                            headline=str(item["headline"]),
                            sent_at=parse_time(item["sentAt"]),
                            updated_at=parse_time(item["updatedAt"]),
                            closed_at=_optional_time(item.get("closedAt")),
                            digest=bool(item.get("digest", False)),
                            job=str(item.get("job") or ""),
                            since=_optional_time(item.get("since")),
                        )
                    )
                elif key == "snoozes.json":
                    records.snoozes.append(Snooze(str(item["user"]), str(item["key"]), parse_time(item["until"])))
                else:
                    records.mutes.append(Mute(str(item["user"]), parse_time(item["since"])))
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise StoreUnavailable(f"the state ConfigMap {name} cannot be read ({error}); it is left untouched") from error
    return records


def _shard(identity: str, section: _Section) -> int:
    return zlib.crc32(identity.encode()) % section.shards


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

    def shard_name(self, section: _Section, index: int) -> str:
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
        self, section: _Section, index: int, change: Callable[[_Records], T], fence: Fence | None = None
    ) -> T:
        """Read-modify-write one shard under optimistic concurrency. `change` may run more than once."""
        name = self.shard_name(section, index)
        lock = self._locks.setdefault(name, asyncio.Lock())

        async def attempt() -> T:
            current = await self._read_shard(name)
            if fence is not None:
                check_fence(self._shard_fence(current), fence, f"the state ConfigMap {self.namespace}/{name}")
            records = _decode(current, section)
            before = _encode(records, section)
            result = change(records)
            after = _encode(records, section)
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
            what = f"the ConfigMap {self.namespace}/{name}"
            if current is None:
                body = {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": name, "namespace": self.namespace, "labels": self._labels(section)},
                    "data": after,
                }
                try:
                    await asyncio.to_thread(self.client.create, self._collection, body, what=what)
                except NotFound as error:
                    raise StoreUnavailable(f"the namespace {self.namespace} of the state does not exist") from error
            else:
                metadata = dict(current.get("metadata") or {})
                metadata["labels"] = {**(metadata.get("labels") or {}), **self._labels(section)}
                body = {**current, "metadata": metadata, "data": {**(current.get("data") or {}), **after}}
                try:
                    await asyncio.to_thread(self.client.replace, f"{self._collection}/{name}", body, what=what)
                except NotFound as error:  # deleted since we read it: as good as a conflict
                    raise Conflict(str(error)) from error
            return result

        async with lock:
            return await self._retrying(f"writing {name}", attempt)

    def _labels(self, section: _Section) -> dict[str, str]:
        return {
            STORE_LABEL: self.name_prefix,
            "app.kubernetes.io/managed-by": "kueue-bot",
            "app.kubernetes.io/component": f"state-{section.name}",
        }

    async def rewrite(
        self, name: str, component: str, edit: Callable[[Mapping[str, str]], dict[str, str] | None]
    ) -> None:
        """Read-modify-write the data of the ConfigMap `<prefix>-<name>` (another part of the state kept
        beside these sections: bot.kube.configmap_history), under the same optimistic concurrency, limits and
        labels. `edit` gets its data ({} when it does not exist yet) and returns the keys to set, or None for
        no change; it may run more than once."""
        full = f"{self.name_prefix}-{name}"
        lock = self._locks.setdefault(full, asyncio.Lock())
        what = f"the ConfigMap {self.namespace}/{full}"
        labels = {  # not the sections' label value: their load() does not list these
            STORE_LABEL: f"{self.name_prefix}-{component}",
            "app.kubernetes.io/managed-by": "kueue-bot",
            "app.kubernetes.io/component": f"state-{component}",
        }

        async def attempt() -> None:
            current = await self._read_shard(full)
            data = dict((current or {}).get("data") or {})
            changed = edit(data)
            if changed is None or all(data.get(k) == v for k, v in changed.items()):
                return
            data.update(changed)
            size = sum(len(k.encode()) + len(v.encode()) for k, v in data.items())
            if size > self.max_shard_bytes:
                raise StoreUnavailable(f"{what} would grow to {size} bytes, past {self.max_shard_bytes}")
            if current is None:
                body = {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": full, "namespace": self.namespace, "labels": labels},
                    "data": data,
                }
                try:
                    await asyncio.to_thread(self.client.create, self._collection, body, what=what)
                except NotFound as error:
                    raise StoreUnavailable(f"the namespace {self.namespace} of the state does not exist") from error
            else:
                metadata = dict(current.get("metadata") or {})
                metadata["labels"] = {**(metadata.get("labels") or {}), **labels}
                body = {**current, "metadata": metadata, "data": data}
                try:
                    await asyncio.to_thread(self.client.replace, f"{self._collection}/{full}", body, what=what)
                except NotFound as error:  # deleted since we read it: as good as a conflict
                    raise Conflict(str(error)) from error

        async with lock:
            await self._retrying(f"writing {full}", attempt)

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
            records = _Records()
            for item in items:
                section = sections.get((item.get("metadata") or {}).get("name", ""))
                if section is not None:
                    _decode(item, section, into=records)
            return State.of(records.subscriptions, records.deliveries, records.snoozes, records.mutes)

        return await self._retrying("reading", attempt)

    async def subscribe(self, subscription: Subscription) -> bool:
        s = subscription

        def change(records: _Records) -> bool:
            if any((o.user, o.namespace, o.name) == (s.user, s.namespace, s.name) for o in records.subscriptions):
                return False
            records.subscriptions.append(s)
            return True

        return await self._change(SUBSCRIPTIONS, _shard(f"{s.user}/{s.namespace}/{s.name}", SUBSCRIPTIONS), change)

    async def unsubscribe(self, user: str, namespace: str, name: str, *, fence: Fence | None = None) -> bool:
        def change(records: _Records) -> bool:
            kept = [o for o in records.subscriptions if (o.user, o.namespace, o.name) != (user, namespace, name)]
            removed = len(kept) != len(records.subscriptions)
            records.subscriptions[:] = kept
            return removed

        return await self._change(SUBSCRIPTIONS, _shard(f"{user}/{namespace}/{name}", SUBSCRIPTIONS), change, fence)

    async def _change_delivery(
        self, key: str, target: str, change: Callable[[Delivery | None], Delivery | None], fence: Fence | None
    ) -> bool:
        """Replace the delivery (key, target) by change(it or None); False when `change` left it as it was."""

        def apply(records: _Records) -> bool:
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

        return await self._change(DELIVERIES, _shard(f"{key}\n{target}", DELIVERIES), apply, fence)

    async def record_intent(
        self,
        key: str,
        target: str,
        verdict: str,
        position: int | None,
        headline: str,
        now: datetime,
        *,
        digest: bool = False,
        job: str = "",
        since: datetime | None = None,
        replace: bool = False,
        fence: Fence | None = None,
    ) -> bool:
        intent = Delivery(key, target, "", None, verdict, position, headline, now, now, None, digest, job, since)

        def change(old: Delivery | None) -> Delivery | None:
            if old is not None and old.closed_at is None and (old.ts is not None or not replace):
                return old  # someone sent (or is sending) it since the caller looked
            return intent

        return await self._change_delivery(key, target, change, fence)

    async def record_sent(
        self,
        key: str,
        target: str,
        channel: str,
        ts: str,
        verdict: str,
        position: int | None,
        headline: str,
        now: datetime,
        *,
        digest: bool | None = None,
        job: str | None = None,
        since: datetime | None = None,
        fence: Fence | None = None,
    ) -> None:
        def change(old: Delivery | None) -> Delivery:
            flag = digest if digest is not None else (old.digest if old is not None else False)
            name = job if job is not None else (old.job if old is not None else "")
            started = since if since is not None else (old.since if old is not None else None)
            return Delivery(key, target, channel, ts, verdict, position, headline, now, now, None, flag, name, started)

        await self._change_delivery(key, target, change, fence)

    async def record_update(
        self,
        key: str,
        target: str,
        verdict: str,
        position: int | None,
        headline: str,
        now: datetime,
        *,
        fence: Fence | None = None,
    ) -> bool:
        def change(old: Delivery | None) -> Delivery | None:
            if old is None:
                return None
            return Delivery(
                old.key, old.target, old.channel, old.ts, verdict, position, headline, old.sent_at, now,
                old.closed_at, old.digest, old.job, old.since,
            )  # fmt: skip

        return await self._change_delivery(key, target, change, fence)

    async def close(self, key: str, target: str, now: datetime, *, fence: Fence | None = None) -> bool:
        def change(old: Delivery | None) -> Delivery | None:
            if old is None or old.closed_at is not None:
                return old
            return Delivery(
                old.key, old.target, old.channel, old.ts, old.verdict, old.position, old.headline, old.sent_at,
                old.updated_at, now, old.digest, old.job, old.since,
            )  # fmt: skip

        return await self._change_delivery(key, target, change, fence)

    async def forget_closed(self, before: datetime, *, fence: Fence | None = None) -> int:
        before = utc(before)

        def forget_deliveries(records: _Records) -> int:
            kept = [d for d in records.deliveries if d.closed_at is None or d.closed_at >= before]
            forgotten = len(records.deliveries) - len(kept)
            records.deliveries[:] = kept
            return forgotten

        def forget_snoozes(records: _Records) -> int:
            records.snoozes[:] = [s for s in records.snoozes if s.until >= before]
            return 0

        forgotten = 0
        for index in range(DELIVERIES.shards):
            forgotten += await self._change(DELIVERIES, index, forget_deliveries, fence)
        for index in range(PREFERENCES.shards):
            await self._change(PREFERENCES, index, forget_snoozes, fence)
        return forgotten

    async def _change_preferences(self, user: str, change: Callable[[_Records], T]) -> T:
        return await self._change(PREFERENCES, _shard(user, PREFERENCES), change)

    async def snooze(self, user: str, key: str, until: datetime) -> None:
        def change(records: _Records) -> None:
            records.snoozes[:] = [s for s in records.snoozes if (s.user, s.key) != (user, key)]
            records.snoozes.append(Snooze(user, key, until))

        await self._change_preferences(user, change)

    async def unsnooze(self, user: str, key: str) -> bool:
        def change(records: _Records) -> bool:
            kept = [s for s in records.snoozes if (s.user, s.key) != (user, key)]
            removed = len(kept) != len(records.snoozes)
            records.snoozes[:] = kept
            return removed

        return await self._change_preferences(user, change)

    async def mute(self, user: str, now: datetime) -> bool:
        def change(records: _Records) -> bool:
            if any(m.user == user for m in records.mutes):
                return False
            records.mutes.append(Mute(user, now))
            return True

        return await self._change_preferences(user, change)

    async def unmute(self, user: str) -> bool:
        def change(records: _Records) -> bool:
            kept = [m for m in records.mutes if m.user != user]
            removed = len(kept) != len(records.mutes)
            records.mutes[:] = kept
            return removed

        return await self._change_preferences(user, change)

    async def aclose(self) -> None:
        """Nothing to release (the client belongs to the caller); later calls raise StoreUnavailable."""
        self._closed = True


if TYPE_CHECKING:

    def _conforms(store: ConfigMapStore) -> StateStore:  # mypy checks that ConfigMapStore is a StateStore
        return store
