"""Informers: one worker thread per kind that LISTs (paginated) then WATCHes, and hands decoded changes over.

    LIST ?limit=500 [&continue=...]           every page decoded at once; raw dicts are not kept; the next
                                              page is read (in a thread of its own) while one is decoded
    WATCH ?resourceVersion=<list's>&allowWatchBookmarks=true&timeoutSeconds=<300..600>
      the stream is open     -> Change(kind, "watching"): the cache misses nothing of this kind from now on
      ADDED/MODIFIED/DELETED -> Change(kind, "upsert"/"delete", key, object)
      BOOKMARK               -> the resourceVersion advances, Change(kind, "bookmark")
      ERROR 410 / HTTP 410   -> relist (the watch's resourceVersion is too old)
      end of stream          -> Change(kind, "watch-ended"), then watch again from the last resourceVersion
      errors, 5xx, 429       -> back off (exponential, jittered; Retry-After honoured), then retry

A quiet watch is not a dead one. A real API server sends bookmarks only for a resource that changed since
the watch started (apiserver's cacher: a bookmark's resourceVersion must be newer than the watch's), so a
kind nobody edits (ResourceFlavors, Cohorts...) may send nothing at all for the whole watch. Liveness is
therefore the server's and the kernel's: the server ends every watch after its `timeoutSeconds` (we ask for
one); a read that waits `watch_read_grace` seconds longer than that means the server is gone without
closing, and TCP keepalive on the connection (`bot.kube.client.load_api_client`) ends a connection whose peer
vanished well before that. A stream that ends before its timeoutSeconds without sending anything counts as a
failure (backoff), so that a server which closes watches at once is not hammered.

`initial="watch-list"` replaces the first LIST by a streaming watch (sendInitialEvents=true, KEP-3157):
the server sends every object as ADDED then a bookmark marking the end of the initial state.

Events are parsed with orjson when it is installed (the standard library's parser otherwise: the same
objects, about twice the time) and decoded by `decoder` (the cache's shares repeated parts, see
`bot.kube.compact`); several events in one chunk of the stream, or one event over several, are read alike.

The `kubernetes` client blocks, so each informer owns a thread; nothing here touches the event loop.
Changes go to a `sink` called from that thread (the cache hands them to its loop thread-safely). A kind
the server does not serve (404 on the first LIST: Cohort, Topology on older Kueue) is reported once as
not served and its thread ends; that is not an error. `stop()` sets a flag, shuts the socket of the
request in flight (which unblocks a read) and joins the thread.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import urllib3

from bot.errors import BotError, ClusterUnavailable, Forbidden
from bot.kube import kinds
from bot.kube.client import KubeClient, NotFound, mapped_error, status_error
from bot.kube.decode import PLAIN, DecodeError, Parts, decode, readable_text, unreadable

log = logging.getLogger(__name__)

Key = tuple[str, str]  # (namespace or "", name)
Op = Literal[
    "upsert",
    "delete",
    "unreadable",
    "list-start",
    "list-end",
    "bookmark",
    "watching",
    "watch-ended",
    "not-served",
    "error",
]
Decoder = Callable[[Mapping[str, Any]], object | None]

_INITIAL_EVENTS_END = "k8s.io/initial-events-end"


def json_parser() -> Callable[[bytes], Any]:
    """orjson's parser when it is installed (a watch line in under half the time), else the standard one."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - exercised by the test that hides orjson
        return json.loads
    return orjson.loads


parse_json = json_parser()
# Whether what `parse_json` accepts is Unicode text through and through: orjson refuses bytes that are not UTF-8
# and lone surrogates, escaped or not (the standard parser keeps an escaped one), so what it read needs no check.
PARSES_TEXT = parse_json is not json.loads


def parsed(payload: bytes) -> tuple[Any, bool]:
    """The JSON of a LIST page or a watch line, and whether its strings are known to be Unicode text (read by
    the strict parser); what that parser refuses is read by `tolerant_json` (None when not JSON at all)."""
    try:
        return parse_json(payload), PARSES_TEXT
    except ValueError:
        return tolerant_json(payload), False


def tolerant_json(payload: bytes) -> Any:
    """What `parse_json` refused, read as far as it can be: bytes that are not UTF-8 replaced by U+FFFD (as the
    API server does), escaped lone surrogates kept (the standard library reads them). None when not JSON."""
    try:
        return json.loads(payload.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None


@dataclass(frozen=True, slots=True)
class Change:
    """What an informer hands over. `obj` is the decoded object (upsert), the error text (error) or the
    object the bot could not read (unreadable: a `bot.trace.unreadable.Unreadable`)."""

    kind: str
    op: Op
    key: Key = ("", "")
    obj: object = None


Sink = Callable[[Sequence[Change]], None]


@dataclass(frozen=True)
class InformerSettings:
    page_size: int = 500
    initial: Literal["list", "watch-list"] = "list"
    watch_timeout_seconds: int = 300  # asked of the server, jittered up to twice as long (as client-go does)
    watch_read_grace: float = 30.0  # a watch's read timeout is its timeoutSeconds plus this (then: dead server)
    connect_timeout: float = 5.0
    request_timeout: float = 60.0  # read timeout of a LIST page
    backoff_base: float = 0.5
    backoff_cap: float = 30.0

    def backoff(self, failures: int, rng: random.Random) -> float:
        """Exponential backoff with jitter: half fixed, half random ("equal jitter")."""
        ceiling = min(self.backoff_cap, self.backoff_base * 2.0 ** max(0, failures - 1))
        return ceiling / 2 + rng.uniform(0, ceiling / 2)


class _Expired(Exception):
    """410 Gone: the resourceVersion (or continue token) is older than the server's history."""


class _RetryAfter(ClusterUnavailable):
    def __init__(self, message: str, seconds: float) -> None:
        super().__init__(message)
        self.seconds = seconds


def default_decoder(kind: str, parts: Parts = PLAIN) -> Decoder:
    """The first object `decode` makes of a raw one (`parts`: see bot.kube.decode)."""

    def decode_one(raw: Mapping[str, Any]) -> object | None:
        for obj in decode(raw, parts):
            return obj
        return None

    return decode_one


def object_key(raw: Mapping[str, Any]) -> Key:
    metadata = raw.get("metadata") or {}
    return (str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))


def _lines(response: urllib3.BaseHTTPResponse) -> Iterator[bytes]:
    pending = b""
    for chunk in response.stream(65536):
        if not chunk:
            continue
        if pending:
            chunk = pending + chunk
        parts = chunk.split(b"\n")
        pending = parts.pop()
        for line in parts:
            if line and not line.isspace():
                yield line
    if pending and not pending.isspace():
        yield pending


def _page(payload: bytes, what: str) -> tuple[dict[str, Any], bool]:
    """A LIST page, and whether its text is checked (`parsed`); one object's text the strict parser refuses
    does not hide the others (`tolerant_json`)."""
    page, text_checked = parsed(payload)
    if page is None:
        raise ClusterUnavailable(f"the API server answered a LIST of {what} with something not JSON")
    if not isinstance(page, dict):
        raise ClusterUnavailable(f"the API server answered a LIST of {what} with something not a list")
    return page, text_checked


class _Ahead:
    """A LIST page read in a thread of its own (`read(*args)`), while the informer decodes the page before it:
    the server's time to answer and the decoding overlap. `result()` is the payload or raises what the read
    raised."""

    def __init__(self, name: str, read: Callable[..., bytes], *args: object) -> None:
        self._read = read
        self._args = args
        self._payload = b""
        self._error: Exception | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._payload = self._read(*self._args)
        except Exception as error:  # noqa: BLE001  (not swallowed: result() raises it in the informer's thread)
            self._error = error

    def wait(self) -> None:
        self._thread.join()
        self._error = None  # not read: let go (its traceback holds this object)

    def result(self) -> bytes:
        self._thread.join()
        error, self._error = self._error, None
        if error is not None:
            raise error
        return self._payload


class Informer:
    """LIST + WATCH of one kind, in a thread of its own. Start with start(); stop() joins the thread."""

    def __init__(
        self,
        client: KubeClient,
        resource: kinds.Resource,
        version: str,
        sink: Sink,
        *,
        settings: InformerSettings | None = None,
        decoder: Decoder | None = None,
        optional: bool = False,
        rng: random.Random | None = None,
    ) -> None:
        self.client = client
        self.resource = resource
        self.kind = resource.kind
        self.version = version
        self.path = resource.path(version)
        self.settings = settings or InformerSettings()
        self.sink = sink
        self.decoder = decoder or default_decoder(resource.kind)
        self.optional = optional
        self.rng = rng or random.Random()
        self.resource_version = ""
        self.served: bool | None = None  # None: not known yet
        self.synced = False
        self.lists = 0  # LISTs done (the first and every relist)
        self.watches = 0  # watch requests made
        self.failures = 0  # consecutive failures, for the backoff
        self.unreadable = 0  # objects skipped as unreadable (and watch lines that were not JSON at all)
        self.last_error = ""
        self._need_list = True  # no valid resourceVersion to watch from
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._response: urllib3.BaseHTTPResponse | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError(f"the {self.kind} informer is already started")
        self._thread = threading.Thread(target=self._run, name=f"informer-{self.kind}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop and join the thread (blocking: call it from a worker thread in async code). True if it ended."""
        self._stopping.set()
        self._interrupt()
        if self._thread is None:
            return True
        self._thread.join(timeout)
        alive = self._thread.is_alive()
        if alive:
            log.warning("informer thread did not stop", extra={"kind": self.kind, "timeout": timeout})
        return not alive

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _interrupt(self) -> None:
        with self._lock:
            response = self._response
        if response is not None:
            with contextlib.suppress(Exception):  # already released or closed: nothing to unblock
                response.shutdown()

    # --- the thread ---------------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                if self._need_list:
                    if self.settings.initial == "watch-list" and self.watches == 0:
                        self._watch(initial=True)  # goes on as the watch once the initial objects are in
                    else:
                        self._list()
                    if self.served is False:
                        return
                    if self._need_list:
                        continue
                self._watch(initial=False)
            except _Expired:
                log.info("resource version expired: relisting", extra={"kind": self.kind})
                self._need_list = True
                self.failures = 0
            except BotError as error:
                if self._stopping.is_set():
                    return
                self.failures += 1
                self.last_error = str(error)
                self.sink([Change(self.kind, "error", obj=str(error))])
                delay = (
                    error.seconds if isinstance(error, _RetryAfter) else self.settings.backoff(self.failures, self.rng)
                )
                log.info(
                    "informer backing off",
                    extra={"kind": self.kind, "failures": self.failures, "delay": round(delay, 3), "error": str(error)},
                )
                self._stopping.wait(delay)

    def _open(self, query: Mapping[str, str | int], read_timeout: float, what: str) -> urllib3.BaseHTTPResponse:
        """A GET whose response is not read yet; registered so that stop() can unblock its reading."""
        timeout = (self.settings.connect_timeout, read_timeout)
        response = self.client.open("GET", self.path, query=query, timeout=timeout, what=what)
        with self._lock:
            self._response = response
        if self._stopping.is_set():
            self._interrupt()
        if 200 <= response.status <= 299:
            return response
        try:
            payload = response.read()
        except (urllib3.exceptions.HTTPError, OSError):
            payload = b""
        finally:
            self._release(response)
        if response.status == 410:
            raise _Expired(what)
        failure = status_error(response.status, response.reason, payload)
        translated = mapped_error(failure, what, False)
        retry_after = response.headers.get("Retry-After")
        if response.status == 429 and retry_after and retry_after.isdigit():
            raise _RetryAfter(str(translated), min(float(retry_after), self.settings.backoff_cap)) from failure
        raise translated from failure

    def _release(self, response: urllib3.BaseHTTPResponse) -> None:
        with self._lock:
            if self._response is response:
                self._response = None
        with contextlib.suppress(Exception):
            response.release_conn()
        with contextlib.suppress(Exception):
            response.close()

    def _decoded(self, raw: Mapping[str, Any], text_checked: bool) -> Change:
        """The upsert of a raw object, or (what the bot cannot read: text that is not Unicode, a field of a
        wrong shape, beyond the API's bounds) its unreadable record, said once in the log and counted.
        `text_checked`: the strict parser read it (its text is Unicode)."""
        key = object_key(raw)
        reason = "" if text_checked or readable_text(raw) else "it holds text that is not valid Unicode"
        if not reason:
            try:
                decoded = self.decoder(raw)
            except DecodeError as error:
                reason = str(error)
            else:
                return Change(self.kind, "upsert", key, decoded)
        self.unreadable += 1
        item = unreadable(raw, reason, kind=self.kind)
        log.warning(
            "skipped an object the bot cannot read",
            extra={"kind": self.kind, "object": f"{item.namespace}/{item.name}", "error": reason},
        )
        return Change(self.kind, "unreadable", (item.namespace, item.name), item)

    def _not_served(self) -> None:
        self.served = False
        self.synced = True
        log.info("kind not served by this cluster", extra={"kind": self.kind})
        self.sink([Change(self.kind, "not-served")])

    def _list(self) -> None:
        what = f"{self.resource.plural}.{self.resource.group}"
        query: dict[str, str | int] = {"limit": self.settings.page_size} if self.settings.page_size else {}
        started = False
        ahead: _Ahead | None = None  # the next page, read while this one is decoded
        try:
            while True:
                try:
                    payload = ahead.result() if ahead is not None else self._read_page(query, what)
                except _Expired:  # the continue token expired: start over
                    query.pop("continue", None)
                    ahead = None
                    continue
                except (NotFound, Forbidden):
                    if self.optional and self.served is None:
                        self._not_served()
                        return
                    raise
                page, text_checked = _page(payload, what)
                if not started:
                    self.sink([Change(self.kind, "list-start")])
                    started = True
                metadata = page.get("metadata") or {}
                token = metadata.get("continue")
                ahead = None
                if token:
                    query["continue"] = token
                    ahead = _Ahead(f"informer-{self.kind}-page", self._read_page, dict(query), what)
                changes = self._page_changes(page, text_checked)
                if changes:
                    self.sink(changes)
                if not token:
                    self.resource_version = str(metadata.get("resourceVersion") or "")
                    break
        finally:
            if ahead is not None:  # its request ends (stop() shuts it) before another one is made
                ahead.wait()
        self.served = True
        self.synced = True
        self._need_list = False
        self.lists += 1
        self.failures = 0
        self.sink([Change(self.kind, "list-end", ("", self.resource_version))])

    def _read_page(self, query: Mapping[str, str | int], what: str) -> bytes:
        response = self._open(query, self.settings.request_timeout, what)
        try:
            return response.read()
        except (urllib3.exceptions.HTTPError, OSError) as error:
            raise ClusterUnavailable(f"cannot reach the API server while reading {what}: {error}") from error
        finally:
            self._release(response)

    def _page_changes(self, page: dict[str, Any], text_checked: bool) -> list[Change]:
        """A LIST page's objects, decoded (or recorded as unreadable)."""
        kind = str(page.get("kind", "")).removesuffix("List") or self.kind
        api_version = page.get("apiVersion") or f"{self.resource.group}/{self.version}"
        changes = []
        items = page.pop("items", None)
        items = items[::-1] if isinstance(items, list) else []
        while items:  # each raw item let go once decoded: what is kept reuses the memory of what is not
            item = items.pop()
            if not isinstance(item, dict):
                continue
            item.setdefault("kind", kind)
            item.setdefault("apiVersion", api_version)
            change = self._decoded(item, text_checked)
            if change.op == "unreadable" or change.obj is not None:
                changes.append(change)
        return changes

    def _watch(self, *, initial: bool) -> None:
        what = f"a watch of {self.resource.plural}.{self.resource.group}"
        timeout = self.settings.watch_timeout_seconds
        seconds = int(timeout + self.rng.uniform(0, timeout))
        query: dict[str, str | int] = {"watch": "true", "allowWatchBookmarks": "true", "timeoutSeconds": seconds}
        if initial:
            query.update(sendInitialEvents="true", resourceVersionMatch="NotOlderThan")
        else:
            query["resourceVersion"] = self.resource_version
        self.watches += 1
        opened = time.monotonic()
        try:
            response = self._open(query, seconds + self.settings.watch_read_grace, what)
        except (NotFound, Forbidden):
            if initial and self.optional and self.served is None:
                self._not_served()
                return
            raise
        self.sink([Change(self.kind, "watching", ("", self.resource_version))])
        if initial:
            self.sink([Change(self.kind, "list-start")])
        try:
            received = self._stream(response, what, initial)
        finally:
            self.sink([Change(self.kind, "watch-ended", ("", self.resource_version))])
        if self._stopping.is_set():
            return
        if initial and self._need_list:
            raise ClusterUnavailable(f"{what} ended before the initial objects were all sent")
        if received or time.monotonic() - opened >= seconds:
            self.failures = 0  # progress, or a quiet watch that lived its whole timeoutSeconds: both are normal
        else:
            # An empty stream that ends before its time is not progress: count it, so that we do not spin.
            raise ClusterUnavailable(f"{what} ended without sending anything")

    def _stream(self, response: urllib3.BaseHTTPResponse, what: str, initial: bool) -> int:
        """Read a watch's events until its end; how many were read."""
        received = 0
        try:
            for line in _lines(response):
                if self._stopping.is_set():
                    return received
                received += 1
                self._event(line, what, initial)
                if initial and not self._need_list:
                    initial = False
        except (urllib3.exceptions.HTTPError, OSError) as error:
            if self._stopping.is_set():
                return received
            if isinstance(error, urllib3.exceptions.ReadTimeoutError):
                raise ClusterUnavailable(
                    f"{what} outlived its timeoutSeconds by {self.settings.watch_read_grace:g} s: the server is gone"
                ) from error
            raise ClusterUnavailable(f"cannot reach the API server while reading {what}: {error}") from error
        finally:
            self._release(response)
        return received

    def _event(self, line: bytes, what: str, initial: bool) -> None:
        event, text_checked = parsed(line)  # a line the strict parser refuses is read as far as it goes
        kind = event.get("type") if isinstance(event, dict) else None
        raw = event.get("object") if isinstance(event, dict) else None
        if not isinstance(kind, str) or not isinstance(raw, dict):
            self.unreadable += 1
            log.warning("skipped a watch line that is not a watch event", extra={"kind": self.kind, "what": what})
            return
        metadata = raw.get("metadata") or {}
        if kind == "ERROR":
            code = raw.get("code")
            if code == 410:
                raise _Expired(what)
            raise ClusterUnavailable(f"{what} failed: {raw.get('message') or code}")
        rv = str(metadata.get("resourceVersion") or self.resource_version)
        if kind == "BOOKMARK":
            self.resource_version = rv
            if initial and (metadata.get("annotations") or {}).get(_INITIAL_EVENTS_END) == "true":
                self.served = True
                self.synced = True
                self._need_list = False
                self.lists += 1
                self.failures = 0
                self.sink([Change(self.kind, "list-end", ("", rv))])
            else:
                self.sink([Change(self.kind, "bookmark", ("", rv))])
            return
        key = object_key(raw)
        if kind == "DELETED":
            self.resource_version = rv
            self.sink([Change(self.kind, "delete", key)])
            return
        if kind not in ("ADDED", "MODIFIED"):
            return
        change = self._decoded(raw, text_checked)
        self.resource_version = rv
        self.sink([change] if change.op == "unreadable" or change.obj is not None else [])


def wait_all(informers: Sequence[Informer], timeout: float) -> list[str]:
    """Stop informers together (blocking): the kinds whose thread did not end in time."""
    for informer in informers:
        informer._stopping.set()
        informer._interrupt()
    deadline = time.monotonic() + timeout
    stuck = []
    for informer in informers:
        if not informer.stop(max(0.0, deadline - time.monotonic())):
            stuck.append(informer.kind)
    return stuck
