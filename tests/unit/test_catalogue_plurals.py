"""What users read says "1 pod" and "3 pods", never "pod(s)": a catalogue sentence counts with `{n|one|many}`."""

from __future__ import annotations

import pytest
from bot.copy import CATALOGUES, render

# Sentences that still say "(s)": a list of names without their count (fragments, gates, namespaces), to convert
# when their callers pass the count. This list only shrinks.
STILL_WITH_S = frozenset(
    {
        "action.other-namespace",
        "admin.starved",
        "fragment.not-covered",
        "scheduling.gated",
        "scheduling.node-reasons",
    }
)


def _sentences(entry: object) -> list[str]:
    if isinstance(entry, str):
        return [entry]
    return [sentence for part in entry for sentence in _sentences(part)] if isinstance(entry, tuple) else []


@pytest.mark.parametrize("language", ["en", "fr"])
def test_no_catalogue_sentence_says_s_in_parentheses(language: str) -> None:
    found = {key for key, entry in CATALOGUES[language].items() if any("(s)" in s for s in _sentences(entry))}
    assert found <= STILL_WITH_S, sorted(found - STILL_WITH_S)


@pytest.mark.parametrize(
    ("language", "count", "said"),
    [
        ("en", 1, "1 thing to fix"),
        ("en", 0, "0 things to fix"),
        ("en", 3, "3 things to fix"),
        ("fr", 1, "1 point à corriger"),
        ("fr", 0, "0 point à corriger"),
        ("fr", 3, "3 points à corriger"),
    ],
)
def test_the_admins_count_agrees_with_its_number(language: str, count: int, said: str) -> None:
    assert render("admin.intro", {"count": count}, language).startswith(said)


def test_a_headline_names_one_admission_check_or_several() -> None:
    one = render("headline.admission-checks-pending", {"job": "a/b", "checks": "prov", "check_count": 1})
    two = render("headline.admission-checks-pending", {"job": "a/b", "checks": "prov, mk", "check_count": 2})
    assert "admission check prov." in one
    assert "admission checks prov, mk." in two


def test_a_count_written_out_agrees_too() -> None:
    assert render("slack.who.namespace", {"namespace": "a", "amount": "cpu 2", "count": "1"}) == "a: cpu 2 (1 workload)"
