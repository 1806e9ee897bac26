"""`python -m bot explain` in a terminal: its text wraps to the width COLUMNS says (a line is wider only to
keep a command whole, so it can be copied), with hanging indents, and carries what its JSON carries: the
things to do (the verified what-if among them), the ETA and who holds what the job waits for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.paths import ROOT, SCENARIOS

FOLDERS = sorted(path.parent for path in SCENARIOS.glob("*/expect.yaml"))


def _explain(folder: Path, *extra: str, columns: int = 80) -> str:
    expect = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))
    query = expect["query"]
    ref = f"{query['namespace']}/{query['name']}"
    command = [sys.executable, "-m", "bot", "explain", ref, "--from-file", str(folder / "cluster.yaml")]
    command += ["--now", str(expect["now"]), "--kind", str(query.get("kind") or "Job"), *extra]
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_the_text_fits_80_columns_but_for_commands(folder: Path) -> None:
    text = _explain(folder)
    wide = [line for line in text.splitlines() if len(line) > 80 and "kubectl" not in line]
    assert wide == [], "\n".join(wide)


def test_a_command_is_kept_whole_and_the_text_hangs_under_its_mark() -> None:
    text = _explain(SCENARIOS / "pods-pending", columns=60)
    assert "kubectl describe pod -n autonomy lidar-seg-train-q4lfd" in text  # on one line, whole
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("  8. "))
    assert lines[first + 1].startswith("       ") and not lines[first + 1].startswith("        ")


def test_the_text_carries_the_eta_the_holders_and_the_what_if_like_the_json() -> None:
    folder = SCENARIOS / "cohort-borrowing-waits"
    text = " ".join(_explain(folder, columns=400).split())
    document = json.loads(_explain(folder, "--format", "json"))
    assert document["eta"] and document["holders"] and document["what_if"]
    assert "When: No estimate yet" in text
    assert "Who holds it" in text and "beta-vision/sam2-train-a (beta-cq): 8" in text
    assert "Run 1 pod instead of 3" in text  # the what-if, verified
    assert "by 6, to 14: it would be admitted now" in text
