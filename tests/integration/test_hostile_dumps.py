"""Hostile dumps given to `explain --from-file`, each in a process of its own whose peak memory
(ru_maxrss) is read after it ends: a dump of valid objects larger than the limit, and a Workload far beyond
the bounds Kueue's validation keeps. The dumps are made here, in a temporary folder. Each test fails if the
process does not end within its timeout, if its peak memory passes the bound, or if the answer is not the
one clear line (or verdict) the user is promised. The figures measured are in bench/README.md."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.kube.decode_limits import MAX_POD_SETS
from bot.kube.dump import MAX_DUMP_BYTES

from tests.paths import SCENARIOS

REPO = Path(__file__).resolve().parents[2]
SCENARIO = SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml"
ASKED = "ml-vision/segformer-finetune"  # waits for quota in that scenario
PEAK_MB = 800  # the peak of a dump at the size limit (bench/README.md), the interpreter included
REFUSED_MB = 150  # a dump refused from its size is never parsed


# A wrapper process runs the bot and reports its child's peak: ru_maxrss of RUSAGE_CHILDREN is the largest of
# every child a process ever waited for, so it is read in a process whose only child is the one measured.
_MEASURE = """
import json, resource, subprocess, sys
done = subprocess.run([sys.executable, "-m", "bot", *sys.argv[1:]], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"code": done.returncode, "out": done.stdout, "err": done.stderr, "peak": peak}))
"""


def _peak_of(args: list[str], timeout: float) -> tuple[int, str, str, float]:
    """Run `python -m bot ARGS` in a child of its own: its exit status, output and peak memory in MB."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout, check=True
    )
    report = json.loads(done.stdout)
    return report["code"], report["out"], report["err"], report["peak"]


def _items() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = yaml.safe_load(SCENARIO.read_text())["items"]
    return items


def _dumped(value: object) -> str:
    return yaml.dump(value, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper))


@pytest.mark.timeout(300)
def test_a_dump_over_the_limit_is_refused_at_once_in_one_line(tmp_path: Path) -> None:
    # Valid objects (the scenario's Workloads under new names) past the limit: refused from the size, nothing
    # parsed. Fails if the dump is parsed (the peak memory passes the bound; before the limit was honest, a
    # 200 MB dump took 7 GB) or if the refusal is not one line naming the limit.
    workload = next(item for item in _items() if item["kind"] == "Workload")
    workload["metadata"]["name"] = "filler-name"
    text = _dumped([workload])
    path = tmp_path / "large.yaml"
    with path.open("w") as file:
        file.write("apiVersion: v1\nkind: List\nitems:\n")
        written = 0
        while written <= MAX_DUMP_BYTES:
            written += file.write(text.replace("filler-name", f"filler-{written}"))
    code, out, err, peak = _peak_of(["explain", ASKED, "--from-file", str(path)], timeout=120)
    assert code == 3 and out == ""
    assert err.count("\n") == 1 and f"the largest dump read is {MAX_DUMP_BYTES // 2**20} MiB" in err
    assert peak < REFUSED_MB


@pytest.mark.timeout(400)
def test_a_workload_beyond_kueues_bounds_is_named_unreadable_not_missing(tmp_path: Path) -> None:
    # The asked job's Workload with 10,000 pod sets (Kueue keeps at most 18). Fails if the answer does not say
    # that Workload could not be read, by name (before: no answer after minutes, and on a live source "Kueue
    # has created no Workload for it"), or if it takes more memory than the bound.
    items = _items()
    workload = next(i for i in items if i["kind"] == "Workload" and i["metadata"]["name"].startswith("job-segformer"))
    pod_set = workload["spec"]["podSets"][0]
    workload["spec"]["podSets"] = [{**copy.deepcopy(pod_set), "name": f"p{i}"} for i in range(10_000)]
    path = tmp_path / "pod-sets.yaml"
    path.write_text(_dumped({"apiVersion": "v1", "kind": "List", "items": items}))
    args = ["explain", ASKED, "--from-file", str(path), "--format", "json", "--now", "2026-11-03T09:41:00Z"]
    code, out, err, peak = _peak_of(args, timeout=300)
    assert code == 0, err
    answer = json.loads(out)
    assert answer["verdict"] == "object-unreadable"
    headline = answer["headline"]["text"] if isinstance(answer["headline"], dict) else answer["headline"]
    assert workload["metadata"]["name"] in headline
    assert f"at most {MAX_POD_SETS}" in headline
    assert peak < PEAK_MB
