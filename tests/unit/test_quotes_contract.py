"""The engine's list of quotes a sentence cannot do without (bot.trace.answer.NEEDED), held to the catalogues:
the engine decides what to show from it, never by reading a catalogue's sentences."""

from __future__ import annotations

import pytest
from bot.copy import CATALOGUES
from bot.trace.answer import NEEDED, VERBATIM


def _placeholders(template: str) -> set[str]:
    return {part.split("}", 1)[0] for part in template.split("{")[1:]}


def _needed(language: str) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for key, entry in CATALOGUES[language].items():
        templates = (entry,) if isinstance(entry, str) else tuple(entry)
        found |= {(key, name) for name in VERBATIM if all(name in _placeholders(t) for t in templates)}
    return found


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_quote_the_engine_may_leave_out_has_a_sentence_without_it(language: str) -> None:
    assert _needed(language) <= NEEDED


def test_every_quote_the_engine_keeps_is_one_a_catalogue_cannot_do_without() -> None:
    assert _needed("en") | _needed("fr") == NEEDED
