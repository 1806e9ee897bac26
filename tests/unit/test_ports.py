"""Ports say what they can do in their types: the composition root, the service, the Slack side and the notifier's
audience never probe a port with `getattr` (a source's start, listeners, counters, MultiKueue reads, a job's
owners; a policy's per-person access; a store's extras; the Slack client's bound and session; an outcome's
cluster are read from the types), a fixed view's defaults are `Source`'s, and the router over several clusters
is a `Service` of its own, not a BotService."""

from __future__ import annotations

import ast

from bot.kube.dump import read_dump
from bot.multicluster import ClusterRouter
from bot.service.botservice import BotService
from bot.service.ports import ChannelPolicy, OpenPolicy, StaticSource

from tests.paths import ROOT, SCENARIOS

WIRING = [
    "bot/server.py",
    "bot/background.py",
    "bot/multicluster.py",
    "bot/kube/access.py",
    "bot/notify/owners.py",
    # every module of the Slack side but check.py (whose one getattr reads an error's reason, not a port)
    *(p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "bot" / "slack").glob("*.py")) if p.name != "check.py"),
]


def _probes(path: str) -> list[int]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
    ]


def test_the_wiring_and_the_service_probe_no_port() -> None:
    paths = [*WIRING, *(p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "bot" / "service").glob("*.py")))]
    probed = {path: _probes(path) for path in paths}
    assert {path: lines for path, lines in probed.items() if lines} == {}


async def test_a_fixed_view_starts_nothing_tells_nothing_and_reads_no_multikueue_cluster() -> None:
    source = StaticSource(read_dump(SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml").snapshot)
    await source.start()
    told: list[int] = []
    source.add_listener(lambda: told.append(1))
    await source.stop()
    assert (source.tells_changes, source.freezes_gc, source.away, told) == (False, False, False, [])
    assert source.stats() is None and await source.multikueue_clusters() is None
    assert await source.job_owners("team-a", "Job", "train") == ()  # its snapshots hold the jobs


def test_channel_and_open_policies_are_the_same_for_everyone() -> None:
    assert not ChannelPolicy(lambda channel: None).per_person and not OpenPolicy().per_person


def test_the_router_is_its_own_service_not_a_subclass_of_one_clusters() -> None:
    assert not issubclass(ClusterRouter, BotService)
