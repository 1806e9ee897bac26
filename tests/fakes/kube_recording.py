"""What the fake server saw (every request) and what a test asked it to do wrong (fault injection)."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    query: Mapping[str, str]
    user: str | None  # None when the request was not authenticated
    body: Any = None  # the JSON body of a write

    @property
    def watch(self) -> bool:
        return self.query.get("watch") in ("1", "true", "True")

    def __str__(self) -> str:
        query = "&".join(f"{k}={v}" for k, v in self.query.items())
        return f"{self.method} {self.path}{'?' + query if query else ''}"


Predicate = Callable[[RecordedRequest], bool]


@dataclass(frozen=True)
class RequestMatcher:
    """Requests by method, path (a regular expression the whole path must match) and watch-ness."""

    method: str | None = None
    path: str | None = None
    watch: bool | None = None

    def __call__(self, request: RecordedRequest) -> bool:
        return (
            (self.method is None or request.method == self.method.upper())
            and (self.path is None or re.fullmatch(self.path, request.path) is not None)
            and (self.watch is None or request.watch == self.watch)
        )


class RequestLog:
    """Every request, in arrival order; waits on it from coroutines (any loop) or from threads."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._requests: list[RecordedRequest] = []
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    def record(self, request: RecordedRequest) -> None:
        with self._condition:
            self._requests.append(request)
            self._condition.notify_all()
            for loop, event in self._waiters:
                loop.call_soon_threadsafe(event.set)

    def snapshot(self) -> list[RecordedRequest]:
        with self._condition:
            return list(self._requests)

    def clear(self) -> None:
        with self._condition:
            self._requests.clear()

    def _nth(self, predicate: Predicate, count: int) -> RecordedRequest | None:
        matching = [r for r in self._requests if predicate(r)]
        return matching[count - 1] if len(matching) >= count else None

    async def wait_for(self, predicate: Predicate, timeout: float, count: int) -> RecordedRequest:  # noqa: ASYNC109
        event = asyncio.Event()
        waiter = (asyncio.get_running_loop(), event)
        with self._condition:
            self._waiters.add(waiter)
        try:
            async with asyncio.timeout(timeout):
                while True:
                    event.clear()
                    with self._condition:
                        found = self._nth(predicate, count)
                    if found is not None:
                        return found
                    await event.wait()
        except TimeoutError:
            raise TimeoutError(self._timeout_message(timeout, count)) from None
        finally:
            with self._condition:
                self._waiters.discard(waiter)

    def wait_for_sync(self, predicate: Predicate, timeout: float, count: int) -> RecordedRequest:
        deadline = time.monotonic() + timeout
        with self._condition:
            while (found := self._nth(predicate, count)) is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(self._timeout_message(timeout, count))
                self._condition.wait(remaining)
            return found

    def _timeout_message(self, timeout: float, count: int) -> str:
        seen = "\n  ".join(map(str, self.snapshot()[-20:])) or "(none)"
        return f"no {count} matching request(s) within {timeout} s; last requests:\n  {seen}"


@dataclass
class _Failure:
    matcher: RequestMatcher
    remaining: int
    status: int
    message: str | None
    retry_after: int | None


@dataclass
class Faults:
    """Switchable at run time from any thread."""

    _lock: threading.Lock = field(default_factory=threading.Lock)
    _failures: list[_Failure] = field(default_factory=list)
    _delays: list[tuple[RequestMatcher, float]] = field(default_factory=list)
    _watch_expiries: int = 0

    def fail(
        self, matcher: RequestMatcher, count: int, status: int, message: str | None, retry_after: int | None
    ) -> None:
        with self._lock:
            self._failures.append(_Failure(matcher, count, status, message, retry_after))

    def take_failure(self, request: RecordedRequest) -> _Failure | None:
        with self._lock:
            for failure in self._failures:
                if failure.matcher(request):
                    failure.remaining -= 1
                    if failure.remaining == 0:
                        self._failures.remove(failure)
                    return failure
            return None

    def delay(self, matcher: RequestMatcher, seconds: float) -> None:
        with self._lock:
            self._delays.append((matcher, seconds))

    def delay_for(self, request: RecordedRequest) -> float:
        with self._lock:
            return max((seconds for matcher, seconds in self._delays if matcher(request)), default=0.0)

    def expire_watches(self, count: int) -> None:
        with self._lock:
            self._watch_expiries += count

    def take_watch_expiry(self) -> bool:
        with self._lock:
            if self._watch_expiries == 0:
                return False
            self._watch_expiries -= 1
            return True

    def clear(self) -> None:
        with self._lock:
            self._failures.clear()
            self._delays.clear()
            self._watch_expiries = 0


def request_counts(requests: list[RecordedRequest]) -> Counter[str]:
    """`GET /api/v1/pods` -> how many; watches are counted apart as `WATCH /api/v1/pods`."""
    return Counter(f"{'WATCH' if r.watch else r.method} {r.path}" for r in requests)
