"""The one list of things to do holds against the answer's own facts (bot.forecast.todo): over every scenario
and the contention tables, its changes are the verified what-if's, with their numbers; it never offers what
the facts rule out (waiting for a job that can never fit, a higher priority "for preemption" where nothing can
be preempted, a second pod count beside the what-if's, a quota "to at least" beside the what-if's raise)."""

from __future__ import annotations

import functools
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from bot.forecast import whatif
from bot.forecast.outlook import Outlook, explain_with_outlook
from bot.forecast.todo import todo_list
from bot.kube.dump import read_dump
from bot.trace.explain import Query
from bot.trace.explanation import Explanation

from tests.builders import foresee_objects
from tests.contention import research_cohort
from tests.paths import SCENARIOS

FOLDERS = sorted(path.parent for path in SCENARIOS.glob("*/expect.yaml"))
_CHANGES = {
    whatif.OTHER_QUEUE,
    whatif.FEWER_PODS,
    whatif.PARTIAL_ADMISSION,
    whatif.SMALLER_REQUEST,
    whatif.OTHER_FLAVOR,
    whatif.RAISE_QUOTA,
}
_FLAVOR_FIXES = {"add-toleration", "fix-node-selector", "check-node-selector"}  # they name the flavor's change
_POD_COUNTS = {whatif.FEWER_PODS, whatif.PARTIAL_ADMISSION, "shrink-request", "shrink-to-start-now", "lower-min-count"}


@functools.cache
def _scenario(folder: Path) -> tuple[Explanation, Outlook]:
    expect = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))
    query = expect["query"]
    now = datetime.fromisoformat(str(expect["now"]).replace("Z", "+00:00"))
    snapshot = read_dump(folder / "cluster.yaml").snapshot
    return explain_with_outlook(snapshot, Query(query["namespace"], query["name"], query.get("kind", "Job")), now=now)


def _cases() -> list[tuple[str, tuple[Explanation, Outlook]]]:
    cases = [(folder.name, _scenario(folder)) for folder in FOLDERS]
    for policy in ("Never", "LowerPriority"):
        found = foresee_objects(research_cohort(reclaim=policy, within=policy), "train", namespace="team-a")
        cases.append((f"research-cohort-{policy}", found))
    return cases


CASES = _cases()


@pytest.mark.parametrize(("name", "answer"), CASES, ids=[name for name, _ in CASES])
def test_the_list_agrees_with_the_what_if_and_the_facts(name: str, answer: tuple[Explanation, Outlook]) -> None:
    explanation, outlook = answer
    items = todo_list(explanation, outlook)
    codes = [item.code for item in items]
    changes = outlook.what_if.changes if outlook.what_if is not None else ()
    # Every change the what-if verified is in the list; every change in the list is one it verified.
    offered = {code for code in codes if code in _CHANGES}
    verified = {change.code for change in changes}
    if _FLAVOR_FIXES & {action.code for action in explanation.actions}:
        verified.discard(whatif.OTHER_FLAVOR)  # the engine's fix says it with the taint or label to change
    assert offered == verified, name
    # One pod count: the what-if's, never the engine's "shrink" beside it.
    if any(change.code in (whatif.FEWER_PODS, whatif.PARTIAL_ADMISSION) for change in changes):
        assert not {"shrink-request", "shrink-to-start-now"} & set(codes), name
    assert len([code for code in codes if code in _POD_COUNTS and code != whatif.PARTIAL_ADMISSION]) <= 1, name
    # One quota figure: the what-if's raise, never "to at least" beside it.
    if any(change.code == whatif.RAISE_QUOTA for change in changes):
        assert "ask-admin-quota" not in codes, name
    # No waiting for a job that can never fit as it is.
    if explanation.never_fixes_itself:
        assert "wait" not in codes, name
    # No "preemption may apply" where the facts say nothing can be preempted.
    holders = outlook.holders
    if holders is not None and not any(contest.preemptible > 0 for contest in holders.contests):
        said = [item.text.key for item in items]
        assert "action.ask-admin-priority" not in said and "todo.priority-preempts" not in said, name
    # The asker's things first, then an admin's.
    order = [item.who for item in items if item.who != "note"]
    assert order == sorted(order, key=lambda who: who != "you"), name


def test_a_queue_that_preempts_offers_priority_for_preemption_and_one_that_does_not_only_to_move_ahead() -> None:
    never = dict(CASES)["research-cohort-Never"]
    lower = dict(CASES)["research-cohort-LowerPriority"]
    keys_never = [item.text.key for item in todo_list(*never)]
    keys_lower = [item.text.key for item in todo_list(*lower)]
    assert "todo.priority-preempts" not in keys_never
    assert "action.ask-admin-priority" not in keys_never + keys_lower
