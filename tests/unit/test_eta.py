"""When will it run (issue 16, item 2): the estimator on built histories. Its calibration on replayed queues
is measured in bench/eta_calibration.py (figures in bench/README.md), never timed here."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from bot.forecast.eta import ESTIMATE, NEVER, NO_ESTIMATE, THIN_HISTORY, Estimator, freeing_bound, never
from bot.forecast.history import MIN_ADMISSIONS, History, Observed, Waiting, window
from bot.forecast.kmcurve import km_curve, km_quantiles, near_lists
from bot.forecast.replay import AMOUNT, CENSORED, MOMENT, POSITION, REMAINING, STEP, Replay, replay

from tests.builders import NOW


def steady(count: int, *, every: float = 10, wait: float = 30, flavor: str = "a100", cq: str = "cq") -> list[Observed]:
    """A queue that admits one job every `every` minutes, each having waited `wait` minutes; the last one
    admitted just before NOW."""
    found = []
    for index in range(count):
        admitted = NOW - timedelta(minutes=every * (count - index))
        found.append(Observed(cq, flavor, admitted - timedelta(minutes=wait), admitted, Decimal(1)))
    return found


def test_replay_gives_each_wait_its_positions() -> None:
    samples = replay(steady(20), now=NOW)
    # three jobs wait at any moment (one admitted every 10 minutes after 30): the third has 20 to 30 to go
    assert {s[POSITION] for s in samples} == {1, 2, 3}
    assert all(20 * 60 < s[REMAINING] <= 30 * 60 for s in samples if s[POSITION] == 3)
    recorded = (NOW - timedelta(minutes=180)).timestamp()  # before, the history does not show who was ahead
    assert all(s[REMAINING] <= 10 * 60 for s in samples if s[POSITION] == 1 and s[MOMENT] >= recorded)
    assert not any(s[CENSORED] for s in samples)


def test_replay_counts_the_jobs_still_waiting_as_censored_and_ahead() -> None:
    admitted = steady(20)
    still = Waiting(NOW - timedelta(hours=5))  # queued 5 h ago, still waiting: ahead of every later one
    samples = replay(admitted, now=NOW, pending=(still,))
    censored = [s for s in samples if s[CENSORED]]
    assert censored and all(s[POSITION] == 1 for s in censored)
    assert max(s[REMAINING] for s in censored) == pytest.approx(5 * 3600)
    assert {s[POSITION] for s in samples if not s[CENSORED] and s[MOMENT] > (NOW - timedelta(hours=4)).timestamp()} == {
        2,
        3,
        4,
    }


def test_kaplan_meier_counts_a_censored_wait_as_at_least_that_long() -> None:
    ended = [(float(v), False) for v in range(1, 11)]
    assert km_quantiles(ended, (0.5,)) == [5.0]
    # twenty more still waiting after 10.5 s: two thirds of all have not ended, so the median is not known
    # yet, and the first quarter ended by 8 s (dropping the censored ones would say 5 s and 3 s)
    assert km_quantiles(ended + [(10.5, True)] * 20, (0.5, 0.25)) == [None, 8.0]


def _km_by_walking(values: list[tuple[float, bool]]) -> tuple[list[float], list[float]]:
    """Kaplan-Meier's estimate as the textbook walks it: every wait in order, those ended at one wait
    counted together, the censored at that wait still at risk there."""
    ordered = sorted(values)
    at_risk = float(len(ordered))
    survival, xs, cdf, index = 1.0, [], [], 0
    while index < len(ordered) and at_risk > 0:
        value, ended, left = ordered[index][0], 0, 0
        while index < len(ordered) and ordered[index][0] == value:
            left, ended = (left + 1, ended) if ordered[index][1] else (left, ended + 1)
            index += 1
        if ended:
            survival *= 1 - ended / at_risk
            xs.append(value)
            cdf.append(1 - survival)
        at_risk -= ended + left
    return xs, cdf


@pytest.mark.parametrize("seed", range(40))
def test_kaplan_meier_visits_only_the_ended_waits_and_steps_exactly_as_the_walk(seed: int) -> None:
    """km_curve counts the ended waits and bisects the censored ones (no walk over every wait): the same
    steps, to the last bit, ties between ended and censored waits included."""
    rng = random.Random(seed)
    waits = [float(rng.randint(0, 30)) for _ in range(rng.randint(0, 60))] + [rng.random() * 30 for _ in range(5)]
    values = [(wait, rng.random() < 0.3) for wait in waits]
    assert km_curve(values) == _km_by_walking(values)


def test_a_steady_queue_gets_a_tight_interval_around_its_pace() -> None:
    estimator = Estimator(History(tuple(steady(100))), cluster_queue="cq", flavor="a100", now=NOW)
    eta = estimator.eta(3)
    assert eta.status == ESTIMATE
    assert eta.low_seconds is not None and eta.high_seconds is not None
    assert 15 * 60 <= eta.low_seconds <= eta.high_seconds <= 30 * 60
    assert eta.admissions == 100 and eta.scope == "flavor" and eta.confidence == 80
    head = estimator.eta(1)
    assert head.high_seconds is not None and head.high_seconds <= eta.high_seconds


@pytest.mark.parametrize(
    ("wait_minutes", "hours"),
    [
        pytest.param(30, 24, id="short-waits-a-day"),
        pytest.param(120, 32, id="two-hour-waits-sixteen-of-them"),
        pytest.param(600, 72, id="long-waits-capped-at-three-days"),
    ],
)
def test_the_window_spans_sixteen_typical_waits_between_one_and_three_days(wait_minutes: int, hours: int) -> None:
    """A queue whose waits last hours holds few of them in a day (bench/README.md: on the bursty StrictFIFO
    queue 24 h left the 80 % interval at 62-73 % coverage); the window grows to WAITS_PER_WINDOW waits."""
    history = History(tuple(steady(60, every=20, wait=wait_minutes)))
    assert window(history, "cq", NOW) == timedelta(hours=hours)
    if hours > 24:  # an older admission counts once the window reaches it, and the answer says how far back
        older = History((*history.admissions, *steady(1, every=60 * (hours - 2), wait=wait_minutes)))
        estimator = Estimator(older, cluster_queue="cq", flavor="a100", now=NOW)
        assert estimator.window_hours == hours
        assert estimator.eta(1).window_hours == hours
        assert estimator.admissions == 61


@pytest.mark.parametrize(
    ("history", "reason"),
    [
        pytest.param([], THIN_HISTORY, id="no-history"),
        pytest.param(steady(MIN_ADMISSIONS - 1), THIN_HISTORY, id="fewer-admissions-than-needed"),
        pytest.param(
            [
                Observed(o.cluster_queue, o.flavor, o.queued_at - timedelta(days=2), o.admitted_at - timedelta(days=2))
                for o in steady(50)
            ],
            THIN_HISTORY,
            id="all-older-than-the-window",
        ),
        pytest.param(steady(50, cq="other-cq"), THIN_HISTORY, id="another-queue-s-history"),
    ],
)
def test_no_estimate_yet_on_thin_history(history: list[Observed], reason: str) -> None:
    eta = Estimator(History(tuple(history)), cluster_queue="cq", flavor="a100", now=NOW).eta(1)
    assert (eta.status, eta.reason, eta.low_seconds, eta.high_seconds) == (NO_ESTIMATE, reason, None, None)


def test_flavor_history_is_used_when_it_has_enough_else_the_queue_s() -> None:
    mixed = History((*steady(40, flavor="h100"), *steady(5, flavor="a100")))
    assert Estimator(mixed, cluster_queue="cq", flavor="h100", now=NOW).eta(3).scope == "flavor"
    fallback = Estimator(mixed, cluster_queue="cq", flavor="a100", now=NOW).eta(3)
    assert (fallback.status, fallback.scope, fallback.admissions) == (ESTIMATE, "cluster-queue", 45)


def test_maximum_execution_time_caps_the_interval() -> None:
    estimator = Estimator(History(tuple(steady(100))), cluster_queue="cq", flavor="a100", now=NOW)
    eta = estimator.eta(3, bound_seconds=10 * 60)
    assert eta.high_seconds == 10 * 60 and eta.low_seconds is not None and eta.low_seconds <= 10 * 60
    assert eta.bound_seconds == 10 * 60


@pytest.mark.parametrize(
    ("holders", "needed", "bound"),
    [
        pytest.param([(Decimal(4), 600), (Decimal(4), 60)], Decimal(2), 60, id="soonest-frees-enough"),
        pytest.param([(Decimal(2), 600), (Decimal(2), 60)], Decimal(3), 600, id="two-must-end"),
        pytest.param([(Decimal(8), None), (Decimal(1), 60)], Decimal(2), None, id="unbounded-holder-no-bound"),
        pytest.param([], Decimal(0), 0, id="nothing-needed"),
    ],
)
def test_freeing_bound(holders: list[tuple[Decimal, int | None]], needed: Decimal, bound: int | None) -> None:
    assert freeing_bound(holders, needed) == bound


def test_never_fits_has_no_estimate() -> None:
    assert never().status == NEVER and never().low_seconds is None


def test_a_larger_job_is_estimated_from_jobs_of_its_size_when_there_are_enough() -> None:
    small = steady(150, wait=10)
    large = [
        Observed(o.cluster_queue, o.flavor, o.queued_at - timedelta(minutes=50), o.admitted_at, Decimal(8))
        for o in steady(150, wait=10, every=9.5)
    ]
    estimator = Estimator(History((*small, *large)), cluster_queue="cq", flavor="a100", now=NOW)
    big, little = estimator.eta(2, amount=Decimal(8)), estimator.eta(2, amount=Decimal(1))
    assert big.high_seconds is not None and little.high_seconds is not None
    assert big.high_seconds > little.high_seconds


def simulated_queue(seed: int, *, days: int = 4, capacity: int = 4, load: float = 0.8) -> list[tuple[float, float]]:
    """(queued, admitted) seconds of a StrictFIFO queue of `capacity` one-GPU slots: Poisson arrivals,
    exponential run times of 30 minutes on average."""
    rng = random.Random(seed)
    mean_run = 1800.0
    rate = load * capacity / mean_run
    free_at = [0.0] * capacity  # when each slot frees
    found = []
    clock = 0.0
    last_admitted = 0.0
    while clock < days * 86400:
        clock += rng.expovariate(rate)
        slot = min(range(capacity), key=lambda i: free_at[i])
        admitted = max(clock, free_at[slot], last_admitted)  # in order: never before the one ahead
        free_at[slot] = admitted + rng.expovariate(1 / mean_run)
        last_admitted = admitted
        found.append((clock, admitted))
    return found


def coverage(jobs: list[tuple[float, float]], confidence: int, *, factor: float | None = None) -> tuple[float, int]:
    """Ask, every hour after the first day, each waiting job when it will run, as the bot would (the
    admissions of the last 24 h, the jobs waiting): the share of true waits inside the stated interval."""
    start = NOW - timedelta(days=10)
    inside = asked = 0
    for hour in range(24, 24 * 4):
        moment = hour * 3600.0
        now = start + timedelta(seconds=moment)
        seen = tuple(
            Observed("cq", "gpu", start + timedelta(seconds=q), start + timedelta(seconds=a), Decimal(1))
            for q, a in jobs
            if moment - 86400 <= a <= moment
        )
        waiting = sorted((q, a) for q, a in jobs if q <= moment < a)
        pending = tuple(Waiting(start + timedelta(seconds=q), Decimal(1)) for q, _ in waiting)
        estimator = Estimator(History(seen), cluster_queue="cq", flavor="gpu", now=now, pending=pending)
        if factor is not None:
            estimator._calibration.factors[confidence] = (
                factor  # the control: a fixed factor instead of the measured one
            )
        for position, (_, admitted) in enumerate(waiting, start=1):
            eta = estimator.eta(position, confidence=confidence)
            if eta.status == ESTIMATE and eta.low_seconds is not None and eta.high_seconds is not None:
                asked += 1
                inside += eta.low_seconds <= admitted - moment <= eta.high_seconds
    return inside / max(1, asked), asked


@pytest.mark.parametrize("confidence", [50, 80, 90])
def test_the_stated_share_holds_on_a_generated_queue(confidence: int) -> None:
    """Within 8 points on three days of questions (bench/eta_calibration.py measures it at length); an
    interval squeezed to half its measured width misses that mark, so this check can fail."""
    jobs = simulated_queue(seed=3)
    share, asked = coverage(jobs, confidence)
    assert asked >= 100
    assert abs(share - confidence / 100) <= 0.08, share
    squeezed, _ = coverage(jobs, confidence, factor=0.5)
    assert abs(squeezed - confidence / 100) > 0.08, squeezed


def _replay_by_sorting(
    admissions: list[Observed], now: datetime, pending: tuple[Waiting, ...], since: datetime
) -> list[tuple[int, float, Decimal | None, float, bool]]:
    """The replay as it was first written: every moment, the jobs waiting then, sorted by queue order."""
    end, first = now.timestamp(), since.timestamp()
    ordered = sorted(admissions, key=lambda a: a.admitted_at)
    admitted = [a.admitted_at.timestamp() for a in ordered]
    queued = [min(a.queued_at.timestamp(), admitted[i]) for i, a in enumerate(ordered)]
    still = sorted((w.queued_at.timestamp(), w.amount) for w in pending if w.queued_at <= now)
    found: list[tuple[int, float, Decimal | None, float, bool]] = []
    moment = end - STEP.total_seconds()
    while moment >= first:
        waiting = [
            (queued[j], j, admitted[j] - moment, ordered[j].amount, False)
            for j in range(len(ordered))
            if queued[j] <= moment < admitted[j]
        ]
        waiting += [
            (at, len(ordered) + i, end - moment, amount, True) for i, (at, amount) in enumerate(still) if at <= moment
        ]
        waiting.sort()
        found += [(p, left, amount, moment, censored) for p, (_, _, left, amount, censored) in enumerate(waiting, 1)]
        moment -= STEP.total_seconds()
    return found


@pytest.mark.parametrize("seed", range(12))
def test_the_replay_in_queue_order_is_the_replay_sorted_at_every_moment(seed: int) -> None:
    rng = random.Random(seed)
    admissions = []
    for n in range(rng.randint(0, 60)):
        admitted = NOW - timedelta(minutes=rng.randint(0, 30 * 60))
        queued = admitted - timedelta(minutes=rng.choice([0, 0, 5, 10, 10, 45, 300]) + rng.random())
        admissions.append(Observed("cq", "f", queued, admitted, Decimal(rng.randint(1, 4)), f"u{n}"))
    pending = tuple(
        sorted(
            (
                Waiting(NOW - timedelta(minutes=rng.randint(-5, 40 * 60)), Decimal(n + 1))
                for n in range(rng.randint(0, 9))
            ),
            key=lambda w: w.queued_at,
        )
    )
    since = NOW - timedelta(hours=rng.choice([6, 24, 30]))
    assert replay(admissions, now=NOW, pending=pending, since=since) == _replay_by_sorting(
        admissions, NOW, pending, since
    )


@pytest.mark.parametrize("seed", range(12))
def test_a_replay_counts_each_amount_s_samples_as_its_samples_show(seed: int) -> None:
    """`between` (how many samples asked for an amount in a range) is counted from the moments each job
    waited through; the samples themselves are the reference."""
    rng = random.Random(seed)
    admissions = []
    for n in range(rng.randint(0, 50)):
        admitted = NOW - timedelta(minutes=rng.randint(0, 30 * 60))
        queued = admitted - timedelta(minutes=rng.choice([0, 5, 45, 300]))
        amount = rng.choice([None, Decimal(1), Decimal(2), Decimal(8)])
        admissions.append(Observed("cq", "f", queued, admitted, amount, f"u{n}"))
    pending = [Waiting(NOW - timedelta(minutes=rng.randint(-5, 40 * 60)), Decimal(rng.randint(1, 4))) for _ in range(9)]
    found = Replay(admissions, now=NOW, pending=pending, since=NOW - timedelta(hours=rng.choice([6, 24])))
    samples = found.samples()
    ranges = ((Decimal(0), Decimal(100)), (Decimal(1), Decimal(2)), (Decimal(2), Decimal(4)), (Decimal(8), Decimal(8)))
    for low, high in ranges:
        expected = sum(1 for s in samples if s[AMOUNT] is not None and low <= s[AMOUNT] <= high)
        assert found.between(low, high) == expected


def test_jobs_queued_in_the_same_second_replay_whatever_they_ask_for() -> None:
    """Kubernetes writes whole seconds: two Workloads queued in the same one, one asking for none of the main
    resource (no amount), are replayed (the one without an amount after the other), not a TypeError."""
    queued = NOW - timedelta(hours=2)
    pending = (Waiting(queued, None), Waiting(queued, Decimal(2)), Waiting(queued, Decimal(1)))
    samples = replay(steady(20), now=NOW, pending=pending)
    latest = max(s[MOMENT] for s in samples)
    censored = sorted((s[POSITION], s[AMOUNT]) for s in samples if s[CENSORED] and s[MOMENT] == latest)
    assert censored == [(1, Decimal(1)), (2, Decimal(2)), (3, None)]


def test_an_estimator_reads_its_own_queue_s_admissions_from_the_history_s_index() -> None:
    """A recorded history holds every ClusterQueue's admissions: a queue's Estimator (and its window) reads its
    own through an index made once per History, and answers as from a history of its queue alone."""
    mine = steady(60, wait=45)
    others = [a for queue in range(30) for a in steady(80, every=7, wait=300, cq=f"other-{queue}")]
    mixed = History(tuple(others[: len(others) // 2] + mine + others[len(others) // 2 :]))
    assert mixed.admissions_in("cq") == tuple(mine)
    assert mixed.admissions_in("cq") is mixed.admissions_in("cq")  # indexed once
    assert mixed.admissions_in("nowhere") == ()
    assert window(mixed, "cq", NOW) == window(History(tuple(mine)), "cq", NOW)
    alone = Estimator(History(tuple(mine)), cluster_queue="cq", flavor="a100", now=NOW)
    among = Estimator(mixed, cluster_queue="cq", flavor="a100", now=NOW)
    assert among.admissions == alone.admissions == 60
    for position in (1, 2, 4):
        assert among.eta(position) == alone.eta(position)
        assert among.eta(position).status == ESTIMATE


Waits = tuple[tuple[float, ...], tuple[bool, ...]]


def _near_reading_every_position(
    at: Callable[[int], Waits], top: int | Callable[[], int], position: int, minimum: int = 24
) -> tuple[list[float], list[bool]]:
    """near_lists as it was: every spread read, from 1."""
    waits, censored = at(position)
    found, flags, spread, last = list(waits), list(censored), 1, None
    while len(found) < minimum:
        if position - spread < 1:
            last = top() if callable(top) else top
            if position + spread > last:
                break
        for other in (position - spread, position + spread):
            if other >= 1 and other != position:
                waits, censored = at(other)
                found.extend(w * position / other for w in waits)
                flags.extend(censored)
        spread += 1
    return found, flags


@pytest.mark.parametrize("seed", range(20))
def test_a_place_far_behind_every_one_the_history_saw_reads_only_positions_with_waits(seed: int) -> None:
    """From a place thousands deep (a burst queued since the last replayed moment), the neighbours nearer than
    the last position with waits are not read one by one (the warmer makes every waiting job's estimate): the
    same waits as reading every one, the same in the replay's pool of alike amounts (whose `top` is asked)."""
    rng = random.Random(seed)
    top = rng.randint(0, 30)
    columns = {p: tuple(rng.random() * 3600 for _ in range(rng.randint(0, 12))) for p in range(1, top + 1)}
    read: list[int] = []

    def at(position: int) -> tuple[tuple[float, ...], tuple[bool, ...]]:
        read.append(position)
        waits = columns.get(position, ())
        return waits, tuple(w > 3000 for w in waits)

    for position in (1, max(1, top), top + 1, top + 7, 5_000 + rng.randint(0, 5_000)):
        expected = _near_reading_every_position(at, top, position)
        for kind in ("number", "callable"):
            read.clear()
            if kind == "number":
                found = near_lists(at, top, position)
            else:
                found = near_lists(at, lambda: top, position, beyond=top + rng.randint(0, 3))
            assert found == expected
            assert len(read) <= 2 * (top + 4) + 1, (kind, position, len(read))
