"""Kubernetes quantities: parse to exact Decimals, format back in Kubernetes notation, and round for people."""

from __future__ import annotations

from decimal import Decimal

import pytest
from bot.trace.quantity import (
    QuantityError,
    add,
    format_quantity,
    human,
    maximum,
    parse,
    parse_map,
    parse_or_none,
    scale,
    total,
)

D = Decimal
KI, MI, GI = D(1024), D(1024) ** 2, D(1024) ** 3

PARSED = [
    # every decimal suffix
    ("1n", D("1e-9")),
    ("1u", D("1e-6")),
    ("250m", D("0.25")),
    ("3", D(3)),
    ("2k", D(2000)),
    ("1M", D(10) ** 6),
    ("1G", D(10) ** 9),
    ("1T", D(10) ** 12),
    ("1P", D(10) ** 15),
    ("1E", D(10) ** 18),
    # every binary suffix
    ("1Ki", KI),
    ("1Mi", MI),
    ("2Gi", 2 * GI),
    ("1Ti", D(1024) ** 4),
    ("1Pi", D(1024) ** 5),
    ("1Ei", D(1024) ** 6),
    # decimal exponents, both cases and signs
    ("1e3", D(1000)),
    ("1E3", D(1000)),
    ("1e-3", D("0.001")),
    ("2.5e+2", D(250)),
    ("12e0", D(12)),
    # number forms
    ("1.5", D("1.5")),
    (".5", D("0.5")),
    ("1.", D(1)),
    ("+1", D(1)),
    ("-1", D(-1)),
    ("0", D(0)),
    ("1.5Gi", D("1.5") * GI),
    ("0.1m", D("0.0001")),
    (" 2 ", D(2)),
    # non-strings, as YAML gives them
    (3, D(3)),
    (D("1.25"), D("1.25")),
    (0.1, D("0.1")),
    (1.5, D("1.5")),
]


@pytest.mark.parametrize(("text", "expected"), PARSED, ids=[repr(t) for t, _ in PARSED])
def test_parse(text: object, expected: Decimal) -> None:
    assert parse(text) == expected


BAD = [
    "",
    "abc",
    "Gi",
    "1Kb",
    "1K",  # Kubernetes' kilo is a lower-case k
    "1 Gi",
    "1.2.3",
    "--1",
    "1e",
    "1ee3",
    "1i",
    "1mi",
    "1e3Gi",
    "NaN",
    "inf",
    "1" * 70,  # longer than any quantity
    None,
    True,
    [1],
    float("nan"),
    float("inf"),
    Decimal("NaN"),
]


@pytest.mark.parametrize("text", BAD, ids=[repr(t)[:20] for t in BAD])
def test_parse_refuses_what_is_not_a_quantity(text: object) -> None:
    with pytest.raises(QuantityError):
        parse(text)
    assert parse_or_none(text) is None


def test_quantity_error_is_a_value_error() -> None:
    assert issubclass(QuantityError, ValueError)


FORMATTED = [
    (D(0), "cpu", "0"),
    (D(3), "cpu", "3"),
    (D("0.5"), "cpu", "500m"),
    (D("1.5"), "cpu", "1500m"),
    (D("-0.5"), "cpu", "-500m"),
    (D("0.0015"), "cpu", "1500u"),
    (D("1e-6"), "cpu", "1u"),
    (D("1e-9"), "cpu", "1n"),
    (D("1.2345678901"), "cpu", "1.2345678901"),  # finer than nano: plain, exact
    (D("1E+3"), "cpu", "1000"),
    (D(10) ** 18, "cpu", "1000000000000000000"),
    (D(4), "nvidia.com/gpu", "4"),
    (96 * GI, "memory", "96Gi"),
    (1536 * MI, "memory", "1536Mi"),
    (KI, "memory", "1Ki"),
    (D(1000), "memory", "1000"),
    (D(1024) ** 6, "memory", "1Ei"),
    (D("0.5"), "memory", "500m"),
    (GI, "ephemeral-storage", "1Gi"),
    (GI, "hugepages-2Mi", "1Gi"),
]


@pytest.mark.parametrize(("value", "resource", "expected"), FORMATTED, ids=[f"{v}-{r}" for v, r, _ in FORMATTED])
def test_format_quantity(value: Decimal, resource: str, expected: str) -> None:
    assert format_quantity(value, resource) == expected
    assert parse(expected) == value


HUMAN = [
    (D(3), "cpu", "3"),
    (D("0.5"), "cpu", "0.5"),
    (D("1.23456"), "cpu", "1.235"),  # rounded to a thousandth
    (D("0.0015"), "cpu", "0.002"),
    (D("0.0005"), "cpu", "500u"),  # too small to round: exact notation
    (96 * GI, "memory", "96Gi"),
    (1536 * MI, "memory", "1536Mi"),  # exact when exact
    (D(1610612737), "memory", "1.5Gi"),  # rounded to a tenth of the largest unit
    (D(10) ** 9, "memory", "953.7Mi"),
    (D(500), "memory", "500"),
]


@pytest.mark.parametrize(("value", "resource", "expected"), HUMAN, ids=[f"{v}-{r}" for v, r, _ in HUMAN])
def test_human(value: Decimal, resource: str, expected: str) -> None:
    assert human(value, resource) == expected


def test_arithmetic() -> None:
    left = {"cpu": D(1), "memory": GI}
    right = {"cpu": D("0.5"), "nvidia.com/gpu": D(1)}
    assert add(left, right) == {"cpu": D("1.5"), "memory": GI, "nvidia.com/gpu": D(1)}
    assert scale(left, 3) == {"cpu": D(3), "memory": 3 * GI}
    assert maximum(left, {"cpu": D(2), "memory": MI}) == {"cpu": D(2), "memory": GI}
    assert total([left, right, {"cpu": D(1)}]) == {"cpu": D("2.5"), "memory": GI, "nvidia.com/gpu": D(1)}
    assert total([]) == {}
    assert left == {"cpu": D(1), "memory": GI}, "the inputs are not changed"


def test_parse_map_drops_what_is_not_a_quantity() -> None:
    assert parse_map({"cpu": "500m", "memory": "1Gi", "bad": "lots", "gpu": 2}) == {
        "cpu": D("0.5"),
        "memory": GI,
        "gpu": D(2),
    }
    assert parse_map(None) == {}
    assert parse_map(["cpu"]) == {}
