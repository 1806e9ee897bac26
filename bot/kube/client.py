"""The one seam to the Kubernetes API: raw JSON GET and paginated LIST through the official client,
with every library error translated (ApiException, connection errors, bad kubeconfig) into bot.errors."""

from __future__ import annotations

import builtins
import json
import logging
import os
import socket
from collections.abc import Iterator, Mapping
from typing import Any

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
# TCP keepalive on every connection: probed after 30 s idle, every 10 s, dropped after 3 unanswered probes.
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


def _status_message(error: ApiException) -> str:
    try:
        body = json.loads(error.body or "{}")
    except (TypeError, ValueError):
        body = {}
    message = body.get("message") if isinstance(body, Mapping) else None
    return str(message or error.reason or f"HTTP {error.status}")


def translate(error: Exception, what: str) -> Exception:
    """A library error as the bot's own (to be raised `from` the original)."""
    if isinstance(error, ApiException):
        if error.status == 401:
            return ClusterUnavailable(f"the API server refused our credentials (401 Unauthorized) while reading {what}")
        if error.status == 403:
            return Forbidden(_status_message(error))
        if error.status == 404:
            return NotFound(_status_message(error))
        if error.status == 0 or error.status is None:
            return ClusterUnavailable(f"cannot reach the API server while reading {what}: {error.reason}")
        return ClusterUnavailable(
            f"the API server answered {error.status} while reading {what}: {_status_message(error)}"
        )
    if isinstance(error, urllib3.exceptions.HTTPError | OSError):
        return ClusterUnavailable(f"cannot reach the API server while reading {what}: {error}")
    return ClusterUnavailable(f"unexpected answer while reading {what}: {error}")


def translate_write(error: Exception, what: str) -> Exception:
    """A library error on a write as the bot's own: 409 is Conflict or AlreadyExists (by the Status reason),
    the rest as on reads (Forbidden, NotFound, ClusterUnavailable)."""
    if isinstance(error, ApiException):
        if error.status == 409:
            try:
                body = json.loads(error.body or "{}")
            except (TypeError, ValueError):
                body = {}
            reason = body.get("reason") if isinstance(body, Mapping) else None
            kind = AlreadyExists if reason == "AlreadyExists" else Conflict
            return kind(_status_message(error))
        if error.status == 401:
            return ClusterUnavailable(f"the API server refused our credentials (401 Unauthorized) while writing {what}")
        if error.status in (403, 404):
            return translate(error, what)
        if error.status == 0 or error.status is None:
            return ClusterUnavailable(f"cannot reach the API server while writing {what}: {error.reason}")
        message = _status_message(error)
        return ClusterUnavailable(f"the API server answered {error.status} while writing {what}: {message}")
    if isinstance(error, urllib3.exceptions.HTTPError | OSError):
        return ClusterUnavailable(f"cannot reach the API server while writing {what}: {error}")
    return ClusterUnavailable(f"unexpected answer while writing {what}: {error}")


class KubeClient:
    """Raw JSON reads and writes. Blocking: call it from a worker thread in async code."""

    def __init__(self, api_client: k8s_client.ApiClient, *, timeout: tuple[float, float] = DEFAULT_TIMEOUT) -> None:
        self.api_client = api_client
        self.timeout = timeout
        self.requests = 0

    @property
    def host(self) -> str:
        return str(self.api_client.configuration.host)

    def get(self, path: str, query: Mapping[str, str | int] | None = None, *, what: str = "") -> dict[str, Any]:
        self.requests += 1
        try:
            method, url, headers, body, post = self.api_client.param_serialize(
                "GET",
                path,
                query_params=list((query or {}).items()),
                header_params={"Accept": "application/json"},
                auth_settings=["BearerToken"],
            )
            response = self.api_client.call_api(method, url, headers, body, post, _request_timeout=self.timeout)
            payload = response.read()  # type: ignore[no-untyped-call]
        except Exception as error:  # every library error is translated, never leaked
            raise translate(error, what or path) from error
        if not 200 <= response.status <= 299:
            failure = ApiException(status=response.status, reason=response.reason)
            failure.body = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload)
            raise translate(failure, what or path) from failure
        try:
            data = json.loads(payload)
        except ValueError as error:
            raise ClusterUnavailable(f"the API server answered {path} with something that is not JSON") from error
        if not isinstance(data, dict):
            raise ClusterUnavailable(f"the API server answered {path} with something that is not a JSON object")
        return data

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
    # Writes: the answer's JSON object; errors translated by translate_write (Conflict, AlreadyExists, ...)

    def create(self, path: str, body: Mapping[str, Any], *, what: str = "") -> dict[str, Any]:
        """POST `body` to the collection `path` (AlreadyExists when the name is taken)."""
        return self._write("POST", path, dict(body), "application/json", what)

    def replace(self, path: str, body: Mapping[str, Any], *, what: str = "") -> dict[str, Any]:
        """PUT `body` at `path`; with metadata.resourceVersion set, Conflict when the object changed since."""
        return self._write("PUT", path, dict(body), "application/json", what)

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
        return self._write("PATCH", path, body, content_type, what)

    def delete(self, path: str, *, what: str = "") -> dict[str, Any]:
        """DELETE `path`; the answer is the object (or a Status for built-in kinds)."""
        return self._write("DELETE", path, None, "application/json", what)

    def _write(
        self, method: str, path: str, body: dict[str, Any] | builtins.list[Any] | None, content_type: str, what: str
    ) -> dict[str, Any]:
        self.requests += 1
        what = what or f"{method} {path}"
        try:
            method, url, headers, payload_body, post = self.api_client.param_serialize(
                method,
                path,
                header_params={"Accept": "application/json", "Content-Type": content_type},
                body=body,
                auth_settings=["BearerToken"],
            )
            response = self.api_client.call_api(method, url, headers, payload_body, post, _request_timeout=self.timeout)
            payload = response.read()  # type: ignore[no-untyped-call]
        except Exception as error:  # every library error is translated, never leaked
            raise translate_write(error, what) from error
        if not 200 <= response.status <= 299:
            failure = ApiException(status=response.status, reason=response.reason)
            failure.body = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload)
            raise translate_write(failure, what) from failure
        try:
            data = json.loads(payload)
        except ValueError as error:
            raise ClusterUnavailable(f"the API server answered {what} with something that is not JSON") from error
        if not isinstance(data, dict):
            raise ClusterUnavailable(f"the API server answered {what} with something that is not a JSON object")
        return data
