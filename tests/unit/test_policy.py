"""The notification policy, decided with a frozen clock: who is told what, and when."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from bot.forecast.eta import ESTIMATE, Eta
from bot.forecast.outlook import eta_mark
from bot.notify.policy import (
    Candidate,
    Close,
    PolicyConfig,
    Reconcile,
    Send,
    Update,
    decide,
    in_quiet_hours,
    position_moved,
)
from bot.notify.state import Delivery, Mute, Snooze, State
from bot.trace.codes import Verdict
from bot.trace.explanation import Explanation, JobRef, Position, Text

NOW = datetime(2026, 11, 3, 12, 0, tzinfo=UTC)
CONFIG = PolicyConfig(notify_after=timedelta(minutes=15))
ALICE, BOB, CHANNEL = "U0ALICE", "U0BOB", "C0TEAM"


def candidate(
    key: str = "ns/wl-a/uid-a",
    verdict: Verdict = Verdict.WAITING_FOR_QUOTA,
    *,
    waiting_minutes: float | None = 20,
    targets: tuple[str, ...] = (ALICE,),
    position: int | None = 3,
) -> Candidate:
    explanation = Explanation(
        job=JobRef("Job", "ns", key.split("/")[1]),
        workload=("ns", key.split("/")[1]),
        verdict=verdict,
        headline=Text(f"headline.{verdict.value}"),
        steps=(),
        position=Position(position, 1, "computed", "cq", "lq") if position is not None else None,
    )
    since = NOW - timedelta(minutes=waiting_minutes) if waiting_minutes is not None else None
    return Candidate(key, explanation, targets, since)


def delivery(
    key: str = "ns/wl-a/uid-a",
    target: str = ALICE,
    *,
    verdict: str = "waiting-for-quota",
    position: int | None = 3,
    ts: str | None = "1.0001",
    closed: bool = False,
) -> Delivery:
    sent = NOW - timedelta(minutes=30)
    return Delivery(key, target, "D0ALICE", ts, verdict, position, "h", sent, sent, NOW if closed else None)


@pytest.mark.parametrize(
    ("verdict", "minutes", "told"),
    [
        pytest.param(Verdict.WAITING_FOR_QUOTA, 10, False, id="waits-10-min-not-yet"),
        pytest.param(Verdict.WAITING_FOR_QUOTA, 15, True, id="waits-15-min-told"),
        pytest.param(Verdict.NOT_YET_EVALUATED, 60, True, id="not-evaluated-an-hour-told"),
        pytest.param(Verdict.EXCEEDS_MAX_QUOTA, 0, True, id="never-fits-at-once"),
        pytest.param(Verdict.LOCAL_QUEUE_MISSING, 0, True, id="queue-missing-at-once"),
        pytest.param(Verdict.NO_MATCHING_FLAVOR, 1, True, id="no-flavor-at-once"),
        pytest.param(Verdict.ADMISSION_CHECK_REJECTED, 1, True, id="rejected-at-once"),
        pytest.param(Verdict.QUEUE_STOPPED, 5, False, id="stopped-waits-like-others"),
        pytest.param(Verdict.RUNNING, 600, False, id="running-never"),
        pytest.param(Verdict.PODS_PENDING, 600, False, id="pods-pending-is-the-schedulers"),
    ],
)
def test_when_a_workload_is_told(verdict: Verdict, minutes: float, told: bool) -> None:
    decisions = decide(State(), [candidate(verdict=verdict, waiting_minutes=minutes)], NOW, CONFIG)
    assert (decisions == [Send(ALICE, (candidate(verdict=verdict, waiting_minutes=minutes),))]) is told


def test_told_once_then_nothing_while_nothing_changes() -> None:
    state = State.of(deliveries=[delivery()])
    assert decide(state, [candidate()], NOW, CONFIG) == []


@pytest.mark.parametrize(
    ("before", "after", "moved"),
    [
        (3, 3, False),
        (3, 2, False),
        (10, 8, False),
        (10, 7, True),
        (3, 1, True),
        (None, 4, True),
        (4, None, True),
        (40, 31, False),
        (40, 30, True),
    ],
)
def test_a_meaningful_move_in_the_queue(before: int | None, after: int | None, moved: bool) -> None:
    assert position_moved(before, after) is moved


def test_a_change_of_verdict_or_position_updates_in_place_never_posts_again() -> None:
    state = State.of(deliveries=[delivery()])
    changed = candidate(verdict=Verdict.QUEUE_STOPPED)
    assert decide(state, [changed], NOW, CONFIG) == [Update(ALICE, state.deliveries[0], changed)]
    to_head = candidate(position=1)
    assert decide(state, [to_head], NOW, CONFIG) == [Update(ALICE, state.deliveries[0], to_head)]


@pytest.mark.parametrize(
    ("told", "now", "updated"),
    [
        pytest.param("", 3600, False, id="no-eta-told-no-news"),
        pytest.param("mark-of-1h", 3600, True, id="an-eta-told-then-another"),
    ],
)
def test_a_move_of_the_eta_told_updates_in_place(told: str, now: int, updated: bool) -> None:
    """The ETA a DM gave is its delivery's own field: a move of it is news, its absence none."""
    eta = Eta(ESTIMATE, 1, now, now * 2, admissions=30)
    assert eta_mark(eta) != told
    state = State.of(deliveries=[replace(delivery(), eta=told)])
    moved = candidate()
    moved = Candidate(moved.key, moved.explanation, moved.targets, moved.waiting_since, eta)
    assert (decide(state, [moved], NOW, CONFIG) == [Update(ALICE, state.deliveries[0], moved)]) is updated


@pytest.mark.parametrize(
    ("now_verdict", "outcome"),
    [
        (Verdict.RUNNING, "admitted"),
        (Verdict.PODS_PENDING, "admitted"),
        (Verdict.FINISHED, "finished"),
        (None, "deleted"),
    ],
)
def test_admission_finish_or_deletion_closes_the_dm(now_verdict: Verdict | None, outcome: str) -> None:
    state = State.of(deliveries=[delivery()])
    candidates = [candidate(verdict=now_verdict, waiting_minutes=42)] if now_verdict is not None else []
    decisions = decide(state, candidates, NOW, CONFIG)
    assert len(decisions) == 1
    close = decisions[0]
    assert isinstance(close, Close) and close.outcome == outcome
    assert close.waited_seconds == (42 * 60 if now_verdict is not None else 30 * 60)


def test_a_closed_dm_is_not_reopened_by_the_same_wait_but_a_new_one_is_told() -> None:
    state = State.of(deliveries=[delivery(closed=True)])
    assert decide(state, [candidate()], NOW, CONFIG) == [Send(ALICE, (candidate(),))]


def test_an_unconfirmed_intent_is_reconciled_before_anything_is_sent() -> None:
    state = State.of(deliveries=[delivery(ts=None)])
    assert decide(state, [candidate()], NOW, CONFIG) == [Reconcile(ALICE, state.deliveries[0], candidate())]


def test_snoozes_and_mutes_hold() -> None:
    snoozed = State.of(snoozes=[Snooze(ALICE, "ns/wl-a/uid-a", NOW + timedelta(hours=2))])
    assert decide(snoozed, [candidate()], NOW, CONFIG) == []
    everything = State.of(snoozes=[Snooze(ALICE, "*", NOW + timedelta(minutes=1))])
    assert decide(everything, [candidate()], NOW, CONFIG) == []
    over = State.of(snoozes=[Snooze(ALICE, "*", NOW - timedelta(minutes=1))])
    assert decide(over, [candidate()], NOW, CONFIG) == [Send(ALICE, (candidate(),))]
    muted = State.of(mutes=[Mute(ALICE, NOW)], deliveries=[delivery()])
    assert decide(muted, [candidate(verdict=Verdict.QUEUE_STOPPED)], NOW, CONFIG) == []
    both = candidate(targets=(ALICE, BOB))
    assert decide(State.of(mutes=[Mute(ALICE, NOW)]), [both], NOW, CONFIG) == [Send(BOB, (both,))]


def test_quiet_hours_in_the_users_timezone_hold_dms_back_until_after() -> None:
    config = PolicyConfig(notify_after=timedelta(minutes=15), quiet_hours=((22, 0), (8, 0)))
    paris = {ALICE: timedelta(hours=1)}
    night = datetime(2026, 11, 3, 21, 30, tzinfo=UTC)  # 22:30 in Paris
    assert decide(State(), [candidate()], night, config, utc_offsets=paris) == []
    # A channel has no night.
    channel = candidate(targets=(CHANNEL,))
    assert decide(State(), [channel], night, config, utc_offsets=paris) == [Send(CHANNEL, (channel,))]
    morning = datetime(2026, 11, 4, 7, 0, tzinfo=UTC)  # 08:00 in Paris
    assert decide(State(), [candidate()], morning, config, utc_offsets=paris) == [Send(ALICE, (candidate(),))]


@pytest.mark.parametrize(
    ("hour", "minute", "quiet"),
    [(22, 0, True), (23, 59, True), (0, 0, True), (7, 59, True), (8, 0, False), (12, 0, False), (21, 59, False)],
)
def test_quiet_window_across_midnight(hour: int, minute: int, quiet: bool) -> None:
    now = datetime(2026, 1, 1, hour, minute, tzinfo=UTC)
    assert in_quiet_hours(now, timedelta(0), ((22, 0), (8, 0))) is quiet
    assert in_quiet_hours(now, None, ((22, 0), (8, 0))) is False


def test_many_new_dms_for_one_person_become_one_digest() -> None:
    items = [candidate(f"ns/wl-{i}/uid-{i}") for i in range(5)]
    decisions = decide(State(), items, NOW, CONFIG)
    assert len(decisions) == 1
    digest = decisions[0]
    assert isinstance(digest, Send) and len(digest.items) == 5
    two = decide(State(), items[:2], NOW, CONFIG)
    assert len(two) == 2 and all(isinstance(d, Send) and len(d.items) == 1 for d in two)


def test_decide_is_pure_and_ordered() -> None:
    items = [candidate(f"ns/wl-{i}/uid-{i}", targets=(ALICE, BOB)) for i in (3, 1, 2)]
    first = decide(State(), items, NOW, CONFIG)
    assert first == decide(State(), list(reversed(items)), NOW, CONFIG)
