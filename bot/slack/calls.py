"""Slack when it is slow: every Web API call bounded, and a post that timed out looked for before anything else
is said, so that a question gets its answer or an apology, never both and never neither.

* `BoundedClient`: slack_sdk's client with a bound on each try of a call (`call_bound`: the SDK's own retries
  included), on top of the per-request `timeout`; and Slack's rate limits honoured (bot.slack.pace): a 429
  holds that method and channel for its Retry-After, the call waits and tries again, for `queue_bound` in all
  (then `RateLimited`). It knows whether Slack ever accepted its token, and whether Slack refused it since.
* `post_once`: chat.postMessage with a marker in its metadata; when the call times out, Slack may have posted it
  anyway (slow but applied): the conversation is read for the marker for up to `reconcile_seconds`. Found: it
  was posted (its ts). Not found: `PostLost`, and the caller apologises (once, the same way).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.metrics import Metrics
from bot.slack.failures import Tokens
from bot.slack.pace import QUEUE_BOUND, RateGate, channel_of, retry_after

log = logging.getLogger(__name__)

EVENT_TYPE = "kueue_bot_answer"
CALL_BOUND = 30.0  # seconds for one try of a Web API call, the SDK's retries included
RECONCILE_SECONDS = 10.0  # how long a timed-out post is looked for
_POLL = 0.25
VERIFY_EVERY = 30.0  # seconds between two auth.test of a token not yet accepted (/readyz)
VERIFY_TIMEOUT = 3.0


class BoundedClient(AsyncWebClient):
    """An AsyncWebClient whose every call (api_call: all of its methods) tries within `call_bound` seconds and
    waits out Slack's rate limits for at most `queue_bound` seconds in all."""

    call_bound: float = CALL_BOUND
    queue_bound: float = QUEUE_BOUND

    def __init__(
        self, *args: Any, metrics: Metrics | None = None, monotonic: Callable[[], float] = time.monotonic, **kw: Any
    ) -> None:
        super().__init__(*args, **kw)
        self.metrics = metrics
        self.gate = RateGate(monotonic)
        self._monotonic = monotonic
        self.tokens = Tokens()  # whether Slack accepts the tokens (/readyz)
        self._probed = -VERIFY_EVERY

    async def api_call(self, api_method: str, **kwargs: Any) -> Any:
        channel = channel_of(kwargs)
        started = self._monotonic()
        waited = False
        while True:
            wait = self.gate.opens_in(api_method, channel)
            if wait > 0:
                if self._monotonic() - started + wait > self.queue_bound:
                    self._count("dropped", api_method)
                    log.warning("slack: rate-limited past the bound; not tried", extra={"method": api_method})
                    raise self.gate.refusal(api_method, channel, wait)
                waited = True
                await asyncio.sleep(wait)
                continue
            try:
                async with asyncio.timeout(self.call_bound):
                    response = await super().api_call(api_method, **kwargs)
            except SlackApiError as error:
                response = error.response
                self.tokens.failed(api_method, str(response.get("error") or "") if response is not None else "")
                if response is None or response.status_code != 429:
                    raise
                self.gate.close(api_method, channel, retry_after(response.headers), response)
                if self.metrics is not None:
                    self.metrics.slack_ratelimited.labels(api_method).inc()
                continue
            self.tokens.accepted(api_method)
            if waited:
                self._count("delayed", api_method)
            return response

    async def verify(self) -> None:
        """auth.test, unless Slack accepts the token already (at most every VERIFY_EVERY seconds, bounded):
        /readyz says "unverified" before any call succeeded, and a refused token once Slack refused it."""
        if self.tokens.verified and not self.tokens.refused:
            return
        now = self._monotonic()
        if now - self._probed < VERIFY_EVERY:
            return
        self._probed = now
        try:
            async with asyncio.timeout(VERIFY_TIMEOUT):
                await self.auth_test()
        except Exception as error:  # noqa: BLE001 - a probe: a refusal is recorded by api_call, the rest is said here
            log.info("slack: could not check the token", extra={"error": type(error).__name__})

    def _count(self, how: str, method: str) -> None:
        if self.metrics is not None:
            counter = self.metrics.slack_delayed if how == "delayed" else self.metrics.slack_dropped
            counter.labels(method).inc()


class PostLost(Exception):
    """A post that timed out and is not in the conversation: it was not posted."""


async def post_once(
    client: AsyncWebClient,
    *,
    channel: str,
    text: str,
    blocks: list[dict[str, Any]],
    thread_ts: str | None,
    reconcile_seconds: float = RECONCILE_SECONDS,
) -> str | None:
    """Post, and return the message's ts. On a timeout, the message is looked for (see the module)."""
    marker = uuid.uuid4().hex
    metadata = {"event_type": EVENT_TYPE, "event_payload": {"id": marker}}
    try:
        response = await client.chat_postMessage(
            channel=channel,
            text=text,
            blocks=blocks or None,
            thread_ts=thread_ts,
            unfurl_links=False,
            metadata=metadata,
        )
    except TimeoutError:
        log.warning("slack: a post timed out; looking for it", extra={"channel": channel})
        found = await _find(client, channel, thread_ts, marker, reconcile_seconds)
        if found is None:
            raise PostLost(f"a post to {channel} timed out and did not arrive") from None
        return found
    return str(response.get("ts")) if response.get("ts") else None


async def _find(client: AsyncWebClient, channel: str, thread_ts: str | None, marker: str, seconds: float) -> str | None:
    """The ts of our message carrying `marker`, once it shows (None after `seconds`)."""
    try:
        async with asyncio.timeout(seconds):
            while True:
                ts = await _look(client, channel, thread_ts, marker)
                if ts is not None:
                    return ts
                await asyncio.sleep(_POLL)
    except TimeoutError:
        return None


async def _look(client: AsyncWebClient, channel: str, thread_ts: str | None, marker: str) -> str | None:
    try:
        if thread_ts:
            response = await client.conversations_replies(
                channel=channel, ts=thread_ts, include_all_metadata=True, limit=100
            )
        else:
            response = await client.conversations_history(channel=channel, include_all_metadata=True, limit=20)
    except (SlackApiError, TimeoutError) as error:
        log.info("slack: could not read the conversation yet", extra={"error": type(error).__name__})
        return None
    for message in response.get("messages") or []:
        metadata = message.get("metadata") or {}
        if metadata.get("event_type") == EVENT_TYPE and (metadata.get("event_payload") or {}).get("id") == marker:
            return str(message.get("ts"))
    return None
