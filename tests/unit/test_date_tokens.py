"""A clock time on Slack is a date token each reader sees in their own zone; what cannot show it shows its
fallback (the demo's terminal, like a client without the token)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from bot.admin.view import AdminView
from bot.demo.text import Style, mrkdwn
from bot.slack.mrkdwn import date_token
from bot.slack.render_admin import admin_message

AT = datetime(2026, 10, 14, 11, 0, tzinfo=UTC)


def test_a_date_token_carries_the_moment_and_its_fallback() -> None:
    token = date_token(AT, "2026-10-14 11:00 UTC")
    assert token == f"<!date^{int(AT.timestamp())}^{{date_short_pretty}} {{time}}|2026-10-14 11:00 UTC>"


def test_a_fallback_cannot_break_the_token() -> None:
    assert date_token(AT, "a|b<c>&d").endswith("|a/b‹c›&amp;d>")


@pytest.mark.parametrize(("language", "words"), [("en", "As of "), ("fr", "")])
def test_the_admins_view_says_its_time_as_a_token(language: str, words: str) -> None:
    message = admin_message(AdminView((), AT), language=language, as_of="2026-10-14 11:00 UTC", at=AT)
    context = str(message.blocks[1]["elements"])
    assert f"<!date^{int(AT.timestamp())}^" in context and words in context


def test_the_terminal_shows_a_tokens_fallback() -> None:
    said = mrkdwn("As of " + date_token(AT, "2026-10-14 11:00 UTC") + ".", Style())
    assert said == "As of 2026-10-14 11:00 UTC."
