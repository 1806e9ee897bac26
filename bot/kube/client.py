"""The one seam to the Kubernetes API: raw JSON GET and paginated LIST through the official client,
with every library error translated (ApiException, connection errors, bad kubeconfig) into bot.errors."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator, Mapping
from typing import Any

import urllib3
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException

from bot.errors import ClusterUnavailable, Forbidden, NotServed

log = logging.getLogger(__name__)

PAGE_SIZE = 500
DEFAULT_TIMEOUT = (5.0, 30.0)  # connect, read (seconds)


class NotFound(NotServed):
    """The object (or the resource type) does not exist."""


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
    configuration.retries = False
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


class KubeClient:
    """Raw JSON reads. Blocking: call it from a worker thread in async code."""

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
