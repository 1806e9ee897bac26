"""No dataclass of the bot spells out the `__init__` @dataclass makes (they were written for a compiled twin of
the engine, since retired): a field's default, or `field(default_factory=...)`, says what it starts as, and a
`__post_init__` converts where a conversion is truly needed."""

from __future__ import annotations

import ast
from datetime import UTC, datetime

from bot.copy.text import Text
from bot.trace.codes import Outcome, Verdict
from bot.trace.explanation import Action, Ahead, Explanation, JobRef, Position, Step

from tests.paths import ROOT

BOT = ROOT / "bot"


def _written_inits(source: str) -> list[str]:
    """The dataclasses in `source` (at any depth) that define their own `__init__`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        decorated = any(
            (isinstance(d, ast.Call) and getattr(d.func, "id", getattr(d.func, "attr", "")) == "dataclass")
            or (isinstance(d, ast.Name | ast.Attribute) and getattr(d, "id", getattr(d, "attr", "")) == "dataclass")
            for d in node.decorator_list
        )
        if decorated and any(isinstance(item, ast.FunctionDef) and item.name == "__init__" for item in node.body):
            found.append(node.name)
    return found


def test_the_finder_sees_a_written_init_however_the_decorator_is_spelled() -> None:
    source = (
        "import dataclasses\n"
        "from dataclasses import dataclass\n"
        "@dataclass(frozen=True)\nclass A:\n    x: int\n    def __init__(self, x: int) -> None: ...\n"
        "@dataclass\nclass B:\n    def __init__(self) -> None: ...\n"
        "@dataclasses.dataclass\nclass C:\n    def __init__(self) -> None: ...\n"
        "class D:\n    def __init__(self) -> None: ...\n"
        "@dataclass\nclass E:\n    x: int\n    def __post_init__(self) -> None: ...\n"
    )
    assert _written_inits(source) == ["A", "B", "C"]


def test_no_dataclass_of_the_bot_writes_its_own_init() -> None:
    written = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted(BOT.rglob("*.py"))
        for name in _written_inits(path.read_text(encoding="utf-8"))
    ]
    assert written == []


def test_the_explanation_classes_take_their_fields_in_order_with_their_defaults() -> None:
    text = Text("headline.example", {})
    step = Step("quota", Outcome.FAIL, "quota.short", text)
    assert step.data == {} and Step("quota", Outcome.FAIL, "quota.short", text, {"cpu": 1}).data == {"cpu": 1}
    assert Action("wait", text).data == {}
    assert Ahead(3, None) == Ahead(count=3, by_priority=None, workloads=())
    position = Position(2, None, "computed", "cq", "lq")
    assert (position.pending_total, position.ahead, position.scope) == (None, None, None)
    job = JobRef("Job", "team-a", "train")
    explanation = Explanation(job, ("team-a", "train"), Verdict.QUEUE_STOPPED, text, (step,))
    assert explanation.actions == () and explanation.owners == () and explanation.position is None
    taken = datetime(2026, 1, 1, tzinfo=UTC)
    assert Explanation(job, None, Verdict.QUEUE_STOPPED, text, (), snapshot_taken_at=taken).snapshot_taken_at == taken


def test_a_factory_field_is_new_for_each_object() -> None:
    text = Text("headline.example", {})
    assert (
        Step("quota", Outcome.FAIL, "quota.short", text).data
        is not Step("quota", Outcome.FAIL, "quota.short", text).data
    )
    assert Action("wait", text).data is not Action("wait", text).data
