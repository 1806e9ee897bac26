"""What the bot remembers between restarts: subscriptions, the proactive messages it sent, snoozes and mutes.

Plain frozen data. Every datetime is aware and in UTC (a naive one is refused, another zone is converted).
A store (bot.notify.store) keeps these; the notification policy reads a `State` and decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property

ALL = "*"  # a snooze key: every notification of the user (no button makes one any more)

_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def job_key(namespace: str, name: str) -> str:
    """A snooze's key for every notification about one job (a Workload's key has three parts, this two)."""
    return f"{namespace}/{name}"


def utc(moment: datetime) -> datetime:
    """The same instant in UTC; ValueError for a naive datetime (its zone would be a guess)."""
    if moment.tzinfo is None or moment.tzinfo.utcoffset(moment) is None:
        raise ValueError(f"a naive datetime ({moment.isoformat()}) where an aware UTC one is expected")
    return moment.astimezone(UTC)


def format_time(moment: datetime) -> str:
    """Fixed width, so that text order is time order: 2026-11-03T10:00:00.000000Z."""
    return utc(moment).strftime(_TIME_FORMAT)


def parse_time(text: str) -> datetime:
    """The inverse of format_time (any ISO 8601 with a zone is accepted)."""
    return utc(datetime.fromisoformat(text.replace("Z", "+00:00")))


def _aware(record: object, *names: str) -> None:
    for name in names:
        value = getattr(record, name)
        if value is not None and value.tzinfo is not UTC:  # (one in UTC already is kept as it is)
            object.__setattr__(record, name, utc(value))


@dataclass(frozen=True)
class Subscription:
    """A Slack user watches a job (`/kueue watch ns/job` or the Watch button). Identity: user, namespace, name."""

    user: str
    namespace: str
    name: str
    kind: str | None
    created: datetime

    def __post_init__(self) -> None:
        _aware(self, "created")


@dataclass(frozen=True, slots=True)
class Delivery:
    """A proactive message about one Workload (key "namespace/workload-name/workload-uid") to one target
    (a Slack user ID or a channel ID). `ts is None`: the send was intended but not confirmed (after a crash,
    reconcile before sending again). Identity: key, target."""

    key: str
    target: str
    channel: str
    ts: str | None
    verdict: str
    position: int | None
    headline: str
    sent_at: datetime
    updated_at: datetime
    closed_at: datetime | None
    digest: bool = False
    job: str = ""  # "namespace/name" of the job the DM is about ("": recorded before the bot kept it)
    since: datetime | None = None  # when the job's wait began, as known when the DM was sent
    eta: str = ""  # the mark of the ETA the message gave (bot.forecast.outlook.eta_mark; "": none)

    def __post_init__(self) -> None:
        _aware(self, "sent_at", "updated_at", "closed_at", "since")

    @property
    def confirmed(self) -> bool:
        return self.ts is not None

    @property
    def open(self) -> bool:
        return self.closed_at is None


@dataclass(frozen=True)
class Told:
    """What one message says about one Workload to one target: what its delivery records when the message is
    about to leave (an intent), when Slack confirmed it, and when it is edited (verdict, position, headline and
    ETA only)."""

    key: str
    target: str
    verdict: str
    position: int | None
    headline: str
    eta: str = ""
    digest: bool = False
    job: str = ""
    since: datetime | None = None

    def __post_init__(self) -> None:
        _aware(self, "since")

    @classmethod
    def of(cls, delivery: Delivery) -> Told:
        d = delivery
        return cls(d.key, d.target, d.verdict, d.position, d.headline, d.eta, d.digest, d.job, d.since)


LEGACY_ETA_MARK = "|eta="  # where deliveries kept their ETA's mark before it had a field: "headline|eta=mark"


def split_legacy(headline: str) -> tuple[str, str]:
    """(headline, ETA mark) of a headline recorded with its mark inside it."""
    head, _, mark = headline.partition(LEGACY_ETA_MARK)
    return head, mark


@dataclass(frozen=True)
class Fence:
    """What a leader's write carries to prove it still leads: the Lease holder's identity and the token of
    its tenure (the Lease's leaseTransitions when it was acquired; a new holder has a larger one). A store
    that saw a larger token, or the same token from another holder, refuses the write (bot.errors.Fenced)."""

    holder: str
    token: int


@dataclass(frozen=True)
class Snooze:
    """No notification about `key` (a Delivery key, or "*" for all) to `user` until `until`."""

    user: str
    key: str
    until: datetime

    def __post_init__(self) -> None:
        _aware(self, "until")


@dataclass(frozen=True)
class Mute:
    """No proactive notification at all to `user`, since `since`, until unmuted."""

    user: str
    since: datetime

    def __post_init__(self) -> None:
        _aware(self, "since")


@dataclass(frozen=True)
class State:
    """Everything remembered, each collection sorted by identity (so that two loads compare equal)."""

    subscriptions: tuple[Subscription, ...] = ()
    deliveries: tuple[Delivery, ...] = ()
    snoozes: tuple[Snooze, ...] = ()
    mutes: tuple[Mute, ...] = ()

    @classmethod
    def of(
        cls,
        subscriptions: Iterable[Subscription] = (),
        deliveries: Iterable[Delivery] = (),
        snoozes: Iterable[Snooze] = (),
        mutes: Iterable[Mute] = (),
    ) -> State:
        """A State with its collections in the canonical order."""
        return cls(
            tuple(sorted(subscriptions, key=lambda s: (s.user, s.namespace, s.name))),
            tuple(sorted(deliveries, key=lambda d: (d.key, d.target))),
            tuple(sorted(snoozes, key=lambda s: (s.user, s.key))),
            tuple(sorted(mutes, key=lambda m: m.user)),
        )

    def delivery_for(self, key: str, target: str) -> Delivery | None:
        return next((d for d in self.deliveries if d.key == key and d.target == target), None)

    def open_deliveries(self) -> tuple[Delivery, ...]:
        return tuple(d for d in self.deliveries if d.closed_at is None)

    def unconfirmed(self) -> tuple[Delivery, ...]:
        """Open deliveries whose send was never confirmed (the bot stopped between intent and answer)."""
        return tuple(d for d in self.deliveries if d.closed_at is None and d.ts is None)

    def is_snoozed(self, user: str, key: str, now: datetime, *, job: str | None = None) -> bool:
        """Whether `user` snoozed `key` (a Workload's), its `job` (job_key), or everything until after `now`."""
        now = utc(now)
        snoozes = self._snoozes_by_user.get(user)
        if not snoozes:
            return False
        keys = (key, ALL, job) if job else (key, ALL)
        return any(s.key in keys and s.until > now for s in snoozes)

    def is_muted(self, user: str) -> bool:
        return user in self._muted

    @cached_property
    def _snoozes_by_user(self) -> dict[str, list[Snooze]]:
        """Each user's snoozes (the policy asks about every open DM: a scan of every snooze each time grew with
        the product of both)."""
        found: dict[str, list[Snooze]] = {}
        for snooze in self.snoozes:
            found.setdefault(snooze.user, []).append(snooze)
        return found

    @cached_property
    def _muted(self) -> frozenset[str]:
        return frozenset(m.user for m in self.mutes)

    def subscriptions_of(self, user: str) -> tuple[Subscription, ...]:
        return tuple(s for s in self.subscriptions if s.user == user)

    def watchers_of(self, namespace: str, name: str) -> tuple[Subscription, ...]:
        """The subscriptions to the job namespace/name (one per watching user)."""
        return tuple(s for s in self.subscriptions if s.namespace == namespace and s.name == name)
