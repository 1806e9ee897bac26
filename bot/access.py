"""Who may see what, and the audit line of every question.

Two layers, both behind the service's `AccessPolicy` port:

* the channel (`ChannelPolicy`, CHANNEL_NAMESPACES): which namespaces may be asked about from a channel;
* the person (`SubjectAccessPolicy`, USER_IDENTITY_TEMPLATE): the Slack user is mapped to a Kubernetes identity
  ("oidc:{email}", "{user_id}"; plus the static groups of KUBE_GROUPS), and a SubjectAccessReview asks the API
  server whether that identity may `get workloads.kueue.x-k8s.io` in the namespace. Both must allow.

Verdicts are kept per (identity, namespace) for a short time (allowed: `allow_ttl`, denied: `deny_ttl`), so a
conversation costs one review per namespace a minute. When a review cannot be made (the API server is away),
the last verdict is used while younger than `stale_grace`; after that, ClusterUnavailable: the bot says the
cluster is out of reach rather than guess. A user whose identity cannot be made (no email in Slack) is denied.

This module knows neither Slack nor Kubernetes: the email and the review come in as two coroutines
(`SlackBot.email_of`, `bot.kube.access.AccessReviewer`), wired in `bot.server`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from bot.errors import BotError, ClusterUnavailable
from bot.service.ports import AccessPolicy
from bot.service.results import AuditEntry

log = logging.getLogger(__name__)

AUDIT_LOGGER = "kueue_bot.audit"

EmailOf = Callable[[str], Awaitable[str | None]]
Review = Callable[[str, tuple[str, ...], str], Awaitable[bool]]  # (identity, groups, namespace) -> allowed

V = TypeVar("V")

MAX_REMEMBERED = 10_000  # verdicts and emails kept (the oldest are forgotten first)


def identity_for(template: str, user_id: str, email: str | None) -> str | None:
    """The Kubernetes user name of a Slack user: `template` with {user_id} and {email} replaced (None when
    the template needs an email that is not known). Nothing else in the template is interpreted."""
    if not user_id or ("{email}" in template and not email):
        return None
    return template.replace("{user_id}", user_id).replace("{email}", email or "")


class _Remembered(Generic[V]):
    """Values with the monotonic time they were learnt, at most `size` of them."""

    def __init__(self, size: int = MAX_REMEMBERED) -> None:
        self._items: OrderedDict[object, tuple[float, V]] = OrderedDict()
        self._size = size

    def get(self, key: object) -> tuple[float, V] | None:
        return self._items.get(key)

    def put(self, key: object, at: float, value: V) -> None:
        self._items[key] = (at, value)
        self._items.move_to_end(key)
        while len(self._items) > self._size:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class SubjectAccessPolicy:
    """The channel's namespaces, narrowed to what the asker's Kubernetes identity may read (see the module)."""

    per_person = True  # what one may see is not what another may: an answer's audience matters

    def __init__(
        self,
        channel_policy: AccessPolicy,
        *,
        template: str,
        email_of: EmailOf,
        review: Review,
        groups: Sequence[str] = (),
        allow_ttl: float = 60.0,
        deny_ttl: float = 15.0,
        email_ttl: float = 600.0,
        stale_grace: float = 600.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.channel_policy = channel_policy
        self.template = template
        self.email_of = email_of
        self.review = review
        self.groups = tuple(groups)
        self.allow_ttl = allow_ttl
        self.deny_ttl = deny_ttl
        self.email_ttl = email_ttl
        self.stale_grace = stale_grace
        self.monotonic = monotonic
        self._verdicts: _Remembered[bool] = _Remembered()
        self._emails: _Remembered[str | None] = _Remembered()
        self.reviews = 0  # SubjectAccessReviews asked so far

    # --- the port -----------------------------------------------------------------------------------

    async def visible_namespaces(self, user: str, channel: str) -> Sequence[str] | None:
        """The channel's namespaces this user may read; None when the channel is not limited (each namespace
        is then checked on its own, with may_see)."""
        listed = await self.channel_policy.visible_namespaces(user, channel)
        if listed is None:
            return None
        identity = await self.identity(user)
        if identity is None:
            return []
        allowed = await asyncio.gather(*(self._allowed(identity, namespace) for namespace in listed))
        return [namespace for namespace, ok in zip(listed, allowed, strict=True) if ok]

    async def may_see(self, user: str, channel: str, namespace: str) -> bool:
        if not await self.channel_policy.may_see(user, channel, namespace):
            return False
        identity = await self.identity(user)
        return identity is not None and await self._allowed(identity, namespace)

    # --- identity -----------------------------------------------------------------------------------

    async def identity(self, user: str) -> str | None:
        """The Kubernetes user name for a Slack user (None: unknown, so denied)."""
        email: str | None = None
        if "{email}" in self.template and user:
            email = await self._email(user)
        identity = identity_for(self.template, user, email)
        if identity is None:
            log.info("access: no Kubernetes identity for a Slack user", extra={"user": user})
        return identity

    async def _email(self, user: str) -> str | None:
        now = self.monotonic()
        known = self._emails.get(user)
        if known is not None:
            at, email = known
            if now - at < (self.email_ttl if email else self.deny_ttl):
                return email
        email = await self.email_of(user)
        self._emails.put(user, self.monotonic(), email)
        return email

    # --- reviews ------------------------------------------------------------------------------------

    async def _allowed(self, identity: str, namespace: str) -> bool:
        key = (identity, namespace)
        known = self._verdicts.get(key)
        now = self.monotonic()
        if known is not None:
            at, allowed = known
            if now - at < (self.allow_ttl if allowed else self.deny_ttl):
                return allowed
        try:
            self.reviews += 1
            allowed = await self.review(identity, self.groups, namespace)
        except BotError as error:
            if known is not None and now - known[0] < self.stale_grace:
                log.warning(
                    "access: review failed, the last verdict is used",
                    extra={"namespace": namespace, "age_seconds": int(now - known[0]), "error": str(error)},
                )
                return known[1]
            log.warning("access: review failed", extra={"namespace": namespace, "error": str(error)})
            raise ClusterUnavailable(f"cannot check who may read namespace {namespace}: {error}") from error
        self._verdicts.put(key, self.monotonic(), allowed)
        return allowed


class AuditLog:
    """One INFO line per question on the `kueue_bot.audit` logger: who, where, which job, the outcome, and
    whether it was allowed. Never the question's text."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self.logger = logger or logging.getLogger(AUDIT_LOGGER)

    def __call__(self, entry: AuditEntry) -> None:
        job = f"{entry.namespace}/{entry.name}" if entry.namespace else entry.name
        self.logger.info(
            "audit: question",
            extra={
                "user": entry.user,
                "channel": entry.channel,
                "command": entry.command,
                "job": job,
                "namespace": entry.namespace,
                "kind": entry.kind,
                "outcome": entry.outcome,
                "verdict": entry.verdict,
                "allowed": entry.allowed,
            },
        )
