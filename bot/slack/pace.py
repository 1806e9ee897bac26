"""Slack's rate limits, honoured: what each 429's Retry-After said, remembered per method and channel, and
every later call of that method to that channel held until then (Slack's limits are per method, per
workspace; chat.postMessage's also per channel).

`RateGate` only keeps time; `bot.slack.calls.BoundedClient` asks it before each call and tells it each 429.
A call that would have to wait past its bound is not made: `RateLimited` (a SlackApiError, so callers that
handle Slack's errors handle it) says so at once, without waiting for nothing."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from slack_sdk.errors import SlackApiError

QUEUE_BOUND = 300.0  # seconds a call (an answer, a DM) may wait for Slack's rate limits, its tries included
DEFAULT_RETRY_AFTER = 1.0  # a 429 without a readable Retry-After


class RateLimited(SlackApiError):
    """Slack's rate limit outlasts the call's bound: the call was not made (or not made again)."""

    def __init__(self, method: str, wait: float, response: Any) -> None:
        super().__init__(f"Slack rate-limits {method} for {wait:.0f} s more: past the bound", response)  # type: ignore[no-untyped-call]
        self.method = method
        self.wait = wait


def retry_after(headers: Mapping[str, Any] | None) -> float:
    """Seconds from a 429's Retry-After header (a list in slack_sdk's retry state, a string in a response)."""
    for name, value in (headers or {}).items():
        if name.lower() != "retry-after":
            continue
        raw = value[0] if isinstance(value, list | tuple) and value else value
        try:
            return max(0.0, float(str(raw).strip()))
        except ValueError:
            break
    return DEFAULT_RETRY_AFTER


def channel_of(kwargs: Mapping[str, Any]) -> str:
    """The channel a Web API call is about (its json, form or query arguments); "" when none."""
    for part in ("json", "data", "params"):
        arguments = kwargs.get(part)
        if isinstance(arguments, Mapping) and arguments.get("channel"):
            return str(arguments["channel"])
    return ""


class RateGate:
    """When each (method, channel) may be called again."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._until: dict[tuple[str, str], float] = {}
        self._last: dict[tuple[str, str], Any] = {}  # the 429 response that closed it

    def opens_in(self, method: str, channel: str) -> float:
        """Seconds until a call of `method` to `channel` may be made (0: now)."""
        key = (method, channel)
        until = self._until.get(key)
        if until is None:
            return 0.0
        left = until - self._monotonic()
        if left <= 0:
            del self._until[key]
            self._last.pop(key, None)
            return 0.0
        return left

    def close(self, method: str, channel: str, seconds: float, response: Any) -> None:
        """A 429: no call of `method` to `channel` for `seconds`."""
        key = (method, channel)
        until = self._monotonic() + seconds
        if until > self._until.get(key, 0.0):
            self._until[key] = until
            self._last[key] = response

    def refusal(self, method: str, channel: str, wait: float) -> RateLimited:
        return RateLimited(method, wait, self._last.get((method, channel)))

    def limited(self) -> int:
        """How many (method, channel) are held right now."""
        return sum(1 for method, channel in list(self._until) if self.opens_in(method, channel) > 0)
