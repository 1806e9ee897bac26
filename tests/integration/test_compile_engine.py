"""tools/compile_engine.py as a developer meets it: `--check` says whether the build is current, a module that
does not type-check fails the build with mypy's words (and leaves the pure-Python engine running), `--clean`
removes it. The build itself runs in .ci/run's second part (about 2 minutes), not here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.paths import ROOT


def _copy(root: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "_compiled")
    shutil.copytree(ROOT / "bot", root / "bot", ignore=ignore)
    shutil.copytree(ROOT / "tools", root / "tools", ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def _tool(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_CORE", "COVERAGE_"))}
    env["KUEUE_BOT_ENGINE"] = "compiled"  # the tool reads the sources without taking (or needing) a build
    return subprocess.run(
        [sys.executable, "-m", "tools.compile_engine", *args],
        cwd=root,
        env={**env, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_check_says_there_is_no_build_and_clean_has_nothing_to_remove(tmp_path: Path) -> None:
    root = _copy(tmp_path / "clone")
    checked = _tool(root, "--check")
    assert checked.returncode == 1 and "not current: no compiled engine in" in checked.stdout, checked
    cleaned = _tool(root, "--clean")
    assert cleaned.returncode == 0 and "nothing to remove" in cleaned.stdout, cleaned


def test_a_module_that_does_not_type_check_fails_the_build_with_mypy_s_words(tmp_path: Path) -> None:
    root = _copy(tmp_path / "clone")
    with (root / "bot" / "trace" / "walk.py").open("a") as module:
        module.write('\nBROKEN: int = "a"\n')
    built = _tool(root)
    assert built.returncode == 1, built
    assert "walk.py:" in built.stderr and "Incompatible types in assignment" in built.stderr, built.stderr
    assert "compiling the engine failed" in built.stderr and "the pure-Python engine still runs" in built.stderr
    assert "Traceback" not in built.stderr
    assert not (root / "bot" / "trace" / "_compiled").exists()


def test_a_process_that_requires_the_compiled_engine_and_has_none_stops_with_one_line(tmp_path: Path) -> None:
    root = _copy(tmp_path / "clone")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_CORE", "COVERAGE_"))}
    for wanted, code in (("compiled", 1), ("fast", 0)):
        done = subprocess.run(
            [sys.executable, "-c", "import bot.engine as e; print(e.running())"],
            cwd=root,
            env={**env, "PYTHONPATH": str(root), "KUEUE_BOT_ENGINE": wanted},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == code, done
        assert "Traceback" not in done.stderr
    assert done.stdout.strip() == "python"  # "fast": said, read as auto, no build here
    assert "KUEUE_BOT_ENGINE='fast' is not one of auto, python, compiled: read as auto" in done.stderr
