"""One golden explanation (JSON and text) per folder of ../shared/scenarios, run in-process.

`pytest --update-goldens` rewrites tests/goldens/scenarios/<scenario>.json and .txt; review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from bot.forecast.outlook import Outlook, explain_with_outlook
from bot.forecast.serialize import to_json
from bot.kube.decode import parse_time
from bot.kube.dump import read_dump
from bot.terminal import render_text
from bot.trace.explain import Query
from bot.trace.explanation import Explanation
from bot.trace.resolve import canonical_kind

from tests.paths import SCENARIOS

GOLDENS = Path(__file__).resolve().parents[1] / "goldens" / "scenarios"
FOLDERS = sorted(path.parent for path in SCENARIOS.glob("*/expect.yaml"))


def explain_scenario(folder: Path) -> Explanation:
    return foresee_scenario(folder)[0]


def foresee_scenario(folder: Path) -> tuple[Explanation, Outlook]:
    """The scenario's explanation and its outlook (the forecast beside it)."""
    expect = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))
    query = expect["query"]
    now = parse_time(str(expect["now"]))
    assert now is not None
    kind = canonical_kind(query.get("kind", "Job"))
    snapshot = read_dump(folder / "cluster.yaml").snapshot
    return explain_with_outlook(snapshot, Query(query["namespace"], query["name"], kind), now=now)


def rendered(explanation: Explanation, outlook: Outlook) -> dict[str, str]:
    return {
        "json": json.dumps(to_json(explanation, outlook), indent=2, ensure_ascii=False) + "\n",
        "txt": render_text(explanation, colour=False, outlook=outlook),
    }


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


def test_there_are_scenarios() -> None:
    assert len(FOLDERS) >= 13


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_golden(folder: Path, update_goldens: bool) -> None:
    outputs = rendered(*foresee_scenario(folder))
    for suffix, got in outputs.items():
        golden = GOLDENS / f"{folder.name}.{suffix}"
        if update_goldens:
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(got, encoding="utf-8")
            continue
        assert golden.is_file(), f"no golden {golden.name}: run pytest --update-goldens and review the diff"
        assert got == golden.read_text(encoding="utf-8"), f"{golden.name} changed: pytest --update-goldens to accept"


def test_the_goldens_agree_with_the_scenarios_expectations() -> None:
    """The goldens are what the engine says; expect.yaml is what it must say. Check the main fields."""
    for folder in FOLDERS:
        golden = GOLDENS / f"{folder.name}.json"
        if not golden.is_file():
            pytest.fail(f"no golden {golden.name}: run pytest --update-goldens")
        document = json.loads(golden.read_text(encoding="utf-8"))
        expect = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))
        assert document["verdict"] == expect["verdict"], folder.name
        if "workload" in expect:
            assert (document["workload"] or {}).get("name") == expect["workload"], folder.name
        for key, value in (expect.get("position") or {}).items():
            assert document["position"][key] == value, folder.name


def test_no_stale_goldens() -> None:
    names = {folder.name for folder in FOLDERS}
    stale = sorted(path.name for path in GOLDENS.glob("*") if path.stem not in names)
    assert not stale, f"goldens of scenarios that no longer exist: {stale}"
