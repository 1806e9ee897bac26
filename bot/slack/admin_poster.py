"""The poster of the admins' daily digest (bot.notify.admin_digest): a DM to each admin in their language, or a
channel post. Slack's errors stop here (bot.errors.SlackUnavailable)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.admin.view import AdminView
from bot.errors import SlackUnavailable
from bot.slack.admin import as_of
from bot.slack.render import SlackMessage
from bot.slack.render_admin import admin_message
from bot.slack.transport import HTTP_CLIENT_ERRORS

EVENT_TYPE = "kueue_bot_admin_digest"
_UNREACHABLE: tuple[type[Exception], ...] = (SlackClientError, TimeoutError, *HTTP_CLIENT_ERRORS)


class AdminPoster:
    """Posts and edits the digest: a user's DM (in their language), or a channel (in the default one)."""

    def __init__(
        self,
        client: AsyncWebClient,
        language: Callable[[str], Awaitable[str]],
        default_language: str,
        cluster: str = "",
    ) -> None:
        self.client = client
        self._language = language
        self._default = default_language
        self.cluster = cluster

    async def _words(self, target: str) -> str:
        return await self._language(target) if target[:1] in ("U", "W") else self._default

    async def _message(self, target: str, view: AdminView) -> SlackMessage:
        return admin_message(
            view, language=await self._words(target), cluster=self.cluster, as_of=as_of(view), at=view.taken_at
        )

    async def _channel(self, target: str) -> str:
        if target[:1] not in ("U", "W"):
            return target
        opened = await self.client.conversations_open(users=target)
        return str((opened.get("channel") or {}).get("id") or target)

    async def post(self, target: str, view: AdminView, mark: str) -> tuple[str, str]:
        message = await self._message(target, view)
        try:
            channel = await self._channel(target)
            response = await self.client.chat_postMessage(
                channel=channel,
                text=message.text,
                blocks=message.blocks,
                metadata={"event_type": EVENT_TYPE, "event_payload": {"target": target, "mark": mark}},
            )
        except SlackApiError as error:
            code = str(error.response.get("error") if error.response is not None else "") or "error"
            raise SlackUnavailable("chat.postMessage", code) from error
        except _UNREACHABLE as error:
            raise SlackUnavailable("chat.postMessage", type(error).__name__) from error
        return str(response.get("channel") or channel), str(response["ts"])

    async def update(self, target: str, channel: str, ts: str, view: AdminView) -> None:
        message = await self._message(target, view)
        try:
            await self.client.chat_update(channel=channel, ts=ts, text=message.text, blocks=message.blocks)
        except SlackApiError as error:
            code = str(error.response.get("error") if error.response is not None else "") or "error"
            raise SlackUnavailable("chat.update", code) from error
        except _UNREACHABLE as error:
            raise SlackUnavailable("chat.update", type(error).__name__) from error

    async def find(self, target: str, mark: str) -> tuple[str, str] | None:
        """The post to `target` whose metadata carries `mark`, among the conversation's latest messages."""
        try:
            channel = await self._channel(target)
            response = await self.client.conversations_history(channel=channel, include_all_metadata=True, limit=100)
        except SlackApiError as error:
            code = str(error.response.get("error") if error.response is not None else "") or "error"
            raise SlackUnavailable("conversations.history", code) from error
        except _UNREACHABLE as error:
            raise SlackUnavailable("conversations.history", type(error).__name__) from error
        for message in response.get("messages") or []:
            metadata = message.get("metadata") or {}
            payload = metadata.get("event_payload") or {}
            if metadata.get("event_type") == EVENT_TYPE and payload.get("mark") == mark:
                return channel, str(message["ts"])
        return None
