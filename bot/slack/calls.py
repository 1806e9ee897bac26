"""Slack when it is slow: every Web API call bounded, and a post that timed out looked for before anything else
is said, so that a question gets its answer or an apology, never both and never neither.

* `BoundedClient`: slack_sdk's client with a bound on each call as a whole (`call_bound`: its own retries and
  waits for Retry-After included), on top of the per-request `timeout`.
* `post_once`: chat.postMessage with a marker in its metadata; when the call times out, Slack may have posted it
  anyway (slow but applied): the conversation is read for the marker for up to `reconcile_seconds`. Found: it
  was posted (its ts). Not found: `PostLost`, and the caller apologises (once, the same way).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

log = logging.getLogger(__name__)

EVENT_TYPE = "kueue_bot_answer"
CALL_BOUND = 30.0  # seconds for one Web API call, retries included
RECONCILE_SECONDS = 10.0  # how long a timed-out post is looked for
_POLL = 0.25


class BoundedClient(AsyncWebClient):
    """An AsyncWebClient whose every call (api_call: all of its methods) ends within `call_bound` seconds."""

    call_bound: float = CALL_BOUND

    async def api_call(self, *args: Any, **kwargs: Any) -> Any:
        async with asyncio.timeout(self.call_bound):
            return await super().api_call(*args, **kwargs)


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
