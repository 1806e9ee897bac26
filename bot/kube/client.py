"""The one seam to the Kubernetes API: one call through the official client (`KubeClient.open`, which the
reads, the writes and the informers' watches all use), and one error mapping (`translate`): every library
error (ApiException, connection errors, bad kubeconfig) becomes one of bot.errors; anything else, a bug,
is raised as it is, never disguised as "cluster unavailable"."""

from __future__ import annotations

import builtins
import json
import logging
import os
import socket
import threading
from collections.abc import Iterator, Mapping
from typing import Any

import orjson
import urllib3
import yaml
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException

from bot.errors import BotError, ClusterUnavailable, Forbidden, NotServed

log = logging.getLogger(__name__)

PAGE_SIZE = 500
DEFAULT_TIMEOUT = (5.0, 30.0)  # connect, read (seconds)
# TCP keepalive on every connection: probed after KEEPALIVE's idle time, then at its interval, dropped after its count.
# A watch of a quiet kind may carry nothing for minutes (bot.kube.informer): this is how a connection whose
# peer vanished (a node gone, a NAT or load balancer that forgot us) ends within about a minute.
KEEPALIVE = (30, 10, 3)  # idle, interval, count (seconds, seconds, probes)


class NotFound(NotServed):
    """The object (or the resource type) does not exist."""


class Conflict(BotError):
    """409 Conflict on a write: the object changed since the resourceVersion it was read at."""


class AlreadyExists(BotError):
    """409 AlreadyExists on a create: an object of that name exists."""


MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"


def keepalive_socket_options() -> list[tuple[int, int, int]]:
    """urllib3's default socket options (no Nagle) plus TCP keepalive at KEEPALIVE's timings (the options
    the platform lacks are left out)."""
    idle, interval, count = KEEPALIVE
    options = list(urllib3.connection.HTTPConnection.default_socket_options)
    options.append((socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1))
    for name, value in (("TCP_KEEPIDLE", idle), ("TCP_KEEPINTVL", interval), ("TCP_KEEPCNT", count)):
        if hasattr(socket, name):
            options.append((socket.IPPROTO_TCP, getattr(socket, name), value))
    return options


def load_api_client(kubeconfig: str | None = None, context: str | None = None) -> k8s_client.ApiClient:
    """The in-cluster configuration when running in a pod (and no kubeconfig was named), else the
    kubeconfig ($KUBECONFIG or ~/.kube/config). Raises ClusterUnavailable with the reason."""
    configuration = k8s_client.Configuration()
    try:
        if kubeconfig is None and context is None and os.environ.get("KUBERNETES_SERVICE_HOST"):
            k8s_config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
        else:
            k8s_config.load_kube_config(  # type: ignore[no-untyped-call]
                config_file=kubeconfig, context=context, client_configuration=configuration
            )
    except ConfigException as error:
        raise ClusterUnavailable(f"no usable Kubernetes configuration: {error}") from error
    except (OSError, ValueError) as error:
        raise ClusterUnavailable(f"cannot read the kubeconfig: {error}") from error
    except (yaml.YAMLError, TypeError, AttributeError, KeyError) as error:  # not a kubeconfig at all
        where = kubeconfig or os.environ.get("KUBECONFIG") or "~/.kube/config"
        detail = " ".join(str(error).split())
        raise ClusterUnavailable(f"{where} is not a kubeconfig ({type(error).__name__}: {detail})") from None
    configuration.retries = False
    configuration.socket_options = keepalive_socket_options()
    return k8s_client.ApiClient(configuration)


def _status_body(error: ApiException) -> Mapping[str, Any]:
    try:
        body = json.loads(error.body or "{}")
    except (TypeError, ValueError):
        return {}
    return body if isinstance(body, Mapping) else {}


def _status_message(error: ApiException) -> str:
    message = _status_body(error).get("message")
    return str(message or error.reason or f"HTTP {error.status}")


def translate(error: BaseException, what: str, *, writing: bool = False) -> BotError | None:
    """The bot's own error for a library error met while reading (or `writing`) `what`, to be raised `from`
    it; None for anything else (a bug is not "cluster unavailable": the caller re-raises it as it is).

        ApiException 401                  ClusterUnavailable (our credentials refused)
        ApiException 403 / 404            Forbidden / NotFound (the Status message)
        ApiException 409, writing         AlreadyExists (Status reason AlreadyExists) or Conflict
        ApiException 0 (no HTTP answer)   ClusterUnavailable (cannot reach)
        ApiException other statuses       ClusterUnavailable (the status and the Status message)
        urllib3 HTTPError, OSError        ClusterUnavailable (cannot reach: refused, reset, TLS, timeouts)
    """
    verb = "writing" if writing else "reading"
    if isinstance(error, ApiException):
        status = error.status
        if status == 401:
            return ClusterUnavailable(f"the API server refused our credentials (401 Unauthorized) while {verb} {what}")
        if status == 403:
            return Forbidden(_status_message(error))
        if status == 404:
            return NotFound(_status_message(error))
        if status == 409 and writing:
            conflict = AlreadyExists if _status_body(error).get("reason") == "AlreadyExists" else Conflict
            return conflict(_status_message(error))
        if not status:
            return ClusterUnavailable(f"cannot reach the API server while {verb} {what}: {error.reason}")
        return ClusterUnavailable(f"the API server answered {status} while {verb} {what}: {_status_message(error)}")
    if isinstance(error, urllib3.exceptions.HTTPError | OSError):
        return ClusterUnavailable(f"cannot reach the API server while {verb} {what}: {error}")
    return None


def mapped_error(failure: ApiException, what: str, writing: bool) -> BotError:
    mapped = translate(failure, what, writing=writing)
    return mapped if mapped is not None else ClusterUnavailable(str(failure))  # (every ApiException is mapped)


def status_error(status: int, reason: str | None, payload: object) -> ApiException:
    """An answer outside 2xx as the client's own exception (then translated like any other)."""
    failure = ApiException(status=status, reason=reason)
    failure.body = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload)
    return failure


class KubeClient:
    """Raw JSON reads and writes. Blocking: call it from a worker thread in async code."""

    def __init__(self, api_client: k8s_client.ApiClient, *, timeout: tuple[float, float] = DEFAULT_TIMEOUT) -> None:
        self.api_client = api_client
        self.timeout = timeout
        self.requests = 0  # made so far (counted under a lock: reads run in several threads at once)
        self.lenient_answers = 0  # answers orjson refused and the standard parser read (`parse_answer`)
        self._counting = threading.Lock()

    @property
    def host(self) -> str:
        return str(self.api_client.configuration.host)

    def open(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, str | int] | None = None,
        body: Any = None,
        content_type: str = "application/json",
        timeout: tuple[float, float] | None = None,
        what: str = "",
        writing: bool = False,
    ) -> urllib3.BaseHTTPResponse:
        """The one call to the API server: the response, not read yet (a watch streams it), whatever its
        status. Library errors translated (`translate`); what it cannot map is raised as it is."""
        with self._counting:
            self.requests += 1
        try:
            method, url, headers, payload, post = self.api_client.param_serialize(
                method,
                path,
                query_params=list((query or {}).items()),
                header_params={"Accept": "application/json"}
                if method == "GET"
                else {"Accept": "application/json", "Content-Type": content_type},
                body=body,
                auth_settings=["BearerToken"],
            )
            rest = self.api_client.call_api(
                method, url, headers, payload, post, _request_timeout=timeout or self.timeout
            )
        except Exception as error:
            mapped = translate(error, what or f"{method} {path}", writing=writing)
            if mapped is None:
                raise
            raise mapped from error
        response: urllib3.BaseHTTPResponse = rest.response
        return response

    def call(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, str | int] | None = None,
        body: Any = None,
        content_type: str = "application/json",
        what: str = "",
        writing: bool = False,
    ) -> dict[str, Any]:
        """`open`, read the answer and decode its JSON object; an answer outside 2xx is translated."""
        what = what or f"{method} {path}"
        response = self.open(
            method, path, query=query, body=body, content_type=content_type, what=what, writing=writing
        )
        try:
            payload = response.data
        except (urllib3.exceptions.HTTPError, OSError) as error:
            raise ClusterUnavailable(f"cannot reach the API server while reading {what}: {error}") from error
        if not 200 <= response.status <= 299:
            failure = status_error(response.status, response.reason, payload)
            raise mapped_error(failure, what, writing) from failure
        data = self.parse_answer(payload, what)
        if not isinstance(data, dict):
            raise ClusterUnavailable(f"the API server answered {what} with something that is not a JSON object")
        return data

    def parse_answer(self, payload: bytes, what: str) -> Any:
        """An answer's JSON: orjson's parser (about twice as fast, and its strings are Unicode text), else, for
        what it refuses and JSON allows (an escaped lone surrogate, NaN, an integer past 64 bits), the standard
        one, counted in `lenient_answers`. Raises ClusterUnavailable when it is not JSON."""
        try:
            return orjson.loads(payload)
        except orjson.JSONDecodeError:
            with self._counting:
                self.lenient_answers += 1
        try:
            return json.loads(payload)
        except ValueError as error:
            raise ClusterUnavailable(f"the API server answered {what} with something that is not JSON") from error

    def get(self, path: str, query: Mapping[str, str | int] | None = None, *, what: str = "") -> dict[str, Any]:
        return self.call("GET", path, query=query, what=what or path)

    def list(
        self, path: str, query: Mapping[str, str | int] | None = None, *, what: str = ""
    ) -> Iterator[dict[str, Any]]:
        """Every item of a LIST, page by page (limit/continue), each with its kind and apiVersion set."""
        params: dict[str, str | int] = {**(query or {}), "limit": PAGE_SIZE}
        while True:
            page = self.get(path, params, what=what)
            kind = str(page.get("kind", "")).removesuffix("List")
            api_version = page.get("apiVersion")
            for item in page.get("items") or []:
                if isinstance(item, dict):
                    item.setdefault("kind", kind)
                    item.setdefault("apiVersion", api_version)
                    yield item
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                return
            params = {**(query or {}), "limit": PAGE_SIZE, "continue": token}

    def served_version(self, group: str, preferred: tuple[str, ...]) -> str | None:
        """The first of `preferred` that the API server serves for `group` (None: the group is not served)."""
        try:
            info = self.get(f"/apis/{group}", what=f"the API group {group}")
        except NotFound:
            return None
        served = {v.get("version") for v in info.get("versions") or [] if isinstance(v, Mapping)}
        for version in preferred:
            if version in served:
                return version
        preferred_version = (info.get("preferredVersion") or {}).get("version")
        return str(preferred_version) if preferred_version else None

    # ---------------------------------------------------------------------------------------------
    # Writes: the answer's JSON object; errors translated with writing=True (Conflict, AlreadyExists, ...)

    def create(self, path: str, body: Mapping[str, Any], *, what: str = "") -> dict[str, Any]:
        """POST `body` to the collection `path` (AlreadyExists when the name is taken)."""
        return self.call("POST", path, body=dict(body), what=what, writing=True)

    def replace(self, path: str, body: Mapping[str, Any], *, what: str = "") -> dict[str, Any]:
        """PUT `body` at `path`; with metadata.resourceVersion set, Conflict when the object changed since."""
        return self.call("PUT", path, body=dict(body), what=what, writing=True)

    def patch(
        self,
        path: str,
        patch: Mapping[str, Any] | builtins.list[Any],
        *,
        content_type: str = MERGE_PATCH,
        what: str = "",
    ) -> dict[str, Any]:
        """PATCH `path` (a JSON merge patch by default; a list with JSON_PATCH)."""
        body = patch if isinstance(patch, builtins.list) else dict(patch)
        return self.call("PATCH", path, body=body, content_type=content_type, what=what, writing=True)

    def delete(self, path: str, *, what: str = "") -> dict[str, Any]:
        """DELETE `path`; the answer is the object (or a Status for built-in kinds)."""
        return self.call("DELETE", path, what=what, writing=True)
