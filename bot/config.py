"""Settings: the only reader of the environment (and of a .env file). Frozen, validated all at once.

`load_settings()` raises ConfigError listing every problem; secrets never appear in a repr or a log line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from bot.clusters import AdminSettings, ClusterSpec, parse_admins, parse_clusters, split_scope
from bot.errors import ConfigError

DEFAULT_SLACK_API_URL = "https://slack.com/api/"
_DURATION = re.compile(r"^\s*(\d+)\s*(s|m|h|d)?\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}
_NAMESPACE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_CHANNEL = re.compile(r"^[CDG][A-Z0-9]{2,}$|^\*$")
_USER_OR_CHANNEL = re.compile(r"^[UWCGD][A-Z0-9]{2,}$")
_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


class Secret:
    """A secret value: usable with .reveal(), shown as *** everywhere else."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret('***')" if self._value else "Secret('')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


@dataclass(frozen=True)
class Settings:
    slack_bot_token: Secret = field(default_factory=lambda: Secret(""))
    slack_signing_secret: Secret = field(default_factory=lambda: Secret(""))
    slack_app_token: Secret = field(default_factory=lambda: Secret(""))
    slack_api_url: str = DEFAULT_SLACK_API_URL
    host: str = "0.0.0.0"
    port: int = 3000
    kubeconfig: str | None = None
    kube_context: str | None = None
    channel_namespaces: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    namespace_notify: Mapping[str, str] = field(default_factory=dict)
    notify_after_seconds: int = 15 * 60
    quiet_hours: tuple[tuple[int, int], tuple[int, int]] | None = None
    state_url: str = "sqlite:///kueue-bot-state.sqlite3"
    default_language: str = "en"
    log_level: str = "INFO"
    log_format: str = "json"
    pod_namespace: str = "default"
    leader_election: bool = False
    lease_name: str = "kueue-bot-leader"
    user_identity_template: str = ""
    kube_groups: tuple[str, ...] = ()
    audit_log: bool = True
    admin: AdminSettings = field(default_factory=AdminSettings)  # issue 17: ADMINS, ADMIN_CHANNEL, ADMIN_DIGEST_AT
    clusters: tuple[ClusterSpec, ...] = ()  # issue 17: CLUSTERS (empty: the one cluster of KUBECONFIG/in-cluster)

    @property
    def socket_mode(self) -> bool:
        return bool(self.slack_app_token)

    def namespaces_for_channel(self, channel: str) -> tuple[str, ...] | None:
        """The namespaces a channel may ask about (None: any)."""
        if channel in self.channel_namespaces:
            return self.channel_namespaces[channel]
        # Deny by default: once any channel is listed, one not listed (a DM too) sees nothing unless `*` says.
        return self.channel_namespaces.get("*", () if self.channel_namespaces else None)

    def masked(self) -> dict[str, str]:
        """The effective settings for people: secrets masked."""
        shown: dict[str, str] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, Secret):
                text = "(set, hidden)" if value else "(not set)"
            elif isinstance(value, tuple) and value and all(isinstance(v, ClusterSpec) for v in value):
                text = "; ".join(str(v) for v in value)
            elif isinstance(value, tuple) and all(isinstance(v, str) for v in value):
                text = ",".join(value) or "-"
            elif isinstance(value, Mapping):
                text = "; ".join(f"{k}={','.join(v) if isinstance(v, tuple) else v}" for k, v in value.items()) or "-"
            else:
                text = "-" if value is None or value == "" else str(value)
            shown[item.name.upper()] = text
        return shown


def parse_duration(text: str) -> int:
    """ "15m" -> 900, "2h" -> 7200, "90" -> 90 (seconds). Raises ValueError."""
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"not a duration: {text!r} (use 90s, 15m, 2h or 1d)")
    return int(match.group(1)) * _UNITS[match.group(2)]


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines; # comments, blank lines, `export ` and quotes allowed."""
    values: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or "=" not in stripped:
            continue
        key, _, value = stripped.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        else:
            value = value.split(" #", 1)[0].strip()
        values[key.strip()] = value
    return values


def _channel_namespaces(text: str, problems: list[str], clusters: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    """ "C0123ABCD=team-a,team-b;*=shared" -> {"C0123ABCD": ("team-a", "team-b"), "*": ("shared",)}."""
    result: dict[str, tuple[str, ...]] = {}
    for entry in filter(None, (part.strip() for part in text.split(";"))):
        channel, sep, names = entry.partition("=")
        channel = channel.strip()
        namespaces = tuple(n.strip() for n in names.split(",") if n.strip())
        if not sep or not _CHANNEL.match(channel):
            problems.append(
                f"CHANNEL_NAMESPACES: {entry!r} is not CHANNEL_ID=ns1,ns2 (a channel ID like C0123ABCD, or *)"
            )
            continue
        if namespaces == ("-",):  # "-": no namespace at all (e.g. `*=-`: unlisted channels may ask nothing)
            result[channel] = ()
            continue
        bad = [n for n in namespaces if not _scoped_namespace(n, clusters)]
        if bad or not namespaces:
            problems.append(f"CHANNEL_NAMESPACES: {channel} names invalid namespaces: {', '.join(bad) or '(none)'}")
            continue
        result[channel] = namespaces
    return result


def _scoped_namespace(entry: str, clusters: tuple[str, ...]) -> bool:
    """A namespace, or (with CLUSTERS) `cluster/namespace` for a configured cluster."""
    cluster, namespace = split_scope(entry)
    if cluster is not None and cluster not in clusters:
        return False
    return bool(_NAMESPACE.match(namespace))


def _namespace_notify(text: str, problems: list[str]) -> dict[str, str]:
    """ "team-a=U0123ABCD;team-b=C0456EFGH" -> who is told about a namespace's jobs without an owner."""
    result: dict[str, str] = {}
    for entry in filter(None, (part.strip() for part in text.split(";"))):
        namespace, sep, target = (s.strip() for s in entry.partition("="))
        if not sep or not _NAMESPACE.match(namespace) or not _USER_OR_CHANNEL.match(target):
            problems.append(f"NAMESPACE_NOTIFY: {entry!r} is not namespace=U0123ABCD (a Slack user or channel ID)")
            continue
        result[namespace] = target
    return result


def _quiet_hours(text: str, problems: list[str]) -> tuple[tuple[int, int], tuple[int, int]] | None:
    if not text.strip():
        return None
    start, sep, end = text.partition("-")
    first, last = _CLOCK.match(start.strip()), _CLOCK.match(end.strip())
    if not sep or not first or not last:
        problems.append(f"QUIET_HOURS: {text!r} is not HH:MM-HH:MM (e.g. 22:00-08:00)")
        return None
    return (int(first.group(1)), int(first.group(2))), (int(last.group(1)), int(last.group(2)))


def _bool(name: str, text: str, problems: list[str]) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("", "0", "false", "no", "off"):
        return False
    problems.append(f"{name}: {text!r} is not true or false")
    return False


def load_settings(
    environ: Mapping[str, str] | None = None, *, env_file: str | Path | None = ".env", require_slack: bool = True
) -> Settings:
    """Settings from the environment, over a .env file when one exists. Raises ConfigError (all problems)."""
    values: dict[str, str] = {}
    if env_file is not None and Path(env_file).is_file():
        values.update(read_env_file(Path(env_file)))
    values.update(os.environ if environ is None else environ)
    get = values.get
    problems: list[str] = []

    bot_token = get("SLACK_BOT_TOKEN", "").strip()
    signing_secret = get("SLACK_SIGNING_SECRET", "").strip()
    app_token = get("SLACK_APP_TOKEN", "").strip()
    if require_slack:
        if not bot_token:
            problems.append("SLACK_BOT_TOKEN is not set (the bot token, xoxb-...)")
        elif not bot_token.startswith("xoxb-"):
            problems.append("SLACK_BOT_TOKEN does not look like a bot token (it starts with xoxb-)")
        if app_token and not app_token.startswith("xapp-"):
            problems.append("SLACK_APP_TOKEN does not look like an app-level token (it starts with xapp-)")
        if not app_token and not signing_secret:
            problems.append(
                "SLACK_SIGNING_SECRET is not set: HTTP mode needs it (or set SLACK_APP_TOKEN for Socket Mode)"
            )

    api_url = get("SLACK_API_URL", "").strip() or DEFAULT_SLACK_API_URL
    if not re.match(r"^https?://[^\s/]+", api_url):
        problems.append(f"SLACK_API_URL: {api_url!r} is not an http(s) URL")
    elif not api_url.endswith("/"):
        api_url += "/"

    port = 3000
    port_text = get("PORT", "").strip()
    if port_text:
        if port_text.isdigit() and 0 < int(port_text) < 65536:
            port = int(port_text)
        else:
            problems.append(f"PORT: {port_text!r} is not a port number (1-65535)")

    notify_after = 15 * 60
    if get("NOTIFY_AFTER", "").strip():
        try:
            notify_after = parse_duration(get("NOTIFY_AFTER", ""))
        except ValueError as error:
            problems.append(f"NOTIFY_AFTER: {error}")

    language = (get("DEFAULT_LANGUAGE", "") or "en").strip().lower()
    if language not in ("en", "fr"):
        problems.append(f"DEFAULT_LANGUAGE: {language!r} is not en or fr")
        language = "en"

    level = (get("LOG_LEVEL", "") or "INFO").strip().upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        problems.append(f"LOG_LEVEL: {level!r} is not DEBUG, INFO, WARNING or ERROR")
        level = "INFO"
    log_format = (get("LOG_FORMAT", "") or "json").strip().lower()
    if log_format not in ("json", "text"):
        problems.append(f"LOG_FORMAT: {log_format!r} is not json or text")
        log_format = "json"

    state_url = (get("STATE_URL", "") or "sqlite:///kueue-bot-state.sqlite3").strip()
    if not (state_url.startswith("sqlite:///") or state_url.startswith("kubernetes://")):
        problems.append(f"STATE_URL: {state_url!r} is neither sqlite:///PATH nor kubernetes://")

    template = get("USER_IDENTITY_TEMPLATE", "").strip()
    if template and "{email}" not in template and "{user_id}" not in template:
        problems.append("USER_IDENTITY_TEMPLATE must contain {email} or {user_id}")
    kube_groups = tuple(dict.fromkeys(g.strip() for g in get("KUBE_GROUPS", "").split(",") if g.strip()))
    if kube_groups and not template:
        problems.append("KUBE_GROUPS is set but USER_IDENTITY_TEMPLATE is not: the groups would never be used")

    clusters = parse_clusters(get("CLUSTERS", ""), problems)
    settings = Settings(
        slack_bot_token=Secret(bot_token),
        slack_signing_secret=Secret(signing_secret),
        slack_app_token=Secret(app_token),
        slack_api_url=api_url,
        host=get("HOST", "").strip() or "0.0.0.0",
        port=port,
        kubeconfig=get("KUBECONFIG", "").strip() or None,
        kube_context=get("KUBE_CONTEXT", "").strip() or None,
        channel_namespaces=_channel_namespaces(
            get("CHANNEL_NAMESPACES", ""), problems, tuple(c.name for c in clusters)
        ),
        namespace_notify=_namespace_notify(get("NAMESPACE_NOTIFY", ""), problems),
        notify_after_seconds=notify_after,
        quiet_hours=_quiet_hours(get("QUIET_HOURS", ""), problems),
        state_url=state_url,
        default_language=language,
        log_level=level,
        log_format=log_format,
        pod_namespace=get("POD_NAMESPACE", "").strip() or "default",
        leader_election=_bool("LEADER_ELECTION", get("LEADER_ELECTION", ""), problems),
        lease_name=get("LEASE_NAME", "").strip() or "kueue-bot-leader",
        user_identity_template=template,
        kube_groups=kube_groups,
        audit_log=_bool("AUDIT_LOG", get("AUDIT_LOG", "true"), problems),
        clusters=clusters,
        admin=parse_admins(get("ADMINS", ""), get("ADMIN_CHANNEL", ""), get("ADMIN_DIGEST_AT", ""), problems),
    )
    if problems:
        raise ConfigError("invalid settings:\n" + "\n".join(f"  - {p}" for p in problems))
    return settings
