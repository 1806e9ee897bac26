"""bot.service.warmer: every ClusterQueue's ETA Estimators made ahead of the questions, on the loop between them:
on a pass when the cluster changed and ahead of each minute; a question then makes none. No timing here."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from bot import pacing
from bot.forecast import estimators
from bot.forecast.estimators import _ESTIMATORS
from bot.forecast.history import History, Observed
from bot.kube.cache import ClusterCache
from bot.kube.cache_view import CacheView
from bot.service.base import ServiceBase
from bot.service.ports import Source
from bot.service.warmer import TURN_SECONDS, Warmer
from bot.trace import demand, holdings

from tests.builders import NOW
from tests.cache_support import cache_of, put
from tests.contention import base, gpu_queue, lq, running, waiting
from tests.loop_support import Turns


class CachedSource(Source):
    """The cache as the service's snapshot source, ready (a cache never started has no informer to sync)."""

    def __init__(self, cache: ClusterCache) -> None:
        self.cache = cache
        self.ready = True

    def taken_at(self) -> datetime | None:
        return NOW

    async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> CacheView:
        return self.cache.view(namespace, owners=(name,))

    async def snapshot(self) -> ClusterCache:
        return self.cache


def _objects(queues: Sequence[str] = ("cq-0", "cq-1"), *, idle: str = "cq-idle") -> list[dict[str, Any]]:
    """Queues with three jobs waiting each (team-a's LocalQueue q-<queue>), and one with nobody waiting."""
    objects = base(*(gpu_queue(name, ("a100", 4)) for name in (*queues, idle)), namespaces=("team-a",))
    for queue in (*queues, idle):
        objects += [lq(f"q-{queue}", "team-a", queue)]
    for queue in queues:
        objects += running(f"big-{queue}", "team-a", queue, gpus_per_pod=4)
        for n in range(3):
            objects += waiting(f"w{n}-{queue}", "team-a", queue=f"q-{queue}", gpus_per_pod=2, minutes=40 - 10 * n)
    return objects


def _history(queues: Sequence[str] = ("cq-0", "cq-1")) -> History:
    found = []
    for queue in queues:
        for hour in range(1, 21):
            admitted = NOW - timedelta(hours=hour, minutes=hour % 7)
            wait = timedelta(minutes=20 + (hour * 13) % 40)
            found.append(Observed(queue, "a100", admitted - wait, admitted, None, f"{queue}-{hour}"))
    return History(tuple(found))


def _service(cache: ClusterCache, at: list[datetime], history: History | None = None) -> ServiceBase:
    return ServiceBase(
        CachedSource(cache), clock=lambda: at[0], history=(lambda: history) if history is not None else None
    )


def _table(cache: ClusterCache) -> dict[Any, Any]:
    table = cache.memos().get(_ESTIMATORS, {})
    assert isinstance(table, dict)
    return table


async def test_a_pass_makes_every_waited_in_queue_s_estimators_and_a_question_then_makes_none() -> None:
    cache = cache_of(_objects())
    at = [NOW + timedelta(seconds=5)]
    service = _service(cache, at, _history())
    warmer = Warmer(service)
    assert await warmer.run_pass() == 2  # cq-0's and cq-1's (a100's shares its queue's replay: all its admissions)
    table = _table(cache)
    assert {key[0] for key in table} == {"cq-0", "cq-1"}  # none for the queue nobody waits in
    kept = dict(table)
    assert await warmer.run_pass() == 0  # nothing changed: all found
    for queue in ("cq-0", "cq-1"):
        _, answer = await service.explain_job("team-a", f"w2-{queue}", "Job")
        assert answer.eta is not None and answer.eta.status == "estimate", answer
    assert all(_table(cache)[key] is entries for key, entries in kept.items())  # the questions made nothing
    assert warmer.stats()["made"] == 2 and warmer.stats()["passes"] == 2


async def test_a_pass_makes_the_holders_and_the_order_s_totals_a_question_reads_and_the_question_makes_none() -> None:
    """What else a question about a waiting job reads first (bot.trace.holdings.preparing, position.prepare_order):
    made by the pass, a queue's part a step (each queue here is a cohort tree of its own); a question then
    reads them as made; a pass after nothing changed takes no step; a new holder in cq-1: its tree again."""
    cache = cache_of(_objects())
    service = _service(cache, [NOW + timedelta(seconds=5)], _history())
    warmer = Warmer(service)
    await warmer.run_pass()
    # cq-0's and cq-1's (not cq-idle's), for each resource their flavor covers (two): the part then the tree
    assert warmer.stats()["holders_steps"] == 8
    memo = cache.memos()
    trees, totals = dict(memo[holdings._CONTESTS]), dict(memo[demand._DEMAND_BEFORE])  # type: ignore[call-overload]
    assert {key[0] for key in trees} == {"cq-0", "cq-1"} and set(totals) == {"cq-0", "cq-1"}
    await warmer.run_pass()
    assert warmer.stats()["holders_steps"] == 8
    for queue in ("cq-0", "cq-1"):
        _, answer = await service.explain_job("team-a", f"w2-{queue}", "Job")
        assert answer.holders is not None and answer.holders.contests, answer
    memo = cache.memos()
    assert all(memo[holdings._CONTESTS][key][2] is entry[2] for key, entry in trees.items())  # type: ignore[index]
    assert all(memo[demand._DEMAND_BEFORE][key] is entry for key, entry in totals.items())  # type: ignore[index]
    put(cache, running("late", "team-a", "cq-1", queue="q-cq-1", gpus_per_pod=1))
    await warmer.run_pass()
    assert warmer.stats()["holders_steps"] == 12


async def test_within_the_lead_a_pass_also_makes_the_next_minute_s() -> None:
    cache = cache_of(_objects(("cq-0",)))
    at = [NOW + timedelta(seconds=30)]
    warmer = Warmer(_service(cache, at, _history(("cq-0",))), lead_seconds=15)
    assert await warmer.run_pass() == 1  # 30 s before the next minute: this minute's only
    at[0] = NOW + timedelta(seconds=46)
    assert await warmer.run_pass() == 1  # 14 s before: the next minute's too
    (entries,) = [entries for key, entries in _table(cache).items() if key == ("cq-0", "")]
    assert [kept[3] for kept in entries] == [NOW, NOW + timedelta(seconds=60)]
    at[0] = NOW + timedelta(seconds=61)
    before = _table(cache)[("cq-0", "")]
    _, answer = await warmer.service.explain_job("team-a", "w2-cq-0", "Job")
    assert answer.eta is not None and _table(cache)[("cq-0", "")] is before  # made ahead, found


async def test_a_change_to_a_queue_makes_its_estimators_again_and_only_its() -> None:
    cache = cache_of(_objects())
    warmer = Warmer(_service(cache, [NOW], _history()), settle_seconds=0)
    await warmer.start()
    try:
        await warmer.wait_for_pass(1)
        assert warmer.made == 2
        put(cache, waiting("late", "team-a", queue="q-cq-1", gpus_per_pod=2, minutes=1))
        warmer.wake()
        await warmer.wait_for_pass(2)
        assert warmer.made == 3  # cq-1's again: its order changed
    finally:
        await warmer.stop()
    assert warmer._task is None


async def test_nothing_while_the_source_is_not_ready_and_a_failing_pass_does_not_stop_it() -> None:
    cache = cache_of(_objects())
    service = _service(cache, [NOW], _history())
    source = service.source
    assert isinstance(source, CachedSource)
    source.ready = False
    warmer = Warmer(service, settle_seconds=0)
    assert await warmer.run_pass() == 0 and not _table(cache)
    source.ready = True
    broken = [True]

    def history() -> History:
        if broken[0]:
            broken[0] = False
            raise RuntimeError("the recorder is away")
        return _history()

    service.history = history
    await warmer.start()
    try:
        await warmer.wait_for_pass(2)  # the one that failed (logged): the loop goes on
        assert warmer.made == 0
        warmer.wake()
        await warmer.wait_for_pass(3)
        assert warmer.made == 2
    finally:
        await warmer.stop()


async def test_a_pass_gives_the_loop_its_turn_between_slices() -> None:
    cache = cache_of(_objects(("cq-0", "cq-1", "cq-2")))
    ticks = iter(range(1000))
    warmer = Warmer(
        _service(cache, [NOW], _history(("cq-0", "cq-1", "cq-2"))), slice_seconds=1, timer=lambda: next(ticks)
    )
    async with Turns() as turns:
        assert await warmer.run_pass() == 3
    assert turns.count >= 4  # a turn after each queue's slice (a tick each, one second a slice)
    assert warmer.stats()["longest_slice_seconds"] >= 1


@pytest.mark.parametrize("lead", [0.0, 15.0])
def test_the_next_pass_is_due_lead_seconds_before_the_minute_then_just_after_its_turn(lead: float) -> None:
    warmer = Warmer(_service(cache_of(), [NOW]), lead_seconds=lead)
    assert warmer._until_next(NOW + timedelta(seconds=10)) == 50 - lead
    assert warmer._until_next(NOW + timedelta(seconds=59)) == max(0.0, 1 - lead)
    assert estimators.next_estimate_at(NOW + timedelta(seconds=59)) == NOW + timedelta(seconds=60)
    assert warmer._delay(NOW + timedelta(seconds=10)) == 50 - lead  # the lead pass
    if lead:
        assert warmer._delay(NOW + timedelta(seconds=50)) == 10 + TURN_SECONDS  # made ahead: the turn's pass


async def test_the_pass_after_the_turn_of_a_minute_lets_the_past_minute_s_go() -> None:
    cache = cache_of(_objects(("cq-0", "cq-1")))
    at = [NOW + timedelta(seconds=50)]
    warmer = Warmer(_service(cache, at, _history()), lead_seconds=15)
    assert await warmer.run_pass() == 4  # this minute's and the next's, two queues
    assert {len(entries) for entries in _table(cache).values()} == {2}
    at[0] = NOW + timedelta(seconds=60 + TURN_SECONDS)
    assert await warmer.run_pass() == 0  # the new minute's were made ahead
    assert {tuple(kept[3] for kept in entries) for entries in _table(cache).values()} == {
        (NOW + timedelta(seconds=60),)
    }
    assert warmer.stats()["forgotten"] == 4  # two queues' (the queue's and its flavor's each) of the past minute
    assert estimators.forget_before(cache, NOW + timedelta(seconds=60)) == 0
    assert estimators.forget_before(cache, NOW + timedelta(hours=1)) == 4 and not _table(cache)


async def test_a_source_that_becomes_ready_without_a_change_is_warmed_at_the_next_poll() -> None:
    cache = cache_of(_objects(("cq-0",)))
    service = _service(cache, [NOW], _history(("cq-0",)))
    source = service.source
    assert isinstance(source, CachedSource)
    source.ready = False
    warmer = Warmer(service, ready_poll_seconds=0.01)
    await warmer.start()
    try:
        await warmer.wait_for_pass(2)  # not ready: polled, not left until the next minute
        assert warmer.made == 0
        source.ready = True  # (its last batch changed nothing: no wake)
        async with asyncio.timeout(5):
            while warmer.made == 0:
                await warmer.wait_for_pass(warmer.passes + 1)
        assert warmer.made == 1
    finally:
        await warmer.stop()


async def test_what_a_slice_built_is_collected_at_the_loop_s_turn_not_in_the_next_slice() -> None:
    was = gc.isenabled()
    gc.enable()
    try:
        cache = cache_of(_objects(("cq-0", "cq-1")))
        ticks = iter(range(1000))
        warmer = Warmer(_service(cache, [NOW], _history()), slice_seconds=1, timer=lambda: next(ticks))
        before = pacing.stats()["collections"]
        await warmer.run_pass()
        await asyncio.sleep(0)  # the turn after the last slice
        assert pacing.stats()["collections"] >= before + 1  # asked at each slice's end, run at the turn
    finally:
        if not was:
            gc.disable()


async def test_a_calibration_questions_read_is_made_ahead_of_the_next_minute_in_steps_with_turns() -> None:
    """A question reads its queue's calibration (made in slices before its answer, bot.service.explaining); the
    pass ahead of the next minute makes that minute's calibration too, step by step with the loop's turns, and
    the question of the next minute finds it made. Where no question read one, none is made ahead."""
    cache = cache_of(_objects(("cq-0", "cq-1")))
    at = [NOW + timedelta(seconds=5)]
    service = _service(cache, at, _history(("cq-0", "cq-1")))
    ticks = iter(range(100_000))
    warmer = Warmer(service, slice_seconds=1, timer=lambda: next(ticks))
    await warmer.run_pass()
    assert warmer.stats()["calibration_steps"] == 0  # none read yet: none made ahead
    _, answer = await service.explain_job("team-a", "w2-cq-0", "Job")
    assert answer.eta is not None and answer.eta.status == "estimate"
    at[0] = NOW + timedelta(seconds=50)  # within the lead: the next minute's
    async with Turns() as turns:
        assert await warmer.run_pass() == 2  # both queues' next minute's
    steps = warmer.stats()["calibration_steps"]
    assert steps >= 1 and turns.count >= steps  # cq-0's only (cq-1's was never read), a turn after each step
    ahead = {key: entries[-1][4] for key, entries in _table(cache).items()}
    assert ahead[("cq-0", "")].calibrated and not ahead[("cq-1", "")].calibrated
    at[0] = NOW + timedelta(seconds=61)
    snapshot = await service.source.snapshot()
    assert service.history is not None
    assert estimators.calibrations(snapshot, "cq-0", history=service.history(), now=at[0], asked=(3, None)) == []


async def test_a_pass_makes_every_waiting_job_s_estimate_and_the_questions_read_them_as_made() -> None:
    """estimators.estimates_ahead: the central waits near each waiting job's place for its amount, made by the pass
    in the queue's Estimator (twins once); a question about any of those jobs finds its own made (adds none),
    and its ETA is the one a question on the same cluster unseen by any warmer gets."""
    cache = cache_of(_objects())
    service = _service(cache, [NOW + timedelta(seconds=5)], _history())
    await Warmer(service).run_pass()
    estimators = {id(kept[4]): kept[4] for entries in _table(cache).values() for kept in entries}
    assert len(estimators) == 4  # each queue's and its a100's, twins (the same replay, the same estimates)
    made = {key: estimator.estimates_made for key, estimator in estimators.items()}
    assert set(made.values()) == {3} and all(estimator.ahead for estimator in estimators.values())
    cold = _service(cache_of(_objects()), [NOW + timedelta(seconds=5)], _history())
    for queue in ("cq-0", "cq-1"):
        for n in range(3):
            explanation, answer = await service.explain_job("team-a", f"w{n}-{queue}", "Job")
            unseen_explanation, unseen = await cold.explain_job("team-a", f"w{n}-{queue}", "Job")
            assert answer.eta is not None and answer.eta.status == "estimate", answer
            assert answer.eta == unseen.eta and explanation.position == unseen_explanation.position
    assert {key: estimator.estimates_made for key, estimator in estimators.items()} == made


def test_a_queue_s_estimates_are_made_in_steps_once_per_estimator() -> None:
    """A step every `per_step` jobs (the warmer's loop turns between them); nothing left once made; a queue nobody
    waits in, or whose Estimators do not estimate (no history), has none to make."""
    cache = cache_of(_objects())
    now, history = NOW + timedelta(seconds=5), _history(("cq-0",))
    assert len(list(estimators.estimates_ahead(cache, "cq-0", history=history, now=now, per_step=1))) == 3
    assert list(estimators.estimates_ahead(cache, "cq-0", history=history, now=now, per_step=1)) == []
    assert list(estimators.estimates_ahead(cache, "cq-idle", history=history, now=now, per_step=1)) == []
    assert list(estimators.estimates_ahead(cache, "cq-1", history=history, now=now, per_step=1)) == []  # no history


def test_after_the_estimates_made_ahead_any_other_place_or_amount_is_estimated_as_by_a_cold_estimator() -> None:
    """The waits read for the estimates made ahead are let go (a job's estimate is kept, not the ~2.5 KB of
    waits it was read from): an estimate at a place or amount not made reads them again, the same."""
    now, history = NOW + timedelta(seconds=5), _history(("cq-0",))
    warm, cold = cache_of(_objects()), cache_of(_objects())
    assert len(list(estimators.estimates_ahead(warm, "cq-0", history=history, now=now, per_step=1))) == 3
    (made,), (fresh,) = (estimators._prepared(c, "cq-0", history, now)[0][:1] for c in (warm, cold))
    assert made.estimates_made == 3 and fresh.estimates_made == 0
    for place in range(1, 7):
        for amount in (None, Decimal(1), Decimal(2), Decimal(8)):
            assert made.eta(place, amount=amount) == fresh.eta(place, amount=amount)
