"""The acceptance scenarios, run the way CI runs them: ../shared/tools/check-scenarios against `python -m bot`."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"


def test_check_scenarios_passes() -> None:
    tool = SHARED / "tools" / "check-scenarios"
    assert tool.is_file(), f"{tool} is missing: the shared folder must sit next to the project"
    done = subprocess.run(
        [sys.executable, str(tool), "--cmd", f"{shlex.quote(sys.executable)} -m bot"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=50,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 failed" in done.stdout.splitlines()[-1]
