"""A fake Kubernetes API server (aiohttp, 127.0.0.1, ephemeral port) for the integration tests.

    async with FakeKubeAPI(token="t0k3n") as api:
        api.load_dump(SCENARIOS / "waiting-for-quota-visibility-api" / "cluster.yaml")
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        ...  # point the code under test at api.url / kubeconfig
        await api.wait_for_request(method="GET", path="/api/v1/pods", watch=True)

It serves what the bot reads and writes, with the real server's wire behaviour: discovery, get, list
(selectors, pagination with continue tokens), watch (resourceVersion, bookmarks, 410 Expired), writes
with optimistic concurrency, Status error bodies, bearer tokens with RBAC, SubjectAccessReviews, Kueue
objects validated against the real CRDs, and Kueue's pending-workloads visibility API. Tests can inject
faults (failures, delays, dropped watches, going offline) and wait on the recorded requests.

Behaviour worth knowing, as on a real server: items of built-in lists (PodList, JobList...) carry no
kind/apiVersion; an HTTP create needs its Namespace to exist; an HTTP DELETE of an object with finalizers
only sets deletionTimestamp (the object goes when an update removes the last finalizer); writes through
the HTTP API to the main resource leave .status alone (use .../status). The test helpers add(), update()
and delete() write directly (delete ignores finalizers).

Objects are stored once per kind, whatever version they were written in, and are served at the version
asked for by rewriting apiVersion only (no conversion between Kueue's v1beta1 and v1beta2 fields).

Compared with a real kube-apiserver (v1.36.2, ../shared/real-cluster; issue 12), where the bot depends on it:

* Bookmarks, as the apiserver's cacher sends them (cache_watcher.go `process`, cacher.go `dispatchEvents`):
  only once the watched resource changed after the watch started (a bookmark's resourceVersion must be
  newer than the watch's; other kinds' changes move nothing), then every `bookmark_interval` (real: about a
  minute) and 2 s before the watch's deadline, carrying the resource's last resourceVersion. A quiet kind
  gets nothing for the whole watch: this fake used to send bookmarks on a timer to every watch, which hid
  that the informers took silence for death. Checked on the real server: a watch of ResourceFlavors
  with timeoutSeconds=6 sent nothing and ended after 6 s.
* A watch ends at its timeoutSeconds; without one at `min_request_timeout` (1800 s) times a random 1 to 2,
  as the server's --min-request-timeout does (this fake used to keep it open forever).
* Watch options are validated as the server does (422 Invalid, ListOptions): sendInitialEvents needs
  resourceVersionMatch=NotOlderThan, and resourceVersionMatch on a watch needs sendInitialEvents.

Still different (the bot does not depend on these): the real cacher's resourceVersion of a quiet resource
also advances with etcd's progress notifications (every 10 min by default) and with consistent LISTs, which
bring bookmarks to its watches; this fake never does (so its quiet watches are stricter). The real
pending-workloads API has no upper bound on `limit` (this fake caps at 100,000); a LIST's
remainingItemCount is only an estimate on the real server.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import copy
import json
import logging
import random
import secrets
import string
import threading
from collections import Counter
from collections.abc import Callable, Collection, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import yaml
from aiohttp import web
from aiohttp.typedefs import Handler

from tests.fakes.kube_discovery import Discovery
from tests.fakes.kube_patch import JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, PatchError, json_patch, merge_patch
from tests.fakes.kube_rbac import (
    SUPERUSER_GROUP,
    Attributes,
    Identity,
    PolicyRule,
    as_rules,
    forbidden_reason,
    rules_from_cluster_role,
)
from tests.fakes.kube_recording import (
    Faults,
    Predicate,
    RecordedRequest,
    RequestLog,
    RequestMatcher,
    request_counts,
)
from tests.fakes.kube_registry import (
    AUTHORIZATION_GROUP,
    JOB_CRD_KINDS,
    KUEUE_GROUP,
    KUEUE_VERSIONS,
    VISIBILITY_GROUP,
    Registry,
    ResourceType,
)
from tests.fakes.kube_schema import FieldError, InvalidObjectError, validate_crd_object
from tests.fakes.kube_selectors import Selector, SelectorError, parse_field_selector, parse_label_selector
from tests.fakes.kube_status import KubeStatusError, status_body
from tests.fakes.kube_store import (
    Change,
    CompactedError,
    Key,
    ObjectExistsError,
    ObjectMissingError,
    ObjectStore,
    StaleResourceVersionError,
    StreamEnd,
    Subscription,
)
from tests.fakes.kube_visibility import (
    bounded_limit_offset,
    cluster_queue_items,
    local_queue_items,
    order_pending,
    summary,
)

__all__ = [
    "FakeKubeAPI",
    "Identity",
    "PolicyRule",
    "RecordedRequest",
    "ThreadedKubeAPI",
    "rules_from_cluster_role",
]

log = logging.getLogger(__name__)

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StringTimestampLoader(_YAML_LOADER):  # type: ignore[misc,valid-type]
    """Keeps unquoted timestamps as strings, as the API server's YAML -> JSON does."""


_StringTimestampLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

_CONTINUE_EXPIRED = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new "
    "list without the continue parameter."
)
_INITIAL_EVENTS_END = "k8s.io/initial-events-end"
_IDENTITY = web.RequestKey("identity", Identity)
_BODY = web.RequestKey("body", object)  # the request's JSON body, None when it has none


@dataclass(frozen=True)
class _Target:
    """A resource request's path: /api/v1/... or /apis/<group>/<version>/..."""

    group: str
    version: str
    plural: str
    namespace: str = ""
    name: str = ""
    subresource: str = ""


def _parse_target(path: str) -> _Target | None:
    parts = path.strip("/").split("/")
    if len(parts) >= 3 and parts[:2] == ["api", "v1"]:
        group, version, rest = "", "v1", parts[2:]
    elif len(parts) >= 4 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return None
    namespace = ""
    namespace_subresource = group == "" and len(rest) == 3 and rest[2] in ("status", "finalize")
    if rest[0] == "namespaces" and len(rest) >= 3 and not namespace_subresource:
        namespace, rest = rest[1], rest[2:]
    if len(rest) > 3 or "" in rest:
        return None
    rest += [""] * (3 - len(rest))
    return _Target(group, version, rest[0], namespace, rest[1], rest[2])


def _position(obj: Mapping[str, Any]) -> tuple[str, str]:
    """Where an object sorts in a list (as its etcd key does within a kind)."""
    return obj["metadata"].get("namespace", ""), obj["metadata"]["name"]


def _encode_continue(rv: int, start: tuple[str, str]) -> str:
    token = {"v": "meta.k8s.io/v1", "rv": rv, "start": "/".join(start)}
    return base64.urlsafe_b64encode(json.dumps(token).encode()).decode()


def _decode_continue(token: str) -> tuple[int, tuple[str, str]]:
    try:
        decoded = json.loads(base64.urlsafe_b64decode(token.encode()))
        namespace, name = decoded["start"].split("/", 1)
        return int(decoded["rv"]), (namespace, name)
    except (ValueError, KeyError, TypeError, AttributeError, binascii.Error) as e:
        raise KubeStatusError.bad_request(f"continue key is not valid: {e}") from e


def _int_param(query: Mapping[str, str], name: str) -> int | None:
    value = query.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise KubeStatusError.bad_request(f'invalid value "{value}" for {name}: not an integer') from None


def _json_writer() -> Callable[[Any], bytes]:
    """Compact JSON as the API server writes it: orjson when installed (the fake's watch streams and LIST
    pages keep up with a client at tens of thousands of objects a second), else the standard library."""

    def standard(value: Any) -> bytes:
        return json.dumps(value, separators=(",", ":")).encode()

    try:
        import orjson
    except ImportError:  # pragma: no cover - without orjson
        return standard
    fast = orjson.dumps

    def write(value: Any) -> bytes:
        try:
            return fast(value)
        except TypeError:  # what orjson does not write (integer keys, integers past 64 bits)
            return standard(value)

    return write


_compact = _json_writer()


def _respond(body: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    """A JSON answer, compact as the API server writes it."""
    return web.Response(
        body=_compact(body), status=status, headers=headers, content_type="application/json", charset="utf-8"
    )


def _true(query: Mapping[str, str], name: str) -> bool:
    return query.get(name) in ("1", "true", "True")


class _Watch:
    """One open watch stream, as the fault injection sees it."""

    def __init__(self, request: web.Request, subscription: Subscription) -> None:
        self.request = request
        self.subscription = subscription
        self.drop_after: int | None = None

    def end(self, how: StreamEnd) -> None:
        self.subscription.deliver(how)

    def drop_after_events(self, count: int) -> None:
        """Called on the watch's loop."""
        if count == 0:
            self.end(StreamEnd.DROP)
        else:
            self.drop_after = count

    def sent_one(self) -> bool:
        """Count an event sent; True when the stream is to be cut now."""
        if self.drop_after is None:
            return False
        self.drop_after -= 1
        return self.drop_after == 0

    def cut(self) -> None:
        if self.request.transport is not None:
            self.request.transport.abort()


@dataclass
class _Progress:
    """What a watch's bookmarks may say: the resourceVersion it started at and that of the last change of
    its kind (any namespace or selector: the cacher is per resource). A bookmark is due only once the kind
    changed after the start (cache_watcher.go sends no bookmark whose resourceVersion is not newer)."""

    start: int
    changed: int

    @property
    def due(self) -> bool:
        return self.changed > self.start


class _Events:
    """A watch's events, written together as the API server writes them: it flushes its stream when no more
    events are ready (so a burst goes out in few chunks, each event on its own line), or every 64 KiB."""

    FULL = 65536

    def __init__(self, response: web.StreamResponse) -> None:
        self.response = response
        self._lines: list[bytes] = []
        self._size = 0

    def add(self, kind: str, obj: dict[str, Any]) -> None:
        line = _compact({"type": kind, "object": obj}) + b"\n"
        self._lines.append(line)
        self._size += len(line)

    @property
    def full(self) -> bool:
        return self._size >= self.FULL

    async def flush(self) -> None:
        if self._lines:
            data = b"".join(self._lines)
            self._lines.clear()
            self._size = 0
            await self.response.write(data)

    async def send(self, kind: str, obj: dict[str, Any]) -> None:
        self.add(kind, obj)
        await self.flush()


class FakeKubeAPI:
    """The fake API server. Object, identity, fault and recording methods are thread-safe and synchronous;
    start/stop/go_offline/go_online/wait_for_request are coroutines of the loop that runs the server
    (see `start_in_thread` for code that uses the blocking `kubernetes` client from the test thread)."""

    def __init__(
        self,
        *,
        token: str | None = None,
        user: str = "kubernetes-admin",
        kueue_versions: Sequence[str] = KUEUE_VERSIONS,
        visibility: bool = True,
        job_kinds: Collection[str] = JOB_CRD_KINDS,
        history_window: int = 1000,
        bookmark_interval: float = 1.0,
        server_version: str = "v1.33.1",
        min_request_timeout: float = 1800.0,
    ) -> None:
        """
        token: the admin's bearer token; None accepts requests without a token as the admin.
        kueue_versions: the kueue.x-k8s.io versions served (("v1beta1",) is an old cluster, () no Kueue).
        visibility: whether the pending-workloads API is served (at the same versions as Kueue).
        job_kinds: the optional job CRDs installed (JobSet, RayJob, ...); others answer 404.
        history_window: how many changes are kept for watches and continue tokens (older: 410 Expired).
        bookmark_interval: seconds between BOOKMARK events on watches that allow them, once their kind has
            changed since the watch started (the real server: about a minute).
        min_request_timeout: a watch without timeoutSeconds ends after this times a random 1 to 2.
        """
        unknown = set(kueue_versions) - set(KUEUE_VERSIONS)
        if unknown:
            raise ValueError(f"unknown Kueue versions {sorted(unknown)}; known: {KUEUE_VERSIONS}")
        self.registry = Registry(kueue_versions, job_kinds)
        self.visibility_versions: tuple[str, ...] = tuple(kueue_versions) if visibility else ()
        self.discovery = Discovery(self.registry, self.visibility_versions, server_version)
        self.bookmark_interval = bookmark_interval
        self.min_request_timeout = min_request_timeout
        self.watch_deadlines = True  # False: watches outlive their timeoutSeconds (a hung server, for tests)
        self._store = ObjectStore(history_window)
        self._admin = Identity(user, (SUPERUSER_GROUP, "system:authenticated"))
        self._anonymous_identity = self._admin if token is None else None
        self._identities: dict[str, Identity] = {} if token is None else {token: self._admin}
        self._identities_by_user: dict[str, Identity] = {user: self._admin}
        self._admin_token = token
        self._summaries: list[tuple[dict[str, Any], str | None]] = []
        self._lock = threading.Lock()
        self._log = RequestLog()
        self._faults = Faults()
        self._watches: set[_Watch] = set()
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self._port = 0
        self._stopping: asyncio.Event | None = None

    # ---------------------------------------------------------------------------------------------
    # Lifecycle

    @property
    def url(self) -> str:
        if not self._port:
            raise RuntimeError("the fake API server is not started")
        return f"http://127.0.0.1:{self._port}"

    async def start(self) -> None:
        self._stopping = asyncio.Event()
        app = web.Application(middlewares=[self._middleware])
        app.router.add_route("*", "/{path:.*}", self._dispatch)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await self._site.start()
        self._port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._runner is None:
            return
        assert self._stopping is not None
        self._stopping.set()
        for watch in self._open_watches():
            watch.end(StreamEnd.CLOSE)
        await self._runner.cleanup()
        self._runner = self._site = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    def start_in_thread(self) -> ThreadedKubeAPI:
        """Run the server on an event loop of its own, in a background thread."""
        server = ThreadedKubeAPI(self)
        server.start()
        return server

    async def go_offline(self) -> None:
        """Refuse connections (the listening socket is closed) and cut the open ones, watches included."""
        assert self._runner is not None and self._runner.server is not None and self._site is not None
        await self._site.stop()
        self._site = None
        for watch in self._open_watches():
            watch.end(StreamEnd.DROP)
        for connection in self._runner.server.connections:
            connection.force_close()

    async def go_online(self) -> None:
        """Listen again, on the same port."""
        assert self._runner is not None and self._site is None
        self._site = web.TCPSite(self._runner, "127.0.0.1", self._port)
        await self._site.start()

    def write_kubeconfig(self, path: str | Path, token: str | None = None, namespace: str | None = None) -> Path:
        """A kubeconfig for this server (http, bearer token: `token`, else the admin's)."""
        path = Path(path)
        user: dict[str, str] = {}
        if (token := token or self._admin_token) is not None:
            user["token"] = token
        context = {"cluster": "fake", "user": "fake-user"} | ({"namespace": namespace} if namespace else {})
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
            "users": [{"name": "fake-user", "user": user}],
            "contexts": [{"name": "fake", "context": context}],
            "current-context": "fake",
        }
        path.write_text(yaml.safe_dump(config))
        return path

    # ---------------------------------------------------------------------------------------------
    # Objects (for tests; thread-safe)

    @property
    def resource_version(self) -> int:
        return self._store.resource_version

    def add(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """Create an object (uid and creationTimestamp kept if given). ValueError if it does not validate
        or already exists."""
        rt, obj = self._admit(obj)
        try:
            return self._store.create(rt, obj)
        except ObjectExistsError:
            raise ValueError(f"{rt.kind} {self._describe(obj)} already exists") from None

    def add_all(self, objects: Iterable[Mapping[str, Any]], *, validate: bool = True) -> int:
        """Create many objects (for benchmarks: tens of thousands). `validate=False` skips the check against
        the CRDs (the costly part: trusted, generated objects only); the other checks of add() stay. Each
        object is copied once. Returns how many were added; ValueError as add() on the first refused."""
        added = 0
        for obj in objects:
            rt, admitted = self._admit(obj, validate=validate)
            try:
                self._store.create(rt, admitted, owned=True)
            except ObjectExistsError:
                raise ValueError(f"{rt.kind} {self._describe(admitted)} already exists") from None
            added += 1
        return added

    def update(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """Replace an object, whatever its resourceVersion. ValueError if it does not validate or exist."""
        rt, obj = self._admit(obj)
        try:
            return self._store.replace(rt, obj)
        except ObjectMissingError:
            raise ValueError(f"{rt.kind} {self._describe(obj)} does not exist") from None

    def delete(self, kind: str, namespace: str | None, name: str) -> dict[str, Any]:
        """Delete an object now (finalizers are not waited for). ValueError if it does not exist."""
        rt = self._kind(kind)
        try:
            return self._store.delete(self._key(rt, namespace, name), honor_finalizers=False)
        except ObjectMissingError:
            raise ValueError(f"{kind} {namespace or ''}/{name} does not exist") from None

    def get(self, kind: str, namespace: str | None, name: str) -> dict[str, Any] | None:
        return self._store.get(self._key(self._kind(kind), namespace, name))

    def objects(self, kind: str, namespace: str | None = None) -> list[dict[str, Any]]:
        return self._store.list_kind(self._kind(kind), namespace)[0]

    def load_dump(self, path: str | Path) -> list[dict[str, Any]]:
        """Add the objects of a `kubectl get -o yaml` file (YAML documents, or a List with items); kinds
        this server does not serve are skipped, a PendingWorkloadsSummary becomes the visibility API's
        answer for its queue. Returns the objects added."""
        added = []
        for document in yaml.load_all(Path(path).read_text(), Loader=_StringTimestampLoader):
            is_list = isinstance(document, dict) and str(document.get("kind", "")).endswith("List")
            for obj in (document.get("items") or []) if is_list else [document]:
                if not isinstance(obj, dict):
                    continue
                if obj.get("kind") == "PendingWorkloadsSummary":
                    self.set_pending_workloads(obj)
                elif self.registry.for_object(str(obj.get("apiVersion")), str(obj.get("kind"))) is not None:
                    added.append(self.add(obj))
        return added

    def set_pending_workloads(self, pending: Mapping[str, Any], *, cluster_queue: str | None = None) -> None:
        """Serve this PendingWorkloadsSummary (with limit/offset applied) instead of computing one, for the
        ClusterQueue named, or else for the ClusterQueue of the LocalQueues its items name; the answer
        for a LocalQueue is its items. The latest summary set for a queue wins."""
        with self._lock:
            self._summaries.append((copy.deepcopy(dict(pending)), cluster_queue))

    def clear_pending_workloads(self) -> None:
        with self._lock:
            self._summaries.clear()

    def compact(self) -> None:
        """Forget the history: watches and continue tokens from an older resourceVersion get 410."""
        self._store.compact()

    def _kind(self, kind: str) -> ResourceType:
        rt = self.registry.by_kind(kind)
        if rt is None:
            raise ValueError(f"kind {kind!r} is not served by this fake")
        return rt

    @staticmethod
    def _key(rt: ResourceType, namespace: str | None, name: str) -> Key:
        return (rt.group, rt.plural, (namespace or "") if rt.namespaced else "", name)

    @staticmethod
    def _describe(obj: Mapping[str, Any]) -> str:
        meta = obj.get("metadata") or {}
        return f"{meta.get('namespace', '')}/{meta.get('name', '')}".lstrip("/")

    def _admit(self, obj: Mapping[str, Any], *, validate: bool = True) -> tuple[ResourceType, dict[str, Any]]:
        """The served type of an object and a copy of it fit to store; InvalidObjectError (a ValueError)
        as the API server would refuse it (`validate=False`: without the check against the CRDs)."""
        api_version, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
        rt = self.registry.for_object(api_version, kind)
        if rt is None:
            raise ValueError(f"{kind or '(no kind)'} in {api_version or '(no apiVersion)'} is not served by this fake")
        admitted = copy.deepcopy(dict(obj))
        meta = admitted.get("metadata")
        name = meta.get("name", "") if isinstance(meta, dict) else ""
        errors = []
        if not isinstance(meta, dict) or not meta.get("name"):
            errors.append(
                FieldError("metadata.name", "FieldValueRequired", "Required value: name or generateName is required")
            )
        elif rt.namespaced and not meta.get("namespace"):
            errors.append(FieldError("metadata.namespace", "FieldValueRequired", "Required value"))
        elif not rt.namespaced:
            meta.pop("namespace", None)
        if not errors and validate and rt.group == KUEUE_GROUP:
            errors = validate_crd_object(admitted, rt.group, rt.kind, api_version.rpartition("/")[2])
        if errors:
            raise InvalidObjectError(rt.group, rt.kind, name, errors)
        return rt, admitted

    # ---------------------------------------------------------------------------------------------
    # Identities

    def add_identity(
        self,
        token: str,
        user: str,
        rules: Iterable[PolicyRule | Mapping[str, Any]] | None = None,
        groups: Sequence[str] = (),
        namespace_rules: Mapping[str, Iterable[PolicyRule | Mapping[str, Any]]] | None = None,
    ) -> Identity:
        """A bearer token for `user`, allowed what `rules` (RBAC PolicyRules, as dicts or PolicyRule)
        allow; None: everything. `namespace_rules`: Roles bound in one namespace each (RoleBindings).
        SubjectAccessReviews about `user` are answered from the same rules."""
        namespaced = tuple((ns, as_rules(found)) for ns, found in (namespace_rules or {}).items())
        cluster = None if rules is None and not namespaced else as_rules(rules or ())
        identity = Identity(user, (*groups, "system:authenticated"), cluster, namespaced)
        with self._lock:
            self._identities[token] = identity
            self._identities_by_user[user] = identity
        return identity

    def _authenticate(self, request: web.Request) -> Identity | None:
        header = request.headers.get("Authorization", "")
        with self._lock:
            if not header:
                return self._anonymous_identity
            scheme, _, token = header.partition(" ")
            return self._identities.get(token.strip()) if scheme.lower() == "bearer" else None

    # ---------------------------------------------------------------------------------------------
    # Recording

    @property
    def requests(self) -> list[RecordedRequest]:
        return self._log.snapshot()

    def request_counts(self) -> Counter[str]:
        """How many requests per `METHOD /path` (watches as `WATCH /path`)."""
        return request_counts(self._log.snapshot())

    def count_requests(
        self,
        predicate: Predicate | None = None,
        *,
        method: str | None = None,
        path: str | None = None,
        watch: bool | None = None,
    ) -> int:
        """How many recorded requests match (path: a regular expression for the whole path)."""
        match = predicate or RequestMatcher(method, path, watch)
        return sum(1 for r in self._log.snapshot() if match(r))

    def clear_requests(self) -> None:
        self._log.clear()

    async def wait_for_request(
        self,
        predicate: Predicate | None = None,
        *,
        method: str | None = None,
        path: str | None = None,
        watch: bool | None = None,
        count: int = 1,
        timeout: float = 60.0,  # noqa: ASYNC109  (a built-in bound, so no test can hang on it; generous for a busy machine)
    ) -> RecordedRequest:
        """The `count`-th matching request (already seen ones included), once it arrives; TimeoutError."""
        return await self._log.wait_for(predicate or RequestMatcher(method, path, watch), timeout, count)

    def wait_for_request_sync(
        self,
        predicate: Predicate | None = None,
        *,
        method: str | None = None,
        path: str | None = None,
        watch: bool | None = None,
        count: int = 1,
        timeout: float = 60.0,
    ) -> RecordedRequest:
        """wait_for_request for a thread that is not the server's event loop."""
        return self._log.wait_for_sync(predicate or RequestMatcher(method, path, watch), timeout, count)

    # ---------------------------------------------------------------------------------------------
    # Fault injection (thread-safe)

    def fail_next(
        self,
        count: int = 1,
        *,
        status: int = 500,
        method: str | None = None,
        path: str | None = None,
        watch: bool | None = None,
        message: str | None = None,
        retry_after: int | None = None,
    ) -> None:
        """Answer the next `count` matching requests with a Status of code `status` (and a Retry-After)."""
        self._faults.fail(RequestMatcher(method, path, watch), count, status, message, retry_after)

    def delay(
        self, seconds: float, *, method: str | None = None, path: str | None = None, watch: bool | None = None
    ) -> None:
        """Answer matching requests `seconds` late, until clear_faults()."""
        self._faults.delay(RequestMatcher(method, path, watch), seconds)

    def expire_next_watch(self, count: int = 1) -> None:
        """The next `count` watches get an ERROR event with a 410 Expired Status and end."""
        self._faults.expire_watches(count)

    def drop_watches(self, after_events: int = 0) -> int:
        """Cut the open watch streams abruptly, now or after each has sent `after_events` more events.
        Returns how many streams were open."""
        watches = self._open_watches()
        for watch in watches:
            watch.subscription.loop.call_soon_threadsafe(watch.drop_after_events, after_events)
        return len(watches)

    def clear_faults(self) -> None:
        self._faults.clear()

    def _open_watches(self) -> list[_Watch]:
        with self._lock:
            return list(self._watches)

    # ---------------------------------------------------------------------------------------------
    # HTTP

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        identity = self._authenticate(request)
        body = None
        if request.body_exists:
            with contextlib.suppress(ValueError):
                body = json.loads(await request.read())
        recorded = RecordedRequest(
            request.method, request.path, dict(request.query), identity.user if identity else None, body
        )
        self._log.record(recorded)
        try:
            if seconds := self._faults.delay_for(recorded):
                assert self._stopping is not None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), seconds)
            if failure := self._faults.take_failure(recorded):
                raise KubeStatusError.injected(failure.status, failure.message, failure.retry_after)
            if identity is None:
                raise KubeStatusError.unauthorized()
            request[_IDENTITY] = identity
            request[_BODY] = body
            response: web.StreamResponse = await handler(request)
            return response
        except KubeStatusError as e:
            return _respond(e.body, status=e.code, headers=e.headers)
        except ConnectionResetError:
            # The client went away before its answer was written (a watch it dropped or restarted): there is
            # nobody to answer and nothing wrong here. aiohttp drops the response on the closed connection.
            log.debug("client went away", extra={"method": request.method, "path": request.path})
            return web.Response(status=499)
        except Exception as e:
            log.exception("fake kube API failed on %s %s", request.method, request.path)
            internal = status_body(500, f"Internal error occurred: {e}", details={"causes": [{"message": str(e)}]})
            return _respond(internal, status=500)

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["path"].strip("/")
        discovery = self.discovery.document(path, f"127.0.0.1:{self._port}")
        if discovery is not None:
            if request.method != "GET":
                raise KubeStatusError(status_body(405, f"the server does not allow this method on {path}"))
            return _respond(discovery)
        target = _parse_target(path)
        if target is None:
            raise KubeStatusError.no_route()
        if target.group == VISIBILITY_GROUP:
            return self._pending_workloads(request, target)
        if target.group == AUTHORIZATION_GROUP:
            return self._access_review(request, target)
        rt = self.registry.by_resource(target.group, target.version, target.plural)
        if (
            rt is None
            or (rt.namespaced != bool(target.namespace) and (not rt.namespaced or target.name))
            or target.subresource not in ("", "status")
            or (target.subresource == "status" and not rt.has_status)
        ):
            raise KubeStatusError.no_route()
        verb = self._verb(request, target)
        self._authorize(request, verb, rt.group, rt.plural, target.subresource, target.namespace, target.name)
        match verb:
            case "get":
                return _respond(self._served(rt, target.version, self._existing(rt, target)))
            case "list":
                return _respond(self._list(request, rt, target))
            case "watch":
                return await self._watch(request, rt, target)
            case "create":
                return self._create(request, rt, target)
            case "update" | "patch":
                return self._update(request, rt, target, verb)
            case "delete":
                return self._delete(rt, target)
        raise KubeStatusError(status_body(405, f"{verb} is not supported by this fake"))

    @staticmethod
    def _verb(request: web.Request, target: _Target) -> str:
        named = bool(target.name)
        match request.method:
            case "GET":
                return "get" if named else ("watch" if _true(request.query, "watch") else "list")
            case "POST" if not named:
                return "create"
            case "PUT" if named:
                return "update"
            case "PATCH" if named:
                return "patch"
            case "DELETE":
                return "delete" if named else "deletecollection"
        raise KubeStatusError(status_body(405, "the server does not allow this method on the requested resource"))

    @staticmethod
    def _authorize(
        request: web.Request,
        verb: str,
        group: str,
        resource: str,
        subresource: str = "",
        namespace: str = "",
        name: str = "",
    ) -> None:
        identity = request[_IDENTITY]
        attrs = Attributes(identity.user, verb, group, resource, subresource, namespace, name)
        if not identity.allows(attrs):
            raise KubeStatusError.forbidden(attrs.api_group, attrs.resource, attrs.name, forbidden_reason(attrs))

    def _existing(self, rt: ResourceType, target: _Target) -> dict[str, Any]:
        obj = self._store.get(self._key(rt, target.namespace, target.name))
        if obj is None:
            raise KubeStatusError.not_found(rt.group, rt.plural, target.name)
        return obj

    @staticmethod
    def _served(rt: ResourceType, version: str, obj: dict[str, Any], *, in_list: bool = False) -> dict[str, Any]:
        """The object as served at `version`; items of built-in lists carry no kind/apiVersion."""
        obj = dict(obj)
        obj.pop("apiVersion", None)
        obj.pop("kind", None)
        if in_list and rt.builtin:
            return obj
        return {"apiVersion": rt.api_version(version), "kind": rt.kind, **obj}

    # ---------------------------------------------------------------------------------------------
    # Reads

    def _selector(self, rt: ResourceType, query: Mapping[str, str]) -> Selector:
        try:
            labels = parse_label_selector(query.get("labelSelector", ""))
            fields = parse_field_selector(query.get("fieldSelector", ""), rt.selectable_fields, builtin=rt.builtin)
        except SelectorError as e:
            raise KubeStatusError.bad_request(str(e)) from e
        return Selector(tuple(labels), tuple(fields))

    def _list(self, request: web.Request, rt: ResourceType, target: _Target) -> dict[str, Any]:
        selector = self._selector(rt, request.query)
        limit = _int_param(request.query, "limit") or 0
        at: int | None = None
        start: tuple[str, str] | None = None
        if token := request.query.get("continue"):
            at, start = _decode_continue(token)
        keep = None if selector.empty else selector.matches
        try:
            matching, rv, following = self._store.page(
                rt, target.namespace or None, at, after=start, keep=keep, limit=limit
            )
        except CompactedError:
            raise KubeStatusError.expired(_CONTINUE_EXPIRED) from None
        remaining = following - limit
        metadata: dict[str, Any] = {"resourceVersion": str(rv)}
        if limit and len(matching) > limit:
            matching = matching[:limit]
            metadata["continue"] = _encode_continue(rv, _position(matching[-1]))
            if selector.empty:
                metadata["remainingItemCount"] = remaining
        return {
            "kind": f"{rt.kind}List",
            "apiVersion": rt.api_version(target.version),
            "metadata": metadata,
            "items": [self._served(rt, target.version, obj, in_list=True) for obj in matching],
        }

    @staticmethod
    def _check_watch_options(query: Mapping[str, str]) -> None:
        """As the API server validates a watch's options (ListOptions validation: 422 Invalid)."""
        match = query.get("resourceVersionMatch", "")
        problems = []
        if "sendInitialEvents" in query and match != "NotOlderThan":
            problems.append("sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
        if match and "sendInitialEvents" not in query:
            problems.append("resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
        if problems:
            said = [f"resourceVersionMatch: Forbidden: {problem}" for problem in problems]
            message = 'ListOptions.meta.k8s.io "" is invalid: ' + (
                said[0] if len(said) == 1 else f"[{', '.join(said)}]"
            )
            causes = [
                {"reason": "FieldValueForbidden", "message": f"Forbidden: {p}", "field": "resourceVersionMatch"}
                for p in problems
            ]
            details = {"group": "meta.k8s.io", "kind": "ListOptions", "causes": causes}
            raise KubeStatusError(status_body(422, message, details=details))

    async def _watch(self, request: web.Request, rt: ResourceType, target: _Target) -> web.StreamResponse:
        self._check_watch_options(request.query)
        selector = self._selector(rt, request.query)
        requested = request.query.get("resourceVersion", "")
        since = None if requested in ("", "0") else _int_param(request.query, "resourceVersion")
        bookmarks = _true(request.query, "allowWatchBookmarks")
        timeout = _int_param(request.query, "timeoutSeconds")
        if timeout is None:  # the server's own: --min-request-timeout (1800 s) times a random 1 to 2
            timeout = int(self.min_request_timeout * (1 + random.random()))
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        response.enable_chunked_encoding()
        events = _Events(response)
        loop = asyncio.get_running_loop()
        try:
            if self._faults.take_watch_expiry():
                raise CompactedError(since or 0, self.resource_version)
            subscription, initial, last_rv = self._store.subscribe(loop, since)
        except CompactedError as e:
            await response.prepare(request)
            await events.send("ERROR", status_body(410, str(e)))
            return response
        # registered before the client has the response headers, so drop_watches() can see it from then on
        watch = _Watch(request, subscription)
        with self._lock:
            self._watches.add(watch)
        try:
            await response.prepare(request)
            with contextlib.suppress(ConnectionResetError):
                start = last_rv if since is None else since
                changed = 0  # the resourceVersion of this kind's last change the watch has seen (0: none)
                for change in initial:
                    if change.key[:2] == (rt.group, rt.plural):
                        changed = change.rv
                    if event := self._watch_event(rt, target, selector, change):
                        events.add(*event)
                        if events.full:
                            await events.flush()
                if bookmarks and since is None and _true(request.query, "sendInitialEvents"):
                    events.add("BOOKMARK", self._bookmark(rt, target.version, last_rv, initial_end=True))
                await events.flush()
                deadline = loop.time() + timeout if self.watch_deadlines else None
                progress = _Progress(start, changed) if bookmarks else None
                await self._stream(watch, rt, target, selector, events, progress, deadline)
        finally:
            with self._lock:
                self._watches.discard(watch)
            self._store.unsubscribe(subscription)
        return response

    async def _stream(
        self,
        watch: _Watch,
        rt: ResourceType,
        target: _Target,
        selector: Selector,
        events: _Events,
        progress: _Progress | None,
        deadline: float | None,
    ) -> None:
        """Send the changes as they come (those ready together in one write), and, on a watch that allows
        them, a bookmark every `bookmark_interval` and 2 s before the deadline, once this kind has changed
        since the watch started (as the apiserver's cacher does), until the deadline or an end."""
        loop = asyncio.get_running_loop()
        queue = watch.subscription.queue
        next_bookmark = loop.time() + self.bookmark_interval
        while True:
            now = loop.time()
            wait = None
            if progress is not None:
                if deadline is not None and deadline - 2 > now:
                    next_bookmark = min(next_bookmark, deadline - 2)
                wait = max(0.0, next_bookmark - now)
            if deadline is not None:
                remaining = deadline - now
                if remaining <= 0:
                    return
                wait = remaining if wait is None else min(wait, remaining)
            try:
                item = await asyncio.wait_for(queue.get(), wait)
            except TimeoutError:
                if progress is not None and loop.time() >= next_bookmark:
                    next_bookmark = loop.time() + self.bookmark_interval
                    if progress.due:
                        await events.send("BOOKMARK", self._bookmark(rt, target.version, progress.changed))
                continue
            while True:
                if item is StreamEnd.CLOSE:
                    await events.flush()
                    return
                if item is StreamEnd.DROP:
                    await events.flush()
                    watch.cut()
                    return
                if progress is not None and item.key[:2] == (rt.group, rt.plural):
                    progress.changed = item.rv
                if event := self._watch_event(rt, target, selector, item):
                    events.add(*event)
                    if watch.sent_one():
                        await events.flush()
                        watch.cut()
                        return
                if queue.empty() or events.full:
                    break
                item = queue.get_nowait()
            await events.flush()

    def _watch_event(
        self, rt: ResourceType, target: _Target, selector: Selector, change: Change
    ) -> tuple[str, dict[str, Any]] | None:
        """The event a watcher of this kind/namespace/selector sees for a change, if any: an object that
        starts (stops) matching the selector is ADDED (DELETED), as the watch cache reports it."""
        if change.key[:2] != (rt.group, rt.plural) or (target.namespace and change.key[2] != target.namespace):
            return None
        before = change.prev is not None and selector.matches(change.prev)
        if change.type == "DELETED":
            return ("DELETED", self._served(rt, target.version, change.obj)) if before else None
        if selector.matches(change.obj):
            return ("MODIFIED" if before else "ADDED"), self._served(rt, target.version, change.obj)
        if change.prev is not None and before:
            gone = copy.deepcopy(change.prev)
            gone["metadata"]["resourceVersion"] = str(change.rv)
            return "DELETED", self._served(rt, target.version, gone)
        return None

    @staticmethod
    def _bookmark(rt: ResourceType, version: str, rv: int, *, initial_end: bool = False) -> dict[str, Any]:
        metadata: dict[str, Any] = {"resourceVersion": str(rv)}
        if initial_end:
            metadata["annotations"] = {_INITIAL_EVENTS_END: "true"}
        return {"kind": rt.kind, "apiVersion": rt.api_version(version), "metadata": metadata}

    # ---------------------------------------------------------------------------------------------
    # Writes

    def _body(self, request: web.Request) -> dict[str, Any]:
        body = request[_BODY]
        if not isinstance(body, dict):
            raise KubeStatusError.bad_request("the body of the request is not a JSON object")
        return body

    def _create(self, request: web.Request, rt: ResourceType, target: _Target) -> web.StreamResponse:
        if rt.namespaced and not target.namespace:
            raise KubeStatusError.no_route()
        obj = self._body(request)
        obj.setdefault("apiVersion", rt.api_version(target.version))
        obj.setdefault("kind", rt.kind)
        if (obj["apiVersion"], obj["kind"]) != (rt.api_version(target.version), rt.kind):
            raise KubeStatusError.bad_request(
                f"the API version in the data ({obj['apiVersion']}) does not match the expected API version "
                f"({rt.api_version(target.version)})"
            )
        meta = obj.setdefault("metadata", {})
        for field in ("uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "generation"):
            meta.pop(field, None)
        if rt.namespaced:
            if meta.setdefault("namespace", target.namespace) != target.namespace:
                raise KubeStatusError.bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request"
                )
            if self._store.get(("", "namespaces", "", target.namespace)) is None:
                raise KubeStatusError.not_found("", "namespaces", target.namespace)
        if not meta.get("name") and meta.get("generateName"):
            suffix = "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(5))
            meta["name"] = meta["generateName"] + suffix
        try:
            rt, obj = self._admit(obj)
            created = self._store.create(rt, obj)
        except InvalidObjectError as e:
            raise KubeStatusError.invalid(e) from e
        except ObjectExistsError:
            raise KubeStatusError.already_exists(rt.group, rt.plural, meta["name"]) from None
        return _respond(self._served(rt, target.version, created), status=201)

    def _update(self, request: web.Request, rt: ResourceType, target: _Target, verb: str) -> web.StreamResponse:
        existing = self._existing(rt, target)
        if verb == "update":
            obj = self._body(request)
            expected = obj.get("metadata", {}).get("resourceVersion")
        else:
            obj = self._patched(request, existing)
            expected = existing["metadata"]["resourceVersion"]
            if obj.get("metadata", {}).get("resourceVersion") != expected:
                raise KubeStatusError.conflict(rt.group, rt.plural, target.name)
        meta = obj.setdefault("metadata", {})
        if meta.get("name", target.name) != target.name:
            raise KubeStatusError.bad_request(
                f"the name of the object ({meta['name']}) does not match the name on the URL ({target.name})"
            )
        meta.update(name=target.name, **({"namespace": target.namespace} if rt.namespaced else {}))
        obj["apiVersion"], obj["kind"] = rt.api_version(target.version), rt.kind
        # the main resource and its status subresource each change only their own part
        status_source, obj = (obj, existing) if target.subresource == "status" else (existing, obj)
        if rt.has_status or target.subresource == "status":
            obj = {k: v for k, v in obj.items() if k != "status"}
            if "status" in status_source:
                obj["status"] = status_source["status"]
        try:
            rt, obj = self._admit(obj)
            updated = self._store.replace(rt, obj, expected_rv=expected)
        except InvalidObjectError as e:
            raise KubeStatusError.invalid(e) from e
        except StaleResourceVersionError:
            raise KubeStatusError.conflict(rt.group, rt.plural, target.name) from None
        except ObjectMissingError:
            raise KubeStatusError.not_found(rt.group, rt.plural, target.name) from None
        return _respond(self._served(rt, target.version, updated))

    @staticmethod
    def _patched(request: web.Request, existing: dict[str, Any]) -> dict[str, Any]:
        patch = request[_BODY]
        try:
            if request.content_type in (MERGE_PATCH, STRATEGIC_MERGE_PATCH):
                patched = merge_patch(existing, patch)
            elif request.content_type == JSON_PATCH:
                patched = json_patch(existing, patch)
            else:
                raise KubeStatusError(
                    status_body(
                        415,
                        f"the body of the request was in an unknown format - accepted media types include: "
                        f"{JSON_PATCH}, {MERGE_PATCH}, {STRATEGIC_MERGE_PATCH}",
                    )
                )
        except PatchError as e:
            raise KubeStatusError(status_body(422, str(e))) from e
        if not isinstance(patched, dict):
            raise KubeStatusError.bad_request("the patch does not leave an object")
        return patched

    def _delete(self, rt: ResourceType, target: _Target) -> web.StreamResponse:
        try:
            obj = self._store.delete(self._key(rt, target.namespace, target.name), honor_finalizers=True)
        except ObjectMissingError:
            raise KubeStatusError.not_found(rt.group, rt.plural, target.name) from None
        if "deletionTimestamp" in obj["metadata"] or not rt.builtin:
            return _respond(self._served(rt, target.version, obj))
        details = {"name": target.name, "group": rt.group, "kind": rt.plural, "uid": obj["metadata"]["uid"]}
        success = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}
        return _respond(success)

    # ---------------------------------------------------------------------------------------------
    # Kueue's pending-workloads API

    def _pending_workloads(self, request: web.Request, target: _Target) -> web.StreamResponse:
        resource = {"clusterqueues": "clusterqueue", "localqueues": "localqueue"}.get(target.plural)
        if (
            target.version not in self.visibility_versions
            or resource is None
            or target.subresource != "pendingworkloads"
            or (target.plural == "localqueues") != bool(target.namespace)
        ):
            raise KubeStatusError.no_route()
        if request.method != "GET":
            raise KubeStatusError(status_body(405, "the server does not allow this method on the requested resource"))
        self._authorize(
            request, "get", VISIBILITY_GROUP, target.plural, "pendingworkloads", target.namespace, target.name
        )
        limit, offset = bounded_limit_offset(_int_param(request.query, "limit"), _int_param(request.query, "offset"))
        if target.plural == "clusterqueues":
            items = self._cluster_queue_pending(target.name, limit, offset)
        else:
            items = self._local_queue_pending(target.namespace, target.name, limit, offset)
        if items is None:
            raise KubeStatusError.not_found(VISIBILITY_GROUP, resource, target.name)
        return _respond(summary(target.version, items))

    def _queues_of(self) -> dict[tuple[str, str], str]:
        """(namespace, LocalQueue) -> its ClusterQueue."""
        return {
            (lq["metadata"]["namespace"], lq["metadata"]["name"]): lq.get("spec", {}).get("clusterQueue", "")
            for lq in self._store.list_kind(self._kind("LocalQueue"), None, copies=False)[0]
        }

    def _summary_for(self, cluster_queue: str, queues: Mapping[tuple[str, str], str]) -> list[dict[str, Any]] | None:
        """The items of the latest summary set for this ClusterQueue, if any."""
        with self._lock:
            summaries = list(self._summaries)
        for pending, bound_to in reversed(summaries):
            items = pending.get("items") or []
            named = {queues.get((i["metadata"]["namespace"], i["localQueueName"])) for i in items}
            if bound_to == cluster_queue or (bound_to is None and cluster_queue in named):
                return items
        return None

    def _cluster_queue_pending(self, name: str, limit: int, offset: int) -> list[dict[str, Any]] | None:
        queues = self._queues_of()
        injected = self._summary_for(name, queues)
        if injected is not None:
            return injected[offset : offset + limit]
        if self._store.get((KUEUE_GROUP, "clusterqueues", "", name)) is None:
            return None
        return cluster_queue_items(self._ordered(name, queues), limit, offset)

    def _local_queue_pending(self, namespace: str, name: str, limit: int, offset: int) -> list[dict[str, Any]] | None:
        queues = self._queues_of()
        if (namespace, name) not in queues:
            return None
        cluster_queue = queues[(namespace, name)]
        injected = self._summary_for(cluster_queue, queues)
        if injected is not None:
            mine = [i for i in injected if (i["metadata"]["namespace"], i["localQueueName"]) == (namespace, name)]
            return mine[offset : offset + limit]
        return local_queue_items(self._ordered(cluster_queue, queues), namespace, name, limit, offset)

    def _ordered(self, cluster_queue: str, queues: Mapping[tuple[str, str], str]) -> list[Mapping[str, Any]]:
        workloads = self._store.list_kind(self._kind("Workload"), None, copies=False)[0]
        return order_pending(workloads, [q for q, cq in queues.items() if cq == cluster_queue])

    # ---------------------------------------------------------------------------------------------
    # SubjectAccessReview

    def _access_review(self, request: web.Request, target: _Target) -> web.StreamResponse:
        kinds = {"subjectaccessreviews": "SubjectAccessReview", "selfsubjectaccessreviews": "SelfSubjectAccessReview"}
        if target.version != "v1" or target.plural not in kinds or target.name or target.namespace:
            raise KubeStatusError.no_route()
        if request.method != "POST":
            raise KubeStatusError(status_body(405, "the server does not allow this method on the requested resource"))
        caller = request[_IDENTITY]
        spec = self._body(request).get("spec") or {}
        if target.plural == "subjectaccessreviews":
            self._authorize(request, "create", AUTHORIZATION_GROUP, target.plural)
            with self._lock:
                subject = self._identities_by_user.get(spec.get("user", ""))
            groups = tuple(spec.get("groups") or ())
            if subject is None and groups:
                subject = Identity(spec.get("user", ""), groups, ())
            elif subject is not None:
                subject = Identity(subject.user, (*subject.groups, *groups), subject.rules)
        else:
            subject = caller
        resource = spec.get("resourceAttributes")
        if subject is None:
            allowed = False
        elif resource is None:
            allowed = True  # non-resource URLs (discovery, /version, ...) are open to every known user
        else:
            attrs = Attributes(
                subject.user,
                resource.get("verb", ""),
                resource.get("group", ""),
                resource.get("resource", ""),
                resource.get("subresource", ""),
                resource.get("namespace", ""),
                resource.get("name", ""),
            )
            allowed = subject.allows(attrs)
        reason = f'allowed by the fake\'s rules for User "{subject.user}"' if allowed and subject else ""
        review = {
            "kind": kinds[target.plural],
            "apiVersion": f"{AUTHORIZATION_GROUP}/v1",
            "metadata": {"creationTimestamp": None},
            "spec": spec,
            "status": {"allowed": allowed} | ({"reason": reason} if reason else {}),
        }
        return _respond(review, status=201)


class ThreadedKubeAPI:
    """A FakeKubeAPI running on its own event loop in a background thread (for blocking clients).

    with FakeKubeAPI(token="t0k3n").start_in_thread() as server:
        server.api.add(...)
        kubernetes.config.load_kube_config(str(server.api.write_kubeconfig(tmp_path / "kc")))
    """

    def __init__(self, api: FakeKubeAPI) -> None:
        self.api = api
        self._ready = threading.Event()
        self._failure: Exception | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run_loop, name="fake-kube-api", daemon=True)

    def _run_loop(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            await self.api.start()
        except Exception as e:  # noqa: BLE001 - handed over to start(), in the caller's thread
            self._failure = e
            return
        finally:
            self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await self.api.stop()

    @property
    def url(self) -> str:
        return self.api.url

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(timeout=10) or self._failure is not None:
            raise RuntimeError("the fake API server did not start") from self._failure

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(timeout=10)

    def go_offline(self) -> None:
        self._call(self.api.go_offline())

    def go_online(self) -> None:
        self._call(self.api.go_online())

    def _call(self, coroutine: Coroutine[Any, Any, None]) -> None:
        assert self._loop is not None
        asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
