"""The buttons: each action id (render's constants) mapped to its use case, the click read from Slack's
payload (a value that is not ours gets a friendly private note, never a public apology), and what each does:
Re-check, Show the steps, Watch, Show the queue, pick one of several jobs, and Why? / Snooze 2 h / Snooze 1 day /
Stop these DMs under a DM (the Home's Stop and Why? too)."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from bot.copy import render as render_words
from bot.errors import BadQuery
from bot.metrics import Metrics
from bot.service.ports import Service
from bot.service.results import Answered, Asker, Silence, Unsupported
from bot.slack import render
from bot.slack.mrkdwn import code
from bot.slack.parse import Command, Question
from bot.slack.posting import Poster, pack, private
from bot.slack.replies import Replies

log = logging.getLogger(__name__)

# The buttons under a DM (and the Home's Stop): their action ids (render's) to what they ask of the service.
SILENCES = {
    render.ACTION_SNOOZE_2H: Silence.SNOOZE_2H,
    render.ACTION_SNOOZE_1D: Silence.SNOOZE_1D,
    render.ACTION_STOP: Silence.STOP,
}
_FIELDS = ("ns", "name", "kind", "lq", "cl")  # cl: the cluster (absent on older messages)


class BadButton(Exception):
    """A button whose value is not what the bot puts in its buttons (crafted, or from an older version)."""


@dataclass(frozen=True)
class Click:
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


def where(body: Mapping[str, Any]) -> tuple[str, str, str]:
    """(user, channel, message ts) of an interactive payload."""
    user = str((body.get("user") or {}).get("id") or "")
    container = body.get("container") or {}
    channel = str((body.get("channel") or {}).get("id") or container.get("channel_id") or "")
    message = body.get("message") or {}
    ts = str(container.get("message_ts") or message.get("ts") or "")
    return user, channel, ts


def read_click(body: Mapping[str, Any]) -> Click:
    """The click of an interactive payload (its audience still unknown); BadButton when its value is not ours."""
    user, channel, ts = where(body)
    action = (body.get("actions") or [{}])[0]
    message = body.get("message") or {}
    thread = message.get("thread_ts")
    return Click(
        user,
        channel,
        ts,
        str(thread) if thread else None,
        str(action.get("action_id") or ""),
        _value(body),
        had_details=_has_details(body),
    )


def _value(body: Mapping[str, Any]) -> dict[str, str | None]:
    """The button's value: a JSON object whose known fields are strings (or absent); else BadButton."""
    actions = body.get("actions") or [{}]
    first = actions[0] if isinstance(actions, list) and actions and isinstance(actions[0], dict) else {}
    try:
        value = json.loads(first.get("value") or "{}")
    except (TypeError, ValueError) as error:
        raise BadButton() from error
    if not isinstance(value, dict):
        raise BadButton()
    fields: dict[str, str | None] = {}
    for key in _FIELDS:
        item = value.get(key)
        if item is not None and not isinstance(item, str):
            raise BadButton()
        fields[key] = item
    return fields


def _has_details(body: Mapping[str, Any]) -> bool:
    """Whether the clicked message holds an answer's steps below its summary (packed after a divider)."""
    blocks = (body.get("message") or {}).get("blocks") or []
    return isinstance(blocks, list) and any(isinstance(b, dict) and b.get("type") == "divider" for b in blocks)


class Buttons:
    """What each button does, through the service; the answers posted by `poster`."""

    def __init__(
        self,
        service: Service,
        metrics: Metrics,
        replies: Replies,
        poster: Poster,
        language: Callable[[str], Awaitable[str]],
        asker: Callable[[str, str], Awaitable[Asker]],
    ) -> None:
        self.service = service
        self.metrics = metrics
        self.replies = replies
        self.poster = poster
        self.language = language
        self.asker = asker

    def listeners(self) -> dict[str, Callable[..., Awaitable[None]]]:
        """Each action id's listener."""
        found = {
            render.ACTION_RECHECK: self.listener("recheck", self.recheck),
            render.ACTION_WATCH: self.listener("watch", self.watch),
            render.ACTION_SHOW_QUEUE: self.listener("queue", self.show_queue),
            render.ACTION_SHOW_STEPS: self.listener("steps", self.show_steps),
            render.ACTION_OPEN_LINK: self.opened,
            render.ACTION_PICK: self.listener("pick", self.pick),
            render.ACTION_WHY: self.listener("why", self.why),
        }
        for action_id in SILENCES:
            found[action_id] = self.listener("notification", self.silence)
        return found

    def listener(self, name: str, act: Callable[[Click], Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        """A button's listener: ack, read the click (a button value that is not ours gets a friendly
        ephemeral note, never a public apology), act; an error inside becomes an apology in the thread."""

        async def listener(ack: Callable[..., Awaitable[None]], body: dict[str, Any]) -> None:
            await ack()
            user, channel, ts = where(body)
            try:
                click = read_click(body)
                click = replace(click, audience=(await self.asker(user, channel)).audience)
            except BadButton:
                await self.bad_button(user, channel, ts)
                return
            try:
                await act(click)
            except BadQuery:  # the value names no job (a crafted button)
                await self.bad_button(user, channel, ts)
            except Exception as error:  # noqa: BLE001 - an apology in the thread, never silence
                await self.poster.apology(name, channel or user, ts, user, error)

        return listener

    async def bad_button(self, user: str, channel: str, ts: str) -> None:
        self.metrics.errors.labels("bad-button").inc()
        log.info("slack: a button with a value that is not ours", extra={"user": user, "channel": channel})
        language = await self.language(user)
        text = render_words("slack.bad_button", {"how": "`/kueue why NAMESPACE/JOB`"}, language)
        await self.poster.tell(user, channel, text)

    def _place(self, click: Click) -> tuple[str | None, str | None]:
        """The button's cluster and namespace: the cluster it names (`cl`, or a `cluster/namespace` of a choice);
        buttons of older messages name none: the question is then asked as it was, in every cluster."""
        return self.service.place(click.value["cl"], click.value["ns"])

    async def recheck(self, click: Click) -> None:
        language = await self.language(click.user)
        value = click.value
        cluster, namespace = self._place(click)
        outcome = await self.service.ask(
            click.asker, value["name"] or "", namespace=namespace, kind=value["kind"], cluster=cluster
        )
        if isinstance(outcome, Answered) and outcome.public:
            # The message as it was made: the first message, and the steps when it held them (an older answer).
            message = self.replies.first(outcome, language)
            if click.had_details:
                details = self.replies.steps(outcome, language)
                message = pack([message, details])[0]
            await self.poster.update(click.channel, click.ts, message)
            self.metrics.questions.labels(outcome.explanation.verdict.value, "recheck").inc()
        else:
            messages = self.replies.to_outcome(outcome, language)
            await self.poster.answer_in_thread(click.channel, click.ts, messages, user=click.user)

    async def show_steps(self, click: Click) -> None:
        """The admission path of the answer clicked, as it is now, in the answer's thread (to the clicker
        only when the answer is not for the whole channel)."""
        language = await self.language(click.user)
        value = click.value
        cluster, namespace = self._place(click)
        outcome = await self.service.ask(
            click.asker, value["name"] or "", namespace=namespace, kind=value["kind"], cluster=cluster
        )
        if isinstance(outcome, Answered):
            steps = self.replies.steps(outcome, language)
            messages = [steps if outcome.public else private(steps)]
        else:
            messages = self.replies.to_outcome(outcome, language)
        await self.poster.answer_in_thread(click.channel, click.thread, messages, user=click.user)

    @staticmethod
    async def opened(ack: Callable[..., Awaitable[None]]) -> None:
        """A link button (Headlamp): Slack opens the page and still reports the click; acked, nothing to do."""
        await ack()

    async def show_queue(self, click: Click) -> None:
        language = await self.language(click.user)
        cluster, namespace = self._place(click)
        lq = click.value["lq"] or ""
        message = await self.replies.queue(click.asker, namespace, lq, language, cluster=cluster)
        await self.poster.answer_in_thread(click.channel, click.thread, [message], user=click.user)

    async def watch(self, click: Click) -> None:
        language = await self.language(click.user)
        value = click.value
        cluster, namespace = self._place(click)
        question = Question(Command.WATCH, namespace, value["name"], value["kind"], raw="watch", cluster=cluster)
        message = await self.replies.watch(question, click.asker, language)
        await self.poster.ephemeral(click.channel, click.user, message, click.thread)

    async def pick(self, click: Click) -> None:
        await self._answer(click, *self._place(click))

    async def why(self, click: Click) -> None:
        """Why? under a DM or a digest's line: the answer about that job, in the message's thread."""
        await self._answer(click, *self._place(click))

    async def _answer(self, click: Click, cluster: str | None, namespace: str | None) -> None:
        """The answer about the job the button names, in the clicked message's thread."""
        language = await self.language(click.user)
        value = click.value
        outcome = await self.service.ask(
            click.asker, value["name"] or "", namespace=namespace, kind=value["kind"], cluster=cluster
        )
        messages = self.replies.to_outcome(outcome, language)
        if not click.channel:  # a button of the App Home: the answer in the person's DM with the bot
            for message in pack(messages):
                await self.poster.post(click.user, message)
            return
        await self.poster.answer_in_thread(click.channel, click.thread, messages, user=click.user)

    async def silence(self, click: Click) -> None:
        """Snooze or Stop under a DM (the service: for a namespace the clicker may see, like every read),
        confirmed privately, the job named escaped (a crafted value is shown as text, never as markup)."""
        how = SILENCES[click.action]
        cluster, namespace = self._place(click)
        done = await self.service.silence(click.asker, how, namespace, click.value["name"], cluster=cluster)
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
        await self.poster.tell(click.user, click.channel, text)
