"""The fake's etcd: objects, one global resourceVersion counter, a bounded history of changes, watchers.

Thread-safe: tests change it from their own thread while the server reads it from its event loop.
Stored objects are never mutated in place (copies go in and out), so a past state can be rebuilt by
undoing the retained changes; a resourceVersion older than the retained history is "compacted" (410).
"""

from __future__ import annotations

import asyncio
import bisect
import copy
import threading
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any, Literal

from tests.fakes.kube_registry import ResourceType

Key = tuple[str, str, str, str]  # group, plural, namespace ("" when cluster-scoped), name
ChangeType = Literal["ADDED", "MODIFIED", "DELETED"]


def now_rfc3339() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def object_key(rt: ResourceType, obj: dict[str, Any]) -> Key:
    meta = obj["metadata"]
    return (rt.group, rt.plural, meta.get("namespace", "") if rt.namespaced else "", meta["name"])


@dataclass(frozen=True)
class Change:
    """One write, as a watch reports it. `prev` is the object before it (None for ADDED)."""

    rv: int
    type: ChangeType
    key: Key
    obj: dict[str, Any]
    prev: dict[str, Any] | None


class ObjectExistsError(Exception):
    pass


class ObjectMissingError(Exception):
    pass


class StaleResourceVersionError(Exception):
    pass


class CompactedError(Exception):
    """The resourceVersion asked for is older than the retained history."""

    def __init__(self, requested: int, compacted: int) -> None:
        super().__init__(f"too old resource version: {requested} ({compacted})")
        self.requested = requested
        self.compacted = compacted


class StreamEnd(Enum):
    """Put in a watcher's queue to end its stream."""

    CLOSE = "close"  # end the response cleanly (server stopping)
    DROP = "drop"  # cut the connection (fault injection, server going offline)


class Subscription:
    """A watcher: receives every change (of every kind, in resourceVersion order) on its event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[Change | StreamEnd] = asyncio.Queue()

    def deliver(self, item: Change | StreamEnd) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)


class ObjectStore:
    def __init__(self, history_window: int, first_resource_version: int = 1000) -> None:
        self._lock = threading.RLock()
        self._objects: dict[Key, dict[str, Any]] = {}
        # (group, plural) -> its keys, sorted; kept until an object of the kind comes or goes
        self._sorted: dict[tuple[str, str], list[Key]] = {}
        self._rv = first_resource_version
        self._log: deque[Change] = deque()
        self._window = history_window
        self._compacted = first_resource_version
        self._subscriptions: set[Subscription] = set()

    @property
    def resource_version(self) -> int:
        with self._lock:
            return self._rv

    def get(self, key: Key) -> dict[str, Any] | None:
        with self._lock:
            found = self._objects.get(key)
            return copy.deepcopy(found) if found is not None else None

    def list_kind(
        self, rt: ResourceType, namespace: str | None, at: int | None = None, *, copies: bool = True
    ) -> tuple[list[dict[str, Any]], int]:
        """Objects of a kind (in one namespace or all), sorted by key, at the current or a past version.
        `copies=False`: the stored objects themselves, for a caller that only reads them (never mutate)."""
        kind = (rt.group, rt.plural)
        with self._lock:
            objects, keys = self._keys_at(kind, at)
            items = [objects[key] for key in keys if namespace is None or key[2] == namespace]
            if copies:
                items = [copy.deepcopy(obj) for obj in items]
            return items, self._rv if at is None else at

    def page(
        self,
        rt: ResourceType,
        namespace: str | None,
        at: int | None = None,
        *,
        after: tuple[str, str] | None = None,
        keep: Callable[[dict[str, Any]], bool] | None = None,
        limit: int = 0,
    ) -> tuple[list[dict[str, Any]], int, int]:
        """One LIST page, as etcd serves a range: the stored objects (never mutate) of a kind (in one namespace or
        all) sorted by key, after the position `after` (namespace, name), those `keep` accepts, up to `limit` + 1
        of them (0: all); with the version and how many objects of the range follow the page's start (what
        remainingItemCount counts, selectors aside). Reads only the page's own keys while nothing changed since
        `at` (a 200,000-object kind served in pages of 500 is not copied whole for each page)."""
        kind = (rt.group, rt.plural)
        with self._lock:
            objects, keys = self._keys_at(kind, at)
            low, high = 0, len(keys)
            if namespace is not None:
                low = bisect.bisect_left(keys, (*kind, namespace))
                high = bisect.bisect_left(keys, (*kind, namespace + "\0"))
            if after is not None:
                low = max(low, bisect.bisect_right(keys, (*kind, *after)))
            found: list[dict[str, Any]] = []
            index = low
            while index < high and not (limit and len(found) > limit):
                obj = objects[keys[index]]
                if keep is None or keep(obj):
                    found.append(obj)
                index += 1
            return found, self._rv if at is None else at, high - low

    def _keys_at(self, kind: tuple[str, str], at: int | None) -> tuple[dict[Key, dict[str, Any]], list[Key]]:
        """The objects at the current or a past version, and a kind's keys among them in order (hold the lock)."""
        if at is None or not self._changed_since(at):
            keys = self._sorted.get(kind)
            if keys is None:
                keys = self._sorted[kind] = sorted(key for key in self._objects if key[:2] == kind)
            return self._objects, keys
        objects = self._state_at(at)
        return objects, sorted(key for key in objects if key[:2] == kind)

    def _changed_since(self, rv: int) -> bool:
        self.check_not_compacted(rv)
        return bool(self._log) and self._log[-1].rv > rv

    def check_not_compacted(self, rv: int) -> None:
        with self._lock:
            if rv < self._compacted:
                raise CompactedError(rv, self._compacted)

    def _state_at(self, rv: int) -> dict[Key, dict[str, Any]]:
        self.check_not_compacted(rv)
        state = dict(self._objects)
        for change in reversed(self._log):
            if change.rv <= rv:
                break
            if change.prev is None:
                state.pop(change.key, None)
            else:
                state[change.key] = change.prev
        return state

    def create(self, rt: ResourceType, obj: dict[str, Any], *, owned: bool = False) -> dict[str, Any]:
        """Store an object (a copy of it; `owned`: the object itself, which the caller no longer holds)."""
        if not owned:
            obj = copy.deepcopy(obj)
        key = object_key(rt, obj)
        with self._lock:
            if key in self._objects:
                raise ObjectExistsError(key)
            meta = obj["metadata"]
            meta.setdefault("uid", str(uuid.uuid4()))
            meta.setdefault("creationTimestamp", now_rfc3339())
            if "spec" in obj:
                meta.setdefault("generation", 1)
            return self._commit("ADDED", key, obj, None, copy_back=not owned)

    def replace(self, rt: ResourceType, obj: dict[str, Any], *, expected_rv: str | None = None) -> dict[str, Any]:
        """Replace an object; with expected_rv, refuse when it has changed since (optimistic concurrency)."""
        obj = copy.deepcopy(obj)
        key = object_key(rt, obj)
        with self._lock:
            old = self._objects.get(key)
            if old is None:
                raise ObjectMissingError(key)
            if expected_rv and expected_rv != old["metadata"]["resourceVersion"]:
                raise StaleResourceVersionError(key)
            meta, old_meta = obj["metadata"], old["metadata"]
            for field in ("uid", "creationTimestamp", "deletionTimestamp"):
                if field in old_meta:
                    meta[field] = old_meta[field]
            if "generation" in old_meta:
                changed = {k: v for k, v in obj.items() if k not in ("metadata", "status")} != {
                    k: v for k, v in old.items() if k not in ("metadata", "status")
                }
                meta["generation"] = old_meta["generation"] + changed
            if "deletionTimestamp" in meta and not meta.get("finalizers"):
                return self._commit("DELETED", key, obj, old)
            return self._commit("MODIFIED", key, obj, old)

    def delete(self, key: Key, *, honor_finalizers: bool) -> dict[str, Any]:
        """Delete an object; with finalizers honored, an object that has some is only marked for deletion."""
        with self._lock:
            old = self._objects.get(key)
            if old is None:
                raise ObjectMissingError(key)
            obj = copy.deepcopy(old)
            if honor_finalizers and old["metadata"].get("finalizers"):
                obj["metadata"].setdefault("deletionTimestamp", now_rfc3339())
                return self._commit("MODIFIED", key, obj, old)
            return self._commit("DELETED", key, obj, old)

    def _commit(
        self, kind: ChangeType, key: Key, obj: dict[str, Any], prev: dict[str, Any] | None, *, copy_back: bool = True
    ) -> dict[str, Any]:
        self._rv += 1
        obj["metadata"]["resourceVersion"] = str(self._rv)
        if kind == "DELETED":
            del self._objects[key]
        else:
            self._objects[key] = obj
        if kind != "MODIFIED":
            self._sorted.pop(key[:2], None)
        change = Change(self._rv, kind, key, obj, prev)
        if len(self._log) >= self._window:
            self._compacted = self._log.popleft().rv
        self._log.append(change)
        for subscription in self._subscriptions:
            subscription.deliver(change)
        return copy.deepcopy(obj) if copy_back else obj

    def compact(self) -> None:
        """Forget the whole history, as etcd compaction does: older resourceVersions get 410 Expired."""
        with self._lock:
            self._log.clear()
            self._compacted = self._rv

    def subscribe(self, loop: asyncio.AbstractEventLoop, since: int | None) -> tuple[Subscription, list[Change], int]:
        """Start watching: the changes after `since` (or the current objects as ADDED when None), and the
        resourceVersion the initial changes bring the watcher to."""
        with self._lock:
            if since is None:
                initial = [
                    Change(int(obj["metadata"]["resourceVersion"]), "ADDED", key, obj, None)
                    for key, obj in sorted(self._objects.items())
                ]
            else:
                self.check_not_compacted(since)
                initial = [change for change in self._log if change.rv > since]
            subscription = Subscription(loop)
            self._subscriptions.add(subscription)
            return subscription, initial, self._rv

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            self._subscriptions.discard(subscription)
