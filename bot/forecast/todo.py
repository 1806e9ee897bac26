"""What the reader can do, as one list: the engine's advice and the verified what-if merged, each change once
with its number and its reason, ordered by who can act (the asker first, then an admin), and nothing the
answer's own facts rule out. Pure.

The rules: a what-if change (checked by replaying the scheduler's arithmetic) replaces the engine's advice that
says the same less exactly ("shrink the job" beside "run 1 pod instead of 3"; "ask an admin for quota" beside
"raise it by 2, to 4"); "wait" is never said of a job that cannot fit as it is; a higher priority is offered
for preemption only when the queue's policy lets a job preempt, else only when it would move the job ahead in
its queue."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from bot.forecast import whatif
from bot.forecast.outlook import NO_OUTLOOK, Outlook
from bot.forecast.whatif import Change
from bot.trace.explanation import Action, Explanation, Text
from bot.trace.quantity import human

Who = Literal["you", "admin", "note"]

# Engine advice a what-if change says better (the change's code -> the advice it replaces).
_SAID_BETTER: dict[str, frozenset[str]] = {
    whatif.FEWER_PODS: frozenset({"shrink-request", "shrink-to-start-now"}),
    whatif.PARTIAL_ADMISSION: frozenset({"shrink-request", "shrink-to-start-now"}),
    whatif.RAISE_QUOTA: frozenset({"ask-admin-quota"}),
    whatif.OTHER_QUEUE: frozenset({"use-other-queue"}),
}
# Engine advice that already names what a what-if "other flavor" change would do.
_FLAVOR_FIXES = frozenset({"add-toleration", "fix-node-selector", "check-node-selector"})
_ADMIN_CHANGES = frozenset({whatif.RAISE_QUOTA})
_NO_PREEMPTION = "Never"


@dataclass(frozen=True)
class Todo:
    """One thing to do: who can do it, a stable code (an action's or a what-if change's), and its sentence."""

    who: Who
    code: str
    text: Text


def who_acts(code: str) -> Who:
    """An admin for what only an admin can change; the asker for the rest (asking an admin included)."""
    return "admin" if code.startswith("ask-admin") or code in _ADMIN_CHANGES else "you"


def todo_list(explanation: Explanation, outlook: Outlook = NO_OUTLOOK) -> tuple[Todo, ...]:
    """The one list of changes (the engine's advice, and the outlook's what-if), the asker's first, then an
    admin's, then a note when nothing would help."""
    changes = outlook.what_if.changes if outlook.what_if is not None else ()
    items = [*_advice(explanation, outlook, changes), *_verified(explanation, changes)]
    ordered = [item for who in ("you", "admin") for item in items if item.who == who]
    what = outlook.what_if
    if what is not None and not what.fits_now and not changes and explanation.never_fixes_itself:
        ordered.append(Todo("note", "none", Text("todo.none")))
    return tuple(ordered)


def _advice(explanation: Explanation, outlook: Outlook, changes: Sequence[Change]) -> list[Todo]:
    """The engine's advice, less what a verified change says better and what the facts rule out."""
    replaced = {code for change in changes for code in _SAID_BETTER.get(change.code, ())}
    items: list[Todo] = []
    for action in explanation.actions:
        if action.code in replaced:
            continue
        kept = _action(explanation, outlook, action)
        if kept is not None:
            items.append(Todo(who_acts(action.code), action.code, kept))
    return items


def _verified(explanation: Explanation, changes: Sequence[Change]) -> list[Todo]:
    """The what-if's verified changes, each with its number and its reason."""
    codes = {action.code for action in explanation.actions}
    shrink = next((a for a in explanation.actions if a.code == "shrink-request"), None)
    items: list[Todo] = []
    for change in changes:
        if change.code == whatif.OTHER_FLAVOR and codes & _FLAVOR_FIXES:
            continue
        items.extend(Todo(who_acts(change.code), change.code, text) for text in change_texts(change, shrink))
    return items


def _action(explanation: Explanation, outlook: Outlook, action: Action) -> Text | None:
    """The engine's advice as the list says it, or None when the answer's facts rule it out."""
    if action.code == "wait" and explanation.never_fixes_itself:
        return None
    if action.code == "ask-admin-priority":
        return _priority(explanation, outlook)
    return action.text


def _priority(explanation: Explanation, outlook: Outlook) -> Text | None:
    """A higher priority: for preemption when the queue's policy allows it; else only to move ahead."""
    holders = outlook.holders
    if holders is None:
        return Text("action.ask-admin-priority")
    policy = dict(holders.policy)
    preempts = any(
        policy.get(key, _NO_PREEMPTION) != _NO_PREEMPTION for key in ("withinClusterQueue", "reclaimWithinCohort")
    )
    if preempts and any(contest.preemptible > 0 for contest in holders.contests):
        return Text("todo.priority-preempts", {"cluster_queue": holders.cluster_queue})
    ahead = explanation.position.cluster_queue - 1 if explanation.position is not None else 0
    if ahead <= 0:
        return None  # first already, and nothing it could preempt: a higher priority changes nothing
    return Text("todo.priority-ahead", {"ahead": ahead, "cluster_queue": holders.cluster_queue})


def change_texts(change: Change, shrink: Action | None = None) -> list[Text]:
    """A verified change's sentences (a quota raise: one per resource), each with its number and its reason."""
    when = "now" if change.now else "ever"
    if change.code == whatif.FEWER_PODS:
        return [_fewer_pods(change, shrink, when)]
    said = _SAYING.get(change.code)
    return said(change, when) if said is not None else []


def _fewer_pods(change: Change, shrink: Action | None, when: str) -> Text:
    params: dict[str, str | int] = {"pods": change.pods or 0, "was_pods": change.was_pods or 0}
    most = shrink.data.get("pods") if shrink is not None else None
    if change.now and isinstance(most, int) and most > (change.pods or 0):
        return Text("todo.fewer-pods.now-max", {**params, "max_pods": most})
    return Text(f"todo.fewer-pods.{when}", params)


def _partial(change: Change, when: str) -> list[Text]:
    return [Text(f"todo.partial-admission.{when}", {"pods": change.pods or 0, "was_pods": change.was_pods or 0})]


def _smaller(change: Change, when: str) -> list[Text]:
    if change.per_pod is None:
        return []
    per_pod = human(change.per_pod, change.resource)
    was = human(change.was_per_pod or Decimal(0), change.resource)
    return [Text(f"todo.smaller-request.{when}", {"resource": change.resource, "per_pod": per_pod, "was_per_pod": was})]


def _other_queue(change: Change, when: str) -> list[Text]:
    return [Text(f"todo.other-queue.{when}", {"queue": change.queue, "cluster_queue": change.cluster_queue})]


def _other_flavor(change: Change, when: str) -> list[Text]:
    flavor: dict[str, str | int] = {"flavor": change.flavor}
    if change.node_labels:
        flavor["labels"] = ", ".join(f"{k}={v}" for k, v in change.node_labels)
    if change.tolerate:
        flavor["taints"] = ", ".join(f"{k}={v}:{e}" if v else f"{k}:{e}" for k, v, e in change.tolerate)
    return [Text(f"todo.other-flavor.{when}", flavor)]


def _raise_quota(change: Change, when: str) -> list[Text]:
    return [
        Text(
            f"todo.raise-quota.{when}",
            {
                "cluster_queue": raised.cluster_queue,
                "resource": raised.resource,
                "flavor": raised.flavor,
                "by": human(raised.by, raised.resource),
                "to": human(raised.to, raised.resource),
            },
        )
        for raised in change.raises
    ]


_SAYING: dict[str, Callable[[Change, str], list[Text]]] = {
    whatif.PARTIAL_ADMISSION: _partial,
    whatif.SMALLER_REQUEST: _smaller,
    whatif.OTHER_QUEUE: _other_queue,
    whatif.OTHER_FLAVOR: _other_flavor,
    whatif.RAISE_QUOTA: _raise_quota,
}
