"""Messages out to Slack: posted once in a thread (as few as the limits allow), private ones to the asker only,
edits, short notes, and the apology with an incident id when something broke (never silence)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from slack_sdk.errors import SlackApiError

from bot.copy import render as render_words
from bot.metrics import Metrics
from bot.slack import render
from bot.slack.calls import RECONCILE_SECONDS, BoundedClient, PostLost, post_once
from bot.slack.mrkdwn import code
from bot.slack.pace import RateLimited
from bot.slack.people import slack_error, slack_timeout
from bot.slack.render import SlackMessage

log = logging.getLogger(__name__)

MAX_BLOCKS = render.MAX_BLOCKS  # one message's blocks (Slack's limit), written once in render
APOLOGY_BOUND = 30.0  # seconds the apology for an answer Slack would not take in time may take, in all


@dataclass(frozen=True)
class Private(SlackMessage):
    """A message for the asker's eyes only (a refusal): posted ephemerally, never in the thread."""


@dataclass(frozen=True)
class Answer(SlackMessage):
    """The first message of an answer: a slash command posts it in the channel, for everyone."""


def private(message: SlackMessage) -> SlackMessage:
    return Private(message.text, message.blocks)


def pack(messages: list[SlackMessage]) -> list[SlackMessage]:
    """Merge consecutive messages while they fit in one (50 blocks, a short enough fallback)."""
    packed: list[SlackMessage] = []
    for message in messages:
        if packed and len(packed[-1].blocks) + 1 + len(message.blocks) <= MAX_BLOCKS:
            last = packed[-1]
            packed[-1] = SlackMessage(text=last.text, blocks=[*last.blocks, {"type": "divider"}, *message.blocks])
        else:
            packed.append(message)
    return packed


def privately(namespace: str, language: str) -> SlackMessage:
    """The note above an answer given to the asker only: why it is not in the channel."""
    text = render_words("slack.private_answer", {"namespace": code(namespace)}, language)
    return SlackMessage(text, [{"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}])


def joined(first: SlackMessage, second: SlackMessage) -> SlackMessage:
    return SlackMessage(second.text, [*first.blocks, *second.blocks])


class Poster:
    """chat.postMessage (once), chat.postEphemeral, chat.update, with Slack's failures counted and logged."""

    def __init__(
        self,
        client: BoundedClient,
        metrics: Metrics,
        language: Callable[[str], Awaitable[str]],
        default_language: str,
    ) -> None:
        self.client = client
        self.metrics = metrics
        self.language = language
        self.default_language = default_language
        self.reconcile_seconds = RECONCILE_SECONDS

    async def post(self, channel: str, message: SlackMessage, *, thread_ts: str | None = None) -> str | None:
        """Post once (bot.slack.calls.post_once: a post that timed out is looked for, never sent twice)."""
        try:
            return await post_once(
                self.client,
                channel=channel,
                text=message.text,
                blocks=message.blocks,
                thread_ts=thread_ts,
                reconcile_seconds=self.reconcile_seconds,
            )
        except SlackApiError as error:
            slack_error(self.metrics, "chat.postMessage", error)
            raise

    async def ephemeral(self, channel: str, user: str, message: SlackMessage, thread_ts: str | None) -> None:
        """A private message; one that timed out is taken as shown (it cannot be looked for, and an apology in
        the thread would be public)."""
        try:
            await self.client.chat_postEphemeral(
                channel=channel, user=user, text=message.text, blocks=message.blocks, thread_ts=thread_ts
            )
        except TimeoutError:
            slack_timeout(self.metrics, "chat.postEphemeral")

    async def answer_in_thread(
        self, channel: str, thread_ts: str, messages: list[SlackMessage], *, user: str = ""
    ) -> None:
        """As few messages as Slack's limits allow (usually one); a private one only to `user`."""
        for message in messages:
            if isinstance(message, Private) and user:
                await self.ephemeral(channel, user, message, thread_ts)
        public = [m for m in messages if not (isinstance(m, Private) and user)]
        for message in pack(public):
            await self.post(channel, message, thread_ts=thread_ts)

    async def update(self, channel: str, ts: str, message: SlackMessage) -> None:
        """chat.update, tried a second time when it timed out (an update is idempotent: applied twice, it
        reads the same); a second timeout is taken as applied late."""
        for attempt in (1, 2):
            try:
                await self.client.chat_update(channel=channel, ts=ts, text=message.text, blocks=message.blocks)
                return
            except TimeoutError:
                slack_timeout(self.metrics, "chat.update")
                if attempt == 2:
                    return

    async def tell(self, user: str, channel: str, text: str) -> None:
        """A short private note: ephemeral where the click was, or the user's DM when it has no channel
        (a button of the App Home)."""
        if channel:
            await self.ephemeral(channel, user, SlackMessage(text, []), None)
        else:
            await self.post(user, SlackMessage(text, []))

    def too_busy(self, language: str) -> SlackMessage:
        """The apology for an answer that Slack's rate limits kept out past the bound."""
        bound = int(self.client.queue_bound)
        text = ":hourglass: " + render_words("delivery.too-busy", {"bound_seconds": bound}, language)
        return SlackMessage(text, [{"type": "section", "text": {"type": "mrkdwn", "text": text}}])

    async def apology(self, where: str, channel: str, thread_ts: str | None, user: str, error: BaseException) -> None:
        if isinstance(error, RateLimited):
            await self._too_busy(where, channel, thread_ts, user)
            return
        incident = uuid.uuid4().hex[:8]
        self.metrics.errors.labels(where).inc()
        log.error(
            "slack: could not answer",
            extra={"incident": incident, "where": where, "channel": channel, "error": repr(error)},
            exc_info=error,
        )
        language = await self.language(user) if user else self.default_language
        try:
            await self.post(channel, render.apology(incident, language=language), thread_ts=thread_ts)
        except (SlackApiError, PostLost, TimeoutError):
            log.error("slack: could not even apologise", extra={"incident": incident})

    async def _too_busy(self, where: str, channel: str, thread_ts: str | None, user: str) -> None:
        """One short apology, to the asker only where Slack allows (chat.postEphemeral has limits of its own),
        else in the thread; bounded, and never a second one."""
        self.metrics.answers_dropped.labels(where).inc()
        log.warning("slack: Slack rate-limited the answer past the bound", extra={"where": where, "channel": channel})
        message = self.too_busy(await self.language(user) if user else self.default_language)
        try:
            async with asyncio.timeout(APOLOGY_BOUND):
                if user:
                    try:
                        await self.client.chat_postEphemeral(
                            channel=channel, user=user, text=message.text, blocks=message.blocks, thread_ts=thread_ts
                        )
                        return
                    except SlackApiError as error:
                        slack_error(self.metrics, "chat.postEphemeral", error)
                await self.post(channel, message, thread_ts=thread_ts)
        except (SlackApiError, PostLost, TimeoutError):
            log.warning("slack: could not even apologise for a rate-limited answer", extra={"channel": channel})
