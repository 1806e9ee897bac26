"""Logging: JSON lines (or plain text) on stderr, context from `extra=`, tokens scrubbed."""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import Any

_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime", "taskName"}
# Slack tokens and bearer tokens never reach a log line, whatever carries them.
_TOKENS = re.compile(r"(xox[abposr]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|(?i:bearer)\s+[A-Za-z0-9._~+/=-]+)")


def scrub(text: str) -> str:
    return _TOKENS.sub("[redacted]", text)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if value is None or isinstance(value, int | float | bool):
        return value
    return scrub(str(value))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": scrub(record.getMessage()),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = _clean(value)
        if record.exc_info:
            entry["exception"] = scrub(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        extras = " ".join(
            f"{k}={_clean(v)}" for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")
        )
        line = f"{record.levelname:<7} {record.name}: {scrub(record.getMessage())}"
        if extras:
            line += f" {extras}"
        if record.exc_info:
            line += "\n" + scrub(self.formatException(record.exc_info))
        return line


def setup_logging(level: str = "INFO", fmt: str = "json") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("aiohttp.access", "urllib3", "kubernetes", "slack_sdk", "slack_bolt"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
