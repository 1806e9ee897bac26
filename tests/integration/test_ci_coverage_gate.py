"""`.ci/run` fails when the coverage of bot/ drops under the floor (issue 10: a floor that is checked).

The real `.ci/run` runs, unchanged, in a tiny project that has this project's coverage settings (the
`[tool.coverage.*]` sections of pyproject.toml, copied as they are, floor included) and a two-function `bot`
package: once with a test of one function (coverage 50 %, under the floor: the run must fail and say so),
once with tests of both (100 %: it must pass, so the failure is the gate's and nothing else's). The tiny
project's `.venv` stands for the real one: its python is this interpreter (the dev install a no-op) and its
ruff, mypy and lint-imports succeed at once; those steps are the whole suite's gates, checked there.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.paths import ROOT

_MODULE = """def covered(x: int) -> int:
    return x + 1


def uncovered(x: int) -> int:
    if x > 0:
        return x - 1
    return -x
"""
_ONE_TEST = "from bot.m import covered\n\n\ndef test_covered() -> None:\n    assert covered(1) == 2\n"
_BOTH_TESTS = _ONE_TEST + (
    "\n\ndef test_uncovered() -> None:\n    from bot.m import uncovered\n\n"
    "    assert uncovered(2) == 1\n    assert uncovered(-3) == 3\n"
)


def _coverage_sections() -> str:
    """The [tool.coverage.*] tables of the real pyproject.toml, as written there."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    tables = re.split(r"(?m)^(?=\[)", text)
    return "".join(table for table in tables if table.startswith("[tool.coverage."))


def _executable(path: Path, body: str) -> None:
    path.write_text("#!/usr/bin/env bash\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _project(root: Path, tests: str) -> Path:
    (root / ".ci").mkdir(parents=True)
    (root / ".ci" / "run").write_text((ROOT / ".ci" / "run").read_text(encoding="utf-8"), encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "tiny"\nversion = "0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n'
        + _coverage_sections(),
        encoding="utf-8",
    )
    (root / "bot").mkdir()
    (root / "bot" / "__init__.py").write_text("", encoding="utf-8")
    (root / "bot" / "m.py").write_text(_MODULE, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_m.py").write_text(tests, encoding="utf-8")
    venv = root / ".venv" / "bin"
    venv.mkdir(parents=True)
    _executable(venv / "python", f'[ "$1 $2" = "-m pip" ] && exit 0\nexec "{sys.executable}" "$@"\n')
    for tool in ("ruff", "mypy", "lint-imports"):
        _executable(venv / tool, "exit 0\n")
    return root


def _ci_run(root: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTEST", "COV_CORE", "COVERAGE_"))}
    return subprocess.run(
        ["bash", ".ci/run", "-q"], cwd=root, env=env, capture_output=True, text=True, timeout=280, check=False
    )


def test_the_real_settings_have_a_floor() -> None:
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["coverage"]
    assert settings["run"]["source"] == ["bot"]
    assert settings["report"]["fail_under"] >= 91
    assert "--cov" in (ROOT / ".ci" / "run").read_text(encoding="utf-8").split()


@pytest.mark.timeout(300)
def test_ci_run_fails_under_the_coverage_floor(tmp_path: Path) -> None:
    done = _ci_run(_project(tmp_path / "under", _ONE_TEST))
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "1 passed" in output, output  # the tests pass: only the floor fails the run
    assert re.search(r"Required test coverage of \d+(\.\d+)?% not reached", output), output


@pytest.mark.timeout(300)
def test_ci_run_passes_over_the_coverage_floor(tmp_path: Path) -> None:
    done = _ci_run(_project(tmp_path / "over", _BOTH_TESTS))
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "2 passed" in output and re.search(r"Required test coverage of \d+(\.\d+)?% reached", output), output
