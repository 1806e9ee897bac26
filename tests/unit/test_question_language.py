"""A question is answered in its own words' language; a bare name or a command leaves it to the Slack locale."""

from __future__ import annotations

import pytest
from bot.slack.parse import question_language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("pourquoi train-octobre est en attente ?", "fr"),
        ("qui utilise les GPU ?", "fr"),
        ("quand vit-large tournera-t-il ?", "fr"),
        ("Pourquoi mon job est-il bloqué ?", "fr"),
        ("why is train-octobre pending?", "en"),
        ("who is using the GPUs?", "en"),
        ("when will vit-large run?", "en"),
        ("why isn't my job running?", "en"),
        ("why team-a/train", None),
        ("pourquoi team-a/train", None),
        ("queue team-a/default", None),
        ("train-octobre", None),
        ("", None),
    ],
)
def test_the_question_s_words_choose_the_language(text: str, language: str | None) -> None:
    assert question_language(text) == language
