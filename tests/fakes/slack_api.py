"""The Slack stand-in now lives in the package (`bot.standin`), so the demo can use it; this is its old name."""

from bot.standin.slack import *  # noqa: F403
from bot.standin.slack import Call, Delivery, FakeSlack, ResponseUrlPost

__all__ = ["Call", "Delivery", "FakeSlack", "ResponseUrlPost"]
