"""The Slack phase of `bench/run.py`: a mention, signed and POSTed to the real server app (`build_server`,
Bolt on aiohttp), until its answer is recorded as a threaded `chat.postMessage` at the Slack stand-in
(`bot.standin`, in this process, over HTTP). The server's source is the benchmark's synced cache (borrowed:
the phase does not start or stop it). Also the cost of a hop to a worker thread, for the reason `explain`
runs on the loop (`bot.service.botservice.BotService.explain_job`)."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from bot.config import Secret, Settings
from bot.kube.cache import ClusterCache
from bot.kube.ondemand import CacheSource, OnDemand
from bot.server import build_server
from bot.standin.slack import FakeSlack
from bot.trace.model import Workload

USER = "U0BENCH001"
CHANNEL = "C0BENCH001"


class BorrowedSource(CacheSource):
    """The benchmark's cache, already synced, as the server's source: start and stop are the benchmark's."""

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None


async def thread_hop_ms(samples: int) -> list[float]:
    """`await asyncio.to_thread(f)` for a function that does nothing: what the hop alone costs."""
    timings = []
    for _ in range(samples):
        started = time.perf_counter()
        await asyncio.to_thread(int)
        timings.append((time.perf_counter() - started) * 1000)
    return timings


async def slack_phase(
    cache: ClusterCache,
    sample: list[Workload],
    *,
    now: datetime,
    percentile: Callable[[list[float], float], float],
) -> dict[str, Any]:
    """p50/p99 of a mention answered in its thread, over `sample` (the first 20 warm up, not counted)."""
    timings: list[float] = []
    async with FakeSlack() as slack:
        slack.add_user(USER, name="bench", email="bench@example.com", tz="UTC", locale="en-US")
        slack.add_channel(CHANNEL, "bench", members=[USER])
        settings = Settings(
            slack_bot_token=Secret(slack.bot_token),
            slack_signing_secret=Secret(slack.signing_secret),
            slack_api_url=slack.api_url,
            host="127.0.0.1",
            port=0,
            log_format="text",
            log_level="WARNING",
            audit_log=False,
        )
        source = BorrowedSource(cache, OnDemand(cache.client, cache, visibility=False))
        server = build_server(settings, source, clock=lambda: now)
        await server.start()
        url = f"{server.url}/slack/events"
        try:
            for index, workload in enumerate(sample):
                job = workload.meta.owners[0].name
                event = slack.app_mention_event(USER, CHANNEL, f"why is {workload.namespace}/{job} pending?")
                started = time.perf_counter()
                delivery = await slack.deliver_event(url, event)
                assert delivery.status == 200, delivery.status
                call = await slack.wait_for_call(
                    "chat.postMessage", lambda c, ts=event["ts"]: c.params.get("thread_ts") == ts, timeout=60
                )
                elapsed = (time.perf_counter() - started) * 1000
                assert job in str(call.params.get("text", "")) + str(call.params.get("blocks", "")), call.params
                if index >= 20:
                    timings.append(elapsed)
        finally:
            await server.stop()
    hops = await thread_hop_ms(500)
    return {
        "slack_p50_ms": round(statistics.median(timings), 3) if timings else None,
        "slack_p99_ms": round(percentile(timings, 0.99), 3) if timings else None,
        "slack_samples": len(timings),
        "thread_hop_p50_ms": round(statistics.median(hops), 3),
        "thread_hop_p99_ms": round(percentile(hops, 0.99), 3),
    }
