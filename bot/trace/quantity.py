"""Kubernetes quantities as exact numbers (Decimal), and back to Kubernetes notation.

"250m" -> Decimal("0.25"), "1Gi" -> Decimal(1073741824). Never float: a quota comparison must be exact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from functools import lru_cache

Quantities = Mapping[str, Decimal]

_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_PATTERN = re.compile(
    r"^\s*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?\s*$"
)
# Resources measured in bytes are shown with binary suffixes; the others with decimal ones.
_BYTE_RESOURCES = ("memory", "ephemeral-storage", "storage", "hugepages-")


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


def parse(value: object) -> Decimal:
    """A quantity ("1.5", "250m", "2Gi", "1e3", 3) as an exact Decimal. Raises QuantityError."""
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, Decimal | float):
        number: Decimal = value if isinstance(value, Decimal) else Decimal(repr(value))
        if not number.is_finite():
            raise QuantityError(f"not a quantity: {value!r}")
        return number
    text = str(value)
    match = _PATTERN.match(text) if len(text) <= 64 else None
    if not match:
        raise QuantityError(f"not a quantity: {text[:64]!r}")
    digits, exponent, suffix = match.groups()
    try:
        base = Decimal(digits)
        if exponent:
            return base.scaleb(int(exponent[1:]))
        if suffix in _BINARY:
            return base * (Decimal(1024) ** _BINARY[suffix])
        return base.scaleb(_DECIMAL[suffix or ""])
    except (InvalidOperation, ValueError) as error:
        raise QuantityError(f"not a quantity: {text[:64]!r}") from error


def parse_or_none(value: object) -> Decimal | None:
    """parse(), or None for anything that is not a quantity."""
    try:
        return parse(value)
    except QuantityError:
        return None


def _is_bytes(resource: str) -> bool:
    """Memory-like resources, extended ones too ("example.com/gpu-memory", a resource transformation's output)."""
    return resource in _BYTE_RESOURCES or resource.startswith("hugepages-") or resource.endswith("-memory")


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


@lru_cache(maxsize=4096)  # a pure function of its arguments, asked for the same few amounts again and again
def format_quantity(value: Decimal, resource: str = "") -> str:
    """Kubernetes notation: "3", "500m", "96Gi", "1536Mi" for memory, "1.5" never for cpu (-> "1500m")."""
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    if _is_bytes(resource) and magnitude == magnitude.to_integral_value():
        for suffix, power in sorted(_BINARY.items(), key=lambda item: -item[1]):
            unit = Decimal(1024) ** power
            if magnitude >= unit and magnitude % unit == 0:
                return f"{sign}{_plain(magnitude / unit)}{suffix}"
        return f"{sign}{_plain(magnitude)}"
    if magnitude == magnitude.to_integral_value():
        return f"{sign}{_plain(magnitude)}"
    for suffix, power in (("m", -3), ("u", -6), ("n", -9)):
        scaled = magnitude.scaleb(-power)
        if scaled == scaled.to_integral_value():
            return f"{sign}{_plain(scaled)}{suffix}"
    return f"{sign}{_plain(magnitude)}"


@lru_cache(maxsize=4096)
def human(value: Decimal, resource: str = "") -> str:
    """For people: memory as "96Gi" (or "1.5Gi"), cpu as "0.5" rather than "500m"."""
    if _is_bytes(resource):
        exact = format_quantity(value, resource)
        if exact[-2:] in _BINARY or value < 1024:
            return exact
        for suffix, power in sorted(_BINARY.items(), key=lambda item: -item[1]):
            unit = Decimal(1024) ** power
            if abs(value) >= unit:
                return f"{_plain(round(value / unit, 1))}{suffix}"
        return exact
    if value == value.to_integral_value():
        return _plain(value)
    return _plain(round(value, 3)) if abs(value) >= Decimal("0.001") else format_quantity(value, resource)


def add(left: Quantities, right: Quantities) -> dict[str, Decimal]:
    """Resource-wise sum."""
    total = dict(left)
    for name, amount in right.items():
        total[name] = total.get(name, Decimal(0)) + amount
    return total


def scale(values: Quantities, factor: int) -> dict[str, Decimal]:
    return {name: amount * factor for name, amount in values.items()}


def maximum(left: Quantities, right: Quantities) -> dict[str, Decimal]:
    """Resource-wise maximum."""
    result = dict(left)
    for name, amount in right.items():
        result[name] = max(result.get(name, amount), amount)
    return result


def total(many: Iterable[Quantities]) -> dict[str, Decimal]:
    result: dict[str, Decimal] = {}
    for values in many:
        result = add(result, values)
    return result


def parse_map(raw: object) -> dict[str, Decimal]:
    """A requests/limits mapping; entries that are not quantities are dropped."""
    if not isinstance(raw, Mapping):
        return {}
    parsed: dict[str, Decimal] = {}
    for name, value in raw.items():
        amount = parse_or_none(value)
        if amount is not None:
            parsed[str(name)] = amount
    return parsed
