"""Proactive DMs, end to end: the real server's watcher, a SQLite store on disk, the Slack stand-in over
HTTP, and a cluster that changes between passes. Passes are run one at a time with a frozen clock."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
import yaml
from bot.kube.decode import decode
from bot.notify.ports import Closing
from bot.notify.state import Subscription, Told
from bot.notify.store import SQLiteStore
from bot.server import Server, build_server
from bot.service.ports import Source
from bot.slack.messenger import EVENT_TYPE
from bot.trace.snapshot import MemorySnapshot, Snapshot

from tests.cache_support import wait_ready
from tests.clocks import Clock
from tests.fakes.slack_api import FakeSlack, bot_settings
from tests.paths import SCENARIOS

ALICE = "U0ALICE01"
CHANNEL = "C0MLVISION"


def _docs(scenario: str) -> list[dict[str, Any]]:
    documents = [d for d in yaml.safe_load_all((SCENARIOS / scenario / "cluster.yaml").read_text()) if d]
    if len(documents) == 1 and documents[0].get("kind") == "List":
        return list(documents[0]["items"])
    return documents


def _snapshot(docs: list[dict[str, Any]]) -> MemorySnapshot:
    """The documents as a dump of them reads (decoded one by one: no YAML round trip, which took most of the
    time of the thousand-workload test)."""
    return MemorySnapshot([decoded for doc in docs for decoded in decode(doc)])


def _find(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(d for d in docs if d and d.get("kind") == kind and d["metadata"]["name"] == name)


def _annotate(docs: list[dict[str, Any]], job: str, owner: str) -> list[dict[str, Any]]:
    docs = copy.deepcopy(docs)
    target = _find(docs, "Job", job)
    target["metadata"].setdefault("annotations", {})["kueue-bot.io/notify"] = owner
    return docs


def _admit(docs: list[dict[str, Any]], workload: str, at: str) -> list[dict[str, Any]]:
    docs = copy.deepcopy(docs)
    wl = _find(docs, "Workload", workload)
    wl["status"]["conditions"] = [
        {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
         "message": "Quota reserved in ClusterQueue gpu-a100-shared", "lastTransitionTime": at},
        {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted",
         "lastTransitionTime": at},
    ]  # fmt: skip
    return docs


class Timeline(Source):
    """A cluster that changes when the test says so (a SnapshotSource, with a change listener)."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.current = snapshot
        self.listeners: list[Callable[[], None]] = []

    ready = True
    tells_changes = True

    def taken_at(self) -> datetime | None:
        return None

    async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> Snapshot:
        return self.current

    async def snapshot(self) -> Snapshot:
        return self.current

    def add_listener(self, listener: Callable[[], None]) -> None:
        self.listeners.append(listener)

    def become(self, snapshot: Snapshot) -> None:
        self.current = snapshot
        for listener in self.listeners:
            listener()


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user(ALICE, name="alice", email="alice@example.com", tz="Europe/Paris")
        fake.add_channel(CHANNEL, "ml-vision", members=[ALICE])
        yield fake


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "state.sqlite3"


Serve = Callable[..., Awaitable[Server]]


@pytest.fixture
async def serve(slack: FakeSlack, db: Path) -> AsyncIterator[Serve]:
    """`await serve(source, clock, **settings)`: the real server on the SQLite store at `db`, started. Every
    server started is stopped at teardown, even after a failure or a timeout half-way through the test (a
    server left running leaks its sockets into the next test)."""
    started: list[Server] = []

    async def start(source: Timeline, clock: Clock, **settings: Any) -> Server:
        server = build_server(
            bot_settings(slack, **settings), source, clock=clock, store=SQLiteStore(str(db)), tick_seconds=3600
        )
        started.append(server)
        await server.start()
        return server

    yield start
    for server in reversed(started):
        await server.stop()


SEGFORMER = "waiting-for-quota-computed-position"  # ml-vision/segformer-finetune, created 07:48:05, waits
SEG_WORKLOAD = "job-segformer-finetune-0d118"


def _dm_posts(slack: FakeSlack) -> list[Any]:
    return [c for c in slack.calls("chat.postMessage") if str(c.params.get("channel", "")).startswith("D")]


async def test_one_dm_after_the_threshold_then_updated_in_place_then_closed_on_admission(
    slack: FakeSlack, serve: Serve
) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    clock = Clock(datetime(2026, 11, 3, 7, 58, tzinfo=UTC))  # waiting for 10 min: not yet
    source = Timeline(_snapshot(docs))
    server = await serve(source, clock)
    assert server.notifier is not None
    await server.notifier.run_pass()
    assert _dm_posts(slack) == []
    clock.now = datetime(2026, 11, 3, 8, 4, tzinfo=UTC)  # 16 min: told once
    await server.notifier.run_pass()
    await server.notifier.run_pass()
    posts = _dm_posts(slack)
    assert len(posts) == 1
    post = posts[0]
    assert post.params["channel"] == slack.dm_channel(ALICE)
    assert "segformer-finetune" in json.dumps(post.params["blocks"])
    assert post.params["metadata"]["event_type"] == EVENT_TYPE
    ts = post.response["ts"]
    # Admitted: the DM is edited to say so, and exactly one message that notifies says it too (a reply in the
    # DM's thread, broadcast to the conversation: Slack notifies nobody of an edit).
    clock.now = datetime(2026, 11, 3, 8, 30, tzinfo=UTC)
    source.become(_snapshot(_admit(docs, SEG_WORKLOAD, "2026-11-03T08:29:00Z")))
    await server.notifier.run_pass()
    updates = slack.calls("chat.update")
    assert len(updates) == 1 and updates[0].params["ts"] == ts
    assert "admitted" in json.dumps(updates[0].params).lower()
    news = _dm_posts(slack)[1:]
    assert len(news) == 1, news
    assert news[0].params["thread_ts"] == ts and news[0].params["reply_broadcast"] is True
    assert "was admitted after 40 min" in news[0].params["text"]
    decisions = await server.notifier.run_pass()
    assert decisions == [], decisions
    assert len(slack.calls("chat.update")) == 1 and len(_dm_posts(slack)) == 2


async def test_a_never_fit_job_is_told_at_once(slack: FakeSlack, serve: Serve) -> None:
    docs = _annotate(_docs("article-three-cpus"), "train-octobre", ALICE)
    clock = Clock(datetime(2026, 10, 14, 10, 13, tzinfo=UTC))  # one minute after creation
    server = await serve(Timeline(_snapshot(docs)), clock)
    assert server.notifier is not None
    await server.notifier.run_pass()
    posts = _dm_posts(slack)
    assert len(posts) == 1 and "exceeds-max-quota" in json.dumps(posts[0].params)


async def test_a_change_of_verdict_updates_the_dm(slack: FakeSlack, serve: Serve) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    source = Timeline(_snapshot(docs))
    server = await serve(source, clock)
    assert server.notifier is not None
    await server.notifier.run_pass()
    ts = _dm_posts(slack)[0].response["ts"]
    stopped = copy.deepcopy(docs)
    _find(stopped, "ClusterQueue", "gpu-a100-shared")["spec"]["stopPolicy"] = "Hold"
    source.become(_snapshot(stopped))
    await server.notifier.run_pass()
    update = await slack.wait_for_call("chat.update")
    assert update.params["ts"] == ts and "queue-stopped" in json.dumps(update.params)
    assert len(_dm_posts(slack)) == 1


async def test_a_job_that_will_now_never_fit_is_told_so_that_it_notifies(slack: FakeSlack, serve: Serve) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    source = Timeline(_snapshot(docs))
    server = await serve(source, clock)
    assert server.notifier is not None
    await server.notifier.run_pass()
    ts = _dm_posts(slack)[0].response["ts"]
    # Its LocalQueue is deleted: waiting will never admit it now.
    source.become(_snapshot([d for d in docs if d is not _find(docs, "LocalQueue", "vision-queue")]))
    await server.notifier.run_pass()
    update = await slack.wait_for_call("chat.update")
    assert update.params["ts"] == ts
    news = _dm_posts(slack)[1:]
    assert len(news) == 1 and news[0].params["thread_ts"] == ts and news[0].params["reply_broadcast"] is True
    said = json.dumps(news[0].params["blocks"])
    assert "will now never start" in said and "What to do:" in said and "kueue_why" in said
    await server.notifier.run_pass()
    assert len(_dm_posts(slack)) == 2  # said once


async def test_a_restart_sends_nothing_twice_and_keeps_subscriptions(slack: FakeSlack, serve: Serve) -> None:
    docs = _docs(SEGFORMER)
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    source = Timeline(_snapshot(docs))
    server = await serve(source, clock)
    assert server.store is not None
    await server.store.subscribe(Subscription(ALICE, "ml-vision", "segformer-finetune", "Job", clock()))
    assert server.notifier is not None
    await server.notifier.run_pass()
    assert len(_dm_posts(slack)) == 1
    await server.stop()
    again = await serve(source, clock)
    assert again.store is not None and again.notifier is not None
    state = await again.store.load()
    assert [(s.user, s.name) for s in state.subscriptions] == [(ALICE, "segformer-finetune")]
    await again.notifier.run_pass()
    assert len(_dm_posts(slack)) == 1


async def test_a_crash_between_sending_and_recording_is_reconciled_from_slack(
    slack: FakeSlack, db: Path, serve: Serve
) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    source = Timeline(_snapshot(docs))
    # The previous process recorded its intent, sent the DM, and died before recording the ts.
    store = SQLiteStore(str(db))
    workload = source.current.workload("ml-vision", SEG_WORKLOAD)
    assert workload is not None
    key = f"ml-vision/{SEG_WORKLOAD}/{workload.meta.uid}"
    await store.record_intent(Told(key, ALICE, "waiting-for-quota", 3, "headline.waiting-for-quota"), clock())
    await store.aclose()
    from slack_sdk.web.async_client import AsyncWebClient

    client = AsyncWebClient(token=slack.bot_token, base_url=slack.api_url)
    channel = (await client.conversations_open(users=ALICE))["channel"]["id"]
    sent = await client.chat_postMessage(
        channel=channel,
        text="earlier DM",
        metadata={"event_type": EVENT_TYPE, "event_payload": {"keys": [key], "target": ALICE}},
    )
    server = await serve(source, clock)
    assert server.notifier is not None and server.store is not None
    await server.notifier.run_pass()
    assert len(_dm_posts(slack)) == 1  # only the one sent before the crash
    delivery = (await server.store.load()).delivery_for(key, ALICE)
    assert delivery is not None and delivery.ts == sent["ts"]


def many_pending(count: int, owners: Sequence[str] = (ALICE,)) -> list[dict[str, Any]]:
    """The SEGFORMER cluster with `count` more waiting jobs sweep-NNNN, job i annotated with owners[i % len]."""
    docs = _docs(SEGFORMER)
    template = _find(docs, "Workload", "job-vit-ablation-lr3e4-2ee1d")
    job = _find(docs, "Job", "vit-ablation-lr3e4")
    extra: list[dict[str, Any]] = []
    for index in range(count):
        name = f"sweep-{index:04d}"
        new_job = copy.deepcopy(job)
        new_job["metadata"].update(name=name, uid=f"00000000-0000-4000-8000-{index:012d}")
        new_job["metadata"].setdefault("annotations", {})["kueue-bot.io/notify"] = owners[index % len(owners)]
        new_wl = copy.deepcopy(template)
        new_wl["metadata"].update(name=f"job-{name}-abcde", uid=f"10000000-0000-4000-8000-{index:012d}")
        new_wl["metadata"]["labels"]["kueue.x-k8s.io/job-uid"] = new_job["metadata"]["uid"]
        new_wl["metadata"]["ownerReferences"] = [
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "name": name,
                "uid": new_job["metadata"]["uid"],
                "controller": True,
            }
        ]
        extra += [new_job, new_wl]
    return docs + extra


@pytest.mark.timeout(300)  # two passes over a thousand workloads: a minute or more on a loaded machine
async def test_a_thousand_workloads_of_one_owner_give_one_digest(slack: FakeSlack, serve: Serve) -> None:
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    server = await serve(Timeline(_snapshot(many_pending(1000))), clock)
    assert server.notifier is not None and server.store is not None
    await server.notifier.run_pass()
    posts = _dm_posts(slack)
    assert len(posts) == 1
    assert "1000" in posts[0].params["text"] or "1,000" in posts[0].params["text"]
    state = await server.store.load()
    assert len([d for d in state.deliveries if d.target == ALICE and d.ts == posts[0].response["ts"]]) == 1000
    await server.notifier.run_pass()
    assert len(_dm_posts(slack)) == 1


async def test_snooze_holds_and_quiet_hours_defer(slack: FakeSlack, serve: Serve) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    # 09:41 UTC is 10:41 in Paris (tz_offset +3600 from the stand-in): inside quiet hours 10:00-11:00.
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    source = Timeline(_snapshot(docs))
    server = await serve(source, clock, quiet_hours=((10, 0), (11, 0)))
    assert server.notifier is not None
    await server.notifier.run_pass()
    assert _dm_posts(slack) == []
    clock.now = datetime(2026, 11, 3, 10, 5, tzinfo=UTC)  # 11:05 in Paris: delivered after
    await server.notifier.run_pass()
    post = _dm_posts(slack)[0]
    # Snooze 2 h from the DM's button; a change during the snooze updates nothing.
    await slack.deliver_block_action(
        f"{server.url}/slack/events",
        action_id="kueue_snooze_2h",
        user_id=ALICE,
        channel_id=post.params["channel"],
        message_ts=post.response["ts"],
    )
    confirmation = await slack.wait_for_call("chat.postEphemeral")
    assert "Snoozed" in confirmation.params["text"]
    assert server.store is not None
    assert (await server.store.load()).snoozes
    stopped = copy.deepcopy(docs)
    _find(stopped, "ClusterQueue", "gpu-a100-shared")["spec"]["stopPolicy"] = "Hold"
    source.become(_snapshot(stopped))
    clock.now += timedelta(minutes=10)
    await server.notifier.run_pass()
    assert slack.calls("chat.update") == []


async def test_a_user_mutes_then_unmutes_with_the_slash_command(slack: FakeSlack, serve: Serve) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    server = await serve(Timeline(_snapshot(docs)), clock)
    assert server.notifier is not None
    url = f"{server.url}/slack/events"
    await slack.deliver_slash_command(url, text="mute", user_id=ALICE, channel_id=CHANNEL)
    confirmation = await slack.wait_for_response_url()
    assert confirmation.body.get("response_type") == "ephemeral"
    assert "unmute" in json.dumps(confirmation.body)
    await server.notifier.run_pass()
    assert _dm_posts(slack) == []  # muted: nothing, although the job waits and names alice
    await slack.deliver_slash_command(url, text="unmute", user_id=ALICE, channel_id=CHANNEL)
    await slack.wait_for_response_url(nth=2)
    await server.notifier.run_pass()
    assert len(_dm_posts(slack)) == 1


async def test_a_channel_named_in_an_annotation_is_not_posted_to(slack: FakeSlack, serve: Serve) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", CHANNEL)
    server = await serve(Timeline(_snapshot(docs)), Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC)))
    assert server.notifier is not None
    assert await server.notifier.run_pass() == []
    assert slack.calls("chat.postMessage") == []


async def test_closed_dms_are_forgotten_after_the_retention(slack: FakeSlack, serve: Serve) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    source = Timeline(_snapshot(docs))
    server = await serve(source, clock)
    assert server.notifier is not None and server.store is not None
    await server.notifier.run_pass()
    source.become(_snapshot(_admit(docs, SEG_WORKLOAD, "2026-11-03T10:00:00Z")))
    clock.now = datetime(2026, 11, 3, 10, 5, tzinfo=UTC)
    await server.notifier.run_pass()
    assert len((await server.store.load()).deliveries) == 1  # closed, kept a while
    clock.now += timedelta(days=31)
    await server.notifier.run_pass()
    assert (await server.store.load()).deliveries == ()


# --- closing: the DM is edited first, recorded closed after; texts name the job and measure the whole wait ---


def _without(docs: list[dict[str, Any]], *names: str) -> list[dict[str, Any]]:
    """The cluster without the named jobs and their Workloads."""
    return [
        d
        for d in docs
        if not (
            d["metadata"]["name"] in names
            or any(o.get("name") in names for o in d["metadata"].get("ownerReferences") or [])
        )
    ]


async def test_a_job_deleted_after_28_days_is_closed_naming_the_job_and_the_whole_wait(
    slack: FakeSlack, serve: Serve
) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    clock = Clock(datetime(2026, 12, 1, 7, 48, 5, tzinfo=UTC))  # created 28 days ago to the second
    source = Timeline(_snapshot(docs))
    server = await serve(source, clock)
    assert server.notifier is not None and server.store is not None
    await server.notifier.run_pass()
    assert len(_dm_posts(slack)) == 1
    clock.now += timedelta(seconds=30)
    source.become(_snapshot(_without(docs, "segformer-finetune")))
    await server.notifier.run_pass()
    closing = json.dumps((await slack.wait_for_call("chat.update")).params)
    assert "segformer-finetune" in closing and SEG_WORKLOAD not in closing
    assert "deleted after waiting 28 d" in closing and "30 s" not in closing
    assert (await server.store.load()).open_deliveries() == ()


async def test_a_failed_closing_edit_leaves_the_dm_open_and_is_retried_next_pass(
    slack: FakeSlack, serve: Serve
) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    source = Timeline(_snapshot(docs))
    server = await serve(source, clock)
    assert server.notifier is not None and server.store is not None
    await server.notifier.run_pass()
    ts = _dm_posts(slack)[0].response["ts"]
    source.become(_snapshot(_admit(docs, SEG_WORKLOAD, "2026-11-03T10:00:00Z")))
    clock.now = datetime(2026, 11, 3, 10, 5, tzinfo=UTC)
    slack.fail("chat.update", error="internal_error")
    await server.notifier.run_pass()
    assert len((await server.store.load()).open_deliveries()) == 1  # not recorded closed: Slack still says "waits"
    await server.notifier.run_pass()
    edits = slack.calls("chat.update")
    assert len(edits) == 2 and edits[1].params["ts"] == ts and "admitted" in json.dumps(edits[1].params)
    assert (await server.store.load()).open_deliveries() == ()
    await server.notifier.run_pass()
    assert len(slack.calls("chat.update")) == 2


async def test_a_digest_whose_jobs_were_all_deleted_in_one_pass_is_edited(slack: FakeSlack, serve: Serve) -> None:
    docs = many_pending(3)
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    source = Timeline(_snapshot(docs))
    server = await serve(source, clock)
    assert server.notifier is not None and server.store is not None
    await server.notifier.run_pass()
    posts = _dm_posts(slack)
    assert len(posts) == 1 and "3" in posts[0].params["text"]  # one digest of three
    source.become(_snapshot(_without(docs, "sweep-0000", "sweep-0001", "sweep-0002")))
    await server.notifier.run_pass()
    edits = slack.calls("chat.update")
    assert len(edits) == 1 and edits[0].params["ts"] == posts[0].response["ts"]
    text = edits[0].params["text"]
    assert all(f"sweep-000{i}" in text for i in range(3)) and text.count("was deleted") == 3
    assert (await server.store.load()).open_deliveries() == ()


# --- who is told: watchers and owners both; caps on owners per job and DMs per pass ---

BOB = "U0BOB0002"


async def test_watching_a_job_first_does_not_divert_its_owners_dm(slack: FakeSlack, serve: Serve) -> None:
    slack.add_user(BOB, name="bob")
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    server = await serve(Timeline(_snapshot(docs)), clock)
    assert server.notifier is not None and server.store is not None
    await server.store.subscribe(Subscription(BOB, "ml-vision", "segformer-finetune", "Job", clock()))
    await server.notifier.run_pass()
    await server.notifier.run_pass()
    told = sorted(str(c.params["channel"]) for c in _dm_posts(slack))
    assert told == sorted([slack.dm_channel(ALICE), slack.dm_channel(BOB)])  # one DM each


async def test_an_annotation_naming_150_people_tells_ten_and_says_so(
    slack: FakeSlack, serve: Serve, caplog: pytest.LogCaptureFixture
) -> None:
    people = [f"U0MANY{index:04d}" for index in range(150)]
    for person in people:
        slack.add_user(person, name=person.lower())
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ",".join(people))
    server = await serve(Timeline(_snapshot(docs)), Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC)))
    assert server.notifier is not None
    await server.notifier.run_pass()
    await server.notifier.run_pass()
    assert sorted(str(c.params["channel"]) for c in _dm_posts(slack)) == sorted(
        slack.dm_channel(p) for p in people[:10]
    )
    assert "name too many people" in caplog.text
    assert b'kueue_bot_notify_capped_total{cap="owners-per-job"} 140.0' in server.metrics.exposition()


async def test_dms_past_the_cap_of_a_pass_wait_for_the_next_pass(slack: FakeSlack, serve: Serve) -> None:
    people = [f"U0MANY{index:04d}" for index in range(5)]
    for person in people:
        slack.add_user(person, name=person.lower())
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ",".join(people))
    server = await serve(Timeline(_snapshot(docs)), Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC)))
    assert server.notifier is not None
    server.notifier.max_dms_per_pass = 2
    counts = []
    for _ in range(4):
        await server.notifier.run_pass()
        counts.append(len(_dm_posts(slack)))
    assert counts == [2, 4, 5, 5]
    assert b'kueue_bot_notify_capped_total{cap="dms-per-pass"} 4.0' in server.metrics.exposition()


async def test_the_messenger_turns_slack_failures_into_slack_unavailable(slack: FakeSlack) -> None:
    from bot.errors import SlackUnavailable
    from bot.slack.messenger import SlackMessenger
    from slack_sdk.web.async_client import AsyncWebClient

    async def english(_: str) -> str:
        return "en"

    client = AsyncWebClient(token=slack.bot_token, base_url=slack.api_url)
    messenger = SlackMessenger(client, english, "en")
    slack.fail("chat.update", error="message_not_found")
    with pytest.raises(SlackUnavailable, match=r"chat\.update failed: message_not_found") as caught:
        await messenger.close("D0NOWHERE", "1.2", [Closing("ns/job", "deleted", 30)], ALICE)
    assert caught.value.error == "message_not_found"
    slack.fail("conversations.history", status=503)
    with pytest.raises(SlackUnavailable, match=r"conversations\.history"):
        await messenger.find_sent(ALICE, "ns/w/uid")
    assert await messenger.user_for_email("nobody@example.com") is None  # users_not_found: no such person


# --- a live cluster: the cache holds no jobs; the owners named on the job (and its owners) are read --------


async def test_on_a_live_cluster_the_owners_named_on_the_job_and_its_owner_are_told(
    slack: FakeSlack, db: Path, tmp_path: Path
) -> None:
    from bot.kube.client import KubeClient, load_api_client
    from bot.kube.ondemand import CacheSource

    from tests.fakes.kube_api import FakeKubeAPI

    slack.add_user(BOB, name="bob")
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    job = _find(docs, "Job", "segformer-finetune")
    parent: dict[str, Any] = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {
            "name": "segformer-suite",
            "namespace": "ml-vision",
            "uid": "20000000-0000-4000-8000-000000000001",
            "annotations": {"kueue-bot.io/notify": BOB},
        },
        "spec": {"replicatedJobs": []},
    }
    reference = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "segformer-suite"}
    job["metadata"]["ownerReferences"] = [{**reference, "uid": parent["metadata"]["uid"], "controller": True}]
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    async with FakeKubeAPI() as api:
        api.add_all([*docs, parent], validate=False)
        api_client = load_api_client(str(api.write_kubeconfig(tmp_path / "kubeconfig")))
        source = CacheSource.connect(KubeClient(api_client), clock=clock, freeze_gc=False)
        server = build_server(bot_settings(slack), source, clock=clock, store=SQLiteStore(str(db)), tick_seconds=3600)
        await server.start()
        try:
            await wait_ready(source.cache, 10)
            assert server.notifier is not None
            await server.notifier.run_pass()
            await server.notifier.run_pass()
            told = sorted(str(c.params["channel"]) for c in _dm_posts(slack))
            assert told == sorted([slack.dm_channel(ALICE), slack.dm_channel(BOB)])
        finally:
            await server.stop()
            api_client.close()  # type: ignore[no-untyped-call]


# --- Stop and Snooze: about the job clicked on, never a wildcard; confirmed where the user sees it ---------


async def test_stop_on_a_job_without_a_workload_silences_that_job_only(slack: FakeSlack, serve: Serve) -> None:
    docs = _annotate(_annotate(_docs(SEGFORMER), "segformer-finetune", ALICE), "vit-ablation-lr3e4", ALICE)
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    source = Timeline(_snapshot(docs))
    server = await serve(source, clock)
    assert server.notifier is not None and server.store is not None
    await server.notifier.run_pass()
    posts = _dm_posts(slack)
    assert len(posts) == 2
    crafted = json.dumps({"ns": "ml-vision", "name": "no-workload-at-all"})  # a job Kueue never saw
    for value in (crafted, None):  # then Stop on the segformer DM itself
        await slack.deliver_block_action(
            f"{server.url}/slack/events", action_id="kueue_stop", user_id=ALICE,
            channel_id=posts[0].params["channel"], message_ts=posts[0].response["ts"], value=value,
        )  # fmt: skip
    await slack.wait_for_call("chat.postEphemeral", nth=2)
    snoozes = (await server.store.load()).snoozes
    stopped = json.dumps(posts[0].params["blocks"])
    assert {s.key for s in snoozes} == {"ml-vision/no-workload-at-all", f"ml-vision/{_job_in(stopped)}"}
    held = copy.deepcopy(docs)
    _find(held, "ClusterQueue", "gpu-a100-shared")["spec"]["stopPolicy"] = "Hold"
    source.become(_snapshot(held))
    await server.notifier.run_pass()
    updates = slack.calls("chat.update")
    assert [u.params["ts"] for u in updates] == [posts[1].response["ts"]]  # the other job still tells


def _job_in(blocks: str) -> str:
    return "segformer-finetune" if "segformer-finetune" in blocks else "vit-ablation-lr3e4"


async def test_snooze_from_the_app_home_is_confirmed_by_dm_access_checked_and_escaped(
    slack: FakeSlack, serve: Serve
) -> None:
    import time

    import aiohttp

    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    server = await serve(Timeline(_snapshot(_docs(SEGFORMER))), clock, channel_namespaces={"*": ("ml-vision",)})

    async def click(namespace: str, name: str) -> None:
        payload = {
            "type": "block_actions",
            "team": {"id": slack.identity.team_id},
            "user": {"id": ALICE},
            "api_app_id": "A0KUEUEBOT",
            "container": {"type": "view", "view_id": "V0HOME"},
            "view": {"type": "home", "id": "V0HOME"},
            "trigger_id": "1.2.3",
            "actions": [
                {"type": "button", "action_id": "kueue_snooze_1d", "block_id": "b",
                 "value": json.dumps({"ns": namespace, "name": name}), "action_ts": "1.1"}
            ],
        }  # fmt: skip
        body = urlencode({"payload": json.dumps(payload)})
        stamp = int(time.time())
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Slack-Request-Timestamp": str(stamp),
            "X-Slack-Signature": slack.sign(body, stamp),
        }
        async with (
            aiohttp.ClientSession() as session,
            session.post(f"{server.url}/slack/events", data=body, headers=headers) as response,
        ):
            assert response.status == 200

    assert server.store is not None
    await click("ml-vision", "<!channel> *now*")
    confirmation = await slack.wait_for_call("chat.postMessage", lambda c: c.params.get("channel") == ALICE)
    assert "Snoozed" in confirmation.params["text"]
    assert "`ml-vision/&lt;!channel&gt; *now*`" in confirmation.params["text"]
    assert [s.key for s in (await server.store.load()).snoozes] == ["ml-vision/<!channel> *now*"]
    await click("team-secret", "payroll")  # a namespace the user may not see: refused, nothing stored
    refusal = await slack.wait_for_call("chat.postMessage", lambda c: c.params.get("channel") == ALICE, nth=2)
    assert "Snoozed" not in refusal.params["text"] and "team-secret" in refusal.params["text"]
    assert len((await server.store.load()).snoozes) == 1


async def test_why_under_a_dm_answers_in_its_thread_and_the_home_lists_the_owners_jobs(
    slack: FakeSlack, serve: Serve
) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    server = await serve(Timeline(_snapshot(docs)), Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC)))
    assert server.notifier is not None
    await server.notifier.run_pass()
    post = _dm_posts(slack)[0]
    ts, channel = post.response["ts"], post.params["channel"]
    url = f"{server.url}/slack/events"
    await slack.deliver_block_action(url, action_id="kueue_why", user_id=ALICE, channel_id=channel, message_ts=ts)
    answer = await slack.wait_for_call("chat.postMessage", lambda c: c.params.get("thread_ts") == ts, timeout=15)
    assert answer.params["channel"] == channel and "segformer-finetune" in answer.params["text"]
    # The App Home lists the job its annotation gives Alice (she watches none), with a Why? and how to ask.
    await slack.deliver_event(url, slack.app_home_opened_event(ALICE))
    home = await slack.wait_for_call("views.publish", timeout=15)
    view = json.dumps(home.params["view"])
    assert "Jobs I tell you or your namespaces' channels about" in view and "segformer-finetune" in view
    assert "kueue_why" in view and "/kueue why" in view


# --- the state file lost under a running bot: noticed, said by /readyz, nothing confirmed; restarted on a new,
# empty file, the DMs already sent are found in Slack (their metadata) instead of being sent again.


async def _ready(url: str) -> tuple[int, dict[str, Any]]:
    async with aiohttp.ClientSession() as session, session.get(f"{url}/readyz") as response:
        return response.status, await response.json()


def _delete(db: Path) -> None:
    for name in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        name.unlink(missing_ok=True)


async def test_a_deleted_state_file_is_noticed_and_no_dm_is_sent_twice_after_a_restart(
    slack: FakeSlack, serve: Serve, db: Path
) -> None:
    docs = _annotate(_docs(SEGFORMER), "segformer-finetune", ALICE)
    clock = Clock(datetime(2026, 11, 3, 9, 41, tzinfo=UTC))
    source = Timeline(_snapshot(docs))
    server = await serve(source, clock)
    assert server.notifier is not None
    await server.notifier.run_pass()
    assert len(_dm_posts(slack)) == 1
    status, body = await _ready(server.url)
    assert body["stateStore"] == "ok", body
    _delete(db)
    status, body = await _ready(server.url)
    assert status == 503 and body["stateStore"] == "unavailable", body
    assert "was deleted or replaced" in body["stateStoreError"]
    # A watch asked now is not confirmed: it could not be kept.
    await slack.deliver_slash_command(
        f"{server.url}/slack/events", text="watch ml-vision/segformer-finetune", user_id=ALICE, channel_id=CHANNEL
    )
    answer = await slack.wait_for_response_url()
    assert "watching" not in json.dumps(answer.body).lower(), answer.body
    await server.stop()
    # Restarted on a new, empty file: the DM already sent is found in Slack and recorded, not sent again.
    server = await serve(source, clock)
    assert server.notifier is not None
    await server.notifier.run_pass()
    await server.notifier.run_pass()
    assert len(_dm_posts(slack)) == 1
    state = await SQLiteStore(str(db)).load()
    assert [d.ts for d in state.deliveries] == [_dm_posts(slack)[0].response["ts"]]
