"""Leader election over real HTTP to the fake API server: one of two candidates leads; a stopped leader hands
over at once; a leader cut off from the API server stops leading within one lease period; a live holder is
respected until its lease expires (by an injected clock, no waiting); 409 races have exactly one winner.

Short leases (1 s, renewals every 0.2 s) with the real clock where time must pass; tests wait on events and
on the fake's recorded requests, never on fixed sleeps."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from bot.errors import Fenced
from bot.kube.client import KubeClient
from bot.kube.configmap_store import ConfigMapStore
from bot.kube.lease import LeaderElector
from bot.notify.state import Fence, State, Told

from tests.clocks import Clock
from tests.fakes.kube_api import FakeKubeAPI

NS = "kueue-bot"
NAME = "kueue-bot-leader"
LEASES = f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases"
LEASE = f"{LEASES}/{NAME}"
T0 = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)


def real_clock() -> datetime:
    return datetime.now(UTC)


pytestmark = pytest.mark.fake_kube(objects=[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}])


@pytest.fixture(autouse=True)
async def no_leaked_tasks() -> AsyncIterator[None]:
    yield
    current = asyncio.current_task()
    leaked = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    assert not leaked, f"tasks left running: {leaked}"


Changes = list[tuple[str, bool]]


@pytest.fixture
def changes() -> Changes:
    return []


def _elector(
    client: KubeClient,
    identity: str,
    changes: Changes | None = None,
    *,
    clock: Callable[[], datetime] = real_clock,
    **timings: float,
) -> LeaderElector:
    settings: dict[str, Any] = {"lease_seconds": 1.0, "renew_every": 0.2, **timings}
    on_change = (lambda leader: changes.append((identity, leader))) if changes is not None else None
    return LeaderElector(client, NS, NAME, identity, clock=clock, on_change=on_change, **settings)


async def _first_leader(*electors: LeaderElector, within: float = 5.0) -> LeaderElector:
    waits = {asyncio.ensure_future(e.leading.wait()): e for e in electors}
    done, pending = await asyncio.wait(waits, timeout=within, return_when=asyncio.FIRST_COMPLETED)
    for future in pending:
        future.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    assert done, "no candidate became leader"
    return waits[next(iter(done))]


def _spec(api: FakeKubeAPI) -> dict[str, Any]:
    lease = api.get("Lease", NS, NAME)
    assert lease is not None
    return dict(lease["spec"])


def _puts(api: FakeKubeAPI) -> int:
    return api.count_requests(method="PUT", path=LEASE)


async def test_one_of_two_candidates_leads_and_keeps_leading(
    api: FakeKubeAPI, client: KubeClient, changes: Changes
) -> None:
    a, b = _elector(client, "pod-a", changes), _elector(client, "pod-b", changes)
    async with a, b:
        leader = await _first_leader(a, b)
        follower = b if leader is a else a
        await api.wait_for_request(method="PUT", path=LEASE, count=_puts(api) + 3)  # three renewals later
        assert leader.is_leader and leader.leading.is_set() and not leader.following.is_set()
        assert not follower.is_leader and follower.following.is_set()
        assert follower.holder == leader.identity
        spec = _spec(api)
        assert spec["holderIdentity"] == leader.identity
        assert spec["leaseDurationSeconds"] == 1
        assert spec["leaseTransitions"] == 0
        assert spec["renewTime"] > spec["acquireTime"]
    assert changes == [(leader.identity, True), (leader.identity, False)]


async def test_a_stopped_leader_releases_the_lease_and_another_takes_over_at_once(
    api: FakeKubeAPI, client: KubeClient
) -> None:
    def releases() -> int:
        return sum(1 for r in api.requests if r.method == "PUT" and r.body["spec"]["holderIdentity"] is None)

    seen: list[tuple[bool, int]] = []  # (leader?, how many release requests the server had seen by then)
    leader = LeaderElector(
        client, NS, NAME, "pod-a", lease_seconds=1, renew_every=0.2, clock=real_clock,
        on_change=lambda leading: seen.append((leading, releases())),
    )  # fmt: skip
    # The follower's clock never moves: it can only take the lease because it was released, never by expiry.
    follower = _elector(client, "pod-b", clock=Clock())
    async with leader:
        await asyncio.wait_for(leader.leading.wait(), 5)
        async with follower:
            await api.wait_for_request(method="GET", path=LEASE, count=api.count_requests(method="GET", path=LEASE) + 2)
            assert not follower.is_leader
            await leader.stop()
            assert seen == [(True, 0), (False, 0)]  # it stopped leading before it released the lease
            writes = [r.body["spec"] for r in api.requests if r.method == "PUT"]
            released = [spec for spec in writes if spec["holderIdentity"] is None]
            assert len(released) == 1 and released[0]["leaseDurationSeconds"] == 1
            await asyncio.wait_for(follower.leading.wait(), 5)
            spec = _spec(api)
            assert (spec["holderIdentity"], spec["leaseTransitions"]) == ("pod-b", 1)
            assert spec["acquireTime"] == "2026-11-03T10:00:00.000000Z"  # the follower's (frozen) clock


async def test_a_leader_cut_off_from_the_api_server_stops_leading_within_one_lease(
    api: FakeKubeAPI, client: KubeClient, changes: Changes
) -> None:
    loop = asyncio.get_running_loop()
    elector = _elector(client, "pod-a", changes)
    async with elector:
        await asyncio.wait_for(elector.leading.wait(), 5)
        await api.go_offline()
        cut_at = loop.time()
        try:
            await asyncio.wait_for(elector.following.wait(), 5)
            assert loop.time() - cut_at < elector.lease_seconds  # the last renewal was before the cut
        finally:
            await api.go_online()
        await asyncio.wait_for(elector.leading.wait(), 5)  # nobody took it meanwhile: it leads again
        spec = _spec(api)
        assert (spec["holderIdentity"], spec["leaseTransitions"]) == ("pod-a", 0)
    assert changes == [("pod-a", True), ("pod-a", False), ("pod-a", True), ("pod-a", False)]


async def test_a_leader_facing_a_hung_api_server_stops_leading_within_one_lease(
    api: FakeKubeAPI, client: KubeClient
) -> None:
    loop = asyncio.get_running_loop()
    elector = _elector(client, "pod-a")
    async with elector:
        await asyncio.wait_for(elector.leading.wait(), 5)
        api.delay(30, path=LEASE)  # answers come too late (until the server stops or the faults are cleared)
        hung_at = loop.time()
        await asyncio.wait_for(elector.following.wait(), 5)
        assert loop.time() - hung_at < elector.lease_seconds
        api.clear_faults()


async def test_a_lease_held_by_another_is_respected_until_it_expires(api: FakeKubeAPI, client: KubeClient) -> None:
    api.add(
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": NAME, "namespace": NS},
            "spec": {
                "holderIdentity": "pod-old",
                "leaseDurationSeconds": 15,
                "acquireTime": "2026-11-03T09:00:00.000000Z",
                "renewTime": "2026-11-03T09:59:59.000000Z",
                "leaseTransitions": 4,
            },
        }
    )
    clock = Clock()
    elector = _elector(client, "pod-a", clock=clock, lease_seconds=15.0)
    async with elector:
        await api.wait_for_request(method="GET", path=LEASE, count=3)
        clock.advance(14.9)  # 15 s after we first saw it, by our clock, whatever its renewTime says
        seen = api.count_requests(method="GET", path=LEASE)
        await api.wait_for_request(method="GET", path=LEASE, count=seen + 2)
        assert not elector.is_leader and elector.holder == "pod-old"
        assert _puts(api) == 0
        clock.advance(0.1)
        await asyncio.wait_for(elector.leading.wait(), 5)
        spec = _spec(api)
        assert spec == {
            "holderIdentity": "pod-a",
            "leaseDurationSeconds": 15,
            "acquireTime": "2026-11-03T10:00:15.000000Z",
            "renewTime": "2026-11-03T10:00:15.000000Z",
            "leaseTransitions": 5,
        }


async def test_a_leader_that_finds_another_holder_steps_down_and_leaves_it_alone(
    api: FakeKubeAPI, client: KubeClient, changes: Changes
) -> None:
    elector = _elector(client, "pod-a", changes)
    async with elector:
        await asyncio.wait_for(elector.leading.wait(), 5)
        lease = api.get("Lease", NS, NAME)
        assert lease is not None
        api.update({**lease, "spec": {**lease["spec"], "holderIdentity": "pod-usurper", "leaseDurationSeconds": 3600}})
        await asyncio.wait_for(elector.following.wait(), 5)
        assert elector.holder == "pod-usurper"
    assert _spec(api)["holderIdentity"] == "pod-usurper"  # neither overwritten nor "released" on stop
    assert changes == [("pod-a", True), ("pod-a", False)]


@pytest.mark.parametrize(
    ("lease_exists", "method"),
    [
        pytest.param(True, "PUT", id="free-lease-409-conflict"),
        pytest.param(False, "POST", id="no-lease-already-exists"),
    ],
)
async def test_two_candidates_racing_for_the_lease_make_one_leader(
    api: FakeKubeAPI, client: KubeClient, changes: Changes, lease_exists: bool, method: str
) -> None:
    if lease_exists:
        api.add({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": NAME, "namespace": NS}})
    path = LEASE if method == "PUT" else LEASES
    api.delay(0.3, method=method, path=path)  # both candidates read the same state and write at once
    a, b = _elector(client, "pod-a", changes), _elector(client, "pod-b", changes)
    async with a, b:
        first = await api.wait_for_request(method=method, path=path, count=1)
        second = await api.wait_for_request(method=method, path=path, count=2)
        assert {first.body["spec"]["holderIdentity"], second.body["spec"]["holderIdentity"]} == {"pod-a", "pod-b"}
        if lease_exists:
            assert first.body["metadata"]["resourceVersion"] == second.body["metadata"]["resourceVersion"]
        leader = await _first_leader(a, b)
        api.clear_faults()
        await api.wait_for_request(method="PUT", path=LEASE, count=_puts(api) + 2)
        assert [e.is_leader for e in (a, b)].count(True) == 1
        assert _spec(api)["holderIdentity"] == leader.identity
    assert changes == [(leader.identity, True), (leader.identity, False)]  # the loser never believed it led


async def test_cancelling_the_run_task_releases_the_lease(api: FakeKubeAPI, client: KubeClient) -> None:
    elector = _elector(client, "pod-a")
    task = asyncio.create_task(elector.run())
    await asyncio.wait_for(elector.leading.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not elector.is_leader
    assert _spec(api).get("holderIdentity") is None


async def test_stopping_is_idempotent_and_harmless_before_leading(api: FakeKubeAPI, client: KubeClient) -> None:
    elector = _elector(client, "pod-a")
    await elector.stop()  # never started
    api.delay(30, path=LEASE)  # it cannot get an answer: it never leads
    task = elector.start()
    with pytest.raises(RuntimeError, match="already running"):
        elector.start()
    await api.wait_for_request(method="GET", path=LEASE)
    await elector.stop()
    await elector.stop()
    assert task.done() and not elector.is_leader
    api.clear_faults()


async def test_a_failing_callback_does_not_stop_the_election(
    client: KubeClient, caplog: pytest.LogCaptureFixture
) -> None:
    def explode(leader: bool) -> None:
        raise RuntimeError("callback bug")

    elector = LeaderElector(
        client, NS, NAME, "pod-a", lease_seconds=1, renew_every=0.2, clock=real_clock, on_change=explode
    )
    with caplog.at_level(logging.ERROR, logger="bot.kube.lease"):
        async with elector:
            await asyncio.wait_for(elector.leading.wait(), 5)
    assert "the on_change callback failed" in caplog.text


@pytest.mark.parametrize(
    "timings",
    [
        pytest.param({"lease_seconds": 15, "renew_every": 15}, id="renew-as-long-as-the-lease"),
        pytest.param({"lease_seconds": 15, "renew_every": 5, "renew_deadline": 20}, id="deadline-past-the-lease"),
        pytest.param({"lease_seconds": 15, "renew_every": 5, "renew_deadline": 4}, id="deadline-before-a-renewal"),
        pytest.param({"lease_seconds": 15, "renew_every": 0}, id="no-renewal"),
    ],
)
def test_inconsistent_timings_are_refused(client: KubeClient, timings: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="renew_every"):
        LeaderElector(client, NS, NAME, "pod-a", clock=real_clock, **timings)  # type: ignore[arg-type]


def test_an_empty_identity_is_refused(client: KubeClient) -> None:
    with pytest.raises(ValueError, match="identity"):
        LeaderElector(client, NS, NAME, "", clock=real_clock)


async def test_defaults_follow_client_go(client: KubeClient) -> None:
    elector = LeaderElector(client, NS, NAME, "pod-a", clock=real_clock)
    assert (elector.lease_seconds, elector.renew_every, elector.renew_deadline) == (15, 5, 10)
    await elector.stop()  # never started: nothing to do


async def test_the_fence_names_the_tenure_and_ends_the_moment_the_renewal_deadline_passes(
    api: FakeKubeAPI, client: KubeClient, tmp_path: Path
) -> None:
    api.add(
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": NAME, "namespace": NS},
            "spec": {"holderIdentity": None, "leaseDurationSeconds": 15, "leaseTransitions": 4},
        }
    )
    clock = Clock()
    changes: Changes = []
    elector = _elector(client, "pod-a", changes, clock=clock, lease_seconds=15.0, renew_every=5.0)
    assert elector.fence() is None
    async with elector:
        await asyncio.wait_for(elector.leading.wait(), 5)
        assert elector.fence() == Fence("pod-a", 5)  # the Lease's leaseTransitions of this tenure
        store = ConfigMapStore(client, NS, lease=NAME)
        assert await store.record_intent(Told("ns/w/uid", "U1", "v", 1, "h"), clock(), fence=Fence("pod-a", 5))
        fresh = ConfigMapStore(client, NS, "fresh-state", lease=NAME)  # shards that never saw a fence: the Lease says
        with pytest.raises(Fenced, match="held by pod-a"):
            await fresh.record_intent(Told("ns/w/uid", "U1", "v", 1, "h"), clock(), fence=Fence("pod-old", 4))
        assert await fresh.load() == State()
        # Frozen past the renewal deadline (10 s of a 15 s lease): on waking, the fence says so at once,
        # before the renewal loop has run.
        clock.advance(10.0)
        assert elector.fence() is None
        assert not elector.is_leader and changes[-1] == ("pod-a", False)
