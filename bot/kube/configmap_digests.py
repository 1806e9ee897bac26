"""The admins' digest records (bot.notify.admin_digest: which message each admin target got, and what it said)
in a ConfigMap beside the state (STATE_URL=kubernetes://), so that a restart or another replica edits the
same message instead of posting a second one.

    <prefix>-admin-digests   data: {"format": "1", "digests.json": "{target: [channel, ts, fingerprint, posted,
                                                                          updated]}"}

A save is a read-modify-write of that one ConfigMap under optimistic concurrency (ConfigMapStore.rewrite);
records of other targets are kept as they are. There are a few targets (ADMIN_CHANNEL and the admins), so one
ConfigMap is enough. The ConfigMap carries the label kueue-bot/store=<prefix>-admin-digests: the state's own
load() does not list it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from bot.errors import StoreUnavailable
from bot.notify.admin_digest import DigestRecord
from bot.notify.state import Fence, format_time, parse_time

if TYPE_CHECKING:
    from bot.kube.configmap_store import ConfigMapStore
    from bot.notify.admin_digest import DigestStore

FORMAT = "1"
KEY = "digests.json"
COMPONENT = "admin-digests"


def decode(data: Mapping[str, str]) -> dict[str, DigestRecord]:
    text = data.get(KEY)
    if not text:
        return {}
    if data.get("format", FORMAT) != FORMAT:
        raise StoreUnavailable(f"the admin digests ConfigMap has format {data.get('format')!r}, not {FORMAT}")
    try:
        return {
            target: DigestRecord(target, channel, ts, fingerprint, parse_time(posted), parse_time(updated))
            for target, (channel, ts, fingerprint, posted, updated) in json.loads(text).items()
        }
    except (ValueError, TypeError, KeyError) as error:
        raise StoreUnavailable(f"the admin digests ConfigMap cannot be read ({error})") from error


def encode(records: Mapping[str, DigestRecord]) -> str:
    return json.dumps(
        {
            target: [r.channel, r.ts, r.fingerprint, format_time(r.posted_at), format_time(r.updated_at)]
            for target, r in sorted(records.items())
        },
        separators=(",", ":"),
    )


class ConfigMapDigests:
    """A DigestStore (bot.notify.admin_digest) in the state's ConfigMaps."""

    def __init__(self, store: ConfigMapStore) -> None:
        self.store = store

    def __repr__(self) -> str:
        return f"ConfigMapDigests({self.store.namespace}/{self.store.name_prefix}-{COMPONENT})"

    async def load(self) -> dict[str, DigestRecord]:
        found: dict[str, DigestRecord] = {}
        for data in await self.store.read_all(COMPONENT):
            found.update(decode(data))
        return found

    async def save(self, record: DigestRecord, *, fence: Fence | None = None) -> None:
        def edit(data: Mapping[str, str]) -> dict[str, str]:
            return {"format": FORMAT, KEY: encode({**decode(data), record.target: record})}

        await self.store.rewrite(COMPONENT, COMPONENT, edit, fence=fence)

    async def aclose(self) -> None:
        return None  # the ConfigMapStore owns the client


def _conforms(digests: ConfigMapDigests) -> DigestStore:  # mypy checks that it is a DigestStore
    return digests
