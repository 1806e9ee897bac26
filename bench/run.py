"""Benchmark of the informer cache against the fake API server, at cluster sizes up to 50,000 Workloads.

    python bench/run.py --workloads 50000 --queues 500 --owners 2000 --format json
    python bench/run.py --sweep --format text     # trace p50/p99 from 1,000 to 200,000 Workloads (bench/sweep.py)

The fake Kubernetes API server runs in a subprocess (this same file with --serve), so the resident memory
measured here is the cache's own. The subprocess fills the fake with N Workloads (60 % pending, 40 %
admitted, 20 pod-set shapes, 3 priorities) over Q ClusterQueues (10 cohorts), one LocalQueue each, in
max(10, Q/10) namespaces, 4 ResourceFlavors and 3 WorkloadPriorityClasses; the first 200 objects of each
kind are checked against Kueue's CRDs by the fake (--validate all: every one; the generator makes every
object of a kind alike), the rest bulk-loaded. The cache freezes the garbage collector once synced, as in
production (--no-freeze-gc: not). Then this process measures:

  sync_seconds            from ClusterCache.start() until every informer has synced
  rss_bytes_per_workload  growth of this process's resident memory over the sync (after gc and
                          malloc_trim), divided by N
  trace_p50_ms/p99_ms     a question about a random pending Workload, as the bot answers it: explain_job
                          (OnDemand.snapshot_for(), the detached view, + explain()), position included;
                          requests_per_question counts the API requests those questions made. Between two
                          questions the loop turns once, as a server's does while its answer is posted:
                          the young collection the bot asks for then (bot.pacing) runs there;
                          between_gc_collections, between_gc_ms (total), between_gc_longest_ms report it,
                          between_gc_freezes: those that froze what was alive (a full collection due)
  render_p50_ms/p99_ms    rendering that answer for Slack (bot.slack.render: the summary and the details)
  floor_p50_us            the least an answer with a position costs, on the same Workloads in the same run:
                          the owner index lookup, two bisects (ClusterQueue and LocalQueue order), one
                          formatted line (bench/sweep.py: floor_once); trace_p50_over_floor and
                          question_p50_over_floor (trace + render) are multiples of it
  slack_p50_ms/p99_ms     a mention signed and POSTed to the real server app until its answer is recorded as
                          a threaded chat.postMessage at the Slack stand-in (bench/slack_phase.py);
                          slack_p50_over_floor; thread_hop_p50_ms/p99_ms: one hop to a worker thread
  watcher_*_cpu_seconds   the proactive-DM watcher over the synced cache, a real SQLite store, a recording
                          messenger (bench/watcher_phase.py): CPU per pass with nothing changed (steady) and
                          after 1 % of the Workloads changed (changed); loop_lag_max_ms: the event loop's
                          worst lag during any pass, seen by a probe coroutine. --owners M gives each
                          Workload one of M Slack users in its notify annotation (else nobody is told)
  trace_recorded_p50_ms/p99_ms  the same questions as the bot's server asks them, with the history its
                          recorder keeps once its first pass read the Workloads (bot.notify.history), on a cache of
                          their own filled in process from the same objects (every memo cold again); at the end
                          of the run (--no-recorded: not). recorded_admissions: that history's size
  live_p50_ms             the one-shot `explain` of the CLI on a live cluster: the same question answered by
                          reading the API (bot.kube.live.read_live), then explained (read alone:
                          live_read_p50_ms); live_reads_alone_p50_ms: the same requests, side by side, parsed,
                          nothing decoded, on the same questions (bench/live_phase.py); live_p50_over_reads_alone
  live_floor_ms           parsing and decoding the N Workloads once (no server time): what an answer that
                          decoded every Workload it read would cost at least
  events_per_second       K Workloads modified while the cache is cut off, then the time from the first
                          to the last of the K changes applied by the cache once it watches again;
                          events_cpu_us_each: this process's CPU (every thread) per change in that time
  calibration_question_ms the first question whose answer reads its queue's ETA calibration, asked as the bot
                          asks it (the calibration made in slices, bot.service.explaining), on queues replayed from
                          bench/eta_calibration.py (the generated cluster's history never gives an interval);
                          calibration_loop_lag_max_ms / _loop_hold_max_ms: the loop's worst lag and hold
                          meanwhile; calibration_at_once_ms: the same question answered at once (the baseline:
                          how long it held the loop before); the worst scenario's, each in `calibration`
                          (bench/calibration_phase.py; --no-calibration: not)
  gc_ms, gc_collections   time in the cyclic garbage collector and collections, per phase;
                          gc_collections_by_generation ([0, 1, 2] per phase) and gc_longest_ms (one pause)
  machine                 nproc, CPU model, Python, the JSON parser, the 1-minute load average at the
                          start and at the end
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot import pacing  # noqa: E402
from bot.forecast.history import History  # noqa: E402
from bot.kube.cache import ClusterCache  # noqa: E402
from bot.kube.client import KubeClient, load_api_client  # noqa: E402
from bot.kube.compact import Interner  # noqa: E402
from bot.kube.decode import decode  # noqa: E402
from bot.kube.informer import InformerSettings, parse_json  # noqa: E402
from bot.kube.ondemand import OnDemand  # noqa: E402
from bot.notify.history import Seen, observations  # noqa: E402
from bot.slack import render  # noqa: E402
from bot.trace.model import NOTIFY_ANNOTATION  # noqa: E402
from tests import raw_objects as raw  # noqa: E402
from tests.cache_support import wait_for, wait_ready  # noqa: E402

import calibration_phase  # noqa: E402
import live_phase  # noqa: E402
import slack_phase  # noqa: E402
import sweep  # noqa: E402
import watcher_phase  # noqa: E402

T0 = datetime(2026, 11, 3, 0, 0, tzinfo=UTC)
VALIDATED = 200  # objects of each kind the fake checks against the CRDs (--validate sample)
NOW = T0 + timedelta(days=1)
FLAVORS = ("cpu-a", "cpu-b", "gpu-a100", "gpu-h100")
PRIORITIES = (("low", 0), ("research", 100), ("production", 1000))
SHAPES = [
    (cpu, mem, count)
    for cpu in ("1", "2", "4", "8", "500m")
    for mem, count in (("4Gi", 1), ("16Gi", 2), ("64Gi", 4), ("8Gi", 8))
]


def _ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- the cluster ------------------------------------------------------------------------------------


def namespace_count(queues: int, namespaces: int | None = None) -> int:
    """Namespaces of the benchmark cluster: `namespaces`, or max(10, Q/10)."""
    return namespaces if namespaces else max(10, queues // 10)


def owner_of(i: int, owners: int) -> str | None:
    """The Slack user the i-th Workload's notify annotation names (one of `owners`; none when 0)."""
    return f"U{i % owners:08d}" if owners else None


def cluster(
    workloads: int,
    queues: int,
    seed: int,
    *,
    namespaces: int | None = None,
    owners: int = 0,
    queues_per_namespace: int = 0,
) -> list[dict[str, Any]]:
    """Every object of the benchmark cluster, deterministic for a seed. With `owners`, each Workload names
    one of them in its `kueue-bot.io/notify` annotation (round robin), so the watcher has someone to tell.
    LocalQueues: one per ClusterQueue, in the namespaces in turn; with `queues_per_namespace` L, L in each
    namespace instead (the k-th of namespace n feeds ClusterQueue (n * L + k) mod Q), and each Workload goes
    to a random namespace, then to one of its LocalQueues."""
    rng = random.Random(seed)
    names = [f"team-{i:03d}" for i in range(namespace_count(queues, namespaces))]
    objects: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}} for ns in names
    ]
    for flavor in FLAVORS:
        objects.append(raw.resource_flavor(raw.metadata(flavor), node_labels={"node.example.com/pool": flavor}))
    for name, value in PRIORITIES:
        objects.append(raw.priority_class(raw.metadata(name), value))
    for q in range(queues):
        flavor = FLAVORS[q % 2]
        quotas = [raw.quota("cpu", 64), raw.quota("memory", "256Gi")]
        reserved = [raw.flavor_usage(flavor, [("cpu", "60", None), ("memory", "240Gi", None)])]
        objects.append(
            raw.cluster_queue(
                raw.metadata(f"cq-{q:04d}"),
                [raw.resource_group(["cpu", "memory"], [raw.flavor_quotas(flavor, quotas)])],
                cohort=f"cohort-{q % 10}",
                selector={},
                strategy="BestEffortFIFO",
                status=raw.queue_status([raw.cluster_queue_active(_ts(T0))], reservation=reserved),
            )
        )
        if not queues_per_namespace:
            objects.append(_local_queue(f"lq-{q:04d}", names[q % len(names)], q))
    if queues_per_namespace:
        for n, ns in enumerate(names):
            for k in range(queues_per_namespace):
                objects.append(_local_queue(f"lq-{n:03d}-{k}", ns, (n * queues_per_namespace + k) % queues))
    for i in range(workloads):
        if queues_per_namespace:
            n, k = rng.randrange(len(names)), rng.randrange(queues_per_namespace)
            q = (n * queues_per_namespace + k) % queues
            objects.append(workload(i, q, names[n], rng, owner=owner_of(i, owners), local_queue=f"lq-{n:03d}-{k}"))
        else:
            q = rng.randrange(queues)
            objects.append(workload(i, q, names[q % len(names)], rng, owner=owner_of(i, owners)))
    return objects


def _local_queue(name: str, namespace: str, queue: int) -> dict[str, Any]:
    return raw.local_queue(raw.metadata(name, namespace), f"cq-{queue:04d}")


def workload(
    i: int, queue: int, namespace: str, rng: random.Random, *, owner: str | None = None, local_queue: str = ""
) -> dict[str, Any]:
    job = f"train-{i:06d}"
    job_uid = f"00000000-0000-4000-8000-{i:012d}"
    cpu, memory, count = SHAPES[rng.randrange(len(SHAPES))]
    priority_class, priority = PRIORITIES[rng.randrange(len(PRIORITIES))]
    created = T0 + timedelta(seconds=rng.randrange(86000))
    admitted = rng.random() < 0.4
    flavor = FLAVORS[queue % 2]
    since = _ts(created + timedelta(seconds=1))
    cluster_queue = f"cq-{queue:04d}"
    requests = {"cpu": cpu, "memory": memory}
    if admitted:
        usage = raw.pod_set_assignment("main", count, {"cpu": flavor, "memory": flavor}, requests)
        status = {
            "admission": raw.admission(cluster_queue, [usage]),
            "conditions": [raw.quota_reserved(cluster_queue, since), raw.admitted(since)],
        }
    else:
        message = (
            f"couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor {flavor}, "
            f"{cpu} more needed"
        )
        status = {
            "conditions": [raw.condition("QuotaReserved", "False", "Pending", message, since)],
            "resourceRequests": [raw.pod_set_requests("main", requests)],
        }
    template = {
        "metadata": {"labels": {"batch.kubernetes.io/job-name": job}},
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {"name": "main", "image": "registry.example.com/ml/trainer:1.4", "resources": {"requests": requests}}
            ],
        },
    }
    meta = raw.metadata(
        f"job-{job}-{i % 99991:05x}",
        namespace,
        uid=f"10000000-0000-4000-8000-{i:012d}",
        created=_ts(created),
        labels={raw.JOB_UID_LABEL: job_uid},
        annotations={NOTIFY_ANNOTATION: owner} if owner is not None else None,
        owners=[raw.owner_reference("batch/v1", "Job", job, job_uid)],
        finalizers=[raw.RESOURCE_IN_USE],
    )
    return raw.workload(
        meta,
        pod_sets=[raw.pod_set("main", count, template)],
        queue=local_queue or f"lq-{queue:04d}",
        priority=priority,
        priority_class=priority_class,
        active=True,
        status=status,
    )


# --- the server subprocess ----------------------------------------------------------------------------


def serve(args: argparse.Namespace) -> None:
    from tests.fakes.kube_api import FakeKubeAPI

    api = FakeKubeAPI(history_window=max(1000, args.events + 1000), bookmark_interval=1.0)
    server = api.start_in_thread()
    started = time.perf_counter()
    objects = cluster(args.workloads, args.queues, args.seed, namespaces=args.namespaces, owners=args.owners)
    # Every object the generator makes of a kind has the same shape: the first VALIDATED of each kind are
    # checked against the CRDs, the rest added without (--validate all: every one, as add() does).
    checked: dict[str, int] = {}
    unchecked = []
    for obj in objects:
        if args.validate == "all" or checked.get(obj["kind"], 0) < VALIDATED:
            api.add(obj)
            checked[obj["kind"]] = checked.get(obj["kind"], 0) + 1
        else:
            unchecked.append(obj)
    api.add_all(unchecked, validate=False)
    load_seconds = time.perf_counter() - started
    del objects, unchecked
    hello = {"url": api.url, "load_seconds": round(load_seconds, 2), "validated": sum(checked.values())}
    print(json.dumps(hello), flush=True)
    rng = random.Random(args.seed + 1)
    for line in sys.stdin:
        command, *rest = line.split()
        if command == "offline":
            server.go_offline()
        elif command == "online":
            server.go_online()
        elif command == "update":
            workloads = api.objects("Workload")
            count = min(int(rest[0]), len(workloads))
            for raw in rng.sample(workloads, count):
                raw["spec"]["priority"] += 1
                api.update(raw)
            print(json.dumps({"done": command, "count": count}), flush=True)
            continue
        elif command == "quit":
            break
        print(json.dumps({"done": command}), flush=True)
    server.stop()


class Server:
    def __init__(self, args: argparse.Namespace) -> None:
        command = [
            sys.executable,
            __file__,
            "--serve",
            "--workloads",
            str(args.workloads),
            "--queues",
            str(args.queues),
        ]
        command += ["--seed", str(args.seed), "--events", str(args.events), "--validate", args.validate]
        command += ["--owners", str(args.owners), "--namespaces", str(args.namespaces or 0)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        self.hello = self._answer()

    def _answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the fake API server subprocess ended")
        answer = json.loads(line)
        assert isinstance(answer, dict)
        return answer

    def tell(self, command: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self._answer()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.tell("quit")
        self.process.wait(timeout=30)


# --- measurements -------------------------------------------------------------------------------------


def rss_bytes() -> int:
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "python": platform.python_version(),
        "json": parse_json.__module__,
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }


class GcTimer:
    """Time spent in the cyclic garbage collector, per phase of the benchmark (gc.callbacks)."""

    def __init__(self) -> None:
        self.phase = "setup"
        self.seconds: dict[str, float] = {}
        self.collections: dict[str, int] = {}
        self.by_generation: dict[str, list[int]] = {}  # collections of generation 0, 1, 2
        self.longest: dict[str, float] = {}
        self._started = 0.0

    def __enter__(self) -> GcTimer:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, stage: str, info: dict[str, int]) -> None:
        if stage == "start":
            self._started = time.perf_counter()
            return
        took = time.perf_counter() - self._started
        self.seconds[self.phase] = self.seconds.get(self.phase, 0.0) + took
        self.collections[self.phase] = self.collections.get(self.phase, 0) + 1
        self.by_generation.setdefault(self.phase, [0, 0, 0])[info["generation"]] += 1
        self.longest[self.phase] = max(self.longest.get(self.phase, 0.0), took)

    def report(self) -> dict[str, Any]:
        return {
            "gc_ms": {phase: round(seconds * 1000, 1) for phase, seconds in self.seconds.items()},
            "gc_collections": dict(self.collections),
            "gc_collections_by_generation": dict(self.by_generation),
            "gc_longest_ms": {phase: round(seconds * 1000, 1) for phase, seconds in self.longest.items()},
        }


def live_floor_ms(workloads: int, queues: int, seed: int) -> float:
    """Parsing and decoding every Workload once, as a read-everything answer must (no server time), with
    the fastest parser and decoder we have (the cache's: orjson when installed, shared parts)."""
    lines = [json.dumps(o).encode() for o in cluster(workloads, queues, seed) if o["kind"] == "Workload"]
    parts = Interner()
    started = time.perf_counter()
    for line in lines:
        decode(parse_json(line), parts)
    return (time.perf_counter() - started) * 1000


async def measure(args: argparse.Namespace, timer: GcTimer) -> dict[str, Any]:
    load_before = round(os.getloadavg()[0], 2)
    server = Server(args)
    result: dict[str, Any] = {"workloads": args.workloads, "queues": args.queues, "initial": args.initial}
    result["fake_load_seconds"] = server.hello["load_seconds"]
    result["fake_validated"] = server.hello["validated"]
    with tempfile.TemporaryDirectory() as tmp:
        kubeconfig = Path(tmp) / "kubeconfig"
        kubeconfig.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [{"name": "fake", "cluster": {"server": server.hello["url"]}}],
                    "users": [{"name": "u", "user": {}}],
                    "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "u"}}],
                    "current-context": "fake",
                }
            )
        )
        api_client = load_api_client(str(kubeconfig))
        client = KubeClient(api_client)
        settings = InformerSettings(
            page_size=args.page_size, initial=args.initial, backoff_base=0.05, backoff_cap=0.5, request_timeout=600
        )
        cache = ClusterCache(client, clock=lambda: NOW, settings=settings, freeze_gc=args.freeze_gc)
        try:
            before = rss_bytes()
            cpu_before = time.process_time()
            started = time.perf_counter()
            timer.phase = "sync"
            await cache.start()
            await wait_ready(cache, timeout=3600)
            result["sync_seconds"] = round(time.perf_counter() - started, 3)
            result["sync_cpu_seconds"] = round(time.process_time() - cpu_before, 3)
            timer.phase = "after-sync"
            assert cache.counts()["Workload"] == args.workloads, cache.counts()
            result["rss_bytes_per_workload"] = round((rss_bytes() - before) / args.workloads)
            result["gc_frozen_objects"] = cache.gc_frozen
            result["gc_tracked_objects"] = len(gc.get_objects())
            if cache.interner is not None:
                result["shared_parts"] = {
                    "held": len(cache.interner),
                    "hits": cache.interner.hits,
                    "misses": cache.interner.misses,
                }
            timer.phase = "questions"
            sample = pending_sample(args, cache)
            result.update(await questions(args, cache, client, timer, sample))
            if args.slack_samples:
                timer.phase = "slack"
                result.update(
                    await slack_phase.slack_phase(cache, sample[: args.slack_samples], now=NOW, percentile=percentile)
                )
                result["slack_p50_over_floor"] = round(result["slack_p50_ms"] * 1000 / result["floor_p50_us"])
            if args.watcher:
                timer.phase = "watcher"

                async def change(count: int) -> int:
                    base = cache.applied["Workload"]
                    done = (await asyncio.to_thread(server.tell, f"update {count}"))["count"]
                    await wait_for(cache, lambda: cache.applied["Workload"] >= base + done, timeout=600)
                    return int(done)

                result.update(
                    await watcher_phase.watcher_phase(
                        cache,
                        now=NOW,
                        change=change,
                        changed=max(1, args.workloads // 100),
                        steady_passes=args.steady_passes,
                    )
                )
            timer.phase = "events"
            result.update(await events(args, cache, server))
            if args.recorded:
                timer.phase = "recorded"
                result.update(await recorded_questions(args, sample))
            if args.calibration:
                timer.phase = "calibration"
                result.update(await calibration_phase.measure(args.seed))
            timer.phase = "teardown"
        finally:
            await cache.stop()
            api_client.close()  # type: ignore[no-untyped-call]
            server.close()
    result["live_floor_ms"] = round(live_floor_ms(args.workloads, args.queues, args.seed), 1)
    if result.get("live_p50_ms") is not None:
        result["live_p50_over_trace_p99"] = round(result["live_p50_ms"] / result["trace_p99_ms"], 1)
    result["live_floor_over_trace_p99"] = round(result["live_floor_ms"] / result["trace_p99_ms"], 1)
    result["machine"] = machine() | {"loadavg_1m_at_start": load_before}
    return result


def recorded_history(cache: ClusterCache) -> History:
    """The history the bot's recorder keeps once its first pass has read these Workloads (bot.notify.history):
    every admission their own records show, every ClusterQueue's."""
    namespaces = sorted(
        {w.namespace for cq in cache.cluster_queues() for w in cache.workloads_in_cluster_queue(cq.name)}
    )
    admissions, finishes, _ = observations(cache, namespaces, Seen({}), NOW)
    return History(tuple(admissions), tuple(finishes))


async def recorded_questions(args: argparse.Namespace, sample: list[Any]) -> dict[str, Any]:
    """The same questions as the bot asks them: with its recorder's history (the server hands it to every
    answer; the main trace phase asks without one, as the CLI does). On a cache of their own, filled in this
    process from the same objects (bench/sweep.py: filled_cache) and frozen as the production cache is once
    synced, so that every memo is built anew: the same cold questions."""
    objects = cluster(args.workloads, args.queues, args.seed, namespaces=args.namespaces, owners=args.owners)
    cache = sweep.filled_cache(objects, NOW)
    del objects
    history = recorded_history(cache)
    gc.collect()
    gc.freeze()
    service = sweep.asker(cache, OnDemand(cache.client, cache, visibility=False), NOW, history)
    warmer = await sweep.warmed(service) if args.warmer else {}
    timings = []
    estimates = 0  # answers with an interval (their queue's calibration read)
    for workload in sample:
        (answer, outlook), took = await sweep.ask(service, workload)
        timings.append(took)
        estimates += outlook.eta is not None and outlook.eta.status == "estimate"
        assert answer.position is not None and outlook.eta is not None, (workload.name, answer.verdict)
        await sweep.between()
    return {
        "trace_recorded_p50_ms": round(statistics.median(timings), 3),
        "trace_recorded_p99_ms": round(percentile(timings, 0.99), 3),
        "recorded_admissions": len(history.admissions),
        "recorded_estimates": estimates,
        **{f"recorded_{key}": value for key, value in warmer.items()},
    }


def pending_sample(args: argparse.Namespace, cache: ClusterCache) -> list[Any]:
    """The Workloads asked about: `--questions` random pending ones."""
    return sweep.pending_sample(cache, args.questions, args.seed + 2)


async def questions(
    args: argparse.Namespace, cache: ClusterCache, client: KubeClient, timer: GcTimer, sample: list[Any]
) -> dict[str, Any]:
    ondemand = OnDemand(client, cache, visibility=False)
    service = sweep.asker(cache, ondemand, NOW)
    warmer = await sweep.warmed(service) if args.warmer else {}
    requests_before = client.requests
    pacing.restart_longest()  # this phase's longest, not the watcher's or the warmer's before it
    between_before = pacing.stats()
    timings = []
    rendering = []
    for workload in sample:
        (answer, outlook), took = await sweep.ask(service, workload)
        timings.append(took)
        assert answer.position is not None, (workload.name, answer.verdict)
        if args.render:  # between two questions, as the server renders each answer before the next question
            rendered = time.perf_counter()
            render.answer_summary(answer, language="en", outlook=outlook, snapshot_age_seconds=0)
            render.answer_details(answer, language="en", show_names=True, outlook=outlook)
            rendering.append((time.perf_counter() - rendered) * 1000)
        await sweep.between()
    between_after = pacing.stats()
    # The floor, on the same Workloads, right after: the owner index, two bisects, one formatted line.
    floor = sweep.floor_us(cache, sample)
    result: dict[str, Any] = {
        "trace_p50_ms": round(statistics.median(timings), 3),
        "trace_p99_ms": round(percentile(timings, 0.99), 3),
        "trace_samples": len(timings),
        "requests_per_question": (client.requests - requests_before) / len(timings),
        "render_p50_ms": round(statistics.median(rendering), 3) if rendering else 0.0,
        "render_p99_ms": round(percentile(rendering, 0.99), 3) if rendering else 0.0,
        "floor_p50_us": round(statistics.median(floor), 2),
        "floor_p99_us": round(percentile(floor, 0.99), 2),
        "between_gc_collections": int(between_after["collections"] - between_before["collections"]),
        "between_gc_freezes": int(between_after["freezes"] - between_before["freezes"]),
        "between_gc_ms": round((between_after["seconds"] - between_before["seconds"]) * 1000, 1),
        "between_gc_longest_ms": round(between_after["longest_seconds"] * 1000, 3),
        **warmer,
    }
    result["trace_p50_over_floor"] = round(result["trace_p50_ms"] * 1000 / result["floor_p50_us"])
    result["question_p50_over_floor"] = round(
        (result["trace_p50_ms"] + result["render_p50_ms"]) * 1000 / result["floor_p50_us"]
    )
    timer.phase = "live"
    result.update(await asyncio.to_thread(live_phase.live_phase, client, sample[: args.live_samples], now=NOW))
    return result


async def events(args: argparse.Namespace, cache: ClusterCache, server: Server) -> dict[str, Any]:
    if not args.events:
        return {}
    base = cache.applied["Workload"]
    server.tell("offline")
    await wait_for(cache, lambda: "Workload" in cache.errors, timeout=60)
    updated = (await asyncio.to_thread(server.tell, f"update {args.events}"))["count"]
    marks: dict[str, float] = {}

    def first() -> bool:
        if cache.applied["Workload"] > base:
            marks.setdefault("first", time.perf_counter())
            marks.setdefault("first_cpu", time.process_time())
            marks["first_count"] = cache.applied["Workload"] - base
            return True
        return False

    await asyncio.to_thread(server.tell, "online")
    await wait_for(cache, first, timeout=120)
    await wait_for(cache, lambda: cache.applied["Workload"] >= base + updated, timeout=600)
    elapsed = time.perf_counter() - marks["first"]
    cpu = time.process_time() - marks["first_cpu"]
    counted = updated - marks["first_count"]
    informer = cache.informers["Workload"]
    return {
        "events": updated,
        "events_per_second": round(counted / elapsed) if elapsed > 0 else None,
        "events_cpu_us_each": round(cpu / counted * 1e6, 1) if counted else None,
        "workload_lists": informer.lists,
        "workload_watches": informer.watches,
    }


def run_sweep(args: argparse.Namespace) -> None:
    load_before = round(os.getloadavg()[0], 2)
    rows = list(
        asyncio.run(
            sweep.sweep(
                cluster, percentile, questions=min(args.questions, 1000), seed=args.seed, now=NOW,
                largest=args.sweep_largest, warmer=args.warmer,
            )
        )
    )  # fmt: skip
    if args.format == "text":
        print(sweep.table(rows))
        print(f"\nload average (1 min): {load_before} at the start, {os.getloadavg()[0]:.2f} at the end")
        return
    report = {
        "sweep": [{"sweep": label, **row.__dict__, "p50_over_floor": round(row.over_floor)} for label, row in rows],
        "machine": machine() | {"loadavg_1m_at_start": load_before},
    }
    print(json.dumps(report, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", type=int, default=1000)
    parser.add_argument("--queues", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--live-samples", type=int, default=5)
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--page-size", type=int, default=500)
    parser.add_argument("--initial", choices=("list", "watch-list"), default="list")
    parser.add_argument(
        "--validate", choices=("sample", "all"), default="sample", help="objects the fake checks against the CRDs"
    )
    parser.add_argument(
        "--no-freeze-gc", dest="freeze_gc", action="store_false", help="leave the garbage collector as it is"
    )
    parser.add_argument("--owners", type=int, default=0, help="Slack users named by the Workloads' notify annotation")
    parser.add_argument("--namespaces", type=int, default=None, help="namespaces (default max(10, Q/10))")
    parser.add_argument("--slack-samples", type=int, default=220, help="mentions in the Slack phase (0: none)")
    parser.add_argument("--no-watcher", dest="watcher", action="store_false", help="skip the watcher phase")
    parser.add_argument(
        "--no-recorded",
        dest="recorded",
        action="store_false",
        help="skip the questions asked with the recorder's history (a cache of their own: twice the memory)",
    )
    parser.add_argument("--steady-passes", type=int, default=2, help="watcher passes with nothing changed")
    parser.add_argument(
        "--no-render",
        dest="render",
        action="store_false",
        help="ask the questions back to back, without rendering each answer between them (render_* then 0)",
    )
    parser.add_argument(
        "--no-warmer",
        dest="warmer",
        action="store_false",
        help="ask without the ETA warmer's pass first (each queue's first question makes its Estimator)",
    )
    parser.add_argument(
        "--no-calibration",
        dest="calibration",
        action="store_false",
        help="skip the questions that read a queue's ETA calibration (bench/calibration_phase.py)",
    )
    parser.add_argument(
        "--sweep", action="store_true", help="only the table of trace p50/p99 against size and Workloads per namespace"
    )
    parser.add_argument("--sweep-largest", type=int, default=200_000, help="the largest size the sweep fills")
    parser.add_argument("--format", choices=("json", "text"), default="json")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args)
        return
    if args.sweep:
        run_sweep(args)
        return
    with GcTimer() as timer:
        result = asyncio.run(measure(args, timer))
    result.update(timer.report())
    if args.format == "json":
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:28} {value}")


if __name__ == "__main__":
    threading.excepthook = lambda hook: print(f"thread failed: {hook.exc_value!r}", file=sys.stderr)
    main()
