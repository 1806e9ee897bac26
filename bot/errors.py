"""Errors raised when the bot cannot answer. A pending job is not an error: it is a verdict."""

from __future__ import annotations


class BotError(Exception):
    """Base of the errors the bot turns into one clear line for a person."""


class DumpUnreadable(BotError):
    """A dump file that cannot be read as Kubernetes objects."""


class ClusterUnavailable(BotError):
    """The Kubernetes API cannot be reached, or answered with a server error."""


class Forbidden(BotError):
    """The identity the bot uses may not read what the question needs."""


class NotServed(BotError):
    """A kind or an API (Kueue, the pending-workloads API) is not served by this cluster."""


class BadQuery(BotError):
    """A question that does not name a job the way the bot understands."""


class ConfigError(BotError):
    """Settings that are missing or invalid; the message lists every problem at once."""


class StoreUnavailable(BotError):
    """The bot's own state (subscriptions, notifications sent) cannot be read or written right now:
    the database is locked or full, or its ConfigMaps cannot be reached. Nothing was changed."""


class Fenced(StoreUnavailable):
    """A write by a replica that no longer holds the leader Lease (its fencing token is older than one the
    store has seen, or the Lease names another holder): refused, nothing changed. The replica stops acting."""


class LeaseLost(BotError):
    """This replica no longer leads (its fence is gone): what it was doing for the leader stops here."""


class SlackUnavailable(BotError):
    """A Slack Web API call failed (an error answer, a rate limit past the retries, Slack out of reach)."""

    def __init__(self, method: str, error: str) -> None:
        super().__init__(f"Slack {method} failed: {error}")
        self.method = method
        self.error = error


class JobFileInvalid(BotError):
    """A job file (what a user would `kubectl apply`) that is not one job the bot knows: several documents, not
    a Kubernetes object, a kind Kueue does not manage, or not YAML or JSON."""


class SlackUndeliverable(SlackUnavailable):
    """A Slack call that can never succeed for this message: its conversation, the message itself or the person
    it was for is gone (bot.slack.failures sorts Slack's errors)."""
