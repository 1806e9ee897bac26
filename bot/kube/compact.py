"""Keeping decoded objects small and decoding them fast: equal parts are decoded once and shared.

A cluster of 50,000 Workloads holds a few dozen distinct pod-set shapes, the same queue and flavor names,
the same admissions. `Interner` is the `bot.kube.decode.Parts` the informer cache decodes with:

  * a part (pod sets, a pod template, an admission's assignments, admission checks, resource requests, reclaimable
    pods) is looked up by its view, the tuple of exactly the raw values it is built from (see
    `bot.kube.decode`), and built only when no equal view was seen: 50,000 Workloads hold a few dozen
    pod-set objects, and a watch update re-decodes only the parts it changed;
  * names (kinds, namespaces, queues, label keys and values, condition words) are interned, and labels and
    annotations kept in a `Labels`, an immutable mapping a quarter the size of a dict;
  * the per-object resourceVersion is dropped (the informer keeps the stream's).

The key of a view is its `marshal` serialization (format 2, which writes neither references between objects nor
whether a string is interned): for the values JSON decodes to (dict, list, str, int, float, bool, None) and tuples
of them, each value is written with its type (`1`, `1.0`, `True` and `"1"` all differ), and equal bytes read back
as one value, so a part found is exactly the part that would have been built. What marshal cannot write is keyed by
its `repr()` (equal only when the values are). Key order in a mapping is part of the key: the same data in another
order is only a miss (the API server writes keys sorted).

The table is swept of the parts no object holds any more, so it stays the size of what is in use. Safe
to call from several threads: a race only loses a chance to share.
"""

from __future__ import annotations

import marshal
import sys
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, ValuesView
from typing import Any, TypeVar

from bot.kube.decode import Parts, View
from bot.trace.model import JOB_UID_LABEL

T = TypeVar("T")

_EMPTY_MAP: Mapping[str, Any] = {}
# References to a table value during a sweep: the table, the local name, getrefcount's argument.
_ONLY_THE_TABLE = 3


def _interned_pairs(value: Mapping[Any, Any]) -> list[str]:
    """key, value, key, value, ... read as decode reads labels (None: "", anything else: its str), interned but
    for the job-uid label's value (one job's own: interning it would only grow the table of interned strings)."""
    intern = sys.intern
    flat = []
    for key, item in value.items():
        name = intern(str(key))
        flat.append(name)
        if type(item) is str:
            flat.append(item if name == JOB_UID_LABEL else intern(item))
        else:
            flat.append("" if item is None else str(item))
    return flat


class Labels(tuple[str, ...], Mapping[str, str]):
    """Labels or annotations, immutable, in a quarter of the memory of a dict: keys and values in one flat tuple
    (key, value, key, value, ...), found by a scan (a few entries). The tuple itself, not an object holding one;
    a Mapping to everything that reads it (iterating gives the keys, `==` compares as a mapping)."""

    __slots__ = ()

    def __getitem__(self, key: str) -> str:  # type: ignore[override]
        for index in range(0, tuple.__len__(self), 2):
            if tuple.__getitem__(self, index) == key:
                return tuple.__getitem__(self, index + 1)
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        for index in range(0, tuple.__len__(self), 2):
            if tuple.__getitem__(self, index) == key:
                return tuple.__getitem__(self, index + 1)
        return default

    def __contains__(self, key: object) -> bool:
        return key in tuple.__getitem__(self, slice(None, None, 2))

    def __iter__(self) -> Iterator[str]:
        return iter(tuple.__getitem__(self, slice(None, None, 2)))

    def __len__(self) -> int:
        return tuple.__len__(self) // 2

    def keys(self) -> KeysView[str]:
        return KeysView(self)

    def items(self) -> ItemsView[str, str]:
        return ItemsView(self)

    def values(self) -> ValuesView[str]:
        return ValuesView(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return dict(self.items()) == dict(other.items())

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]  # a mapping, as a dict: not hashable

    def __repr__(self) -> str:
        return repr(dict(self.items()))


def _key(view: View) -> bytes | str:
    """What a view is looked up by (see the module): its marshal bytes, else its repr."""
    try:
        return marshal.dumps(view, 2)
    except ValueError:  # a type marshal does not write (never one JSON decodes to)
        return repr(view)


class Interner(Parts):
    def __init__(self, *, sweep_every: int = 20_000) -> None:
        self._table: dict[tuple[Callable[..., Any], bytes | str], Any] = {}
        self._sweep_every = sweep_every
        self._added = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._table)

    text = staticmethod(sys.intern)  # names and words: one copy of each in the process

    def labels(self, value: object) -> Mapping[str, str]:
        if not isinstance(value, Mapping) or not value:
            return _EMPTY_MAP
        return Labels(_interned_pairs(value))

    def words(self, value: object) -> Mapping[str, str]:
        if not isinstance(value, Mapping) or not value:
            return _EMPTY_MAP
        pairs = iter(_interned_pairs(value))
        return dict(zip(pairs, pairs, strict=True))

    def resource_version(self, value: str) -> str:
        return ""

    def part(self, build: Callable[[View, Parts], T], view: View) -> T:
        key = (build, _key(view))
        found = self._table.get(key)
        if found is not None:
            self.hits += 1
            return found  # type: ignore[no-any-return]
        value = build(view, self)
        self._table[key] = value
        self.misses += 1
        self._added += 1
        if self._added >= max(self._sweep_every, len(self._table)):
            self.sweep()
        return value

    def sweep(self) -> int:
        """Forget the parts no object holds any more; how many were forgotten."""
        self._added = 0
        dropped = 0
        for key in reversed(list(self._table)):  # a part after the parts it holds: they go in the same sweep
            value = self._table.get(key)
            if value is not None and sys.getrefcount(value) <= _ONLY_THE_TABLE:
                self._table.pop(key, None)
                dropped += 1
        return dropped
