"""A French sentence that embeds Kueue's own (English) words quotes them in « »."""

from __future__ import annotations

import pytest
from bot.copy import render

KUEUE = "couldn't assign flavors to pod set main"


@pytest.mark.parametrize(
    ("key", "params"),
    [
        ("conditions.condition", {"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": KUEUE}),
        ("conditions.evicted-because", {"message": KUEUE}),
        ("workload.event", {"reason": "Pending", "message": KUEUE}),
        ("record.quota-reserved", {"text": KUEUE}),
        ("record.unknown", {"text": KUEUE}),
    ],
)
def test_kueues_words_are_quoted_in_french_not_in_english(key: str, params: dict[str, str]) -> None:
    assert f"« {KUEUE} »" in render(key, params, "fr")
    assert "«" not in render(key, params, "en") and KUEUE in render(key, params, "en")
