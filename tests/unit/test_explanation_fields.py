"""`whatif.recreated` (a Workload as Kueue would create it again) is `dataclasses.replace` spelled out (every
question makes it): it must carry every field, the ones added after it was written too."""

from __future__ import annotations

import ast
import dataclasses

from bot.forecast.whatif import recreated
from bot.trace.model import Workload

from tests.builders import snapshot
from tests.contention import research_cohort
from tests.paths import ROOT


def _keywords(path: str, function: str, constructor: str) -> list[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    [method] = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == function]
    calls = [node for node in ast.walk(method) if isinstance(node, ast.Call)]
    [call] = [node for node in calls if isinstance(node.func, ast.Name) and node.func.id == constructor]
    assert not call.args
    return sorted(k.arg or "" for k in call.keywords)


def test_fresh_names_every_field_of_a_workload_and_is_replace() -> None:
    fields = sorted(f.name for f in dataclasses.fields(Workload) if f.init)
    assert _keywords("bot/forecast/whatif.py", "recreated", "Workload") == fields
    [workload] = [w for w in snapshot(research_cohort()).workloads_in("team-a") if w.admission is not None][:1]
    assert recreated(workload) == dataclasses.replace(
        workload, conditions=(), admission=None, requeue=None, checks=(), reclaimable={}
    )
