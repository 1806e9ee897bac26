"""Shared pytest configuration."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from bot.kube.client import DEFAULT_TIMEOUT, KubeClient, load_api_client
from bot.notify.store import SQLiteStore
from kubernetes.client import ApiClient

from tests.fakes.kube_api import FakeKubeAPI

# The terminal's width as a test sees it is none (as under a plain `pytest`), whoever runs the tests: pytest-xdist's
# workers are started with COLUMNS/LINES set, and the CLI wraps its text to COLUMNS (a test that wants a width
# sets it itself).
for _variable in ("COLUMNS", "LINES"):
    os.environ.pop(_variable, None)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fake_kube(objects=..., dump=..., **options): how the `api` fixture's fake Kubernetes API starts: the "
        "objects it holds, a dump file it loads, FakeKubeAPI's keyword options (token, bookmark_interval...)",
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite the golden files under tests/goldens from the current output (review the diff)",
    )


@pytest.fixture(autouse=True)
async def no_leaked_tasks(request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """Every background task a test starts has an owner that stops it: none may outlive the test."""
    before = set(asyncio.all_tasks())
    yield
    await asyncio.sleep(0)  # let tasks that are finishing finish
    leaked = [t for t in asyncio.all_tasks() - before if not t.done() and t is not asyncio.current_task()]
    for task in leaked:
        task.cancel()
    if leaked:
        pytest.fail(f"{request.node.name} leaked {len(leaked)} task(s): {[t.get_name() for t in leaked]}")


@pytest.fixture
async def api(request: pytest.FixtureRequest) -> AsyncIterator[FakeKubeAPI]:
    """A fake Kubernetes API server on a local port, set up by the closest `fake_kube` mark (module or test)."""
    marker = request.node.get_closest_marker("fake_kube")
    options = dict(marker.kwargs) if marker is not None else {}
    objects = options.pop("objects", ())
    dump = options.pop("dump", None)
    async with FakeKubeAPI(**options) as server:
        if dump is not None:
            server.load_dump(dump)
        for obj in objects:
            server.add(obj)
        yield server


@pytest.fixture
def client_for(api: FakeKubeAPI, tmp_path: Path) -> Iterator[Callable[..., KubeClient]]:
    """KubeClients for the `api` fake, from a kubeconfig as in production (the admin's token by default, or
    `token`; the client's `timeout`), all closed at the end."""
    opened: list[ApiClient] = []

    def make(token: str | None = None, *, timeout: tuple[float, float] = DEFAULT_TIMEOUT) -> KubeClient:
        kubeconfig = api.write_kubeconfig(tmp_path / f"kubeconfig-{len(opened)}", token=token)
        api_client = load_api_client(str(kubeconfig))
        opened.append(api_client)
        return KubeClient(api_client, timeout=timeout)

    yield make
    for api_client in opened:
        api_client.close()  # type: ignore[no-untyped-call]


@pytest.fixture
def client(client_for: Callable[..., KubeClient]) -> KubeClient:
    """A KubeClient for the `api` fake, as the admin."""
    return client_for()


@pytest.fixture
async def state_store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    """The watcher's state in a SQLite file of the test's own."""
    store = SQLiteStore(tmp_path / "state.sqlite3")
    yield store
    await store.aclose()
