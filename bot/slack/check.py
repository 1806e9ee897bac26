"""`check-config --online`, Slack's side: does Slack accept the bot token (auth.test), and in Socket Mode the
app-level token (apps.connections.open, which hands out a URL and opens nothing)? One line per check; a token
is never printed, only the answer's error code."""

from __future__ import annotations

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.config import Settings, mask_url

Finding = tuple[bool, str]  # passed?, the line for a person
TIMEOUT = 10


def _error(error: Exception) -> str:
    if isinstance(error, SlackApiError) and error.response is not None:
        return str(error.response.get("error") or error.response.status_code)
    return type(error).__name__


def check_slack(settings: Settings) -> list[Finding]:
    where = mask_url(settings.slack_api_url)
    client = WebClient(token=settings.slack_bot_token.reveal(), base_url=settings.slack_api_url, timeout=TIMEOUT)
    try:
        answer = client.auth_test()
    except Exception as error:  # noqa: BLE001 - every failure is one line: refused, or out of reach
        return [(False, f"Slack ({where}) did not accept SLACK_BOT_TOKEN in auth.test: {_error(error)}")]
    findings = [
        (
            True,
            f"Slack accepts SLACK_BOT_TOKEN: the bot @{answer.get('user', '?')} in the workspace "
            f"{answer.get('team', '?')} ({answer.get('team_id', '?')})",
        )
    ]
    if settings.socket_mode:
        try:
            client.apps_connections_open(app_token=settings.slack_app_token.reveal())
        except Exception as error:  # noqa: BLE001 - as above
            findings.append((False, f"Slack did not accept SLACK_APP_TOKEN in apps.connections.open: {_error(error)}"))
        else:
            findings.append((True, "Slack accepts SLACK_APP_TOKEN for Socket Mode (apps.connections.open)"))
    return findings
