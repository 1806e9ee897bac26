"""Slack's failures in the watcher's passes, each said in one line, none tried for ever.

Undeliverable (bot.errors.SlackUndeliverable: the DM's conversation, message or person is gone): the
deliveries are closed as undeliverable, with one WARNING and a metric, and not tried again while the process
runs. Any other failure of Slack (SlackUnavailable): one WARNING, the next pass tries again, and a delivery
that keeps failing waits longer each time (up to `MAX_PAUSE`)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from bot.errors import SlackUnavailable, SlackUndeliverable
from bot.metrics import Metrics
from bot.notify.policy import Decision, Send

log = logging.getLogger(__name__)

FIRST_PAUSE = timedelta(minutes=1)  # a delivery that failed twice in a row waits this long, then twice as long...
MAX_PAUSE = timedelta(minutes=30)

Pair = tuple[str, str]  # (Workload key, target)


def pairs(decision: Decision) -> list[Pair]:
    """The deliveries a decision is about."""
    if isinstance(decision, Send):
        return [(item.key, decision.target) for item in decision.items]
    return [(decision.delivery.key, decision.target)]


class SlackFailures:
    def __init__(self, metrics: Metrics | None = None) -> None:
        self.metrics = metrics
        self.gone: set[Pair] = set()  # undeliverable: never tried again
        self._failing: dict[Pair, tuple[int, datetime]] = {}  # failures in a row, not before

    def held_back(self, decisions: list[Decision], now: datetime) -> list[Decision]:
        """The decisions to carry out now: none about an undeliverable delivery, none still pausing."""
        kept: list[Decision] = []
        for decision in decisions:
            if isinstance(decision, Send):
                items = tuple(i for i in decision.items if (i.key, decision.target) not in self.gone)
                decision = replace(decision, items=items)
                if not items:
                    continue
            if all(self._due(pair, now) for pair in pairs(decision)) and not set(pairs(decision)) & self.gone:
                kept.append(decision)
        return kept

    def _due(self, pair: Pair, now: datetime) -> bool:
        failing = self._failing.get(pair)
        return failing is None or now >= failing[1]

    async def attempt(
        self,
        decisions: Sequence[Decision],
        work: Awaitable[None],
        now: datetime,
        close: Callable[[str, str, datetime], Awaitable[object]],
    ) -> None:
        """Carry out `work` (the decisions'); Slack's failures handled here, any other raised."""
        about = [pair for decision in decisions for pair in pairs(decision)]
        try:
            await work
        except SlackUndeliverable as error:
            log.warning(
                "notifier: undeliverable, closed (Slack says it is gone)",
                extra={"method": error.method, "error": error.error, "deliveries": len(about)},
            )
            if self.metrics is not None:
                self.metrics.undeliverable.labels(error.error).inc(len(about))
            for key, target in about:
                self.gone.add((key, target))
                self._failing.pop((key, target), None)
                await close(key, target, now)
            return
        except SlackUnavailable as error:
            pause = self._pause(about, now)
            log.warning(
                "notifier: Slack failed; tried again later",
                extra={"method": error.method, "error": error.error, "retry_in_seconds": int(pause.total_seconds())},
            )
            return
        for pair in about:
            self._failing.pop(pair, None)

    def _pause(self, about: list[Pair], now: datetime) -> timedelta:
        """The first failure is tried again at the next pass; then FIRST_PAUSE, doubling to MAX_PAUSE."""
        count = 1 + max((self._failing.get(pair, (0, now))[0] for pair in about), default=0)
        pause = timedelta(0) if count == 1 else min(FIRST_PAUSE * 2 ** min(count - 2, 10), MAX_PAUSE)
        for pair in about:
            self._failing[pair] = (count, now + pause)
        return pause
