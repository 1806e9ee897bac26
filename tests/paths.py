"""Where the tests find their data: the project's own copies under tests/data (see tests/data/README.md).

A clone has everything the suite needs. When the session's shared folder sits beside the project (`SHARED`),
a few tests also run against it (its scenarios and tools); they are skipped, by name, when it is not there.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SCENARIOS = DATA / "scenarios"
KUEUE_CRDS = DATA / "kueue" / "crds"
WORKLOAD_NAME_VECTORS = DATA / "kueue" / "workload-name-test-vectors.json"
SLACK_SCHEMAS = DATA / "slack"

SHARED = ROOT.parent / "shared"
SHARED_SCENARIOS = SHARED / "scenarios"
SHARED_TOOLS = SHARED / "tools"
