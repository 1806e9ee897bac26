"""`Explanation.with_outlook` is `dataclasses.replace` spelled out (every question ends with it): it must carry
every field, the ones added after it was written too."""

from __future__ import annotations

import ast
import dataclasses
from datetime import timedelta

from bot.trace.explanation import Explanation

from tests.builders import NOW, explain_objects
from tests.contention import research_cohort
from tests.paths import ROOT


def test_with_outlook_names_every_field_of_an_explanation() -> None:
    tree = ast.parse((ROOT / "bot" / "trace" / "explanation.py").read_text(encoding="utf-8"))
    [method] = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == "with_outlook"]
    [call] = [
        node
        for node in ast.walk(method)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Explanation"
    ]
    assert sorted(k.arg or "" for k in call.keywords) == sorted(f.name for f in dataclasses.fields(Explanation))
    assert not call.args


def test_with_outlook_is_replace() -> None:
    found = explain_objects(research_cohort(), "train", namespace="team-a")
    assert found.eta is not None and found.holders is not None and found.what_if is not None  # a full one
    bare = dataclasses.replace(found, holders=None, eta=None, what_if=None, admitted_at=NOW - timedelta(hours=1))
    assert bare.with_outlook(found.holders, found.eta, found.what_if) == dataclasses.replace(
        bare, holders=found.holders, eta=found.eta, what_if=found.what_if
    )
