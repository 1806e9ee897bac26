"""The admins' view (issue 17): what only an admin can fix, per ClusterQueue, each with its fix; the digest's
rule (post once, edit on change, never repeat); its Block Kit within Slack's limits, in both languages."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bot.admin.view import (
    COHORT_CYCLE,
    INACTIVE,
    LONG_WAIT,
    NEVER_FITS,
    ORPHAN_LOCAL_QUEUE,
    STARVED,
    STOPPED,
    AdminView,
    Finding,
    Group,
    admin_view,
)
from bot.clusters import AdminSettings, parse_admins
from bot.copy import render
from bot.copy.text import Text
from bot.notify.admin_digest import DigestRecord, decide, due_at
from bot.service.explaining import explain_job
from bot.slack.render import MAX_BLOCKS, MAX_SECTION
from bot.slack.render_admin import admin_message

from tests import builders as b

NOW = b.NOW


def _kinds(objects: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    view = admin_view(b.snapshot(objects), now=NOW, explain=explain_job)
    return [(g.cluster_queue, f.kind, f.subject) for g in view.groups for f in g.findings]


def _sentences(objects: list[dict[str, Any]], language: str = "en") -> str:
    view = admin_view(b.snapshot(objects), now=NOW, explain=explain_job)
    return "\n".join(render(t.key, t.params, language) for f in view.findings for t in (f.what, *f.fix))


def test_a_healthy_cluster_has_nothing_to_fix() -> None:
    view = admin_view(
        b.snapshot([*b.cluster(cpu=10), *b.pending("train", cpu="1", created=b.ago(1))]), now=NOW, explain=explain_job
    )
    assert view.empty  # a job waiting is its owner's news (by DM), not an admin's task
    assert admin_view(b.snapshot(b.cluster()), now=NOW, explain=explain_job).empty


def test_a_job_that_never_fits_names_the_quota_that_would_admit_it() -> None:
    objects = [*b.cluster(cpu=2), *b.pending("train", cpu="3", created=b.ago(30))]
    assert _kinds(objects) == [("cq", NEVER_FITS, "team-a/train")]
    text = _sentences(objects)
    assert "raise the nominal quota of cpu in flavor default of cq by 1 (to 3)" in text


def test_a_stopped_queue_says_how_to_resume_it() -> None:
    objects = b.cluster(stop_policy="Hold")
    assert _kinds(objects) == [("cq", STOPPED, "cq")]
    assert "stopPolicy" in _sentences(objects) and "kubectl patch clusterqueue cq" in _sentences(objects)


def test_missing_flavors_and_checks_make_an_inactive_queue_with_their_fix() -> None:
    objects = [
        b.namespace(),
        b.cluster_queue(
            "cq",
            b.cpu_group("ghost"),
            checks=["prov"],
            conditions=[b.condition("Active", False, "FlavorNotFound", "Can't admit new workloads: ...")],
        ),
        b.local_queue(),
    ]
    assert _kinds(objects) == [("cq", INACTIVE, "cq:checks"), ("cq", INACTIVE, "cq:flavors")]
    text = _sentences(objects)
    assert "create the ResourceFlavor ghost" in text and "create the AdmissionCheck prov" in text


def test_an_inactive_reason_only_kueue_knows_is_passed_on() -> None:
    objects = [
        b.namespace(),
        b.resource_flavor(),
        b.cluster_queue(
            "cq",
            conditions=[b.condition("Active", False, "TopologyNotFound", 'there is no Topology "rack" for TAS flavor')],
        ),
    ]
    assert _kinds(objects) == [("cq", INACTIVE, "cq:TopologyNotFound")]
    assert "create the Topology" in _sentences(objects)


def test_a_cohort_cycle_is_found_and_named() -> None:
    objects = [
        *b.cluster(cohort="a"),
        b.cohort("a", parent="b"),
        b.cohort("b", parent="a"),
    ]
    assert ("cq", COHORT_CYCLE, "a") in _kinds(objects)
    assert "a → b → a" in _sentences(objects)


def test_a_local_queue_pointing_at_nothing_is_grouped_under_the_missing_queue() -> None:
    objects = [*b.cluster(), b.local_queue("orphan", cluster_queue="gone")]
    view = admin_view(b.snapshot(objects), now=NOW, explain=explain_job)
    group = next(g for g in view.groups if g.cluster_queue == "gone")
    assert not group.exists and [f.kind for f in group.findings] == [ORPHAN_LOCAL_QUEUE]
    assert "create ClusterQueue gone, or point the LocalQueue at an existing one (cq)" in _sentences(objects)


def _borrowed(reclaim: str | None = None) -> list[dict[str, Any]]:
    """cq-a and cq-b share cohort pool (4 cpu each); cq-b runs 8 cpu (4 borrowed from cq-a); cq-a's job waits."""
    hog = b.job("hog", "team-b", queue="b-queue", spec=b.cpu_spec("8"))
    hog_wl = b.workload(
        of=hog,
        namespace="team-b",
        queue="b-queue",
        status=b.reserved("cq-b", b.assignment("main", 1, default={"cpu": "8"}), at=b.ago(60)),
    )
    cq_a = b.cluster_queue("cq-a", b.cpu_group(cpu=4), cohort="pool")
    if reclaim is not None:
        cq_a["spec"]["preemption"] = {"reclaimWithinCohort": reclaim}
    return [
        b.namespace("team-a"),
        b.namespace("team-b"),
        b.resource_flavor(),
        cq_a,
        b.cluster_queue("cq-b", b.cpu_group(cpu=4), cohort="pool"),
        b.local_queue("user-queue", "team-a", "cq-a"),
        b.local_queue("b-queue", "team-b", "cq-b"),
        hog,
        hog_wl,
        *b.pending("train", cpu="2", created=b.ago(45)),
    ]


def test_a_queue_starved_by_borrowing_is_told_to_reclaim() -> None:
    kinds = _kinds(_borrowed())
    assert ("cq-a", STARVED, "cq-a:default:cpu") in kinds
    text = _sentences(_borrowed())
    assert "cq-b hold(s) its cpu" in text and "reclaimWithinCohort: Any on cq-a" in text


def test_waits_that_more_quota_would_not_end_are_no_admins_task() -> None:
    objects = [*b.cluster(cpu=1)]
    for index, minutes in enumerate((10, 50, 30, 40, 20)):
        objects.extend(b.pending(f"job-{index}", cpu="1", created=b.ago(minutes)))
    waits = [f for f in admin_view(b.snapshot(objects), now=NOW, explain=explain_job).findings if f.kind == LONG_WAIT]
    assert waits == []  # each waits its turn behind the others: time's to fix, told to its owner by DM


def test_the_fingerprint_ignores_time_passing_but_not_a_change() -> None:
    objects = [*b.cluster(cpu=2), *b.pending("train", cpu="3", created=b.ago(30))]
    first = admin_view(b.snapshot(objects), now=NOW, explain=explain_job)
    later = admin_view(b.snapshot(objects), now=NOW + timedelta(hours=3), explain=explain_job)
    assert first.fingerprint == later.fingerprint
    stopped = admin_view(b.snapshot([*b.cluster(cpu=2, stop_policy="Hold")]), now=NOW, explain=explain_job)
    assert stopped.fingerprint != first.fingerprint


T0 = datetime(2026, 11, 3, 9, 30, tzinfo=UTC)
AT = (9, 0)


def _record(fingerprint: str = "f1", posted: datetime = T0) -> DigestRecord:
    return DigestRecord("U1", "D1", "1.1", fingerprint, posted, posted)


@pytest.mark.parametrize(
    ("record", "fingerprint", "empty", "now", "expected"),
    [
        pytest.param(None, "f1", False, T0, "post", id="first-digest"),
        pytest.param(None, "f0", True, T0, None, id="nothing-to-fix-nothing-sent"),
        pytest.param(_record(), "f1", False, T0 + timedelta(hours=5), None, id="unchanged-never-repeated"),
        pytest.param(_record(), "f1", False, T0 + timedelta(days=3), None, id="unchanged-days-later"),
        pytest.param(_record(), "f2", False, T0 + timedelta(hours=5), "update", id="changed-same-day-edited"),
        pytest.param(_record(), "f0", True, T0 + timedelta(hours=5), "update", id="all-clear-edited"),
        pytest.param(_record(), "f2", False, T0 + timedelta(days=1), "post", id="changed-next-day-new-digest"),
        pytest.param(_record(), "f2", False, T0 + timedelta(hours=23), "update", id="before-next-digest-time"),
    ],
)
def test_the_digest_rule(
    record: DigestRecord | None, fingerprint: str, empty: bool, now: datetime, expected: str | None
) -> None:
    assert decide(record, fingerprint, empty, now, AT) == expected


def test_due_at_is_the_latest_digest_time_passed() -> None:
    assert due_at(datetime(2026, 11, 3, 8, 0, tzinfo=UTC), AT) == datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    assert due_at(datetime(2026, 11, 3, 9, 0, tzinfo=UTC), AT) == datetime(2026, 11, 3, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("admins", "channel", "at", "problem"),
    [
        pytest.param("U0AAA,bob", "", "", "ADMINS: bob", id="bad-user"),
        pytest.param("U0AAA", "#admins", "", "ADMIN_CHANNEL", id="bad-channel"),
        pytest.param("", "C0ADMINS", "", "ADMIN_CHANNEL is set but ADMINS is not", id="channel-without-admins"),
        pytest.param("U0AAA", "", "9h", "ADMIN_DIGEST_AT", id="bad-time"),
    ],
)
def test_bad_admin_settings_are_one_clear_line_each(admins: str, channel: str, at: str, problem: str) -> None:
    problems: list[str] = []
    parse_admins(admins, channel, at, problems)
    assert len(problems) == 1 and problem in problems[0]


def test_admin_settings_targets() -> None:
    problems: list[str] = []
    settings = parse_admins("U0AAA, U0BBB", "", "07:30", problems)
    assert not problems and settings == AdminSettings(("U0AAA", "U0BBB"), "", (7, 30))
    assert settings.targets == ("U0AAA", "U0BBB") and settings.is_admin("U0BBB") and not settings.is_admin("U0CCC")
    assert parse_admins("U0AAA", "C0ADMINS", "", problems).targets == ("C0ADMINS",)


def _huge() -> AdminView:
    long = "x" * 2000 + " `not closed"
    groups = tuple(
        Group(
            f"cq-{g}",
            True,
            tuple(
                Finding(
                    INACTIVE,
                    f"cq-{g}",
                    f"cq-{g}:{i}",
                    Text("admin.inactive.kueue", {"cluster_queue": f"cq-{g}", "reason": "Unknown", "message": long}),
                    (Text("admin.fix.inactive", {"cluster_queue": f"cq-{g}"}),),
                )
                for i in range(20)
            ),
        )
        for g in range(80)
    )
    return AdminView(groups)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_message_stays_within_slacks_limits(language: str) -> None:
    message = admin_message(_huge(), language=language, cluster="prod-eu", as_of="2026-11-03 09:30 UTC")
    assert len(message.blocks) <= MAX_BLOCKS
    for block in message.blocks:
        text = block.get("text")
        if isinstance(text, dict):
            assert len(str(text["text"])) <= MAX_SECTION
    assert "more" in json.dumps(message.blocks) or "de plus" in json.dumps(message.blocks, ensure_ascii=False)


def test_the_message_in_both_languages_and_all_clear() -> None:
    objects = [*b.cluster(cpu=2), *b.pending("train", cpu="3", created=b.ago(30))]
    view = admin_view(b.snapshot(objects), now=NOW, explain=explain_job)
    english = json.dumps(admin_message(view, language="en").blocks)
    french = json.dumps(admin_message(view, language="fr").blocks, ensure_ascii=False)
    assert "What only an admin can fix" in english and "ClusterQueue cq" in english and "Why:" in english
    assert "Ce que seul un admin peut corriger" in french and "Pourquoi :" in french
    clear = admin_message(AdminView(()), language="en")
    assert "Nothing for an admin to fix" in json.dumps(clear.blocks)


def test_several_clusters_views_merge_with_the_cluster_in_each_group() -> None:
    from bot.admin.view import merged

    eu = admin_view(
        b.snapshot([*b.cluster(cpu=2), *b.pending("train", cpu="3", created=b.ago(30))]), now=NOW, explain=explain_job
    )
    us = admin_view(b.snapshot(b.cluster(stop_policy="Hold")), now=NOW, explain=explain_job)
    both = merged({"eu": eu, "us": us})
    assert [g.cluster_queue for g in both.groups] == ["eu/cq", "us/cq"]
    assert (
        both.fingerprint
        != merged({"eu": eu, "us": admin_view(b.snapshot(b.cluster()), now=NOW, explain=explain_job)}).fingerprint
    )
    assert merged({"eu": eu}) is eu
