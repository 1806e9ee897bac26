"""Prometheus metrics of one bot process (a registry of its own, so tests can build several)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

CONTENT_TYPE = CONTENT_TYPE_LATEST


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._questions_and_dms(self.registry)
        self._slack(self.registry)
        self._health(self.registry)

    def _questions_and_dms(self, r: CollectorRegistry) -> None:
        self.questions = Counter(
            "kueue_bot_questions",
            "Questions answered, by verdict and where they were asked",
            ["verdict", "where"],
            registry=r,
        )
        self.answer_seconds = Histogram(
            "kueue_bot_answer_seconds",
            "Time from a question to its answer being posted",
            ["where"],
            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30),
            registry=r,
        )
        self.dms_sent = Counter("kueue_bot_dms_sent", "Proactive DMs sent", registry=r)
        self.dms_updated = Counter("kueue_bot_dms_updated", "Proactive DMs updated in place", registry=r)
        self.notify_capped = Counter(
            "kueue_bot_notify_capped",
            "Proactive DMs held back by a cap (owners-per-job: not sent; dms-per-pass: sent on a later pass)",
            ["cap"],
            registry=r,
        )
        self.notify_lease_lost = Counter(
            "kueue_bot_notify_lease_lost", "Notifier passes stopped because this replica lost the lease", registry=r
        )
        self.cache_staleness = Gauge(
            "kueue_bot_cache_staleness_seconds",
            "Age of the cluster view (since the last event or bookmark)",
            registry=r,
        )

    def _slack(self, r: CollectorRegistry) -> None:
        self.slack_errors = Counter(
            "kueue_bot_slack_api_errors", "Slack Web API errors", ["method", "error"], registry=r
        )
        self.slack_ratelimited = Counter(
            "kueue_bot_slack_ratelimited", "Slack Web API 429 answers", ["method"], registry=r
        )
        self.slack_delayed = Counter(
            "kueue_bot_slack_delayed",
            "Slack Web API calls (answers, DMs) made late: they waited for a rate limit's Retry-After",
            ["method"],
            registry=r,
        )
        self.slack_dropped = Counter(
            "kueue_bot_slack_dropped",
            "Slack Web API calls given up: the rate limit outlasted their bound (an answer gets a short apology)",
            ["method"],
            registry=r,
        )
        self.answers_dropped = Counter(
            "kueue_bot_answers_dropped",
            "Questions whose answer could not be posted within the bound (rate-limited): apologised for",
            ["where"],
            registry=r,
        )
        self.undeliverable = Counter(
            "kueue_bot_slack_undeliverable",
            "Proactive DMs closed as undeliverable: their conversation, message or person is gone (Slack's error)",
            ["error"],
            registry=r,
        )

    def _health(self, r: CollectorRegistry) -> None:
        self.errors = Counter("kueue_bot_internal_errors", "Errors answered with an apology", ["where"], registry=r)
        self.store_up = Gauge(
            "kueue_bot_state_store_up", "1 when the state store answered the last readiness check, else 0", registry=r
        )
        self.slack_connected = Gauge(
            "kueue_bot_slack_connected",
            "1 while Slack accepts the bot: Socket Mode connected, or (HTTP mode) a call accepted and no token refused",
            registry=r,
        )
        self.http_connections_shed = Counter(
            "kueue_bot_http_connections_shed",
            "HTTP connections closed at the connection cap (evicted: a half-sent request pushed out)",
            ["how"],
            registry=r,
        )

    def watch_cluster(self, stats: Callable[[], Mapping[str, Mapping[str, int]]]) -> None:
        """Expose the cluster cache's own counters at each scrape: objects per kind, relists and watch
        restarts (counters the informers keep)."""
        self.registry.register(_CacheCollector(stats))

    def watch_clusters(
        self,
        states: Callable[[], list[tuple[str, str, int | None]]],
        stats: Mapping[str, Callable[[], Mapping[str, Mapping[str, int]]]] | None = None,
    ) -> None:
        """Each cluster's state (name, ok|stale|starting, snapshot age) and cache counts."""
        self.registry.register(_ClustersCollector(states, dict(stats or {})))

    def watch_collections(self, stats: Callable[[], Mapping[str, float]]) -> None:
        """Expose the young collections run between questions (bot.pacing.stats) at each scrape."""
        self.registry.register(_BetweenCollector(stats))

    def watch_warmers(self, stats: Callable[[], Sequence[Mapping[str, float]]]) -> None:
        """Expose the ETA warmers' passes (bot.service.warmer.Warmer.stats, summed over clusters) at each scrape."""
        self.registry.register(_WarmerCollector(stats))

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


class _CacheCollector(Collector):
    def __init__(self, stats: Callable[[], Mapping[str, Mapping[str, int]]]) -> None:
        self._stats = stats

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        stats = self._stats()
        objects = GaugeMetricFamily("kueue_bot_cache_objects", "Objects in the cluster cache", labels=["kind"])
        for kind, count in sorted(stats.get("objects", {}).items()):
            objects.add_metric([kind], count)
        yield objects
        restarts = CounterMetricFamily(
            "kueue_bot_watch_restarts", "Watch streams restarted and relists, by kind", labels=["kind", "why"]
        )
        for why, key in (("watch", "watch_restarts"), ("relist", "relists")):
            for kind, count in sorted(stats.get(key, {}).items()):
                restarts.add_metric([kind, why], count)
        yield restarts
        unreadable = CounterMetricFamily(
            "kueue_bot_objects_unreadable",
            "Objects (or watch lines) the informers skipped as unreadable, by kind",
            labels=["kind"],
        )
        for kind, count in sorted(stats.get("unreadable", {}).items()):
            unreadable.add_metric([kind], count)
        yield unreadable


class _BetweenCollector(Collector):
    def __init__(self, stats: Callable[[], Mapping[str, float]]) -> None:
        self._stats = stats

    def collect(self) -> Iterator[CounterMetricFamily]:
        stats = self._stats()
        yield CounterMetricFamily(
            "kueue_bot_gc_between_questions",
            "Young garbage collections run at the event loop's turn after a question (not inside the next one)",
            value=stats.get("collections", 0),
        )
        yield CounterMetricFamily(
            "kueue_bot_gc_between_questions_seconds",
            "Time spent in those collections",
            value=stats.get("seconds", 0.0),
        )


class _WarmerCollector(Collector):
    def __init__(self, stats: Callable[[], Sequence[Mapping[str, float]]]) -> None:
        self._stats = stats

    def collect(self) -> Iterator[CounterMetricFamily]:
        every = self._stats()
        for name, key, text in (
            ("kueue_bot_eta_warmer_passes", "passes", "Passes of the ETA warmer (every queue's Estimators, ahead)"),
            ("kueue_bot_eta_warmer_made", "made", "ETA Estimators the warmer made (a queue's history replayed)"),
            ("kueue_bot_eta_warmer_seconds", "cpu_seconds", "CPU time of the warmer's passes"),
        ):
            yield CounterMetricFamily(name, text, value=sum(stats.get(key, 0) for stats in every))


class _ClustersCollector(Collector):
    def __init__(
        self,
        states: Callable[[], list[tuple[str, str, int | None]]],
        stats: Mapping[str, Callable[[], Mapping[str, Mapping[str, int]]]],
    ) -> None:
        self._states = states
        self._stats = stats

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        up = GaugeMetricFamily(
            "kueue_bot_cluster_up",
            "1 while the cluster's API server answers (CLUSTERS)",
            labels=["cluster"],
        )
        age = GaugeMetricFamily(
            "kueue_bot_cluster_snapshot_age_seconds", "Age of the cluster's view (CLUSTERS)", labels=["cluster"]
        )
        state = GaugeMetricFamily(
            "kueue_bot_cluster_state", "1 for the cluster's state: ok, stale or starting", labels=["cluster", "state"]
        )
        for name, current, seconds in self._states():
            up.add_metric([name], 1 if current == "ok" else 0)
            if seconds is not None:
                age.add_metric([name], seconds)
            for each in ("ok", "stale", "starting"):
                state.add_metric([name, each], 1 if current == each else 0)
        yield up
        yield age
        yield state
        objects = GaugeMetricFamily(
            "kueue_bot_cluster_cache_objects", "Objects in each cluster's cache (CLUSTERS)", labels=["cluster", "kind"]
        )
        for name, stats in sorted(self._stats.items()):
            for kind, count in sorted(stats().get("objects", {}).items()):
                objects.add_metric([name, kind], count)
        yield objects
