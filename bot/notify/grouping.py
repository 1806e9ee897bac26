"""Which deliveries share a message (a digest covers several Workloads), and which Close decisions edit the
same one."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from bot.notify.policy import Close
from bot.notify.state import Delivery, State


def by_ts(state: State) -> dict[tuple[str | None, str | None], list[Delivery]]:
    """The deliveries by the message (channel, ts) they share."""
    grouped: dict[tuple[str | None, str | None], list[Delivery]] = defaultdict(list)
    for other in state.deliveries:
        grouped[(other.channel, other.ts)].append(other)
    return grouped


def by_message(closes: Sequence[Close]) -> list[list[Close]]:
    """Close decisions grouped by the message they edit (unconfirmed ones alone)."""
    groups: dict[tuple[str, str, str], list[Close]] = defaultdict(list)
    for close in closes:
        delivery = close.delivery
        if delivery.ts is None:
            groups[(close.target, delivery.key, "")].append(close)
        else:
            groups[(close.target, delivery.channel, delivery.ts)].append(close)
    return list(groups.values())
