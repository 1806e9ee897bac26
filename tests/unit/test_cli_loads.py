"""`explain` loads what explaining a job needs and no more: the bot.service package imports none of its modules,
so the CLI loads bot.service.explaining (and the slices it runs in) without the use cases, their ports and
their results (bench/README.md says what that saves at each start)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.paths import ROOT, SCENARIOS

LOADED = """
import json, sys
from bot.cli import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(m for m in sys.modules if m == "bot.service" or m.startswith("bot.service."))]))
"""


def test_explain_from_a_file_loads_no_use_case_of_the_service() -> None:
    dump = SCENARIOS / "pods-pending" / "cluster.yaml"
    args = ["explain", "autonomy/lidar-seg-train", "--from-file", str(dump), "--now", "2026-09-30T23:10:00Z"]
    run = subprocess.run(
        [sys.executable, "-c", LOADED, *args], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    code, loaded = json.loads(run.stdout.strip().splitlines()[-1])
    assert code == 0
    assert loaded == ["bot.service", "bot.service.explaining"]
