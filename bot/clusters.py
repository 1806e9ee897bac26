"""The settings of the admins and of several clusters, parsed (pure; bot.config reads the environment and calls
these): the admins who get the admins' view and its daily digest, and the clusters one bot serves.

    ADMINS=U0123ABCD,U0456EFGH     who may ask `/kueue admin`, and who gets the digest by DM
    ADMIN_CHANNEL=C0789IJKL        post the digest there instead of DMs (optional)
    ADMIN_DIGEST_AT=09:00          when the day's digest is due (UTC); edited in place as things change
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_USER = re.compile(r"^[UW][A-Z0-9]{2,}$")
_CHANNEL = re.compile(r"^[CG][A-Z0-9]{2,}$")
_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
DEFAULT_DIGEST_AT = (9, 0)


@dataclass(frozen=True)
class AdminSettings:
    admins: tuple[str, ...] = ()
    channel: str = ""
    digest_at: tuple[int, int] = DEFAULT_DIGEST_AT

    @property
    def targets(self) -> tuple[str, ...]:
        """Where the digest goes: the channel, else each admin's DM."""
        return (self.channel,) if self.channel else self.admins

    def is_admin(self, user: str) -> bool:
        return user in self.admins

    def __str__(self) -> str:
        hour, minute = self.digest_at
        admins = ",".join(self.admins) or "-"
        return f"admins={admins} channel={self.channel or '-'} digest at {hour:02d}:{minute:02d} UTC"


def parse_admins(admins: str, channel: str, digest_at: str, problems: list[str]) -> AdminSettings:
    users = tuple(dict.fromkeys(u.strip() for u in admins.split(",") if u.strip()))
    bad = [u for u in users if not _USER.match(u)]
    if bad:
        problems.append(f"ADMINS: {', '.join(bad)} are not Slack user IDs (like U0123ABCD)")
        users = tuple(u for u in users if u not in bad)
    channel = channel.strip()
    if channel and not _CHANNEL.match(channel):
        problems.append(f"ADMIN_CHANNEL: {channel!r} is not a Slack channel ID (like C0123ABCD)")
        channel = ""
    if channel and not users:
        problems.append("ADMIN_CHANNEL is set but ADMINS is not: name the admins who may ask `/kueue admin`")
    at = DEFAULT_DIGEST_AT
    if digest_at.strip():
        match = _CLOCK.match(digest_at.strip())
        if match is None:
            problems.append(f"ADMIN_DIGEST_AT: {digest_at!r} is not HH:MM (UTC, e.g. 09:00)")
        else:
            at = (int(match.group(1)), int(match.group(2)))
    return AdminSettings(users, channel, at)


# --- item 1: several clusters ---------------------------------------------------------------------------------

_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
IN_CLUSTER = "in-cluster"
CONTEXT = "context"
FILE = "file"


@dataclass(frozen=True)
class ClusterSpec:
    """One cluster of CLUSTERS: `name=in-cluster`, `name=context:CTX` (a context of KUBECONFIG) or
    `name=file:PATH` / `name=file:PATH@CTX` (a kubeconfig file, e.g. mounted from a Secret)."""

    name: str
    how: str  # in-cluster | context | file
    context: str | None = None
    path: str | None = None

    def __str__(self) -> str:
        if self.how == IN_CLUSTER:
            return f"{self.name}=in-cluster"
        if self.how == CONTEXT:
            return f"{self.name}=context:{self.context}"
        return f"{self.name}=file:{self.path}" + (f"@{self.context}" if self.context else "")


def parse_clusters(text: str, problems: list[str]) -> tuple[ClusterSpec, ...]:
    """ "prod-eu=context:prod-eu;prod-us=file:/etc/kueue-bot/prod-us/kubeconfig;here=in-cluster" -> specs."""
    specs: dict[str, ClusterSpec] = {}
    for entry in filter(None, (part.strip() for part in text.split(";"))):
        name, sep, how = (s.strip() for s in entry.partition("="))
        if not sep or not _NAME.match(name):
            problems.append(f"CLUSTERS: {entry!r} is not NAME=in-cluster, NAME=context:CTX or NAME=file:PATH")
            continue
        if name in specs:
            problems.append(f"CLUSTERS: {name} is named twice")
            continue
        kind, _, rest = how.partition(":")
        rest = rest.strip()
        if how == IN_CLUSTER:
            specs[name] = ClusterSpec(name, IN_CLUSTER)
        elif kind == CONTEXT and rest:
            specs[name] = ClusterSpec(name, CONTEXT, context=rest)
        elif kind == FILE and rest:
            path, at, context = rest.partition("@")
            specs[name] = ClusterSpec(name, FILE, context=context.strip() or None if at else None, path=path.strip())
        else:
            problems.append(f"CLUSTERS: {name}={how!r} is not in-cluster, context:CTX or file:PATH[@CTX]")
    return tuple(specs.values())


def split_scope(entry: str) -> tuple[str | None, str]:
    """A CHANNEL_NAMESPACES entry: "prod-eu/team-a" -> ("prod-eu", "team-a"); "team-a" -> (None, "team-a")."""
    cluster, sep, namespace = entry.partition("/")
    return (cluster, namespace) if sep else (None, entry)


def namespaces_in(visible: tuple[str, ...] | None, cluster: str) -> tuple[str, ...] | None:
    """The namespaces a channel may see in one cluster: its `cluster/ns` entries and its unscoped ones."""
    if visible is None:
        return None
    found: list[str] = []
    for entry in visible:
        scope, namespace = split_scope(entry)
        if scope is None or scope == cluster:
            found.append(namespace)
    return tuple(dict.fromkeys(found))


def default_cluster(visible: tuple[str, ...] | None) -> str | None:
    """The channel's default cluster: that of its first CHANNEL_NAMESPACES entry, when it names one."""
    if not visible:
        return None
    return split_scope(visible[0])[0]


@dataclass(frozen=True)
class Scoped:
    """A question's text with the cluster it names taken out (`--cluster X`, or an `X/` before ns/name)."""

    cluster: str | None
    text: str
    unknown: str | None = None  # a `--cluster` naming no configured cluster


def scope_question(text: str, clusters: tuple[str, ...], kinds: frozenset[str] = frozenset()) -> Scoped:
    """Find the cluster a question names. `prod-eu/team-a/train` names cluster prod-eu when prod-eu is a
    configured cluster, unless it reads as ns/kind/name (its middle part a job kind in `kinds`)."""
    if not clusters:
        return Scoped(None, text)
    words = text.split()
    cluster: str | None = None
    unknown: str | None = None
    kept: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("--cluster", "-cluster", "--cluster:") and index + 1 < len(words):
            named = words[index + 1].strip()
            if named in clusters:
                cluster = named
            else:
                unknown = named
            index += 2
            continue
        if word.startswith("--cluster="):
            named = word.partition("=")[2].strip()
            if named in clusters:
                cluster = named
            else:
                unknown = named
            index += 1
            continue
        parts = word.split("/")
        as_kind = len(parts) == 3 and parts[1].lower() in kinds  # ns/kind/name, not cluster/ns/name
        if cluster is None and len(parts) >= 3 and parts[0] in clusters and all(parts) and not as_kind:
            cluster = parts[0]
            word = "/".join(parts[1:])
        kept.append(word)
        index += 1
    return Scoped(cluster, " ".join(kept), unknown)
