"""The state of one explanation while it is built: what was found so far and what was written down.

Every room of the engine (explain, record, queuecheck, position, scheduling, advice) writes its steps and
actions through a `Walk`; none of them writes a sentence: a step is a catalogue key and its parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from bot.trace.codes import Outcome
from bot.trace.demand import PODS
from bot.trace.explanation import Action, Params, Position, Step, Text, Value
from bot.trace.fits import QueueFit
from bot.trace.partial import Partial
from bot.trace.quantity import Quantities, human
from bot.trace.queuechain import QueueChain
from bot.trace.snapshot import Snapshot

if TYPE_CHECKING:
    from bot.trace.head import QueueHead
    from bot.trace.model import Condition
    from bot.trace.podsready import Block


@dataclass(frozen=True)
class Query:
    namespace: str
    name: str
    kind: str | None = "Job"  # None: any kind


def amounts(values: Quantities) -> str:
    """ "cpu 3, memory 96Gi, pods 3": resources sorted, pods last."""
    names = sorted(values, key=lambda name: (name == PODS, name))
    return ", ".join(f"{name} {human(values[name], name)}" for name in names)


def present(params: Params | None) -> dict[str, Value]:
    """The parameters that carry a value: a sentence leaves out what is not known (the catalogue has a
    shorter alternative), it never shows a placeholder."""
    return {key: value for key, value in (params or {}).items() if value is not None and value not in ("", "-")}


def seconds_between(start: datetime | None, end: datetime) -> int | None:
    if start is None:
        return None
    return max(0, int((end - start).total_seconds()))


@dataclass
class Walk:
    snapshot: Snapshot
    query: Query
    now: datetime
    steps: list[Step] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    position: Position | None = None
    demand: Quantities | None = None
    chain: QueueChain | None = None
    fit: QueueFit | None = None
    partial: Partial | None = None  # partial admission's counts (pod sets with a minCount)
    head: QueueHead | None = None  # the head of a StrictFIFO queue this Workload waits behind
    behind: int = 0  # at the head of a StrictFIFO queue itself: how many wait behind it
    pods_ready: Block | None = None  # waitForPodsReady.blockAdmission: the workloads whose pods hold admission
    unknown: Condition | None = None  # a state Kueue recorded that this bot does not know (said verbatim)
    suggestions: tuple[str, ...] = ()
    other_namespaces: tuple[str, ...] = ()
    leading: int = 0  # how many actions were added with `lead` (they come first)
    acted: set[str] = field(default_factory=set)  # the codes of the actions added (a code only once: no look)

    @property
    def job_label(self) -> str:
        return f"{self.query.namespace}/{self.query.name}"

    @property
    def cluster_queue_name(self) -> str:
        return self.chain.cluster_queue_name if self.chain else ""

    def step(self, step: str, outcome: Outcome, code: str, params: Params | None = None, **data: object) -> None:
        self.steps.append(Step(step, outcome, code, Text(code, present(params)), data))

    def act(self, code: str, params: Params | None = None, *, lead: bool = False, **data: object) -> None:
        """Add an action (once); with `lead`, before every action added without it (a root cause's fix
        comes before "wait")."""
        values = present(params)
        if code not in self.acted or all(a.code != code or a.text.params != values for a in self.actions):
            self.acted.add(code)
            action = Action(code, Text(f"action.{code}", values), data)
            if lead:
                self.actions.insert(self.leading, action)
                self.leading += 1
            else:
                self.actions.append(action)
