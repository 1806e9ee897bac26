"""Socket Mode (https://docs.slack.dev/apis/events-api/using-socket-mode) on an aiohttp websocket.

apps.connections.open hands out `ws://127.0.0.1:PORT/socket-mode?ticket=...&app_id=...`; a client connecting
with an issued ticket gets a `hello`, then whatever envelopes the test sends, and its ack frames are recorded.
Websocket pings are answered with pongs (aiohttp's autoping), as slack_sdk's aiohttp client expects.
"""

from __future__ import annotations

import itertools
import json
import uuid
from dataclasses import dataclass
from typing import Literal

from aiohttp import WSCloseCode, WSMsgType, web

from bot.standin.model import JsonDict, Recorder

EnvelopeKind = Literal["events_api", "slash_commands", "interactive"]


@dataclass(frozen=True)
class Envelope:
    envelope_id: str
    type: EnvelopeKind
    payload: JsonDict
    accepts_response_payload: bool
    retry_attempt: int
    retry_reason: str
    connection: int

    def to_frame(self) -> JsonDict:
        return {
            "envelope_id": self.envelope_id,
            "type": self.type,
            "payload": self.payload,
            "accepts_response_payload": self.accepts_response_payload,
            "retry_attempt": self.retry_attempt,
            "retry_reason": self.retry_reason,
        }


@dataclass(frozen=True)
class Ack:
    envelope_id: str
    payload: JsonDict | None
    connection: int


class SocketConnection:
    """One websocket a client opened. `number` counts connections from 1 in the order they were accepted."""

    def __init__(self, number: int, ticket: str, ws: web.WebSocketResponse, request: web.Request) -> None:
        self.number = number
        self.ticket = ticket
        self.frames: list[str] = []  # text frames the client sent, in order
        self.closed = False
        self._ws = ws
        self._request = request

    def __repr__(self) -> str:
        return f"SocketConnection(number={self.number}, closed={self.closed}, frames={len(self.frames)})"

    async def send_json(self, message: JsonDict) -> None:
        await self._ws.send_json(message)

    def abort(self) -> None:
        """Cut the TCP connection, without a close frame."""
        transport = self._request.transport
        if transport is not None:
            transport.abort()

    async def close(self) -> None:
        await self._ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")


class SocketModeHub:
    def __init__(self, app_id: str) -> None:
        self._app_id = app_id
        self._base_url = ""
        self._tickets: set[str] = set()
        self._numbers = itertools.count(1)
        self.connections: Recorder[SocketConnection] = Recorder("Socket Mode connection")
        self.closures: Recorder[SocketConnection] = Recorder("Socket Mode connection closed")
        self.acks: Recorder[Ack] = Recorder("Socket Mode ack")
        self.envelopes: list[Envelope] = []

    def listen_at(self, base_url: str) -> None:
        """`base_url` is ws://host:port of the server this hub's `handle` is mounted on."""
        self._base_url = base_url

    def issue_url(self) -> str:
        ticket = uuid.uuid4().hex
        self._tickets.add(ticket)
        return f"{self._base_url}/socket-mode?ticket={ticket}&app_id={self._app_id}"

    def open_connections(self) -> list[SocketConnection]:
        return [c for c in self.connections.items if not c.closed]

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ticket = request.query.get("ticket", "")
        if ticket not in self._tickets:
            return web.json_response({"ok": False, "error": "invalid_ticket"}, status=401)
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        connection = SocketConnection(next(self._numbers), ticket, ws, request)
        await ws.send_json(
            {
                "type": "hello",
                "num_connections": len(self.open_connections()) + 1,
                "debug_info": {"host": "applink-fake-1", "build_number": 1, "approximate_connection_time": 18060},
                "connection_info": {"app_id": self._app_id},
            }
        )
        self.connections.add(connection)  # only now: nothing may reach the client before its hello
        try:
            async for frame in ws:
                if frame.type == WSMsgType.TEXT:
                    self._receive(connection, frame.data)
        finally:
            connection.closed = True
            self.closures.add(connection)
        return ws

    def _receive(self, connection: SocketConnection, text: str) -> None:
        connection.frames.append(text)
        try:
            message = json.loads(text)
        except json.JSONDecodeError:
            return
        if isinstance(message, dict) and "envelope_id" in message:
            self.acks.add(Ack(message["envelope_id"], message.get("payload"), connection.number))

    def _current(self) -> SocketConnection:
        connections = self.open_connections()
        if not connections:
            raise AssertionError("no Socket Mode client is connected")
        return connections[-1]

    async def send(
        self,
        kind: EnvelopeKind,
        payload: JsonDict,
        *,
        retry_attempt: int,
        retry_reason: str,
        accepts_response_payload: bool | None,
    ) -> str:
        connection = self._current()
        envelope = Envelope(
            envelope_id=str(uuid.uuid4()),
            type=kind,
            payload=payload,
            # Slack lets an ack carry a response for commands, not for events.
            accepts_response_payload=(
                kind == "slash_commands" if accepts_response_payload is None else accepts_response_payload
            ),
            retry_attempt=retry_attempt,
            retry_reason=retry_reason,
            connection=connection.number,
        )
        self.envelopes.append(envelope)
        await connection.send_json(envelope.to_frame())
        return envelope.envelope_id

    async def disconnect(self, reason: str) -> SocketConnection:
        connection = self._current()
        await connection.send_json({"type": "disconnect", "reason": reason, "debug_info": {"host": "applink-fake-1"}})
        return connection

    def drop(self) -> SocketConnection:
        """Cut the TCP connection under the current websocket, without a close frame."""
        connection = self._current()
        connection.abort()
        return connection

    async def close(self) -> None:
        for connection in self.open_connections():
            await connection.close()


class SocketModeDriver:
    """The test's side of Socket Mode (a part of FakeSlack): the connections, envelopes sent, acks awaited."""

    _socket: SocketModeHub

    # -- Socket Mode -----------------------------------------------------------------------------------------

    @property
    def socket_connections(self) -> list[SocketConnection]:
        """Every websocket clients opened, in order, open or closed."""
        return list(self._socket.connections.items)

    @property
    def socket_envelopes(self) -> list[Envelope]:
        """Every envelope sent to a client, in order."""
        return list(self._socket.envelopes)

    async def wait_for_socket_connection(self, nth: int = 1, *, timeout: float = 5) -> SocketConnection:  # noqa: ASYNC109
        """The `nth` websocket a client opened (1: the first; after a reconnect, 2)."""
        return await self._socket.connections.wait(None, timeout=timeout, nth=nth)

    async def wait_for_socket_close(self, connection: SocketConnection, *, timeout: float = 5) -> None:  # noqa: ASYNC109
        await self._socket.closures.wait(lambda c: c is connection, timeout=timeout)

    async def socket_send(
        self,
        kind: EnvelopeKind,
        payload: JsonDict,
        *,
        retry_attempt: int = 0,
        retry_reason: str = "",
        accepts_response_payload: bool | None = None,
    ) -> str:
        """Send an envelope to the newest connected client; returns its envelope_id."""
        return await self._socket.send(
            kind,
            payload,
            retry_attempt=retry_attempt,
            retry_reason=retry_reason,
            accepts_response_payload=accepts_response_payload,
        )

    async def wait_for_ack(self, envelope_id: str, *, timeout: float = 5) -> Ack:  # noqa: ASYNC109
        return await self._socket.acks.wait(lambda a: a.envelope_id == envelope_id, timeout=timeout)

    async def socket_disconnect(self, reason: str = "refresh_requested") -> SocketConnection:
        """Ask the newest client to reconnect, as Slack does ("warning", "refresh_requested", ...)."""
        return await self._socket.disconnect(reason)

    def socket_drop(self) -> SocketConnection:
        """Cut the newest client's connection abruptly (no close frame)."""
        return self._socket.drop()
