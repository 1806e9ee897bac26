"""What the engine answers: a verdict, a headline, the ordered steps of the admission path, what to do.

Sentences are not written here: each is a `Text` (a catalogue key and its parameters), rendered in the
reader's language by `bot.copy`. Parameters are plain strings and numbers, already formatted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from bot.copy.text import Text, Value
from bot.trace.codes import Outcome, Verdict
from bot.trace.quantity import Quantities

__all__ = [
    "LOWER_BOUND",
    "WORKLOAD",
    "WORKLOAD_ELSEWHERE",
    "Action",
    "Ahead",
    "Explanation",
    "JobRef",
    "Params",
    "Position",
    "Step",
    "Text",
    "Value",
    "named_namespaces",
    "named_workload",
]

Params = Mapping[str, "Value | None"]
Data = Mapping[str, object]


# Another job named in a step or an action (the head of a StrictFIFO queue, an admitted workload whose pods
# hold admission): a fragment "namespace/name", so that a reader who may not see that namespace gets
# WORKLOAD_ELSEWHERE ("a workload of another namespace") instead (bot.slack.render). Headlines, shown to
# anyone the answer reaches, name only the asker's own namespace's jobs.
WORKLOAD = "fragment.workload"
WORKLOAD_ELSEWHERE = "fragment.workload-elsewhere"


def named_workload(namespace: str, name: str, workload: str = "") -> Text:
    """A job of `namespace` by its name, with its Workload's name when that differs (what an admin acts on)."""
    params: dict[str, Value] = {"namespace": namespace, "name": name}
    if workload and workload != name:
        params["workload"] = workload
    return Text(WORKLOAD, params)


def named_namespaces(texts: Iterable[Text]) -> set[str]:
    """The namespaces of the jobs these sentences name (through `named_workload`, at any depth)."""
    found: set[str] = set()
    stack: list[object] = list(texts)
    while stack:
        value = stack.pop()
        if isinstance(value, tuple):
            stack.extend(value)
        elif isinstance(value, Text):
            if value.key == WORKLOAD:
                found.add(str(value.params.get("namespace", "")))
            stack.extend(value.params.values())
    return found


@dataclass(frozen=True)
class Step:
    step: str  # workload | conditions | demand | local-queue | cluster-queue | flavors | quota | position | ...
    outcome: Outcome
    code: str  # "<step>.<what>", stable: tests and renderers key on it
    text: Text
    data: Data = field(default_factory=dict)


@dataclass(frozen=True)
class Action:
    code: str  # shrink-request | use-other-queue | ask-admin | wait | fix-queue-name | ...
    text: Text
    data: Data = field(default_factory=dict)


@dataclass(frozen=True)
class Ahead:
    """Who waits ahead in the ClusterQueue (names are for readers allowed to see them)."""

    count: int
    by_priority: tuple[tuple[int, int], ...] | None  # (priority, how many), highest first; None: not known
    workloads: tuple[tuple[str, str, int], ...] = ()  # (namespace, job name, priority): the nearest, in queue order


# Position.source when only one namespace's Workloads could be read and no pending-workloads answer came:
# the position counts that namespace's Workloads only, so the real one is this or further back.
LOWER_BOUND = "namespace-lower-bound"


@dataclass(frozen=True)
class Position:
    cluster_queue: int  # 1-based
    local_queue: int | None
    source: str  # visibility-api | computed | namespace-lower-bound (LOWER_BOUND)
    cluster_queue_name: str
    local_queue_name: str
    pending_total: int | None = None
    ahead: Ahead | None = None
    scope: str | None = None  # with LOWER_BOUND: the one namespace whose Workloads were counted


@dataclass(frozen=True)
class JobRef:
    kind: str
    namespace: str
    name: str


@dataclass(frozen=True)
class Explanation:
    job: JobRef
    workload: tuple[str, str] | None  # (namespace, name)
    verdict: Verdict
    headline: Text
    steps: tuple[Step, ...]
    actions: tuple[Action, ...] = ()
    demand: Quantities | None = None
    assigned: Mapping[str, Quantities] | None = None  # flavor -> resource -> total
    position: Position | None = None
    local_queue: str = ""
    cluster_queue: str = ""
    waiting_since: datetime | None = None  # when the current wait began (None once admitted or finished)
    queued_since: datetime | None = None  # when the last wait began: creation, or the last eviction
    admitted_at: datetime | None = None  # when Kueue admitted it (the Admitted condition), if it did
    snapshot_taken_at: datetime | None = None
    owners: tuple[str, ...] = ()  # notify annotations found on the job or its Workload
    suggestions: tuple[str, ...] = ()  # job-not-found: close names in the namespace asked ("did you mean")
    other_namespaces: tuple[str, ...] = ()  # job-not-found: namespaces holding a job of that very name

    @property
    def never_fixes_itself(self) -> bool:
        return self.verdict.never_fixes_itself
