"""A newcomer's clone passes the README's test command with no ../shared beside it (issue #15, item 1).

The repository (its committed HEAD) is cloned into a temporary folder whose parent holds nothing else, and the
README's command, `bash .ci/run`, runs there: a fresh virtual environment, the dev install, ruff, mypy and the
import contracts on the clone, then pytest on the tests that read vendored data (tests/data: the scenarios,
the Kueue CRDs the fake API server serves, Slack's manifest schemas, the Workload-name vectors). The whole
suite is then *collected* in the clone, which is where a missing file used to fail (three collection errors).
Running the full suite a second time in the clone would double CI's time (the budget is 15 minutes on two
shared cores), so the rest of it runs once, here, from the same files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.paths import ROOT

IN_CLONE = "KUEUE_BOT_IN_CLEAN_CLONE"
FAST_SUBSET = [
    "tests/unit/test_scenarios.py",
    "tests/unit/test_resolve.py",
    "tests/integration/test_deploy.py::test_the_slack_manifest_matches_slacks_schema",
    "tests/integration/test_fake_kube_api.py",
]

pytestmark = pytest.mark.skipif(
    bool(os.environ.get(IN_CLONE)) or shutil.which("git") is None, reason="inside the clone itself, or no git"
)


def _run(argv: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTEST"))}
    env[IN_CLONE] = "1"
    env["KUEUE_BOT_CI_COMPILED"] = "0"  # .ci/run's second part (compile, the tests again) runs in CI's own clone
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False
    )


@pytest.mark.timeout(1500)
def test_a_clean_clone_passes_the_readme_test_command(tmp_path: Path) -> None:
    clone = tmp_path / "kueue-bot"
    cloned = _run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], tmp_path, 120)
    assert cloned.returncode == 0, cloned.stderr
    assert not (clone.parent / "shared").exists() and "bash .ci/run" in (clone / "README.md").read_text()

    # a subset cannot reach the whole suite's coverage floor: coverage is the full run's gate, not this one's
    done = _run(["bash", ".ci/run", "-q", "--no-cov", *FAST_SUBSET], clone, 900)
    assert done.returncode == 0, done.stdout[-3000:] + "\n--- stderr ---\n" + done.stderr[-1000:]
    tally = done.stdout.splitlines()[-1]
    assert " passed" in tally and "failed" not in tally and "error" not in tally, tally

    collected = _run([str(clone / ".venv" / "bin" / "python"), "-m", "pytest", "--collect-only", "-q"], clone, 300)
    assert collected.returncode == 0, (collected.stdout + collected.stderr)[-4000:]
    assert "error" not in collected.stdout.splitlines()[-1]
