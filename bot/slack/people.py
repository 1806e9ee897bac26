"""What Slack says about people, each answer kept a while: a user's language (from their locale), their email
(for USER_IDENTITY_TEMPLATE), and who reads a conversation (the audience of a public answer). Slack that does
not answer in time gives the default (a language, no email, an unknown audience): an answer, never silence."""

from __future__ import annotations

import asyncio
import logging
import time

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.copy import language_of
from bot.metrics import Metrics
from bot.service.base import MAX_AUDIENCE

log = logging.getLogger(__name__)

LOCALE_TTL = 3600.0
LOCALE_RETRY = 60.0  # a user whose locale could not be read is asked again after this
LOOKUP_TIMEOUT = 3.0  # users.info for a locale or an email: past this, the default (an answer, never silence)


def slack_timeout(metrics: Metrics, method: str) -> None:
    """A Slack API call that timed out: counted and logged."""
    metrics.slack_errors.labels(method, "timeout").inc()
    log.warning("slack: API call timed out", extra={"method": method})


def slack_error(metrics: Metrics, method: str, error: SlackApiError) -> None:
    """A Slack API call that failed: counted and logged with Slack's error code."""
    code = str(error.response.get("error", "unknown")) if error.response is not None else "unknown"
    metrics.slack_errors.labels(method, code).inc()
    log.warning("slack: API error", extra={"method": method, "error": code})


class People:
    """users.info and conversations.members, remembered: locales an hour (a minute after a failure), audiences
    a minute, who is a person (not a bot) for good."""

    def __init__(self, client: AsyncWebClient, metrics: Metrics, default_language: str) -> None:
        self.client = client
        self.metrics = metrics
        self.default_language = default_language
        self.lookup_timeout = LOOKUP_TIMEOUT
        self.bot_user: str | None = None  # the bot's own user id (from an event's context, or auth.test)
        self._locales: dict[str, tuple[float, str]] = {}
        self._audiences: dict[str, tuple[float, tuple[str, ...] | None]] = {}  # channel -> (until, people)
        self._people: dict[str, bool] = {}  # user -> a person (not a bot)?

    async def language(self, user: str) -> str:
        """The user's language from their Slack locale; the default when Slack does not say in time (kept
        for a minute, so that the apology of a slow Slack does not wait for it again)."""
        cached = self._locales.get(user)
        now = time.monotonic()
        if cached is not None and now < cached[0]:
            return cached[1]
        language, ttl = self.default_language, LOCALE_TTL
        if user:
            try:
                async with asyncio.timeout(self.lookup_timeout):
                    info = await self.client.users_info(user=user, include_locale=True)
                locale = (info.get("user") or {}).get("locale")
                language = language_of(locale, self.default_language)
            except SlackApiError as error:
                slack_error(self.metrics, "users.info", error)
                ttl = LOCALE_RETRY
            except TimeoutError:
                slack_timeout(self.metrics, "users.info")
                ttl = LOCALE_RETRY
        self._locales[user] = (now + ttl, language)
        return language

    async def email_of(self, user: str) -> str | None:
        """The user's email in Slack (users:read.email), for USER_IDENTITY_TEMPLATE; None when unknown (or
        when Slack does not say in time)."""
        if not user:
            return None
        try:
            async with asyncio.timeout(self.lookup_timeout):
                info = await self.client.users_info(user=user)
        except SlackApiError as error:
            slack_error(self.metrics, "users.info", error)
            return None
        except TimeoutError:
            slack_timeout(self.metrics, "users.info")
            return None
        email = ((info.get("user") or {}).get("profile") or {}).get("email")
        return str(email) if email else None

    async def audience(self, user: str, channel: str) -> tuple[str, ...] | None:
        """The people (bots aside) in a conversation besides `user`: () in a DM with the bot, None when it
        cannot be told in time or is over MAX_AUDIENCE (then answers are private)."""
        if channel.startswith("D"):
            return ()
        cached = self._audiences.get(channel)
        if cached is not None and time.monotonic() < cached[0]:
            return tuple(m for m in cached[1] if m != user) if cached[1] is not None else None
        members: list[str] | None = []
        try:
            async with asyncio.timeout(self.lookup_timeout * 3):
                members = await self._members(channel)
                me = await self._me()
                members = [m for m in members if m != me and await self._is_person(m)] if members is not None else None
        except SlackApiError as error:
            slack_error(self.metrics, "conversations.members", error)
            members = None
        except TimeoutError:
            slack_timeout(self.metrics, "conversations.members")
            members = None
        self._audiences[channel] = (time.monotonic() + LOCALE_RETRY, tuple(members) if members is not None else None)
        return tuple(m for m in members if m != user) if members is not None else None

    async def _members(self, channel: str) -> list[str] | None:
        members: list[str] = []
        cursor: str | None = None
        while True:
            response = await self.client.conversations_members(channel=channel, limit=200, cursor=cursor)
            members.extend(str(m) for m in response.get("members") or [])
            if len(members) > MAX_AUDIENCE + 1:
                return None
            cursor = (response.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                return members

    async def _me(self) -> str:
        if self.bot_user is None:
            self.bot_user = str((await self.client.auth_test()).get("user_id") or "")
        return self.bot_user

    async def _is_person(self, user: str) -> bool:
        known = self._people.get(user)
        if known is None:
            try:
                info = (await self.client.users_info(user=user)).get("user") or {}
                known = not (info.get("is_bot") or info.get("is_app_user") or info.get("deleted"))
            except SlackApiError:
                known = True  # unknown: counted, so the answer stays safe
            self._people[user] = known
        return known
