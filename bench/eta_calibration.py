"""Calibration of the ETA (bot.forecast.eta) on replayed queues: does the stated share hold?

    python bench/eta_calibration.py --days 12 --seed 7 --format json

A ClusterQueue of C GPUs is simulated under known distributions: Poisson arrivals, job sizes (GPUs) drawn
from a fixed mix, run times lognormal (or exponential); Kueue admits in queue order (StrictFIFO: the head
waits until it fits; BestEffortFIFO: any queued job that fits is admitted, in order). Every `--every`
simulated minutes after a warm-up of one window (24 h), each job waiting at that moment asks "when will it
run?". The estimator sees only what the bot would have seen by then: the admissions of the last 24 h and
the jobs waiting at that moment (when each was queued, its size: what the snapshot shows). The
true answer is the job's admission time in the simulation. Per confidence level (50, 80, 90 %) it reports
how often the true wait fell inside the stated interval, and the same for two baselines measured in the
same run on the same questions:

  median      the median of past waits (the past waits' central interval at the same level)
  position    position × mean run time (of the jobs seen finishing); a point, so its interval is the point
              ± the same relative half-width as ours on that question

plus each method's median absolute error (ours: the median of its samples) and the share of questions it
answered (ours says "no estimate yet" on thin history). Pure Python, one core, deterministic for a seed.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import statistics
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.forecast.eta import ESTIMATE, Estimator
from bot.forecast.history import WINDOW, History, Observed, Waiting
from bot.notify.history import MAX_PER_QUEUE, RETENTION

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
LEVELS = (50, 80, 90)


@dataclass(frozen=True)
class Scenario:
    name: str
    capacity: int  # GPUs of the ClusterQueue
    load: float  # offered load: arrival rate x mean size x mean run time / capacity
    sizes: tuple[tuple[int, float], ...]  # (GPUs, probability)
    run_minutes: float  # mean run time
    run_sigma: float  # lognormal sigma (0: exponential)
    strategy: str  # StrictFIFO | BestEffortFIFO


SCENARIOS = (
    Scenario("strict-fifo-lognormal", 16, 0.85, ((1, 0.5), (2, 0.3), (4, 0.2)), 40, 0.8, "StrictFIFO"),
    Scenario("best-effort-exponential", 8, 0.9, ((1, 0.6), (2, 0.3), (4, 0.1)), 25, 0.0, "BestEffortFIFO"),
    Scenario("strict-fifo-bursty-sizes", 32, 0.8, ((1, 0.4), (8, 0.4), (16, 0.2)), 60, 1.0, "StrictFIFO"),
)


@dataclass
class Job:
    id: int
    size: int
    run: float  # seconds
    queued: float
    admitted: float | None = None
    finished: float | None = None


@dataclass
class Run:
    jobs: list[Job] = field(default_factory=list)


def simulate(scenario: Scenario, days: float, rng: random.Random) -> list[Job]:
    """An event-driven run of the ClusterQueue; every job's queued/admitted/finished times."""
    mean_size = sum(size * p for size, p in scenario.sizes)
    rate = scenario.load * scenario.capacity / (mean_size * scenario.run_minutes * 60)  # arrivals per second
    horizon = days * 86400
    sizes, weights = zip(*scenario.sizes, strict=True)
    jobs: list[Job] = []
    free = scenario.capacity
    queue: deque[Job] = deque()
    running: list[tuple[float, int]] = []  # (finish time, job id)
    now = 0.0
    next_arrival = rng.expovariate(rate)
    while now < horizon or running:
        next_finish = running[0][0] if running else float("inf")
        if next_arrival <= next_finish and next_arrival < horizon:
            now = next_arrival
            if scenario.run_sigma > 0:
                mu = 0.0
                sigma = scenario.run_sigma
                # mean of lognormal = exp(mu + sigma^2/2): scale it to the scenario's mean
                run = rng.lognormvariate(mu, sigma) * scenario.run_minutes * 60 / pow(2.718281828, sigma * sigma / 2)
            else:
                run = rng.expovariate(1 / (scenario.run_minutes * 60))
            job = Job(len(jobs), rng.choices(sizes, weights)[0], run, now)
            jobs.append(job)
            queue.append(job)
            next_arrival = now + rng.expovariate(rate)
        elif running:
            now, finished_id = heapq.heappop(running)
            finished = jobs[finished_id]
            finished.finished = now
            free += finished.size
        else:
            break
        # admit, in queue order
        if scenario.strategy == "StrictFIFO":
            while queue and queue[0].size <= free:
                job = queue.popleft()
                free -= job.size
                job.admitted = now
                heapq.heappush(running, (now + job.run, job.id))
        else:
            kept: deque[Job] = deque()
            for job in queue:
                if job.size <= free:
                    free -= job.size
                    job.admitted = now
                    heapq.heappush(running, (now + job.run, job.id))
                else:
                    kept.append(job)
            queue = kept
    return jobs


def at(seconds: float) -> datetime:
    return EPOCH + timedelta(seconds=seconds)


@dataclass
class Tally:
    asked: int = 0
    answered: int = 0
    inside: dict[int, int] = field(default_factory=lambda: {level: 0 for level in LEVELS})
    errors: list[float] = field(default_factory=list)
    widths: dict[int, list[float]] = field(default_factory=lambda: {level: [] for level in LEVELS})

    def report(self) -> dict[str, object]:
        answered = max(1, self.answered)
        return {
            "questions": self.asked,
            "answered_share": round(self.answered / max(1, self.asked), 3),
            "coverage": {str(level): round(self.inside[level] / answered, 3) for level in LEVELS},
            "median_abs_error_min": round(statistics.median(self.errors) / 60, 1) if self.errors else None,
            "median_width_min": {
                str(level): round(statistics.median(w) / 60, 1) if w else None for level, w in self.widths.items()
            },
        }


def calibrate(scenario: Scenario, days: float, every_minutes: float, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    jobs = simulate(scenario, days, rng)
    ours, median_baseline, position_baseline = Tally(), Tally(), Tally()
    window = WINDOW.total_seconds()
    kept = RETENTION.total_seconds()  # what the bot's history keeps (bot/notify/history.py)
    step = every_minutes * 60
    moment = window
    end = days * 86400
    while moment < end:
        seen = [j for j in jobs if j.admitted is not None and moment - window <= j.admitted <= moment]
        retained = [j for j in jobs if j.admitted is not None and moment - kept <= j.admitted <= moment]
        retained = sorted(retained, key=lambda j: j.admitted or 0)[-MAX_PER_QUEUE:]
        history = History(
            tuple(Observed("cq", "gpu", at(j.queued), at(j.admitted or 0), Decimal(j.size)) for j in retained)
        )
        waiting = sorted(
            (j for j in jobs if j.queued <= moment and (j.admitted is None or j.admitted > moment)),
            key=lambda j: (j.queued, j.id),
        )
        pending = tuple(Waiting(at(j.queued), Decimal(j.size)) for j in waiting)  # what the snapshot shows
        estimator = Estimator(history, cluster_queue="cq", flavor="gpu", now=at(moment), pending=pending)
        past_waits = [(j.admitted or 0) - j.queued for j in seen]
        finished_runs = [j.run for j in jobs if j.finished is not None and moment - window <= j.finished <= moment]
        mean_run = statistics.fmean(finished_runs) if finished_runs else None
        for position, job in enumerate(waiting, start=1):
            if job.admitted is None:
                continue  # never admitted within the run: no truth to compare with
            truth = job.admitted - moment
            ours.asked += 1
            median_baseline.asked += 1
            position_baseline.asked += 1
            etas = {level: estimator.eta(position, confidence=level, amount=Decimal(job.size)) for level in LEVELS}
            if all(e.status == ESTIMATE for e in etas.values()):
                ours.answered += 1
                point = estimator.median(position, Decimal(job.size)) or 0.0
                ours.errors.append(abs(point - truth))
                for level, eta in etas.items():
                    low, high = eta.low_seconds or 0, eta.high_seconds or 0
                    ours.inside[level] += low <= truth <= high
                    ours.widths[level].append(high - low)
                    if mean_run is not None:
                        guess = position * mean_run
                        mid = (low + high) / 2 or 1
                        half = (high - low) / 2 / mid * guess
                        position_baseline.inside[level] += guess - half <= truth <= guess + half
                        position_baseline.widths[level].append(2 * half)
                if mean_run is not None:
                    position_baseline.answered += 1
                    position_baseline.errors.append(abs(position * mean_run - truth))
            if len(past_waits) >= 2:
                median_baseline.answered += 1
                median_baseline.errors.append(abs(statistics.median(past_waits) - truth))
                ordered = sorted(past_waits)
                for level in LEVELS:
                    tail = (1 - level / 100) / 2
                    low = ordered[int(tail * (len(ordered) - 1))]
                    high = ordered[int((1 - tail) * (len(ordered) - 1))]
                    median_baseline.inside[level] += low <= truth <= high
                    median_baseline.widths[level].append(high - low)
        moment += step
    admitted = [j for j in jobs if j.admitted is not None]
    return {
        "scenario": scenario.name,
        "strategy": scenario.strategy,
        "capacity_gpus": scenario.capacity,
        "load": scenario.load,
        "jobs": len(jobs),
        "mean_wait_min": round(statistics.fmean((j.admitted or 0) - j.queued for j in admitted) / 60, 1),
        "ours": ours.report(),
        "baseline_median_of_past_waits": median_baseline.report(),
        "baseline_position_x_mean_run": position_baseline.report(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--days", type=float, default=12.0, help="simulated days per scenario (default 12)")
    parser.add_argument("--every", type=float, default=30.0, help="minutes between questions (default 30)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--scenario", action="append", help="run only these (default: all)")
    parser.add_argument("--format", choices=("json", "text"), default="text")
    args = parser.parse_args(argv)
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    if not chosen:
        parser.error(f"no such scenario; known: {', '.join(s.name for s in SCENARIOS)}")
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    results = [calibrate(s, args.days, args.every, args.seed + i) for i, s in enumerate(chosen)]
    report = {
        "results": results,
        "days": args.days,
        "every_minutes": args.every,
        "seed": args.seed,
        "seconds": round(time.perf_counter() - started, 1),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    if args.format == "json":
        print(json.dumps(report, indent=2))
    else:
        for result in results:
            print(f"{result['scenario']}: {result['jobs']} jobs, mean wait {result['mean_wait_min']} min")
            for method in ("ours", "baseline_median_of_past_waits", "baseline_position_x_mean_run"):
                r = result[method]
                assert isinstance(r, dict)
                print(
                    f"  {method:32} answered {r['answered_share']:.0%}  coverage {r['coverage']}  "
                    f"MAE {r['median_abs_error_min']} min  width {r['median_width_min']}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
