"""The Bolt app: thin listeners. Ack first, parse, ask the service, render, post in the thread, log once.

Every question is answered exactly once: retried deliveries (X-Slack-Retry-Num, Socket Mode retry_attempt)
of an event already seen are dropped by event_id; the bot's own messages are ignored; an error inside
becomes a short apology with an incident id in the thread, never silence. A refusal (a namespace the asker may
not see) is shown to the asker only (chat.postEphemeral, or an ephemeral slash-command reply): the thread gets
nothing.

The rooms: this module wires Bolt (listeners for mentions, DMs, the slash command, the App Home and the
buttons); `bot.slack.people` (locales, emails, audiences), `bot.slack.replies` (what to say: the service's use
cases rendered), `bot.slack.clicks` (the buttons), `bot.slack.posting` (messages out).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)

from bot.httpguard import BODY_TIMEOUT
from bot.metrics import Metrics
from bot.service.ports import Service
from bot.service.results import Asker
from bot.slack import render
from bot.slack.admin import AdminAnswers
from bot.slack.calls import BoundedClient
from bot.slack.clicks import Buttons
from bot.slack.fit_replies import fit_reply
from bot.slack.fitparse import FitAsk, fit_request, shortcut_job
from bot.slack.gate import Door, Ledger
from bot.slack.pace import RateLimited
from bot.slack.parse import Command, Question, parse, question_language
from bot.slack.people import People, slack_error, slack_timeout
from bot.slack.posting import Answer, Poster, Private, pack
from bot.slack.render import Links, SlackMessage
from bot.slack.replies import Replies

log = logging.getLogger(__name__)
FIT_SHORTCUT = "kueue_will_it_fit"  # the message shortcut's callback_id (deploy/slack-app-manifest*.yaml)


@dataclass(frozen=True)
class SlackSettings:
    bot_token: str
    signing_secret: str
    api_url: str
    socket_mode: bool
    default_language: str = "en"
    headlamp_url: str = ""  # answers link Headlamp's Kueue plugin when set


def web_client(settings: SlackSettings, metrics: Metrics) -> BoundedClient:
    """slack_sdk's client, each call bounded; 429s are waited out by BoundedClient itself (per method and
    channel, bot.slack.pace), not by the SDK's handler (which waits within one call's bound, then gives up)."""
    return BoundedClient(
        token=settings.bot_token,
        base_url=settings.api_url,
        timeout=10,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            AsyncServerErrorRetryHandler(max_retry_count=2),
        ],
        metrics=metrics,
    )


@dataclass(frozen=True)
class SlackLink:
    """Slack's Web API client (each call bounded) and who is who there (locales, emails, audiences, remembered),
    made before the bot: the bot answers through it, and so do the notifier's DMs and the admins' digest; the
    access reviews read the askers' emails from it."""

    client: BoundedClient
    people: People


def slack_link(settings: SlackSettings, metrics: Metrics) -> SlackLink:
    client = web_client(settings, metrics)
    return SlackLink(client, People(client, metrics, settings.default_language))


class SlackBot:
    """The Slack side of the bot: a Bolt AsyncApp with its listeners, over `link` (one of its own by default);
    `admin`: `/kueue admin`'s answers (ADMINS)."""

    def __init__(
        self,
        settings: SlackSettings,
        service: Service,
        metrics: Metrics,
        *,
        ledger: Ledger | None = None,
        link: SlackLink | None = None,
        admin: AdminAnswers | None = None,
    ) -> None:
        self.settings = settings
        self.service = service
        self.metrics = metrics
        link = link or slack_link(settings, metrics)
        self.client = link.client
        self._seen = ledger or Ledger()  # event ids (and, over HTTP, signatures) already handled
        self.door = Door(settings.signing_secret, self._seen)
        self.body_timeout = BODY_TIMEOUT
        self.people = link.people
        self.poster = Poster(self.client, metrics, self.people.language, settings.default_language)
        self.replies = Replies(service, metrics, Links(settings.headlamp_url), admin)
        self.buttons = Buttons(service, metrics, self.replies, self.poster, self.people.language, self._asker)
        bolt_logger = logging.getLogger("slack_bolt.AsyncApp")
        if not any(isinstance(f, _TokenFromEnvironment) for f in bolt_logger.filters):
            bolt_logger.addFilter(_TokenFromEnvironment())
        self.app = AsyncApp(
            client=self.client,
            signing_secret=settings.signing_secret or None,
            process_before_response=False,
            request_verification_enabled=not settings.socket_mode,
            ignoring_self_events_enabled=True,
        )
        self._register()

    @property
    def lookup_timeout(self) -> float:
        """users.info for a locale or an email: past this, the default (an answer, never silence)."""
        return self.people.lookup_timeout

    @lookup_timeout.setter
    def lookup_timeout(self, seconds: float) -> None:
        self.people.lookup_timeout = seconds

    @property
    def reconcile_seconds(self) -> float:
        """How long a post that timed out is looked for in the conversation (bot.slack.calls)."""
        return self.poster.reconcile_seconds

    @reconcile_seconds.setter
    def reconcile_seconds(self, seconds: float) -> None:
        self.poster.reconcile_seconds = seconds

    async def language(self, user: str) -> str:
        """The user's language (bot.slack.people)."""
        return await self.people.language(user)

    async def email_of(self, user: str) -> str | None:
        """The user's email in Slack, for USER_IDENTITY_TEMPLATE (bot.slack.people)."""
        return await self.people.email_of(user)

    async def post(self, channel: str, message: SlackMessage, *, thread_ts: str | None = None) -> str | None:
        """Post once (bot.slack.posting)."""
        return await self.poster.post(channel, message, thread_ts=thread_ts)

    # --- wiring -------------------------------------------------------------------------------------

    def _register(self) -> None:
        app = self.app
        app.middleware(self._drop_retries)
        app.event("app_mention")(self._on_mention)
        app.event("message")(self._on_message)
        app.event("app_home_opened")(self._on_home_opened)
        app.command("/kueue")(self._on_command)
        app.shortcut(FIT_SHORTCUT)(self._on_fit_shortcut)
        for action_id, listener in self.buttons.listeners().items():
            app.action(action_id)(listener)
        app.error(self._on_error)

    async def _drop_retries(self, body: dict[str, Any], next: Callable[[], Awaitable[None]]) -> BoltResponse | None:
        event_id = body.get("event_id")
        if isinstance(event_id, str) and not await self._seen.first_time(f"event:{event_id}"):
            log.info("slack: duplicate event dropped", extra={"event_id": event_id})
            return BoltResponse(status=200, body="")
        await next()
        return None

    async def _on_error(self, error: Exception, body: dict[str, Any]) -> None:
        log.error("slack: unhandled error in a listener", exc_info=error)

    async def _asker(self, user: str, channel: str) -> Asker:
        """Who asks, where, and (when access depends on the person) who else reads a public answer there."""
        if not self.service.per_person:
            return Asker(user, channel)
        return Asker(user, channel, await self.people.audience(user, channel))

    # --- questions ----------------------------------------------------------------------------------

    def _question(self, text: str, *, bot_user_id: str | None = None) -> Question:
        """The question in `text`, with the cluster it names (taken out of its words: Service.scope)."""
        cluster, words = self.service.scope(text)
        return replace(parse(words, bot_user_id=bot_user_id), cluster=cluster)

    async def _handle_text(self, text: str, user: str, channel: str, thread_ts: str, where: str) -> None:
        started = time.monotonic()
        try:
            language = question_language(text) or await self.language(user)  # answered in the question's words
            unknown = self.service.unknown_cluster(text)
            if unknown is not None:  # never answered from another cluster than the one named
                await self.poster.answer_in_thread(
                    channel, thread_ts, [render.unknown_cluster(*unknown, language=language)], user=user
                )
                return
            question = self._question(text, bot_user_id=self.people.bot_user)
            ask = fit_request(text)  # "will this fit?" with a job's YAML: the dry run (bot.slack.fit_replies)
            if ask is not None:
                asker = await self._asker(user, channel)
                fitted = await fit_reply(self.service, ask, asker, language, cluster=question.cluster)
                await self.poster.answer_in_thread(channel, thread_ts, fitted, user=user)
                return
            messages = await self.replies.to_question(question, await self._asker(user, channel), language)
            await self.poster.answer_in_thread(channel, thread_ts, messages, user=user)
            log.info("question answered", extra={"where": where, "channel": channel, "command": question.command.value})
        except Exception as error:  # noqa: BLE001 - an apology in the thread, never silence
            await self.poster.apology(where, channel, thread_ts, user, error)
        finally:
            self.metrics.answer_seconds.labels(where).observe(time.monotonic() - started)

    async def _on_mention(self, event: dict[str, Any], context: dict[str, Any]) -> None:
        if event.get("bot_id"):
            return
        self.people.bot_user = context.get("bot_user_id") or self.people.bot_user
        thread_ts = str(event.get("thread_ts") or event.get("ts") or "")
        await self._handle_text(
            str(event.get("text") or ""), str(event.get("user") or ""), str(event["channel"]), thread_ts, "mention"
        )

    async def _on_message(self, event: dict[str, Any], context: dict[str, Any]) -> None:
        if event.get("channel_type") != "im" or event.get("subtype") or event.get("bot_id"):
            return  # only people's direct messages; channel messages come as app_mention
        self.people.bot_user = context.get("bot_user_id") or self.people.bot_user
        thread_ts = str(event.get("thread_ts") or event.get("ts") or "")
        await self._handle_text(
            str(event.get("text") or ""), str(event.get("user") or ""), str(event["channel"]), thread_ts, "dm"
        )

    async def _on_command(
        self, ack: Callable[..., Awaitable[None]], command: dict[str, Any], respond: Callable[..., Awaitable[Any]]
    ) -> None:
        await ack()
        started = time.monotonic()
        user = str(command.get("user_id") or "")
        channel = str(command.get("channel_id") or "")
        try:
            language = question_language(str(command.get("text") or "")) or await self.language(user)
            unknown = self.service.unknown_cluster(str(command.get("text") or ""))
            if unknown is not None:  # never answered from another cluster than the one named
                refusal = render.unknown_cluster(*unknown, language=language)
                await respond(text=refusal.text, blocks=refusal.blocks, response_type="ephemeral")
                return
            ask = fit_request(str(command.get("text") or ""))  # `/kueue fit ...`, `/kueue quota ...`
            question = self._question(str(command.get("text") or ""))
            if ask is not None:
                asker = await self._asker(user, channel)
                messages = await fit_reply(self.service, ask, asker, language, cluster=question.cluster)
            else:
                messages = await self.replies.to_question(question, await self._asker(user, channel), language)
            answered = question.command == Command.WHY and len(messages) == 1 and isinstance(messages[0], Answer)
            is_answer = answered or ask is not None
            if not is_answer or any(isinstance(m, Private) for m in messages):
                for message in pack([SlackMessage(m.text, m.blocks) for m in messages]):
                    await respond(text=message.text, blocks=message.blocks, response_type="ephemeral")
                return
            await self._answer_in_channel(channel, messages, respond)
            log.info("question answered", extra={"where": "command", "channel": channel})
        except RateLimited:  # Slack would not take the answer in time: one short apology, to the asker only
            self.metrics.answers_dropped.labels("command").inc()
            log.warning("slack: Slack rate-limited the answer past the bound", extra={"where": "command"})
            busy = self.poster.too_busy(self.settings.default_language)
            await respond(text=busy.text, blocks=busy.blocks, response_type="ephemeral")
        except Exception as error:
            incident = uuid.uuid4().hex[:8]
            self.metrics.errors.labels("command").inc()
            log.error("slack: could not answer", extra={"incident": incident, "where": "command"}, exc_info=error)
            apology = render.apology(incident, language=self.settings.default_language)
            await respond(text=apology.text, blocks=apology.blocks, response_type="ephemeral")
        finally:
            self.metrics.answer_seconds.labels("command").observe(time.monotonic() - started)

    async def _on_fit_shortcut(
        self, ack: Callable[..., Awaitable[None]], body: dict[str, Any], respond: Callable[..., Awaitable[Any]]
    ) -> None:
        """The message shortcut "Will it fit?": the dry run of the YAML the message holds, in its thread (to the
        asker only when the bot is not in the channel)."""
        await ack()
        user = str((body.get("user") or {}).get("id") or "")
        channel = str((body.get("channel") or {}).get("id") or "")
        posted = body.get("message") or {}
        thread_ts = str(posted.get("thread_ts") or posted.get("ts") or "")
        language = await self.language(user)
        ask = FitAsk("yaml", shortcut_job(str(posted.get("text") or "")))
        messages = await fit_reply(self.service, ask, await self._asker(user, channel), language)
        try:
            await self.poster.answer_in_thread(channel, thread_ts, messages, user=user)
        except SlackApiError:
            for message in pack([SlackMessage(m.text, m.blocks) for m in messages]):
                await respond(text=message.text, blocks=message.blocks, response_type="ephemeral")
        log.info("question answered", extra={"where": "shortcut", "channel": channel})

    async def _answer_in_channel(
        self, channel: str, messages: list[SlackMessage], respond: Callable[..., Awaitable[Any]]
    ) -> None:
        """A slash command's answer, public: its first message in the channel (a why's steps are one click away,
        in its thread; a fit's details follow there); through the command's response_url when the bot is not a
        member of the channel."""
        try:
            ts = await self.post(channel, messages[0])
            if ts and messages[1:]:
                await self.poster.answer_in_thread(channel, ts, messages[1:])
        except SlackApiError as error:
            code = error.response.get("error") if error.response is not None else ""
            if code not in ("not_in_channel", "channel_not_found"):
                raise
            for message in pack(messages):
                await respond(text=message.text, blocks=message.blocks, response_type="in_channel")

    async def _on_home_opened(self, event: dict[str, Any]) -> None:
        if event.get("tab") not in (None, "home"):
            return
        user = str(event.get("user") or "")
        try:
            language = await self.language(user)
            watched = await self.service.home(user)
            told = await self.service.home_told(user)
            view = render.home_view(watched, language=language, told=told)
            await self.client.views_publish(user_id=user, view=view)
        except SlackApiError as error:
            slack_error(self.metrics, "views.publish", error)
        except TimeoutError:
            slack_timeout(self.metrics, "views.publish")
        except Exception:
            log.exception("slack: could not publish the Home tab", extra={"user": user})


class _TokenFromEnvironment(logging.Filter):
    """Bolt reads SLACK_BOT_TOKEN from the environment by itself and warns that our own client (which carries
    that token, the Slack API URL and the retry handlers) makes it unused: true, expected, and noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in record.getMessage()
