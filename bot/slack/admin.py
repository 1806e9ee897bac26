"""The admins' view on Slack: `/kueue admin` for the admins named in ADMINS (the digest's poster is
bot.slack.admin_poster)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from bot.admin.view import AdminView
from bot.copy import render as render_words
from bot.slack.mrkdwn import code
from bot.slack.render import SlackMessage, cluster_unavailable
from bot.slack.render_admin import admin_message


def as_of(view: AdminView) -> str:
    return view.taken_at.strftime("%Y-%m-%d %H:%M UTC") if view.taken_at is not None else ""


class AdminAnswers:
    """`/kueue admin`: the view for an admin (privately: it names every team's jobs), a note for anyone else."""

    def __init__(
        self,
        look: Callable[[datetime], Awaitable[AdminView | None]],
        clock: Callable[[], datetime],
        is_admin: Callable[[str], bool],
        cluster: str = "",
    ) -> None:
        self._look = look
        self._clock = clock
        self._is_admin = is_admin
        self.cluster = cluster

    async def message(self, user: str, language: str) -> SlackMessage:
        if not self._is_admin(user):
            text = render_words("admin.not-admin", None, language)
            return SlackMessage(text, [{"type": "section", "text": {"type": "mrkdwn", "text": text}}])
        view = await self._look(self._clock())
        if view is None:
            return render_unavailable(language)
        return admin_message(view, language=language, cluster=self.cluster, as_of=as_of(view), at=view.taken_at)


def render_unavailable(language: str) -> SlackMessage:
    return cluster_unavailable(None, language=language)


async def admin_reply(answers: AdminAnswers | None, user: str, language: str) -> SlackMessage:
    """The answer to `/kueue admin`: the view, or (no ADMINS configured, or not one of them) a short note."""
    if answers is None:
        text = render_words("admin.not-admin", None, language)
        return SlackMessage(text, [{"type": "section", "text": {"type": "mrkdwn", "text": text}}])
    return await answers.message(user, language)


def cluster_label(cluster: str, language: str) -> str:
    """ "Cluster `prod-eu`": above an answer when the bot serves several clusters."""
    return render_words("admin.cluster", {"cluster": code(cluster)}, language)
