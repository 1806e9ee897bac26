"""The fake Kubernetes API server, driven by the official `kubernetes` client and by aiohttp."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import pytest
import urllib3
import yaml
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes import watch as k8s_watch
from kubernetes.client.exceptions import ApiException

from tests.fakes.kube_api import FakeKubeAPI, rules_from_cluster_role
from tests.paths import SCENARIOS

TOKEN = "t0k3n"
KUEUE = "kueue.x-k8s.io"
VISIBILITY = "/apis/visibility.kueue.x-k8s.io"


# -------------------------------------------------------------------------------------------------
# Objects


def namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def pod(ns: str, name: str, labels: dict[str, str] | None = None, phase: str = "Pending") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
        "spec": {"containers": [{"name": "main", "image": "busybox"}]},
        "status": {"phase": phase},
    }


def job(ns: str, name: str) -> dict[str, Any]:
    template = {"spec": {"containers": [{"name": "main", "image": "busybox"}], "restartPolicy": "Never"}}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": ns, "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
        "spec": {"template": template},
    }


def event(ns: str, name: str, kind: str, about: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": ns},
        "involvedObject": {"kind": kind, "name": about, "namespace": ns},
        "reason": "Created",
        "type": "Normal",
    }


def cluster_queue(name: str, version: str = "v1beta2") -> dict[str, Any]:
    flavors = [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": 10}]}]
    return {
        "apiVersion": f"{KUEUE}/{version}",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": flavors}]},
    }


def local_queue(ns: str, name: str, cq: str) -> dict[str, Any]:
    return {
        "apiVersion": f"{KUEUE}/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"clusterQueue": cq},
    }


def workload(
    ns: str,
    name: str,
    queue: str,
    *,
    priority: int = 0,
    created: str = "2026-10-14T10:00:00Z",
    uid: str | None = None,
    conditions: list[dict[str, Any]] | None = None,
    active: bool = True,
) -> dict[str, Any]:
    container = {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": ns,
        "creationTimestamp": created,
        "uid": uid or f"uid-{name}",
    }
    metadata["ownerReferences"] = [
        {"apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": f"job-{name}", "controller": True}
    ]
    return {
        "apiVersion": f"{KUEUE}/v1beta2",
        "kind": "Workload",
        "metadata": metadata,
        "spec": {
            "active": active,
            "queueName": queue,
            "priority": priority,
            "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [container]}}}],
        },
        "status": {"conditions": conditions or []},
    }


def condition(kind: str, status: str, reason: str, at: str = "2026-10-14T10:00:00Z") -> dict[str, Any]:
    return {"type": kind, "status": status, "reason": reason, "message": reason, "lastTransitionTime": at}


# -------------------------------------------------------------------------------------------------
# Fixtures and helpers


pytestmark = pytest.mark.fake_kube(token=TOKEN, bookmark_interval=0.1)


@pytest.fixture
async def http(api: FakeKubeAPI) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(api.url, headers={"Authorization": f"Bearer {TOKEN}"}) as session:
        yield session


T = TypeVar("T")


def present(value: T | None) -> T:
    """A field the server always sends (the client's models declare every field optional)."""
    assert value is not None
    return value


@contextmanager
def kube_client(api: FakeKubeAPI, tmp_path: Path, token: str | None = None) -> Iterator[k8s.ApiClient]:
    """An official client configured from the fake's kubeconfig, as the bot's `bot.kube` will be."""
    kubeconfig = api.write_kubeconfig(tmp_path / f"kubeconfig-{token or 'admin'}", token=token)
    api_client = k8s_config.new_client_from_config(config_file=str(kubeconfig))  # type: ignore[no-untyped-call]
    try:
        yield api_client
    finally:
        api_client.close()


async def get_json(http: aiohttp.ClientSession, path: str, status: int = 200) -> Any:
    async with http.get(path) as response:
        assert response.status == status, await response.text()
        return await response.json()


def status_of(error: ApiException) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(present(error.body))
    return body


class WatchReader:
    """Reads a watch stream's newline-delimited JSON events."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self.response = response

    async def next(self) -> dict[str, Any]:
        async with asyncio.timeout(5):
            line = await self.response.content.readline()
        assert line, "the watch stream ended"
        event: dict[str, Any] = json.loads(line)
        return event

    async def next_of(self, kind: str) -> dict[str, Any]:
        while (found := await self.next())["type"] != kind:
            pass
        return found


@contextmanager
def raises_api(status: int) -> Iterator[list[dict[str, Any]]]:
    """Expect an ApiException with this HTTP status; yields [its Status body]."""
    body: list[dict[str, Any]] = []
    with pytest.raises(ApiException) as caught:
        yield body
    assert caught.value.status == status, caught.value
    body.append(status_of(caught.value))


# -------------------------------------------------------------------------------------------------
# Discovery and served kinds


async def test_discovery_lists_groups_versions_and_resources(http: aiohttp.ClientSession) -> None:
    assert (await get_json(http, "/api"))["versions"] == ["v1"]
    groups = {g["name"]: g for g in (await get_json(http, "/apis"))["groups"]}
    assert groups[KUEUE]["preferredVersion"]["version"] == "v1beta2"
    assert [v["version"] for v in groups["visibility.kueue.x-k8s.io"]["versions"]] == ["v1beta2", "v1beta1"]
    assert {"batch", "apps", "coordination.k8s.io", "ray.io", "kubeflow.org", "jobset.x-k8s.io"} <= set(groups)
    resources = {r["name"]: r for r in (await get_json(http, f"/apis/{KUEUE}/v1beta2"))["resources"]}
    assert resources["workloads"]["namespaced"] is True
    assert resources["workloads"]["shortNames"] == ["kwl", "kueueworkload", "kueueworkloads"]
    assert resources["clusterqueues"]["namespaced"] is False
    assert "workloads/status" in resources
    core = {r["name"] for r in (await get_json(http, "/api/v1"))["resources"]}
    assert {"pods", "events", "namespaces", "nodes", "configmaps"} <= core
    visibility = {r["name"] for r in (await get_json(http, f"{VISIBILITY}/v1beta2"))["resources"]}
    assert {"clusterqueues/pendingworkloads", "localqueues/pendingworkloads"} <= visibility
    assert (await get_json(http, "/version"))["gitVersion"].startswith("v1.")


async def test_a_job_crd_that_is_not_installed_answers_404_and_is_absent_from_discovery(tmp_path: Path) -> None:
    async with FakeKubeAPI(token=TOKEN, job_kinds={"JobSet"}) as api:
        with kube_client(api, tmp_path) as api_client:
            custom = k8s.CustomObjectsApi(api_client)
            listed = await asyncio.to_thread(
                custom.list_namespaced_custom_object, "jobset.x-k8s.io", "v1alpha2", "a", "jobsets"
            )
            assert isinstance(listed, dict) and listed["items"] == []
            with raises_api(404) as body:
                await asyncio.to_thread(custom.list_namespaced_custom_object, "ray.io", "v1", "a", "rayjobs")
            assert body[0]["message"] == "the server could not find the requested resource"
            groups = await asyncio.to_thread(k8s.ApisApi(api_client).get_api_versions)
        assert {"jobset.x-k8s.io"} <= {g.name for g in groups.groups}
        assert "ray.io" not in {g.name for g in groups.groups}
        with pytest.raises(ValueError, match="not served"):
            api.add({"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "r", "namespace": "a"}})


async def test_an_old_cluster_serves_only_kueue_v1beta1(tmp_path: Path) -> None:
    async with FakeKubeAPI(token=TOKEN, kueue_versions=("v1beta1",)) as api:
        added = api.load_dump(SCENARIOS / "v1beta1-legacy" / "cluster.yaml")
        assert {o["apiVersion"] for o in added if o["kind"] == "Workload"} == {f"{KUEUE}/v1beta1"}
        with pytest.raises(ValueError, match="not served"):
            api.add(cluster_queue("new", "v1beta2"))
        with kube_client(api, tmp_path) as api_client:
            custom = k8s.CustomObjectsApi(api_client)
            listed = await asyncio.to_thread(custom.list_cluster_custom_object, KUEUE, "v1beta1", "workloads")
            assert isinstance(listed, dict)
            assert len(listed["items"]) == sum(o["kind"] == "Workload" for o in added)
            assert all(item["apiVersion"] == f"{KUEUE}/v1beta1" for item in listed["items"])
            with raises_api(404):
                await asyncio.to_thread(custom.list_cluster_custom_object, KUEUE, "v1beta2", "workloads")
            group_list = await asyncio.to_thread(k8s.ApisApi(api_client).get_api_versions)
        versions = {g.name: [v.version for v in g.versions] for g in group_list.groups}
        assert versions[KUEUE] == ["v1beta1"]
        assert versions["visibility.kueue.x-k8s.io"] == ["v1beta1"]
        async with aiohttp.ClientSession(api.url, headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            await get_json(http, f"{VISIBILITY}/v1beta2/clusterqueues/cpu-batch/pendingworkloads", 404)
            await get_json(http, f"{VISIBILITY}/v1beta1/clusterqueues/cpu-batch/pendingworkloads")


async def test_kueue_objects_are_served_at_the_version_asked(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    api.add(cluster_queue("cq"))
    old = await get_json(http, f"/apis/{KUEUE}/v1beta1/clusterqueues/cq")
    new = await get_json(http, f"/apis/{KUEUE}/v1beta2/clusterqueues/cq")
    assert (old["apiVersion"], new["apiVersion"]) == (f"{KUEUE}/v1beta1", f"{KUEUE}/v1beta2")
    assert old["metadata"] == new["metadata"]


@pytest.mark.parametrize("scenario", sorted(p.name for p in SCENARIOS.iterdir() if p.is_dir()))
async def test_every_scenario_dump_loads(scenario: str) -> None:
    async with FakeKubeAPI() as api:
        added = api.load_dump(SCENARIOS / scenario / "cluster.yaml")
    assert any(o["kind"] == "Workload" for o in added) or scenario == "not-managed"
    resource_versions = [int(o["metadata"]["resourceVersion"]) for o in added]
    assert resource_versions == sorted(set(resource_versions)), "every write bumps the resourceVersion"


# -------------------------------------------------------------------------------------------------
# Reads


async def test_get_and_a_404_body_through_the_official_client(api: FakeKubeAPI, tmp_path: Path) -> None:
    stored = api.add(job("team-a", "train"))
    with kube_client(api, tmp_path) as api_client:
        batch = k8s.BatchV1Api(api_client)
        found = await asyncio.to_thread(batch.read_namespaced_job, "train", "team-a")
        metadata = present(found.metadata)
        assert (metadata.name, metadata.uid) == ("train", stored["metadata"]["uid"])
        assert metadata.resource_version == stored["metadata"]["resourceVersion"]
        with raises_api(404) as body:
            await asyncio.to_thread(batch.read_namespaced_job, "x", "team-a")
    assert body[0] == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'jobs.batch "x" not found',
        "reason": "NotFound",
        "details": {"name": "x", "group": "batch", "kind": "jobs"},
        "code": 404,
    }


async def test_list_pages_with_limit_and_continue(api: FakeKubeAPI, tmp_path: Path) -> None:
    for ns, name in [("b", "p1"), ("a", "p2"), ("a", "p1"), ("c", "p0"), ("b", "p0"), ("a", "p3"), ("c", "p9")]:
        api.add(pod(ns, name))
    with kube_client(api, tmp_path) as api_client:
        core = k8s.CoreV1Api(api_client)
        seen: list[str] = []
        token: str | None = None
        pages, versions = 0, set()
        while True:
            page = await asyncio.to_thread(core.list_pod_for_all_namespaces, limit=3, _continue=token)
            pages += 1
            seen += [f"{present(p.metadata).namespace}/{present(p.metadata).name}" for p in page.items]
            list_meta = present(page.metadata)
            versions.add(list_meta.resource_version)
            token = list_meta._continue
            if not token:
                break
            assert list_meta.remaining_item_count == 7 - len(seen)
        in_a = await asyncio.to_thread(core.list_namespaced_pod, "a")
    assert seen == ["a/p1", "a/p2", "a/p3", "b/p0", "b/p1", "c/p0", "c/p9"]
    assert (pages, versions) == (3, {str(api.resource_version)})
    assert [present(p.metadata).name for p in in_a.items] == ["p1", "p2", "p3"]


async def test_pages_of_one_namespace_and_of_a_selector(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    """A page reads its own range: one namespace's objects only (not a namespace its name prefixes), those the
    selector keeps (and then no remainingItemCount, as a real server), from after the continue token's key."""
    for ns in ("a", "a-b", "a0", "b"):
        for index in range(5):
            api.add(pod(ns, f"p{index}", {"odd": str(index % 2)}))

    async def every(path: str) -> tuple[list[str], list[int | None]]:
        names: list[str] = []
        remaining: list[int | None] = []
        page = await get_json(http, path)
        while True:
            names += [f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in page["items"]]
            token = page["metadata"].get("continue")
            if not token:
                return names, remaining
            remaining.append(page["metadata"].get("remainingItemCount"))
            page = await get_json(http, f"{path}&continue={token}")

    assert await every("/api/v1/namespaces/a/pods?limit=2") == ([f"a/p{i}" for i in range(5)], [3, 1])
    assert await every("/api/v1/namespaces/a-b/pods?limit=1&labelSelector=odd%3D1") == (["a-b/p1", "a-b/p3"], [None])
    odd, _ = await every("/api/v1/pods?limit=3&labelSelector=odd%3D0")
    assert odd == [f"{ns}/p{i}" for ns in ("a", "a-b", "a0", "b") for i in (0, 2, 4)]


async def test_pages_are_consistent_with_the_first_one(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    for name in ("a", "b", "c"):
        api.add(pod("ns", name))
    first = await get_json(http, "/api/v1/namespaces/ns/pods?limit=1")
    api.delete("Pod", "ns", "b")
    api.add(pod("ns", "bb"))
    rest = await get_json(http, f"/api/v1/namespaces/ns/pods?limit=5&continue={first['metadata']['continue']}")
    assert [p["metadata"]["name"] for p in rest["items"]] == ["b", "c"]
    assert rest["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    assert "kind" not in rest["items"][0], "items of built-in lists carry no kind, as on a real server"


async def test_a_continue_token_older_than_the_history_is_410_expired() -> None:
    async with FakeKubeAPI(history_window=2) as api, aiohttp.ClientSession(api.url) as session:
        for name in ("a", "b", "c"):
            api.add(pod("ns", name))
        first = await get_json(session, "/api/v1/pods?limit=1")
        for name in ("d", "e", "f"):
            api.add(pod("ns", name))
        expired = await get_json(session, f"/api/v1/pods?limit=1&continue={first['metadata']['continue']}", 410)
    assert (expired["reason"], expired["code"]) == ("Expired", 410)
    assert expired["message"].startswith("The provided continue parameter is too old")


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        pytest.param("labelSelector=app=web", ["w1", "w2"], id="equality"),
        pytest.param("labelSelector=app==web,tier=front", ["w1"], id="double-equals-and"),
        pytest.param("labelSelector=app!=web", ["db", "plain"], id="not-equal-includes-missing"),
        pytest.param("labelSelector=app in (web,db)", ["db", "w1", "w2"], id="in"),
        pytest.param("labelSelector=app notin (web)", ["db", "plain"], id="notin"),
        pytest.param("labelSelector=tier", ["db", "w1"], id="exists"),
        pytest.param("labelSelector=!tier", ["plain", "w2"], id="not-exists"),
        pytest.param("fieldSelector=metadata.name=w2", ["w2"], id="field-name"),
        pytest.param("fieldSelector=status.phase!=Running", ["db", "plain"], id="field-not-equal"),
        pytest.param("fieldSelector=metadata.namespace=ns,status.phase=Running&labelSelector=tier", ["w1"], id="both"),
    ],
)
async def test_label_and_field_selectors(
    api: FakeKubeAPI, http: aiohttp.ClientSession, selector: str, expected: list[str]
) -> None:
    api.add(pod("ns", "w1", {"app": "web", "tier": "front"}, phase="Running"))
    api.add(pod("ns", "w2", {"app": "web"}, phase="Running"))
    api.add(pod("ns", "db", {"app": "db", "tier": "back"}))
    api.add(pod("ns", "plain"))
    listed = await get_json(http, f"/api/v1/pods?{selector}")
    assert [p["metadata"]["name"] for p in listed["items"]] == expected


@pytest.mark.parametrize(
    ("query", "message"),
    [
        pytest.param("labelSelector=app in web", "unable to parse requirement", id="bad-label-selector"),
        pytest.param("fieldSelector=spec.image=x", "field label not supported: spec.image", id="unknown-field"),
    ],
)
async def test_bad_selectors_are_400(http: aiohttp.ClientSession, query: str, message: str) -> None:
    body = await get_json(http, f"/api/v1/pods?{query}", 400)
    assert (body["reason"], body["code"]) == ("BadRequest", 400)
    assert message in body["message"]


async def test_events_select_on_the_involved_object(api: FakeKubeAPI, tmp_path: Path) -> None:
    api.add(event("ns", "e1", "Job", "train"))
    api.add(event("ns", "e2", "Workload", "job-train-1a2b3"))
    api.add(event("ns", "e3", "Job", "other"))
    with kube_client(api, tmp_path) as api_client:
        core = k8s.CoreV1Api(api_client)
        found = await asyncio.to_thread(
            core.list_namespaced_event, "ns", field_selector="involvedObject.kind=Job,involvedObject.name=train"
        )
    assert [e.metadata.name for e in found.items] == ["e1"]


# -------------------------------------------------------------------------------------------------
# Watch


async def test_watch_through_the_official_client(api: FakeKubeAPI, tmp_path: Path) -> None:
    api.add(namespace("ns"))
    start = str(api.resource_version)

    def watch_three(api_client: k8s.ApiClient) -> list[tuple[str, str, str]]:
        watcher = k8s_watch.Watch()  # type: ignore[no-untyped-call]
        seen = []
        stream = watcher.stream(  # type: ignore[no-untyped-call]
            k8s.CoreV1Api(api_client).list_namespaced_config_map, "ns", resource_version=start, timeout_seconds=10
        )
        for item in stream:
            seen.append((item["type"], item["object"].metadata.name, item["object"].data["k"]))
            if len(seen) == 3:
                watcher.stop()  # type: ignore[no-untyped-call]
        return seen

    with kube_client(api, tmp_path) as api_client:
        watching = asyncio.create_task(asyncio.to_thread(watch_three, api_client))
        await api.wait_for_request(path="/api/v1/namespaces/ns/configmaps", watch=True)
        config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "ns"}}
        api.add(config_map | {"data": {"k": "1"}})
        api.update(config_map | {"data": {"k": "2"}})
        api.delete("ConfigMap", "ns", "c")
        seen = await watching
    assert seen == [("ADDED", "c", "1"), ("MODIFIED", "c", "2"), ("DELETED", "c", "2")]


async def test_watch_sends_bookmarks_and_initial_events(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    api.add(pod("ns", "old"))
    query = "watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
    async with http.get(f"/api/v1/namespaces/ns/pods?{query}") as response:
        stream = WatchReader(response)
        first = await stream.next()
        assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "old")
        end = await stream.next()
        assert end["type"] == "BOOKMARK"
        assert end["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
        added = api.add(pod("ns", "new"))
        assert (await stream.next_of("ADDED"))["object"]["metadata"]["name"] == "new"
        bookmark = await stream.next_of("BOOKMARK")
    assert bookmark["object"] == {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": added["metadata"]["resourceVersion"]},
    }


async def test_a_quiet_kind_gets_no_bookmark_until_it_changes(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    """As kube-apiserver's cacher: a bookmark is sent only once its resourceVersion is newer than the watch's,
    i.e. once this resource changed; other kinds' changes move nothing (cache_watcher.go, process())."""
    listed = await get_json(http, "/api/v1/pods")
    rv = listed["metadata"]["resourceVersion"]
    query = f"watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion={rv}"
    async with http.get(f"/api/v1/namespaces/ns/pods?{query}") as response:
        api.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "busy"}})
        api.add({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "busy"}})
        async with asyncio.timeout(5):
            quiet = await response.read()  # the whole stream: it ends at its timeoutSeconds
    assert quiet == b""
    async with http.get(f"/api/v1/namespaces/ns/pods?{query}") as response:
        added = api.add(pod("elsewhere", "p"))  # another namespace: no event here, but the resource changed
        stream = WatchReader(response)
        bookmark = await stream.next()
    assert bookmark["type"] == "BOOKMARK"
    assert bookmark["object"]["metadata"] == {"resourceVersion": added["metadata"]["resourceVersion"]}


@pytest.mark.parametrize(
    "query",
    [
        pytest.param("sendInitialEvents=true&allowWatchBookmarks=true", id="initial-events-without-match"),
        pytest.param("resourceVersionMatch=NotOlderThan", id="match-without-initial-events"),
    ],
)
async def test_watch_options_are_validated_as_the_server_does(http: aiohttp.ClientSession, query: str) -> None:
    async with http.get(f"/api/v1/pods?watch=true&{query}") as response:
        assert response.status == 422
        body = await response.json()
    assert body["reason"] == "Invalid" and "resourceVersionMatch" in body["message"]


async def test_watch_resumes_from_a_resource_version(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    api.add(pod("ns", "a"))
    listed = await get_json(http, "/api/v1/pods")
    api.add(pod("ns", "b"))
    api.add(pod("other", "c"))
    rv = listed["metadata"]["resourceVersion"]
    async with http.get(f"/api/v1/namespaces/ns/pods?watch=true&resourceVersion={rv}") as response:
        replayed = await WatchReader(response).next()
    assert (replayed["type"], replayed["object"]["metadata"]["name"]) == ("ADDED", "b")


async def test_an_object_leaving_a_watched_selector_is_deleted(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    api.add(pod("ns", "p", {"app": "web"}))
    async with http.get("/api/v1/pods?watch=1&labelSelector=app%3Dweb") as response:
        stream = WatchReader(response)
        assert (await stream.next())["type"] == "ADDED"
        api.update(pod("ns", "p", {"app": "db"}))
        left = await stream.next()
        api.update(pod("ns", "p", {"app": "web"}))
        back = await stream.next()
    assert (left["type"], left["object"]["metadata"]["labels"]) == ("DELETED", {"app": "web"})
    assert (back["type"], back["object"]["metadata"]["labels"]) == ("ADDED", {"app": "web"})


async def test_watch_from_a_compacted_resource_version_is_410(api: FakeKubeAPI, tmp_path: Path) -> None:
    api.add(namespace("ns"))
    old = str(api.resource_version)
    api.add(pod("ns", "p"))
    api.compact()
    with kube_client(api, tmp_path) as api_client:
        core = k8s.CoreV1Api(api_client)
        with pytest.raises(ApiException) as caught:
            watcher = k8s_watch.Watch()  # type: ignore[no-untyped-call]
            stream = watcher.stream(core.list_namespaced_pod, "ns", resource_version=old, timeout_seconds=5)  # type: ignore[no-untyped-call]
            await asyncio.to_thread(next, stream)
    assert caught.value.status == 410
    assert caught.value.reason == f"Expired: too old resource version: {old} ({api.resource_version})"


async def test_the_next_watch_can_be_made_to_expire(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    api.expire_next_watch()
    async with http.get("/api/v1/pods?watch=1") as response:
        error = await WatchReader(response).next()
        assert await response.content.read() == b"", "the stream ends after the error"
    assert error["type"] == "ERROR"
    assert (error["object"]["kind"], error["object"]["code"], error["object"]["reason"]) == ("Status", 410, "Expired")
    async with http.get("/api/v1/pods?watch=1") as response:
        api.add(pod("ns", "p"))
        assert (await WatchReader(response).next())["type"] == "ADDED", "the next watch is a normal one"


# -------------------------------------------------------------------------------------------------
# Writes


async def test_writes_with_optimistic_concurrency(api: FakeKubeAPI, tmp_path: Path) -> None:
    api.add(namespace("bot"))
    lease = k8s.V1Lease(metadata=k8s.V1ObjectMeta(name="leader"), spec=k8s.V1LeaseSpec(holder_identity="a"))
    with kube_client(api, tmp_path) as api_client:
        leases = k8s.CoordinationV1Api(api_client)
        created = await asyncio.to_thread(leases.create_namespaced_lease, "bot", lease)
        with raises_api(409) as exists:
            await asyncio.to_thread(leases.create_namespaced_lease, "bot", lease)
        present(created.spec).holder_identity = "b"
        replaced = await asyncio.to_thread(leases.replace_namespaced_lease, "leader", "bot", created)
        present(created.spec).holder_identity = "c"
        with raises_api(409) as conflict:
            await asyncio.to_thread(leases.replace_namespaced_lease, "leader", "bot", created)
        patched = await asyncio.to_thread(
            leases.patch_namespaced_lease, "leader", "bot", {"spec": {"leaseDurationSeconds": 15}}
        )
        with raises_api(404) as no_namespace:
            await asyncio.to_thread(leases.create_namespaced_lease, "elsewhere", lease)
        await asyncio.to_thread(leases.delete_namespaced_lease, "leader", "bot")
        with raises_api(404):
            await asyncio.to_thread(leases.read_namespaced_lease, "leader", "bot")
    assert exists[0]["reason"] == "AlreadyExists"
    assert exists[0]["message"] == 'leases.coordination.k8s.io "leader" already exists'
    assert int(present(present(replaced.metadata).resource_version)) > int(
        present(present(created.metadata).resource_version)
    )
    assert conflict[0]["reason"] == "Conflict"
    assert conflict[0]["message"].startswith('Operation cannot be fulfilled on leases.coordination.k8s.io "leader"')
    assert (present(patched.spec).holder_identity, present(patched.spec).lease_duration_seconds) == ("b", 15)
    assert no_namespace[0]["message"] == 'namespaces "elsewhere" not found'
    assert api.get("Lease", "bot", "leader") is None


async def test_status_subresource_json_patch_and_finalizers(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    finalized = workload("ns", "wl", "q")
    finalized["metadata"]["finalizers"] = ["kueue.x-k8s.io/resource-in-use"]
    stored = api.add(finalized)
    path = f"/apis/{KUEUE}/v1beta2/namespaces/ns/workloads/wl"
    reserved = {"status": {"conditions": [condition("QuotaReserved", "True", "QuotaReserved")]}}
    merge = {"Content-Type": "application/merge-patch+json"}
    async with http.patch(f"{path}/status", json=reserved, headers=merge) as response:
        assert response.status == 200, await response.text()
    async with http.patch(path, json={"status": {"conditions": []}, "spec": {"active": False}}, headers=merge) as r:
        main = await r.json()
    assert main["spec"]["active"] is False
    assert main["status"] == reserved["status"], "the main resource does not change the status"
    assert main["metadata"]["generation"] == stored["metadata"]["generation"] + 1
    json_patch = [
        {"op": "test", "path": "/spec/priority", "value": 0},
        {"op": "replace", "path": "/spec/priority", "value": 5},
    ]
    async with http.patch(path, json=json_patch, headers={"Content-Type": "application/json-patch+json"}) as r:
        assert (await r.json())["spec"]["priority"] == 5
    async with http.delete(path) as response:
        marked = await response.json()
    assert "deletionTimestamp" in marked["metadata"], "a finalizer holds the object"
    async with http.patch(path, json={"metadata": {"finalizers": None}}, headers=merge) as response:
        assert response.status == 200
    await get_json(http, path, 404)


async def test_kueue_objects_that_do_not_validate_are_refused(api: FakeKubeAPI, tmp_path: Path) -> None:
    bad = cluster_queue("cq")
    bad["spec"]["cohort"] = "old-field"  # v1beta1's name; v1beta2 says cohortName
    bad["spec"]["queueingStrategy"] = "Fastest"
    with pytest.raises(ValueError, match=r'ClusterQueue.kueue.x-k8s.io "cq" is invalid: \[spec.cohort: Forbidden'):
        api.add(bad)
    with kube_client(api, tmp_path) as api_client:
        custom = k8s.CustomObjectsApi(api_client)
        with raises_api(422) as invalid:
            await asyncio.to_thread(custom.create_cluster_custom_object, KUEUE, "v1beta2", "clusterqueues", bad)
        created = await asyncio.to_thread(
            custom.create_cluster_custom_object, KUEUE, "v1beta2", "clusterqueues", cluster_queue("cq")
        )
    assert isinstance(created, dict)
    assert invalid[0]["reason"] == "Invalid"
    assert invalid[0]["details"]["kind"] == "ClusterQueue"
    assert [c["field"] for c in invalid[0]["details"]["causes"]] == ["spec.cohort", "spec.queueingStrategy"]
    assert invalid[0]["details"]["causes"][1]["reason"] == "FieldValueNotSupported"
    assert created["metadata"]["uid"] and created["metadata"]["generation"] == 1


# -------------------------------------------------------------------------------------------------
# Kueue's pending-workloads API


def small_cluster(api: FakeKubeAPI) -> None:
    """One ClusterQueue, two LocalQueues, four pending Workloads and three that are not pending."""
    api.add(cluster_queue("shared"))
    api.add(local_queue("team-a", "lq-a", "shared"))
    api.add(local_queue("team-b", "lq-b", "shared"))
    api.add(workload("team-a", "a-low-old", "lq-a", priority=0, created="2026-10-14T09:00:00Z"))
    api.add(workload("team-a", "a-high", "lq-a", priority=100, created="2026-10-14T10:00:00Z"))
    api.add(workload("team-b", "b-low-new", "lq-b", priority=0, created="2026-10-14T09:30:00Z"))
    evicted = condition("Evicted", "True", "PodsReadyTimeout", at="2026-10-14T11:00:00Z")
    api.add(workload("team-b", "b-requeued", "lq-b", created="2026-10-14T08:00:00Z", conditions=[evicted]))
    api.add(workload("team-a", "admitted", "lq-a", conditions=[condition("QuotaReserved", "True", "QuotaReserved")]))
    api.add(workload("team-a", "finished", "lq-a", conditions=[condition("Finished", "True", "Succeeded")]))
    api.add(workload("team-b", "inactive", "lq-b", active=False))


def positions(summary: dict[str, Any]) -> list[tuple[str, str, int, int]]:
    return [
        (i["metadata"]["name"], i["localQueueName"], i["positionInClusterQueue"], i["positionInLocalQueue"])
        for i in summary["items"]
    ]


async def test_pending_workloads_positions_are_computed_as_kueue_does(
    api: FakeKubeAPI, http: aiohttp.ClientSession
) -> None:
    small_cluster(api)
    in_cq = await get_json(http, f"{VISIBILITY}/v1beta2/clusterqueues/shared/pendingworkloads")
    assert positions(in_cq) == [
        ("a-high", "lq-a", 0, 0),
        ("a-low-old", "lq-a", 1, 1),
        ("b-low-new", "lq-b", 2, 0),
        ("b-requeued", "lq-b", 3, 1),  # its queue-order time is the PodsReady-timeout eviction
    ]
    first = in_cq["items"][0]
    assert first["priority"] == 100
    assert first["metadata"] == {
        "name": "a-high",
        "namespace": "team-a",
        "creationTimestamp": "2026-10-14T10:00:00Z",
        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "a-high", "uid": "job-a-high"}],
    }
    assert (in_cq["kind"], in_cq["apiVersion"]) == ("PendingWorkloadsSummary", "visibility.kueue.x-k8s.io/v1beta2")
    in_lq = await get_json(http, f"{VISIBILITY}/v1beta1/namespaces/team-b/localqueues/lq-b/pendingworkloads")
    assert positions(in_lq) == [("b-low-new", "lq-b", 2, 0), ("b-requeued", "lq-b", 3, 1)]
    paged = await get_json(http, f"{VISIBILITY}/v1beta2/clusterqueues/shared/pendingworkloads?limit=2&offset=1")
    assert positions(paged) == [("a-low-old", "lq-a", 1, 1), ("b-low-new", "lq-b", 2, 0)]
    paged_lq = await get_json(
        http, f"{VISIBILITY}/v1beta2/namespaces/team-b/localqueues/lq-b/pendingworkloads?offset=1"
    )
    assert positions(paged_lq) == [("b-requeued", "lq-b", 3, 1)]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("clusterqueues/nope/pendingworkloads", 'clusterqueue.visibility.kueue.x-k8s.io "nope" not found'),
        (
            "namespaces/team-a/localqueues/nope/pendingworkloads",
            'localqueue.visibility.kueue.x-k8s.io "nope" not found',
        ),
    ],
)
async def test_pending_workloads_of_an_unknown_queue_is_404(
    api: FakeKubeAPI, http: aiohttp.ClientSession, path: str, message: str
) -> None:
    small_cluster(api)
    assert (await get_json(http, f"{VISIBILITY}/v1beta2/{path}", 404))["message"] == message


async def test_a_summary_in_a_dump_is_the_answer_for_its_queues(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    dump = SCENARIOS / "waiting-for-quota-visibility-api" / "cluster.yaml"
    api.load_dump(dump)
    in_lq = await get_json(http, f"{VISIBILITY}/v1beta2/namespaces/genomics/localqueues/seq-queue/pendingworkloads")
    recorded = next(d for d in yaml.safe_load_all(dump.read_text()) if d["kind"] == "PendingWorkloadsSummary")
    assert in_lq["items"] == [i for i in recorded["items"] if i["localQueueName"] == "seq-queue"]
    in_cq = await get_json(http, f"{VISIBILITY}/v1beta2/clusterqueues/h100-shared/pendingworkloads?limit=1&offset=2")
    assert positions(in_cq) == [("job-tumor-wgs-batch-0412-757ce", "seq-queue", 2, 0)]
    api.clear_pending_workloads()
    computed = await get_json(http, f"{VISIBILITY}/v1beta2/clusterqueues/h100-shared/pendingworkloads?limit=1")
    assert positions(computed) == [("job-tumor-wgs-batch-0412-757ce", "seq-queue", 0, 0)], "priority first"


# -------------------------------------------------------------------------------------------------
# Authentication and authorization


async def test_a_missing_or_wrong_token_is_401(api: FakeKubeAPI, tmp_path: Path) -> None:
    with kube_client(api, tmp_path, token="wrong") as api_client, raises_api(401) as body:
        await asyncio.to_thread(k8s.CoreV1Api(api_client).list_namespace)
    assert body[0] == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Unauthorized",
        "reason": "Unauthorized",
        "code": 401,
    }
    async with aiohttp.ClientSession(api.url) as anonymous:
        assert (await get_json(anonymous, "/api/v1/pods", 401))["reason"] == "Unauthorized"


BOT_ROLE = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kueue-bot-reader
rules:
- apiGroups: [""]
  resources: [pods, events, namespaces]
  verbs: [get, list, watch]
- apiGroups: [batch]
  resources: [jobs]
  verbs: [get, list, watch]
- apiGroups: [kueue.x-k8s.io]
  resources: ["*"]
  verbs: [get, list, watch]
- apiGroups: [visibility.kueue.x-k8s.io]
  resources: [clusterqueues/pendingworkloads]
  verbs: [get]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  resourceNames: [kueue-bot]
  verbs: [get, update]
"""
BOT_USER = "system:serviceaccount:kueue-bot:kueue-bot"


@pytest.fixture
def bot_identity(api: FakeKubeAPI, tmp_path: Path) -> str:
    role = tmp_path / "clusterrole.yaml"
    role.write_text(BOT_ROLE)
    api.add_identity("bot-token", BOT_USER, rules_from_cluster_role(role))
    return "bot-token"


@pytest.mark.parametrize(
    ("method", "path", "forbidden"),
    [
        ("GET", "/apis/batch/v1/namespaces/ns/jobs", None),
        ("GET", f"/apis/{KUEUE}/v1beta2/workloads?watch=1&timeoutSeconds=0", None),
        ("GET", f"{VISIBILITY}/v1beta2/clusterqueues/shared/pendingworkloads", None),
        ("GET", "/apis/coordination.k8s.io/v1/namespaces/kueue-bot/leases/kueue-bot", "404"),
        (
            "DELETE",
            "/apis/batch/v1/namespaces/ns/jobs/train",
            'jobs.batch "train" is forbidden: User "{user}" cannot delete resource "jobs" in API group "batch" '
            'in the namespace "ns"',
        ),
        (
            "GET",
            "/api/v1/namespaces/ns/secrets",
            'secrets is forbidden: User "{user}" cannot list resource "secrets" in API group "" in the namespace "ns"',
        ),
        (
            "GET",
            "/api/v1/nodes",
            'nodes is forbidden: User "{user}" cannot list resource "nodes" in API group "" at the cluster scope',
        ),
        (
            "GET",
            f"{VISIBILITY}/v1beta2/namespaces/team-a/localqueues/lq-a/pendingworkloads",
            'localqueues.visibility.kueue.x-k8s.io "lq-a" is forbidden: User "{user}" cannot get resource '
            '"localqueues/pendingworkloads" in API group "visibility.kueue.x-k8s.io" in the namespace "team-a"',
        ),
        (
            "GET",
            "/apis/coordination.k8s.io/v1/namespaces/kueue-bot/leases/other",
            'leases.coordination.k8s.io "other" is forbidden: User "{user}" cannot get resource "leases" in API '
            'group "coordination.k8s.io" in the namespace "kueue-bot"',
        ),
    ],
)
async def test_rbac_of_a_cluster_role(
    api: FakeKubeAPI, bot_identity: str, method: str, path: str, forbidden: str | None
) -> None:
    small_cluster(api)
    async with (
        aiohttp.ClientSession(api.url, headers={"Authorization": f"Bearer {bot_identity}"}) as session,
        session.request(method, path) as response,
    ):
        text = await response.text()
    if forbidden is None:
        assert response.status == 200, text
    elif forbidden == "404":
        assert response.status == 404, "allowed, and not found"
    else:
        assert response.status == 403
        body = json.loads(text)
        assert (body["reason"], body["message"]) == ("Forbidden", forbidden.format(user=BOT_USER))
    assert api.requests[-1].user == BOT_USER


async def test_subject_access_reviews_use_the_identities(api: FakeKubeAPI, bot_identity: str, tmp_path: Path) -> None:
    def review(user: str, verb: str, resource: str, group: str = KUEUE) -> k8s.V1SubjectAccessReview:
        attributes = k8s.V1ResourceAttributes(verb=verb, group=group, resource=resource, namespace="ns")
        return k8s.V1SubjectAccessReview(spec=k8s.V1SubjectAccessReviewSpec(user=user, resource_attributes=attributes))

    with kube_client(api, tmp_path) as api_client:
        authorization = k8s.AuthorizationV1Api(api_client)
        allowed = await asyncio.to_thread(
            authorization.create_subject_access_review, review(BOT_USER, "watch", "workloads")
        )
        denied = await asyncio.to_thread(
            authorization.create_subject_access_review, review(BOT_USER, "delete", "workloads")
        )
        stranger = await asyncio.to_thread(
            authorization.create_subject_access_review, review("eve", "get", "workloads")
        )
    with kube_client(api, tmp_path, token=bot_identity) as api_client:
        with raises_api(403):
            await asyncio.to_thread(
                k8s.AuthorizationV1Api(api_client).create_subject_access_review, review(BOT_USER, "get", "workloads")
            )
        attributes = k8s.V1ResourceAttributes(verb="list", group="batch", resource="jobs", namespace="ns")
        own = k8s.V1SelfSubjectAccessReview(spec=k8s.V1SelfSubjectAccessReviewSpec(resource_attributes=attributes))
        mine = await asyncio.to_thread(k8s.AuthorizationV1Api(api_client).create_self_subject_access_review, own)
    verdicts = [present(review.status).allowed for review in (allowed, denied, stranger)]
    assert verdicts == [True, False, False]
    assert present(mine.status).allowed is True


# -------------------------------------------------------------------------------------------------
# Fault injection and recording


async def test_injected_failures_then_recovery(api: FakeKubeAPI, tmp_path: Path) -> None:
    api.add(job("ns", "train"))
    api.fail_next(2, status=503, path="/apis/batch/v1/.*")
    with kube_client(api, tmp_path) as api_client:
        batch = k8s.BatchV1Api(api_client)
        for _ in range(2):
            with raises_api(503) as unavailable:
                await asyncio.to_thread(batch.read_namespaced_job, "train", "ns")
        assert present((await asyncio.to_thread(batch.read_namespaced_job, "train", "ns")).metadata).name == "train"
    assert unavailable[0]["reason"] == "ServiceUnavailable"
    api.fail_next(status=429, method="GET", retry_after=3)
    async with aiohttp.ClientSession(api.url, headers={"Authorization": f"Bearer {TOKEN}"}) as session:
        async with session.get("/api/v1/pods") as response:
            assert (response.status, response.headers["Retry-After"]) == (429, "3")
            assert (await response.json())["details"] == {"retryAfterSeconds": 3}
        api.fail_next(path="/api/v1/pods")
        async with session.get("/api/v1/pods") as response:
            assert response.status == 500
            assert (await response.json())["message"] == "Internal error occurred: fake failure"
        async with session.get("/api/v1/pods") as response:
            assert response.status == 200


async def test_a_dropped_watch_stream_breaks_the_connection(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    async with http.get("/api/v1/pods?watch=1") as response:
        await api.wait_for_request(watch=True)
        assert api.drop_watches(after_events=1) == 1
        api.add(pod("ns", "a"))
        api.add(pod("ns", "b"))
        stream = WatchReader(response)
        assert (await stream.next())["object"]["metadata"]["name"] == "a"
        with pytest.raises(aiohttp.ClientPayloadError):
            await stream.next()


async def test_a_slow_server(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    api.delay(30, path="/api/v1/pods")
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.3):
            await http.get("/api/v1/pods")
    api.clear_faults()
    await get_json(http, "/api/v1/pods")


async def test_offline_then_back_on_the_same_port(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    url = api.url
    async with http.get("/api/v1/pods?watch=1") as watching:
        await api.wait_for_request(watch=True)
        await api.go_offline()
        with pytest.raises(aiohttp.ClientPayloadError):
            await watching.content.read()
    with pytest.raises(aiohttp.ClientConnectorError):
        await http.get("/api/v1/pods")
    await api.go_online()
    assert api.url == url
    await get_json(http, "/api/v1/pods")


def test_threaded_server_for_blocking_code(tmp_path: Path) -> None:
    with FakeKubeAPI(token=TOKEN).start_in_thread() as server:
        server.api.add(namespace("ns"))
        kubeconfig = server.api.write_kubeconfig(tmp_path / "kubeconfig", namespace="ns")
        api_client = k8s_config.new_client_from_config(config_file=str(kubeconfig))  # type: ignore[no-untyped-call]
        try:
            core = k8s.CoreV1Api(api_client)
            assert [present(n.metadata).name for n in core.list_namespace().items] == ["ns"]
            assert server.api.wait_for_request_sync(path="/api/v1/namespaces").user == "kubernetes-admin"
            server.go_offline()
            with pytest.raises(urllib3.exceptions.MaxRetryError):
                core.list_namespace(_request_timeout=2)
            server.go_online()
            assert present(core.read_namespace("ns").metadata).name == "ns"
        finally:
            api_client.close()
    assert server.url.startswith("http://127.0.0.1:")


async def test_requests_are_recorded_and_counted(api: FakeKubeAPI, http: aiohttp.ClientSession) -> None:
    await get_json(http, "/api/v1/pods")
    await get_json(http, "/api/v1/pods?limit=5")
    async with http.get("/api/v1/pods?watch=1&timeoutSeconds=0") as response:
        await response.read()
    await get_json(http, f"/apis/{KUEUE}/v1beta2/workloads")
    assert api.request_counts() == {
        "GET /api/v1/pods": 2,
        "WATCH /api/v1/pods": 1,
        f"GET /apis/{KUEUE}/v1beta2/workloads": 1,
    }
    assert api.count_requests(path="/apis/.*") == 1
    second = await api.wait_for_request(path="/api/v1/pods", watch=False, count=2, timeout=1)
    assert (second.query, second.user) == ({"limit": "5"}, "kubernetes-admin")
    with pytest.raises(TimeoutError, match="no 1 matching request"):
        await api.wait_for_request(method="DELETE", timeout=0.05)
    api.clear_requests()
    assert api.requests == []
