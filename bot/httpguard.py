"""The HTTP server's defences against slow and greedy clients (slow-loris): a time limit on a request's headers,
a cap on concurrent connections, and a time limit on reading a body (`read_body`).

* Headers: aiohttp closes a connection that has not sent a complete request within its keep-alive timeout,
  counted from the connection's start (and from the end of the previous response): `HEADER_TIMEOUT`.
* Connections: at most `max_connections` at once (by default under the process's descriptor limit). When
  full, a new connection pushes out the oldest one that has still not finished sending its first request's
  headers (a half-sent request: the slow-loris); when there is none, the new connection is closed at once.
  So a flood of half-sent requests never starves /healthz or Slack's deliveries, which send their headers in
  one go.
* Bodies: `read_body` gives up after `BODY_TIMEOUT` (a 408) and refuses more than the app's client_max_size (413).
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections import OrderedDict
from collections.abc import Callable

from aiohttp import web

log = logging.getLogger(__name__)

HEADER_TIMEOUT = 10.0  # seconds for a request's line and headers
BODY_TIMEOUT = 10.0  # seconds to read a request's body
MAX_CONNECTIONS = 900  # concurrent connections (lowered to fit the descriptor limit)
_RESERVED_DESCRIPTORS = 128  # left for Slack, Kubernetes, the state store, logs


def connection_cap(wanted: int = MAX_CONNECTIONS) -> int:
    """`wanted`, lowered so that connections never exhaust the process's descriptors."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(16, min(wanted, soft - _RESERVED_DESCRIPTORS))


class _Guard(asyncio.Protocol):
    """One connection: aiohttp's protocol inside, with the moment its first request's headers ended."""

    def __init__(self, site: GuardedSite, inner: asyncio.Protocol) -> None:
        self._site = site
        self._inner = inner
        self._made = False
        self._tail = b""
        self.headers_done = False
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        if not self._site.admit(self):
            transport.abort()
            return
        self._made = True
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if not self.headers_done:
            seen = self._tail + data
            if b"\r\n\r\n" in seen:
                self.headers_done = True
                self._tail = b""
            else:
                self._tail = seen[-3:]
        if self._made:
            self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received() if self._made else None

    def connection_lost(self, exc: Exception | None) -> None:
        self._site.release(self)
        if self._made:
            self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self._made:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._made:
            self._inner.resume_writing()


class GuardedSite(web.TCPSite):
    """A TCPSite whose connections are capped (see the module)."""

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        *,
        max_connections: int,
        on_shed: Callable[[str], None] = lambda how: None,
    ) -> None:
        super().__init__(runner, host, port)
        self.max_connections = max_connections
        self._on_shed = on_shed
        self._open: OrderedDict[_Guard, None] = OrderedDict()  # oldest first
        self.evicted = 0  # half-sent connections pushed out
        self.refused = 0  # connections closed at once (full of complete requests)

    @property
    def open_connections(self) -> int:
        return len(self._open)

    def admit(self, guard: _Guard) -> bool:
        if len(self._open) >= self.max_connections:
            victim = next((g for g in self._open if not g.headers_done), None)
            if victim is None:
                self.refused += 1
                self._on_shed("refused")
                return False
            self._open.pop(victim)
            self.evicted += 1
            self._on_shed("evicted")
            if victim.transport is not None:
                victim.transport.abort()
        self._open[guard] = None
        return True

    def release(self, guard: _Guard) -> None:
        self._open.pop(guard, None)

    async def start(self) -> None:
        await web.BaseSite.start(self)
        server = self._runner.server
        assert server is not None
        inner: Callable[[], asyncio.Protocol] = server
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: _Guard(self, inner()), self._host, self._port, backlog=self._backlog
        )
        sockets = self._server.sockets
        self._bound_port = sockets[0].getsockname()[1] if sockets else self._port


class BodyRefused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


async def read_body(request: web.Request, *, timeout: float = BODY_TIMEOUT) -> bytes:  # noqa: ASYNC109
    """The request's body, read within `timeout` seconds and no longer than the application's client_max_size
    (else BodyRefused: 408 or 413)."""
    try:
        async with asyncio.timeout(timeout):
            return await request.read()
    except TimeoutError as error:
        raise BodyRefused(408, "body not sent in time") from error
    except web.HTTPRequestEntityTooLarge as error:
        raise BodyRefused(413, "body too large") from error
