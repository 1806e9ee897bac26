"""The state's records as the ConfigMap store writes them: a delivery's ETA mark kept in a field of its own, and
read back from the headline where older bots wrote it ("key|eta=mark")."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from bot.kube.configmap_records import DELIVERIES, Records, decode, encode
from bot.notify.state import Delivery

T0 = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
KEY = "team-a/job-train-5x2k/0b5c6f0e"


@pytest.mark.parametrize("eta", ["cq:2h", ""], ids=["with-an-eta", "without"])
def test_a_delivery_round_trips_with_its_eta(eta: str) -> None:
    delivery = Delivery(KEY, "U1", "D1", "1.1", "v", 2, "headline.waiting-for-quota", T0, T0, None, eta=eta)
    data = encode(Records(deliveries=[delivery]), DELIVERIES)
    assert ('"eta"' in data["deliveries.json"]) == bool(eta)
    assert decode({"data": data}, DELIVERIES).deliveries == [delivery]


def test_an_eta_written_inside_the_headline_is_read_into_its_field() -> None:
    older = {
        "key": KEY, "target": "U1", "channel": "D1", "ts": "1.1", "verdict": "v", "position": 2,
        "headline": "headline.waiting-for-quota|eta=cq:2h", "sentAt": "2026-11-03T10:00:00.000000Z",
        "updatedAt": "2026-11-03T10:00:00.000000Z", "closedAt": None, "digest": False,
    }  # fmt: skip
    (delivery,) = decode({"data": {"deliveries.json": json.dumps([older])}}, DELIVERIES).deliveries
    assert (delivery.headline, delivery.eta) == ("headline.waiting-for-quota", "cq:2h")
