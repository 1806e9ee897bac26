"""What kueue-bot posted, edited or showed you, printed once each, in order, as a person reads it.

On a terminal the lines are broken between words to its width, under their margin (`│ `), and one answer
fills at most a screen: its first lines (the headline) stay in sight, and `more` shows the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from bot.demo.text import Button, Style, buttons, matches, message_lines, strip_ansi, wrap
from bot.standin.model import Ephemeral, JsonDict, Message
from bot.standin.slack import FakeSlack

USER, USER_NAME = "U0DEMOUSER", "you"
CHANNEL, CHANNEL_NAME = "C0DEMO", "ml-platform"
BOT_NAME = "kueue-bot"
KEPT_ROWS = 3  # rows of a screen an answer leaves free: your line, the "more" note, the prompt


@dataclass
class _Seen:
    revisions: dict[tuple[str, str], int] = field(default_factory=dict)
    ephemerals: int = 0


@dataclass(frozen=True)
class Screen:
    """The terminal's size: None (not a terminal) breaks no line and holds nothing back."""

    width: int | None = None
    height: int | None = None

    @property
    def page(self) -> int | None:
        return max(5, self.height - KEPT_ROWS) if self.height else None


class Transcript:
    def __init__(self, slack: FakeSlack, out: TextIO, style: Style, screen: Screen | None = None) -> None:
        self.slack = slack
        self.out = out
        self.style = style
        self.screen = screen or Screen()
        self.dm = slack.dm_channel(USER)
        self.users = {USER: USER_NAME, slack.identity.bot_user_id: BOT_NAME}
        self.dms: list[str] = []  # the DMs kueue-bot sent you (new or updated), as plain text, in order
        self.prompt = ""  # shown again after output that arrives while you type
        self.prompting = False
        self._seen = _Seen()
        self._room = self.screen.page  # rows left on this screen (None: no limit)
        self.held: list[str] = []  # the rest of a long answer, for `more`
        self._starts: set[int] = set()  # which held lines begin a sentence (a page never starts mid-sentence)
        self._parked: tuple[list[str], set[int]] = ([], set())  # the held rest, kept while later output fits
        self._told = 0  # how many held lines the last "more" note counted

    # --- printing ---------------------------------------------------------------------------------------

    def new_page(self, *, keep: bool = False, limit: bool = True) -> None:
        """A new screen: each line you type starts one, and what was held back of the last answer is let go
        (unless `keep`: for `more`). `limit=False`: no screen at all (the DMs that come before the intro)."""
        self._room = self.screen.page if limit else None
        if not keep:
            if self.held:  # kept for `more` until a later answer is too long for its screen
                self._parked = (self.held, self._starts)
            self.held, self._starts = [], set()
            self._told = 0

    def echo(self, line: str) -> None:
        """What you typed (a script's line), shown whatever the screen holds."""
        self._emit(self._wrapped(line))

    def write(self, lines: Iterable[str]) -> None:
        shown: list[str] = []
        starts: set[int] = set()
        for line in lines:
            for text, start in self._wrapped_parts(line):
                if start:
                    starts.add(len(shown))
                shown.append(text)
        if self._room is not None:
            if not self.held and not any(strip_ansi(row).strip() for row in shown[self._room :]):
                shown = shown[: max(self._room, 0)] if len(shown) > self._room else shown  # only blank rows over
            if self.held or len(shown) > self._room:
                cut = 0 if self.held else _sentence_start(starts, self._room)
                offset = len(self.held) - cut
                self._starts.update(index + offset for index in starts if index >= cut)
                self.held.extend(shown[cut:])
                self._parked = ([], set())
                shown = shown[:cut]
            self._room = max(0, self._room - len(shown))
        self._emit(shown)
        if self.prompting:
            self.tell_held()

    def _wrapped(self, line: str) -> list[str]:
        return [text for text, _ in self._wrapped_parts(line)]

    def _wrapped_parts(self, line: str) -> list[tuple[str, bool]]:
        """The screen lines of `line`, each with whether it begins a sentence (not the rest of a wrapped one)."""
        out: list[tuple[str, bool]] = []
        for part in line.split("\n"):
            margin, text = _margin(part)
            out.extend((row, index == 0) for index, row in enumerate(wrap(text, self.screen.width, margin=margin)))
        return out

    def _emit(self, lines: Sequence[str]) -> None:
        text = "".join(f"{line}\n" for line in lines)
        if not text:
            return
        if self.prompting:
            text = "\n" + text + self.prompt
        self.out.write(text)
        self.out.flush()

    def tell_held(self) -> None:
        """After an answer: say how much of it waits for `more` (once per new amount)."""
        while self.held and not strip_ansi(self.held[-1]).strip():
            self.held.pop()  # a blank line at the end is no more to read
        if self.held and len(self.held) != self._told:
            self._told = len(self.held)
            self._emit([self.style.dim(f"(… {len(self.held)} more line(s) of this answer: type more)")])

    def more(self) -> bool:
        """The next screen of what was held back; False when nothing was."""
        if not self.held:
            self.held, self._starts = self._parked
            self._parked = ([], set())
        if not self.held:
            return False
        page = self.screen.page or len(self.held)
        if page < len(self.held):
            page = _sentence_start(self._starts, page)
        shown, self.held = self.held[:page], self.held[page:]
        self._starts = {index - page for index in self._starts if index > page}
        self._told = 0
        self._emit(shown)
        self._room = 0 if self.held else page - len(shown)
        self.tell_held()
        return True

    # --- what Slack holds -------------------------------------------------------------------------------

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


def _margin(line: str) -> tuple[str, str]:
    """A line's margin (its indent and the `│ ` of a message's body) and its text."""
    plain = strip_ansi(line)
    bar = plain.find("│ ")
    if bar >= 0 and not plain[:bar].strip(" ↳"):
        # the margin ends after the bar: find that point in the styled line
        seen = 0
        for index in range(len(line) + 1):
            if strip_ansi(line[:index]) == plain[: bar + 2]:
                seen = index
                break
        while seen < len(line) and line[seen] == "\x1b":  # the code that closes the bar's style
            end = line.find("m", seen)
            seen = end + 1 if end >= 0 else len(line)
        return line[:seen], line[seen:]
    stripped = line.lstrip(" ")
    return line[: len(line) - len(stripped)], stripped


def _sentence_start(starts: set[int], room: int) -> int:
    """Where to cut lines that do not fit in `room`: the last start of a sentence within it (the room itself
    when one sentence is longer than the screen)."""
    before = [index for index in starts if 0 < index <= room]
    return max(before) if before else room
