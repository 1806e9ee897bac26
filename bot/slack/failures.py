"""Slack's error codes, sorted once: which say that a message can never be delivered where it was meant to
go (its channel, its message or its person is gone: retention policies and deactivated users make these
ordinary), which say that Slack refuses the bot's token, and (everything else) which may pass.

https://docs.slack.dev/reference/methods/chat.postMessage, chat.update, conversations.open, auth.test."""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

# The conversation, the message or the person is gone, or the bot may not write there: trying again can only
# fail the same way.
UNDELIVERABLE = frozenset(
    {
        "account_inactive",
        "cannot_dm_bot",
        "cant_update_message",
        "channel_not_found",
        "edit_window_closed",
        "is_archived",
        "message_not_found",
        "not_in_channel",
        "restricted_action",
        "thread_not_found",
        "user_disabled",
        "user_not_found",
        "user_not_visible",
    }
)

# Slack refuses the bot's token itself: nothing works until it is replaced.
TOKEN_REFUSED = frozenset({"invalid_auth", "not_authed", "token_revoked", "token_expired", "not_allowed_token_type"})
_AUTH_METHODS = frozenset({"auth.test", "apps.connections.open"})


def undeliverable(code: str) -> bool:
    """A failure of one delivery that no retry can mend."""
    return code in UNDELIVERABLE


def token_refusal(method: str, code: str) -> str:
    """Slack's error when it says the token is refused ("" otherwise). `account_inactive` speaks of the token
    only when authenticating; elsewhere it may be the person a DM was for."""
    if code in TOKEN_REFUSED or (code == "account_inactive" and method in _AUTH_METHODS):
        return code
    return ""


def token_of(method: str) -> str:
    """The setting whose token a Web API method is called with."""
    return "SLACK_APP_TOKEN" if method == "apps.connections.open" else "SLACK_BOT_TOKEN"


class Tokens:
    """Whether Slack accepts the bot's tokens, as its last answers said: what /readyz says of Slack. Refusals
    are said once each (a WARNING) and told to the listeners (Socket Mode stops reconnecting on them)."""

    def __init__(self) -> None:
        self.verified = False  # Slack accepted a call at least once
        self.refusals: dict[str, str] = {}  # setting -> Slack's error, until a call with that token succeeds
        self.listeners: list[Callable[[str, str], None]] = []

    @property
    def refused(self) -> str:
        """ "SLACK_BOT_TOKEN token_revoked" ("" when no token is refused)."""
        return "; ".join(f"{name} {code}" for name, code in sorted(self.refusals.items()))

    def accepted(self, method: str) -> None:
        self.verified = True
        self.refusals.pop(token_of(method), None)

    def failed(self, method: str, code: str) -> None:
        refusal = token_refusal(method, code)
        name = token_of(method)
        if not refusal or self.refusals.get(name) == refusal:
            return
        self.refusals[name] = refusal
        log.warning("slack: Slack refused a token", extra={"token": name, "method": method, "error": refusal})
        for listener in self.listeners:
            listener(name, refusal)
