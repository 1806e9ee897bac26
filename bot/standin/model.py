"""The state of the fake workspace (users, channels, messages) and the records tests wait on.

Nothing here does I/O: `web` reads and changes a `Workspace` for the Web API, `payloads` for the
events a user's action would produce, and `slack.FakeSlack` exposes both to tests and the demo.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar
from zoneinfo import ZoneInfo

T = TypeVar("T")

JsonDict = dict[str, Any]

# Message timestamps are a logical clock, "1700000000.000100", "1700000000.000200", ...: unique, increasing and
# the same from run to run, which keeps goldens stable.
_TS_ORIGIN_MICROS = 1_700_000_000_000_000
_TS_STEP_MICROS = 100


@dataclass(frozen=True)
class Identity:
    """Who the app is in the fake workspace."""

    team_id: str = "T0KUEUE01"
    team_name: str = "Kueue Lab"
    team_domain: str = "kueue-lab"
    app_id: str = "A0KUEUEBOT"
    bot_id: str = "B0KUEUEBOT"
    bot_user_id: str = "U0KUEUEBOT"
    bot_name: str = "kueue-bot"

    @property
    def team_url(self) -> str:
        return f"https://{self.team_domain}.slack.com/"


@dataclass
class User:
    id: str
    name: str
    real_name: str
    email: str | None
    tz: str
    locale: str
    is_bot: bool = False

    def to_api(self, team_id: str, *, include_locale: bool) -> JsonDict:
        offset = datetime.now(ZoneInfo(self.tz)).utcoffset()
        user: JsonDict = {
            "id": self.id,
            "team_id": team_id,
            "name": self.name,
            "deleted": False,
            "real_name": self.real_name,
            "tz": self.tz,
            "tz_label": self.tz,
            "tz_offset": int(offset.total_seconds()) if offset is not None else 0,
            "is_bot": self.is_bot,
            "is_app_user": False,
            "profile": {"real_name": self.real_name, "display_name": self.name, "team": team_id},
        }
        if self.email is not None:
            user["profile"]["email"] = self.email
        if include_locale:
            user["locale"] = self.locale
        return user


@dataclass
class Channel:
    """A conversation. Tests may flip `bot_is_member` at any time."""

    id: str
    name: str
    members: set[str] = field(default_factory=set)
    bot_is_member: bool = True
    is_private: bool = False
    is_im: bool = False

    @property
    def channel_type(self) -> str:
        """The `channel_type` of message events: channel, group, im."""
        if self.is_im:
            return "im"
        return "group" if self.is_private else "channel"


@dataclass(frozen=True)
class Revision:
    """A message as it was before an edit (chat.update or a response_url replace_original)."""

    text: str
    blocks: list[JsonDict] | None
    metadata: JsonDict | None
    edited_ts: str


@dataclass
class Message:
    """A stored message. `edits` holds the previous versions, oldest first."""

    channel: str
    ts: str
    text: str
    blocks: list[JsonDict] | None = None
    user: str | None = None
    bot_id: str | None = None
    app_id: str | None = None
    username: str | None = None
    subtype: str | None = None
    thread_ts: str | None = None
    reply_broadcast: bool = False
    metadata: JsonDict | None = None
    attachments: list[JsonDict] | None = None
    unfurl_links: bool | None = None
    unfurl_media: bool | None = None
    edits: list[Revision] = field(default_factory=list)
    reactions: dict[str, list[str]] = field(default_factory=dict)

    @property
    def is_reply(self) -> bool:
        return self.thread_ts is not None and self.thread_ts != self.ts

    def edit(self, *, text: str, blocks: list[JsonDict] | None, metadata: JsonDict | None, edited_ts: str) -> None:
        self.edits.append(Revision(self.text, self.blocks, self.metadata, edited_ts))
        self.text, self.blocks, self.metadata = text, blocks, metadata

    def to_api(self, team_id: str, *, include_metadata: bool) -> JsonDict:
        """The message as Slack's Web API and event payloads show it."""
        out: JsonDict = {"type": "message", "ts": self.ts, "text": self.text, "team": team_id}
        optional = {
            "subtype": self.subtype,
            "user": self.user,
            "bot_id": self.bot_id,
            "app_id": self.app_id,
            "username": self.username,
            "blocks": self.blocks,
            "attachments": self.attachments,
            "thread_ts": self.thread_ts,
        }
        out.update({key: value for key, value in optional.items() if value is not None})
        if self.edits:
            out["edited"] = {"user": self.user or self.bot_id, "ts": self.edits[-1].edited_ts}
        if self.reactions:
            out["reactions"] = [
                {"name": name, "users": users, "count": len(users)} for name, users in self.reactions.items()
            ]
        if include_metadata and self.metadata:
            out["metadata"] = self.metadata
        return out


@dataclass(frozen=True)
class Ephemeral:
    """A message only `user` saw: chat.postEphemeral or an ephemeral response_url reply."""

    channel: str
    user: str
    message_ts: str
    text: str
    blocks: list[JsonDict] | None
    thread_ts: str | None


class Workspace:
    """Users, conversations and messages of the fake workspace."""

    def __init__(self, identity: Identity) -> None:
        self.identity = identity
        self.users: dict[str, User] = {}
        self.channels: dict[str, Channel] = {}
        self.messages: dict[str, list[Message]] = {}
        self.ephemerals: list[Ephemeral] = []
        self.home_views: dict[str, JsonDict] = {}
        self._clock = itertools.count(_TS_ORIGIN_MICROS + _TS_STEP_MICROS, _TS_STEP_MICROS)
        self.add_user(identity.bot_user_id, name=identity.bot_name, real_name=identity.bot_name, is_bot=True)

    def next_ts(self) -> str:
        micros = next(self._clock)
        return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"

    def add_user(
        self,
        user_id: str,
        *,
        name: str,
        real_name: str | None = None,
        email: str | None = None,
        tz: str = "UTC",
        locale: str = "en-US",
        is_bot: bool = False,
    ) -> User:
        ZoneInfo(tz)  # fail at seeding time on a typo, not in the middle of a test
        user = User(user_id, name, real_name or name, email, tz, locale, is_bot)
        self.users[user_id] = user
        return user

    def add_channel(
        self, channel_id: str, name: str, *, members: list[str], bot_is_member: bool, is_private: bool
    ) -> Channel:
        unknown = [member for member in members if member not in self.users]
        if unknown:
            raise ValueError(f"add the users {unknown} before the channel {name}")
        channel = Channel(channel_id, name, set(members), bot_is_member, is_private)
        self.channels[channel_id] = channel
        self.messages.setdefault(channel_id, [])
        return channel

    def open_dm(self, user_id: str) -> tuple[Channel, bool]:
        """The bot's DM with `user_id` (stable per user), and whether it was already open."""
        channel_id = "D" + user_id[1:]
        already_open = channel_id in self.channels
        if not already_open:
            self.channels[channel_id] = Channel(channel_id, user_id, {user_id}, is_im=True)
            self.messages[channel_id] = []
        return self.channels[channel_id], already_open

    def user(self, user_id: str) -> User:
        if user_id not in self.users:
            raise KeyError(f"unknown user {user_id}; seed it with add_user()")
        return self.users[user_id]

    def channel(self, channel_id: str) -> Channel:
        if channel_id not in self.channels:
            raise KeyError(f"unknown channel {channel_id}; seed it with add_channel()")
        return self.channels[channel_id]

    def store(self, message: Message) -> Message:
        self.messages[message.channel].append(message)
        return message

    def find_message(self, channel_id: str, ts: str) -> Message | None:
        return next((m for m in self.messages.get(channel_id, []) if m.ts == ts), None)

    def replies(self, channel_id: str, thread_ts: str) -> list[Message]:
        return [m for m in self.messages.get(channel_id, []) if m.is_reply and m.thread_ts == thread_ts]

    def message_to_api(self, message: Message, *, include_metadata: bool) -> JsonDict:
        """A message with the thread summary Slack adds to a thread's parent."""
        out = message.to_api(self.identity.team_id, include_metadata=include_metadata)
        replies = self.replies(message.channel, message.ts)
        if replies:
            out.update(
                thread_ts=message.ts,
                reply_count=len(replies),
                reply_users=sorted({r.user or r.bot_id or "" for r in replies}),
                latest_reply=replies[-1].ts,
            )
        if message.is_reply:
            parent = self.find_message(message.channel, message.thread_ts or "")
            if parent is not None and parent.user is not None:
                out["parent_user_id"] = parent.user
        return out


class Recorder(Generic[T]):
    """Things that happened, in order, and a way to wait for one without sleeping."""

    def __init__(self, noun: str) -> None:
        self._noun = noun
        self.items: list[T] = []
        self._changed = asyncio.Event()

    def add(self, item: T) -> None:
        self.items.append(item)
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait(self, predicate: Callable[[T], bool] | None, *, timeout: float, nth: int = 1) -> T:  # noqa: ASYNC109
        """The `nth` recorded item matching `predicate`, already recorded or still to come."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    matching = [item for item in self.items if predicate is None or predicate(item)]
                    if len(matching) >= nth:
                        return matching[nth - 1]
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(
                f"no {self._noun} #{nth} matching within {timeout}s; last recorded: {self.items[-10:]!r}"
            ) from None
