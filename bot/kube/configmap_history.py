"""The queue history (bot.notify.history: what the ETA rests on) in ConfigMaps beside the state
(STATE_URL=kubernetes://), so that a restart or another replica keeps it.

    <prefix>-history-0..7   data: {"format": "1", "history.json": "{...}"}   by a stable hash of the ClusterQueue

history.json, compact: times as seconds after the shard's "base" (one timestamp), one list per ClusterQueue:

    {"base": "2026-11-03T10:00:00.000000Z",
     "queues": {"gpu-cq": {"admitted": [[flavor, uid, queued, admitted, amount|null], ...],
                           "finished": [[flavor, admitted, finished], ...]}}}

Bounded more tightly than the SQLite table (a ConfigMap holds at most 1 MiB): per ClusterQueue the
MAX_PER_QUEUE most recent of each, none older than KEEP (the estimator's window and a margin), and a shard
that would still pass its byte limit drops its oldest records first. A write is a read-modify-write of one
shard under optimistic concurrency (ConfigMapStore.rewrite); records are a union, so two replicas writing
at once both keep theirs. The shards carry the label kueue-bot/store=<prefix>-history: the state's own
load() does not list them.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from bot.errors import StoreUnavailable
from bot.forecast.history import MAX_REPLAYED, WINDOW, Finished, History, Observed
from bot.notify.history import bounded
from bot.notify.state import format_time, parse_time

if TYPE_CHECKING:
    from bot.kube.configmap_store import ConfigMapStore
    from bot.notify.history import HistoryStore

FORMAT = "1"
KEY = "history.json"
COMPONENT = "history"
SHARDS = 8  # part of the format: changing it would strand records in the wrong shard
KEEP = WINDOW + timedelta(hours=2)
MAX_PER_QUEUE = MAX_REPLAYED
_MARGIN = 16 * 1024  # bytes left under the ConfigMap limit for the other keys and metadata


def shard_of(cluster_queue: str) -> int:
    return zlib.crc32(cluster_queue.encode()) % SHARDS


def _seconds(value: datetime, base: datetime) -> float | int:
    seconds = round((value - base).total_seconds(), 6)
    return int(seconds) if seconds == int(seconds) else seconds


def encode(history: History) -> str:
    times = [a.queued_at for a in history.admissions] + [f.admitted_at for f in history.finishes]
    base = min(times, default=None)
    if base is None:
        return json.dumps({"base": None, "queues": {}}, separators=(",", ":"))
    queues: dict[str, dict[str, list[list[Any]]]] = {}
    for a in sorted(history.admissions, key=lambda a: (a.cluster_queue, a.admitted_at, a.flavor, a.workload)):
        queues.setdefault(a.cluster_queue, {"admitted": [], "finished": []})["admitted"].append(
            [a.flavor, a.workload, _seconds(a.queued_at, base), _seconds(a.admitted_at, base),
             None if a.amount is None else str(a.amount)]
        )  # fmt: skip
    for f in sorted(history.finishes, key=lambda f: (f.cluster_queue, f.finished_at, f.flavor, f.admitted_at)):
        queues.setdefault(f.cluster_queue, {"admitted": [], "finished": []})["finished"].append(
            [f.flavor, _seconds(f.admitted_at, base), _seconds(f.finished_at, base)]
        )
    return json.dumps({"base": format_time(base), "queues": queues}, separators=(",", ":"), sort_keys=True)


def decode(data: Mapping[str, str], name: str = "history") -> History:
    text = data.get(KEY)
    if not text:
        return History()
    if data.get("format", FORMAT) != FORMAT:
        raise StoreUnavailable(f"the history ConfigMap {name} has format {data.get('format')!r}, not {FORMAT}")
    try:
        raw = json.loads(text)
        if raw.get("base") is None:
            return History()
        base = parse_time(raw["base"])

        def at(seconds: float) -> datetime:
            return base + timedelta(seconds=seconds)

        admissions: list[Observed] = []
        finishes: list[Finished] = []
        for cq, lists in raw["queues"].items():
            for flavor, uid, queued, admitted, amount in lists.get("admitted", []):
                admissions.append(
                    Observed(cq, flavor, at(queued), at(admitted), None if amount is None else Decimal(amount), uid)
                )
            for flavor, admitted, finished in lists.get("finished", []):
                finishes.append(Finished(cq, flavor, at(admitted), at(finished)))
    except (ValueError, TypeError, KeyError, ArithmeticError) as error:
        raise StoreUnavailable(f"the history ConfigMap {name} cannot be read ({error})") from error
    return History(tuple(admissions), tuple(finishes))


def fit(history: History, now: datetime, limit: int) -> str:
    """The shard's text within the bounds: KEEP and MAX_PER_QUEUE, then the oldest dropped until it is
    `limit` bytes at most."""
    kept = bounded(history, now, retention=KEEP, per_queue=MAX_PER_QUEUE)
    text = encode(kept)
    while len(text.encode()) > limit and (kept.admissions or kept.finishes):
        admissions = sorted(kept.admissions, key=lambda a: a.admitted_at)
        finishes = sorted(kept.finishes, key=lambda f: f.finished_at)
        kept = History(tuple(admissions[len(admissions) // 10 + 1 :]), tuple(finishes[len(finishes) // 10 + 1 :]))
        text = encode(kept)
    return text


class ConfigMapHistory:
    """A HistoryStore (bot.notify.history) in the state's ConfigMaps."""

    def __init__(self, store: ConfigMapStore) -> None:
        self.store = store

    def __repr__(self) -> str:
        return f"ConfigMapHistory({self.store.namespace}/{self.store.name_prefix}-{COMPONENT}-*)"

    async def load(self) -> History:
        history = History()
        for data in await self.store.read_all(COMPONENT):
            history = history.union(decode(data))
        return history

    async def add(self, admissions: Sequence[Observed], finishes: Sequence[Finished], now: datetime) -> None:
        by_shard: dict[int, tuple[list[Observed], list[Finished]]] = {}
        for a in admissions:
            by_shard.setdefault(shard_of(a.cluster_queue), ([], []))[0].append(a)
        for f in finishes:
            by_shard.setdefault(shard_of(f.cluster_queue), ([], []))[1].append(f)
        limit = self.store.max_shard_bytes - _MARGIN
        for index, (new_admissions, new_finishes) in sorted(by_shard.items()):
            name = f"{COMPONENT}-{index}"
            added = History(tuple(new_admissions), tuple(new_finishes))

            def edit(data: Mapping[str, str], name: str = name, added: History = added) -> dict[str, str]:
                return {"format": FORMAT, KEY: fit(decode(data, name).union(added), now, limit)}

            await self.store.rewrite(name, COMPONENT, edit)

    async def aclose(self) -> None:
        return None  # the ConfigMapStore owns the client


def _conforms(history: ConfigMapHistory) -> HistoryStore:  # mypy checks that it is a HistoryStore
    return history
