"""When will it run (issue 16, item 2): the estimator on built histories. Its calibration on replayed queues
is measured in bench/eta_calibration.py (figures in bench/README.md), never timed here."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from bot.trace.eta import (
    ESTIMATE,
    MIN_ADMISSIONS,
    NEVER,
    NO_ESTIMATE,
    THIN_HISTORY,
    Estimator,
    History,
    Observed,
    freeing_bound,
    never,
    replay,
)

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
    samples = replay(steady(20))
    # at the start of each wait two jobs queued earlier are still waiting: position 3, 30 minutes to go
    starts = [s for s in samples if s.remaining == 30 * 60]
    assert starts and {s.position for s in starts[3:]} == {3}
    assert max(s.remaining for s in samples) == 30 * 60


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
