"""A newcomer's clone holds every file the tests read, with no ../shared beside it (issue #15, item 1).

The repository (its committed HEAD) is cloned into a temporary folder whose parent holds nothing else, and the
tests that read vendored data (tests/data: the scenarios, the Kueue CRDs the fake API server serves, Slack's
manifest schemas, the Workload-name vectors) run there; the whole suite is then *collected* in the clone, which
is where a missing file used to fail (three collection errors). They run on this interpreter, importing the
clone's own `bot` and `tests` (its folder is the first on the path): a fresh virtual environment, the dev install,
ruff and mypy are the README's test command's own steps, which CI runs from a fresh clone, once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_CORE", "COVERAGE_"))}
    env[IN_CLONE] = "1"
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False
    )


@pytest.mark.timeout(900)
def test_a_clean_clone_holds_what_the_tests_read(tmp_path: Path) -> None:
    clone = tmp_path / "kueue-bot"
    cloned = _run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], tmp_path, 120)
    assert cloned.returncode == 0, cloned.stderr
    assert not (clone.parent / "shared").exists() and "bash .ci/run" in (clone / "README.md").read_text()

    imported = _run([sys.executable, "-c", "import bot, tests.paths; print(bot.__file__, tests.paths.ROOT)"], clone, 60)
    assert imported.stdout.split() == [str(clone / "bot" / "__init__.py"), str(clone)], imported

    pytest_in_clone = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    done = _run([*pytest_in_clone, "-q", *FAST_SUBSET], clone, 600)
    assert done.returncode == 0, done.stdout[-3000:] + "\n--- stderr ---\n" + done.stderr[-1000:]
    tally = done.stdout.splitlines()[-1]
    assert " passed" in tally and "failed" not in tally and "error" not in tally, tally

    collected = _run([*pytest_in_clone, "--collect-only", "-q"], clone, 300)
    assert collected.returncode == 0, (collected.stdout + collected.stderr)[-4000:]
    assert "error" not in collected.stdout.splitlines()[-1]
