"""Where the notifier's other records live: beside the state store (its SQLite database, its ConfigMaps), else
in memory. The composition root asks; the stores stay independent of each other."""

from __future__ import annotations

from typing import cast

from bot.notify.admin_digest import DigestStore, MemoryDigests, SQLiteDigests
from bot.notify.history import HistoryStore, MemoryHistory, SQLiteHistory
from bot.notify.store import SQLiteStore, StateStore


def digests_beside(store: StateStore) -> DigestStore:
    """Where the admins' digest records live: beside the state (its SQLite database, its ConfigMaps)."""
    if isinstance(store, SQLiteStore):
        return SQLiteDigests(store.path)
    beside = getattr(store, "digest_store", None)  # ConfigMapStore: the records in a ConfigMap too
    return cast("DigestStore", beside()) if callable(beside) else MemoryDigests()


def history_beside(store: StateStore) -> HistoryStore:
    """Where the queue history lives: beside the state (its SQLite database, its ConfigMaps), else in memory."""
    if isinstance(store, SQLiteStore):
        return SQLiteHistory(store.path)
    beside = getattr(store, "history_store", None)  # ConfigMapStore: the history in ConfigMaps too
    return cast("HistoryStore", beside()) if callable(beside) else MemoryHistory()
