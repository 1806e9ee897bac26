"""Settings: every problem at once, secrets hidden, .env.example documents exactly what is read."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest
from bot.cli import main
from bot.config import Secret, Settings, load_settings, parse_duration, read_env_file
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
    source = (ROOT / "bot" / "config.py").read_text()
    read = set(re.findall(r'get\("([A-Z_]+)"', source))
    assert documented == read
    # ... and every documented key is explained by a comment right above it.
    lines = (ROOT / ".env.example").read_text().splitlines()
    for index, line in enumerate(lines):
        if re.match(r"^[A-Z_]+=", line):
            above = lines[index - 1]
            assert above.startswith("#") or re.match(r"^[A-Z_]+=", above), line
    assert {f.name.upper() for f in fields(Settings)} >= {"PORT", "STATE_URL", "NOTIFY_AFTER_SECONDS"}


def test_the_example_file_is_valid_settings(tmp_path: Path) -> None:
    load_settings({}, env_file=ROOT / ".env.example")


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
