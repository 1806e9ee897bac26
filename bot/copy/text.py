"""A sentence not yet written: a catalogue key and its parameters.

A parameter is a plain value (a name, a number, text from the cluster, shown as is), another `Text` (a
fragment the engine composed, written in the reader's language too), or a tuple of those (written one
after the other, separated by "; ").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias


@dataclass(frozen=True)
class Text:
    key: str
    params: Mapping[str, Value] = field(default_factory=dict)


Value: TypeAlias = str | int | Text | tuple[str | int | Text, ...]
