"""Informers over real HTTP to the fake API server: list with pages, watch with bookmarks, relist on 410
(the HTTP status and the ERROR event), reconnect after dropped streams, quiet watches kept to their
timeoutSeconds and hung ones given up after it, back off on 5xx and
slow answers, v1beta1-only servers, kinds not served, and threads that end on stop()."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from bot.errors import NotServed
from bot.kube import kinds
from bot.kube.cache import ClusterCache
from bot.kube.client import KubeClient, load_api_client
from bot.kube.decode_limits import MAX_POD_SETS
from bot.kube.informer import Change, Informer, InformerSettings, default_decoder

from tests.cache_support import wait_for, wait_ready
from tests.fakes.kube_api import FakeKubeAPI

NS = "team-a"
WORKLOADS = r"/apis/kueue\.x-k8s\.io/v1beta2/workloads"
FAST = InformerSettings(backoff_base=0.05, backoff_cap=0.2, watch_timeout_seconds=60, request_timeout=5.0)


def _clock() -> datetime:
    return datetime(2026, 11, 3, 10, 0, tzinfo=UTC)


pytestmark = pytest.mark.fake_kube(
    bookmark_interval=0.1, objects=[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}]
)


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    yield
    leaked = [t.name for t in threading.enumerate() if t.name.startswith("informer-")]
    assert not leaked, f"informer threads left running: {leaked}"


def _workload(name: str, version: str = "v1beta2") -> dict[str, Any]:
    return {
        "apiVersion": f"kueue.x-k8s.io/{version}",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "queueName": "lq",
            "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}],
        },
    }


def _cache(client: KubeClient, settings: InformerSettings = FAST, kinds: Sequence[str] = ("Workload",)) -> ClusterCache:
    return ClusterCache(client, clock=_clock, settings=settings, kinds_cached=kinds)


def _names(cache: ClusterCache) -> set[str]:
    return {w.name for w in cache.workloads_in(NS)}


async def test_a_list_is_read_page_by_page(api: FakeKubeAPI, client: KubeClient) -> None:
    for i in range(5):
        api.add(_workload(f"w{i}"))
    async with _cache(client, InformerSettings(page_size=2)) as cache:
        await wait_ready(cache, 10)
        assert _names(cache) == {f"w{i}" for i in range(5)}
    lists = [r for r in api.requests if r.path == WORKLOADS.replace("\\", "") and not r.watch]
    assert [r.query.get("limit") for r in lists] == ["2", "2", "2"]
    assert [bool(r.query.get("continue")) for r in lists] == [False, True, True]


async def test_the_next_page_is_read_while_a_page_is_decoded(api: FakeKubeAPI, client: KubeClient) -> None:
    """The server's time to answer a page and the decoding of the page before it overlap: the request for the
    second page reaches the server while the first page's objects are still being decoded."""
    for i in range(4):
        api.add(_workload(f"w{i}"))
    second_page_asked = threading.Event()
    seen_while_decoding: list[bool] = []

    def decoder(raw: Any) -> object | None:
        if not seen_while_decoding:  # the first object of the first page: wait for the second page's request
            seen_while_decoding.append(second_page_asked.wait(60))  # bounded, generous for a busy machine
        return default_decoder("Workload")(raw)

    changes: list[Change] = []
    settings = InformerSettings(page_size=2, request_timeout=5.0, backoff_base=0.05, backoff_cap=0.2)
    informer = Informer(client, kinds.KUEUE["Workload"], "v1beta2", changes.extend, settings=settings, decoder=decoder)
    informer.start()
    try:
        await api.wait_for_request(lambda r: r.path == WORKLOADS.replace("\\", "") and "continue" in r.query)
        second_page_asked.set()
        for _ in range(1200):  # at most a minute
            if informer.synced:
                break
            await asyncio.sleep(0.05)
    finally:
        assert await asyncio.to_thread(informer.stop)
    assert seen_while_decoding == [True]
    assert sorted(c.key[1] for c in changes if c.op == "upsert") == [f"w{i}" for i in range(4)]
    assert [c.op for c in changes if c.op.startswith("list")] == ["list-start", "list-end"]


async def test_the_watch_starts_at_the_list_and_bookmarks_advance_it(api: FakeKubeAPI, client: KubeClient) -> None:
    api.add(_workload("w0"))
    listed_at = str(api.resource_version)
    async with _cache(client) as cache:
        await wait_ready(cache, 10)
        watch = await api.wait_for_request(path=WORKLOADS, watch=True)
        assert watch.query["resourceVersion"] == listed_at
        assert watch.query["allowWatchBookmarks"] == "true"
        informer = cache.informers["Workload"]
        changed = api.update(_workload("w0") | {"metadata": {"name": "w0", "namespace": NS, "labels": {"a": "b"}}})
        await wait_for(cache, lambda: informer.resource_version == changed["metadata"]["resourceVersion"])
        assert cache.applied["Workload"] == 2


async def test_a_quiet_watch_lives_its_whole_timeout_and_is_no_failure(api: FakeKubeAPI, client: KubeClient) -> None:
    """A real API server sends a kind that nobody changes neither events nor bookmarks: the watch ends at its
    timeoutSeconds and is renewed from the same resourceVersion, without an error, a backoff or a relist."""
    api.add(_workload("w0"))
    quick = InformerSettings(backoff_base=0.05, backoff_cap=0.2, watch_timeout_seconds=1, watch_read_grace=5.0)
    async with _cache(client, quick) as cache:
        await wait_ready(cache, 10)
        api.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "elsewhere"}})  # not a Workload
        first = await api.wait_for_request(path=WORKLOADS, watch=True)
        second = await api.wait_for_request(path=WORKLOADS, watch=True, count=2)
        informer = cache.informers["Workload"]
        assert informer.last_error == "" and informer.failures == 0 and not cache.errors
        assert informer.lists == 1 and second.query["resourceVersion"] == first.query["resourceVersion"]


async def test_a_watch_the_server_never_ends_is_given_up_after_its_timeout(
    api: FakeKubeAPI, client: KubeClient
) -> None:
    api.watch_deadlines = False  # a server that is gone without closing: nothing comes, ever
    hung = InformerSettings(backoff_base=0.05, backoff_cap=0.2, watch_timeout_seconds=1, watch_read_grace=0.5)
    async with _cache(client, hung) as cache:
        await wait_ready(cache, 10)
        await wait_for(cache, lambda: "Workload" in cache.errors)
        assert "outlived its timeoutSeconds" in cache.errors["Workload"]
        await api.wait_for_request(path=WORKLOADS, watch=True, count=2)
        assert cache.informers["Workload"].lists == 1


async def test_an_expired_watch_relists_and_forgets_what_was_deleted_meanwhile(
    api: FakeKubeAPI, client: KubeClient
) -> None:
    api.add(_workload("stays"))
    api.add(_workload("goes"))
    async with _cache(client) as cache:
        await wait_ready(cache, 10)
        await api.go_offline()
        await wait_for(cache, lambda: "Workload" in cache.errors)
        api.delete("Workload", NS, "goes")
        api.add(_workload("new"))
        api.compact()  # the watch's resourceVersion is now too old: an ERROR event with 410
        await api.go_online()
        informer = cache.informers["Workload"]
        await wait_for(cache, lambda: informer.lists == 2 and _names(cache) == {"stays", "new"})


async def test_a_relist_forgets_an_unreadable_object_deleted_meanwhile(api: FakeKubeAPI, client: KubeClient) -> None:
    """The only Workload is one the bot cannot read (beyond Kueue's bounds): the store holds no Workload, only
    its unreadable record; deleted while the watch was down, the relist forgets the record too."""
    beyond = _workload("beyond")
    pod_set = beyond["spec"]["podSets"][0]
    beyond["spec"]["podSets"] = [{**pod_set, "name": f"p{i}"} for i in range(MAX_POD_SETS + 1)]
    api.add_all([beyond], validate=False)  # a server that does not validate keeps it
    async with _cache(client) as cache:
        await wait_ready(cache, 10)
        assert [item.name for item in cache.unreadable_in(NS)] == ["beyond"] and _names(cache) == set()
        await api.go_offline()
        await wait_for(cache, lambda: "Workload" in cache.errors)
        api.delete("Workload", NS, "beyond")
        api.compact()  # the watch's resourceVersion is now too old: a relist
        await api.go_online()
        informer = cache.informers["Workload"]
        await wait_for(cache, lambda: informer.lists == 2)
        assert cache.unreadable_in(NS) == ()


async def test_an_http_410_on_the_watch_relists(api: FakeKubeAPI, client: KubeClient) -> None:
    api.add(_workload("w0"))
    async with _cache(client) as cache:
        await wait_ready(cache, 10)
        await api.wait_for_request(path=WORKLOADS, watch=True)
        api.fail_next(status=410, path=WORKLOADS, watch=True, message="too old resource version")
        api.drop_watches()
        informer = cache.informers["Workload"]
        await wait_for(cache, lambda: informer.lists == 2)
        api.add(_workload("w1"))
        await wait_for(cache, lambda: _names(cache) == {"w0", "w1"})


async def test_a_dropped_stream_is_watched_again_from_where_it_was(api: FakeKubeAPI, client: KubeClient) -> None:
    async with _cache(client) as cache:
        await wait_ready(cache, 10)
        await api.wait_for_request(path=WORKLOADS, watch=True)
        api.drop_watches()
        second = await api.wait_for_request(path=WORKLOADS, watch=True, count=2)
        assert second.query["resourceVersion"]
        api.add(_workload("after"))
        await wait_for(cache, lambda: _names(cache) == {"after"})
        assert cache.informers["Workload"].lists == 1


async def test_server_errors_are_retried_with_backoff(api: FakeKubeAPI, client: KubeClient) -> None:
    api.add(_workload("w0"))
    api.fail_next(3, status=500, path=WORKLOADS, watch=False)
    async with _cache(client) as cache:
        await wait_ready(cache, 10)
        assert _names(cache) == {"w0"}
        assert cache.informers["Workload"].failures == 0
    assert api.count_requests(path=WORKLOADS, watch=False) == 4


async def test_too_many_requests_waits_as_told(api: FakeKubeAPI, client: KubeClient) -> None:
    api.fail_next(1, status=429, path=WORKLOADS, watch=False, retry_after=0)
    async with _cache(client) as cache:
        await wait_ready(cache, 10)
    assert api.count_requests(path=WORKLOADS, watch=False) == 2


async def test_slow_answers_time_out_then_recover(api: FakeKubeAPI, client: KubeClient) -> None:
    api.add(_workload("w0"))
    api.delay(2.0, path=WORKLOADS, watch=False)
    impatient = InformerSettings(backoff_base=0.05, backoff_cap=0.1, request_timeout=0.2)
    async with _cache(client, impatient) as cache:
        await api.wait_for_request(path=WORKLOADS, watch=False, count=2)
        assert not cache.ready and "Workload" in cache.errors
        api.clear_faults()
        await wait_ready(cache, 10)
        assert _names(cache) == {"w0"} and not cache.errors


async def test_an_old_kueue_serving_only_v1beta1(tmp_path: Path) -> None:
    async with FakeKubeAPI(kueue_versions=("v1beta1",)) as old:
        old.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        old.add(_workload("legacy", version="v1beta1"))
        api_client = load_api_client(str(old.write_kubeconfig(tmp_path / "old")))
        try:
            async with _cache(KubeClient(api_client)) as cache:
                await wait_ready(cache, 10)
                assert cache.version == "v1beta1"
                assert _names(cache) == {"legacy"}
            assert old.count_requests(path=r"/apis/kueue\.x-k8s\.io/v1beta1/workloads") >= 2
        finally:
            api_client.close()  # type: ignore[no-untyped-call]


async def test_without_kueue_the_cache_does_not_start(tmp_path: Path) -> None:
    async with FakeKubeAPI(kueue_versions=()) as bare:
        api_client = load_api_client(str(bare.write_kubeconfig(tmp_path / "bare")))
        try:
            with pytest.raises(NotServed, match="Kueue"):
                await _cache(KubeClient(api_client)).start()
        finally:
            api_client.close()  # type: ignore[no-untyped-call]


async def test_optional_kinds_not_served_are_not_errors(api: FakeKubeAPI, client: KubeClient) -> None:
    api.fail_next(1, status=404, path=r"/apis/kueue\.x-k8s\.io/v1beta2/cohorts", watch=False)
    async with _cache(client, kinds=("Workload", "Cohort", "Topology")) as cache:
        await wait_ready(cache, 10)
        assert cache.served("Cohort") is False and cache.served("Topology") is True
        assert not cache.informers["Cohort"].alive
        assert cache.taken_at == _clock()
    assert api.count_requests(path=r"/apis/kueue\.x-k8s\.io/v1beta2/cohorts", watch=True) == 0


async def test_a_streamed_initial_list(api: FakeKubeAPI, client: KubeClient) -> None:
    for i in range(3):
        api.add(_workload(f"w{i}"))
    streamed = InformerSettings(initial="watch-list", backoff_base=0.05)
    async with _cache(client, streamed) as cache:
        await wait_ready(cache, 10)
        assert _names(cache) == {"w0", "w1", "w2"}
        api.add(_workload("w3"))
        await wait_for(cache, lambda: len(_names(cache)) == 4)
        api.drop_watches()
        again = await api.wait_for_request(path=WORKLOADS, watch=True, count=2)
        assert again.query["resourceVersion"] and "sendInitialEvents" not in again.query
    assert api.count_requests(path=WORKLOADS, watch=False) == 0
    first = api.requests[[r.path for r in api.requests].index(WORKLOADS.replace("\\", ""))]
    assert first.query.get("sendInitialEvents") == "true"


async def test_stop_ends_every_thread_and_task(api: FakeKubeAPI, client: KubeClient) -> None:
    before = asyncio.all_tasks()
    cache = _cache(client, kinds=("Workload", "LocalQueue", "ClusterQueue"))
    await cache.start()
    await wait_ready(cache, 10)
    await api.wait_for_request(path=r"/apis/kueue\.x-k8s\.io/v1beta2/clusterqueues", watch=True)
    threads = [t for t in threading.enumerate() if t.name.startswith("informer-")]
    assert len(threads) == 3
    await cache.stop()
    assert not any(t.is_alive() for t in threads)
    ours = [
        t for t in asyncio.all_tasks() - before if "/bot/" in getattr(t.get_coro(), "cr_code", _NO_CODE).co_filename
    ]
    assert ours == []  # (the fake server's own handlers may still be finishing on this loop)


_NO_CODE = test_stop_ends_every_thread_and_task.__code__


async def test_a_watch_line_the_decoder_refuses_skips_that_object_and_the_watch_goes_on(
    api: FakeKubeAPI, client: KubeClient, caplog: pytest.LogCaptureFixture
) -> None:
    # One Workload with a lone surrogate (escaped, as proxies and other servers write it; the API server writes
    # U+FFFD): the JSON decoder refuses its watch line, and the LIST page that holds it. Fails if the informer
    # relists and backs off for ever (the later change is never seen), if that Workload is answered from its
    # last readable version, or if it is dropped without a word (no record by name, no count, no log line).
    api.add(_workload("bad"))
    api.add(_workload("good"))
    async with _cache(client) as cache:
        await wait_ready(cache, 10)
        await api.wait_for_request(path=WORKLOADS, watch=True)
        broken = _workload("bad")
        broken["metadata"]["annotations"] = {"note": "broken \ud800 text"}
        api.update(broken)
        api.add(_workload("later"))
        informer = cache.informers["Workload"]
        await wait_for(cache, lambda: _names(cache) == {"good", "later"})
        assert informer.unreadable == 1 and informer.lists == 1 and "Workload" not in cache.errors
        assert [(u.name, u.reason) for u in cache.unreadable_in(NS)] == [
            ("bad", "it holds text that is not valid Unicode")
        ]
        assert any(r.getMessage() == "skipped an object the bot cannot read" for r in caplog.records)
        # A relist reads the page that holds it: the others are read, it is named unreadable again.
        api.fail_next(status=410, path=WORKLOADS, watch=True, message="too old resource version")
        api.drop_watches()
        await wait_for(cache, lambda: informer.lists == 2)
        api.add(_workload("last"))
        await wait_for(cache, lambda: _names(cache) == {"good", "later", "last"})
        assert [u.name for u in cache.unreadable_in(NS)] == ["bad"] and informer.unreadable == 2
