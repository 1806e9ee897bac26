"""The HTTP server's defences against slow and greedy clients (slow-loris): a time limit on a request's headers,
a cap on concurrent connections (in all, and per client address), room kept for health probes, and a time limit
on reading a body (`read_body`).

* Headers: aiohttp closes a connection that has not sent a complete request within its keep-alive timeout,
  counted from the connection's start (and from the end of the previous response): `HEADER_TIMEOUT`.
* Connections: at most `max_connections` at once (by default under the process's descriptor limit), and at most
  `per_address` from one client address. When full, a new connection pushes out the oldest one that is not
  busy: one still sending its request (its headers, or a body shorter than its Content-Length), or idle between
  requests. A connection whose request has fully arrived and is being answered is never pushed out. From an
  address at its own cap, the oldest of that address goes, so a flood from one address never pushes out
  another's. When nothing can go, the new connection is closed at once.
* Health probes: beyond the cap, `PROBE_ROOM` connections more may come in for `GET /healthz` or `GET /readyz`
  only (any other request on them is closed as soon as its request line is read), so the kubelet's probes are
  answered whatever holds the shared room.
* Bodies: `read_body` gives up after `BODY_TIMEOUT` (a 408) and refuses more than the app's client_max_size (413).

A connection's requests are followed from the bytes it sends (request line, Content-Length), and its answers
from the bytes written to it (a thin wrapper of its transport), without parsing anything aiohttp relies on.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from aiohttp import web

log = logging.getLogger(__name__)

HEADER_TIMEOUT = 10.0  # seconds for a request's line and headers
BODY_TIMEOUT = 10.0  # seconds to read a request's body
MAX_CONNECTIONS = 900  # concurrent connections (lowered to fit the descriptor limit)
PER_ADDRESS = 256  # concurrent connections from one client address
PROBE_ROOM = 16  # connections beyond the cap for GET /healthz and /readyz only
MAX_HEAD = 64 * 1024  # bytes of a request line and headers followed (aiohttp refuses far less)
_RESERVED_DESCRIPTORS = 128  # left for Slack, Kubernetes, the state store, logs
_PROBES = (b"GET /healthz", b"GET /readyz", b"HEAD /healthz", b"HEAD /readyz")

_HEAD, _BODY, _DONE, _OPAQUE = "head", "body", "done", "opaque"


def connection_cap(wanted: int = MAX_CONNECTIONS) -> int:
    """`wanted`, lowered so that connections (and the probes' room) never exhaust the process's descriptors."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(16, min(wanted, soft - _RESERVED_DESCRIPTORS - PROBE_ROOM))


class _Request:
    """Where a connection is in its current request: the head, the body (bytes still owed), done (fully
    arrived), or opaque (chunked or oversized: followed no further, so always evictable)."""

    def __init__(self) -> None:
        self.state = _HEAD
        self.probe = False  # GET /healthz or /readyz
        self.line = b""
        self._head = bytearray()
        self._remaining = 0

    def feed(self, data: bytes) -> bool:
        """Take bytes received; True when a request's head has just ended (its line is in `line`)."""
        ended = False
        while data:
            if self.state == _HEAD:
                data, done = self._feed_head(data)
                ended = ended or done
            elif self.state == _BODY:
                taken = min(self._remaining, len(data))
                self._remaining -= taken
                data = data[taken:]
                if self._remaining == 0:
                    self.state = _DONE
            elif self.state == _DONE:  # the next request of a kept-alive connection begins
                self.state = _HEAD
            else:
                return ended
        return ended

    def _feed_head(self, data: bytes) -> tuple[bytes, bool]:
        start = max(0, len(self._head) - 3)
        self._head += data
        end = self._head.find(b"\r\n\r\n", start)
        if end < 0:
            if len(self._head) > MAX_HEAD:
                self.state, self._head = _OPAQUE, bytearray()
            return b"", False
        head, rest = bytes(self._head[:end]), bytes(self._head[end + 4 :])
        self._head = bytearray()
        self._begin(head.lstrip(b"\r\n"))
        return rest, True

    def _begin(self, head: bytes) -> None:
        self.line = head.split(b"\r\n", 1)[0]
        self.probe = self.line.startswith(_PROBES)
        length, chunked = 0, False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value.strip()) if value.strip().isdigit() else -1
            elif name == b"transfer-encoding":
                chunked = True
        if chunked or length < 0:
            self.state = _OPAQUE
        elif length:
            self.state, self._remaining = _BODY, length
        else:
            self.state = _DONE


class _Watched(asyncio.Transport):
    """The connection's transport as aiohttp sees it: every call passed on, a write noted (the answer began)."""

    def __init__(self, real: asyncio.Transport, guard: _Guard) -> None:
        super().__init__()
        self._real = real
        self._guard = guard

    def write(self, data: Any) -> None:
        self._guard.answered()
        self._real.write(data)

    def writelines(self, list_of_data: Iterable[Any]) -> None:
        self._guard.answered()
        self._real.writelines(list_of_data)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._real.get_extra_info(name, default)

    def is_closing(self) -> bool:
        return self._real.is_closing()

    def close(self) -> None:
        self._real.close()

    def abort(self) -> None:
        self._real.abort()

    def pause_reading(self) -> None:
        self._real.pause_reading()

    def resume_reading(self) -> None:
        self._real.resume_reading()

    def is_reading(self) -> bool:
        return self._real.is_reading()

    def get_write_buffer_size(self) -> int:
        return self._real.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._real.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._real.set_write_buffer_limits(high, low)

    def can_write_eof(self) -> bool:
        return self._real.can_write_eof()

    def write_eof(self) -> None:
        self._real.write_eof()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._real.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._real.get_protocol()


class _Guard(asyncio.Protocol):
    """One connection: aiohttp's protocol inside, and where its request is (see `_Request`)."""

    def __init__(self, site: GuardedSite, inner: asyncio.Protocol) -> None:
        self._site = site
        self._inner = inner
        self._made = False
        self.request = _Request()
        self.replied = False  # an answer to the request that has fully arrived has begun
        self.probe_only = False  # let in beyond the cap: health probes only
        self.address = ""
        self.transport: asyncio.Transport | None = None

    @property
    def evictable(self) -> bool:
        """Not busy: still sending its request, or idle between requests (its answer written out)."""
        if self.request.state != _DONE:
            return True
        return self.replied and self.transport is not None and self.transport.get_write_buffer_size() == 0

    def answered(self) -> None:
        if self.request.state == _DONE:
            self.replied = True

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.address = str(peer[0]) if isinstance(peer, tuple | list) and peer else ""
        if not self._site.admit(self):
            transport.abort()
            return
        self._made = True
        self._inner.connection_made(_Watched(transport, self))

    def data_received(self, data: bytes) -> None:
        if self.request.feed(data):
            self.replied = False
            if self.probe_only and not self.request.probe and self.transport is not None:
                self.transport.abort()  # let in for a health probe, and asked something else
                return
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


def _oldest_evictable(guards: Iterable[_Guard]) -> _Guard | None:
    return next((g for g in guards if g.evictable), None)


class GuardedSite(web.TCPSite):
    """A TCPSite whose connections are capped (see the module)."""

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        *,
        max_connections: int,
        per_address: int = PER_ADDRESS,
        probe_room: int = PROBE_ROOM,
        on_shed: Callable[[str], None] = lambda how: None,
    ) -> None:
        super().__init__(runner, host, port)
        self.max_connections = max_connections
        self.per_address = per_address
        self.probe_room = probe_room
        self._on_shed = on_shed
        self._open: OrderedDict[_Guard, None] = OrderedDict()  # oldest first
        self._by_address: dict[str, OrderedDict[_Guard, None]] = {}
        self._probes: OrderedDict[_Guard, None] = OrderedDict()  # let in beyond the cap, for health probes
        self.evicted = 0  # connections pushed out
        self.refused = 0  # connections closed at once

    @property
    def open_connections(self) -> int:
        return len(self._open) + len(self._probes)

    def admit(self, guard: _Guard) -> bool:
        mine = self._by_address.get(guard.address)
        if mine is not None and len(mine) >= self.per_address and not self._evict(mine):
            return self._admit_probe(guard)
        if len(self._open) >= self.max_connections and not self._evict(self._open):
            return self._admit_probe(guard)
        self._open[guard] = None
        self._by_address.setdefault(guard.address, OrderedDict())[guard] = None
        return True

    def _evict(self, guards: OrderedDict[_Guard, None]) -> bool:
        victim = _oldest_evictable(guards)
        if victim is None:
            return False
        self.release(victim)
        self.evicted += 1
        self._on_shed("evicted")
        if victim.transport is not None:
            victim.transport.abort()
        return True

    def _admit_probe(self, guard: _Guard) -> bool:
        """Beyond the cap: room for a health probe (the oldest one not being answered makes room)."""
        if len(self._probes) >= self.probe_room:
            victim = _oldest_evictable(self._probes)
            if victim is None:
                self.refused += 1
                self._on_shed("refused")
                return False
            self._probes.pop(victim)
            self.evicted += 1
            self._on_shed("evicted")
            if victim.transport is not None:
                victim.transport.abort()
        guard.probe_only = True
        self._probes[guard] = None
        return True

    def release(self, guard: _Guard) -> None:
        self._open.pop(guard, None)
        self._probes.pop(guard, None)
        mine = self._by_address.get(guard.address)
        if mine is not None:
            mine.pop(guard, None)
            if not mine:
                del self._by_address[guard.address]

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
    (else BodyRefused: 408 or 413; 400 when the connection went away, pushed out or closed by the client)."""
    try:
        async with asyncio.timeout(timeout):
            return await request.read()
    except TimeoutError as error:
        raise BodyRefused(408, "body not sent in time") from error
    except web.HTTPRequestEntityTooLarge as error:
        raise BodyRefused(413, "body too large") from error
    except (ConnectionError, RuntimeError) as error:  # aiohttp's "Connection closed." is a RuntimeError
        raise BodyRefused(400, "connection closed before the body was sent") from error
