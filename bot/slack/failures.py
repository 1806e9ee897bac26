"""Slack's error codes, sorted once: which say that a message can never be delivered where it was meant to
go (its channel, its message or its person is gone: retention policies and deactivated users make these
ordinary), which say that Slack refuses the bot's token, and (everything else) which may pass.

https://docs.slack.dev/reference/methods/chat.postMessage, chat.update, conversations.open, auth.test."""

from __future__ import annotations

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
