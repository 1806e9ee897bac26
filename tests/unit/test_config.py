"""Settings: every problem at once, secrets hidden, .env.example documents exactly what is read."""

from __future__ import annotations

import os
import re
from dataclasses import fields
from pathlib import Path

import pytest
from bot.cli import main
from bot.config import NAMES, SETTINGS, Secret, Settings, inspect_settings, load_settings, parse_duration, read_env_file
from bot.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
GOOD = {"SLACK_BOT_TOKEN": "xoxb-1-2-abc", "SLACK_SIGNING_SECRET": "shh"}


def test_defaults() -> None:
    settings = load_settings(GOOD, env_file=None)
    assert settings.port == 3000
    assert settings.notify_after_seconds == 15 * 60
    assert settings.slack_api_url == "https://slack.com/api/"
    assert not settings.socket_mode
    assert settings.namespaces_for_channel("C0123") is None


def test_every_problem_is_listed_at_once() -> None:
    environ = {
        "SLACK_BOT_TOKEN": "not-a-token",
        "PORT": "http",
        "NOTIFY_AFTER": "soon",
        "CHANNEL_NAMESPACES": "general=Team_A",
        "LOG_LEVEL": "loud",
        "STATE_URL": "postgres://x",
        "QUIET_HOURS": "late",
        "DEFAULT_LANGUAGE": "de",
    }
    with pytest.raises(ConfigError) as caught:
        load_settings(environ, env_file=None)
    message = str(caught.value)
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "PORT", "NOTIFY_AFTER", "CHANNEL_NAMESPACES", "LOG_LEVEL",
                 "STATE_URL", "QUIET_HOURS", "DEFAULT_LANGUAGE"):  # fmt: skip
        assert name in message, name
    assert "not-a-token" not in message


@pytest.mark.parametrize(
    ("text", "seconds"), [("90", 90), ("90s", 90), ("15m", 900), ("2h", 7200), ("1d", 86400), (" 3 m ", 180)]
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


def test_channel_namespaces_and_the_star_entry() -> None:
    settings = load_settings({**GOOD, "CHANNEL_NAMESPACES": "C0AAA=team-a,team-b;*=shared"}, env_file=None)
    assert settings.namespaces_for_channel("C0AAA") == ("team-a", "team-b")
    assert settings.namespaces_for_channel("C0OTHER") == ("shared",)


def test_socket_mode_needs_no_signing_secret_and_the_api_url_gets_its_slash() -> None:
    settings = load_settings(
        {"SLACK_BOT_TOKEN": "xoxb-x", "SLACK_APP_TOKEN": "xapp-y", "SLACK_API_URL": "http://127.0.0.1:9/api"},
        env_file=None,
    )
    assert settings.socket_mode
    assert settings.slack_api_url == "http://127.0.0.1:9/api/"


def test_secrets_never_show() -> None:
    settings = load_settings({**GOOD, "SLACK_APP_TOKEN": "xapp-secret-value"}, env_file=None)
    for shown in (repr(settings), str(settings), str(settings.masked())):
        assert "xoxb-1-2-abc" not in shown and "shh" not in shown and "xapp-secret-value" not in shown
    assert Secret("a") == Secret("a") and Secret("a").reveal() == "a"


def test_the_environment_wins_over_the_env_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        '# comment\nexport SLACK_BOT_TOKEN="xoxb-from-file"\nSLACK_SIGNING_SECRET=file # trailing\nPORT=4000\n'
    )
    assert read_env_file(env_file)["SLACK_SIGNING_SECRET"] == "file"
    settings = load_settings({"PORT": "5000"}, env_file=env_file)
    assert settings.port == 5000
    assert settings.slack_bot_token.reveal() == "xoxb-from-file"


def test_env_example_documents_exactly_the_settings() -> None:
    documented = set(read_env_file(ROOT / ".env.example"))
    assert documented == {setting.env for setting in SETTINGS} == NAMES
    # ... and every documented key is explained by a comment right above it.
    lines = (ROOT / ".env.example").read_text().splitlines()
    for index, line in enumerate(lines):
        if re.match(r"^[A-Z_]+=", line):
            above = lines[index - 1]
            assert above.startswith("#") or re.match(r"^[A-Z_]+=", above), line
    assert {f.name for f in fields(Settings)} == {setting.field for setting in SETTINGS}


def test_the_table_defaults_are_the_dataclass_defaults() -> None:
    """Settings() built in code (the demo, the tests) and load_settings() of nothing agree."""
    assert load_settings({}, env_file=None, require_slack=False) == Settings()


def test_the_example_file_is_valid_but_for_its_placeholders() -> None:
    example = read_env_file(ROOT / ".env.example")
    for setting in SETTINGS:
        assert all(example[setting.env] == placeholder for placeholder in setting.placeholders), setting.env
    inspection = inspect_settings({}, env_file=ROOT / ".env.example")
    assert inspection.problems == (
        "SLACK_BOT_TOKEN: still the placeholder of .env.example: set the real value",
        "SLACK_SIGNING_SECRET: still the placeholder of .env.example: set the real value",
    )
    load_settings(GOOD, env_file=ROOT / ".env.example")  # the real values set: valid


PROBLEMS = [
    ({"SLACK_BOT_TOKNE": "xoxb-1-2-abc"}, "SLACK_BOT_TOKNE is not a setting: did you mean SLACK_BOT_TOKEN?"),
    ({"NOTIFY_AFTER_SECONDS": "90"}, "NOTIFY_AFTER_SECONDS is not a setting: did you mean NOTIFY_AFTER?"),
    ({"FROBNICATE": "1"}, "FROBNICATE is not a setting (see .env.example for the names)"),
    ({"KUBECONFIG": "/no/such/kubeconfig"}, "KUBECONFIG: no such file: /no/such/kubeconfig"),
    (
        {"SLACK_API_URL": "https://bot:xoxb-9-9-secret@proxy.example/api/"},
        "SLACK_API_URL: '***' carries credentials: they would show wherever the URL is logged; give them in "
        "their own setting (SLACK_BOT_TOKEN) or the kubeconfig",
    ),
    (
        {"SLACK_API_URL": "https://user:hunter2@proxy.example/api/"},
        "SLACK_API_URL: 'https://***@proxy.example/api/' carries credentials: they would show wherever the URL "
        "is logged; give them in their own setting (SLACK_BOT_TOKEN) or the kubeconfig",
    ),
    ({"PORT": "xoxb-1-2-abc"}, "PORT: '***' is not a port number (1-65535)"),
    ({"SLACK_SIGNING_SECRET": "your-signing-secret"}, "SLACK_SIGNING_SECRET: still the placeholder of .env.example"),
]


@pytest.mark.parametrize(
    ("written", "problem"), PROBLEMS, ids=["typo", "old-name", "unknown", "kubeconfig", "token-in-url",
                                           "password", "token-in-port", "placeholder"]
)  # fmt: skip
def test_a_problem_in_the_env_file_is_one_clear_line(tmp_path: Path, written: dict[str, str], problem: str) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("".join(f"{k}={v}\n" for k, v in {**GOOD, **written}.items()))
    inspection = inspect_settings({}, env_file=env_file)
    assert [p for p in inspection.problems if p.startswith(problem)], inspection.problems
    assert len(inspection.problems) == 1, inspection.problems
    for secret in ("xoxb-1-2-abc", "xoxb-9-9-secret", "hunter2"):
        assert secret not in " ".join(inspection.problems) and secret not in str(inspection.rows())


def test_in_the_environment_only_near_misses_are_unknown_settings() -> None:
    environment = {**GOOD, "PATH": "/bin", "HOSTNAME": "pod-1", "KUBE_EDITOR": "vi", "SLACK_SINGING_SECRET": "x"}
    assert inspect_settings(environment, env_file=None).problems == (
        "SLACK_SINGING_SECRET is not a setting: did you mean SLACK_SIGNING_SECRET?",
    )


def test_the_rows_name_the_variables_and_where_each_came_from(tmp_path: Path) -> None:
    env_file = tmp_path / "my.env"
    env_file.write_text("NOTIFY_AFTER=2h\nPORT=nope\n")
    rows = {name: (value, origin) for name, value, origin in inspect_settings(GOOD, env_file=env_file).rows()}
    assert rows["NOTIFY_AFTER"] == ("2h", str(env_file))
    assert rows["PORT"] == ("(invalid: see below)", str(env_file))
    assert rows["SLACK_BOT_TOKEN"] == ("(set, hidden)", "environment")
    assert rows["LOG_LEVEL"] == ("INFO", "default")
    assert rows["STATE_URL"] == ("sqlite:///kueue-bot-state.sqlite3", "default")
    assert "NOTIFY_AFTER_SECONDS" not in rows


def test_a_kubeconfig_list_needs_one_file_that_exists(tmp_path: Path) -> None:
    (tmp_path / "b").write_text("apiVersion: v1\n")
    listed = f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}"
    assert load_settings({**GOOD, "KUBECONFIG": listed}, env_file=None).kubeconfig == listed


def test_check_config_prints_masked_settings_and_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "PORT"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-hidden\nSLACK_SIGNING_SECRET=psst\n")
    assert main(["check-config"]) == 0
    out = capsys.readouterr().out
    assert "SLACK_BOT_TOKEN" in out and "(set, hidden)" in out and "xoxb-hidden" not in out and "psst" not in out
    (tmp_path / ".env").write_text("PORT=nope\n")
    assert main(["check-config"]) == 2
    err = capsys.readouterr().err
    assert "PORT" in err and "SLACK_BOT_TOKEN" in err


def test_a_star_entry_of_dash_denies_unlisted_channels() -> None:
    settings = load_settings({**GOOD, "CHANNEL_NAMESPACES": "C0AAA=team-a;*=-"}, env_file=None)
    assert settings.namespaces_for_channel("C0AAA") == ("team-a",)
    assert settings.namespaces_for_channel("C0OTHER") == ()
