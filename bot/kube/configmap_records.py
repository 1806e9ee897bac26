"""The records of the notification state as ConfigMap data (bot.kube.configmap_store writes and reads them).

Layout: the records are spread over shards, each one ConfigMap, by a stable hash of their identity, so that
every change touches exactly one ConfigMap (one optimistic-concurrency write is atomic) and no ConfigMap
nears the API server's 1 MiB limit:

    <prefix>-subscriptions-0..3   data: {"format": "1", "subscriptions.json": "[{...}, ...]"}   by user/ns/name
    <prefix>-deliveries-0..7      data: {"format": "1", "deliveries.json": "[...]"}             by key + target
    <prefix>-preferences-0..1     data: {"format": "1", "snoozes.json": "[...]", "mutes.json": "[...]"} by user

Each record is a JSON object (times as 2026-11-03T10:00:00.000000Z), each list sorted by identity, so an
unchanged shard encodes to the same text and is not written.

The shard counts are part of the format: changing them would strand records in the wrong shard.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.errors import StoreUnavailable
from bot.notify.state import Delivery, Mute, Snooze, Subscription, format_time, parse_time, split_legacy

FORMAT = "1"


@dataclass(frozen=True)
class Section:
    name: str
    shards: int
    keys: tuple[str, ...]  # the data keys (record lists) of its ConfigMaps


SUBSCRIPTIONS = Section("subscriptions", 4, ("subscriptions.json",))
DELIVERIES = Section("deliveries", 8, ("deliveries.json",))
PREFERENCES = Section("preferences", 2, ("snoozes.json", "mutes.json"))
SECTIONS = (SUBSCRIPTIONS, DELIVERIES, PREFERENCES)


@dataclass
class Records:
    """The decoded content of one shard, changed in place by an operation."""

    subscriptions: list[Subscription] = field(default_factory=list)
    deliveries: list[Delivery] = field(default_factory=list)
    snoozes: list[Snooze] = field(default_factory=list)
    mutes: list[Mute] = field(default_factory=list)


def shard_of(identity: str, section: Section) -> int:
    return zlib.crc32(identity.encode()) % section.shards


def _time(value: datetime | None) -> str | None:
    return None if value is None else format_time(value)


def _optional_time(value: Any) -> datetime | None:
    return None if value is None else parse_time(str(value))


# -- encoding ------------------------------------------------------------------------------------------


def _delivery_json(d: Delivery) -> dict[str, Any]:
    return {
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
        **({"eta": d.eta} if d.eta else {}),
    }


_ENCODERS: dict[str, Callable[[Records], list[dict[str, Any]]]] = {
    "subscriptions.json": lambda records: [
        {"user": s.user, "namespace": s.namespace, "name": s.name, "kind": s.kind, "created": _time(s.created)}
        for s in sorted(records.subscriptions, key=lambda s: (s.user, s.namespace, s.name))
    ],
    "deliveries.json": lambda records: [
        _delivery_json(d) for d in sorted(records.deliveries, key=lambda d: (d.key, d.target))
    ],
    "snoozes.json": lambda records: [
        {"user": s.user, "key": s.key, "until": _time(s.until)}
        for s in sorted(records.snoozes, key=lambda s: (s.user, s.key))
    ],
    "mutes.json": lambda records: [
        {"user": m.user, "since": _time(m.since)} for m in sorted(records.mutes, key=lambda m: m.user)
    ],
}


def encode(records: Records, section: Section) -> dict[str, str]:
    data = {key: json.dumps(_ENCODERS[key](records), separators=(",", ":"), ensure_ascii=False) for key in section.keys}
    return {"format": FORMAT, **data}


# -- decoding ------------------------------------------------------------------------------------------


def _add_subscription(records: Records, item: Any) -> None:
    records.subscriptions.append(
        Subscription(
            str(item["user"]), str(item["namespace"]), str(item["name"]), item.get("kind"), parse_time(item["created"])
        )
    )


def _add_delivery(records: Records, item: Any) -> None:
    headline, eta = str(item["headline"]), str(item.get("eta") or "")
    if not eta:  # recorded before the ETA's mark had a field: inside the headline
        headline, eta = split_legacy(headline)
    records.deliveries.append(
        Delivery(
            key=str(item["key"]),
            target=str(item["target"]),
            channel=str(item["channel"]),
            ts=item.get("ts"),
            verdict=str(item["verdict"]),
            position=item.get("position"),
            headline=headline,
            sent_at=parse_time(item["sentAt"]),
            updated_at=parse_time(item["updatedAt"]),
            closed_at=_optional_time(item.get("closedAt")),
            digest=bool(item.get("digest", False)),
            job=str(item.get("job") or ""),
            since=_optional_time(item.get("since")),
            eta=eta,
        )
    )


def _add_snooze(records: Records, item: Any) -> None:
    records.snoozes.append(Snooze(str(item["user"]), str(item["key"]), parse_time(item["until"])))


def _add_mute(records: Records, item: Any) -> None:
    records.mutes.append(Mute(str(item["user"]), parse_time(item["since"])))


_DECODERS: dict[str, Callable[[Records, Any], None]] = {
    "subscriptions.json": _add_subscription,
    "deliveries.json": _add_delivery,
    "snoozes.json": _add_snooze,
    "mutes.json": _add_mute,
}


def decode(configmap: Mapping[str, Any] | None, section: Section, into: Records | None = None) -> Records:
    """The records of a shard (none when it does not exist). StoreUnavailable when it cannot be read: then it
    must not be written over either."""
    records = into if into is not None else Records()
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
            add = _DECODERS[key]
            for item in items:
                add(records, item)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise StoreUnavailable(f"the state ConfigMap {name} cannot be read ({error}); it is left untouched") from error
    return records
