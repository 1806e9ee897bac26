"""`python -m bot demo`: the real bot in a terminal, with nothing else running.

The real HTTP server (bot.server.build_server: Bolt, the engine, the watcher and its state store) answers a
Slack stand-in (bot.standin.FakeSlack) on 127.0.0.1, about a demo cluster that moves on when the story does
(bot.demo.source). What you type goes to the bot as Slack would deliver it (bot.demo.chat); what it posts,
edits or shows only to you is printed as a person reads it, to the terminal's width, one screen an answer
(bot.demo.transcript, bot.demo.text). On the first screen: the intro and what to try, then the first DMs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import logging
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TextIO

from bot.config import Secret, Settings
from bot.copy import render
from bot.demo.chat import Chat
from bot.demo.source import DemoSource
from bot.demo.text import Style
from bot.demo.transcript import CHANNEL, CHANNEL_NAME, USER, USER_NAME, Screen, Transcript
from bot.kube.dump import parse_text
from bot.log import setup_logging
from bot.notify.store import open_store
from bot.server import Server, build_server
from bot.service.ports import SnapshotSource, StaticSource
from bot.standin.slack import FakeSlack

__all__ = [
    "CHANNEL",
    "CHANNEL_NAME",
    "USER",
    "USER_NAME",
    "Chat",
    "DemoOptions",
    "Transcript",
    "demo_main",
    "demo_options",
    "run",
    "tour_lines",
]

ADVANCE_EVERY = 0.0  # the story moves on when you say so (/advance), not while you read
TOUR = "script.txt"
TOURS = {"en": TOUR, "fr": "script.fr.txt"}  # the tour in the demo user's language (--lang)


@dataclass(frozen=True)
class DemoOptions:
    script: str | None = None  # a file, "-" for stdin, None: interactive (or the tour without a terminal)
    advance_every: float = ADVANCE_EVERY  # seconds between moments in interactive mode; 0: only /advance
    colour: bool = False
    width: int | None = None  # the terminal's columns: lines are broken to it (None: not a terminal)
    height: int | None = None  # the terminal's rows: an answer fills at most a screen, `more` shows the rest
    language: str = "en"  # the demo user's Slack locale: en or fr
    verbose: bool = False  # the bot's own log lines on stderr


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
        admin_users=(USER,),  # you are an admin here (`/kueue admin`, the digest by DM)
    )


def _lab() -> StaticSource:
    """The second cluster of the demo: a small lab cluster, "lyon", read from its dump."""
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


def tour_lines(language: str = "en") -> list[str]:
    tour = TOURS.get(language, TOUR)
    return resources.files("bot.demo").joinpath(tour).read_text(encoding="utf-8").splitlines()


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
            source = DemoSource.load(real_time=False)  # the story's clock: it moves when the story does
            server = _build(_settings(slack, state_dir, options.language), source)
            await server.start()
            transcript = Transcript(slack, out, style, Screen(options.width, options.height))
            chat = Chat(slack, server, source, transcript, echo=not interactive, language=options.language)
            answers_logger = logging.getLogger("bot.slack.app")
            level = answers_logger.level
            answers_logger.setLevel(logging.INFO)  # the "question answered" records must reach chat.answers
            answers_logger.addHandler(chat.answers)
            tasks = [asyncio.create_task(chat.follow(), name="demo-transcript")]
            try:
                passes = chat.passes()
                transcript.new_page(limit=False)
                transcript.write(_intro(source, style, options=options, interactive=interactive).splitlines())
                source.announce()
                await chat.watcher_looked(passes)  # the intro first, then the first DMs it tells of
                transcript.new_page()
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
    """The first screen's words, in the demo user's language (--lang)."""
    language = options.language
    if interactive and options.advance_every > 0:
        pace = render("demo.pace.every", {"seconds": f"{options.advance_every:.0f}"}, language)
    else:
        pace = render("demo.pace.advance" if interactive else "demo.pace.script", None, language)
    return render(
        "demo.intro",
        {
            "title": style.bold(render("demo.title", None, language)),
            "moment": render("demo.moment", {"title": source.moment.said(language)[0]}, language),
            "pace": pace,
        },
        language,
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
            transcript.new_page(keep=True)  # what arrives while you read starts a screen of its own
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
    size = shutil.get_terminal_size() if stdout_tty else None
    return DemoOptions(
        script=args.script,
        advance_every=max(0.0, float(args.advance_every)),
        colour=stdout_tty and not no_color and not args.no_color,
        language=args.lang,
        verbose=args.verbose,
        width=size.columns if size else None,
        height=size.lines if size and args.script is None else None,  # a script is read whole
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
        tour = TOURS.get(options.language, TOUR)
        out.write(f"(stdin is not a terminal: playing the tour, bot/demo/{tour}; --script FILE plays another)\n")
        lines = tour_lines(options.language)
    else:
        lines = None
    _quiet_logs(options.verbose)
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(run(options, lines, out))
    return 130
