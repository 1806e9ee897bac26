"""The buttons of a proactive DM: Snooze 2 h, Snooze 1 day, Stop. Always about the one job the DM names.

    outcome = await silence(store, policy, Asker(user, channel), action, namespace, name, now)

A snooze is keyed by the job ("namespace/name"), so it holds whatever Workload the job has (none yet, or a
new one after a re-creation) and nothing else; Stop is a snooze for good plus the end of the user's watch.
The asker must be allowed to see the namespace, as for a question (no cluster read is needed, so none is made).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.errors import BadQuery
from bot.notify.state import job_key
from bot.notify.store import StateStore
from bot.service import AccessPolicy, Asker

SNOOZE_2H = "kueue_snooze_2h"
SNOOZE_1D = "kueue_snooze_1d"
STOP = "kueue_stop"
SNOOZES = {SNOOZE_2H: timedelta(hours=2), SNOOZE_1D: timedelta(days=1)}
FOREVER = timedelta(days=365 * 100)  # Stop: no end a person will see


@dataclass(frozen=True)
class Silenced:
    namespace: str
    name: str
    until: datetime | None  # the snooze's end; None: stopped
    refused: bool = False  # the asker may not see that namespace: nothing was changed


async def silence(
    store: StateStore, policy: AccessPolicy, asker: Asker, action: str, namespace: str, name: str, now: datetime
) -> Silenced:
    """Snooze or stop the notifications about namespace/name for the asker. BadQuery for a button that names
    no job or an unknown action (a crafted payload)."""
    if action not in SNOOZES and action != STOP:
        raise BadQuery(f"unknown notification action {action!r}")
    if not namespace or not name or "/" in namespace or "/" in name:
        raise BadQuery("the button names no job")
    if not await policy.may_see(asker.user, asker.channel, namespace):
        return Silenced(namespace, name, None, refused=True)
    until = now + SNOOZES.get(action, FOREVER)
    await store.snooze(asker.user, job_key(namespace, name), until)
    if action == STOP:
        await store.unsubscribe(asker.user, namespace, name)
        return Silenced(namespace, name, None)
    return Silenced(namespace, name, until)
