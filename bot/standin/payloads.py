"""What Slack sends an app when a person acts: events, slash commands, block actions.

Shapes follow https://docs.slack.dev/reference/events (app_mention, message.im, app_home_opened),
https://docs.slack.dev/interactivity/implementing-slash-commands and .../reference/interaction-payloads.
The same payloads travel over HTTP (signed, see `slack`) and inside Socket Mode envelopes.
"""

from __future__ import annotations

import re
import time
import uuid

from bot.standin.model import Identity, JsonDict, Message, Workspace

_MENTION = re.compile(r"<@([UW][A-Z0-9]+)>")


def user_message(ws: Workspace, user_id: str, channel_id: str, text: str, *, thread_ts: str | None) -> Message:
    """Store a message typed by a person, with the rich_text block Slack's clients add."""
    ws.user(user_id)
    ws.channel(channel_id)
    return ws.store(
        Message(
            channel=channel_id,
            ts=ws.next_ts(),
            text=text,
            blocks=[_rich_text(text)],
            user=user_id,
            thread_ts=thread_ts,
        )
    )


def bot_message(ws: Workspace, channel_id: str, text: str, *, bot_id: str, username: str) -> Message:
    """Store a message posted by another app's bot (subtype bot_message)."""
    ws.channel(channel_id)
    return ws.store(
        Message(channel=channel_id, ts=ws.next_ts(), text=text, bot_id=bot_id, username=username, subtype="bot_message")
    )


def message_event(ws: Workspace, message: Message) -> JsonDict:
    """The `message` event (message.channels, message.im, ...) Slack sends for a stored message."""
    event = ws.message_to_api(message, include_metadata=True)
    event.update(
        channel=message.channel,
        event_ts=message.ts,
        channel_type=ws.channel(message.channel).channel_type,
    )
    if message.user is not None and message.bot_id is None:
        event["client_msg_id"] = str(uuid.uuid4())
    return event


def app_mention_event(ws: Workspace, message: Message) -> JsonDict:
    event = message_event(ws, message)
    del event["channel_type"]
    event["type"] = "app_mention"
    return event


def app_home_opened_event(ws: Workspace, user_id: str, *, tab: str) -> JsonDict:
    ws.user(user_id)
    channel, _ = ws.open_dm(user_id)
    event: JsonDict = {
        "type": "app_home_opened",
        "user": user_id,
        "channel": channel.id,
        "tab": tab,
        "event_ts": ws.next_ts(),
    }
    if user_id in ws.home_views:
        event["view"] = ws.home_views[user_id]
    return event


def event_callback(me: Identity, event: JsonDict, *, event_id: str, verification_token: str) -> JsonDict:
    return {
        "token": verification_token,
        "team_id": me.team_id,
        "context_team_id": me.team_id,
        "api_app_id": me.app_id,
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": me.team_id,
                "user_id": me.bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-{uuid.uuid4().hex}",
    }


def slash_command(
    ws: Workspace,
    *,
    command: str,
    text: str,
    user_id: str,
    channel_id: str,
    response_url: str,
    trigger_id: str,
    verification_token: str,
) -> dict[str, str]:
    """The form fields of a slash command (also the Socket Mode `slash_commands` payload)."""
    me = ws.identity
    channel = ws.channel(channel_id)
    return {
        "token": verification_token,
        "team_id": me.team_id,
        "team_domain": me.team_domain,
        "channel_id": channel_id,
        "channel_name": "directmessage" if channel.is_im else channel.name,
        "user_id": user_id,
        "user_name": ws.user(user_id).name,
        "command": command,
        "text": text,
        "api_app_id": me.app_id,
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": trigger_id,
    }


def block_actions(
    ws: Workspace,
    *,
    action_id: str,
    value: str | None,
    user_id: str,
    message: Message,
    response_url: str,
    trigger_id: str,
    verification_token: str,
) -> JsonDict:
    """The `block_actions` payload of a click on an element the stored `message` shows."""
    me = ws.identity
    user = ws.user(user_id)
    channel = ws.channel(message.channel)
    block_id, element = _find_element(message, action_id)
    action: JsonDict = {
        "action_id": action_id,
        "block_id": block_id,
        "type": element.get("type", "button"),
        "action_ts": f"{time.time():.6f}",
    }
    if "text" in element:
        action["text"] = element["text"]
    chosen = value if value is not None else element.get("value")
    if chosen is not None:
        action["value"] = chosen
    return {
        "type": "block_actions",
        "user": {"id": user.id, "username": user.name, "name": user.name, "team_id": me.team_id},
        "api_app_id": me.app_id,
        "token": verification_token,
        "container": {
            "type": "message",
            "message_ts": message.ts,
            "channel_id": channel.id,
            "is_ephemeral": False,
        },
        "trigger_id": trigger_id,
        "team": {"id": me.team_id, "domain": me.team_domain},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": channel.id, "name": channel.name if not channel.is_im else "directmessage"},
        "message": ws.message_to_api(message, include_metadata=True),
        "state": {"values": {}},
        "response_url": response_url,
        "actions": [action],
    }


def url_verification(challenge: str, *, verification_token: str) -> JsonDict:
    return {"token": verification_token, "challenge": challenge, "type": "url_verification"}


def _find_element(message: Message, action_id: str) -> tuple[str, JsonDict]:
    for index, block in enumerate(message.blocks or []):
        elements = block.get("elements", []) if block.get("type") == "actions" else [block.get("accessory")]
        for element in elements:
            if isinstance(element, dict) and element.get("action_id") == action_id:
                # Slack fills in a block_id the app left out; a stable one keeps payloads comparable.
                return block.get("block_id", f"block-{index}"), element
    raise ValueError(f"message {message.ts} in {message.channel} has no element with action_id {action_id!r}")


def _rich_text(text: str) -> JsonDict:
    elements: list[JsonDict] = []
    position = 0
    for mention in _MENTION.finditer(text):
        if mention.start() > position:
            elements.append({"type": "text", "text": text[position : mention.start()]})
        elements.append({"type": "user", "user_id": mention.group(1)})
        position = mention.end()
    if position < len(text):
        elements.append({"type": "text", "text": text[position:]})
    return {
        "type": "rich_text",
        "block_id": uuid.uuid4().hex[:5],
        "elements": [{"type": "rich_text_section", "elements": elements}],
    }


def message_action(
    ws: Workspace,
    *,
    callback_id: str,
    user_id: str,
    channel_id: str,
    message: JsonDict,
    response_url: str,
    trigger_id: str,
    verification_token: str,
) -> JsonDict:
    """The `message_action` payload of a message shortcut used on `message` (its user, ts and text)."""
    me = ws.identity
    user = ws.user(user_id)
    channel = ws.channel(channel_id)
    return {
        "type": "message_action",
        "token": verification_token,
        "action_ts": f"{time.time():.6f}",
        "team": {"id": me.team_id, "domain": me.team_domain},
        "user": {"id": user.id, "username": user.name, "name": user.name, "team_id": me.team_id},
        "channel": {"id": channel.id, "name": channel.name if not channel.is_im else "directmessage"},
        "is_enterprise_install": False,
        "enterprise": None,
        "callback_id": callback_id,
        "trigger_id": trigger_id,
        "response_url": response_url,
        "message_ts": message.get("ts"),
        "message": {"type": "message", **message},
    }
