"""The Kubernetes client seam (bot.kube.client): the connection's TCP keepalive, and one error mapping
tested against every lower error (as httpx tests its exception map)."""

from __future__ import annotations

import json
import socket
import ssl
from pathlib import Path

import pytest
import urllib3
import yaml
from bot.errors import ClusterUnavailable, Forbidden
from bot.kube.client import KEEPALIVE, AlreadyExists, Conflict, KubeClient, NotFound, load_api_client, translate
from kubernetes.client import ApiClient as ApiClientType
from kubernetes.client.exceptions import ApiException


def _kubeconfig(path: Path) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:1"}}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "x",
            }
        )
    )
    return path


def test_every_connection_has_tcp_keepalive(tmp_path: Path) -> None:
    """A quiet watch carries nothing for minutes: TCP keepalive is what ends one whose peer vanished."""
    api_client = load_api_client(str(_kubeconfig(tmp_path / "kubeconfig")))
    try:
        options = api_client.rest_client.pool_manager.connection_pool_kw["socket_options"]
    finally:
        api_client.close()  # type: ignore[no-untyped-call]
    assert (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1) in options
    assert (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1) in options  # urllib3's own default is kept
    idle, interval, count = KEEPALIVE
    assert (socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, idle) in options
    assert (socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, interval) in options
    assert (socket.IPPROTO_TCP, socket.TCP_KEEPCNT, count) in options


# --- one error mapping (issue 10): every lower error the client can raise, and what it becomes -------------


def _api(status: int, body: dict[str, object] | None = None, reason: str = "Reason") -> ApiException:
    error = ApiException(status=status, reason=reason)
    error.body = json.dumps(body) if body is not None else None
    return error


_POOL = urllib3.HTTPConnectionPool("127.0.0.1", 1)
_STATUS = {"kind": "Status", "message": "workloads is forbidden: User cannot list"}

MAPPED = [
    pytest.param(_api(401), False, ClusterUnavailable, "refused our credentials (401", id="401"),
    pytest.param(_api(403, _STATUS), False, Forbidden, "workloads is forbidden", id="403-status-message"),
    pytest.param(_api(403, None, "Forbidden"), False, Forbidden, "Forbidden", id="403-no-body"),
    pytest.param(_api(404, {"message": 'workloads "w" not found'}), False, NotFound, "not found", id="404"),
    pytest.param(
        _api(409, {"reason": "AlreadyExists", "message": "exists"}), True, AlreadyExists, "exists", id="409-exists"
    ),
    pytest.param(_api(409, {"reason": "Conflict", "message": "changed"}), True, Conflict, "changed", id="409-conflict"),
    pytest.param(_api(409, {"message": "changed"}), False, ClusterUnavailable, "answered 409", id="409-on-a-read"),
    pytest.param(_api(410, {"message": "too old"}), False, ClusterUnavailable, "answered 410", id="410"),
    pytest.param(_api(429, {"message": "slow down"}), False, ClusterUnavailable, "answered 429", id="429"),
    pytest.param(_api(500, {"message": "etcd"}), False, ClusterUnavailable, "answered 500", id="500"),
    pytest.param(_api(503, "not json"), False, ClusterUnavailable, "answered 503", id="503-body-not-a-status"),  # type: ignore[arg-type]
    pytest.param(_api(0, None, "no answer"), False, ClusterUnavailable, "cannot reach", id="status-0"),
    pytest.param(
        urllib3.exceptions.MaxRetryError(_POOL, "/", None), False, ClusterUnavailable, "cannot reach", id="max-retry"
    ),
    pytest.param(
        urllib3.exceptions.NewConnectionError(_POOL, "refused"),
        False,
        ClusterUnavailable,
        "cannot reach",
        id="new-connection",
    ),
    pytest.param(urllib3.exceptions.ProtocolError("reset"), False, ClusterUnavailable, "cannot reach", id="protocol"),
    pytest.param(
        urllib3.exceptions.ReadTimeoutError(_POOL, "/", "read timed out"),
        False,
        ClusterUnavailable,
        "timed out",
        id="read-timeout",
    ),
    pytest.param(
        urllib3.exceptions.SSLError("certificate verify failed"), False, ClusterUnavailable, "certificate", id="tls"
    ),
    pytest.param(
        ConnectionRefusedError(111, "Connection refused"), False, ClusterUnavailable, "refused", id="os-refused"
    ),
    pytest.param(TimeoutError("timed out"), False, ClusterUnavailable, "timed out", id="os-timeout"),
    pytest.param(ssl.SSLError("bad handshake"), False, ClusterUnavailable, "handshake", id="ssl-module"),
]


@pytest.mark.parametrize(("error", "writing", "expected", "says"), MAPPED)
def test_every_lower_error_is_mapped(error: Exception, writing: bool, expected: type[Exception], says: str) -> None:
    mapped = translate(error, "workloads.kueue.x-k8s.io", writing=writing)
    assert type(mapped) is expected
    assert says in str(mapped)


@pytest.mark.parametrize(
    "bug",
    [
        pytest.param(TypeError("unsupported operand"), id="type-error"),
        pytest.param(KeyError("metadata"), id="key-error"),
        pytest.param(ValueError("bad param"), id="value-error"),
        pytest.param(AttributeError("no attribute"), id="attribute-error"),
        pytest.param(RuntimeError("oops"), id="runtime-error"),
    ],
)
def test_what_is_not_a_library_error_is_not_mapped(bug: Exception) -> None:
    """A bug is not "cluster unavailable": the caller re-raises it as it is."""
    assert translate(bug, "anything") is None


class _Broken(ApiClientType):  # type: ignore[misc,valid-type]
    """An ApiClient whose serializer has a bug: the call must raise it, not hide it."""

    def param_serialize(self, *args: object, **kwargs: object) -> object:
        raise TypeError("a bug in our own call")


def test_the_client_call_re_raises_what_it_cannot_map() -> None:
    client = KubeClient(_Broken())
    with pytest.raises(TypeError, match="a bug in our own call"):
        client.get("/apis/kueue.x-k8s.io")
    with pytest.raises(TypeError):
        client.create("/api/v1/namespaces", {"metadata": {"name": "x"}})
