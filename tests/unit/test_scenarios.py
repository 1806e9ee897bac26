"""The acceptance scenarios (tests/data/scenarios, the project's copies of the shared ones), run the way a user
runs them: `python -m bot explain NS/NAME --kind K --from-file cluster.yaml --now T --format json`, in one
process per scenario, the JSON compared with the scenario's expect.yaml (the contract of
tests/data/scenarios/README.md). When the session's shared folder is beside the project, its own checker
runs too, over its scenarios and ours, and our copies must not have drifted from its."""

from __future__ import annotations

import filecmp
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.trace.quantity import parse_or_none

from tests.paths import ROOT, SCENARIOS, SHARED_SCENARIOS, SHARED_TOOLS

FOLDERS = sorted(path.parent for path in SCENARIOS.glob("*/expect.yaml"))


def _shortfalls(expect: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """Every way in which the command's JSON falls short of expect.yaml."""
    problems = []
    if got.get("verdict") != expect["verdict"]:
        problems.append(f"verdict {got.get('verdict')!r}, expected {expect['verdict']!r}")
    if "workload" in expect and (got.get("workload") or {}).get("name") != expect["workload"]:
        problems.append(f"workload {got.get('workload')!r}, expected {expect['workload']!r}")
    for resource, want in (expect.get("demand") or {}).items():
        have = (got.get("demand") or {}).get(resource)
        if parse_or_none(have) is None or parse_or_none(have) != parse_or_none(want):
            problems.append(f"demand[{resource}] {have!r}, expected {want!r}")
    for key, want in (expect.get("position") or {}).items():
        if (got.get("position") or {}).get(key) != want:
            problems.append(f"position.{key} {(got.get('position') or {}).get(key)!r}, expected {want!r}")
    steps = got.get("steps") or []
    text = " ".join([str(got.get("headline", "")), *(str(step.get("text", "")) for step in steps)]).lower()
    problems += [
        f"never mentions {needle!r}" for needle in expect.get("mentions") or [] if str(needle).lower() not in text
    ]
    if not steps:
        problems.append("no steps")
    return problems


@pytest.mark.parametrize("folder", FOLDERS, ids=[folder.name for folder in FOLDERS])
def test_the_scenario_is_explained_as_expected(folder: Path) -> None:
    expect = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))
    query = expect["query"]
    done = subprocess.run(
        [
            sys.executable, "-m", "bot", "explain", f"{query['namespace']}/{query['name']}",
            "--kind", query.get("kind", "Job"), "--from-file", str(folder / "cluster.yaml"),
            "--now", str(expect["now"]), "--format", "json",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert _shortfalls(expect, json.loads(done.stdout)) == [], done.stderr


def test_there_are_scenarios_of_every_kind_of_answer() -> None:
    verdicts = {yaml.safe_load((f / "expect.yaml").read_text())["verdict"] for f in FOLDERS}
    assert len(FOLDERS) >= 13 and len(verdicts) >= 10


@pytest.mark.skipif(not (SHARED_TOOLS / "check-scenarios").is_file(), reason="no ../shared beside the project")
def test_the_shared_checker_passes_on_its_scenarios_and_ours() -> None:
    done = subprocess.run(
        [sys.executable, str(SHARED_TOOLS / "check-scenarios"), "--cmd", f"{shlex.quote(sys.executable)} -m bot",
         str(SHARED_SCENARIOS), str(SCENARIOS)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 failed" in done.stdout.splitlines()[-1]


@pytest.mark.skipif(not SHARED_SCENARIOS.is_dir(), reason="no ../shared beside the project")
def test_our_copies_of_the_scenarios_are_the_shared_ones() -> None:
    """A scenario changed in ../shared is copied here by tools/refresh-test-data, not silently left behind."""
    ours = sorted(p.relative_to(SCENARIOS) for p in SCENARIOS.rglob("*") if p.is_file())
    theirs = sorted(p.relative_to(SHARED_SCENARIOS) for p in SHARED_SCENARIOS.rglob("*") if p.is_file())
    assert ours == theirs
    _, mismatch, errors = filecmp.cmpfiles(SCENARIOS, SHARED_SCENARIOS, [str(p) for p in ours], shallow=False)
    assert mismatch == errors == [], "run tools/refresh-test-data --from-shared ../shared"
