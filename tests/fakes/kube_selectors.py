"""labelSelector and fieldSelector, parsed and matched as the API server does."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(r"\s*(?:(==|!=|=|!|\(|\)|,|>|<)|([^\s=!(),<>]+))")
_ALWAYS_SELECTABLE = ("metadata.name", "metadata.namespace")
_FIELD_ALIASES = {"source": "source.component"}  # Events: `source=x` means source.component


class SelectorError(ValueError):
    """A selector the API server would refuse with 400 BadRequest."""


@dataclass(frozen=True)
class LabelRequirement:
    key: str
    operator: str  # "=", "!=", "in", "notin", "exists", "!exists", ">", "<"
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key)
        match self.operator:
            case "exists":
                return present
            case "!exists":
                return not present
            case "=" | "in":
                return present and value in self.values
            case "!=" | "notin":
                return not present or value not in self.values
            case ">" | "<":
                if value is None or not value.lstrip("-").isdigit():
                    return False
                number, bound = int(value), int(self.values[0])
                return number > bound if self.operator == ">" else number < bound
        raise AssertionError(self.operator)


def _tokens(text: str) -> list[str]:
    tokens, position = [], 0
    text = text.strip()
    while position < len(text):
        found = _TOKEN.match(text, position)
        if found is None or found.end() == position:
            raise SelectorError(f"unable to parse requirement: unexpected character at {position} in {text!r}")
        tokens.append(found.group(1) or found.group(2))
        position = found.end()
    return tokens


def parse_label_selector(text: str) -> list[LabelRequirement]:
    """`a=b,c!=d,e in (f,g),h notin (i),j,!k,l>3` -> requirements (all must match)."""
    tokens = _tokens(text)
    requirements: list[LabelRequirement] = []
    i = 0

    def take() -> str:
        nonlocal i
        if i >= len(tokens):
            raise SelectorError(f"unable to parse requirement: unexpected end of {text!r}")
        i += 1
        return tokens[i - 1]

    def peek() -> str | None:
        return tokens[i] if i < len(tokens) else None

    while i < len(tokens):
        if peek() == "!":
            take()
            requirements.append(LabelRequirement(take(), "!exists"))
        else:
            key = take()
            operator = peek()
            if operator in (None, ","):
                requirements.append(LabelRequirement(key, "exists"))
            elif operator in ("=", "==", "!="):
                take()
                value = "" if peek() in (None, ",") else take()
                requirements.append(LabelRequirement(key, "!=" if operator == "!=" else "=", (value,)))
            elif operator in (">", "<"):
                take()
                value = take()
                if not value.lstrip("-").isdigit():
                    raise SelectorError(f"unable to parse requirement: {value!r} is not an integer")
                requirements.append(LabelRequirement(key, operator, (value,)))
            elif operator in ("in", "notin"):
                take()
                if take() != "(":
                    raise SelectorError(f"unable to parse requirement: expected '(' after {operator}")
                values = []
                while (token := take()) != ")":
                    if token != ",":
                        values.append(token)
                requirements.append(LabelRequirement(key, operator, tuple(values)))
            else:
                raise SelectorError(f"unable to parse requirement: unexpected {operator!r} after {key!r}")
        if peek() is not None and take() != ",":
            raise SelectorError(f"unable to parse requirement: expected ',' in {text!r}")
    return requirements


@dataclass(frozen=True)
class FieldRequirement:
    field: str
    value: str
    negated: bool

    def matches(self, obj: Mapping[str, Any]) -> bool:
        return (field_value(obj, self.field) == self.value) != self.negated


def field_value(obj: Mapping[str, Any], field: str) -> str:
    """The string form of a dotted field; "" when absent (as the API server compares it)."""
    node: Any = obj
    for part in _FIELD_ALIASES.get(field, field).split("."):
        node = node.get(part) if isinstance(node, Mapping) else None
    if isinstance(node, bool):
        return str(node).lower()
    return "" if node is None else str(node)


def parse_field_selector(text: str, selectable: Collection[str], *, builtin: bool) -> list[FieldRequirement]:
    """`metadata.name=x,involvedObject.kind!=Pod` -> requirements; unknown fields are refused."""
    requirements = []
    for term in filter(None, (t.strip() for t in text.split(","))):
        found = re.fullmatch(r"([^=!]+?)\s*(==|!=|=)\s*(.*)", term)
        if found is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{term}'")
        field, operator, value = found.groups()
        if field not in _ALWAYS_SELECTABLE and field not in selectable:
            if builtin:
                raise SelectorError(f"field label not supported: {field}")
            known = ", ".join(f'"{f}"' for f in (*_ALWAYS_SELECTABLE, *selectable))
            raise SelectorError(f'"{field}" is not a known field selector: only {known}')
        requirements.append(FieldRequirement(field, value, operator == "!="))
    return requirements


@dataclass(frozen=True)
class Selector:
    """A list request's labelSelector and fieldSelector together."""

    labels: tuple[LabelRequirement, ...] = ()
    fields: tuple[FieldRequirement, ...] = ()

    def matches(self, obj: Mapping[str, Any]) -> bool:
        labels = obj.get("metadata", {}).get("labels") or {}
        return all(r.matches(labels) for r in self.labels) and all(r.matches(obj) for r in self.fields)

    @property
    def empty(self) -> bool:
        return not self.labels and not self.fields
