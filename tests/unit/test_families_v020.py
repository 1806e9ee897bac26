"""Issue 11, v0.20's states and the unknown ones: one table case per situation, built from Kueue's source and
docs (cited per case), each asserting the verdict code, whether the job has a place in the queue, and the names
and numbers that must appear, in English and in French.

- OnHold (QuotaReserved=False reason OnHold, a StatefulSet scaled to zero): out of the queue (workload.go
  IsAdmissible), no position, and nobody waits behind it.
- An unknown state (a reason of no known vocabulary, a message the classifier does not know under a reason
  that says nothing by itself, Requeued=False with an unknown reason): Kueue's words verbatim, "the bot does
  not know that state", no position.
- DRAResourcesUnresolved (#16123): an invalid request, never "waiting".
- Configurable preemption (v0.20 PreemptionConfig): the rule, the config and the preemptor.
- PodsScheduled=False / WaitForScheduling (KEP "PodsScheduled condition"): pods never scheduled, after
  admission and as the cause of a PodsReady-timeout eviction.
- draNoFit in a topology message (tasExclusionStats.formatReasons).

The v0.20 fields here are conditions (metav1.Condition: any type and reason), so every object still validates
against the CRDs the tests use (tests/data/kueue/crds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from bot.trace.codes import Verdict
from bot.trace.explanation import Explanation

from tests.builders import (
    action_codes,
    assignment,
    cluster,
    condition,
    cpu_spec,
    job,
    pending,
    reserved,
    step_codes,
    workload,
)
from tests.unit.test_families_checks import run, said

Raw = dict[str, Any]
V = Verdict


@dataclass(frozen=True)
class Case:
    id: str
    objects: list[Raw]
    verdict: Verdict
    queued: bool  # has a place in the queue
    en: list[str]  # must appear in what an English reader gets
    fr: list[str]  # ... and a French one
    steps: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)


def _pending_with(*conditions: Raw) -> list[Raw]:
    return [*cluster(), *pending(conditions=list(conditions))]


def _admitted_with(*conditions: Raw) -> list[Raw]:
    the_job = job("train", parallelism=2, spec=cpu_spec("1"))
    status = reserved("cq", assignment("main", 2, default={"cpu": "2"}))
    return [*cluster(), the_job, workload(of=the_job, status=status, conditions=list(conditions))]


ON_HOLD = "StatefulSet scaled to zero; workload on hold"
UNKNOWN = "The frobnicator disagrees with the workload"
UNSCHEDULED = "At least one required pod is not scheduled"
PODS_READY_TIMEOUT = "Exceeded the PodsReady timeout team-a/job-train"
RULE = "Preempted by rule 'hero' in PreemptionConfig 'cfg' to accommodate workload team-a/hero-job"

CASES = [
    Case(
        "on-hold",
        _pending_with(condition("QuotaReserved", False, "OnHold", ON_HOLD)),
        V.NOT_YET_EVALUATED,
        queued=False,
        en=["is on hold", ON_HOLD, "no place in the queue", "scale its StatefulSet up again"],
        fr=["est en suspens", ON_HOLD, "remontez son StatefulSet"],
        actions=["end-hold"],
    ),
    Case(
        "unknown-reason",
        _pending_with(condition("QuotaReserved", False, "Frobnicated", "A state of a Kueue to come")),
        V.NOT_YET_EVALUATED,
        queued=False,
        en=["a state this bot does not know", "QuotaReserved=False (Frobnicated)", "A state of a Kueue to come"],
        fr=["un état que ce bot ne connaît pas", "(Frobnicated)", "A state of a Kueue to come"],
        steps=["record.unknown-state"],
        actions=["unknown-state"],
    ),
    Case(
        "unknown-reason-requeued-false",
        _pending_with(condition("Requeued", False, "Frobnicated", "Held back by something new")),
        V.NOT_YET_EVALUATED,
        queued=False,
        en=["a state this bot does not know", "Requeued=False (Frobnicated)", "Held back by something new"],
        fr=["un état que ce bot ne connaît pas", "Requeued=False (Frobnicated)"],
        steps=["record.unknown-state"],
        actions=["unknown-state"],
    ),
    Case(  # Pending is written for a Workload of the queue: its place stays, the words are Kueue's
        "unknown-message-legacy-pending",
        _pending_with(condition("QuotaReserved", False, "Pending", UNKNOWN)),
        V.NOT_YET_EVALUATED,
        queued=True,
        en=["a state this bot does not know", UNKNOWN, "Position 1 in ClusterQueue cq"],
        fr=["un état que ce bot ne connaît pas", UNKNOWN, "Position 1 dans la ClusterQueue cq"],
        steps=["record.unknown-state"],
        actions=["unknown-state"],
    ),
    Case(  # the granular reason says what it is: known, queued, whatever the message adds
        "unknown-message-known-reason",
        [
            *cluster(cpu=1),
            *pending("other", cpu="1"),
            *pending(
                conditions=[condition("QuotaReserved", False, "WaitingForQuota", UNKNOWN)],
                created="2026-11-03T09:00:00Z",
            ),
        ],
        V.WAITING_FOR_QUOTA,
        queued=True,
        en=[UNKNOWN],
        fr=[UNKNOWN],
    ),
    Case(
        "dra-resources-unresolved",
        _pending_with(
            condition("QuotaReserved", False, "DRAResourcesUnresolved", "podset main: deviceClassName: Not found")
        ),
        V.INVALID_REQUEST,
        queued=True,
        en=["will never be admitted", "deviceClassName: Not found", "device (DRA) requests"],
        fr=["deviceClassName: Not found", "(DRA)"],
        steps=["record.dra-unresolved"],
        actions=["fix-requests"],
    ),
    Case(
        "preempted-by-rule",
        _pending_with(
            condition("Evicted", True, "Preempted", RULE),
            condition(
                "Preempted", True, "ConfigurablePreemption", "Preempted by rule 'hero' in PreemptionConfig 'cfg'"
            ),
            condition("QuotaReserved", False, "Pending", RULE),
        ),
        V.NOT_YET_EVALUATED,
        queued=True,
        en=["by rule hero of PreemptionConfig cfg", "team-a/hero-job"],
        fr=["par la règle hero de la PreemptionConfig cfg", "team-a/hero-job"],
        steps=["conditions.preempted-by-rule"],
    ),
    Case(
        "admitted-pods-never-scheduled",
        _admitted_with(
            condition("PodsReady", False, "WaitForScheduling", "Not all pods are ready or succeeded"),
            condition("PodsScheduled", False, "WaitForScheduling", UNSCHEDULED),
        ),
        V.PODS_PENDING,
        queued=False,
        en=["never scheduled on a node", "WaitForScheduling", UNSCHEDULED, "FailedScheduling"],
        fr=["jamais été placés sur un nœud", UNSCHEDULED],
        steps=["scheduling.pod-trouble"],
        actions=["check-unscheduled"],
    ),
    Case(
        "evicted-pods-never-scheduled",
        _pending_with(
            condition("Evicted", True, "PodsReadyTimeout", PODS_READY_TIMEOUT),
            condition("PodsScheduled", False, "WaitForScheduling", UNSCHEDULED),
            condition("QuotaReserved", False, "Pending", PODS_READY_TIMEOUT),
            condition("Requeued", False, "PodsReadyTimeout", PODS_READY_TIMEOUT),
        ),
        V.REQUEUE_BACKOFF,
        queued=False,
        en=["never scheduled on a node", "will be evicted again", UNSCHEDULED],
        fr=["jamais été placés sur un nœud", UNSCHEDULED],
        actions=["check-unscheduled"],
    ),
    Case(
        "topology-dra-no-fit",
        _pending_with(
            condition(
                "QuotaReserved",
                False,
                "TopologyPlacementFailed",
                "couldn't assign flavors to pod set main: topology \"default\" doesn't allow to fit any of 1 pod(s). "
                "Total nodes: 4; excluded: draNoFit: 4",
            )
        ),
        V.TOPOLOGY_PLACEMENT_FAILED,
        queued=True,
        en=["draNoFit: 4 nodes lack the DRA devices"],
        fr=["draNoFit : 4 nœuds sans les périphériques DRA"],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_v020_and_unknown_states(case: Case) -> None:
    explanation: Explanation = run(case.objects)
    assert explanation.verdict is case.verdict
    assert (explanation.position is not None) is case.queued, explanation.position
    for language, wanted in (("en", case.en), ("fr", case.fr)):
        words = said(explanation, language)
        for part in wanted:
            assert part in words, (language, part, words)
    assert set(case.steps) <= set(step_codes(explanation)), step_codes(explanation)
    assert set(case.actions) <= set(action_codes(explanation)), action_codes(explanation)
    if case.actions and case.verdict is V.NOT_YET_EVALUATED:
        assert "wait" not in action_codes(explanation)  # nothing to wait for that the bot knows of
        assert "has not tried it yet" not in said(explanation)


def test_a_job_on_hold_holds_no_place_and_nobody_waits_behind_it() -> None:
    """The job created after the held one is first in the queue: Kueue never queued the held one."""
    held = pending(
        "held", created="2026-11-03T08:00:00Z", conditions=[condition("QuotaReserved", False, "OnHold", ON_HOLD)]
    )
    later = pending("later", created="2026-11-03T09:00:00Z")
    explanation = run([*cluster(cpu=0), *held, *later], name="later")
    assert explanation.position is not None and explanation.position.cluster_queue == 1
