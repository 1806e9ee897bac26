"""The Web API methods of the fake Slack, over a `Workspace`.

`WebApi.call(method, params)` returns the body of a successful answer without `ok`, or raises `SlackError`
(Slack's `{"ok": false, "error": ...}`). Authentication, faults and HTTP live in `slack`. Errors and
shapes follow https://docs.slack.dev/reference/methods.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from typing import Any

from bot.standin.blocks import VIEW_MAX_BLOCKS, block_errors
from bot.standin.model import Channel, Ephemeral, JsonDict, Message, Workspace

MAX_TEXT = 40_000
_DEFAULT_PAGE = 100
_MAX_PAGE = 999


class SlackError(Exception):
    """A Slack-level failure: HTTP 200 with {"ok": false, "error": error, **extra}."""

    def __init__(self, error: str, **extra: Any) -> None:
        super().__init__(error)
        self.error = error
        self.extra = extra

    def body(self) -> JsonDict:
        return {"ok": False, "error": self.error, **self.extra}


class Params:
    """Request parameters from a query string, a form or a JSON body, typed on the way out."""

    def __init__(self, raw: JsonDict) -> None:
        self.raw = raw

    def __contains__(self, name: str) -> bool:
        return name in self.raw

    def get(self, name: str) -> str | None:
        value = self.raw.get(name)
        return None if value is None else str(value)

    def required(self, name: str, error: str) -> str:
        value = self.get(name)
        if not value:
            raise SlackError(error)
        return value

    def flag(self, name: str) -> bool | None:
        value = self.raw.get(name)
        if value is None or isinstance(value, bool):
            return value
        return str(value).lower() in ("1", "true")

    def number(self, name: str, default: int) -> int:
        value = self.raw.get(name)
        try:
            return default if value in (None, "") else int(value)
        except (TypeError, ValueError):
            raise SlackError("invalid_arguments") from None

    def decoded(self, name: str, error: str) -> Any:
        """A JSON argument: already decoded in a JSON body, a URL-encoded string in a form."""
        value = self.raw.get(name)
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            raise SlackError(error) from None


class WebApi:
    def __init__(self, workspace: Workspace, *, open_socket_url: Callable[[], str]) -> None:
        self._ws = workspace
        self._me = workspace.identity
        self._open_socket_url = open_socket_url
        self._methods: dict[str, Callable[[Params], JsonDict]] = {
            "apps.connections.open": lambda _: {"url": self._open_socket_url()},
            "auth.test": self._auth_test,
            "chat.getPermalink": self._chat_get_permalink,
            "chat.postEphemeral": self._chat_post_ephemeral,
            "chat.postMessage": self._chat_post_message,
            "chat.update": self._chat_update,
            "conversations.history": self._conversations_history,
            "conversations.members": self._conversations_members,
            "conversations.open": self._conversations_open,
            "conversations.replies": self._conversations_replies,
            "reactions.add": self._reactions_add,
            "users.info": self._users_info,
            "users.lookupByEmail": self._users_lookup_by_email,
            "views.publish": self._views_publish,
        }

    def knows(self, method: str) -> bool:
        return method in self._methods

    def call(self, method: str, params: JsonDict) -> JsonDict:
        return self._methods[method](Params(params))

    # -- auth ------------------------------------------------------------------------------------------------

    def _auth_test(self, _: Params) -> JsonDict:
        return {
            "url": self._me.team_url,
            "team": self._me.team_name,
            "user": self._me.bot_name,
            "team_id": self._me.team_id,
            "user_id": self._me.bot_user_id,
            "bot_id": self._me.bot_id,
            "is_enterprise_install": False,
        }

    # -- chat ------------------------------------------------------------------------------------------------

    def _chat_post_message(self, params: Params) -> JsonDict:
        channel = self._joined(params.get("channel"))
        text, blocks, attachments = _content(params)
        message = self._ws.store(
            Message(
                channel=channel.id,
                ts=self._ws.next_ts(),
                text=text,
                blocks=blocks,
                user=self._me.bot_user_id,
                bot_id=self._me.bot_id,
                app_id=self._me.app_id,
                thread_ts=params.get("thread_ts"),
                reply_broadcast=bool(params.flag("reply_broadcast")),
                metadata=_metadata(params),
                attachments=attachments,
                unfurl_links=params.flag("unfurl_links"),
                unfurl_media=params.flag("unfurl_media"),
            )
        )
        if message.reply_broadcast and message.thread_ts:
            message.subtype = "thread_broadcast"
        return {
            "channel": channel.id,
            "ts": message.ts,
            "message": self._ws.message_to_api(message, include_metadata=True),
        }

    def _chat_update(self, params: Params) -> JsonDict:
        channel = self._joined(params.get("channel"))
        message = self._ws.find_message(channel.id, params.required("ts", "message_not_found"))
        if message is None:
            raise SlackError("message_not_found")
        if message.bot_id != self._me.bot_id:
            raise SlackError("cant_update_message")
        if not any(name in params for name in ("text", "blocks", "attachments")):
            raise SlackError("no_text")
        text, blocks, _ = _content(params)
        # Slack keeps what the update leaves out; an empty array or object removes it.
        message.edit(
            text=text if "text" in params else message.text,
            blocks=(blocks or None) if "blocks" in params else message.blocks,
            metadata=(_metadata(params) or None) if "metadata" in params else message.metadata,
            edited_ts=self._ws.next_ts(),
        )
        return {
            "channel": channel.id,
            "ts": message.ts,
            "text": message.text,
            "message": self._ws.message_to_api(message, include_metadata=True),
        }

    def _chat_post_ephemeral(self, params: Params) -> JsonDict:
        channel = self._joined(params.get("channel"))
        user = params.required("user", "user_not_found")
        if user not in self._ws.users:
            raise SlackError("user_not_found")
        if user not in channel.members:
            raise SlackError("user_not_in_channel")
        text, blocks, _ = _content(params)
        ephemeral = Ephemeral(channel.id, user, self._ws.next_ts(), text, blocks, params.get("thread_ts"))
        self._ws.ephemerals.append(ephemeral)
        return {"message_ts": ephemeral.message_ts}

    def _chat_get_permalink(self, params: Params) -> JsonDict:
        channel = self._known_channel(params.get("channel"))
        message = self._ws.find_message(channel.id, params.required("message_ts", "message_not_found"))
        if message is None:
            raise SlackError("message_not_found")
        permalink = f"{self._me.team_url}archives/{channel.id}/p{message.ts.replace('.', '')}"
        if message.is_reply:
            permalink += f"?thread_ts={message.thread_ts}&cid={channel.id}"
        return {"channel": channel.id, "permalink": permalink}

    def _reactions_add(self, params: Params) -> JsonDict:
        channel = self._known_channel(params.get("channel"))
        name = params.required("name", "invalid_name")
        message = self._ws.find_message(channel.id, params.required("timestamp", "no_item_specified"))
        if message is None:
            raise SlackError("message_not_found")
        users = message.reactions.setdefault(name.strip(":"), [])
        if self._me.bot_user_id in users:
            raise SlackError("already_reacted")
        users.append(self._me.bot_user_id)
        return {}

    # -- conversations ---------------------------------------------------------------------------------------

    def _conversations_open(self, params: Params) -> JsonDict:
        users = [u for u in (params.get("users") or "").split(",") if u]
        if not users:
            raise SlackError("users_list_not_supplied")
        if len(users) > 1:
            raise SlackError("fake_slack_unsupported", detail="group DMs (mpim) are not implemented")
        if users[0] not in self._ws.users:
            raise SlackError("user_not_found")
        channel, already_open = self._ws.open_dm(users[0])
        answer: JsonDict = {"channel": {"id": channel.id}}
        if already_open:
            answer.update(no_op=True, already_open=True)
        return answer

    def _conversations_history(self, params: Params) -> JsonDict:
        channel = self._joined(params.get("channel"))
        visible = [m for m in self._ws.messages[channel.id] if not m.is_reply or m.reply_broadcast]
        return self._page(list(reversed(visible)), params)

    def _conversations_members(self, params: Params) -> JsonDict:
        """The channel's members (the bot user too, as Slack lists it), a page at a time."""
        channel = self._joined(params.get("channel"))
        members = sorted(channel.members | {self._me.bot_user_id})
        start = _decode_cursor(params.get("cursor"))
        limit = min(max(params.number("limit", _DEFAULT_PAGE), 1), _MAX_PAGE)
        more = start + limit < len(members)
        return {
            "members": members[start : start + limit],
            "response_metadata": {"next_cursor": _encode_cursor(start + limit) if more else ""},
        }

    def _conversations_replies(self, params: Params) -> JsonDict:
        channel = self._joined(params.get("channel"))
        parent = self._ws.find_message(channel.id, params.required("ts", "thread_not_found"))
        if parent is None:
            raise SlackError("thread_not_found")
        return self._page([parent, *self._ws.replies(channel.id, parent.ts)], params)

    def _page(self, messages: list[Message], params: Params) -> JsonDict:
        start = _decode_cursor(params.get("cursor"))
        limit = min(max(params.number("limit", _DEFAULT_PAGE), 1), _MAX_PAGE)
        include_metadata = bool(params.flag("include_all_metadata"))
        page = messages[start : start + limit]
        has_more = start + limit < len(messages)
        return {
            "messages": [self._ws.message_to_api(m, include_metadata=include_metadata) for m in page],
            "has_more": has_more,
            "response_metadata": {"next_cursor": _encode_cursor(start + limit) if has_more else ""},
        }

    # -- users and views -------------------------------------------------------------------------------------

    def _users_info(self, params: Params) -> JsonDict:
        user = self._ws.users.get(params.required("user", "user_not_found"))
        if user is None:
            raise SlackError("user_not_found")
        return {"user": user.to_api(self._me.team_id, include_locale=bool(params.flag("include_locale")))}

    def _users_lookup_by_email(self, params: Params) -> JsonDict:
        email = params.required("email", "users_not_found").lower()
        user = next((u for u in self._ws.users.values() if u.email and u.email.lower() == email), None)
        if user is None:
            raise SlackError("users_not_found")
        return {"user": user.to_api(self._me.team_id, include_locale=False)}

    def _views_publish(self, params: Params) -> JsonDict:
        user_id = params.required("user_id", "user_not_found")
        if user_id not in self._ws.users:
            raise SlackError("user_not_found")
        view = params.decoded("view", "invalid_arguments")
        if not isinstance(view, dict) or view.get("type") != "home":
            raise SlackError("invalid_arguments", response_metadata={"messages": ["[ERROR] view must be a home view"]})
        errors = block_errors(view.get("blocks", []), max_blocks=VIEW_MAX_BLOCKS)
        if errors:
            raise SlackError("invalid_arguments", response_metadata={"messages": [f"[ERROR] {e}" for e in errors]})
        published = {
            **view,
            "id": "V" + user_id[1:],
            "team_id": self._me.team_id,
            "app_id": self._me.app_id,
            "bot_id": self._me.bot_id,
            "hash": self._ws.next_ts(),
        }
        self._ws.home_views[user_id] = published
        return {"view": published}

    # -- conversation lookups --------------------------------------------------------------------------------

    def _known_channel(self, ref: str | None) -> Channel:
        """A conversation by ID or #name; a user ID means the bot's DM with that user."""
        if not ref:
            raise SlackError("channel_not_found")
        if ref in self._ws.users:
            return self._ws.open_dm(ref)[0]
        name = ref.removeprefix("#")
        channel = self._ws.channels.get(ref) or next(
            (c for c in self._ws.channels.values() if c.name == name and not c.is_im), None
        )
        if channel is None:
            raise SlackError("channel_not_found")
        return channel

    def _joined(self, ref: str | None) -> Channel:
        channel = self._known_channel(ref)
        if not channel.bot_is_member:
            # A private channel the bot isn't in doesn't exist as far as the bot can tell.
            raise SlackError("channel_not_found" if channel.is_private else "not_in_channel")
        return channel


def _content(params: Params) -> tuple[str, list[JsonDict] | None, list[JsonDict] | None]:
    """text, blocks and attachments of a message, validated as chat.postMessage does."""
    text = params.get("text") or ""
    blocks = params.decoded("blocks", "invalid_blocks_format")
    if blocks is not None:
        errors = block_errors(blocks)
        if errors:
            raise SlackError(
                "invalid_blocks", errors=errors, response_metadata={"messages": [f"[ERROR] {e}" for e in errors]}
            )
    attachments = params.decoded("attachments", "invalid_attachments")
    if not text and not blocks and not attachments:
        raise SlackError("no_text")
    if len(text) > MAX_TEXT:
        raise SlackError("msg_too_long")
    return text, blocks, attachments


def _metadata(params: Params) -> JsonDict | None:
    metadata = params.decoded("metadata", "invalid_metadata_format")
    if metadata is None or metadata == {}:
        return None
    if (
        not isinstance(metadata, dict)
        or not isinstance(metadata.get("event_type"), str)
        or not isinstance(metadata.get("event_payload"), dict)
    ):
        raise SlackError("invalid_metadata_format")
    return metadata


def _encode_cursor(offset: int) -> str:
    return base64.b64encode(f"offset:{offset}".encode()).decode()


def _decode_cursor(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        kind, _, offset = base64.b64decode(cursor, validate=True).decode().partition(":")
        if kind == "offset" and offset.isdigit():
            return int(offset)
    except (binascii.Error, UnicodeDecodeError):
        pass
    raise SlackError("invalid_cursor")
