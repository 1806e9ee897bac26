"""How Slack's traffic reaches the Bolt app: the Events API over HTTP (an aiohttp handler for POST /slack/events)
or a Socket Mode connection. The composition root mounts and starts these without importing Slack's libraries."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import ClientError, web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

# What the Web API client raises when Slack is out of reach (the messenger turns these into SlackUnavailable).
HTTP_CLIENT_ERRORS: tuple[type[Exception], ...] = (ClientError,)


def events_handler(app: AsyncApp) -> Callable[[web.Request], Awaitable[web.Response]]:
    """An aiohttp handler that hands a signed Events API request to Bolt and returns Bolt's response."""

    async def slack_events(request: web.Request) -> web.Response:
        bolt_response = await app.async_dispatch(await to_bolt_request(request))
        return await to_aiohttp_response(bolt_response)

    return slack_events


class SocketMode:
    """A Socket Mode connection for the Bolt app (Slack's websocket instead of a public HTTP endpoint)."""

    def __init__(self, app: AsyncApp, app_token: str, web_client: AsyncWebClient) -> None:
        self._handler = AsyncSocketModeHandler(app, app_token=app_token, web_client=web_client)

    async def connect(self) -> None:
        await self._handler.connect_async()  # type: ignore[no-untyped-call]

    async def close(self) -> None:
        await self._handler.close_async()  # type: ignore[no-untyped-call]
