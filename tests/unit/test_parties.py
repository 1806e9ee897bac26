"""The party that holds a job, named: situations written from Kueue's source (tests/data/parties/<name>/, the
format of tests/data/scenarios/README.md, each expect.yaml saying which file and line of Kueue it relies on),
explained in-process, in English and in French. Beyond the scenarios' keys, an expect.yaml has `mentions_fr`
(what the French headline or steps must contain) and `absent` (what the English headline, steps and advice
must not)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.copy import render_value
from bot.kube.decode import parse_time
from bot.kube.dump import read_dump
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation
from bot.trace.resolve import canonical_kind

from tests.fakes.kube_schema import dump_problems
from tests.paths import DATA

PARTIES = DATA / "parties"
FOLDERS = sorted(path.parent for path in PARTIES.glob("*/expect.yaml"))


def _expect(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))
    return loaded


def _explained(folder: Path) -> Explanation:
    expect = _expect(folder)
    query = expect["query"]
    now = parse_time(str(expect["now"]))
    assert now is not None
    snapshot = read_dump(folder / "cluster.yaml").snapshot
    return explain(
        snapshot, Query(query["namespace"], query["name"], canonical_kind(query.get("kind", "Job"))), now=now
    )


def _said(explanation: Explanation, language: str, *, advice: bool = False) -> str:
    texts = [explanation.headline, *(step.text for step in explanation.steps)]
    texts += [action.text for action in explanation.actions] if advice else []
    return " ".join(render_value(text, language) for text in texts).lower()


def _shortfalls(expect: dict[str, Any], explanation: Explanation) -> list[str]:
    problems = []
    if explanation.verdict.value != expect["verdict"]:
        problems.append(f"verdict {explanation.verdict.value!r}, expected {expect['verdict']!r}")
    if "workload" in expect and (explanation.workload or ("", ""))[1] != expect["workload"]:
        problems.append(f"workload {explanation.workload!r}, expected {expect['workload']!r}")
    position = explanation.position
    for key, want in (expect.get("position") or {}).items():
        have = (
            None
            if position is None
            else {"clusterQueue": position.cluster_queue, "localQueue": position.local_queue}[key]
        )
        if have != want:
            problems.append(f"position.{key} {have!r}, expected {want!r}")
    if "position" in expect and expect["position"] is None and position is not None:
        problems.append(f"a position {position.cluster_queue}, expected none")
    english, french = _said(explanation, "en"), _said(explanation, "fr")
    problems += [f"never mentions {n!r}" for n in expect.get("mentions") or [] if str(n).lower() not in english]
    problems += [f"never mentions (fr) {n!r}" for n in expect.get("mentions_fr") or [] if str(n).lower() not in french]
    everything = _said(explanation, "en", advice=True)
    problems += [f"mentions {n!r}" for n in expect.get("absent") or [] if str(n).lower() in everything]
    return problems


@pytest.mark.parametrize("folder", FOLDERS, ids=[folder.name for folder in FOLDERS])
def test_the_party_is_named(folder: Path) -> None:
    assert _shortfalls(_expect(folder), _explained(folder)) == []


@pytest.mark.parametrize("folder", FOLDERS, ids=[folder.name for folder in FOLDERS])
def test_the_kueue_objects_validate_against_the_crds(folder: Path) -> None:
    assert dump_problems((folder / "cluster.yaml").read_text(encoding="utf-8")) == []


def test_every_situation_relies_on_kueue_source() -> None:
    """Each expect.yaml names the Kueue file it was written from."""
    assert len(FOLDERS) >= 1
    assert [f.name for f in FOLDERS if ".go" not in (f / "expect.yaml").read_text(encoding="utf-8")] == []
