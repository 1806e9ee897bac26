"""`check-config --online`, Slack's side: does Slack accept the bot token (auth.test), and in Socket Mode the
app-level token (apps.connections.open, which hands out a URL and opens nothing)? One line per check; a token
is never printed, only the answer's error code."""

from __future__ import annotations

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.config import Settings, mask_url

Finding = tuple[bool | None, str]  # passed? (None: not checked, an earlier check failed), the line for a person
TIMEOUT = 10


def _error(error: Exception) -> str:
    if isinstance(error, SlackApiError) and error.response is not None:
        return str(error.response.get("error") or error.response.status_code)
    return type(error).__name__


def _failed(where: str, token: str, method: str, error: Exception) -> Finding:
    """Refused (Slack answered with an error) is not the same as out of reach (no answer at all)."""
    if isinstance(error, SlackApiError):
        return False, f"Slack ({where}) did not accept {token} in {method}: {_error(error)}"
    reason = str(getattr(error, "reason", "") or error) or type(error).__name__
    return False, f"could not reach Slack at {where} to check {token} ({method}): {reason}"


def check_slack(settings: Settings) -> list[Finding]:
    where = mask_url(settings.slack_api_url)
    client = WebClient(token=settings.slack_bot_token.reveal(), base_url=settings.slack_api_url, timeout=TIMEOUT)
    try:
        answer = client.auth_test()
    except Exception as error:  # noqa: BLE001 - every failure is one line: refused, or out of reach
        failed = [_failed(where, "SLACK_BOT_TOKEN", "auth.test", error)]
        if settings.socket_mode:
            failed.append((None, "SLACK_APP_TOKEN not checked: the bot token's check failed first"))
        return failed
    findings: list[Finding] = [
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
            findings.append(_failed(where, "SLACK_APP_TOKEN", "apps.connections.open", error))
        else:
            findings.append((True, "Slack accepts SLACK_APP_TOKEN for Socket Mode (apps.connections.open)"))
    return findings
