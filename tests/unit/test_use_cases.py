"""The service's use cases about a person's watches (watch, unwatch, mute, snooze, stop, the App Home), through
the `Watches` port: an in-test fake of the port, and the real adapter over the SQLite state store."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from bot.errors import BadQuery
from bot.notify.actions import StoreWatches
from bot.notify.store import SQLiteStore
from bot.service.botservice import BotService
from bot.service.ports import ChannelPolicy, StaticSource
from bot.service.results import (
    Answered,
    Asker,
    AuditEntry,
    Choose,
    Muted,
    Refused,
    Silence,
    Silenced,
    Unsupported,
    Watching,
)
from bot.trace.codes import Verdict

from tests.builders import ago, cluster, local_queue, namespace, pending, snapshot

NOW = datetime(2026, 10, 14, 10, 30, tzinfo=UTC)
ALICE = "U0ALICE01"
SHARED, TEAM_A_CHANNEL = "C0SHARED1", "C0TEAMA01"
WORLD = [
    *cluster(),
    namespace("team-b"),
    local_queue("user-queue", "team-b"),
    *pending("train", created=ago(50)),
    *pending("twin", created=ago(40)),
    *pending("twin", created=ago(30), namespace_name="team-b"),
    *pending("secret", created=ago(20), namespace_name="team-b"),
]
CHANNELS = {SHARED: ("team-a", "team-b"), TEAM_A_CHANNEL: ("team-a",)}


class FakeWatches:
    """The Watches port in memory."""

    def __init__(self) -> None:
        self.subscriptions: dict[tuple[str, str, str], str | None] = {}
        self.muted: dict[str, datetime] = {}
        self.snoozes: dict[tuple[str, str, str], datetime] = {}

    async def watch(self, user: str, namespace: str, name: str, kind: str | None, since: datetime) -> bool:
        added = (user, namespace, name) not in self.subscriptions
        self.subscriptions.setdefault((user, namespace, name), kind)
        return added

    async def unwatch(self, user: str, namespace: str, name: str) -> bool:
        return self.subscriptions.pop((user, namespace, name), "absent") != "absent"

    async def mute(self, user: str, since: datetime) -> bool:
        return self.muted.setdefault(user, since) == since

    async def unmute(self, user: str) -> bool:
        return self.muted.pop(user, None) is not None

    async def snooze(self, user: str, namespace: str, name: str, until: datetime) -> None:
        self.snoozes[(user, namespace, name)] = until

    async def watched(self, user: str) -> Sequence[tuple[str, str, str | None]]:
        return [(ns, name, kind) for (who, ns, name), kind in self.subscriptions.items() if who == user]

    async def told(self, user: str) -> Sequence[tuple[str, str]]:
        return []  # no DM is open in these tests


def _service(watches: FakeWatches | StoreWatches | None, audit: list[AuditEntry] | None = None) -> BotService:
    return BotService(
        StaticSource(snapshot(WORLD)),
        clock=lambda: NOW,
        policy=ChannelPolicy(CHANNELS.get),
        audit=audit.append if audit is not None else None,
        watches=watches,
    )


async def test_watch_and_unwatch_a_job_named_with_its_namespace() -> None:
    watches = FakeWatches()
    service = _service(watches)
    asker = Asker(ALICE, SHARED)
    assert await service.watch(asker, "train", namespace="team-a", kind="Job") == Watching("team-a", "train", True)
    assert watches.subscriptions == {(ALICE, "team-a", "train"): "Job"}
    assert await service.home(ALICE) != []
    assert await service.watch(asker, "train", namespace="team-a", kind=None, on=False) == Watching(
        "team-a", "train", False
    )
    assert watches.subscriptions == {}


async def test_a_watch_without_namespace_finds_the_job_as_a_question_does_and_is_audited_as_one() -> None:
    watches = FakeWatches()
    audit: list[AuditEntry] = []
    service = _service(watches, audit)
    assert await service.watch(Asker(ALICE, SHARED), "train", namespace=None, kind=None) == Watching(
        "team-a", "train", True
    )
    assert [(e.command, e.outcome) for e in audit] == [("why", "answered")]
    # A name in two visible namespaces: the asker chooses (the default namespace is not preferred for a watch).
    twin = await service.watch(Asker(ALICE, SHARED), "twin", namespace=None, kind=None)
    assert isinstance(twin, Choose) and {ns for ns, _, _ in twin.candidates} == {"team-a", "team-b"}
    assert set(watches.subscriptions) == {(ALICE, "team-a", "train")}


async def test_a_watch_in_a_namespace_the_asker_may_not_see_is_refused_and_changes_nothing() -> None:
    watches = FakeWatches()
    service = _service(watches)
    assert await service.watch(Asker(ALICE, TEAM_A_CHANNEL), "secret", namespace="team-b", kind=None) == Refused(
        "team-b"
    )
    assert watches.subscriptions == {}


async def test_without_a_store_watch_mute_and_snooze_are_unsupported_and_the_home_is_empty() -> None:
    service = _service(None)
    asker = Asker(ALICE, SHARED)
    assert await service.watch(asker, "train", namespace="team-a", kind=None) == Unsupported()
    assert await service.mute(asker, True) == Unsupported()
    assert await service.silence(asker, Silence.STOP, "team-a", "train") == Unsupported()
    assert await service.home(ALICE) == []
    # The access check still comes first: a refusal is told, not the missing store.
    assert await service.watch(Asker(ALICE, TEAM_A_CHANNEL), "x", namespace="team-b", kind=None) == Refused("team-b")


async def test_mute_then_unmute() -> None:
    watches = FakeWatches()
    service = _service(watches)
    assert await service.mute(Asker(ALICE, SHARED), True) == Muted(True)
    assert watches.muted == {ALICE: NOW}
    assert await service.mute(Asker(ALICE, SHARED), False) == Muted(False)
    assert watches.muted == {}


@pytest.mark.parametrize(
    ("how", "until"),
    [
        pytest.param(Silence.SNOOZE_2H, NOW + timedelta(hours=2), id="snooze-2h"),
        pytest.param(Silence.SNOOZE_1D, NOW + timedelta(days=1), id="snooze-1d"),
    ],
)
async def test_a_snooze_holds_the_job_until_its_end_and_keeps_the_watch(how: Silence, until: datetime) -> None:
    watches = FakeWatches()
    service = _service(watches)
    asker = Asker(ALICE, SHARED)
    await service.watch(asker, "train", namespace="team-a", kind=None)
    assert await service.silence(asker, how, "team-a", "train") == Silenced("team-a", "train", until)
    assert watches.snoozes == {(ALICE, "team-a", "train"): until}
    assert (ALICE, "team-a", "train") in watches.subscriptions


async def test_stop_snoozes_for_good_and_ends_the_watch() -> None:
    watches = FakeWatches()
    service = _service(watches)
    asker = Asker(ALICE, SHARED)
    await service.watch(asker, "train", namespace="team-a", kind=None)
    assert await service.silence(asker, Silence.STOP, "team-a", "train") == Silenced("team-a", "train", None)
    assert watches.snoozes[(ALICE, "team-a", "train")] > NOW + timedelta(days=365 * 50)
    assert watches.subscriptions == {}


async def test_a_snooze_in_a_namespace_the_asker_may_not_see_is_refused_and_changes_nothing() -> None:
    watches = FakeWatches()
    service = _service(watches)
    outcome = await service.silence(Asker(ALICE, TEAM_A_CHANNEL), Silence.SNOOZE_2H, "team-b", "secret")
    assert outcome == Silenced("team-b", "secret", None, refused=True)
    assert watches.snoozes == {}


@pytest.mark.parametrize(
    ("namespace", "name"),
    [
        pytest.param(None, "train", id="no-namespace"),
        pytest.param("team-a", None, id="no-name"),
        pytest.param("", "train", id="empty-namespace"),
        pytest.param("team-a/x", "train", id="slash-in-namespace"),
        pytest.param("team-a", "a/b", id="slash-in-name"),
    ],
)
async def test_a_snooze_that_names_no_job_is_a_bad_query(namespace: str | None, name: str | None) -> None:
    watches = FakeWatches()
    with pytest.raises(BadQuery):
        await _service(watches).silence(Asker(ALICE, SHARED), Silence.SNOOZE_1D, namespace, name)
    assert watches.snoozes == {}


async def test_the_home_lists_each_watched_job_with_its_explanation_now() -> None:
    watches = FakeWatches()
    service = _service(watches)
    await service.watch(Asker(ALICE, SHARED), "train", namespace="team-a", kind=None)
    await service.watch(Asker(ALICE, SHARED), "gone", namespace="team-a", kind=None)
    [(ns1, name1, first), (ns2, name2, second)] = await service.home(ALICE)
    assert (ns1, name1, ns2, name2) == ("team-a", "train", "team-a", "gone")
    assert first is not None and first.verdict != Verdict.JOB_NOT_FOUND
    assert second is not None and second.verdict == Verdict.JOB_NOT_FOUND
    assert await service.home("U0SOMEONE") == []


async def test_a_question_prefers_the_default_namespace_only_when_asked_to() -> None:
    service = _service(None)
    asker = Asker(ALICE, SHARED)  # sees team-a first, then team-b; "twin" is in both
    preferred = await service.ask(asker, "twin", namespace=None, kind=None, prefer_default=True)
    assert isinstance(preferred, Answered) and preferred.explanation.job.namespace == "team-a"
    assert isinstance(await service.ask(asker, "twin", namespace=None, kind=None), Choose)


async def test_the_store_adapter_keeps_watches_mutes_and_snoozes_and_wakes_the_notifier(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "state.sqlite3")
    woken: list[None] = []
    watches = StoreWatches(store, wake=lambda: woken.append(None))
    service = _service(watches)
    asker = Asker(ALICE, SHARED)
    try:
        assert await service.watch(asker, "train", namespace="team-a", kind="Job") == Watching("team-a", "train", True)
        assert len(woken) == 1
        assert await watches.watched(ALICE) == [("team-a", "train", "Job")]
        await service.mute(asker, True)
        assert [m.user for m in (await store.load()).mutes] == [ALICE]
        await service.silence(asker, Silence.SNOOZE_2H, "team-a", "train")
        assert [(s.key, s.until) for s in (await store.load()).snoozes] == [("team-a/train", NOW + timedelta(hours=2))]
        await service.silence(asker, Silence.STOP, "team-a", "train")
        assert await watches.watched(ALICE) == []
    finally:
        await store.aclose()
