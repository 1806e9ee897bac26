"""bot.slack.mrkdwn's counting, escaping and cutting: the same answers as the character-by-character version
it replaced (kept below as the reference), on hostile and random text. No timing here (that is bench/)."""

from __future__ import annotations

import re

import pytest
from bot.slack import mrkdwn
from hypothesis import given, settings
from hypothesis import strategies as st

# --- the reference: the previous implementation, character by character ----------------------------------

_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_ENTITY = re.compile(r"&(amp|lt|gt);")


def reference_escape(text: str) -> str:
    return "".join(_ESCAPES.get(char, char) for char in text)


def reference_slack_len(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def reference_truncate(text: str, limit: int) -> str:
    if reference_slack_len(text) <= limit:
        return text
    budget = limit - reference_slack_len(mrkdwn.ELLIPSIS)
    safe = used = index = 0
    in_code = in_bold = False
    while index < len(text):
        char = text[index]
        if char == "&" and (match := _ENTITY.match(text, index)) is not None:
            step = match.end() - index
        else:
            step = 1
            if char == "`":
                in_code = not in_code
            elif char == "*" and not in_code:
                in_bold = not in_bold
        width = reference_slack_len(text[index : index + step])
        if used + width > budget:
            break
        used += width
        index += step
        if not in_code and not in_bold:
            safe = index
    return text[:safe].rstrip() + mrkdwn.ELLIPSIS


def reference_truncate_plain(text: str, limit: int) -> str:
    if reference_slack_len(text) <= limit:
        return text
    budget = limit - reference_slack_len(mrkdwn.ELLIPSIS)
    used = cut = 0
    for char in text:
        width = reference_slack_len(char)
        if used + width > budget:
            break
        used += width
        cut += 1
    return text[:cut].rstrip() + mrkdwn.ELLIPSIS


# --- text that exercises every branch: entities, markers, characters outside the BMP, lone surrogates -------

PIECES = st.sampled_from(
    [
        *("&", "&amp;", "&lt;", "&gt;", "&am", "&lt", "<", ">", "`", "*", "_", "~", " ", "\n", "a", "é", "日"),
        *("😀", "\U0001f9ea", "\U0010ffff", "\ud83d", "\ude00", "\u200b", "…", "`code`", "*bold*", "x" * 7),
    ]
)
HOSTILE = st.lists(PIECES, max_size=60).map("".join)
ANY_TEXT = st.one_of(HOSTILE, st.text(max_size=80), st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
LIMITS = st.integers(min_value=-2, max_value=90)


@settings(max_examples=400, deadline=None)
@given(text=ANY_TEXT)
def test_escape_and_length_match_the_reference(text: str) -> None:
    assert mrkdwn.escape(text) == reference_escape(text)
    assert mrkdwn.slack_len(text) == reference_slack_len(text)


@settings(max_examples=600, deadline=None)
@given(text=ANY_TEXT, limit=LIMITS)
def test_truncate_matches_the_reference(text: str, limit: int) -> None:
    assert mrkdwn.truncate(text, limit) == reference_truncate(text, limit)
    assert mrkdwn.truncate_plain(text, limit) == reference_truncate_plain(text, limit)


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        pytest.param("abcdef", 4, "abc…", id="ascii"),
        pytest.param("😀😀😀", 4, "😀…", id="astral-counts-two"),
        pytest.param("a😀b", 3, "a…", id="astral-does-not-fit-the-last-unit"),
        pytest.param("ab&amp;cd", 6, "ab…", id="never-inside-an-entity"),
        pytest.param("ab&amp;cd", 8, "ab&amp;…", id="a-whole-entity"),
        pytest.param("x `code span` y", 10, "x…", id="never-inside-code"),
        pytest.param("x *bold* y z", 10, "x *bold*…", id="a-closed-bold-run"),
        pytest.param("x `a*b` *c d e", 12, "x `a*b`…", id="a-star-in-code-is-plain"),
        pytest.param("\ud83dabc", 3, "\ud83da…", id="a-lone-surrogate-is-one-unit"),
    ],
)
def test_truncate_cases(text: str, limit: int, expected: str) -> None:
    assert mrkdwn.truncate(text, limit) == expected == reference_truncate(text, limit)


def test_long_text_is_cut_like_the_reference() -> None:
    """A section-sized text (the sizes render cuts at), mixed content: the same cut as the reference."""
    text = ("`ns/job-1` waits *behind* 3 jobs &amp; needs cpu 😀 " * 400) + "tail"
    for limit in (0, 1, 150, 2999, 3000, 3001, len(text)):
        assert mrkdwn.truncate(text, limit) == reference_truncate(text, limit)
        assert mrkdwn.truncate_plain(text, limit) == reference_truncate_plain(text, limit)
