"""Issue 11, the admission families: one table case per situation, built from Kueue's source (cited per
case), each asserting the verdict code, the headline's catalogue key and the names and numbers that must
appear, in English and French.

- Partial admission (pkg/scheduler/scheduler.go getInitialAssignments, flavorassigner/podset_reducer.go):
  a job whose full count never fits but whose reduced count (>= minCount) does is not "never fits".
- Flavor fungibility (flavorassigner.go findFlavorForPodSets, shouldTryNextFlavor, isPreferred;
  apis/kueue/v1beta2/clusterqueue_types.go FlavorFungibility): which flavor Kueue settles on, and why.
- Real resource groups in the message classifier (bug c of the issue: flavorassigner.go assignFlavors).
- effectiveQuotas (KEP-12382, v0.20), lending and borrowing limits in flat and hierarchical cohorts
  (pkg/cache/scheduler/resource_node.go available, potentialAvailable).
- A stopped LocalQueue is out of the queue order (pkg/controller/core/localqueue_controller.go; bug b).
- Every Kueue message shown once (a property over every explanation the tests build).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from bot.copy import CATALOGUES, render
from bot.kube.decode import cluster_queue as decode_cluster_queue
from bot.trace import checks, messages, partial
from bot.trace.answer import VERBATIM, _words
from bot.trace.codes import Verdict
from bot.trace.explanation import Explanation, Text
from bot.trace.reasons import group_shapes

from tests.builders import (
    KUEUE_V1BETA1,
    NS,
    Raw,
    assignment,
    cluster,
    cluster_queue,
    cohort,
    condition,
    cpu_group,
    cpu_spec,
    explain_objects,
    flavor_quotas,
    group,
    job,
    local_queue,
    namespace,
    pending,
    quota,
    reserved,
    resource_flavor,
    step_codes,
    workload,
)
from tests.unit.test_explain import CASES
from tests.unit.test_goldens import FOLDERS, explain_scenario

V = Verdict


def partial_job(count: int, min_count: int, cpu: str = "2", **wl: Any) -> list[Raw]:
    """A Job with kueue.x-k8s.io/job-min-parallelism and its Workload, whose pod set carries the minCount
    Kueue's Job integration derives from it (pkg/controller/jobs/job/job_controller.go minPodsCount)."""
    the_job = job(
        "train",
        NS,
        parallelism=count,
        spec=cpu_spec(cpu),
        annotations={"kueue.x-k8s.io/job-min-parallelism": str(min_count)},
    )
    pod_sets = [{"name": "main", "count": count, "minCount": min_count, "template": {"spec": cpu_spec(cpu)}}]
    return [the_job, workload(of=the_job, pod_sets=pod_sets, **wl)]


def two_flavors(fungibility: dict[str, str] | None = None, *, a: int = 4, b: int = 10, **cq: Any) -> Raw:
    """ClusterQueue cq: one resource group [cpu], flavor a (cpu `a`) then flavor b (cpu `b`)."""
    raw = cluster_queue(
        "cq", group(["cpu"], flavor_quotas("a", quota("cpu", a)), flavor_quotas("b", quota("cpu", b))), **cq
    )
    raw["spec"]["preemption"] = {"withinClusterQueue": "LowerPriority"}
    if fungibility is not None:
        raw["spec"]["flavorFungibility"] = fungibility
    return raw


# A low-priority job holds all of flavor a: a job of higher priority could preempt it there.
LOW = job("low", NS, parallelism=4, spec=cpu_spec("1"))
LOW_HOLDS_A = [LOW, workload(of=LOW, priority=0, status=reserved("cq", assignment("main", 4, a={"cpu": "4"})))]
FLAVORS_AB = [namespace(), resource_flavor("a"), resource_flavor("b"), local_queue()]


def borrowing_cohort(fungibility: dict[str, str] | None = None) -> list[Raw]:
    """cq has 2 cpu of its own in flavor a (and 10 in b); its cohort peer lends 8 in flavor a."""
    mine = cluster_queue(
        "cq",
        group(["cpu"], flavor_quotas("a", quota("cpu", 2)), flavor_quotas("b", quota("cpu", 10))),
        cohort="pool",
    )
    if fungibility is not None:
        mine["spec"]["flavorFungibility"] = fungibility
    peer = cluster_queue("peer", group(["cpu"], flavor_quotas("a", quota("cpu", 8))), cohort="pool")
    return [namespace(), resource_flavor("a"), resource_flavor("b"), local_queue(), mine, peer]


def effective(raw: Raw, *groups: Raw, by: str = "dqo") -> Raw:
    """status.effectiveQuotas (KEP-12382 EffectiveQuotaStatus: orchestratorRef, resourceGroups). The
    field is newer than the CRDs the tests validate against: the shape is the KEP's, classified by
    structure (the objects here are decoded, never sent to the fake API server)."""
    raw["status"]["effectiveQuotas"] = {
        "orchestratorRef": {"apiGroup": "kueue.x-k8s.io", "kind": "DynamicQuotaOrchestrator", "name": by},
        "resourceGroups": list(groups),
    }
    return raw


def peer_cq(name: str, cpu: int, *, cohort_name: str = "pool", **limits: int) -> Raw:
    return cluster_queue(
        name, group(["cpu"], flavor_quotas("default", quota("cpu", cpu, **limits))), cohort=cohort_name
    )


MSG_MIXED = (
    "couldn't assign flavors to pod set main: insufficient quota for memory in flavor a, previously considered "
    "podsets requests (0) + current podset request (6Gi) > maximum capacity (4Gi), insufficient unused quota for "
    "cpu in flavor b, 1 more needed"
)
MSG_EXCEEDS_16 = (
    "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, previously considered "
    "podsets requests (0) + current podset request (16) > maximum capacity (10)"
)


def cpu_memory(flavors: list[tuple[str, int, str]], *, split: bool = False, **cq: Any) -> Raw:
    """Flavors with cpu and memory quota: one group [cpu, memory] (or, `split`, [cpu] and [memory])."""
    if not split:
        return cluster_queue(
            "cq",
            group(["cpu", "memory"], *(flavor_quotas(n, quota("cpu", c), quota("memory", m)) for n, c, m in flavors)),
            **cq,
        )
    (cpu_flavor, cpu, _), (mem_flavor, _, memory) = flavors
    return cluster_queue(
        "cq",
        group(["cpu"], flavor_quotas(cpu_flavor, quota("cpu", cpu))),
        group(["memory"], flavor_quotas(mem_flavor, quota("memory", memory))),
        **cq,
    )


def granular(reason: str, message: str) -> list[Raw]:
    return [
        condition("QuotaReserved", False, reason, message),
        condition("Admitted", False, "NoReservation", "The workload has no reservation"),
    ]


@dataclass(frozen=True)
class Case:
    id: str
    objects: list[Raw]
    verdict: Verdict
    headline: dict[str, object] = field(default_factory=dict)  # headline parameters that must be as given
    says: tuple[str, ...] = ()  # what the headline must say, in both languages
    steps: tuple[str, ...] = ()  # step codes that must appear
    no_steps: tuple[str, ...] = ()  # step codes that must not appear
    position: int | None = None
    actions: dict[str, int] = field(default_factory=dict)  # action code -> its `pods`

    def run(self) -> Explanation:
        return explain_objects(self.objects)


CASES_ADMISSION = [
    # --- 1. partial admission -----------------------------------------------------------------------
    Case(
        "partial: fits partially, waits (8 x 2 cpu never fit 10; 5 pods >= minCount 3 do once 8 cpu free)",
        [*cluster(reservation={"default": {"cpu": 8}}), *partial_job(8, 3)],
        V.WAITING_FOR_QUOTA,
        headline={"pods": 5, "all_pods": 8, "min_pods": 3, "needed": "8", "resource": "cpu"},
        says=("5", "8", "3"),
        actions={"lower-min-count": 1},  # 1 pod fits what is free now, below the minimum
    ),
    Case(
        "partial: never fits even at minCount 6 (12 cpu > 10)",
        [*cluster(reservation={"default": {"cpu": 8}}), *partial_job(8, 6)],
        V.EXCEEDS_MAX_QUOTA,
        headline={"min_pods": 6, "all_pods": 8, "requested": "12", "maximum": "10"},
        says=("6", "12", "10"),
        actions={"lower-min-count": 5},  # not "shrink the job": Kueue never goes below minCount
    ),
    Case(
        "partial: fits partially now (nothing in use: 5 of 8 pods start at the next try)",
        [*cluster(), *partial_job(8, 3)],
        V.NOT_YET_EVALUATED,
        headline={"pods": 5, "all_pods": 8, "min_pods": 3},
        says=("5", "8"),
    ),
    Case(
        "partial: Kueue recorded ExceedsMaxQuota for the full count; fewer pods fit once capacity frees",
        [
            *cluster(reservation={"default": {"cpu": 8}}),
            *partial_job(8, 3, conditions=granular("ExceedsMaxQuota", MSG_EXCEEDS_16)),
        ],
        V.WAITING_FOR_QUOTA,
        headline={"pods": 5, "all_pods": 8},
        says=("5",),
    ),
    Case(
        "partial: without minCount the full count never fits (control)",
        [*cluster(), *pending(cpu="2", count=8)],
        V.EXCEEDS_MAX_QUOTA,
        headline={"requested": "16", "maximum": "10"},
    ),
    # --- 2. flavor fungibility ---------------------------------------------------------------------
    Case(
        "fungibility: whenCanPreempt TryNextFlavor (default): a needs preemption, Kueue takes b",
        [*FLAVORS_AB, two_flavors(), *LOW_HOLDS_A, *pending(cpu="2", priority=100)],
        V.NOT_YET_EVALUATED,
        no_steps=("flavors.stops-to-preempt",),
    ),
    Case(
        "fungibility: whenCanPreempt MayStopSearch: Kueue preempts in a although b has room",
        [*FLAVORS_AB, two_flavors({"whenCanPreempt": "MayStopSearch"}), *LOW_HOLDS_A, *pending(cpu="2", priority=100)],
        V.WAITING_FOR_PREEMPTION,
        headline={"flavor": "a", "free_flavor": "b", "policy": "whenCanPreempt"},
        says=("MayStopSearch", "whenCanPreempt"),
        steps=("flavors.stops-to-preempt",),
    ),
    Case(
        "fungibility: v1beta1's deprecated Preempt is MayStopSearch",
        [
            *FLAVORS_AB,
            two_flavors({"whenCanPreempt": "Preempt"}, api_version=KUEUE_V1BETA1),
            *LOW_HOLDS_A,
            *pending(cpu="2", priority=100),
        ],
        V.WAITING_FOR_PREEMPTION,
        headline={"flavor": "a", "free_flavor": "b"},
    ),
    Case(
        "fungibility: MayStopSearch but nothing a job of its priority may preempt: Kueue goes on to b",
        [*FLAVORS_AB, two_flavors({"whenCanPreempt": "MayStopSearch"}), *LOW_HOLDS_A, *pending(cpu="2", priority=0)],
        V.NOT_YET_EVALUATED,
        no_steps=("flavors.stops-to-preempt",),
    ),
    Case(
        "fungibility: whenCanBorrow MayStopSearch (default): Kueue borrows in a though b fits unborrowed",
        [*borrowing_cohort(), *pending(cpu="4")],
        V.NOT_YET_EVALUATED,
        steps=("flavors.stops-to-borrow",),
    ),
    Case(
        "fungibility: whenCanBorrow TryNextFlavor: Kueue skips the borrowing a and takes b",
        [*borrowing_cohort({"whenCanBorrow": "TryNextFlavor"}), *pending(cpu="4")],
        V.NOT_YET_EVALUATED,
        steps=("flavors.skips-borrowing",),
        no_steps=("flavors.stops-to-borrow",),
    ),
    # --- 3. real resource groups (bug c) -----------------------------------------------------------
    Case(
        "groups: one group [cpu, memory], memory never fits a, cpu waits in b: it waits",
        [
            namespace(),
            resource_flavor("a"),
            resource_flavor("b"),
            cpu_memory([("a", 10, "4Gi"), ("b", 10, "8Gi")]),
            local_queue(),
            *pending(spec=cpu_spec("1", "6Gi"), conditions=granular("WaitingForQuota", MSG_MIXED)),
        ],
        V.WAITING_FOR_QUOTA,
        headline={"resource": "cpu", "flavor": "b", "needed": "1"},
    ),
    Case(
        "groups: two groups [cpu] in a and [memory] in b, co-requisites: memory never fits",
        [
            namespace(),
            resource_flavor("a"),
            resource_flavor("b"),
            cpu_memory([("b", 10, "0"), ("a", 0, "4Gi")], split=True),
            local_queue(),
            *pending(spec=cpu_spec("1", "6Gi"), conditions=granular("WaitingForQuota", MSG_MIXED)),
        ],
        V.EXCEEDS_MAX_QUOTA,
        headline={"resource": "memory", "flavor": "a", "requested": "6Gi", "maximum": "4Gi"},
    ),
    Case(
        "groups: a resource no group covers never fits, named",
        [*cluster(), *pending(spec=cpu_spec("1", extra={"nvidia.com/gpu": "1"}))],
        V.NO_MATCHING_FLAVOR,
        says=("nvidia.com/gpu",),
        steps=("flavors.resource-not-covered",),
    ),
    # --- 4. effective quotas, lending and borrowing limits -----------------------------------------
    Case(
        "effectiveQuotas: spec says 10 cpu, the orchestrator gives 4: a 6 cpu job never fits",
        [
            namespace(),
            resource_flavor(),
            effective(cluster_queue("cq", cpu_group(cpu=10)), cpu_group(cpu=4)),
            local_queue(),
            *pending(cpu="6"),
        ],
        V.EXCEEDS_MAX_QUOTA,
        headline={"requested": "6", "maximum": "4"},
        steps=("cluster-queue.effective-quotas",),  # raising spec.resourceGroups would change nothing
    ),
    Case(
        "effectiveQuotas: spec says 2 cpu, the orchestrator gives 10: a 6 cpu job fits",
        [
            namespace(),
            resource_flavor(),
            effective(cluster_queue("cq", cpu_group(cpu=2)), cpu_group(cpu=10)),
            local_queue(),
            *pending(cpu="6"),
        ],
        V.NOT_YET_EVALUATED,
    ),
    Case(
        "lendingLimit: the peer lends only 2 of its 10: cq (2) can reach 4, a 5 cpu job never fits",
        [
            namespace(),
            resource_flavor(),
            peer_cq("cq", 2),
            peer_cq("peer", 10, lending=2),
            local_queue(),
            *pending(cpu="5"),
        ],
        V.EXCEEDS_MAX_QUOTA,
        headline={"requested": "5", "maximum": "4"},
    ),
    Case(
        "borrowingLimit: cq (2) may borrow 1 of the peer's 10: a 4 cpu job never fits, at most 3",
        [
            namespace(),
            resource_flavor(),
            peer_cq("cq", 2, borrowing=1),
            peer_cq("peer", 10),
            local_queue(),
            *pending(cpu="4"),
        ],
        V.EXCEEDS_MAX_QUOTA,
        headline={"requested": "4", "maximum": "3"},
    ),
    Case(
        "hierarchical cohort with its own quota: root holds 6, cq 2: a 9 cpu job never fits 8",
        [
            namespace(),
            resource_flavor(),
            cohort("root", cpu_group("default", 6)),
            cohort("team", parent="root"),
            peer_cq("cq", 2, cohort_name="team"),
            local_queue(),
            *pending(cpu="9"),
        ],
        V.EXCEEDS_MAX_QUOTA,
        headline={"requested": "9", "maximum": "8"},
    ),
    Case(
        "hierarchical cohort with its own quota: a 7 cpu job fits (2 of its own, 5 from the root's 6)",
        [
            namespace(),
            resource_flavor(),
            cohort("root", cpu_group("default", 6)),
            cohort("team", parent="root"),
            peer_cq("cq", 2, cohort_name="team"),
            local_queue(),
            *pending(cpu="7"),
        ],
        V.NOT_YET_EVALUATED,
    ),
    Case(
        "Cohort effectiveQuotas: the root's spec says 6, its effective quota 1: at most 3",
        [
            namespace(),
            resource_flavor(),
            effective({**cohort("root", cpu_group("default", 6)), "status": {}}, cpu_group("default", 1)),
            peer_cq("cq", 2, cohort_name="root"),
            local_queue(),
            *pending(cpu="4"),
        ],
        V.EXCEEDS_MAX_QUOTA,
        headline={"requested": "4", "maximum": "3"},
        steps=("cluster-queue.effective-quotas",),
    ),
    # --- 6. a stopped LocalQueue is out of the queue (bug b) -----------------------------------------
    Case(
        "stopped LocalQueue: its older Workload is not ahead; this job is first",
        [
            *cluster(reservation={"default": {"cpu": 10}}),
            local_queue("held", stop_policy="Hold"),
            *pending("older", cpu="1", queue="held", created="2026-10-14T08:00:00Z"),
            *pending(cpu="1"),
        ],
        V.WAITING_FOR_QUOTA,
        position=1,
    ),
]


@pytest.mark.parametrize("case", CASES_ADMISSION, ids=[c.id for c in CASES_ADMISSION])
def test_family(case: Case) -> None:
    explanation = case.run()
    codes = step_codes(explanation)
    assert explanation.verdict == case.verdict, codes
    assert explanation.headline.key == f"headline.{case.verdict.value}"
    for name, value in case.headline.items():
        assert explanation.headline.params.get(name) == value, (name, explanation.headline.params)
    for code in case.steps:
        assert code in codes, codes
    for code in case.no_steps:
        assert code not in codes, codes
    for language in ("en", "fr"):
        sentence = render(explanation.headline.key, explanation.headline.params, language)
        assert "?" not in sentence.replace("?)", ""), sentence  # no placeholder left unfilled
        for word in case.says:
            assert word in sentence, (language, sentence)
        for name, value in case.headline.items():
            if name != "policy":
                assert str(value) in sentence, (language, name, sentence)
    if case.position is not None:
        assert explanation.position is not None and explanation.position.cluster_queue == case.position
    actions = {a.code: a.data.get("pods") for a in explanation.actions}
    for code, pods in case.actions.items():
        assert actions.get(code) == pods, actions
    if case.actions:
        assert "shrink-request" not in actions and "shrink-to-start-now" not in actions, actions


def test_a_job_in_a_stopped_local_queue_has_no_place() -> None:
    objects = [
        *cluster(reservation={"default": {"cpu": 10}}),
        local_queue("held", stop_policy="Hold"),
        *pending(cpu="1", queue="held"),
    ]
    explanation = explain_objects(objects)
    assert explanation.verdict == V.QUEUE_STOPPED
    assert explanation.position is None


# --- the pieces, against Kueue's source ------------------------------------------------------------


def test_the_reducer_shrinks_every_pod_set_in_proportion() -> None:
    # podset_reducer.go: counts(i) = count - delta * i / totalDelta; the first i that works (binary search)
    full, minimum = (8, 4), (2, 4)  # one pod set may shrink by 6, the other not at all
    tried: list[tuple[int, ...]] = []

    def works(counts: tuple[int, ...]) -> bool:
        tried.append(counts)
        return sum(counts) <= 9

    assert partial.reduced_counts(full, minimum, works) == (5, 4)
    assert all(counts[1] == 4 for counts in tried)
    assert partial.reduced_counts(full, minimum, lambda counts: False) is None
    assert partial.reduced_counts((3,), (3,), lambda counts: True) is None  # nothing to reduce


@pytest.mark.parametrize(
    ("groups", "verdict"),
    [
        ((), V.EXCEEDS_MAX_QUOTA),  # guessed: flavors naming no common resource look like co-requisites
        (group_shapes([(["cpu", "memory"], ["a", "b"])]), V.WAITING_FOR_QUOTA),  # one real group: b waits
        (group_shapes([(["cpu"], ["b"]), (["memory"], ["a"])]), V.EXCEEDS_MAX_QUOTA),  # two real groups
    ],
    ids=["no groups known", "one group [cpu, memory]", "groups [cpu] and [memory]"],
)
def test_the_classifier_reads_the_real_resource_groups(groups: Any, verdict: Verdict) -> None:
    assert messages.classify_quota_reserved("WaitingForQuota", MSG_MIXED, groups).verdict == verdict


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({}, {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}),
        (
            {"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"},
            {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"},
        ),
        (
            {
                "whenCanBorrow": "TryNextFlavor",
                "whenCanPreempt": "TryNextFlavor",
                "preference": "PreemptionOverBorrowing",
            },
            {
                "whenCanBorrow": "TryNextFlavor",
                "whenCanPreempt": "TryNextFlavor",
                "preference": "PreemptionOverBorrowing",
            },
        ),
    ],
    ids=["defaults", "v1beta1 names", "v1beta2 with preference"],
)
def test_flavor_fungibility_is_decoded_with_v1beta2_names(raw: dict[str, str], expected: dict[str, str]) -> None:
    cq = cluster_queue("cq")
    cq["spec"]["flavorFungibility"] = raw
    assert dict(decode_cluster_queue(cq).fungibility) == expected


def test_preference_decides_between_borrowing_and_preempting() -> None:
    # flavorassigner.go isPreferred: BorrowingOverPreemption (default) takes the fit that borrows over the
    # flavor that must preempt; PreemptionOverBorrowing the other way round.
    borrowing = checks.FlavorTry("a", checks.Fit.FITS, borrows=True)
    preempting = checks.FlavorTry("b", checks.Fit.WAITS, preempts=True)
    no_candidates = checks.FlavorTry("c", checks.Fit.WAITS)
    assert checks._preferred([borrowing, preempting], {}) is borrowing
    assert checks._preferred([borrowing, preempting], {"preference": "PreemptionOverBorrowing"}) is preempting
    assert checks._preferred([no_candidates, preempting], {}) is preempting
    assert checks._preferred([checks.FlavorTry("d", checks.Fit.NEVER)], {}) is None


# --- 5. every Kueue message shown once -------------------------------------------------------------


def _all_explanations() -> list[tuple[str, Explanation]]:
    found = [(folder.name, explain_scenario(folder)) for folder in FOLDERS]
    found += [(case.id, case.run()) for case in CASES]
    found += [(case.id, case.run()) for case in CASES_ADMISSION]
    return found


def _texts(explanation: Explanation) -> list[Text]:
    return [explanation.headline, *(s.text for s in explanation.steps), *(a.text for a in explanation.actions)]


def _placeholders(template: str) -> set[str]:
    return {part.split("}", 1)[0] for part in template.split("{")[1:]}


def _shown(text: Text) -> list[str]:
    """The words `text` shows: its VERBATIM parameters that its English sentence (the first whose placeholders
    are given, as render() picks it) uses."""
    entry = CATALOGUES["en"].get(text.key)
    templates = (entry,) if isinstance(entry, str) else tuple(entry or ())
    used = next((_placeholders(t) for t in templates if _placeholders(t) <= set(text.params)), set())
    found = [_words(value) for name, value in text.params.items() if name in VERBATIM and name in used]
    return [words for words in found if words is not None]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_message_is_shown_once(language: str) -> None:
    """Over every explanation of the scenarios and the table tests: the words of Kueue (or the scheduler) a
    sentence quotes appear in no other sentence of the same answer, and no two sentences are the same."""
    checked = 0
    for name, explanation in _all_explanations():
        texts = _texts(explanation)
        rendered = [render(t.key, t.params, language) for t in texts]
        assert len(set(rendered)) == len(rendered), (name, rendered)
        english = [render(t.key, t.params) for t in texts]
        for text in texts:
            quoted = {v.strip() for v in text.params.values() if isinstance(v, str)}  # not the engine's fragments
            for words in (w for w in _shown(text) if w in quoted):
                where = [i for i, sentence in enumerate(english) if words in sentence]
                assert len(where) == 1, (name, words, [english[i] for i in where])
                checked += 1
    assert checked > 30  # the property saw many quoted messages


def test_a_message_kueue_copies_to_several_conditions_is_shown_once() -> None:
    message = "Exceeded the PodsReady timeout team-a/train"
    evicted = condition("Evicted", True, "PodsReadyTimeout", message)
    requeued = condition("Requeued", False, "PodsReadyTimeout", message)
    explanation = explain_objects([*cluster(), *pending(conditions=[evicted, requeued])])
    sentences = [render(t.key, t.params) for t in _texts(explanation)]
    assert sum(message in s for s in sentences) == 1, sentences
