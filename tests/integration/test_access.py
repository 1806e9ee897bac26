"""Who may see what, and hostile requests, end to end: the production `build_server` over real HTTP, the
Slack stand-in, and (for SubjectAccessReviews) the fake Kubernetes API server. No mocks of our own code.

Access: refusals go to the asker only; answers never name other teams' jobs to whom may not see them; one
audit line per question; DMs only to the job's owner. Hostile requests: mrkdwn and @channel injection from
the cluster, signatures missing, replayed, stale or from the future, and tokens never in logs or /metrics.
"""

from __future__ import annotations

import copy
import io
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from bot.access import AUDIT_LOGGER
from bot.kube.access import AccessReviewer
from bot.kube.client import KubeClient, load_api_client
from bot.kube.dump import parse_text
from bot.log import setup_logging
from bot.notify.store import SQLiteStore
from bot.server import Server, build_server
from bot.service.ports import StaticSource

from tests.fakes.kube_api import FakeKubeAPI
from tests.fakes.slack_api import FakeSlack, bot_settings
from tests.integration.steps import show_steps
from tests.paths import SCENARIOS

SCENARIO = "waiting-for-quota-computed-position"  # ml-vision/segformer-finetune: ml-nlp's llm-eval-suite-xl waits ahead
NOW = datetime(2026, 11, 3, 9, 41, tzinfo=UTC)
ALICE, BOB, CAROL = "U0ALICE01", "U0BOB0001", "U0CAROL01"
VISION, SHARED, NLP_CHANNEL, ALICE_ONLY = "C0MLVISION", "C0SHARED1", "C0NLPTEAM", "C0ALICE01"
OTHER_TEAMS_JOB = "llm-eval-suite-xl"  # ml-nlp: in the answer's "ahead" list and in the queue view
KUBE_TOKEN = "kube-bot-t0ken-do-not-log"
GET_WORKLOADS = [{"verbs": ["get"], "apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads"]}]


def _docs() -> list[dict[str, Any]]:
    documents = [d for d in yaml.safe_load_all((SCENARIOS / SCENARIO / "cluster.yaml").read_text()) if d]
    if len(documents) == 1 and documents[0].get("kind") == "List":
        return list(documents[0]["items"])
    return documents


def _find(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(d for d in docs if d.get("kind") == kind and d["metadata"]["name"] == name)


def _source(docs: list[dict[str, Any]] | None = None) -> StaticSource:
    return StaticSource(parse_text(yaml.safe_dump_all(docs if docs is not None else _docs())).snapshot)


def _text_of(params: dict[str, Any]) -> str:
    return str(params.get("text", "")) + json.dumps(params.get("blocks") or [])


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack(bot_token="xoxb-1111-secret-bot-token", app_token="xapp-1-secret-app-token") as fake:
        fake.add_user(ALICE, name="alice", email="alice@example.com")
        fake.add_user(BOB, name="bob", email="bob@example.com")
        fake.add_user(CAROL, name="carol")  # no email in Slack
        fake.add_channel(VISION, "ml-vision", members=[ALICE, BOB, CAROL])
        fake.add_channel(SHARED, "shared", members=[ALICE, BOB, CAROL])
        fake.add_channel(NLP_CHANNEL, "ml-nlp", members=[BOB])
        fake.add_channel(ALICE_ONLY, "alice-only", members=[ALICE])
        yield fake


@pytest.fixture
async def kube(tmp_path: Path) -> AsyncIterator[FakeKubeAPI]:
    async with FakeKubeAPI(token=KUBE_TOKEN) as api:
        api.add_identity("alice-token", "oidc:alice@example.com", GET_WORKLOADS)
        yield api


@pytest.fixture
def reviewer(kube: FakeKubeAPI, tmp_path: Path) -> Iterator[AccessReviewer]:
    api_client = load_api_client(str(kube.write_kubeconfig(tmp_path / "kubeconfig")))
    yield AccessReviewer(KubeClient(api_client))
    api_client.close()  # type: ignore[no-untyped-call]


async def _serve(
    slack: FakeSlack, source: Any = None, reviewer: AccessReviewer | None = None, **settings: Any
) -> Server:
    server = build_server(
        bot_settings(slack, **settings), source or _source(), clock=lambda: NOW, access_review=reviewer
    )
    await server.start()
    return server


def _events(server: Server) -> str:
    return f"{server.url}/slack/events"


async def _sentinel(slack: FakeSlack, server: Server, channel: str = ALICE_ONLY) -> None:
    """A question anyone may ask, answered in its thread (where only Alice reads, so the answer is public):
    everything delivered before it was handled (nothing to wait on)."""
    event = slack.app_mention_event(ALICE, channel, "ml-vision/vit-ablation-lr3e4")
    await slack.deliver_event(_events(server), event)
    await slack.wait_for_call("chat.postMessage", lambda c: c.params.get("thread_ts") == event["ts"])


def _audit(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == AUDIT_LOGGER]


# --- SubjectAccessReviews --------------------------------------------------------------------------------


async def test_a_user_rbac_denies_is_refused_privately_and_the_thread_gets_nothing(
    slack: FakeSlack, kube: FakeKubeAPI, reviewer: AccessReviewer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=AUDIT_LOGGER)
    server = await _serve(
        slack, reviewer=reviewer, user_identity_template="oidc:{email}", kube_groups=("system:authenticated",)
    )
    try:
        question = slack.app_mention_event(BOB, SHARED, "why is ml-vision/segformer-finetune pending?")
        await slack.deliver_event(_events(server), question)
        refusal = await slack.wait_for_call("chat.postEphemeral")
        assert refusal.params["user"] == BOB and refusal.params["thread_ts"] == question["ts"]
        assert "ml-vision" in _text_of(refusal.params)
        await _sentinel(slack, server)  # Alice may: answered in her thread
        threads = [c.params.get("thread_ts") for c in slack.calls("chat.postMessage")]
        assert question["ts"] not in threads
        assert slack.thread(SHARED, question["ts"]) == []
        # The reviews asked the API server about each person, with the groups of KUBE_GROUPS.
        reviews = [r.body for r in kube.requests if r.path.endswith("/subjectaccessreviews")]
        specs = {(b["spec"]["user"], b["spec"]["resourceAttributes"]["namespace"]) for b in reviews}
        # Bob: the namespace asked about. Alice: hers, and ml-nlp, whose jobs wait ahead (named if she may).
        assert specs == {
            ("oidc:bob@example.com", "ml-vision"),
            ("oidc:alice@example.com", "ml-vision"),
            ("oidc:alice@example.com", "ml-nlp"),
        }
        assert all(b["spec"]["groups"] == ["system:authenticated"] for b in reviews)
        assert all(b["spec"]["resourceAttributes"]["resource"] == "workloads" for b in reviews)
        # One audit line per question; who, where, which job, allowed or not; never the text.
        lines = _audit(caplog)
        assert [(r.user, r.channel, r.job, r.allowed) for r in lines] == [  # type: ignore[attr-defined]
            (BOB, SHARED, "ml-vision/segformer-finetune", False),
            (ALICE, ALICE_ONLY, "ml-vision/vit-ablation-lr3e4", True),
        ]
        assert all(r.levelno == logging.INFO for r in lines)
        assert not any("pending?" in json.dumps(r.__dict__, default=str) for r in lines)
    finally:
        await server.stop()


async def test_reviews_are_cached_and_a_user_without_email_is_refused(
    slack: FakeSlack, kube: FakeKubeAPI, reviewer: AccessReviewer
) -> None:
    server = await _serve(slack, reviewer=reviewer, user_identity_template="oidc:{email}")
    try:
        for _ in range(3):
            await _sentinel(slack, server)
        # One review per namespace (ml-vision asked about, ml-nlp waiting ahead), not per question.
        assert kube.count_requests(method="POST", path=r".*/subjectaccessreviews") == 2
        question = slack.app_mention_event(CAROL, SHARED, "ml-vision/segformer-finetune")
        await slack.deliver_event(_events(server), question)
        refusal = await slack.wait_for_call("chat.postEphemeral")
        assert refusal.params["user"] == CAROL
        assert kube.count_requests(method="POST", path=r".*/subjectaccessreviews") == 2  # no identity: no review
    finally:
        await server.stop()


async def test_a_slash_command_refusal_is_ephemeral(slack: FakeSlack, reviewer: AccessReviewer) -> None:
    server = await _serve(slack, reviewer=reviewer, user_identity_template="oidc:{email}")
    try:
        await slack.deliver_slash_command(
            _events(server), text="why ml-vision/segformer-finetune", user_id=BOB, channel_id=SHARED
        )
        reply = await slack.wait_for_response_url()
        assert reply.body.get("response_type") == "ephemeral"
        await _sentinel(slack, server)
        assert len(slack.calls("chat.postMessage")) == 1  # the sentinel's answer only
    finally:
        await server.stop()


# --- the channel's namespaces -----------------------------------------------------------------------------


async def test_a_channel_limited_to_its_namespace_never_sees_other_teams_job_names(slack: FakeSlack) -> None:
    # Without the limit (test_slack_bot), the same answer names ml-nlp's job ahead: that is the difference.
    server = await _serve(slack, channel_namespaces={VISION: ("ml-vision",), NLP_CHANNEL: ("ml-nlp",)})
    try:
        question = slack.app_mention_event(ALICE, VISION, "why is segformer-finetune pending?")
        await slack.deliver_event(_events(server), question)
        answer = await slack.wait_for_call("chat.postMessage")
        assert answer.response is not None
        await slack.deliver_block_action(
            _events(server),
            action_id="kueue_show_queue",
            user_id=ALICE,
            channel_id=VISION,
            message_ts=answer.response["ts"],
        )
        queue = await slack.wait_for_call("chat.postMessage", nth=2)
        assert "vision-queue" in _text_of(queue.params)
        await slack.deliver_block_action(
            _events(server),
            action_id="kueue_show_steps",
            user_id=ALICE,
            channel_id=VISION,
            message_ts=answer.response["ts"],
        )
        steps = await slack.wait_for_call("chat.postMessage", nth=3)
        for call in (answer, queue, steps):
            text = _text_of(call.params)
            assert OTHER_TEAMS_JOB not in text
        assert "detr-prod-hotfix" in _text_of(steps.params)  # the own team's job ahead is named
        # Asking about the other team's job from this channel: refused, privately.
        other = slack.app_mention_event(BOB, VISION, f"ml-nlp/{OTHER_TEAMS_JOB}")
        await slack.deliver_event(_events(server), other)
        refusal = await slack.wait_for_call("chat.postEphemeral")
        assert refusal.params["user"] == BOB
        # ...and without a namespace, it does not exist here (no "did you mean ml-nlp/...").
        unnamed = slack.app_mention_event(BOB, VISION, f"why is {OTHER_TEAMS_JOB} pending?")
        await slack.deliver_event(_events(server), unnamed)
        reply = await slack.wait_for_call("chat.postMessage", lambda c: c.params.get("thread_ts") == unnamed["ts"])
        assert "ml-nlp" not in _text_of(reply.params)
    finally:
        await server.stop()


async def test_deny_by_default_refuses_unlisted_channels(slack: FakeSlack) -> None:
    # CHANNEL_NAMESPACES=...;*=- : a channel that is not listed may ask about nothing. Fails if `*=-` opened it.
    server = await _serve(slack, channel_namespaces={VISION: ("ml-vision",), "*": ()})
    try:
        listed = slack.app_mention_event(ALICE, VISION, "ml-vision/segformer-finetune")
        await slack.deliver_event(_events(server), listed)
        answer = await slack.wait_for_call("chat.postMessage")
        assert "waiting-for-quota" in _text_of(answer.params)
        unlisted = slack.app_mention_event(ALICE, SHARED, "ml-vision/segformer-finetune")
        await slack.deliver_event(_events(server), unlisted)
        refusal = await slack.wait_for_call("chat.postEphemeral")
        assert refusal.params["channel"] == SHARED and "waiting-for-quota" not in _text_of(refusal.params)
    finally:
        await server.stop()


def _to_channel(channel: str) -> Callable[[Any], bool]:
    return lambda call: bool(call.params["channel"] == channel)


async def test_deny_by_default_without_a_star_entry(slack: FakeSlack) -> None:
    # CHANNEL_NAMESPACES with listed channels and no `*`: unlisted channels and DMs may ask about nothing.
    # Fails if an unlisted channel or a DM still answered about every namespace (issue 13, item 5).
    server = await _serve(slack, channel_namespaces={VISION: ("ml-vision",)})
    try:
        for channel in (SHARED, slack.dm_channel(ALICE)):
            event = (
                slack.im_event(ALICE, "ml-vision/segformer-finetune")
                if channel.startswith("D")
                else slack.app_mention_event(ALICE, channel, "ml-vision/segformer-finetune")
            )
            await slack.deliver_event(_events(server), event)
            refusal = await slack.wait_for_call("chat.postEphemeral", _to_channel(channel))
            assert "waiting-for-quota" not in _text_of(refusal.params)
        assert slack.calls("chat.postMessage") == []
    finally:
        await server.stop()


async def test_a_public_answer_holds_only_what_every_member_of_the_channel_may_see(
    slack: FakeSlack, reviewer: AccessReviewer
) -> None:
    # Alice may see every namespace; Bob and Carol may not. Fails if her answer in a channel they are in were
    # posted in the thread (it names ml-vision's job and ml-nlp's job ahead: issue 13, item 5), or if the
    # answer to her alone (her DM, a channel of hers) lost the names she may see.
    server = await _serve(slack, reviewer=reviewer, user_identity_template="oidc:{email}")
    try:
        shared = slack.app_mention_event(ALICE, VISION, "why is ml-vision/segformer-finetune pending?")
        await slack.deliver_event(_events(server), shared)
        private = await slack.wait_for_call("chat.postEphemeral", nth=1)
        await slack.wait_for_call("chat.postEphemeral", nth=2)  # the note, the first message
        texts = [_text_of(c.params) for c in slack.calls("chat.postEphemeral")]
        assert private.params["user"] == ALICE and private.params["thread_ts"] == shared["ts"]
        assert "Only you can see this answer" in texts[0] and "ml-vision" in texts[0]
        assert any("waiting-for-quota" in t for t in texts)
        assert slack.thread(VISION, shared["ts"]) == []
        # Where only Alice reads (a channel of hers, her DM): in the thread, with the other team's job named.
        mine = slack.app_mention_event(ALICE, ALICE_ONLY, "why is ml-vision/segformer-finetune pending?")
        await slack.deliver_event(_events(server), mine)
        answer = await slack.wait_for_call("chat.postMessage", lambda c: c.params.get("thread_ts") == mine["ts"])
        assert OTHER_TEAMS_JOB in _text_of((await show_steps(slack, server.url, ALICE, answer)).params)
        dm = slack.im_event(ALICE, "ml-vision/segformer-finetune")
        await slack.deliver_event(_events(server), dm)
        answer = await slack.wait_for_call("chat.postMessage", lambda c: c.params.get("thread_ts") == dm["ts"])
        assert OTHER_TEAMS_JOB in _text_of((await show_steps(slack, server.url, ALICE, answer)).params)
        # The queue view asked in the shared channel goes to Alice only as well.
        queue = slack.app_mention_event(ALICE, VISION, "queue ml-vision/vision-queue")
        await slack.deliver_event(_events(server), queue)
        shown = await slack.wait_for_call("chat.postEphemeral", lambda c: c.params.get("thread_ts") == queue["ts"])
        assert "vision-queue" in _text_of(shown.params) and slack.thread(VISION, queue["ts"]) == []
    finally:
        await server.stop()


# --- DMs only to the owner ------------------------------------------------------------------------------


async def test_dms_go_to_each_jobs_owner_only_and_the_admins_channel_gets_its_namespace(
    slack: FakeSlack, tmp_path: Path
) -> None:
    docs = _docs()
    _find(docs, "Job", "segformer-finetune")["metadata"].setdefault("annotations", {})["kueue-bot.io/notify"] = ALICE
    _find(docs, "Job", OTHER_TEAMS_JOB)["metadata"].setdefault("annotations", {})["kueue-bot.io/notify"] = (
        "bob@example.com"
    )
    store = SQLiteStore(str(tmp_path / "state.sqlite3"))
    server = build_server(
        bot_settings(slack, namespace_notify={"ml-nlp": NLP_CHANNEL}),
        _source(docs),
        clock=lambda: NOW,
        store=store,
        tick_seconds=3600,
    )
    await server.start()
    try:
        assert server.notifier is not None
        await server.notifier.run_pass()
        posts = slack.calls("chat.postMessage")
        by_channel: dict[str, str] = {}
        for post in posts:
            by_channel[post.params["channel"]] = by_channel.get(post.params["channel"], "") + _text_of(post.params)
        alice, bob = slack.dm_channel(ALICE), slack.dm_channel(BOB)
        assert "segformer-finetune" in by_channel[alice] and OTHER_TEAMS_JOB not in by_channel[alice]
        assert OTHER_TEAMS_JOB in by_channel[bob] and "segformer-finetune" not in by_channel[bob]
        # Every DM went to a job's owner; the only channel post is the admin's choice for ml-nlp.
        assert set(by_channel) <= {alice, bob, NLP_CHANNEL}
        assert "ml-vision" not in by_channel.get(NLP_CHANNEL, "")
    finally:
        await server.stop()


# --- hostile content from the cluster -------------------------------------------------------------------

INJECTION = "<!channel> wake up <@U0BOB0001> <https://evil.example|click> *now* @here"


async def test_mrkdwn_and_mention_injection_from_the_cluster_is_escaped_in_what_is_posted(slack: FakeSlack) -> None:
    docs = copy.deepcopy(_docs())
    workload = _find(docs, "Workload", "job-segformer-finetune-0d118")
    for condition in workload["status"]["conditions"]:
        if condition["type"] == "QuotaReserved":
            condition.update(reason="Pending", message=INJECTION)
    # A dump (serve --from-file) holds what an API server would refuse: a Workload named like a mention.
    ahead = _find(docs, "Workload", "job-detr-prod-hotfix-f739e")["metadata"]
    ahead["name"] = ahead["ownerReferences"][0]["name"] = "<!here>-<@U0BOB0001>"
    _find(docs, "Job", "detr-prod-hotfix")["metadata"]["name"] = "<!here>-<@U0BOB0001>"
    server = await _serve(slack, _source(docs))
    try:
        question = slack.app_mention_event(ALICE, VISION, "why is segformer-finetune pending?")
        await slack.deliver_event(_events(server), question)
        first = await slack.wait_for_call("chat.postMessage")
        post = await show_steps(slack, server.url, ALICE, first)
        assert post.status == 200 and post.response is not None and post.response["ok"]
        text = _text_of(first.params) + _text_of(post.params)
        text = re.sub(r"<https://kueue\.sigs\.k8s\.io/docs/concepts/[a-z_/#]*\|[A-Za-z ]+>", "", text)  # the bot's
        assert "evil" in text and "wake up" in text  # the text is there...
        for raw in ("<!channel>", "<!here>", "<@U0BOB0001>", "<https://", "@here"):
            assert raw not in text, raw  # ...and none of it can mention, link or format
        assert "&lt;!channel&gt;" in text and "&lt;!here&gt;" in text
    finally:
        await server.stop()


# --- signatures ------------------------------------------------------------------------------------------


async def _post_raw(url: str, body: str, headers: dict[str, str]) -> int:
    async with aiohttp.ClientSession() as session, session.post(url, data=body.encode(), headers=headers) as response:
        return response.status


async def test_requests_without_a_valid_fresh_signature_are_refused(slack: FakeSlack) -> None:
    server = await _serve(slack)
    try:
        event = slack.app_mention_event(ALICE, VISION, "ml-vision/segformer-finetune")
        body = json.dumps(slack.event_envelope(event))
        now = int(time.time())
        good = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": str(now)}
        good["X-Slack-Signature"] = slack.sign(body, now)
        missing_both = await _post_raw(_events(server), body, {"Content-Type": "application/json"})
        no_signature = await _post_raw(_events(server), body, {**good, "X-Slack-Signature": ""})
        no_timestamp = await _post_raw(_events(server), body, {k: v for k, v in good.items() if "Timestamp" not in k})
        # A captured request replayed with a new timestamp (to pass the age check): the signature no longer fits.
        replayed = await _post_raw(_events(server), body, {**good, "X-Slack-Request-Timestamp": str(now + 1)})
        tampered = await _post_raw(_events(server), body.replace("segformer", "segformex"), good)
        future = await slack.deliver_event(_events(server), event, timestamp=now + 10 * 60)
        stale = await slack.deliver_event(_events(server), event, timestamp=now - 5 * 60 - 30)
        statuses = [missing_both, no_signature, no_timestamp, replayed, tampered, future.status, stale.status]
        assert statuses == [401] * 7
        assert slack.calls("chat.postMessage") == []
        # The same body, rightly signed now, is answered: the refusals were about the signatures.
        ok = await _post_raw(_events(server), body, good)
        assert ok == 200
        await slack.wait_for_call("chat.postMessage")
    finally:
        await server.stop()


# --- tokens never in logs, errors or /metrics ------------------------------------------------------------


@pytest.fixture
def debug_logs() -> Iterator[io.StringIO]:
    """The production logging (bot.log.setup_logging) at DEBUG, every library logger at DEBUG too, into a
    buffer; the root logger is restored afterwards."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    libraries = ["slack_sdk", "slack_bolt", "aiohttp", "urllib3", "kubernetes", "asyncio"]
    saved_levels = {name: logging.getLogger(name).level for name in libraries}
    buffer = io.StringIO()
    setup_logging("DEBUG", "json")
    root.handlers[0].setStream(buffer)  # type: ignore[attr-defined]
    for name in libraries:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield buffer
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        for name, level in saved_levels.items():
            logging.getLogger(name).setLevel(level)


async def test_tokens_and_secrets_never_reach_logs_errors_or_metrics(
    slack: FakeSlack, reviewer: AccessReviewer, debug_logs: io.StringIO
) -> None:
    server = await _serve(slack, reviewer=reviewer, user_identity_template="oidc:{email}")
    try:
        # A full round trip: a mention answered, a refusal, a slash command, a button, and a Slack error.
        await _sentinel(slack, server)
        refused = slack.app_mention_event(BOB, SHARED, "ml-vision/segformer-finetune")
        await slack.deliver_event(_events(server), refused)
        await slack.wait_for_call("chat.postEphemeral")
        await slack.deliver_slash_command(
            _events(server), text="why ml-vision/segformer-finetune", user_id=ALICE, channel_id=ALICE_ONLY
        )
        await slack.wait_for_call("chat.postMessage", nth=2)
        slack.fail("chat.postMessage", error="invalid_auth", times=2)  # the answer and the apology both fail
        broken = slack.app_mention_event(ALICE, ALICE_ONLY, "ml-vision/vit-ablation-lr3e4")
        await slack.deliver_event(_events(server), broken)
        await slack.wait_for_call(
            "chat.postMessage", lambda c: c.status == 200 and c.response is not None and not c.response["ok"], nth=2
        )
        await _sentinel(slack, server)
        async with aiohttp.ClientSession() as session, session.get(f"{server.url}/metrics") as response:
            metrics = await response.text()
    finally:
        await server.stop()
    logs = debug_logs.getvalue()
    assert "slack: could not answer" in logs and "DEBUG" in logs  # the logs did capture the round trip
    secrets = [
        "xoxb-1111-secret-bot-token",
        "secret-bot-token",
        "xapp-1-secret-app-token",
        slack.signing_secret,
        KUBE_TOKEN,
        "Bearer xox",
    ]
    for secret in secrets:
        assert secret not in logs, secret
        assert secret not in metrics, secret
    assert "xoxb-" not in metrics and "xapp-" not in metrics
