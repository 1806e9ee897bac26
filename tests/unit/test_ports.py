"""Ports say what they can do in their types: the composition root and the service never probe a port with
`getattr` (a source's start, listeners, counters, MultiKueue reads; a policy's per-person access; a store's
extras are read from the types), and a fixed view's defaults are `Source`'s."""

from __future__ import annotations

import ast

from bot.kube.dump import read_dump
from bot.service import ChannelPolicy, OpenPolicy, StaticSource

from tests.paths import ROOT, SCENARIOS

WIRING = ["bot/server.py", "bot/background.py", "bot/multicluster.py", "bot/kube/access.py"]


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
    assert {path: lines for path, lines in probed.items() if lines and path != "bot/server.py"} == {}
    assert len(probed["bot/server.py"]) <= 1  # the Slack client's HTTP session, closed at stop (slack_sdk's)


async def test_a_fixed_view_starts_nothing_tells_nothing_and_reads_no_multikueue_cluster() -> None:
    source = StaticSource(read_dump(SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml").snapshot)
    await source.start()
    told: list[int] = []
    source.add_listener(lambda: told.append(1))
    await source.stop()
    assert (source.tells_changes, source.freezes_gc, source.away, told) == (False, False, False, [])
    assert source.stats() is None and await source.multikueue_clusters() is None


def test_channel_and_open_policies_are_the_same_for_everyone() -> None:
    assert not ChannelPolicy(lambda channel: None).per_person and not OpenPolicy().per_person
