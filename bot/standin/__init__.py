"""A local Slack stand-in: the Web API, signed Events API delivery, response_url sinks and Socket Mode, on
127.0.0.1. The integration tests drive the bot through it, and `python -m bot demo` chats through it.

It speaks HTTP (aiohttp) only; it never imports slack_sdk or slack_bolt, so it checks the bot from the outside.
"""

from bot.standin.slack import Call, Delivery, FakeSlack, ResponseUrlPost

__all__ = ["Call", "Delivery", "FakeSlack", "ResponseUrlPost"]
