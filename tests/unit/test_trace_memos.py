"""What the trace keeps between questions (issue 14: a question in time independent of the queue's length)
gives what computing it afresh gives: the waiting Workloads of a ClusterQueue the ETA weighs (kept per queue
order in the view's memo, renewed when the cache hands out a new order), a classified QuotaReserved record
(kept per reason, message and groups), the quantities as written for people. No timing here (bench/)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

import pytest
from bot.admin.view import admin_view
from bot.forecast import calibration as calibration_module
from bot.forecast import estimators, kmcurve, outlook
from bot.forecast import eta as eta_module
from bot.forecast import history as history_module
from bot.forecast.estimators import waiting
from bot.forecast.eta import Estimator
from bot.forecast.history import History, Observed, Waiting, main_resource
from bot.forecast.kmcurve import near
from bot.forecast.outlook import explain_with_outlook
from bot.service.explaining import explain_job
from bot.trace import messages
from bot.trace.answer import queued_since
from bot.trace.demand import workload_demand
from bot.trace.explain import Query, explain
from bot.trace.quantity import format_quantity, human
from bot.trace.snapshot import Snapshot

from tests.builders import NOW, resource_flavor
from tests.cache_support import cache_of, put
from tests.contention import base, dense_admissions, gpu_queue, lq, running
from tests.contention import waiting as waiting_job


def _afresh(view: Snapshot, cq: str) -> tuple[Waiting, ...]:
    found = []
    for workload in view.pending_in(cq):
        since = queued_since(workload)
        if since is not None:
            demand = workload_demand(workload)
            found.append(Waiting(since, demand.get(main_resource(demand))))
    return tuple(found)


def test_the_estimator_kept_per_queue_follows_the_queue_order_and_reads_its_waiting_jobs() -> None:
    """A queue's Estimator is kept while its order is the same sequence (the waiting jobs it is made from are
    read again only when it is made again, then let go), and made again when a job joins the queue."""
    objects = base(gpu_queue("cq-0", ("a100", 4)), namespaces=("team-a", "team-b"))
    objects += [lq("gpus", "team-a", "cq-0"), lq("gpus", "team-b", "cq-0")]
    objects += running("big", "team-a", "cq-0", gpus_per_pod=4)
    for n, gpus in enumerate((1, 2, 4)):
        objects += waiting_job(f"w{n}", "team-a", gpus_per_pod=gpus, minutes=30 - n)
    cache = cache_of(objects)
    first = cache.view("team-a", [])
    kept = waiting(first, "cq-0")
    assert kept == _afresh(first, "cq-0") and len(kept) == 3
    estimator = estimators.estimator_for(first, None, "cq-0", "a100", NOW)
    assert estimators.estimator_for(cache.view("team-a", []), None, "cq-0", "a100", NOW) is estimator  # the same order
    put(cache, waiting_job("late", "team-b", pods=2, gpus_per_pod=3, minutes=1))
    later = cache.view("team-a", [])
    renewed = waiting(later, "cq-0")
    assert renewed == _afresh(later, "cq-0") and len(renewed) == 4
    assert Waiting(renewed[-1].queued_at, Decimal(6)) == renewed[-1]  # the late one: 2 pods of 3 GPUs
    assert estimators.estimator_for(later, None, "cq-0", "a100", NOW) is not estimator


def test_a_kept_classification_is_the_one_read_afresh() -> None:
    message = "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor a, 3 more needed"
    groups = messages.group_shapes([(("cpu", "memory"), ("a", "b"))])
    for reason, text, shapes in (
        ("Pending", message, ()),
        ("Pending", message, groups),
        ("QuotaReserved", "", ()),
        ("NoFit", message + " ...", groups),
        ("Pending", "x" * 5000, ()),  # longer than what is kept: read each time
    ):
        assert messages.classify_quota_reserved(reason, text, shapes) == messages._classify(reason, text, shapes)
        assert messages.classify_quota_reserved(reason, text, shapes) == messages._classify(reason, text, shapes)
    unhashable = [({"cpu"}, ["a"])]  # groups that cannot be a key are read as they are
    got = messages.classify_quota_reserved("Pending", message, unhashable)
    assert got == messages._classify("Pending", message, unhashable)


def test_quantities_written_twice_read_the_same() -> None:
    for value, resource in (
        (Decimal("1.5"), "cpu"), (Decimal("0.5"), "cpu"), (Decimal(1536 * 1024**2), "memory"),
        (Decimal(96 * 1024**3), "memory"), (Decimal(3), "nvidia.com/gpu"), (Decimal("0.0005"), "cpu"),
    ):  # fmt: skip
        assert human(value, resource) == human.__wrapped__(value, resource)
        assert format_quantity(value, resource) == format_quantity.__wrapped__(value, resource)


def _busy_history(cq: str = "cq-0") -> History:
    """Twenty admissions over the last day, one an hour, each after 20 to 60 minutes of waiting."""
    found = []
    for hour in range(1, 21):
        admitted = NOW - timedelta(hours=hour, minutes=hour % 7)
        wait = timedelta(minutes=20 + (hour * 13) % 40)
        found.append(Observed(cq, "a100", admitted - wait, admitted, Decimal(1 + hour % 3), f"uid-{hour}"))
    return History(tuple(found))


def _queue_view(*flavors: str) -> Snapshot:
    """team-a's view of cq-0, 4 GPUs of each flavor (a100 by default): one job running, w0-w2 waiting."""
    names = flavors or ("a100",)
    objects = base(
        gpu_queue("cq-0", *((name, 4) for name in names)),
        namespaces=("team-a",),
        flavors=[resource_flavor(name, labels={"gpu": name}) for name in names],
    )
    objects += [lq("gpus", "team-a", "cq-0")]
    objects += running("big", "team-a", "cq-0", gpus_per_pod=4)
    for n in range(3):
        objects += waiting_job(f"w{n}", "team-a", gpus_per_pod=2, minutes=40 - 10 * n)
    return cache_of(objects).view("team-a", [])


def test_a_queue_s_estimator_is_kept_for_the_minute_with_its_history_and_waiting_jobs() -> None:
    view = _queue_view()
    history = _busy_history()
    first = estimators.estimator_for(view, history, "cq-0", "a100", NOW + timedelta(seconds=5))
    assert estimators.estimator_for(view, history, "cq-0", "a100", NOW + timedelta(seconds=59)) is first
    assert first.now == NOW == estimators.estimate_as_of(NOW + timedelta(seconds=59))  # as of the minute
    assert estimators.estimator_for(view, history, "cq-0", "a100", NOW + timedelta(seconds=60)) is not first
    again = estimators.estimator_for(view, history, "cq-0", "a100", NOW)
    assert again is first  # the minute before kept beside the next one
    # The recorder's next History holding the same admissions of this queue (admissions elsewhere): the same.
    elsewhere = Observed("cq-9", "a100", NOW - timedelta(hours=2), NOW - timedelta(hours=1), Decimal(1), "uid-x")
    assert estimators.estimator_for(view, History((*history.admissions, elsewhere)), "cq-0", "a100", NOW) is again
    one_more = Observed("cq-0", "a100", NOW - timedelta(hours=2), NOW - timedelta(minutes=30), Decimal(1), "uid-y")
    assert estimators.estimator_for(view, History((*history.admissions, one_more)), "cq-0", "a100", NOW) is not again
    assert (
        estimators.estimator_for(view, History(history.admissions), "cq-0", "a100", NOW) is not again
    )  # the kept one is now the last History's
    fresh = Estimator(history, cluster_queue="cq-0", flavor="a100", now=NOW, pending=waiting(view, "cq-0"))
    for position in (1, 2, 3, 7):
        for amount in (None, Decimal(1), Decimal(2), Decimal(8)):
            assert again.eta(position, amount=amount) == fresh.eta(position, amount=amount)


def _two_flavor_queue() -> tuple[Snapshot, History]:
    """cq-0 with flavors a100 (twenty admissions in the last day) and h100 (two), three jobs waiting."""
    thin = tuple(
        Observed("cq-0", "h100", NOW - timedelta(hours=h, minutes=30), NOW - timedelta(hours=h), Decimal(2), f"h-{h}")
        for h in (3, 5)
    )
    return _queue_view("a100", "h100"), History((*_busy_history().admissions, *thin))


def test_a_flavor_without_enough_admissions_of_its_own_shares_the_queue_s_estimator() -> None:
    view, history = _two_flavor_queue()
    assert history_module.flavor_counts(history, "cq-0", "a100", NOW) == (20, 22)
    assert history_module.flavor_counts(history, "cq-0", "h100", NOW) == (2, 22)  # < MIN_ADMISSIONS: the queue's
    queue = estimators.estimator_for(view, history, "cq-0", "", NOW)
    assert estimators.estimator_for(view, history, "cq-0", "h100", NOW) is queue
    own = estimators.estimator_for(view, history, "cq-0", "a100", NOW)
    assert own is not queue and own.scope == "flavor" and queue.scope == "cluster-queue"
    pending = waiting(view, "cq-0")
    for flavor, kept in (("h100", queue), ("a100", own), ("", queue)):
        fresh = Estimator(history, cluster_queue="cq-0", flavor=flavor, now=NOW, pending=pending)
        assert (fresh.scope, fresh.admissions, fresh.window_hours) == (kept.scope, kept.admissions, kept.window_hours)
        for position in (1, 2, 3, 7):
            for amount in (None, Decimal(2), Decimal(8)):
                assert kept.eta(position, amount=amount) == fresh.eta(position, amount=amount)


def test_a_flavor_holding_all_of_its_queue_s_admissions_shares_the_queue_s_replay_under_its_own_scope() -> None:
    view, history = _queue_view(), _busy_history()
    assert history_module.flavor_counts(history, "cq-0", "a100", NOW) == (20, 20)
    queue = estimators.estimator_for(view, history, "cq-0", "", NOW)
    twin = estimators.estimator_for(view, history, "cq-0", "a100", NOW)
    assert (
        twin is not queue and twin._replay is queue._replay and (twin.scope, queue.scope) == ("flavor", "cluster-queue")
    )
    pending = waiting(view, "cq-0")
    for flavor, kept in (("a100", twin), ("", queue)):
        fresh = Estimator(history, cluster_queue="cq-0", flavor=flavor, now=NOW, pending=pending)
        assert (fresh.scope, fresh.admissions, fresh.window_hours) == (kept.scope, kept.admissions, kept.window_hours)
        for position in (1, 2, 3, 7):
            for amount in (None, Decimal(1), Decimal(2), Decimal(8)):
                assert kept.eta(position, amount=amount) == fresh.eta(position, amount=amount)


def test_prepare_makes_ready_what_a_question_about_the_queue_reads() -> None:
    """The warmer's step: every flavor's Estimator of a queue with jobs waiting, this minute's and the next's
    (made ahead); a question then makes none; a queue with nobody waiting gets none."""
    view, history = _two_flavor_queue()
    assert estimators.prepare(view, "cq-0", history=history, now=NOW + timedelta(seconds=50)) == 2  # queue's, a100's
    assert estimators.prepare(view, "cq-0", history=history, now=NOW + timedelta(seconds=51)) == 0
    table = view.memos()[estimators._ESTIMATORS]
    assert isinstance(table, dict) and set(table) == {("cq-0", ""), ("cq-0", "a100"), ("cq-0", "h100")}
    ahead = estimators.next_estimate_at(NOW + timedelta(seconds=50))
    assert ahead == NOW + timedelta(seconds=60)
    assert estimators.prepare(view, "cq-0", history=history, now=ahead) == 2
    kept = {key: entries for key, entries in table.items()}
    assert all(len(entries) == 2 for entries in kept.values())  # this minute's and the next's
    _, answer = explain_with_outlook(
        view, Query("team-a", "w2", "Job"), now=NOW + timedelta(seconds=59), history=history
    )
    assert answer.eta is not None and answer.eta.status == "estimate"
    _, later = explain_with_outlook(view, Query("team-a", "w2", "Job"), now=ahead, history=history)  # made ahead
    fresh, _ = _two_flavor_queue()  # nothing kept: made by the question
    assert later.eta == explain_with_outlook(fresh, Query("team-a", "w2", "Job"), now=ahead, history=history)[1].eta
    assert table == kept and all(table[key] is kept[key] for key in kept)  # nothing made by the questions
    made = estimators.estimator_for(view, history, "cq-0", "a100", ahead + timedelta(seconds=5))
    assert made is kept[("cq-0", "a100")][1].estimator
    assert estimators.prepare(view, "cq-other", history=history, now=NOW) == 0  # no such queue, nobody waiting
    assert not view.pending_in("cq-other")


@pytest.mark.parametrize("history", [_busy_history(), dense_admissions()], ids=["sparse", "dense"])
def test_near_from_samples_grouped_once_is_near_from_all_samples(history: History) -> None:
    """Whether a question's amount has enough samples of about its size is counted by bisection, and only the
    positions it reads are filtered: the same waits as `near` over every sample."""
    pending = tuple(Waiting(NOW - timedelta(minutes=m), Decimal(m % 4 + 1)) for m in (5, 25, 50, 95))
    estimator = Estimator(history, cluster_queue="cq-0", flavor="a100", now=NOW, pending=pending)
    assert estimator.samples
    amounts = (None, Decimal(0), Decimal(1), Decimal(2), Decimal("2.5"), Decimal(3), Decimal(8), Decimal(40))
    for position in range(1, 14):
        for amount in amounts:
            assert estimator._near(position, amount) == near(estimator.samples, position, amount=amount)
    if len(estimator.samples) > 400:  # the dense one: some amounts have a pool of their own, 40 GPUs none
        replay = estimator._replay
        assert replay is not None and estimator._alike
        # A pool per range of the jobs' amounts (1, 2, 3, 8 admitted; 2, 3, 4 waiting): 2.5 (1.25 to 5) and 3
        # (1.5 to 6) span 2, 3 and 4: one pool.
        assert replay.levels(Decimal("1.25"), Decimal(5)) == replay.levels(Decimal("1.5"), Decimal(6)) == (1, 4)
        assert replay.levels(Decimal(20), Decimal(80)) not in estimator._alike
        assert len(estimator._alike) == len({replay.levels(a / 2, a * 2) for a in amounts[2:-1]})


def test_what_an_estimator_keeps_is_out_of_the_garbage_collector_s_sight() -> None:
    """An Estimator is kept per queue, with thousands of samples: its replay keeps a few tuples of plain numbers
    (not a tuple per moment or per sample, each of which would count towards the next young collection; not a
    list, which every collection of its generation walks number by number), which a collection stops tracking,
    and so are the samples it hands out (a named tuple or a dataclass stays tracked)."""
    pending = tuple(Waiting(NOW - timedelta(minutes=m), Decimal(2)) for m in (5, 25, 50))
    estimator = Estimator(dense_admissions(), cluster_queue="cq-0", flavor="a100", now=NOW, pending=pending)
    for position in (1, 2, 3):
        for amount in (None, Decimal(2)):  # 2 GPUs: a pool of its own
            estimator.eta(position, amount=amount)
    replay = estimator._replay
    assert replay is not None and replay._columns and replay._waiting and estimator._alike
    kept: list[object] = [replay._times, replay._spans, replay._ends, replay._waiting, replay._levels, replay._level_of]
    kept += [replay._starts, replay.amounts, *replay._columns.values(), *replay._waits.values()]
    kept += [waits for pool in estimator._alike.values() for waits in pool.kept.values()]
    kept += [each for pair in (*replay._columns.values(), *replay._waits.values()) for each in pair]
    assert {type(each) for each in kept} == {tuple}  # a few, however many moments and samples
    assert len(replay._waiting) == replay._starts[-1] > len(replay._times) > 1
    kept += estimator.samples
    for _ in range(5):  # a collection untracks a tuple whose items are untracked by then: a level or more each
        gc.collect()
    assert not any(gc.is_tracked(each) for each in kept)
    assert not any(gc.is_tracked(inner) for each in kept if isinstance(each, tuple) for inner in each)
    assert not any(gc.is_tracked(pool.alike) for pool in estimator._alike.values())  # bytes: never tracked


def _calibration_as_asked_one_by_one(estimator: Estimator) -> list[calibration_module.Test]:
    """The calibration questions as `Estimator._tests` first asked them: every origin's samples found by a scan,
    and `near(alike(known, amount), position)` for each job asked; each kept as its waits' curve."""
    tests = []
    end = estimator.now.timestamp()
    for hour in range(1, estimator.origins + 1):
        origin = end - hour * 3600
        asked = [s for s in estimator.samples if abs(s[3] - origin) < 1]
        known = calibration_module.as_of(estimator.samples, origin)
        for sample in asked:
            values = near(kmcurve.alike(known, sample[2]), sample[0])
            if len(values) >= kmcurve.MIN_SAMPLES:
                xs, cdf = kmcurve.km_curve(values)
                tests.append((tuple(xs), tuple(cdf), sample[1], sample[4]))
    return tests


@pytest.mark.parametrize("history", [_busy_history(), dense_admissions()], ids=["sparse", "dense"])
def test_the_calibration_grouped_once_per_origin_asks_what_it_asked_job_by_job(history: History) -> None:
    pending = tuple(Waiting(NOW - timedelta(minutes=m), Decimal(m % 4 + 1)) for m in (5, 25, 50, 95, 130, 200))
    estimator = Estimator(history, cluster_queue="cq-0", flavor="", now=NOW, pending=pending)
    expected = _calibration_as_asked_one_by_one(estimator)
    got = estimator._tests()
    # The same curves: the same waits (in another order, which a curve does not depend on), the same waits left.
    assert got == expected and len(got) > 0
    reference = Estimator(history, cluster_queue="cq-0", flavor="", now=NOW, pending=pending)
    reference._calibration.tests[:] = expected  # its factor from the questions asked one by one
    reference._calibration.asking = iter(())
    assert [estimator.factor(c) for c in (50, 80, 95)] == [reference.factor(c) for c in (50, 80, 95)]


def test_a_curve_does_not_depend_on_the_order_of_its_waits() -> None:
    values = [(float(w % 17) * 60, w % 3 == 0) for w in range(60)]
    assert kmcurve.km_curve(values) == kmcurve.km_curve(values[::-1]) == kmcurve.km_curve(sorted(values))


def _run(steps: list[Iterator[None]]) -> int:
    """Drive calibration steps to their end, as the warmer and a question's service do (without the turns)."""
    count = 0
    for calibration in steps:
        for _ in calibration:
            count += 1
    return count


def test_calibrations_are_due_ahead_only_where_a_question_read_the_calibration() -> None:
    """The calibration costs tens of ms a queue: made ahead (the warmer) only where the last Estimator's was
    read (its questions got estimates), else left to the question that reads it."""
    view, history = _two_flavor_queue()
    assert estimators.calibrations(view, "cq-0", history=history, now=NOW) == []  # made, none due
    table = view.memos()[estimators._ESTIMATORS]
    assert isinstance(table, dict)
    assert not any(kept.estimator.calibrated for entries in table.values() for kept in entries)
    answer = explain_with_outlook(view, Query("team-a", "w2", "Job"), now=NOW, history=history)[1]
    assert answer.eta is not None and answer.eta.status == "estimate" and answer.eta.scope == "flavor"
    assert table[("cq-0", "a100")][0][4].calibrated and not table[("cq-0", "")][0][4].calibrated
    assert estimators.prepare(view, "cq-0", history=history, now=NOW + timedelta(seconds=60)) == 2  # not calibrated
    steps = estimators.calibrations(view, "cq-0", history=history, now=NOW + timedelta(seconds=60))
    assert len(steps) == 1 and _run(steps) > 0
    ahead = {key: entries[-1][4] for key, entries in table.items()}
    assert all(estimator.now == NOW + timedelta(seconds=60) for estimator in ahead.values())
    assert ahead[("cq-0", "a100")].calibrated
    assert not ahead[("cq-0", "")].calibrated and ahead[("cq-0", "h100")] is ahead[("cq-0", "")]
    assert estimators.calibrations(view, "cq-0", history=history, now=NOW + timedelta(seconds=60)) == []


def test_calibrations_made_ahead_lapse_an_hour_after_the_last_question_that_read_one() -> None:
    """Made ahead each minute while questions read them; an hour after the last, no longer (a queue asked
    about once is not calibrated every minute for ever)."""
    view, history = _two_flavor_queue()
    explain_with_outlook(view, Query("team-a", "w2", "Job"), now=NOW, history=history)
    made = []
    for minute in range(1, 63):
        made.append(_run(estimators.calibrations(view, "cq-0", history=history, now=NOW + timedelta(minutes=minute))))
        estimators.forget_before(view, NOW + timedelta(minutes=minute))
    assert all(made[: estimators.CALIBRATED_AHEAD_FOR // timedelta(minutes=1)]) and not any(made[61:])
    _, answer = explain_with_outlook(
        view, Query("team-a", "w2", "Job"), now=NOW + timedelta(minutes=62), history=history
    )
    assert answer.eta is not None and answer.eta.status == "estimate"  # a question makes it again: due again
    ahead = estimators.calibrations(view, "cq-0", history=history, now=NOW + timedelta(minutes=63))
    assert len(ahead) == 1 and _run(ahead) > 0


def test_a_question_s_calibrations_are_those_of_its_queue_s_estimators_that_state_an_interval() -> None:
    view, history = _two_flavor_queue()
    traced = explain(view, Query("team-a", "w2", "Job"), now=NOW)  # the walk alone: no outlook yet
    steps = estimators.calibrations_for(view, traced, history=history, now=NOW)
    assert len(steps) == 2  # the queue's and a100's (h100 shares the queue's): it reads one of them
    assert _run(steps) > 0
    table = view.memos()[estimators._ESTIMATORS]
    assert isinstance(table, dict)
    assert all(entries[0][4].calibrated for entries in table.values())
    answer = outlook.outlook_of(view, traced, history=history, now=NOW)
    fresh_view, _ = _two_flavor_queue()
    assert (traced, answer) == explain_with_outlook(fresh_view, Query("team-a", "w2", "Job"), now=NOW, history=history)
    assert estimators.calibrations_for(view, traced, history=history, now=NOW) == []  # made: nothing left
    # Thin history: no Estimator gives estimates, nothing to calibrate; a job not waiting: no ETA.
    assert estimators.calibrations_for(view, traced, history=History(()), now=NOW) == []
    big = explain(view, Query("team-a", "big", "Job"), now=NOW)
    assert estimators.calibrations_for(view, big, history=history, now=NOW) == []


def _stepped(estimator: Estimator, confidence: int, stop_after: int) -> int:
    """Drive `stop_after` steps of the calibration, then let `factor` finish it; how many steps were run."""
    taken = 0
    for _ in estimator.calibration(confidence):
        taken += 1
        if taken == stop_after:
            break
    return taken


@pytest.mark.parametrize("stop_after", [1, 2, 5, 1000])
def test_a_calibration_made_in_steps_and_resumed_finds_the_factor_made_at_once(stop_after: int) -> None:
    pending = tuple(Waiting(NOW - timedelta(minutes=m), Decimal(m % 4 + 1)) for m in (5, 25, 50, 95, 130, 200))
    whole = Estimator(dense_admissions(), cluster_queue="cq-0", flavor="", now=NOW, pending=pending)
    factors = [whole.factor(c) for c in (50, 80, 95)]
    counted = Estimator(dense_admissions(), cluster_queue="cq-0", flavor="", now=NOW, pending=pending)
    steps = sum(1 for _ in counted.calibration(80))
    assert steps > 5 and counted.factor(80) == factors[1]  # an origin's questions, intervals, factors tried
    stepped = Estimator(dense_admissions(), cluster_queue="cq-0", flavor="", now=NOW, pending=pending)
    assert stepped.estimates and not stepped.calibrated and not stepped.calibrating
    taken = _stepped(stepped, 80, stop_after)
    assert taken == min(stop_after, steps)
    assert stepped.calibrating == (taken < steps)  # begun and left, or run to its end
    assert stepped.calibration(80) is stepped.calibration(80) or taken == steps  # resumed by whoever drives it
    assert [stepped.factor(c) for c in (50, 80, 95)] == factors
    assert not stepped.calibrating and list(stepped.calibration(80)) == []
    assert stepped._calibration.tests == whole._calibration.tests


def test_twins_share_their_calibration() -> None:
    view, history = _queue_view(), _busy_history()
    queue = estimators.estimator_for(view, history, "cq-0", "", NOW)
    twin = estimators.estimator_for(view, history, "cq-0", "a100", NOW)
    assert twin.calibration() is queue.calibration()
    queue.factor(eta_module.CONFIDENCE)
    assert twin.calibrated and list(twin.calibration()) == []


@pytest.mark.parametrize("history", [_busy_history(), dense_admissions(), History(())], ids=["sparse", "dense", "none"])
def test_an_estimator_reads_its_factor_exactly_where_its_estimate_states_an_interval(history: History) -> None:
    """What a question's calibration is made in slices for (`estimators.calibrations_for`): no more, no less."""
    pending = tuple(Waiting(NOW - timedelta(minutes=m), Decimal(m % 4 + 1)) for m in (5, 25, 50, 95, 130, 200))
    estimator = Estimator(history, cluster_queue="cq-0", flavor="", now=NOW, pending=pending)
    seen = set()
    for position in (1, 2, 3, 7, 40, 400):
        for amount in (None, Decimal(1), Decimal(2), Decimal(8), Decimal(64)):
            reads = estimator.reads_factor(position, amount)
            assert reads == (estimator.eta(position, amount=amount).status == eta_module.ESTIMATE)
            seen.add(reads)
    assert seen == ({False} if not history.admissions else {True, False} if len(seen) > 1 else seen)


def test_an_answer_without_its_eta_reads_no_queue_s_history() -> None:
    """The admins' view (bot.admin.view) shows no ETA: its answers make no Estimator (no replay, no calibration,
    whose steps would all run at once there) and are the full answer's but for the ETA."""
    view, history = _two_flavor_queue()
    without = explain_with_outlook(view, Query("team-a", "w2", "Job"), now=NOW, history=history, eta=False)
    assert without[1].eta is None and not view.memos().get(estimators._ESTIMATORS)
    full = explain_with_outlook(_two_flavor_queue()[0], Query("team-a", "w2", "Job"), now=NOW, history=history)
    assert full[1].eta is not None and without == (full[0], replace(full[1], eta=None))


def test_the_admins_view_makes_no_estimator() -> None:
    cache = cache_of(_busy_queue_objects())
    view = admin_view(cache, now=NOW, explain=explain_job)
    assert view.groups and not cache.memos().get(estimators._ESTIMATORS)


def _busy_queue_objects() -> list[dict[str, object]]:
    """cq-0 with a job running, three waiting and twelve admitted over the last hours (an ETA's history)."""
    objects = base(gpu_queue("cq-0", ("a100", 4)), namespaces=("team-a",))
    objects += [lq("gpus", "team-a", "cq-0")]
    objects += running("big", "team-a", "cq-0", gpus_per_pod=4)
    for n in range(12):
        objects += running(f"done-{n}", "team-a", "cq-0", gpus_per_pod=0, minutes=30 + 20 * n)
    for n in range(3):
        objects += waiting_job(f"w{n}", "team-a", gpus_per_pod=2, minutes=40 - 10 * n)
    return objects
