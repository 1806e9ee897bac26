"""The Bolt app: thin listeners. Ack first, parse, ask the service, render, post in the thread, log once.

Every question is answered exactly once: retried deliveries (X-Slack-Retry-Num, Socket Mode retry_attempt)
of an event already seen are dropped by event_id; the bot's own messages are ignored; an error inside
becomes a short apology with an incident id in the thread, never silence. A refusal (a namespace the asker may
not see) is shown to the asker only (chat.postEphemeral, or an ephemeral slash-command reply): the thread gets
nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.copy import language_of
from bot.copy import render as render_words
from bot.errors import BadQuery
from bot.httpguard import BODY_TIMEOUT
from bot.metrics import Metrics
from bot.service import (
    MAX_AUDIENCE,
    Answered,
    Asker,
    BotService,
    Choose,
    Muted,
    NotFound,
    Refused,
    Silence,
    Unavailable,
    Unsupported,
    Using,
    Watching,
)
from bot.slack import render, render_who
from bot.slack.calls import RECONCILE_SECONDS, BoundedClient, PostLost, post_once
from bot.slack.gate import Door, Ledger
from bot.slack.mrkdwn import code
from bot.slack.mrkdwn import code as mrkdwn_code
from bot.slack.parse import Command, Question, parse
from bot.slack.render import SlackMessage
from bot.trace.queueview import QueueView
from bot.trace.usage import Unknown

log = logging.getLogger(__name__)

MAX_BLOCKS = render.MAX_BLOCKS  # one message's blocks (Slack's limit), written once in render
# The buttons under a DM (and the Home's Stop): their action ids (render's) to what they ask of the service.
SILENCES = {
    render.ACTION_SNOOZE_2H: Silence.SNOOZE_2H,
    render.ACTION_SNOOZE_1D: Silence.SNOOZE_1D,
    render.ACTION_STOP: Silence.STOP,
}
_LOCALE_TTL = 3600.0
_LOCALE_RETRY = 60.0  # a user whose locale could not be read is asked again after this
LOOKUP_TIMEOUT = 3.0  # users.info for a locale or an email: past this, the default (an answer, never silence)


@dataclass(frozen=True)
class SlackSettings:
    bot_token: str
    signing_secret: str
    api_url: str
    socket_mode: bool
    default_language: str = "en"


class _RecordingRateLimitHandler(AsyncRateLimitErrorRetryHandler):
    """Waits for Retry-After (the SDK's handler) and counts the 429s."""

    def __init__(self, metrics: Metrics) -> None:
        super().__init__(max_retry_count=3)
        self._metrics = metrics

    async def _can_retry_async(self, *, state: Any, request: Any, response: Any = None, error: Any = None) -> bool:
        can = await super()._can_retry_async(state=state, request=request, response=response, error=error)
        if response is not None and response.status_code == 429:
            method = str(getattr(request, "url", "")).rsplit("/", 1)[-1] or "unknown"
            self._metrics.slack_ratelimited.labels(method).inc()
        return bool(can)


def web_client(settings: SlackSettings, metrics: Metrics) -> AsyncWebClient:
    return BoundedClient(
        token=settings.bot_token,
        base_url=settings.api_url,
        timeout=10,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            _RecordingRateLimitHandler(metrics),
            AsyncServerErrorRetryHandler(max_retry_count=2),
        ],
    )


@dataclass(frozen=True)
class _Private(SlackMessage):
    """A message for the asker's eyes only (a refusal): posted ephemerally, never in the thread."""


def _private(message: SlackMessage) -> SlackMessage:
    return _Private(message.text, message.blocks)


class _BadButton(Exception):
    """A button whose value is not what the bot puts in its buttons (crafted, or from an older version)."""


_BUTTON_FIELDS = ("ns", "name", "kind", "lq")


def _button_value(body: Mapping[str, Any]) -> dict[str, str | None]:
    """The button's value: a JSON object whose known fields are strings (or absent); else _BadButton."""
    actions = body.get("actions") or [{}]
    first = actions[0] if isinstance(actions, list) and actions and isinstance(actions[0], dict) else {}
    try:
        value = json.loads(first.get("value") or "{}")
    except (TypeError, ValueError) as error:
        raise _BadButton() from error
    if not isinstance(value, dict):
        raise _BadButton()
    fields: dict[str, str | None] = {}
    for key in _BUTTON_FIELDS:
        item = value.get(key)
        if item is not None and not isinstance(item, str):
            raise _BadButton()
        fields[key] = item
    return fields


@dataclass(frozen=True)
class _Click:
    """A button clicked: by whom, where (the message, and the thread it is in), which, and its value."""

    user: str
    channel: str
    ts: str
    thread_of: str | None
    action: str
    value: dict[str, str | None]

    audience: tuple[str, ...] | None = ()
    had_details: bool = False  # the clicked message holds the answer's steps too (a mention's answer)

    @property
    def asker(self) -> Asker:
        return Asker(self.user, self.channel, self.audience)

    @property
    def thread(self) -> str:
        """Where an answer to the click goes: the message's thread, or a new thread under the message."""
        return self.thread_of or self.ts


class SlackBot:
    """The Slack side of the bot: a Bolt AsyncApp with its listeners."""

    def __init__(
        self,
        settings: SlackSettings,
        service: BotService,
        metrics: Metrics,
        *,
        ledger: Ledger | None = None,
    ) -> None:
        self.settings = settings
        self.service = service
        self.metrics = metrics
        self.client = web_client(settings, metrics)
        self._seen = ledger or Ledger()  # event ids (and, over HTTP, signatures) already handled
        self.door = Door(settings.signing_secret, self._seen)
        self.body_timeout = BODY_TIMEOUT
        self.lookup_timeout = LOOKUP_TIMEOUT
        self.reconcile_seconds = RECONCILE_SECONDS
        self._audiences: dict[str, tuple[float, tuple[str, ...] | None]] = {}  # channel -> (until, people)
        self._people: dict[str, bool] = {}  # user -> a person (not a bot)?
        self._bot_user: str | None = None
        self._locales: dict[str, tuple[float, str]] = {}
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

    # --- wiring -------------------------------------------------------------------------------------

    def _register(self) -> None:
        app = self.app
        app.middleware(self._drop_retries)
        app.event("app_mention")(self._on_mention)
        app.event("message")(self._on_message)
        app.event("app_home_opened")(self._on_home_opened)
        app.command("/kueue")(self._on_command)
        app.action(render.ACTION_RECHECK)(self._button("recheck", self._on_recheck))
        app.action(render.ACTION_WATCH)(self._button("watch", self._on_watch_button))
        app.action(render.ACTION_SHOW_QUEUE)(self._button("queue", self._on_show_queue))
        app.action(render.ACTION_PICK)(self._button("pick", self._on_pick))
        for action_id in SILENCES:
            app.action(action_id)(self._button("notification", self._on_notification_button))
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

    # --- language -----------------------------------------------------------------------------------

    async def language(self, user: str) -> str:
        """The user's language from their Slack locale; the default when Slack does not say in time (kept
        for a minute, so that the apology of a slow Slack does not wait for it again)."""
        cached = self._locales.get(user)
        now = time.monotonic()
        if cached is not None and now < cached[0]:
            return cached[1]
        language, ttl = self.settings.default_language, _LOCALE_TTL
        if user:
            try:
                async with asyncio.timeout(self.lookup_timeout):
                    info = await self.client.users_info(user=user, include_locale=True)
                locale = (info.get("user") or {}).get("locale")
                language = language_of(locale, self.settings.default_language)
            except SlackApiError as error:
                self._slack_error("users.info", error)
                ttl = _LOCALE_RETRY
            except TimeoutError:
                self._slack_timeout("users.info")
                ttl = _LOCALE_RETRY
        self._locales[user] = (now + ttl, language)
        return language

    async def email_of(self, user: str) -> str | None:
        """The user's email in Slack (users:read.email), for USER_IDENTITY_TEMPLATE; None when unknown (or
        when Slack does not say in time)."""
        if not user:
            return None
        try:
            async with asyncio.timeout(self.lookup_timeout):
                info = await self.client.users_info(user=user)
        except SlackApiError as error:
            self._slack_error("users.info", error)
            return None
        except TimeoutError:
            self._slack_timeout("users.info")
            return None
        email = ((info.get("user") or {}).get("profile") or {}).get("email")
        return str(email) if email else None

    def _slack_timeout(self, method: str) -> None:
        self.metrics.slack_errors.labels(method, "timeout").inc()
        log.warning("slack: API call timed out", extra={"method": method})

    def _slack_error(self, method: str, error: SlackApiError) -> None:
        code = str(error.response.get("error", "unknown")) if error.response is not None else "unknown"
        self.metrics.slack_errors.labels(method, code).inc()
        log.warning("slack: API error", extra={"method": method, "error": code})

    # --- posting ------------------------------------------------------------------------------------

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
            self._slack_error("chat.postMessage", error)
            raise

    async def _ephemeral(self, channel: str, user: str, message: SlackMessage, thread_ts: str | None) -> None:
        """A private message; one that timed out is taken as shown (it cannot be looked for, and an apology in
        the thread would be public)."""
        try:
            await self.client.chat_postEphemeral(
                channel=channel, user=user, text=message.text, blocks=message.blocks, thread_ts=thread_ts
            )
        except TimeoutError:
            self._slack_timeout("chat.postEphemeral")

    async def _answer_in_thread(
        self, channel: str, thread_ts: str, messages: list[SlackMessage], *, user: str = ""
    ) -> None:
        """As few messages as Slack's limits allow (usually one); a private one only to `user`."""
        for message in messages:
            if isinstance(message, _Private) and user:
                await self._ephemeral(channel, user, message, thread_ts)
        public = [m for m in messages if not (isinstance(m, _Private) and user)]
        for message in _pack(public):
            await self.post(channel, message, thread_ts=thread_ts)

    async def _apology(self, where: str, channel: str, thread_ts: str | None, user: str, error: BaseException) -> None:
        incident = uuid.uuid4().hex[:8]
        self.metrics.errors.labels(where).inc()
        log.error(
            "slack: could not answer",
            extra={"incident": incident, "where": where, "channel": channel, "error": repr(error)},
            exc_info=error,
        )
        language = await self.language(user) if user else self.settings.default_language
        try:
            await self.post(channel, render.apology(incident, language=language), thread_ts=thread_ts)
        except (SlackApiError, PostLost, TimeoutError):
            log.error("slack: could not even apologise", extra={"incident": incident})

    # --- the question -------------------------------------------------------------------------------

    async def _messages_for(self, question: Question, asker: Asker, language: str) -> list[SlackMessage]:
        """What to say to a question: the answer, a choice, a refusal, help..."""
        if question.command == Command.HELP:
            return [render.help_message(language=language)]
        if question.command in (Command.MUTE, Command.UNMUTE):
            muted = await self.service.mute(asker, question.command == Command.MUTE)
            if isinstance(muted, Muted):
                return [render.muted(language=language) if muted.on else render.unmuted(language=language)]
        if question.command == Command.WHO or (question.focus == "who" and question.name):  # issue 16
            who = await self._who_message(question, asker, language)
            if who is not None:
                return [who]
        if question.focus and not question.name and question.command == Command.WHY:  # issue 16
            return [render.focused_which_job(question.focus, language=language)]
        if question.command == Command.WHY and not question.name:
            return [render.which_job(language=language)]
        if question.command in (Command.UNKNOWN, Command.MUTE, Command.UNMUTE) or not question.name:
            return [render.unknown_command(question.raw, language=language)]
        if question.command == Command.QUEUE:
            return [await self._queue_message(asker, question.namespace, question.name, language)]
        if question.command in (Command.WATCH, Command.UNWATCH):
            return [await self._watch_message(question, asker, language)]
        outcome = await self.service.ask(
            asker, question.name, namespace=question.namespace, kind=question.kind, prefer_default=True
        )
        return self._outcome_messages(outcome, language)

    def _outcome_messages(self, outcome: object, language: str) -> list[SlackMessage]:
        """Other teams' job names only when the service says the asker may see them (Answered.show_names)."""
        if isinstance(outcome, Answered):
            explanation = outcome.explanation
            self.metrics.questions.labels(explanation.verdict.value, "slack").inc()
            age = self.service.age_seconds()
            answer = [
                render.answer_summary(explanation, language=language, snapshot_age_seconds=age),
                render.answer_details(explanation, language=language, show_names=outcome.show_names),
            ]
            if outcome.public:
                return answer
            return [_private(m) for m in (_privately(explanation.job.namespace, language), *answer)]
        if isinstance(outcome, Choose):
            return [render.choose_job(list(outcome.candidates), language=language)]
        if isinstance(outcome, NotFound):
            return [
                render.not_found(
                    outcome.namespace, outcome.name, outcome.kind, list(outcome.suggestions), language=language
                )
            ]
        if isinstance(outcome, Refused):
            return [_private(render.refused(outcome.namespace, language=language))]
        if isinstance(outcome, Unavailable):
            return [render.cluster_unavailable(self.service.age_seconds(), language=language)]
        raise TypeError(f"unexpected outcome {outcome!r}")

    async def _asker(self, user: str, channel: str) -> Asker:
        """Who asks, where, and (when access depends on the person) who else reads a public answer there."""
        if not self.service.per_person:
            return Asker(user, channel)
        return Asker(user, channel, await self.audience(user, channel))

    async def audience(self, user: str, channel: str) -> tuple[str, ...] | None:
        """The people (bots aside) in a conversation besides `user`: () in a DM with the bot, None when it
        cannot be told in time or is over MAX_AUDIENCE (then answers are private)."""
        if channel.startswith("D"):
            return ()
        cached = self._audiences.get(channel)
        if cached is not None and time.monotonic() < cached[0]:
            return tuple(m for m in cached[1] if m != user) if cached[1] is not None else None
        members: list[str] | None = []
        try:
            async with asyncio.timeout(self.lookup_timeout * 3):
                members = await self._members(channel)
                me = await self._me()
                members = [m for m in members if m != me and await self._is_person(m)] if members is not None else None
        except SlackApiError as error:
            self._slack_error("conversations.members", error)
            members = None
        except TimeoutError:
            self._slack_timeout("conversations.members")
            members = None
        self._audiences[channel] = (time.monotonic() + _LOCALE_RETRY, tuple(members) if members is not None else None)
        return tuple(m for m in members if m != user) if members is not None else None

    async def _members(self, channel: str) -> list[str] | None:
        members: list[str] = []
        cursor: str | None = None
        while True:
            response = await self.client.conversations_members(channel=channel, limit=200, cursor=cursor)
            members.extend(str(m) for m in response.get("members") or [])
            if len(members) > MAX_AUDIENCE + 1:
                return None
            cursor = (response.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                return members

    async def _me(self) -> str:
        if self._bot_user is None:
            self._bot_user = str((await self.client.auth_test()).get("user_id") or "")
        return self._bot_user

    async def _is_person(self, user: str) -> bool:
        known = self._people.get(user)
        if known is None:
            try:
                info = (await self.client.users_info(user=user)).get("user") or {}
                known = not (info.get("is_bot") or info.get("is_app_user") or info.get("deleted"))
            except SlackApiError:
                known = True  # unknown: counted, so the answer stays safe
            self._people[user] = known
        return known

    async def _who_message(self, question: Question, asker: Asker, language: str) -> SlackMessage | None:
        """Who holds a resource, cluster-wide; for "who is using X?" with X a word that could be a job's
        name, None unless X names a resource, flavor or ClusterQueue (then it is the job's holders)."""
        phrase = question.command != Command.WHO
        words = (question.name or "",) if phrase else question.subject
        found = await self.service.who(asker, words, only_if_known=phrase)
        if found is None:
            return None
        if isinstance(found, Using):
            return render_who.who_view(found.usage, language=language, shown=found.shown)
        if isinstance(found, Unknown):
            return render_who.unknown_subject(found, language=language)
        return self._outcome_messages(found, language)[0]

    async def _queue_message(self, asker: Asker, namespace: str | None, name: str, language: str) -> SlackMessage:
        if namespace is None:
            namespaces = await self.service.local_queue_namespaces(asker, name)
            if len(namespaces) > 1:
                return render.choose_queue(name, namespaces, language=language)
            if not namespaces:
                return render.not_found(None, name, "LocalQueue", [], language=language)
            namespace = namespaces[0]
        view = await self.service.queue(asker, namespace, name)
        if isinstance(view, QueueView):
            if not await self.service.audience_sees(asker, [namespace]):  # to the asker only, then
                names = await self.service.may_see_all(asker, (waiting.namespace for waiting in view.waiting))
                return _private(
                    _joined(
                        _privately(namespace, language), render.queue_view(view, language=language, show_names=names)
                    )
                )
            names = await self.service.audience_sees(asker, (waiting.namespace for waiting in view.waiting))
            return render.queue_view(view, language=language, show_names=names)
        return self._outcome_messages(view, language)[0]

    async def _watch_message(self, question: Question, asker: Asker, language: str) -> SlackMessage:
        assert question.name is not None
        on = question.command == Command.WATCH
        done = await self.service.watch(asker, question.name, namespace=question.namespace, kind=question.kind, on=on)
        if isinstance(done, Unsupported):
            return render.unknown_command(question.raw, language=language)
        if isinstance(done, Watching):
            confirmed = render.watch_confirmed if done.on else render.unwatch_confirmed
            return confirmed(done.namespace, done.name, language=language)
        return self._outcome_messages(done, language)[0]

    async def _handle_text(self, text: str, user: str, channel: str, thread_ts: str, where: str) -> None:
        started = time.monotonic()
        try:
            language = await self.language(user)
            question = parse(text, bot_user_id=self._bot_user)
            messages = await self._messages_for(question, await self._asker(user, channel), language)
            await self._answer_in_thread(channel, thread_ts, messages, user=user)
            log.info("question answered", extra={"where": where, "channel": channel, "command": question.command.value})
        except Exception as error:  # noqa: BLE001 - an apology in the thread, never silence
            await self._apology(where, channel, thread_ts, user, error)
        finally:
            self.metrics.answer_seconds.labels(where).observe(time.monotonic() - started)

    async def _on_mention(self, event: dict[str, Any], context: dict[str, Any]) -> None:
        if event.get("bot_id"):
            return
        self._bot_user = context.get("bot_user_id") or self._bot_user
        thread_ts = str(event.get("thread_ts") or event.get("ts") or "")
        await self._handle_text(
            str(event.get("text") or ""), str(event.get("user") or ""), str(event["channel"]), thread_ts, "mention"
        )

    async def _on_message(self, event: dict[str, Any], context: dict[str, Any]) -> None:
        if event.get("channel_type") != "im" or event.get("subtype") or event.get("bot_id"):
            return  # only people's direct messages; channel messages come as app_mention
        self._bot_user = context.get("bot_user_id") or self._bot_user
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
            language = await self.language(user)
            question = parse(str(command.get("text") or ""))
            messages = await self._messages_for(question, await self._asker(user, channel), language)
            is_answer = question.command == Command.WHY and len(messages) == 2
            if not is_answer or any(isinstance(m, _Private) for m in messages):
                for message in _pack([SlackMessage(m.text, m.blocks) for m in messages]):
                    await respond(text=message.text, blocks=message.blocks, response_type="ephemeral")
                return
            try:
                ts = await self.post(channel, messages[0])
                if ts:
                    await self._answer_in_thread(channel, ts, messages[1:])
            except SlackApiError as error:
                code = error.response.get("error") if error.response is not None else ""
                if code not in ("not_in_channel", "channel_not_found"):
                    raise
                # Not a member of the channel: answer through the command's response_url.
                for message in _pack(messages):
                    await respond(text=message.text, blocks=message.blocks, response_type="in_channel")
            log.info("question answered", extra={"where": "command", "channel": channel})
        except Exception as error:
            incident = uuid.uuid4().hex[:8]
            self.metrics.errors.labels("command").inc()
            log.error("slack: could not answer", extra={"incident": incident, "where": "command"}, exc_info=error)
            apology = render.apology(incident, language=self.settings.default_language)
            await respond(text=apology.text, blocks=apology.blocks, response_type="ephemeral")
        finally:
            self.metrics.answer_seconds.labels("command").observe(time.monotonic() - started)

    # --- buttons ------------------------------------------------------------------------------------

    @staticmethod
    def _where(body: Mapping[str, Any]) -> tuple[str, str, str]:
        """(user, channel, message ts) of an interactive payload."""
        user = str((body.get("user") or {}).get("id") or "")
        container = body.get("container") or {}
        channel = str((body.get("channel") or {}).get("id") or container.get("channel_id") or "")
        message = body.get("message") or {}
        ts = str(container.get("message_ts") or message.get("ts") or "")
        return user, channel, ts

    def _button(self, where: str, act: Callable[[_Click], Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        """A button's listener: ack, read the click (a button value that is not ours gets a friendly
        ephemeral note, never a public apology), act; an error inside becomes an apology in the thread."""

        async def listener(ack: Callable[..., Awaitable[None]], body: dict[str, Any]) -> None:
            await ack()
            user, channel, ts = self._where(body)
            action = (body.get("actions") or [{}])[0]
            try:
                click = _Click(
                    user,
                    channel,
                    ts,
                    _thread_of(body),
                    str(action.get("action_id") or ""),
                    _button_value(body),
                    (await self._asker(user, channel)).audience,
                    _has_details(body),
                )
            except _BadButton:
                await self._bad_button(user, channel, ts)
                return
            try:
                await act(click)
            except BadQuery:  # the value names no job (a crafted button)
                await self._bad_button(user, channel, ts)
            except Exception as error:  # noqa: BLE001 - an apology in the thread, never silence
                await self._apology(where, channel or user, ts, user, error)

        return listener

    async def _tell(self, user: str, channel: str, text: str) -> None:
        """A short private note: ephemeral where the click was, or the user's DM when it has no channel
        (a button of the App Home)."""
        if channel:
            await self._ephemeral(channel, user, SlackMessage(text, []), None)
        else:
            await self.post(user, SlackMessage(text, []))

    async def _bad_button(self, user: str, channel: str, ts: str) -> None:
        self.metrics.errors.labels("bad-button").inc()
        log.info("slack: a button with a value that is not ours", extra={"user": user, "channel": channel})
        language = await self.language(user)
        await self._tell(
            user, channel, render_words("slack.bad_button", {"how": "`/kueue why NAMESPACE/JOB`"}, language)
        )

    async def _on_recheck(self, click: _Click) -> None:
        language = await self.language(click.user)
        value = click.value
        outcome = await self.service.ask(click.asker, value["name"] or "", namespace=value["ns"], kind=value["kind"])
        if isinstance(outcome, Answered) and outcome.public:
            # The message as it was made: the summary, and the steps when it held them (a mention's answer).
            age = self.service.age_seconds()
            message = render.answer_summary(outcome.explanation, language=language, snapshot_age_seconds=age)
            if click.had_details:
                details = render.answer_details(outcome.explanation, language=language, show_names=outcome.show_names)
                message = _pack([message, details])[0]
            await self._update(click.channel, click.ts, message)
            self.metrics.questions.labels(outcome.explanation.verdict.value, "recheck").inc()
        else:
            messages = self._outcome_messages(outcome, language)
            await self._answer_in_thread(click.channel, click.ts, messages, user=click.user)

    async def _update(self, channel: str, ts: str, message: SlackMessage) -> None:
        """chat.update, tried a second time when it timed out (an update is idempotent: applied twice, it
        reads the same); a second timeout is taken as applied late."""
        for attempt in (1, 2):
            try:
                await self.client.chat_update(channel=channel, ts=ts, text=message.text, blocks=message.blocks)
                return
            except TimeoutError:
                self._slack_timeout("chat.update")
                if attempt == 2:
                    return

    async def _on_show_queue(self, click: _Click) -> None:
        language = await self.language(click.user)
        message = await self._queue_message(click.asker, click.value["ns"], click.value["lq"] or "", language)
        await self._answer_in_thread(click.channel, click.thread, [message], user=click.user)

    async def _on_watch_button(self, click: _Click) -> None:
        language = await self.language(click.user)
        value = click.value
        question = Question(Command.WATCH, value["ns"], value["name"], value["kind"], raw="watch")
        message = await self._watch_message(question, click.asker, language)
        await self._ephemeral(click.channel, click.user, message, click.thread)

    async def _on_pick(self, click: _Click) -> None:
        language = await self.language(click.user)
        value = click.value
        outcome = await self.service.ask(click.asker, value["name"] or "", namespace=value["ns"], kind=value["kind"])
        await self._answer_in_thread(
            click.channel, click.thread, self._outcome_messages(outcome, language), user=click.user
        )

    async def _on_notification_button(self, click: _Click) -> None:
        """Snooze or Stop under a DM (bot.notify.actions: for a namespace the clicker may see, like every read),
        confirmed privately, the job named escaped (a crafted value is shown as text, never as markup)."""
        how = SILENCES[click.action]
        done = await self.service.silence(click.asker, how, click.value["ns"], click.value["name"])
        if isinstance(done, Unsupported):
            return
        language = await self.language(click.user)
        job = code(f"{done.namespace}/{done.name}")  # what a crafted button names is shown, never formatted
        if done.refused:
            text = render.refused(done.namespace, language=language).text
        elif done.until is None:
            text = render_words("slack.stopped", {"job": job}, language)
        else:
            text = render_words(
                "slack.snoozed", {"job": job, "until": done.until.strftime("%Y-%m-%d %H:%M UTC")}, language
            )
        await self._tell(click.user, click.channel, text)

    async def _on_home_opened(self, event: dict[str, Any]) -> None:
        if event.get("tab") not in (None, "home"):
            return
        user = str(event.get("user") or "")
        try:
            language = await self.language(user)
            watched = await self.service.home(user)
            await self.client.views_publish(user_id=user, view=render.home_view(watched, language=language))
        except SlackApiError as error:
            self._slack_error("views.publish", error)
        except TimeoutError:
            self._slack_timeout("views.publish")
        except Exception:
            log.exception("slack: could not publish the Home tab", extra={"user": user})


class _TokenFromEnvironment(logging.Filter):
    """Bolt reads SLACK_BOT_TOKEN from the environment by itself and warns that our own client (which carries
    that token, the Slack API URL and the retry handlers) makes it unused: true, expected, and noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in record.getMessage()


def _thread_of(body: Mapping[str, Any]) -> str | None:
    message = body.get("message") or {}
    thread = message.get("thread_ts")
    return str(thread) if thread else None


def _pack(messages: list[SlackMessage]) -> list[SlackMessage]:
    """Merge consecutive messages while they fit in one (50 blocks, a short enough fallback)."""
    packed: list[SlackMessage] = []
    for message in messages:
        if packed and len(packed[-1].blocks) + 1 + len(message.blocks) <= MAX_BLOCKS:
            last = packed[-1]
            packed[-1] = SlackMessage(text=last.text, blocks=[*last.blocks, {"type": "divider"}, *message.blocks])
        else:
            packed.append(message)
    return packed


def _privately(namespace: str, language: str) -> SlackMessage:
    """The note above an answer given to the asker only: why it is not in the channel."""
    text = render_words("slack.private_answer", {"namespace": mrkdwn_code(namespace)}, language)
    return SlackMessage(text, [{"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}])


def _joined(first: SlackMessage, second: SlackMessage) -> SlackMessage:
    return SlackMessage(second.text, [*first.blocks, *second.blocks])


def _has_details(body: Mapping[str, Any]) -> bool:
    """Whether the clicked message holds an answer's steps below its summary (packed after a divider)."""
    blocks = (body.get("message") or {}).get("blocks") or []
    return isinstance(blocks, list) and any(isinstance(b, dict) and b.get("type") == "divider" for b in blocks)
