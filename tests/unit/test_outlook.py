"""The forecast end to end beside the engine and at the edge: the outlook (eta, holders, what_if); the JSON keys;
the Slack answer's When line and Who holds it step (names only for who may see them), in English and French;
the DM carries the ETA and moves only meaningfully; "when will X run?" / "who is using the GPUs?" parse."""

from __future__ import annotations

import pytest
from bot.forecast.eta import ESTIMATE, Eta
from bot.forecast.history import History
from bot.forecast.outlook import eta_mark, eta_moved, explain_with_outlook
from bot.forecast.serialize import to_json
from bot.slack import render
from bot.slack.parse import Command, parse
from bot.trace.codes import Verdict
from bot.trace.explain import Query

from tests.builders import NOW, foresee_objects, snapshot
from tests.contention import base, gpu_queue, lq, research_cohort, running, waiting
from tests.unit.test_eta import steady


def _everything(message: render.SlackMessage) -> str:
    return repr(message.blocks) + message.text


def test_explain_carries_the_three_answers_and_the_json_keys() -> None:
    explanation, outlook = foresee_objects(research_cohort(), "train", namespace="team-a")
    assert explanation.verdict == Verdict.WAITING_FOR_QUOTA
    assert outlook.holders is not None and outlook.holders.contests[0].count == 2
    assert outlook.eta is not None and outlook.what_if is not None
    document = to_json(explanation, outlook)
    assert {"eta", "holders", "what_if"} <= set(document)
    assert document["holders"]["contests"][0]["holders"][1]["preemptible"] == "reclaim"
    assert document["what_if"]["changes"][0]["change"] == "raise-quota"


def test_the_history_given_makes_an_estimate() -> None:
    history = History(tuple(steady(100, cq="team-a-cq")))
    snap = snapshot(research_cohort())
    _, with_history = explain_with_outlook(snap, Query("team-a", "train", "Job"), now=NOW, history=history)
    assert with_history.eta is not None and with_history.eta.status == ESTIMATE
    _, bare = explain_with_outlook(snap, Query("team-a", "train", "Job"), now=NOW)
    assert bare.eta is not None and bare.eta.status != ESTIMATE


def test_a_never_fitting_job_has_no_estimate_and_its_what_if() -> None:
    objects = [*base(gpu_queue("cq", ("a100", 8))), lq("gpus", "team-a", "cq"), *waiting("train", pods=12)]
    explanation, outlook = foresee_objects(objects, "train", namespace="team-a")
    assert explanation.verdict == Verdict.EXCEEDS_MAX_QUOTA
    assert outlook.eta is not None and outlook.eta.status == "never"
    assert outlook.holders is None
    assert outlook.what_if is not None and outlook.what_if.changes


def test_an_admitted_job_has_none_of_them() -> None:
    objects = [*base(gpu_queue("cq", ("a100", 8))), lq("gpus", "team-a", "cq"), *running("train", "team-a", "cq")]
    _, outlook = foresee_objects(objects, "train", namespace="team-a")
    assert (outlook.eta, outlook.holders, outlook.what_if) == (None, None, None)


@pytest.mark.parametrize(
    ("language", "when", "holders_title", "borrowing"),
    [("en", "*When:* ", "Who holds it", "borrowing"), ("fr", "*Quand :* ", "Qui le tient", "emprunte")],
)
def test_slack_answer_has_the_when_line_and_the_who_holds_it_step(
    language: str, when: str, holders_title: str, borrowing: str
) -> None:
    explanation, outlook = foresee_objects(research_cohort(), "train", namespace="team-a")
    summary = _everything(render.answer_summary(explanation, language=language, outlook=outlook))
    assert when in summary
    details = _everything(render.answer_details(explanation, language=language, show_names=True, outlook=outlook))
    assert f"*{holders_title}*" in details and "team-b/theirs" in details and borrowing in details
    hidden = _everything(render.answer_details(explanation, language=language, show_names=False, outlook=outlook))
    assert "theirs" not in hidden and "team-a/mine" in hidden  # the asker's own namespace stays named


def test_strict_fifo_names_its_blocker_only_for_who_may_see_it() -> None:
    objects = [
        *base(gpu_queue("cq", ("a100", 8), strategy="StrictFIFO")),
        lq("gpus", "team-a", "cq"),
        lq("gpus", "team-b", "cq"),
        *running("big", "team-a", "cq", pods=6),
        *waiting("huge", "team-b", pods=4, priority=50, minutes=90),
        *waiting("train", pods=1, minutes=5),
    ]
    explanation, outlook = foresee_objects(objects, "train", namespace="team-a")
    shown = _everything(render.answer_details(explanation, language="en", show_names=True, outlook=outlook))
    assert "StrictFIFO: `team-b/huge`" in shown
    hidden = _everything(render.answer_details(explanation, language="en", show_names=False, outlook=outlook))
    assert "huge" not in hidden and "a workload of another namespace (priority 50)" in hidden


def test_the_dm_carries_the_eta() -> None:
    explanation, outlook = foresee_objects(research_cohort(), "train", namespace="team-a")
    for language, word in (("en", "When: "), ("fr", "Quand : ")):
        dm = render.notification(explanation, language=language, reason="updated", eta=outlook.eta)
        assert word in _everything(dm)


def _eta(low_min: int, high_min: int) -> Eta:
    return Eta(ESTIMATE, 1, low_min * 60, high_min * 60, admissions=30)


@pytest.mark.parametrize(
    ("before", "after", "moved"),
    [
        pytest.param(_eta(20, 45), _eta(22, 48), False, id="a-few-minutes-is-no-news"),
        pytest.param(_eta(20, 45), _eta(60, 120), True, id="doubled-is-news"),
        pytest.param(_eta(20, 45), Eta("no-estimate"), True, id="estimate-lost"),
        pytest.param(None, _eta(20, 45), True, id="first-estimate"),
    ],
)
def test_the_eta_moves_the_dm_only_meaningfully(before: Eta | None, after: Eta, moved: bool) -> None:
    mark = eta_mark(before) or "none"
    assert eta_moved(mark, after) is moved
    assert not eta_moved("", after)  # a delivery that recorded no ETA mark: no news


@pytest.mark.parametrize(
    ("text", "command", "namespace", "name", "focus"),
    [
        ("when will train-octobre run?", Command.WHY, None, "train-octobre", "when"),
        ("quand train-octobre partira-t-il ?", Command.WHY, None, "train-octobre", "when"),
        ("when will team-a/train run", Command.WHY, "team-a", "train", "when"),
        ("who is using the GPUs?", Command.WHO, None, None, ""),  # cluster-wide (tests/unit/test_who.py)
        ("qui utilise les GPU ?", Command.WHO, None, None, ""),
        ("qui tient ce qu'attend team-a/train ?", Command.WHY, "team-a", "train", "who"),
        ("why is train pending", Command.WHY, None, "train", ""),
    ],
)
def test_when_and_who_questions_are_understood(
    text: str, command: Command, namespace: str | None, name: str | None, focus: str
) -> None:
    question = parse(text)
    assert (question.command, question.namespace, question.name, question.focus) == (command, namespace, name, focus)
    assert not question.candidates


@pytest.mark.parametrize(("language", "word"), [("en", "Whose job?"), ("fr", "Quel job ?")])
def test_who_without_a_job_asks_which_one(language: str, word: str) -> None:
    assert word in _everything(render.focused_which_job("who", language=language))
