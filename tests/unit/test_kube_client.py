"""The Kubernetes client seam (bot.kube.client): the connection's TCP keepalive."""

from __future__ import annotations

import socket
from pathlib import Path

import yaml
from bot.kube.client import KEEPALIVE, load_api_client


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
