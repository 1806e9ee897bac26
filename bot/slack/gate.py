"""The door of POST /slack/events: nothing of a request's body is parsed before its signature is checked.

In order: the body is read within a time limit (408) and a size limit (413); `X-Slack-Request-Timestamp` must
be a number within `WINDOW` seconds of now and `X-Slack-Signature` the HMAC-SHA256 of `v0:{timestamp}:{body}`
with the signing secret (else 401, one log line, no traceback). A signature already seen within the window is a
replay (or a duplicate delivery): acknowledged (200) and dropped. Only then does Bolt read the body.

Replays across restarts: the signatures (and the events' ids, see `SlackBot`) are remembered in the state store
for the window when there is one (`remember_request`), else in memory. A store that cannot answer falls back to
memory for that request (logged), so a broken store never stops the bot from answering.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from bot.errors import StoreUnavailable

log = logging.getLogger(__name__)

WINDOW = 300  # seconds: a request's timestamp may be this far from now; its signature is remembered as long
_MEMORY = 20_000  # keys kept in memory at most

Remember = Callable[[str, datetime, datetime], Awaitable[bool]]  # (key, now, until) -> first time?


class Rejected(Exception):
    """A request the door does not let in: its HTTP status and why (for the log, never for the client).
    Status 200: a replay, acknowledged and dropped."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


class Ledger:
    """Keys already seen (signatures, event ids), each until its window ends: in the state store when one is
    given (shared by the replicas, kept across restarts), else in memory."""

    def __init__(self, remember: Remember | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self._remember = remember
        self._clock = clock
        self._memory: OrderedDict[str, float] = OrderedDict()

    async def first_time(self, key: str) -> bool:
        now = self._clock()
        if self._remember is not None:
            moment = datetime.fromtimestamp(now, UTC)
            try:
                return await self._remember(key, moment, moment + timedelta(seconds=WINDOW))
            except StoreUnavailable as error:
                log.warning("slack: replay check in memory only (state store unavailable)", extra={"error": str(error)})
        return self._first_in_memory(key, now)

    def _first_in_memory(self, key: str, now: float) -> bool:
        while self._memory and next(iter(self._memory.values())) < now:
            self._memory.popitem(last=False)
        if key in self._memory:
            return False
        self._memory[key] = now + WINDOW
        if len(self._memory) > _MEMORY:
            self._memory.popitem(last=False)
        return True


def check_signature(secret: str, timestamp: str | None, signature: str | None, body: bytes, now: float) -> str:
    """The request's signature when it is Slack's, fresh, and rightly made; else Rejected(401)."""
    if not timestamp or not signature:
        raise Rejected(401, "no signature or timestamp")
    stamp = timestamp.strip()
    if not (stamp.isascii() and stamp.isdigit()) or len(stamp) > 12:
        raise Rejected(401, "timestamp not a number")
    if abs(now - int(stamp)) > WINDOW:
        raise Rejected(401, "timestamp out of the window")
    expected = "v0=" + hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode(), signature.strip().encode("utf-8", "replace")):
        raise Rejected(401, "signature mismatch")
    return expected


class Door:
    """Checks a request from Slack before anything reads it (see the module)."""

    def __init__(self, signing_secret: str, ledger: Ledger, *, clock: Callable[[], float] = time.time) -> None:
        self._secret = signing_secret
        self._ledger = ledger
        self._clock = clock

    async def check(self, timestamp: str | None, signature: str | None, body: bytes) -> None:
        """Rejected unless the request is signed, fresh and new."""
        verified = check_signature(self._secret, timestamp, signature, body, self._clock())
        if not await self._ledger.first_time(f"sig:{verified}"):
            raise Rejected(200, "replayed request")
