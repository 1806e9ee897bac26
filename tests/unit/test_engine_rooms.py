"""The engine's rooms (issue #10 item 1): the verdict's properties defined once, fragments in bot/copy (a
French answer is French all through), "did you mean" and other namespaces as data."""

from __future__ import annotations

import pytest
from bot.copy import render, render_value
from bot.copy.text import Text
from bot.notify import policy
from bot.slack import render as slack_render
from bot.trace import messages
from bot.trace.codes import Verdict
from bot.trace.serialize import text

from tests.builders import (
    cluster_queue,
    cpu_group,
    explain_objects,
    flavor_quotas,
    group,
    job,
    local_queue,
    namespace,
    pending,
    quota,
    resource_flavor,
    taint,
)

V = Verdict

# The sets the project had before the properties (bot/trace/codes._NEVER, bot/notify/policy.IMMEDIATE and
# bot/notify/watcher._NEVER_HINTS, which were equal): the properties must say exactly the same.
NEVER = {
    V.NOT_MANAGED,
    V.WORKLOAD_MISSING,
    V.LOCAL_QUEUE_MISSING,
    V.CLUSTER_QUEUE_MISSING,
    V.QUEUE_INACTIVE,
    V.NAMESPACE_NOT_ALLOWED,
    V.NO_MATCHING_FLAVOR,
    V.EXCEEDS_MAX_QUOTA,
    V.TOPOLOGY_PLACEMENT_FAILED,
    V.ADMISSION_CHECK_REJECTED,
    V.DEACTIVATED,
    V.INVALID_REQUEST,
    V.WORKLOAD_OUT_OF_SYNC,
}
AT_ONCE = {
    V.EXCEEDS_MAX_QUOTA,
    V.NO_MATCHING_FLAVOR,
    V.LOCAL_QUEUE_MISSING,
    V.CLUSTER_QUEUE_MISSING,
    V.NAMESPACE_NOT_ALLOWED,
    V.QUEUE_INACTIVE,
    V.ADMISSION_CHECK_REJECTED,
    V.INVALID_REQUEST,
    V.WORKLOAD_OUT_OF_SYNC,
}
NOT_WAITING = {V.RUNNING, V.FINISHED, V.PODS_PENDING, V.JOB_NOT_FOUND}


def test_the_verdict_properties_are_the_sets_the_project_had() -> None:
    assert {v for v in Verdict if v.never_fixes_itself} == NEVER
    assert {v for v in Verdict if v.tells_at_once} == AT_ONCE
    assert {v for v in Verdict if not v.waits_for_admission} == NOT_WAITING
    assert AT_ONCE <= NEVER  # told at once only what never fixes itself


def test_notify_reads_the_verdict_properties() -> None:
    assert policy.IMMEDIATE == AT_ONCE
    assert policy.NOT_WAITING == NOT_WAITING


@pytest.mark.parametrize("verdict", [V.JOB_NOT_FOUND, V.RUNNING, V.FINISHED, V.PODS_PENDING, V.REQUEUE_BACKOFF])
def test_off_queue_verdicts_have_no_place_in_a_queue(verdict: Verdict) -> None:
    assert not verdict.in_queue


def test_a_nested_fragment_is_written_in_the_readers_language() -> None:
    fragment = Text("fragment.missing-flavors", {"flavors": "ghost-flavor", "count": 1})
    assert render_value(fragment, "en") == "missing ResourceFlavor: ghost-flavor"
    assert render_value(fragment, "fr") == "ResourceFlavor manquante : ghost-flavor"
    assert render_value((fragment, "Kueue's words"), "fr") == "ResourceFlavor manquante : ghost-flavor; Kueue's words"
    sentence = render("cluster-queue.inactive", {"cluster_queue": "cq", "detail": fragment}, "fr")
    assert sentence == "La ClusterQueue cq est inactive : ResourceFlavor manquante : ghost-flavor."


INACTIVE = [
    namespace(),
    cluster_queue("cq", group(["cpu"], flavor_quotas("ghost-flavor", quota("cpu", 4)))),
    local_queue(),
]
TAINTED = [
    namespace(),
    resource_flavor(taints=[taint("spot", "true")]),
    cluster_queue("cq", cpu_group()),
    local_queue(),
]
UNCOVERED = [namespace(), resource_flavor(), cluster_queue("cq", cpu_group()), local_queue()]


@pytest.mark.parametrize(
    ("objects", "verdict", "english", "french"),
    [
        pytest.param(
            INACTIVE,
            V.QUEUE_INACTIVE,
            "missing ResourceFlavor: ghost-flavor",
            "ResourceFlavor manquante : ghost-flavor",
            id="inactive",
        ),
        pytest.param(
            TAINTED,
            V.NO_MATCHING_FLAVOR,
            "(flavor default: taint spot=true:NoSchedule)",
            "taint spot=true:NoSchedule non toléré",
            id="taint",
        ),
    ],
)
def test_a_french_headline_is_french_all_through(
    objects: list[dict[str, object]], verdict: Verdict, english: str, french: str
) -> None:
    explanation = explain_objects([*objects, *pending()])
    assert explanation.verdict is verdict
    assert english in text(explanation.headline, "en")
    headline = text(explanation.headline, "fr")
    assert french in headline and english not in headline, headline
    slack = slack_render.answer_summary(explanation, language="fr").text
    assert french in slack, slack


def test_a_resource_not_covered_is_named_in_french() -> None:
    gpu = {"limits": {"nvidia.com/gpu": "1"}}
    the_job = job(spec={"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}, **gpu}}]})
    explanation = explain_objects([*UNCOVERED, *pending(spec=the_job["spec"]["template"]["spec"])])
    assert explanation.verdict is V.NO_MATCHING_FLAVOR
    assert "nvidia.com/gpu not covered" in text(explanation.headline, "en")
    assert "nvidia.com/gpu non couvert(s)" in text(explanation.headline, "fr")


def test_the_engines_remarks_on_a_kueue_message_are_copy_keys() -> None:
    cut = "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor a, 3 more ..."
    fact = messages.classify_quota_reserved("Pending", cut).facts[0]
    assert any(isinstance(part, Text) and part.key == "note.cut-by-kueue" for part in fact.about)
    assert fact.detail == "cut by Kueue"
    assert render_value(fact.about, "fr") == "coupé par Kueue"


def test_did_you_mean_and_other_namespaces_are_data() -> None:
    objects = [namespace(), namespace("team-b"), job("trian"), job("train", "team-b")]
    explanation = explain_objects(objects, "train")
    assert explanation.verdict is V.JOB_NOT_FOUND
    assert explanation.suggestions == ("trian",)
    assert explanation.other_namespaces == ("team-b",)
