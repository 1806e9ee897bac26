"""The Slack stand-in now lives in the package (`bot.standin`), so the demo can use it; this is its old name.
Also the bot's settings pointed at a stand-in, as the integration tests start it."""

from typing import Any

from bot.config import Secret, Settings
from bot.standin.slack import *  # noqa: F403
from bot.standin.slack import Call, Delivery, FakeSlack, ResponseUrlPost

__all__ = ["Call", "Delivery", "FakeSlack", "ResponseUrlPost", "bot_settings"]


def bot_settings(slack: FakeSlack, *, socket_mode: bool = False, **overrides: Any) -> Settings:
    """Settings of a bot that talks to `slack` (over Socket Mode with `socket_mode`), serving on a free local
    port, logging text; `overrides` replace any other setting."""
    base = Settings(
        slack_bot_token=Secret(slack.bot_token),
        slack_signing_secret=Secret(slack.signing_secret),
        slack_app_token=Secret(slack.app_token if socket_mode else ""),
        slack_api_url=slack.api_url,
        host="127.0.0.1",
        port=0,
        log_format="text",
    )
    return base.__class__(**{**base.__dict__, **overrides}) if overrides else base
