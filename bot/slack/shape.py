"""The shape of a signed request, checked before Bolt reads it: Slack's payloads are JSON objects of a known
shape, and a signed request that is not one (an `event` that is not an object, `actions` that is not a list of
objects, JSON nested past any payload's depth) is refused with 400, as SECURITY.md says, instead of failing
inside Bolt with a traceback and a 500. Pure: text in, a reason (or None) out."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

MAX_DEPTH = 64  # Slack's deepest payloads (a modal's state, rich text) nest far less than this

# Top-level members that are objects when present, lists of objects, and strings.
_OBJECTS = ("event", "team", "user", "channel", "container", "message", "view", "enterprise", "state")
_LISTS = ("actions", "authorizations")
_STRINGS = ("type", "team_id", "api_app_id", "event_id", "enterprise_id", "user_id", "channel_id", "trigger_id")
# The events the bot listens to, and their members it reads as strings.
_OUR_EVENTS = ("app_mention", "message", "app_home_opened")
_EVENT_STRINGS = ("type", "user", "channel", "text", "ts", "thread_ts", "channel_type", "subtype", "bot_id", "tab")
_ACTION_STRINGS = ("type", "action_id", "block_id", "value")


def malformed(text: str, content_type: str) -> str | None:
    """Why a signed body is not a payload the bot can read; None when it is one."""
    if content_type.startswith("application/x-www-form-urlencoded") or not text.lstrip().startswith(("{", "[")):
        fields = parse_qs(text, keep_blank_values=True)
        if "payload" not in fields:
            return None  # a slash command or an ssl_check: strings only
        text = fields["payload"][0]
    try:
        body = json.loads(text)
    except RecursionError:
        return "JSON nested too deep"
    except ValueError:
        return "not JSON"
    if not isinstance(body, dict):
        return "not a JSON object"
    if _depth(body) > MAX_DEPTH:
        return "JSON nested too deep"
    return _members(body)


def _members(body: dict[str, Any]) -> str | None:
    for name in _OBJECTS:
        if body.get(name) is not None and not isinstance(body[name], dict):
            return f"{name} is not an object"
    for name in _LISTS:
        value = body.get(name)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, dict) for v in value)):
            return f"{name} is not a list of objects"
    wrong = _strings(body, _STRINGS)
    if wrong:
        return wrong
    event = body.get("event")
    if isinstance(event, dict) and event.get("type") in _OUR_EVENTS:
        wrong = _strings(event, _EVENT_STRINGS)
        if wrong:
            return f"event {wrong}"
    for action in body.get("actions") or []:
        wrong = _strings(action, _ACTION_STRINGS)
        if wrong:
            return f"an action's {wrong}"
    return None


def _strings(members: dict[str, Any], names: tuple[str, ...]) -> str | None:
    for name in names:
        if members.get(name) is not None and not isinstance(members[name], str):
            return f"{name} is not a string"
    return None


def _depth(value: Any) -> int:
    """How deep a decoded JSON value nests (iteratively: a deep one must not exhaust the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            return deepest
        if isinstance(current, dict):
            stack.extend((v, depth + 1) for v in current.values() if isinstance(v, dict | list))
        elif isinstance(current, list):
            stack.extend((v, depth + 1) for v in current if isinstance(v, dict | list))
    return deepest
