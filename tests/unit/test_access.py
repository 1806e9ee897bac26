"""Who may see what: the channel's namespaces, the person's Kubernetes identity (SubjectAccessReviews through
a port), and what an answer may name. The reviews here are a small in-test RBAC table behind the `review`
port; the real review over HTTP is in tests/integration/test_access.py."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from bot.access import AUDIT_LOGGER, AuditLog, SubjectAccessPolicy, identity_for
from bot.errors import ClusterUnavailable
from bot.kube.access import review_body
from bot.service.botservice import BotService
from bot.service.ports import ChannelPolicy, StaticSource
from bot.service.results import Answered, Asker, AuditEntry, Choose, NotFound, Refused, Unavailable
from bot.slack import render
from bot.trace.queueview import QueueView
from bot.trace.snapshot import Snapshot

from tests.builders import ago, cluster, local_queue, namespace, pending, snapshot
from tests.clocks import MonotonicClock

NOW = datetime(2026, 10, 14, 10, 30, tzinfo=UTC)
ALICE, BOB, ROOT = "U0ALICE01", "U0BOB0001", "U0ROOT001"
EMAILS = {ALICE: "alice@example.com", BOB: "bob@example.com", ROOT: "root@example.com"}
# Kubernetes RBAC of the test: who may get workloads where ("" = every namespace).
RBAC = {
    "oidc:alice@example.com": {"team-a"},
    "oidc:bob@example.com": {"team-b"},
    "oidc:root@example.com": {""},
}
SHARED, TEAM_A_CHANNEL = "C0SHARED1", "C0TEAMA01"

# team-a and team-b share ClusterQueue cq; team-b's jobs wait ahead of team-a's "train".
WORLD = [
    *cluster(),
    namespace("team-b"),
    local_queue("user-queue", "team-b"),
    *pending("secret-model-x", created=ago(100), namespace_name="team-b"),
    *pending("trainer", created=ago(90), namespace_name="team-b"),
    *pending("train", created=ago(50)),
    *pending("twin", created=ago(40)),
    *pending("twin", created=ago(30), namespace_name="team-b"),
]


class Reviews:
    """The review port, answered from RBAC; counts the reviews asked, and can fail like an API server away."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, tuple[str, ...], str]] = []
        self.down = False

    async def __call__(self, user: str, groups: tuple[str, ...], namespace: str) -> bool:
        self.asked.append((user, groups, namespace))
        if self.down:
            raise ClusterUnavailable("cannot reach the API server")
        allowed = RBAC.get(user, set())
        return "" in allowed or namespace in allowed


class Emails:
    def __init__(self) -> None:
        self.looked_up: list[str] = []

    async def __call__(self, user: str) -> str | None:
        self.looked_up.append(user)
        return EMAILS.get(user)


def _channels(channel: str) -> Sequence[str] | None:
    return {TEAM_A_CHANNEL: ("team-a", "team-b")}.get(channel)


def _policy(
    reviews: Reviews | None = None, emails: Emails | None = None, clock: MonotonicClock | None = None
) -> SubjectAccessPolicy:
    return SubjectAccessPolicy(
        ChannelPolicy(_channels),
        template="oidc:{email}",
        email_of=emails or Emails(),
        review=reviews or Reviews(),
        groups=("system:authenticated",),
        monotonic=clock or MonotonicClock(1000.0),
    )


def _service(policy: object | None = None, audit: list[AuditEntry] | None = None) -> BotService:
    return BotService(
        StaticSource(snapshot(WORLD)),
        clock=lambda: NOW,
        policy=policy or _policy(),  # type: ignore[arg-type]
        audit=audit.append if audit is not None else None,
    )


# --- identities -------------------------------------------------------------------------------------

IDENTITIES = [
    ("oidc:{email}", "U1", "a@x.io", "oidc:a@x.io"),
    ("{user_id}", "U1", None, "U1"),
    ("slack:{user_id}:{email}", "U1", "a@x.io", "slack:U1:a@x.io"),
    ("oidc:{email}", "U1", None, None),
    ("oidc:{email}", "U1", "", None),
    ("{user_id}", "", None, None),
    ("{0}{email}{__class__}", "U1", "a@x.io", "{0}a@x.io{__class__}"),  # no str.format: nothing else is read
]


@pytest.mark.parametrize(
    ("template", "user", "email", "expected"), IDENTITIES, ids=[i[0] + "|" + str(i[2]) for i in IDENTITIES]
)
def test_identity_from_the_template(template: str, user: str, email: str | None, expected: str | None) -> None:
    assert identity_for(template, user, email) == expected


def test_the_review_asks_for_get_workloads_in_the_namespace_with_the_groups() -> None:
    body = review_body("oidc:a@x.io", ("devs",), "team-a")
    assert body["kind"] == "SubjectAccessReview"
    assert body["spec"] == {
        "user": "oidc:a@x.io",
        "groups": ["devs"],
        "resourceAttributes": {
            "namespace": "team-a",
            "verb": "get",
            "group": "kueue.x-k8s.io",
            "resource": "workloads",
        },
    }
    assert "groups" not in review_body("u", (), "x")["spec"]


# --- the policy ---------------------------------------------------------------------------------------


async def test_both_the_channel_and_the_person_must_allow() -> None:
    policy = _policy()
    assert await policy.may_see(ALICE, SHARED, "team-a")
    assert not await policy.may_see(ALICE, SHARED, "team-b")  # RBAC says no
    assert await policy.may_see(ROOT, SHARED, "team-b")
    assert not await policy.may_see(ROOT, TEAM_A_CHANNEL, "kube-system")  # the channel says no
    assert await policy.visible_namespaces(ALICE, TEAM_A_CHANNEL) == ["team-a"]
    assert await policy.visible_namespaces(BOB, TEAM_A_CHANNEL) == ["team-b"]
    assert await policy.visible_namespaces(ALICE, SHARED) is None  # not limited by the channel: checked one by one


async def test_a_user_without_an_email_is_denied_without_a_review() -> None:
    reviews = Reviews()
    policy = _policy(reviews)
    assert not await policy.may_see("U0NOMAIL1", SHARED, "team-a")
    assert await policy.visible_namespaces("U0NOMAIL1", TEAM_A_CHANNEL) == []
    assert reviews.asked == []


async def test_the_groups_go_with_every_review() -> None:
    reviews = Reviews()
    await _policy(reviews).may_see(ALICE, SHARED, "team-a")
    assert reviews.asked == [("oidc:alice@example.com", ("system:authenticated",), "team-a")]


async def test_verdicts_and_emails_are_kept_for_a_short_time() -> None:
    reviews, emails, clock = Reviews(), Emails(), MonotonicClock(1000.0)
    policy = _policy(reviews, emails, clock)
    for _ in range(5):
        assert await policy.may_see(ALICE, SHARED, "team-a")
        assert not await policy.may_see(ALICE, SHARED, "team-b")
    assert len(reviews.asked) == 2 and emails.looked_up == [ALICE]
    clock.now += 20  # past deny_ttl (15 s), within allow_ttl (60 s): only the denial is asked again
    await policy.may_see(ALICE, SHARED, "team-a")
    await policy.may_see(ALICE, SHARED, "team-b")
    assert [ns for _, _, ns in reviews.asked] == ["team-a", "team-b", "team-b"]
    clock.now += 60
    await policy.may_see(ALICE, SHARED, "team-a")
    assert [ns for _, _, ns in reviews.asked][-1] == "team-a" and len(reviews.asked) == 4


async def test_when_reviews_fail_the_last_verdict_holds_for_a_while_then_the_cluster_is_unavailable() -> None:
    reviews, clock = Reviews(), MonotonicClock(1000.0)
    policy = _policy(reviews, clock=clock)
    assert await policy.may_see(ALICE, SHARED, "team-a")
    reviews.down = True
    clock.now += 120  # expired, but younger than stale_grace (600 s)
    assert await policy.may_see(ALICE, SHARED, "team-a")
    clock.now += 600
    with pytest.raises(ClusterUnavailable):
        await policy.may_see(ALICE, SHARED, "team-a")
    with pytest.raises(ClusterUnavailable):  # never asked before: no guess
        await policy.may_see(BOB, SHARED, "team-b")


# --- what answers may name ------------------------------------------------------------------------------


async def test_a_namespace_the_asker_may_not_see_is_refused() -> None:
    outcome = await _service().ask(Asker(ALICE, SHARED), "secret-model-x", namespace="team-b", kind=None)
    assert outcome == Refused("team-b")


async def test_a_question_without_namespace_finds_only_visible_jobs() -> None:
    service = _service()
    # "secret-model-x" exists only in team-b: for Alice it does not exist, and nothing close is offered.
    hidden = await service.ask(Asker(ALICE, SHARED), "secret-model-x", namespace=None, kind=None)
    assert isinstance(hidden, NotFound) and not any("team-b" in s for s in hidden.suggestions)
    # "twin" exists in both: Alice gets hers answered, no choice naming team-b.
    twin = await service.ask(Asker(ALICE, SHARED), "twin", namespace=None, kind=None)
    assert isinstance(twin, Answered) and twin.explanation.job.namespace == "team-a"
    # Root sees both: a choice.
    both = await service.ask(Asker(ROOT, SHARED), "twin", namespace=None, kind=None)
    assert isinstance(both, Choose) and {ns for ns, _, _ in both.candidates} == {"team-a", "team-b"}


async def test_did_you_mean_suggests_only_visible_names() -> None:
    service = _service()
    for_bob = await service.ask(Asker(BOB, SHARED), "trainr", namespace=None, kind=None)
    assert isinstance(for_bob, NotFound)
    assert for_bob.suggestions and all(s.startswith("team-b/") for s in for_bob.suggestions)
    for_alice = await service.ask(Asker(ALICE, SHARED), "trainr", namespace="team-a", kind=None)
    assert isinstance(for_alice, NotFound) and all(s.startswith("team-a/") for s in for_alice.suggestions)
    assert "team-a/train" in for_alice.suggestions


async def test_who_waits_ahead_is_named_only_for_who_may_see_their_namespace() -> None:
    service = _service()
    alice = await service.ask(Asker(ALICE, SHARED), "train", namespace="team-a", kind=None)
    root = await service.ask(Asker(ROOT, SHARED), "train", namespace="team-a", kind=None)
    assert isinstance(alice, Answered) and isinstance(root, Answered)
    position = alice.explanation.position
    assert position is not None and position.ahead is not None
    assert {ns for ns, _, _ in position.ahead.workloads} == {"team-b"}  # the engine knows who...
    assert not alice.show_names and root.show_names
    for outcome, shown in ((alice, False), (root, True)):
        message = render.answer_details(outcome.explanation, language="en", show_names=outcome.show_names)
        text = json.dumps(message.blocks) + message.text
        assert ("secret-model-x" in text) is shown  # ...the answer says "2 ahead" to Alice, not who
        assert "2" in text


async def test_the_queue_view_and_its_namespaces_keep_to_what_the_asker_may_see() -> None:
    service = _service()
    assert await service.local_queue_namespaces(Asker(ALICE, SHARED), "user-queue") == ["team-a"]
    assert await service.local_queue_namespaces(Asker(ROOT, SHARED), "user-queue") == ["team-a", "team-b"]
    assert await service.queue(Asker(ALICE, SHARED), "team-b", "user-queue") == Refused("team-b")
    view = await service.queue(Asker(ALICE, SHARED), "team-a", "user-queue")
    assert isinstance(view, QueueView)
    others = {w.namespace for w in view.waiting}
    assert "team-b" in others
    assert not await service.may_see_all(Asker(ALICE, SHARED), others)
    shown = render.queue_view(view, language="en", show_names=False)
    assert "secret-model-x" not in json.dumps(shown.blocks) + shown.text


async def test_when_access_cannot_be_checked_the_question_gets_unavailable_not_an_answer() -> None:
    reviews = Reviews()
    reviews.down = True
    service = _service(_policy(reviews))
    asker = Asker(ALICE, SHARED)
    assert isinstance(await service.ask(asker, "train", namespace="team-a", kind=None), Unavailable)
    assert isinstance(await service.ask(asker, "train", namespace=None, kind=None), Unavailable)
    assert isinstance(await service.queue(asker, "team-a", "user-queue"), Unavailable)
    assert await service.local_queue_namespaces(asker, "user-queue") == []
    assert await service.default_namespace(Asker(ALICE, TEAM_A_CHANNEL)) is None


# --- the audit line ---------------------------------------------------------------------------------


async def test_one_audit_entry_per_question_with_who_where_what_and_the_verdict() -> None:
    entries: list[AuditEntry] = []
    service = _service(audit=entries)
    await service.ask(Asker(ALICE, SHARED), "train", namespace=None, kind=None)
    await service.ask(Asker(ALICE, SHARED), "secret-model-x", namespace="team-b", kind="Job")
    await service.ask(Asker(ROOT, SHARED), "twin", namespace=None, kind=None)
    await service.queue(Asker(BOB, SHARED), "team-b", "user-queue")
    assert entries == [
        AuditEntry(ALICE, SHARED, "why", "team-a", "train", "Job", "answered", "not-yet-evaluated", True),
        AuditEntry(ALICE, SHARED, "why", "team-b", "secret-model-x", "Job", "refused", None, False),
        AuditEntry(ROOT, SHARED, "why", None, "twin", None, "choose", None, True),
        AuditEntry(BOB, SHARED, "queue", "team-b", "user-queue", "LocalQueue", "answered", None, True),
    ]


async def test_a_question_that_fails_is_audited_too() -> None:
    class Broken(StaticSource):
        async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> Snapshot:
            raise ClusterUnavailable("gone")

    entries: list[AuditEntry] = []
    service = BotService(Broken(snapshot(WORLD)), clock=lambda: NOW, policy=_policy(), audit=entries.append)
    with pytest.raises(ClusterUnavailable):
        await service.ask(Asker(ALICE, SHARED), "train", namespace="team-a", kind=None)
    assert [(e.outcome, e.namespace, e.name) for e in entries] == [("error", "team-a", "train")]


def test_the_audit_line_is_info_on_its_own_logger_with_no_text(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=AUDIT_LOGGER)
    AuditLog()(AuditEntry(ALICE, SHARED, "why", "team-a", "train", "Job", "answered", "waiting-for-quota", True))
    [record] = caplog.records
    assert (record.name, record.levelno) == (AUDIT_LOGGER, logging.INFO)
    fields = {k: getattr(record, k) for k in ("user", "channel", "job", "kind", "outcome", "verdict", "allowed")}
    assert fields == {
        "user": ALICE,
        "channel": SHARED,
        "job": "team-a/train",
        "kind": "Job",
        "outcome": "answered",
        "verdict": "waiting-for-quota",
        "allowed": True,
    }
