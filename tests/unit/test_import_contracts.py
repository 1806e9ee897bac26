"""The import contracts hold what they promise: each layer break below, injected into a copy of the package,
makes `lint-imports` fail on the contract that forbids it (and the untouched copy passes)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

LAYERS = "The layers, top to bottom"
PURE = "The trace engine is pure"
NO_FORECAST = "The admission engine knows nothing of the forecast"
FORECAST_PURE = "The forecast is pure"
COPY = "The copy catalogues are words only"
KUBERNETES = "Only bot.kube imports the Kubernetes client"
SLACK = "Only bot.slack imports Slack libraries"
PROMETHEUS = "Only bot.metrics imports prometheus_client"
YAML = "Only bot.kube reads YAML"
AIOHTTP = "Only the HTTP edges import aiohttp"
SQLITE = "Only the notifier's store opens SQLite"
STANDIN = "Only the demo uses the Slack stand-in"

# (the module's file, the line injected at its end, the contracts that must then break)
BREAKS = [
    # the breaks issue #10 lists
    ("trace/explain.py", "import prometheus_client", {PURE, PROMETHEUS}),
    ("trace/explain.py", "import yaml", {PURE, YAML}),
    ("trace/explain.py", "import bot.metrics", {LAYERS, PURE}),
    ("trace/explain.py", "import socket", {PURE}),
    ("service/ask.py", "from bot.slack import render", {LAYERS}),
    ("notify/watcher.py", "import bot.slack.render", {LAYERS}),
    ("access.py", "import kubernetes", {KUBERNETES}),
    ("terminal.py", "import bot.cli", {LAYERS}),
    # more of the same kind
    ("trace/model.py", "import sqlite3", {PURE, SQLITE}),
    ("trace/model.py", "import asyncio", {PURE}),
    ("trace/model.py", "import threading", {PURE}),
    ("trace/model.py", "import logging.handlers", {PURE}),
    ("trace/model.py", "import os", {PURE}),
    ("trace/model.py", "import bot.config", {LAYERS, PURE}),
    ("copy/en.py", "import socket", {COPY}),
    ("copy/fr.py", "import sqlite3", {COPY, SQLITE}),
    ("copy/en.py", "import asyncio", {COPY}),
    ("copy/fr.py", "import threading", {COPY}),
    ("copy/en.py", "import logging.handlers", {COPY}),
    ("copy/en.py", "import bot.trace.codes", {LAYERS}),
    ("slack/render/answer.py", "import bot.kube.cache", {LAYERS}),
    ("kube/cache.py", "import bot.slack.render", {LAYERS}),
    ("service/base.py", "import bot.config", {LAYERS}),
    ("server.py", "import slack_bolt", {SLACK}),
    ("notify/watcher.py", "import aiohttp", {AIOHTTP}),
    ("server.py", "import bot.standin", {STANDIN}),
    ("kube/cache.py", "import bot.cli", {LAYERS}),
    # the forecast: above the engine, which knows nothing of it; pure like it
    ("trace/explain.py", "import bot.forecast.outlook", {LAYERS, NO_FORECAST}),
    ("trace/queuecheck.py", "import bot.forecast", {LAYERS, NO_FORECAST}),
    ("forecast/outlook.py", "import os", {FORECAST_PURE}),
    ("forecast/eta.py", "import bot.service.base", {LAYERS}),
]


def test_every_module_of_the_package_has_its_layer() -> None:
    """A new top-level module outside the layers would escape them: each one must be placed."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [layers] = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    placed = {name.strip() for layer in layers["layers"] for name in layer.split("|")}
    bot = ROOT / "bot"
    modules = {p.stem for p in bot.glob("*.py")} | {p.parent.name for p in bot.glob("*/__init__.py")}
    assert modules - {"__init__", "__main__"} == placed


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "1000", "NO_COLOR": "1"}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", str(root / "pyproject.toml")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pristine")
    shutil.copytree(ROOT / "bot", root / "bot", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def _copy(pristine: Path, into: Path) -> Path:
    shutil.copytree(pristine, into)
    return into


def _broken(output: str) -> set[str]:
    return {line.removesuffix(" BROKEN") for line in output.splitlines() if line.endswith(" BROKEN")}


def test_the_untouched_copy_keeps_every_contract(pristine: Path, tmp_path: Path) -> None:
    result = _lint(_copy(pristine, tmp_path / "copy"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
    assert not _broken(result.stdout)


@pytest.mark.parametrize(("module", "line", "contracts"), BREAKS, ids=[f"{m}: {line}" for m, line, _ in BREAKS])
def test_an_injected_break_fails_lint_imports(
    pristine: Path, tmp_path: Path, module: str, line: str, contracts: set[str]
) -> None:
    root = _copy(pristine, tmp_path / "copy")
    path = root / "bot" / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}  # injected\n", encoding="utf-8")
    result = _lint(root)
    assert result.returncode == 1, result.stdout + result.stderr
    broken = _broken(result.stdout)
    for contract in contracts:
        assert any(name.startswith(contract) for name in broken), (contract, broken)
    target = line.split()[1]
    if not target.startswith("bot."):
        target = target.split(".")[0]  # an external package is one module in the graph (logging.handlers: logging)
    assert f"{path.relative_to(root).with_suffix('').as_posix().replace('/', '.')} -> {target}" in result.stdout
