"""`Explanation.with_outlook` and `whatif.fresh` are `dataclasses.replace` spelled out (every question makes them):
they must carry every field, the ones added after they were written too."""

from __future__ import annotations

import ast
import dataclasses
from datetime import timedelta

from bot.forecast.whatif import fresh
from bot.trace.explanation import Explanation
from bot.trace.model import Workload

from tests.builders import NOW, explain_objects, snapshot
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


def _keywords(path: str, function: str, constructor: str) -> list[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    [method] = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == function]
    calls = [node for node in ast.walk(method) if isinstance(node, ast.Call)]
    [call] = [node for node in calls if isinstance(node.func, ast.Name) and node.func.id == constructor]
    assert not call.args
    return sorted(k.arg or "" for k in call.keywords)


def test_fresh_names_every_field_of_a_workload_and_is_replace() -> None:
    fields = sorted(f.name for f in dataclasses.fields(Workload) if f.init)
    assert _keywords("bot/forecast/whatif.py", "fresh", "Workload") == fields
    [workload] = [w for w in snapshot(research_cohort()).workloads_in("team-a") if w.admission is not None][:1]
    assert fresh(workload) == dataclasses.replace(
        workload, conditions=(), admission=None, requeue=None, checks=(), reclaimable={}
    )
