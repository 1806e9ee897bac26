"""Keeping decoded objects small: equal immutable pieces are shared between objects, strings interned.

A cluster of 50,000 Workloads holds a few dozen distinct pod-set shapes, the same queue and flavor names,
the same condition messages. `Interner.workload` returns an equal Workload whose repeated parts are the
objects already held for an earlier one (pod sets, resource requests, admission, checks), whose strings
are interned, and whose per-object resourceVersion is dropped (the informer keeps the stream's).

Shared pieces are found by a structural key (exact: Decimals by digits and exponent, datetimes with their
offset). The table of shared pieces is swept of pieces no object holds any more, so it stays the size of
what is in use. Safe to call from several threads: a race only loses a chance to share.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Hashable, Mapping
from datetime import datetime
from decimal import Decimal
from operator import attrgetter
from typing import Any, TypeVar

from bot.trace.model import Meta, OwnerRef, Workload

T = TypeVar("T")

_EMPTY_MAP: Mapping[str, Any] = {}
# References to a table value during a sweep: the table, the local name, getrefcount's argument.
_ONLY_THE_TABLE = 3


def _same(value: object) -> Hashable:
    return value


def _freeze_bool(value: object) -> Hashable:
    return ("b", value)


def _freeze_decimal(value: object) -> Hashable:
    assert isinstance(value, Decimal)
    return ("D", str(value))  # str keeps the exponent: 1 and 1.0 stay apart


def _freeze_datetime(value: object) -> Hashable:
    assert isinstance(value, datetime)
    return ("t", value, value.utcoffset())


def _freeze_tuple(value: object) -> Hashable:
    assert isinstance(value, tuple)
    return tuple(map(freeze, value))


def _freeze_mapping(value: object) -> Hashable:
    assert isinstance(value, Mapping)
    if not value:
        return ("M",)
    return ("M", tuple(sorted((str(key), freeze(item)) for key, item in value.items())))


_FREEZERS: dict[type, Callable[[object], Hashable]] = {
    str: _same,
    int: _same,
    type(None): _same,
    bool: _freeze_bool,
    Decimal: _freeze_decimal,
    datetime: _freeze_datetime,
    tuple: _freeze_tuple,
    dict: _freeze_mapping,
}


def _dataclass_freezer(cls: type) -> Callable[[object], Hashable]:
    names = tuple(f.name for f in dataclasses.fields(cls))
    get = attrgetter(*names) if len(names) > 1 else (lambda value: (getattr(value, names[0]),))

    def freeze_instance(value: object) -> Hashable:
        return (cls, *map(freeze, get(value)))

    return freeze_instance


def freeze(value: object) -> Hashable:
    """A hashable key equal for two values exactly when they are the same data."""
    cls = type(value)
    freezer = _FREEZERS.get(cls)
    if freezer is None:
        if dataclasses.is_dataclass(cls):
            freezer = _dataclass_freezer(cls)
        elif isinstance(value, Mapping):
            freezer = _freeze_mapping
        else:
            return ("?", id(value))  # unknown: never shared
        _FREEZERS[cls] = freezer
    return freezer(value)


def _s(text: str) -> str:
    return sys.intern(text) if text else text


class Interner:
    def __init__(self, *, sweep_every: int = 20_000) -> None:
        self._table: dict[Hashable, Any] = {}
        self._sweep_every = sweep_every
        self._added = 0

    def __len__(self) -> int:
        return len(self._table)

    def share(self, value: T) -> T:
        """The object already held that equals `value`, else `value` (now held for later)."""
        key = freeze(value)
        found = self._table.get(key)
        if found is not None:
            return found  # type: ignore[no-any-return]
        self._table[key] = value
        self._added += 1
        if self._added >= max(self._sweep_every, len(self._table)):
            self.sweep()
        return value

    def sweep(self) -> int:
        """Forget the pieces no object holds any more; how many were forgotten."""
        self._added = 0
        dropped = 0
        for key in list(self._table):
            value = self._table.get(key)
            if value is not None and sys.getrefcount(value) <= _ONLY_THE_TABLE:
                self._table.pop(key, None)
                dropped += 1
        return dropped

    def _strings(self, values: Mapping[str, str]) -> Mapping[str, str]:
        if not values:
            return _EMPTY_MAP
        return {_s(key): _s(value) for key, value in values.items()}

    def _owner(self, owner: OwnerRef) -> OwnerRef:
        return dataclasses.replace(
            owner, api_version=_s(owner.api_version), kind=_s(owner.kind), name=_s(owner.name), uid=_s(owner.uid)
        )

    def meta(self, meta: Meta) -> Meta:
        return dataclasses.replace(
            meta,
            kind=_s(meta.kind),
            namespace=_s(meta.namespace) if meta.namespace else meta.namespace,
            api_version=_s(meta.api_version),
            labels=self._strings(meta.labels),
            annotations=self._strings(meta.annotations),
            owners=tuple(self._owner(owner) for owner in meta.owners),
            resource_version="",
        )

    def workload(self, workload: Workload) -> Workload:
        return dataclasses.replace(
            workload,
            meta=self.meta(workload.meta),
            queue_name=_s(workload.queue_name),
            pod_sets=self.share(workload.pod_sets),
            priority_class=_s(workload.priority_class),
            conditions=tuple(
                dataclasses.replace(c, type=_s(c.type), status=_s(c.status), reason=_s(c.reason), message=_s(c.message))
                for c in workload.conditions
            ),
            admission=self.share(workload.admission) if workload.admission is not None else None,
            checks=self.share(workload.checks) if workload.checks else (),
            resource_requests=self.share(workload.resource_requests) if workload.resource_requests else (),
            reclaimable=self.share(workload.reclaimable) if workload.reclaimable else _EMPTY_MAP,
            cluster_name=_s(workload.cluster_name),
        )

    def compact(self, obj: object) -> object:
        """Any decoded object: Workloads shared and interned, others with their metadata interned."""
        if isinstance(obj, Workload):
            return self.workload(obj)
        meta = getattr(obj, "meta", None)
        if isinstance(meta, Meta) and dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            return dataclasses.replace(obj, meta=self.meta(meta))
        return obj
