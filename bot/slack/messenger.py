"""The notifier's Slack side: DMs (and digests) with metadata naming their Workloads, updated in place.

Slack's errors stop here: a failed call raises bot.errors.SlackUnavailable (the method and Slack's error
code), never SlackApiError or an HTTP client's exception, so bot.notify knows nothing of slack_sdk; one whose
conversation, message or person is gone (bot.slack.failures) raises SlackUndeliverable, never to be retried."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.copy import render as render_words
from bot.errors import SlackUnavailable, SlackUndeliverable
from bot.forecast.eta import Eta
from bot.notify.ports import Closing
from bot.slack import render
from bot.slack.failures import undeliverable
from bot.slack.transport import HTTP_CLIENT_ERRORS
from bot.trace.explanation import Explanation

log = logging.getLogger(__name__)

EVENT_TYPE = "kueue_bot_notification"
_HISTORY_PAGES = 5
_CLOSINGS_LISTED = 20  # a digest's closing lists this many jobs, then "and N more"


_UNREACHABLE: tuple[type[Exception], ...] = (SlackClientError, TimeoutError, *HTTP_CLIENT_ERRORS)


async def _call(method: str, call: Awaitable[AsyncSlackResponse]) -> AsyncSlackResponse:
    """One Web API call, its failures as SlackUnavailable."""
    try:
        return await call
    except SlackApiError as error:
        code = str(error.response.get("error") if error.response is not None else "") or "error"
        raise (SlackUndeliverable if undeliverable(code) else SlackUnavailable)(method, code) from error
    except _UNREACHABLE as error:
        raise SlackUnavailable(method, type(error).__name__) from error


def _reason(explanation: Explanation) -> render.NotificationReason:
    return "never-fits" if explanation.verdict.never_fixes_itself else "inadmissible"


class SlackMessenger:
    def __init__(
        self,
        client: AsyncWebClient,
        language: Callable[[str], Awaitable[str]],
        default_language: str,
        *,
        cluster: str = "",
    ) -> None:
        """`cluster`: the cluster this messenger's DMs are about, said in them (several clusters)."""
        self.client = client
        self.cluster = cluster
        self._language = language
        self._default = default_language
        self._dm_channels: dict[str, str] = {}
        self._offsets: dict[str, timedelta | None] = {}

    async def _channel(self, target: str) -> str:
        """A user's DM channel (opened once), or the channel itself."""
        if target[:1] not in ("U", "W"):
            return target
        if target not in self._dm_channels:
            response = await _call("conversations.open", self.client.conversations_open(users=target))
            self._dm_channels[target] = str((response.get("channel") or {}).get("id"))
        return self._dm_channels[target]

    async def _words_for(self, target: str) -> str:
        return await self._language(target) if target[:1] in ("U", "W") else self._default

    def _message(
        self, explanations: Sequence[Explanation], language: str, *, updated: bool, eta: Eta | None
    ) -> render.SlackMessage:
        if len(explanations) == 1:
            reason: render.NotificationReason = "updated" if updated else _reason(explanations[0])
            return render.notification(explanations[0], language=language, reason=reason, cluster=self.cluster, eta=eta)
        return render.digest(list(explanations), language=language)

    @staticmethod
    def _metadata(keys: Sequence[str], target: str) -> dict[str, Any]:
        return {"event_type": EVENT_TYPE, "event_payload": {"keys": list(keys), "target": target}}

    async def send(
        self, target: str, explanations: Sequence[Explanation], keys: Sequence[str], *, eta: Eta | None = None
    ) -> tuple[str, str]:
        channel = await self._channel(target)
        message = self._message(explanations, await self._words_for(target), updated=False, eta=eta)
        response = await _call(
            "chat.postMessage",
            self.client.chat_postMessage(
                channel=channel, text=message.text, blocks=message.blocks, metadata=self._metadata(keys, target)
            ),
        )
        return str(response.get("channel") or channel), str(response["ts"])

    async def update(
        self, channel: str, ts: str, explanations: Sequence[Explanation], keys: Sequence[str], *, eta: Eta | None = None
    ) -> None:
        target = next((user for user, dm in self._dm_channels.items() if dm == channel), channel)
        if not explanations:
            return
        message = self._message(explanations, await self._words_for(target), updated=True, eta=eta)
        await _call(
            "chat.update",
            self.client.chat_update(
                channel=channel, ts=ts, text=message.text, blocks=message.blocks, metadata=self._metadata(keys, target)
            ),
        )

    def _closed(self, closings: Sequence[Closing], language: str) -> render.SlackMessage:
        """What a DM says when its jobs' waits are over (at most _CLOSINGS_LISTED named)."""
        messages = []
        for closing in closings[:_CLOSINGS_LISTED]:
            namespace, _, name = closing.job.partition("/")
            closed: render.ClosedOutcome = (
                closing.outcome if closing.outcome in ("admitted", "finished", "deleted") else "finished"  # type: ignore[assignment]
            )
            messages.append(
                render.notification_closed(namespace, name, closed, closing.waited_seconds, language=language)
            )
        if len(messages) == 1:
            return messages[0]
        text = "\n".join(m.text for m in messages)
        if len(closings) > len(messages):
            text += "\n" + render_words("slack.digest.more", {"count": len(closings) - len(messages)}, language)
        return render.SlackMessage(text, [block for m in messages for block in m.blocks])

    async def close(self, channel: str, ts: str, closings: Sequence[Closing], target: str) -> None:
        message = self._closed(closings, await self._words_for(target))
        await _call(
            "chat.update", self.client.chat_update(channel=channel, ts=ts, text=message.text, blocks=message.blocks)
        )

    async def _broadcast(self, channel: str, ts: str, message: render.SlackMessage) -> None:
        """A reply in the DM's thread, also shown in the conversation: it notifies, where an edit does not."""
        await _call(
            "chat.postMessage",
            self.client.chat_postMessage(
                channel=channel, thread_ts=ts, reply_broadcast=True, text=message.text, blocks=message.blocks
            ),
        )

    async def announce_closed(self, channel: str, ts: str, closings: Sequence[Closing], target: str) -> None:
        await self._broadcast(channel, ts, self._closed(closings, await self._words_for(target)))

    async def announce_never_fits(self, channel: str, ts: str, explanation: Explanation, target: str) -> None:
        language = await self._words_for(target)
        await self._broadcast(channel, ts, render.never_fits_news(explanation, language=language, cluster=self.cluster))

    async def find_sent(self, target: str, key: str) -> tuple[str, str] | None:
        channel = await self._channel(target)
        cursor: str | None = None
        for _ in range(_HISTORY_PAGES):
            response = await _call(
                "conversations.history",
                self.client.conversations_history(channel=channel, include_all_metadata=True, limit=100, cursor=cursor),
            )
            for message in response.get("messages") or []:
                metadata = message.get("metadata") or {}
                payload = metadata.get("event_payload") or {}
                if metadata.get("event_type") == EVENT_TYPE and key in (payload.get("keys") or []):
                    return channel, str(message["ts"])
            cursor = (response.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                break
        return None

    async def user_for_email(self, email: str) -> str | None:
        try:
            response = await _call("users.lookupByEmail", self.client.users_lookupByEmail(email=email))
        except SlackUnavailable as error:
            if error.error == "users_not_found":
                log.info("notifier: no Slack user for an owner's email")
                return None
            raise
        return str((response.get("user") or {}).get("id") or "") or None

    async def utc_offset(self, user: str) -> timedelta | None:
        if user not in self._offsets:
            try:
                response = await _call("users.info", self.client.users_info(user=user))
                offset = (response.get("user") or {}).get("tz_offset")
                self._offsets[user] = timedelta(seconds=int(offset)) if offset is not None else None
            except SlackUnavailable as error:
                log.info("notifier: a user's timezone is unknown", extra={"error": str(error)})
                self._offsets[user] = None
        return self._offsets[user]
