"""Settings: the only reader of the environment (and of a .env file). Frozen, validated all at once.

Every setting is one row of `SETTINGS`: its variable, the Settings field it fills, the parser of its text and
its default text. A new setting is a new row (and a field, and a documented line in .env.example).

`inspect_settings()` reads them all and returns the settings with every problem found, one line each;
`load_settings()` raises ConfigError listing them. Secrets never appear in a repr, a log line or a problem:
a value that looks like a token, or a URL's credentials, is shown as ***.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from bot.clusters import DEFAULT_DIGEST_AT, AdminSettings, ClusterSpec, parse_admins, parse_clusters, split_scope
from bot.errors import ConfigError

DEFAULT_SLACK_API_URL = "https://slack.com/api/"
_DURATION = re.compile(r"^\s*(\d+)\s*(s|m|h|d)?\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}
_NAMESPACE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_CHANNEL = re.compile(r"^[CDG][A-Z0-9]{2,}$|^\*$")
_USER_OR_CHANNEL = re.compile(r"^[UWCGD][A-Z0-9]{2,}$")
_CLOCK = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_TOKEN_LIKE = re.compile(r"xox[a-z]-|xapp-|eyJ[A-Za-z0-9_-]{10,}")  # Slack tokens, JWTs (service-account tokens)
ENVIRONMENT = "environment"
DEFAULT = "default"


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
    headlamp_url: str = ""  # Headlamp with its cluster path: answers link its Kueue plugin's pages
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
    admin_users: tuple[str, ...] = ()  # ADMINS, who may ask `/kueue admin` and get its digest
    admin_channel: str = ""  # ADMIN_CHANNEL: the digest goes there instead of DMs
    admin_digest_at: tuple[int, int] = DEFAULT_DIGEST_AT  # ADMIN_DIGEST_AT (UTC)
    clusters: tuple[ClusterSpec, ...] = ()  # CLUSTERS (empty: the one cluster of KUBECONFIG / in-cluster)

    @property
    def admin(self) -> AdminSettings:
        return AdminSettings(self.admin_users, self.admin_channel, self.admin_digest_at)

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
        """The effective settings for people, by variable name (NOTIFY_AFTER=15m): secrets masked."""
        return {setting.env: setting.display(getattr(self, setting.field)) for setting in SETTINGS}


class Invalid(ValueError):
    """A setting's text that cannot be used: one line per problem."""

    def __init__(self, *problems: str) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


# --- showing values without leaking them ----------------------------------------------------------------


def mask_url(text: str) -> str:
    """A URL with its credentials (user:password@) and its query values replaced by ***."""
    try:
        parts = urlsplit(text)
    except ValueError:
        return "***"
    netloc = parts.netloc
    if "@" not in netloc and not parts.query:
        return text
    if "@" in netloc:
        netloc = "***@" + netloc.rpartition("@")[2]
    query = "&".join(f"{k}=***" if sep else k for k, sep, _ in (p.partition("=") for p in parts.query.split("&") if p))
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def shown(text: str) -> str:
    """A value as it may appear in a message: quoted; *** when it looks like a token; a URL's secrets masked."""
    if _TOKEN_LIKE.search(text):
        return "'***'"
    if "://" in text:
        return repr(mask_url(text))
    return repr(text)


def _duration_text(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds and seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _display(value: object) -> str:
    if isinstance(value, Secret):
        return "(set, hidden)" if value else "(not set)"
    if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        return ",".join(value) or "-"
    if isinstance(value, Mapping):
        entries = (f"{k}={','.join(v) if isinstance(v, tuple) else v}" for k, v in value.items())
        return "; ".join(entries) or "-"
    if value is None or value == "":
        return "-"
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return shown(text)[1:-1] if _TOKEN_LIKE.search(text) or "://" in text else text


def _quiet_display(value: object) -> str:
    if not isinstance(value, tuple):
        return "-"
    (h1, m1), (h2, m2) = value
    return f"{h1:02d}:{m1:02d}-{h2:02d}:{m2:02d}"


# --- parsers: a setting's text (stripped, its default when empty) -> its value, or Invalid ----------------


def parse_duration(text: str) -> int:
    """ "15m" -> 900, "2h" -> 7200, "90" -> 90 (seconds). Raises ValueError."""
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"not a duration: {shown(text)} (use 90s, 15m, 2h or 1d)")
    return int(match.group(1)) * _UNITS[match.group(2)]


def _text(text: str) -> str:
    return text


def _optional(text: str) -> str | None:
    return text or None


def _secret(text: str) -> Secret:
    return Secret(text)


def _port(text: str) -> int:
    if text.isdigit() and 0 < int(text) < 65536:
        return int(text)
    raise Invalid(f"{shown(text)} is not a port number (1-65535)")


def _no_credentials(text: str) -> None:
    parts = urlsplit(text)
    if "@" in parts.netloc or _TOKEN_LIKE.search(text):
        raise Invalid(
            f"{shown(text)} carries credentials: they would show wherever the URL is logged; "
            "give them in their own setting (SLACK_BOT_TOKEN) or the kubeconfig"
        )


def _api_url(text: str) -> str:
    if not re.match(r"^https?://[^\s/]+", text):
        raise Invalid(f"{shown(text)} is not an http(s) URL")
    _no_credentials(text)
    return text if text.endswith("/") else text + "/"


def _page_url(text: str) -> str:
    """An http(s) address readers open (no trailing slash), or "" when not set."""
    if not text:
        return ""
    if not re.match(r"^https?://[^\s/]+[^\s]*$", text):
        raise Invalid(f"{shown(text)} is not an http(s) URL")
    _no_credentials(text)
    return text.rstrip("/")


def _state_url(text: str) -> str:
    if not (text.startswith("sqlite:///") or text.startswith("kubernetes://")):
        raise Invalid(f"{shown(text)} is neither sqlite:///PATH nor kubernetes://")
    _no_credentials(text)
    return text


def _choice(*options: str, upper: bool = False) -> Callable[[str], str]:
    words = ", ".join(options[:-1]) + f" or {options[-1]}"

    def parse(text: str) -> str:
        value = text.upper() if upper else text.lower()
        if value not in options:
            raise Invalid(f"{shown(value)} is not {words}")
        return value

    return parse


def _bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("", "0", "false", "no", "off"):
        return False
    raise Invalid(f"{shown(text)} is not true or false")


def _seconds(text: str) -> int:
    try:
        return parse_duration(text)
    except ValueError as error:
        raise Invalid(str(error)) from None


def _kubeconfig(text: str) -> str | None:
    """A kubeconfig file, or several separated by ':' (kubectl merges those that exist): one must exist."""
    if not text:
        return None
    files = [Path(part).expanduser() for part in text.split(os.pathsep) if part]
    if files and not any(path.is_file() for path in files):
        raise Invalid(f"no such file: {', '.join(str(path) for path in files)}")
    return text


def _template(text: str) -> str:
    if text and "{email}" not in text and "{user_id}" not in text:
        raise Invalid("it must contain {email} or {user_id}")
    return text


def _groups(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(g.strip() for g in text.split(",") if g.strip()))


def _entries(text: str) -> Iterable[str]:
    return filter(None, (part.strip() for part in text.split(";")))


def _channel_namespaces(text: str) -> dict[str, tuple[str, ...]]:
    """ "C0123ABCD=team-a,team-b;*=shared" -> {"C0123ABCD": ("team-a", "team-b"), "*": ("shared",)}."""
    result: dict[str, tuple[str, ...]] = {}
    problems: list[str] = []
    for entry in _entries(text):
        channel, sep, names = (s.strip() for s in entry.partition("="))
        namespaces = tuple(n.strip() for n in names.split(",") if n.strip())
        bad = [n for n in namespaces if not _NAMESPACE.match(split_scope(n)[1]) or split_scope(n)[0] == ""]
        if not sep or not _CHANNEL.match(channel):
            problems.append(f"{shown(entry)} is not CHANNEL_ID=ns1,ns2 (a channel ID like C0123ABCD, or *)")
        elif namespaces == ("-",):  # "-": no namespace at all (e.g. `*=-`: unlisted channels may ask nothing)
            result[channel] = ()
        elif bad or not namespaces:
            problems.append(f"{channel} names invalid namespaces: {', '.join(bad) or '(none)'}")
        else:
            result[channel] = namespaces
    if problems:
        raise Invalid(*problems)
    return result


def _namespace_notify(text: str) -> dict[str, str]:
    """ "team-a=U0123ABCD;team-b=C0456EFGH" -> who is told about a namespace's jobs without an owner."""
    result: dict[str, str] = {}
    problems: list[str] = []
    for entry in _entries(text):
        namespace, sep, target = (s.strip() for s in entry.partition("="))
        if not sep or not _NAMESPACE.match(namespace) or not _USER_OR_CHANNEL.match(target):
            problems.append(f"{shown(entry)} is not namespace=U0123ABCD (a Slack user or channel ID)")
            continue
        result[namespace] = target
    if problems:
        raise Invalid(*problems)
    return result


def _one(parse: Callable[[list[str]], Any]) -> Any:
    """A parser of bot.clusters (which lists its problems) as one of this table's (which raises Invalid)."""
    problems: list[str] = []
    value = parse(problems)
    if problems:
        raise Invalid(*(problem.partition(": ")[2] or problem for problem in problems))
    return value


def _admins(text: str) -> tuple[str, ...]:
    return tuple(_one(lambda problems: parse_admins(text, "", "", problems)).admins)


def _admin_channel(text: str) -> str:
    return str(_one(lambda problems: parse_admins("U0PLACEHOLDER", text, "", problems)).channel)


def _digest_at(text: str) -> tuple[int, int]:
    at: tuple[int, int] = _one(lambda problems: parse_admins("", "", text, problems)).digest_at
    return at


def _clusters(text: str) -> tuple[ClusterSpec, ...]:
    found: tuple[ClusterSpec, ...] = _one(lambda problems: parse_clusters(text, problems))
    return found


def _quiet_hours(text: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
    if not text:
        return None
    start, sep, end = text.partition("-")
    first, last = _CLOCK.match(start.strip()), _CLOCK.match(end.strip())
    if not sep or not first or not last:
        raise Invalid(f"{shown(text)} is not HH:MM-HH:MM (e.g. 22:00-08:00)")
    return (int(first.group(1)), int(first.group(2))), (int(last.group(1)), int(last.group(2)))


# --- the table ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One setting: its variable, the Settings field it fills, its parser and its default text."""

    env: str
    field: str
    parse: Callable[[str], Any]
    default: str = ""
    placeholders: tuple[str, ...] = ()  # .env.example's stand-ins: refused, they are not a value
    show: Callable[[Any], str] = _display

    def display(self, value: object) -> str:
        return self.show(value)


SETTINGS: tuple[Setting, ...] = (
    Setting("SLACK_BOT_TOKEN", "slack_bot_token", _secret, placeholders=("xoxb-your-bot-token",)),
    Setting("SLACK_SIGNING_SECRET", "slack_signing_secret", _secret, placeholders=("your-signing-secret",)),
    Setting("SLACK_APP_TOKEN", "slack_app_token", _secret),
    Setting("SLACK_API_URL", "slack_api_url", _api_url, DEFAULT_SLACK_API_URL),
    Setting("HEADLAMP_URL", "headlamp_url", _page_url),
    Setting("PORT", "port", _port, "3000"),
    Setting("HOST", "host", _text, "0.0.0.0"),
    Setting("KUBECONFIG", "kubeconfig", _kubeconfig),
    Setting("KUBE_CONTEXT", "kube_context", _optional),
    Setting("CHANNEL_NAMESPACES", "channel_namespaces", _channel_namespaces),
    Setting("USER_IDENTITY_TEMPLATE", "user_identity_template", _template),
    Setting("KUBE_GROUPS", "kube_groups", _groups),
    Setting("AUDIT_LOG", "audit_log", _bool, "true"),
    Setting("NOTIFY_AFTER", "notify_after_seconds", _seconds, "15m", show=lambda v: _duration_text(int(v))),
    Setting("NAMESPACE_NOTIFY", "namespace_notify", _namespace_notify),
    Setting("QUIET_HOURS", "quiet_hours", _quiet_hours, show=_quiet_display),
    Setting("STATE_URL", "state_url", _state_url, "sqlite:///kueue-bot-state.sqlite3"),
    Setting("POD_NAMESPACE", "pod_namespace", _text, "default"),
    Setting("LEADER_ELECTION", "leader_election", _bool, "false"),
    Setting("LEASE_NAME", "lease_name", _text, "kueue-bot-leader"),
    Setting("DEFAULT_LANGUAGE", "default_language", _choice("en", "fr"), "en"),
    Setting("LOG_LEVEL", "log_level", _choice("DEBUG", "INFO", "WARNING", "ERROR", upper=True), "INFO"),
    Setting("LOG_FORMAT", "log_format", _choice("json", "text"), "json"),
    Setting("CLUSTERS", "clusters", _clusters, show=lambda v: "; ".join(str(c) for c in v) or "-"),
    Setting("ADMINS", "admin_users", _admins),
    Setting("ADMIN_CHANNEL", "admin_channel", _admin_channel),
    Setting("ADMIN_DIGEST_AT", "admin_digest_at", _digest_at, "09:00", show=lambda v: f"{v[0]:02d}:{v[1]:02d}"),
)
NAMES = frozenset(setting.env for setting in SETTINGS)


# --- checks across settings -----------------------------------------------------------------------------


def _slack_problems(settings: Settings) -> list[str]:
    bot_token, app_token = settings.slack_bot_token.reveal(), settings.slack_app_token.reveal()
    problems = []
    if not bot_token:
        problems.append("SLACK_BOT_TOKEN is not set (the bot token, xoxb-...)")
    elif not bot_token.startswith("xoxb-"):
        problems.append("SLACK_BOT_TOKEN does not look like a bot token (it starts with xoxb-)")
    if app_token and not app_token.startswith("xapp-"):
        problems.append("SLACK_APP_TOKEN does not look like an app-level token (it starts with xapp-)")
    if not app_token and not settings.slack_signing_secret:
        problems.append("SLACK_SIGNING_SECRET is not set: HTTP mode needs it (or set SLACK_APP_TOKEN for Socket Mode)")
    return problems


def _cross_problems(settings: Settings) -> list[str]:
    problems = []
    if settings.kube_groups and not settings.user_identity_template:
        problems.append("KUBE_GROUPS is set but USER_IDENTITY_TEMPLATE is not: the groups would never be used")
    if settings.admin_channel and not settings.admin_users:
        problems.append("ADMIN_CHANNEL is set but ADMINS is not: name the admins who may ask `/kueue admin`")
    clusters = {c.name for c in settings.clusters}
    for channel, entries in settings.channel_namespaces.items():  # `cluster/ns` names a cluster
        scoped = sorted({cluster for cluster, _ in map(split_scope, entries) if cluster is not None} - clusters)
        if scoped:
            why = "not in CLUSTERS" if clusters else "but CLUSTERS is not set"
            problems.append(f"CHANNEL_NAMESPACES: {channel} names cluster(s) {', '.join(scoped)}, {why}")
    return problems


def unknown_problems(keys: Iterable[str], *, every: bool) -> list[str]:
    """Variables that are not settings: every one of `keys` (a .env file), or (the environment, where other
    programs' variables live too) only those so close to a setting's name that they must be a typo of it."""
    problems = []
    for key in sorted(set(keys) - NAMES):
        close = difflib.get_close_matches(key, NAMES, n=1, cutoff=0.6 if every else 0.88)
        if close:
            problems.append(f"{key} is not a setting: did you mean {close[0]}?")
        elif every:
            problems.append(f"{key} is not a setting (see .env.example for the names)")
    return problems


# --- reading them ---------------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Inspection:
    """What the settings are, where each came from (the environment, the .env file, the default), and every
    problem found, one line each. An invalid setting holds its default in `settings`."""

    settings: Settings
    problems: tuple[str, ...]
    origins: Mapping[str, str]
    invalid: frozenset[str]

    def rows(self) -> list[tuple[str, str, str]]:
        """(variable, value as shown, where it came from) for every setting; secrets masked."""
        values = self.settings.masked()
        return [
            (name, "(invalid: see below)" if name in self.invalid else values[name], self.origins[name])
            for name in values
        ]


def _read(setting: Setting, text: str) -> tuple[Any, tuple[str, ...]]:
    """A setting's value and its problems (then the value is its default, or the placeholder as it is)."""
    if text and text in setting.placeholders:
        return setting.parse(text), ("still the placeholder of .env.example: set the real value",)
    try:
        return setting.parse(text or setting.default), ()
    except Invalid as error:
        return setting.parse(setting.default), error.problems


def inspect_settings(
    environ: Mapping[str, str] | None = None, *, env_file: str | Path | None = ".env", require_slack: bool = True
) -> Inspection:
    """Every setting from the environment, over a .env file when one exists, and every problem with them."""
    from_file: dict[str, str] = {}
    if env_file is not None and Path(env_file).is_file():
        from_file = read_env_file(Path(env_file))
    environment = dict(os.environ if environ is None else environ)
    problems = unknown_problems(from_file, every=True) + unknown_problems(environment, every=False)
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    invalid: set[str] = set()
    for setting in SETTINGS:
        raw = environment.get(setting.env, from_file.get(setting.env, ""))
        text = raw.strip()
        origins[setting.env] = (ENVIRONMENT if setting.env in environment else str(env_file)) if text else DEFAULT
        values[setting.field], found = _read(setting, text)
        if found:
            problems.extend(f"{setting.env}: {problem}" for problem in found)
            invalid.add(setting.env)
    settings = Settings(**values)
    problems += _cross_problems(settings) + (_slack_problems(settings) if require_slack else [])
    unique = tuple(dict.fromkeys(problems))
    return Inspection(settings, unique, origins, frozenset(invalid))


def load_settings(
    environ: Mapping[str, str] | None = None, *, env_file: str | Path | None = ".env", require_slack: bool = True
) -> Settings:
    """Settings from the environment, over a .env file when one exists. Raises ConfigError (all problems)."""
    inspection = inspect_settings(environ, env_file=env_file, require_slack=require_slack)
    if inspection.problems:
        raise ConfigError("invalid settings:\n" + "\n".join(f"  - {p}" for p in inspection.problems))
    return inspection.settings
