"""The CLI as a kubectl plugin: `kubectl-kueue` is installed on PATH by `pip install`, and kubectl's words
(`why NAME -n NS`, `fit -f FILE`, `queue NAME -n NS`) reach the same commands; `queue` shows a LocalQueue."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bot.kubectl import USAGE, translate

from tests.paths import SCENARIOS

DUMP = SCENARIOS / "article-three-cpus" / "cluster.yaml"
PLUGIN = Path(sys.executable).with_name("kubectl-kueue")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["why", "train", "-n", "team-a"], ["explain", "train", "-n", "team-a"]),
        (["fit", "-f", "job.yaml", "-n", "team-a"], ["fit", "job.yaml", "-n", "team-a"]),
        (["fit", "--filename=job.yaml"], ["fit", "job.yaml"]),
        (["queue", "default", "-n", "team-a"], ["queue", "default", "-n", "team-a"]),
        (["explain", "team-a/train"], ["explain", "team-a/train"]),
        ([], None),
        (["--help"], None),
    ],
)
def test_kubectl_s_words_become_the_cli_s(argv: list[str], expected: list[str] | None) -> None:
    assert translate(argv) == expected


def _plugin(*argv: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    if path is not None:
        env["PATH"] = path
    command = [str(PLUGIN), *argv] if path is None else ["kubectl", "kueue", *argv]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_the_plugin_is_installed_and_answers() -> None:
    assert PLUGIN.exists(), "pip install puts kubectl-kueue beside python"
    usage = _plugin()
    assert usage.returncode == 0 and usage.stdout == USAGE
    why = _plugin("why", "train-octobre", "-n", "equipe-data", "--from-file", str(DUMP), "--format", "json")
    assert why.returncode == 0, why.stderr
    assert json.loads(why.stdout)["verdict"] == "exceeds-max-quota"


def test_queue_shows_the_local_queue() -> None:
    shown = _plugin("queue", "file-equipe-data", "-n", "equipe-data", "--from-file", str(DUMP))
    assert shown.returncode == 0, shown.stderr
    assert "Feeds ClusterQueue cq-equipe-data" in shown.stdout
    assert "1. equipe-data/train-octobre" in shown.stdout
    missing = _plugin("queue", "nope", "-n", "equipe-data", "--from-file", str(DUMP), "--format", "json")
    assert missing.returncode == 1 and json.loads(missing.stdout)["exists"] is False
    bad = _plugin("queue", "a/b/c", "--from-file", str(DUMP))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl on this machine to run the plugin through")
def test_kubectl_finds_the_plugin_on_path() -> None:
    path = f"{PLUGIN.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    why = _plugin("why", "train-octobre", "--from-file", str(DUMP), "--format", "json", path=path)
    assert why.returncode == 0, why.stderr
    assert json.loads(why.stdout)["job"]["namespace"] == "equipe-data"
