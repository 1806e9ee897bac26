"""Settings of issue 17, parsed (pure; bot.config reads the environment and calls these): the admins who get
the admins' view and its daily digest, and (item 1) the clusters one bot serves.

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
