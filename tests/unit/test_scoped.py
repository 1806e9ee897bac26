"""Each cluster's part of the one state store (issue 17): the first cluster keeps the single-cluster layout (a bot
that gains CLUSTERS keeps its state), the others write `cluster/` before the namespace."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from bot.notify.scoped import Scope, ScopedStore
from bot.notify.state import Subscription, Told
from bot.notify.store import SQLiteStore

NAMES = ("prod-eu", "prod-us")
HOME = Scope("prod-eu", home=True, clusters=NAMES)
US = Scope("prod-us", home=False, clusters=NAMES)
T0 = datetime(2026, 11, 3, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("kind", "stored", "home", "us"),
    [
        pytest.param("namespace", "team-a", "team-a", None, id="namespace-home"),
        pytest.param("namespace", "prod-us/team-a", None, "team-a", id="namespace-us"),
        pytest.param("delivery", "team-a/wl/uid", "team-a/wl/uid", None, id="key-home"),
        pytest.param("delivery", "prod-us/team-a/wl/uid", None, "team-a/wl/uid", id="key-us"),
        pytest.param("snooze", "team-a/train", "team-a/train", None, id="job-snooze-home"),
        pytest.param("snooze", "prod-us/team-a/train", None, "team-a/train", id="job-snooze-us"),
        pytest.param("snooze", "team-a/wl/uid", "team-a/wl/uid", None, id="workload-snooze-home"),
        pytest.param("snooze", "*", "*", "*", id="every-job-is-everyones"),
        pytest.param("queue", "gpu-cq", "gpu-cq", None, id="queue-home"),
        pytest.param("queue", "prod-us/gpu-cq", None, "gpu-cq", id="queue-us"),
    ],
)
def test_each_item_belongs_to_one_cluster(kind: str, stored: str, home: str | None, us: str | None) -> None:
    assert getattr(HOME, kind)(stored) == home
    assert getattr(US, kind)(stored) == us


async def test_a_single_cluster_state_stays_the_first_clusters(tmp_path: Path) -> None:
    shared = SQLiteStore(str(tmp_path / "s.sqlite3"))
    try:
        await shared.subscribe(Subscription("U1", "team-a", "train", "Job", T0))  # written before CLUSTERS
        await shared.record_intent(Told("team-a/wl/uid-1", "U1", "waiting-for-quota", 3, "h"), T0)
        home, us = ScopedStore(shared, HOME), ScopedStore(shared, US)
        await us.subscribe(Subscription("U1", "team-a", "train", "Job", T0))  # the same names in prod-us
        await us.record_intent(Told("team-a/wl/uid-2", "U1", "exceeds-max-quota", None, "h"), T0)
        mine, theirs = await home.load(), await us.load()
        assert [(s.namespace, s.name) for s in mine.subscriptions] == [("team-a", "train")]
        assert [d.key for d in mine.deliveries] == ["team-a/wl/uid-1"]
        assert [(s.namespace, s.name) for s in theirs.subscriptions] == [("team-a", "train")]
        assert [d.key for d in theirs.deliveries] == ["team-a/wl/uid-2"]
        assert await us.close("team-a/wl/uid-2", "U1", T0)
        assert (await home.load()).deliveries[0].closed_at is None
    finally:
        await shared.aclose()
