"""The demo's chat: a line you type, delivered to the real bot as Slack would deliver it, signed, and the wait
for its answer.

"/kueue ..." is a slash command, "dm ..." a direct message, anything else an @mention in #ml-platform;
"click watch" clicks a button of the last message that has it; "more" shows the rest of a long answer.
A line is over when the bot has answered it: the listener's "question answered" log record (or its apology),
a response_url reply, or for a button its first visible effect. No sleeps: every wait is on the stand-in's
records or on that record, with a timeout that makes a missing answer a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from bot.copy import render
from bot.demo.source import DemoSource, Moment
from bot.demo.transcript import CHANNEL, CHANNEL_NAME, USER, USER_NAME, Transcript
from bot.server import Server
from bot.standin.model import JsonDict
from bot.standin.slack import FakeSlack

ANSWER_TIMEOUT = 20.0
DM_TIMEOUT = 30.0
_ANSWERED = "question answered"  # bot.slack.app logs these once a question's answer is posted
_APOLOGISED = "slack: could not answer"
_ANSWER_METHODS = frozenset({"chat.postMessage", "chat.update", "chat.postEphemeral"})
_WATCHER_ACTIONS = frozenset({"kueue_watch", "kueue_snooze_2h", "kueue_snooze_1d", "kueue_stop"})


class AnswerLog(logging.Handler):
    """Counts the Slack listeners' "question answered" (and apology) records, and wakes whoever waits."""

    def __init__(self, wake: Callable[[], None]) -> None:
        super().__init__(logging.INFO)
        self.answered = 0
        self.apologised = 0
        self._wake = wake

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg == _ANSWERED:
            self.answered += 1
            self._wake()
        elif record.msg == _APOLOGISED:
            self.apologised += 1
            self._wake()


class _Pulse:
    """An edge anyone can wait for: the stand-in saw a request, or the bot logged an answer."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def fire(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self) -> None:
        await self._event.wait()


class Chat:
    """Lines in, the bot's answers out."""

    def __init__(
        self,
        slack: FakeSlack,
        server: Server,
        source: DemoSource,
        transcript: Transcript,
        *,
        echo: bool,
        language: str = "en",
    ) -> None:
        self.slack = slack
        self.language = language  # the demo user's: the help's words
        self.server = server
        self.source = source
        self.transcript = transcript
        self.style = transcript.style
        self.echo = echo
        self.url = f"{server.url}/slack/events"
        self.pulse = _Pulse()
        self.answers = AnswerLog(self.pulse.fire)
        self.quit = False
        self._dms_waited = 0

    # --- the moving parts -----------------------------------------------------------------------------

    async def follow(self) -> None:
        """Print what the bot does as it does it (the background task of the demo)."""
        seen = self.slack.activity
        while True:
            seen = await self.slack.wait_for_activity(seen)
            self.transcript.flush()
            self.pulse.fire()

    async def _until(self, done: Callable[[], bool], timeout: float) -> bool:  # noqa: ASYNC109
        try:
            async with asyncio.timeout(timeout):
                while not done():
                    await self.pulse.wait()
        except TimeoutError:
            return done()
        return True

    def note(self, text: str) -> None:
        self.transcript.write([self.style.dim(f"({text})")])

    # --- a line ---------------------------------------------------------------------------------------

    async def say(self, line: str) -> bool:
        """Deliver one line as Slack would; True when it got its answer."""
        text = line.strip()
        word, _, rest = text.partition(" ")
        lowered = word.lower()
        self.transcript.new_page(keep=lowered in ("more", "/more"))
        if self.echo and text:
            self.transcript.echo(f"{self.style.bold(USER_NAME + '>')} {text}")
        if not text:
            return True
        if lowered in ("quit", "exit", "/quit", "/exit"):
            self.quit = True
            return True
        if lowered in ("help", "/help", "?"):
            self.transcript.write([render("demo.help", None, self.language)])
            return True
        if lowered in ("more", "/more") and not rest:
            if not self.transcript.more():
                self.note("nothing more to show: the last answer was shown whole")
            return True
        if lowered in ("/advance", "/wait"):
            return await self.advance()
        if lowered == "/wait-dm":
            return await self.wait_dm(rest.strip())
        if lowered == "/digest":
            return await self.digest()
        if lowered == "click":
            return await self.click(rest.strip())
        if lowered == "dm":
            return await self._question(self.slack.im_event(USER, rest.strip()))
        if lowered == "/kueue":
            return await self._command(rest.strip())
        if text.startswith("/"):
            self.note(f"unknown command {word}: type help")
            return False
        for prefix in ("@kueue-bot", "@kueue_bot", "@bot"):
            if text.lower().startswith(prefix):
                text = text[len(prefix) :].lstrip(" ,:")
        return await self._question(self.slack.app_mention_event(USER, CHANNEL, text))

    async def _question(self, event: JsonDict) -> bool:
        before = (self.answers.answered, self.answers.apologised)
        delivery = await self.slack.deliver_event(self.url, event)
        if delivery.status != 200:
            self.note(f"kueue-bot refused the event: HTTP {delivery.status}")
            return False
        mark = self.slack.activity
        answered = await self._until(
            lambda: (
                self.answers.answered > before[0]
                or (self.answers.apologised > before[1] and self.slack.activity > mark)
            ),
            ANSWER_TIMEOUT,
        )
        return self._finish(answered)

    async def _command(self, text: str) -> bool:
        before = (self.answers.answered, self.answers.apologised)
        delivery = await self.slack.deliver_slash_command(self.url, text=text, user_id=USER, channel_id=CHANNEL)
        if delivery.status != 200:
            self.note(f"kueue-bot refused the command: HTTP {delivery.status}")
            return False
        mark = self.slack.activity

        def replied() -> bool:
            for post in self.slack.responses():
                if post.url == delivery.response_url and post.body.get("response_type") != "in_channel":
                    return True  # an ephemeral reply (help, a queue, an apology) is the whole answer
            return self.answers.answered > before[0] or (
                self.answers.apologised > before[1] and self.slack.activity > mark
            )

        return self._finish(await self._until(replied, ANSWER_TIMEOUT))

    async def click(self, wanted: str) -> bool:
        found = self.transcript.last_button(wanted) if wanted else None
        if found is None:
            self.note(f"no button {wanted!r} on the messages so far: try click watch, click recheck or click queue")
            return False
        channel, message, button = found
        where = f"#{CHANNEL_NAME}" if channel == CHANNEL else "your DM"
        self.note(f"you click [{button.label}] on kueue-bot's message in {where}")
        passes = self.passes()
        calls = len(self.slack.calls())
        responses = len(self.slack.responses())
        ephemerals = len(self.slack.ephemerals())
        delivery = await self.slack.deliver_block_action(
            self.url,
            action_id=button.action_id,
            user_id=USER,
            channel_id=channel,
            message_ts=message.ts,
            value=button.value,
        )
        if delivery.status != 200:
            self.note(f"kueue-bot refused the click: HTTP {delivery.status}")
            return False

        def answered() -> bool:
            visible = any(call.method in _ANSWER_METHODS for call in self.slack.calls()[calls:])
            return visible or len(self.slack.responses()) > responses or len(self.slack.ephemerals()) > ephemerals

        done = self._finish(await self._until(answered, ANSWER_TIMEOUT))
        if button.action_id in _WATCHER_ACTIONS:
            await self.watcher_looked(passes)  # watching (or snoozing) wakes the watcher up
        return done

    def _finish(self, answered: bool) -> bool:
        self.transcript.flush()
        if not answered:
            self.note(f"no answer from kueue-bot within {ANSWER_TIMEOUT:.0f} s")
        self.transcript.tell_held()
        return answered

    async def advance(self) -> bool:
        passes = self.passes()
        moment = self.source.advance()
        if moment is None:
            self.note("the story is over: the cluster has no next moment")
            return False
        self.announce(moment)
        await self.watcher_looked(passes)
        return True

    def passes(self) -> int:
        notifier = self.server.notifier
        return notifier.passes if notifier is not None else 0

    async def watcher_looked(self, passes: int) -> None:
        """Wait (a while at most) until the watcher has made a pass after `passes`: what it has to say about
        a change is then said before the next line, not in the middle of it."""
        notifier = self.server.notifier
        if notifier is not None:
            with contextlib.suppress(TimeoutError):
                await notifier.wait_for_pass(passes + 1, timeout=ANSWER_TIMEOUT)
        self.transcript.flush()

    def announce(self, moment: Moment) -> None:
        style = self.style
        title, said = moment.said(self.language)
        lines = [style.accent(f"── {title} ──")]
        lines += [style.dim(f"   {news}") for news in said]
        self.transcript.write([*lines, ""])

    async def digest(self) -> bool:
        """The admins' daily digest, now: it comes to you by DM, as to every admin."""
        digest = self.server.admin_digest
        if digest is None:
            self.note("no admins' digest here")
            return False
        await digest.run_once()
        return await self.wait_dm("admin")

    async def wait_dm(self, wanted: str) -> bool:
        # a script's word in the reader's language too ("admitted" is "admis" in French)
        words = {wanted.lower(), render(f"demo.wait-word.{wanted.lower()}", None, self.language).lower()}
        words.discard(f"demo.wait-word.{wanted.lower()}")  # a word without a translation: itself only

        def arrived() -> bool:
            for index in range(self._dms_waited, len(self.transcript.dms)):
                if any(word in self.transcript.dms[index].lower() for word in words):
                    self._dms_waited = index + 1
                    return True
            return False

        self.transcript.flush()
        if await self._until(arrived, DM_TIMEOUT):
            return True
        self.note(f"no DM{' about ' + repr(wanted) if wanted else ''} within {DM_TIMEOUT:.0f} s")
        return False
