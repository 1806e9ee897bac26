"""`python -m bot demo`: the real bot in a terminal, with nothing else running.

The real HTTP server (bot.server.build_server: Bolt, the engine, the watcher and its state store) answers a
Slack stand-in (bot.standin.FakeSlack) on 127.0.0.1, about a demo cluster that moves on over time
(bot.demo.source). What you type is delivered as Slack would deliver it, signed: "/kueue ..." as a slash
command, "dm ..." as a direct message, anything else as an @mention in #ml-platform; "click watch" clicks a
button of the last message that has it. What the bot posts, edits or shows only to you is printed as a person
would read it (bot.demo.text), thread replies indented under their parent, DMs marked as such.

A line is over when the bot has answered it: the listener's "question answered" log record (or its apology),
a response_url reply, or for a button its first visible effect. No sleeps: every wait is on the stand-in's
records or on that record, with a timeout that makes a missing answer a failure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import logging
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TextIO

from bot.config import Secret, Settings
from bot.demo.source import DemoSource, Moment
from bot.demo.text import Button, Style, buttons, matches, message_lines, strip_ansi
from bot.kube.dump import parse_text
from bot.log import setup_logging
from bot.notify.store import open_store
from bot.server import Server, build_server
from bot.service import SnapshotSource, StaticSource
from bot.standin.model import Ephemeral, JsonDict, Message
from bot.standin.slack import FakeSlack

USER, USER_NAME = "U0DEMOUSER", "you"
CHANNEL, CHANNEL_NAME = "C0DEMO", "ml-platform"
BOT_NAME = "kueue-bot"
ADVANCE_EVERY = 40.0
ANSWER_TIMEOUT = 20.0
DM_TIMEOUT = 30.0
TOUR = "script.txt"
_ANSWERED = "question answered"  # bot.slack.app logs these once a question's answer is posted
_APOLOGISED = "slack: could not answer"
_ANSWER_METHODS = frozenset({"chat.postMessage", "chat.update", "chat.postEphemeral"})
_WATCHER_ACTIONS = frozenset({"kueue_watch", "kueue_snooze_2h", "kueue_snooze_1d", "kueue_stop"})

INTRO = """\
{title}
A small Kueue cluster of four teams, and a Slack workspace where you are @you in #ml-platform.
The real kueue-bot answers (its HTTP server, Bolt, the engine, the watcher); Slack is a local stand-in.
The cluster: {moment}.{pace}

Try:
  why is train-octobre pending?              a job that can never fit its queue
  why is vit-large-finetune pending?         a GPU job third in line, in a cohort
  /kueue why robotics/isaac-policy-sweep     held by an admission check
  dm why is llm-eval-70b pending?            admitted, but a pod waits for a node
  /kueue queue equipe-data/default           a queue: its quota and who waits
  click watch, click recheck                 the buttons of the last answer
  /advance                                   the cluster moves on now
  help, quit
"""

HELP = """\
  TEXT                 an @mention of kueue-bot in #ml-platform, e.g. why is train-octobre pending?
  /kueue TEXT          the slash command, e.g. /kueue queue ml-vision/default, /kueue help
  dm TEXT              a direct message to kueue-bot
  click LABEL          a button of the last message that has it: click watch, click recheck, click show queue
  /advance             the cluster moves on to its next moment (also /wait)
  /wait-dm [TEXT]      wait until kueue-bot sends you a DM (containing TEXT)
  /digest              the admins' daily digest, now (you are an admin: /kueue admin shows the same)
  help, quit
"""


@dataclass(frozen=True)
class DemoOptions:
    script: str | None = None  # a file, "-" for stdin, None: interactive (or the tour without a terminal)
    advance_every: float = ADVANCE_EVERY  # seconds between moments in interactive mode; 0: only /advance
    colour: bool = False
    language: str = "en"  # the demo user's Slack locale: en or fr
    verbose: bool = False  # the bot's own log lines on stderr


class _AnswerLog(logging.Handler):
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


@dataclass
class _Seen:
    revisions: dict[tuple[str, str], int] = field(default_factory=dict)
    ephemerals: int = 0


class Transcript:
    """What kueue-bot posted, edited or showed you, printed once each, in order, as a person reads it."""

    def __init__(self, slack: FakeSlack, out: TextIO, style: Style) -> None:
        self.slack = slack
        self.out = out
        self.style = style
        self.dm = slack.dm_channel(USER)
        self.users = {USER: USER_NAME, slack.identity.bot_user_id: BOT_NAME}
        self.dms: list[str] = []  # the DMs kueue-bot sent you (new or updated), as plain text, in order
        self.prompt = ""  # shown again after output that arrives while you type
        self.prompting = False
        self._seen = _Seen()

    def write(self, lines: Iterable[str]) -> None:
        text = "".join(f"{line}\n" for line in lines)
        if not text:
            return
        if self.prompting:
            text = "\n" + text + self.prompt
        self.out.write(text)
        self.out.flush()

    def flush(self) -> None:
        """Print whatever is new in #ml-platform, your DM with kueue-bot, and what only you can see."""
        pending: list[tuple[str, list[str]]] = []
        for channel in (CHANNEL, self.dm):
            for message in self.slack.messages(channel):
                if message.user == USER:
                    continue  # what you typed
                key = (channel, message.ts)
                revisions = 1 + len(message.edits)
                seen = self._seen.revisions.get(key, 0)
                if seen >= revisions:
                    continue
                self._seen.revisions[key] = revisions
                when = message.edits[-1].edited_ts if seen and message.edits else message.ts
                pending.append((when, self._message(channel, message, edited=seen > 0)))
        ephemerals = self.slack.ephemerals()
        for ephemeral in ephemerals[self._seen.ephemerals :]:
            if ephemeral.user == USER:
                pending.append((ephemeral.message_ts, self._ephemeral(ephemeral)))
        self._seen.ephemerals = len(ephemerals)
        for _, lines in sorted(pending, key=lambda item: item[0]):
            self.write(lines)

    def _body(self, text: str, blocks: Sequence[JsonDict] | None, indent: str) -> list[str]:
        bar = self.style.dim("│ ")
        return [f"{indent}{bar}{line}" for line in message_lines(text, blocks, self.style, self.users)]

    def _message(self, channel: str, message: Message, *, edited: bool) -> list[str]:
        style = self.style
        reply = message.is_reply
        indent = "   " if reply else ""
        if channel == self.dm and not reply:
            title = style.accent(f"✉  DM from {BOT_NAME}") + (style.dim(" (updated)") if edited else "")
            body = self._body(message.text, message.blocks, "")
            self.dms.append(strip_ansi("\n".join(body)))
            return [title, *body, ""]
        where = f"{BOT_NAME}, in the thread of your DM" if channel == self.dm else f"{BOT_NAME} in #{CHANNEL_NAME}"
        if reply and channel != self.dm:
            where = f"{BOT_NAME}, in the thread"
        title = f"{indent}{'↳ ' if reply else ''}{style.bold(where)}" + (style.dim(" (edited)") if edited else "")
        return [title, *self._body(message.text, message.blocks, indent), ""]

    def _ephemeral(self, ephemeral: Ephemeral) -> list[str]:
        indent = "   " if ephemeral.thread_ts else ""
        where = f"{BOT_NAME} in #{CHANNEL_NAME}" if ephemeral.channel == CHANNEL else f"{BOT_NAME}"
        title = f"{indent}{'↳ ' if indent else ''}{self.style.bold(where)}{self.style.dim(' · only visible to you')}"
        return [title, *self._body(ephemeral.text, ephemeral.blocks, indent), ""]

    def last_button(self, wanted: str) -> tuple[str, Message, Button] | None:
        """The button matching `wanted` on the most recent message that has one: (channel, message, button)."""
        candidates: list[tuple[str, str, Message, Button]] = []
        for channel in (CHANNEL, self.dm):
            for message in self.slack.messages(channel):
                found = next((b for b in buttons(message.blocks) if matches(b, wanted)), None)
                if found is not None:
                    when = message.edits[-1].edited_ts if message.edits else message.ts
                    candidates.append((when, channel, message, found))
        if not candidates:
            return None
        _, channel, message, button = max(candidates, key=lambda item: item[0])
        return channel, message, button


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
    ) -> None:
        self.slack = slack
        self.server = server
        self.source = source
        self.transcript = transcript
        self.style = transcript.style
        self.echo = echo
        self.url = f"{server.url}/slack/events"
        self.pulse = _Pulse()
        self.answers = _AnswerLog(self.pulse.fire)
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
        if self.echo and text:
            self.transcript.write([f"{self.style.bold(USER_NAME + '>')} {text}"])
        word, _, rest = text.partition(" ")
        lowered = word.lower()
        if not text:
            return True
        if lowered in ("quit", "exit", "/quit", "/exit"):
            self.quit = True
            return True
        if lowered in ("help", "/help", "?"):
            self.transcript.write([HELP])
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
            self.note(f"no button {wanted!r} on the messages so far: try click watch or click recheck")
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
        lines = [style.accent(f"── {moment.title} ──")]
        lines += [style.dim(f"   {news}") for news in moment.news]
        self.transcript.write([*lines, ""])

    async def digest(self) -> bool:
        """The admins' daily digest, now (issue 17): it comes to you by DM, as to every admin."""
        digest = self.server.admin_digest
        if digest is None:
            self.note("no admins' digest here")
            return False
        await digest.run_once()
        return await self.wait_dm("admin")

    async def wait_dm(self, wanted: str) -> bool:
        def arrived() -> bool:
            for index in range(self._dms_waited, len(self.transcript.dms)):
                if wanted.lower() in self.transcript.dms[index].lower():
                    self._dms_waited = index + 1
                    return True
            return False

        self.transcript.flush()
        if await self._until(arrived, DM_TIMEOUT):
            return True
        self.note(f"no DM{' about ' + repr(wanted) if wanted else ''} within {DM_TIMEOUT:.0f} s")
        return False


# --- running it ------------------------------------------------------------------------------------------


def _settings(slack: FakeSlack, state_dir: str, language: str) -> Settings:
    return Settings(
        slack_bot_token=Secret(slack.bot_token),
        slack_signing_secret=Secret(slack.signing_secret),
        slack_api_url=slack.api_url,
        host="127.0.0.1",
        port=0,
        state_url=f"sqlite:///{Path(state_dir) / 'kueue-bot-demo.sqlite3'}",
        default_language=language,
        log_format="text",
        admin_users=(USER,),  # issue 17: you are an admin here (`/kueue admin`, the digest by DM)
    )


def _lab() -> StaticSource:
    """The second cluster of the demo (issue 17): a small lab cluster, "lyon", read from its dump."""
    text = resources.files("bot.demo").joinpath("lab", "lab.yaml").read_text(encoding="utf-8")
    return StaticSource(parse_text(text).snapshot)


def _build(settings: Settings, source: DemoSource) -> Server:
    """The production server, the watcher included (its state in a throwaway SQLite file), over two clusters:
    the story's ("paris") and a lab ("lyon")."""
    clusters: dict[str, SnapshotSource] = {"paris": source, "lyon": _lab()}
    return build_server(settings, source, clock=source.clock, store=open_store(settings.state_url), clusters=clusters)


def _quiet_logs(verbose: bool) -> None:
    """The bot's log lines stay off the chat: warnings only, on stderr (everything with --verbose)."""
    setup_logging("INFO" if verbose else "WARNING", "text")
    for handler in logging.getLogger().handlers:
        handler.setLevel(logging.INFO if verbose else logging.WARNING)


def tour_lines() -> list[str]:
    return resources.files("bot.demo").joinpath(TOUR).read_text(encoding="utf-8").splitlines()


def _script_lines(path: str) -> list[str]:
    if path == "-":
        return sys.stdin.read().splitlines()
    return Path(path).read_text(encoding="utf-8").splitlines()


async def run(options: DemoOptions, lines: Sequence[str] | None, out: TextIO) -> int:
    """Serve the bot and play `lines` (a script), or chat on the terminal when `lines` is None."""
    style = Style(colour=options.colour)
    interactive = lines is None
    async with FakeSlack() as slack:
        slack.add_user(USER, name=USER_NAME, real_name="You", email="you@example.com", locale=_locale(options))
        slack.add_channel(CHANNEL, CHANNEL_NAME, members=[USER])
        with tempfile.TemporaryDirectory(prefix="kueue-bot-demo-") as state_dir:
            source = DemoSource.load(real_time=interactive)
            server = _build(_settings(slack, state_dir, options.language), source)
            await server.start()
            transcript = Transcript(slack, out, style)
            chat = Chat(slack, server, source, transcript, echo=not interactive)
            answers_logger = logging.getLogger("bot.slack.app")
            level = answers_logger.level
            answers_logger.setLevel(logging.INFO)  # the "question answered" records must reach chat.answers
            answers_logger.addHandler(chat.answers)
            tasks = [asyncio.create_task(chat.follow(), name="demo-transcript")]
            try:
                transcript.write([_intro(source, style, options=options, interactive=interactive)])
                passes = chat.passes()
                source.announce()
                await chat.watcher_looked(passes)  # the first DMs come before the first line
                if interactive:
                    if options.advance_every > 0:
                        tasks.append(asyncio.create_task(_advance_now_and_then(chat, options.advance_every)))
                    return await _chat(chat, transcript, style)
                return await _play(chat, lines or [], out, style)
            finally:
                for task in tasks:
                    task.cancel()
                for task in tasks:
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                answers_logger.removeHandler(chat.answers)
                answers_logger.setLevel(level)
                await server.stop()


def _locale(options: DemoOptions) -> str:
    return "fr-FR" if options.language == "fr" else "en-US"


def _intro(source: DemoSource, style: Style, *, options: DemoOptions, interactive: bool) -> str:
    if interactive and options.advance_every > 0:
        pace = f" It moves on every {options.advance_every:.0f} s (or type /advance)."
    else:
        pace = " It moves on when the script says /advance."
    return INTRO.format(
        title=style.bold("kueue-bot demo"),
        moment=f"2026-10-14 at {source.moment.title}",
        pace=pace,
    )


async def _advance_now_and_then(chat: Chat, every: float) -> None:
    while chat.source.has_next:
        await asyncio.sleep(every)  # the story's pace: real time passing, not a wait for something
        await chat.advance()


async def _read_lines(queue: asyncio.Queue[str | None]) -> None:
    """Lines from the terminal into `queue` (None at end of input), without blocking the loop."""
    loop = asyncio.get_running_loop()
    stdin = sys.stdin

    def readable() -> None:
        line = stdin.readline()
        queue.put_nowait(line if line else None)
        if not line:
            loop.remove_reader(stdin.fileno())

    try:
        loop.add_reader(stdin.fileno(), readable)
    except (NotImplementedError, ValueError, OSError):  # no reader for this loop or stream: a thread reads
        while True:
            line = await asyncio.to_thread(stdin.readline)
            await queue.put(line if line else None)
            if not line:
                return
    else:
        try:
            await asyncio.Event().wait()  # until cancelled
        finally:
            with contextlib.suppress(ValueError, OSError, RuntimeError):
                loop.remove_reader(stdin.fileno())


async def _chat(chat: Chat, transcript: Transcript, style: Style) -> int:
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    reader = asyncio.create_task(_read_lines(queue), name="demo-stdin")
    transcript.prompt = f"{style.bold(USER_NAME + '>')} "
    try:
        while not chat.quit:
            transcript.flush()
            transcript.out.write(transcript.prompt)
            transcript.out.flush()
            transcript.prompting = True
            line = await queue.get()
            transcript.prompting = False
            if line is None:
                transcript.out.write("\n")
                break
            await chat.say(line)
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
    return 0


async def _play(chat: Chat, lines: Sequence[str], out: TextIO, style: Style) -> int:
    failed: list[tuple[int, str]] = []
    played = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        played += 1
        if not await chat.say(line):
            failed.append((number, line))
        if chat.quit:
            break
    chat.transcript.flush()
    if failed:
        out.write(style.bold(f"{len(failed)} of {played} line(s) got no answer:") + "\n")
        out.writelines(f"  line {number}: {line}\n" for number, line in failed)
        return 1
    out.write(style.dim(f"(the script is over: {played} line(s), every one answered)") + "\n")
    return 0


def demo_options(args: argparse.Namespace, *, stdout_tty: bool, no_color: bool) -> DemoOptions:
    return DemoOptions(
        script=args.script,
        advance_every=max(0.0, float(args.advance_every)),
        colour=stdout_tty and not no_color and not args.no_color,
        language=args.lang,
        verbose=args.verbose,
    )


def demo_main(options: DemoOptions, *, stdin_tty: bool, out: TextIO) -> int:
    """The demo: the script, the tour (no terminal on stdin), or the chat. Returns the exit status."""
    if isinstance(out, io.TextIOWrapper):
        out.reconfigure(errors="replace")  # a terminal without UTF-8 gets ? for an emoji, not a traceback
    lines: list[str] | None
    if options.script is not None:
        try:
            lines = _script_lines(options.script)
        except (OSError, UnicodeDecodeError) as error:
            print(f"kueue-bot: cannot read the script {options.script}: {error}", file=sys.stderr)
            return 2
    elif not stdin_tty:
        out.write(f"(stdin is not a terminal: playing the tour, bot/demo/{TOUR}; --script FILE plays another)\n")
        lines = tour_lines()
    else:
        lines = None
    _quiet_logs(options.verbose)
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(run(options, lines, out))
    return 130
