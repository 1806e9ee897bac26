"""bench/run.py, small: it runs end to end (the fake API server in its subprocess, the cache, the questions as the
bot asks them, the Slack phase through the real server app, the watcher, the events, the recorded questions)
and prints the JSON object issue 14 names, keys and all. The numbers themselves are the bench's to record
(bench/README.md), never asserted here: only what they must be whatever the machine."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.paths import ROOT

# Each runs the bench in a subprocess: bounded by its own timeout (minutes on a loaded machine), within the test's.
pytestmark = pytest.mark.timeout(900)

QUESTIONS = 40

# The keys issue 14 names (a contract), and the ones the bench had before it (kept).
CONTRACT = (
    "floor_p50_us",
    "watcher_steady_cpu_seconds",
    "watcher_changed_cpu_seconds",
    "loop_lag_max_ms",
    "slack_p50_ms",
    "slack_p99_ms",
)
BEFORE = (
    "sync_seconds",
    "rss_bytes_per_workload",
    "trace_p50_ms",
    "trace_p99_ms",
    "live_p50_ms",
    "live_p50_over_trace_p99",
    "live_floor_ms",
    "events_per_second",
    "requests_per_question",
)


def _bench(*arguments: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), *arguments, "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_a_small_run_prints_every_key_and_asks_as_the_bot_does() -> None:
    result = _bench(
        "--workloads", "300", "--queues", "10", "--owners", "5", "--questions", str(QUESTIONS),
        "--slack-samples", "25", "--live-samples", "1", "--events", "50", "--steady-passes", "1",
    )  # fmt: skip
    between = ("between_gc_collections", "between_gc_freezes", "between_gc_ms", "between_gc_longest_ms")
    for key in (*CONTRACT, *BEFORE, *between):
        assert isinstance(result[key], int | float) and result[key] >= 0, key
    assert result["workloads"] == 300 and result["trace_samples"] == QUESTIONS
    assert result["requests_per_question"] == 0  # every pending Workload answered from the cache
    assert 0 < result["trace_p50_ms"] <= result["trace_p99_ms"]
    assert 0 < result["slack_p50_ms"] <= result["slack_p99_ms"]
    # The young collection the bot asks for after a question ran between questions, once a turn at most.
    assert 1 <= result["between_gc_collections"] <= QUESTIONS
    assert result["between_gc_longest_ms"] <= result["between_gc_ms"] + 0.05  # (the total's to 0.1 ms)
    assert result["watcher_dms"]["first_pass"] >= 1  # the owners named in the annotations were told
    # The server's ETA warmer ran its pass before the questions (every queue with jobs waiting), for both.
    assert result["warmer_made"] >= 1 and result["recorded_warmer_made"] >= 1
    assert 0 <= result["warmer_longest_slice_ms"] <= result["warmer_pass_ms"] + 0.05  # (the pass's to 0.1 ms)
    assert 0 <= result["recorded_estimates"] <= QUESTIONS
    # The first question that reads a queue's ETA calibration (bench/calibration_phase.py): the scenarios whose
    # queues state an interval were asked, sliced and at once, with the same ETA (the phase checks it).
    answered = [r for r in result["calibration"] if r["estimate"]]
    assert answered and all(r["tests"] > 0 and r["question_ms"] > 0 and r["at_once_ms"] > 0 for r in answered)
    assert result["calibration_question_ms"] == max(r["question_ms"] for r in answered)
    assert result["calibration_loop_hold_max_ms"] >= 0 and result["calibration_loop_lag_max_ms"] >= 0


def test_a_small_sweep_prints_its_row() -> None:
    result = _bench("--sweep", "--sweep-largest", "1000", "--questions", "30")
    (row,) = result["sweep"]
    assert row["sweep"] == "size" and row["workloads"] == 1000
    for key in ("trace_p50_ms", "trace_p99_ms", "trace_warm_p50_ms", "trace_status_p50_ms", "floor_p50_us"):
        assert row[key] > 0, key
    assert row["warmer_pass_ms"] > 0


def test_without_rendering_between_questions_there_is_no_render_time() -> None:
    result = _bench(
        "--workloads", "200", "--queues", "10", "--questions", "20", "--no-render", "--no-watcher", "--no-recorded",
        "--slack-samples", "0", "--live-samples", "0", "--events", "0",
    )  # fmt: skip
    assert result["render_p50_ms"] == 0 and result["trace_p50_ms"] > 0 and result["trace_samples"] == 20


def test_without_the_warmer_there_is_no_warm_pass() -> None:
    result = _bench("--sweep", "--sweep-largest", "1000", "--questions", "20", "--no-warmer")
    (row,) = result["sweep"]
    assert row["warmer_pass_ms"] == 0 and row["trace_p50_ms"] > 0
