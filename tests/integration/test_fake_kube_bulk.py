"""The fake API server at benchmark sizes: a bulk load that may skip the CRD check (and only that), LIST
pages that neither copy the whole kind nor lose a change made between pages, a burst of watch events in
few writes, and no error logged when a client goes away."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.fakes.kube_api import FakeKubeAPI
from tests.fakes.kube_schema import InvalidObjectError

WORKLOADS = "/apis/kueue.x-k8s.io/v1beta2/workloads"


def _workload(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {
            "queueName": "lq",
            "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}],
            **spec,
        },
    }


pytestmark = pytest.mark.fake_kube(bookmark_interval=0.1)


@pytest.fixture
async def http(api: FakeKubeAPI) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(api.url) as session:
        yield session


async def _names(http: aiohttp.ClientSession, query: str = "") -> tuple[list[str], dict[str, Any]]:
    async with http.get(f"{WORKLOADS}{query}") as response:
        assert response.status == 200
        page = await response.json()
    return [item["metadata"]["name"] for item in page["items"]], page["metadata"]


def test_a_bulk_load_checks_against_the_crds_unless_told_not_to() -> None:
    api = FakeKubeAPI()
    invalid = _workload("bad", unknownField=1)
    with pytest.raises(InvalidObjectError):
        api.add_all([invalid])
    assert api.add_all([_workload("a"), invalid], validate=False) == 2
    with pytest.raises(ValueError, match="already exists"):
        api.add_all([_workload("a")], validate=False)
    with pytest.raises(ValueError, match="not served"):
        api.add_all([{"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "x"}}], validate=False)
    with pytest.raises(InvalidObjectError, match="namespace"):
        api.add_all([{**_workload("b"), "metadata": {"name": "b"}}], validate=False)
    given = _workload("c")
    api.add_all([given], validate=False)
    given["spec"]["queueName"] = "changed after"
    kept = api.get("Workload", "ns", "c")
    assert kept is not None and kept["spec"]["queueName"] == "lq", "the fake keeps its own copy"


async def test_list_pages_see_objects_that_come_and_go(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    api.add_all(_workload(name) for name in ("a", "c", "e"))
    assert (await _names(http))[0] == ["a", "c", "e"]
    api.add(_workload("b"))
    api.delete("Workload", "ns", "c")
    names, metadata = await _names(http, "?limit=2")
    assert names == ["a", "b"] and metadata["remainingItemCount"] == 1
    rest, _ = await _names(http, f"?limit=2&continue={metadata['continue']}")
    assert rest == ["e"]
    items = api.objects("Workload")
    items[0]["spec"]["queueName"] = "mutated by a test"
    kept = api.get("Workload", "ns", "a")
    assert kept is not None and kept["spec"]["queueName"] == "lq", "objects() hands out copies"


async def test_a_list_with_a_selector_pages_through_the_matches(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    for index, name in enumerate("abcdef"):
        labelled = _workload(name)
        labelled["metadata"]["labels"] = {"even": str(index % 2 == 0).lower()}
        api.add(labelled)
    names, metadata = await _names(http, "?limit=2&labelSelector=even%3Dtrue")
    assert names == ["a", "c"] and "remainingItemCount" not in metadata
    rest, metadata = await _names(http, f"?limit=2&labelSelector=even%3Dtrue&continue={metadata['continue']}")
    assert rest == ["e"] and "continue" not in metadata


async def test_a_burst_of_watch_events_arrives_whole(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    api.add(_workload("w", priority=0))
    async with http.get(f"{WORKLOADS}?watch=1&resourceVersion={api.resource_version}") as response:
        await api.wait_for_request(watch=True)
        for priority in range(1, 301):
            api.update(_workload("w", priority=priority))
        seen: list[bytes] = []
        async with asyncio.timeout(10):
            while len(seen) < 300:
                line = await response.content.readline()
                seen.append(line)
    events = [json.loads(line) for line in seen]
    assert [e["object"]["spec"]["priority"] for e in events] == list(range(1, 301))
    assert {e["type"] for e in events} == {"MODIFIED"}


class _Records(logging.Handler):
    """The fake's log records, and an event set at the first."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.first = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        self.first.set()


async def test_a_client_that_goes_away_is_not_an_error(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    logger = logging.getLogger("tests.fakes.kube_api")
    records, level = _Records(), logger.level
    logger.addHandler(records)
    logger.setLevel(logging.DEBUG)
    try:
        api.delay(0.2, watch=True)  # the client is gone before the server writes the response's headers
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await http.get(f"{WORKLOADS}?watch=1")
        await asyncio.wait_for(records.first.wait(), 5)  # the server, its delay over, finds the client gone
    finally:
        logger.removeHandler(records)
        logger.setLevel(level)
    assert [(r.levelname, r.getMessage()) for r in records.records] == [("DEBUG", "client went away")]
