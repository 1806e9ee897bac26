"""bot.trace.messages: every Kueue message format (../shared/kueue/FACTS.md §4), both reason vocabularies.

Examples are the instantiated ones of FACTS §4.1/§4.4/§4.6, of ../shared/kueue/samples and of the
scenario dumps in ../shared/scenarios (copied here so the tests stay hermetic); the rest are built from
the Go format strings at Kueue ff69552e (and older tags for §4.4).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from bot.trace.codes import Verdict
from bot.trace.messages import (
    GRANULAR_REASONS,
    LEGACY_REASONS,
    Cause,
    Classification,
    Fact,
    Preemption,
    classify_quota_reserved,
    parse_eviction,
    parse_preemption,
    render_taint,
    unknown_state,
)
from hypothesis import given, settings
from hypothesis import strategies as st

V = Verdict
C = Cause
PS = "couldn't assign flavors to pod set"


@dataclass(frozen=True)
class Row:
    id: str
    message: str
    verdicts: dict[str, Verdict]  # reason -> verdict; granular and legacy where both exist
    facts: list[dict[str, Any]] = field(default_factory=list)  # expected facts, in order, fields to check
    extra: dict[str, Any] = field(default_factory=dict)  # expected Classification fields


def _check_facts(facts: tuple[Fact, ...], expected: list[dict[str, Any]]) -> None:
    assert len(facts) == len(expected), facts
    for fact, want in zip(facts, expected, strict=True):
        for name, value in want.items():
            if name == "detail_has":
                assert fact.detail is not None and value in fact.detail, fact
            else:
                assert getattr(fact, name) == value, (name, fact)


def _params(rows: list[Row]) -> list[Any]:
    return [
        pytest.param(row, reason, verdict, id=f"{row.id}-{reason or 'no-reason'}")
        for row in rows
        for reason, verdict in row.verdicts.items()
    ]


def _run(row: Row, reason: str, verdict: Verdict) -> Classification:
    got = classify_quota_reserved(reason, row.message)
    assert got.verdict is verdict, got
    assert got.reason == reason
    assert got.message == row.message
    assert got.granular == (reason in GRANULAR_REASONS)
    _check_facts(got.facts, row.facts)
    for name, value in row.extra.items():
        assert getattr(got, name) == value, (name, got)
    return got


# ------------------------------------------------------------------------------------------------
# FACTS §4.1 A: flavor assignment

A1 = dict(cause=C.INSUFFICIENT_UNUSED_QUOTA, pod_set="main")
A2 = dict(cause=C.EXCEEDS_MAX_CAPACITY)

FLAVOR_ROWS = [
    Row(  # troubleshooting_jobs.md:278
        "A1-doc",
        f"{PS} main: insufficient unused quota for cpu in flavor default-flavor, 9 more needed",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.WAITING_FOR_QUOTA},
        [A1 | dict(resource="cpu", flavor="default-flavor", needed="9", maximum=None)],
    ),
    Row(  # troubleshooting_provreq.md:163-169
        "A1-memory",
        f"{PS} main: insufficient unused quota for memory in flavor default-flavor, 4396Mi more needed",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.WAITING_FOR_QUOTA},
        [A1 | dict(resource="memory", needed="4396Mi")],
    ),
    Row(  # scenario cohort-borrowing-waits
        "A1-extended-resource",
        f"{PS} main: insufficient unused quota for nvidia.com/gpu in flavor h100-80gb, 6 more needed",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.WAITING_FOR_QUOTA},
        [A1 | dict(resource="nvidia.com/gpu", flavor="h100-80gb", needed="6")],
    ),
    Row(  # scenario v1beta1-legacy: two resources of one flavor
        "A1-two-resources",
        f"{PS} main: insufficient unused quota for cpu in flavor n2-standard, 2 more needed, "
        "insufficient unused quota for memory in flavor n2-standard, 8Gi more needed",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.WAITING_FOR_QUOTA},
        [A1 | dict(resource="cpu", needed="2"), A1 | dict(resource="memory", needed="8Gi")],
    ),
    Row(  # FACTS A1 second example = C4
        "C4-A1-pending-preemption",
        f"{PS} main: insufficient unused quota for memory in flavor default, 1953125Ki more needed. "
        "Pending the preemption of 1 workload(s)",
        {"WaitingForPreemptedWorkloads": V.WAITING_FOR_PREEMPTION, "Pending": V.WAITING_FOR_PREEMPTION},
        [A1 | dict(resource="memory", flavor="default", needed="1953125Ki")],
        {"preemptions_pending": 1, "preemptions_failed": None},
    ),
    Row(  # C5
        "C5-preemption-failed",
        f"{PS} main: insufficient unused quota for cpu in flavor default, 2 more needed. "
        "Preempting 2 workload(s) failed, will retry.",
        {"WaitingForPreemptedWorkloads": V.WAITING_FOR_PREEMPTION, "Pending": V.WAITING_FOR_PREEMPTION},
        [A1 | dict(needed="2")],
        {"preemptions_pending": None, "preemptions_failed": 2},
    ),
    Row(  # C6: Preempt mode without candidates keeps the A1 text
        "C6-no-candidates",
        f"{PS} main: insufficient unused quota for cpu in flavor default-flavor, 3 more needed",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA},
        [A1 | dict(needed="3")],
    ),
    Row(  # scheduler_test.go
        "A2-scheduler-test",
        f"{PS} one: insufficient quota for cpu in flavor default, previously considered podsets requests (0) "
        "+ current podset request (100) > maximum capacity (50)",
        {"ExceedsMaxQuota": V.EXCEEDS_MAX_QUOTA, "Pending": V.EXCEEDS_MAX_QUOTA},
        [A2 | dict(pod_set="one", resource="cpu", flavor="default", previously="0", requested="100", maximum="50")],
    ),
    Row(  # scenario article-three-cpus
        "A2-cpu-and-pods",
        f"{PS} main: insufficient quota for cpu in flavor default-flavor, previously considered podsets requests "
        "(0) + current podset request (3) > maximum capacity (2), insufficient quota for pods in flavor "
        "default-flavor, previously considered podsets requests (0) + current podset request (3) > maximum "
        "capacity (2)",
        {"ExceedsMaxQuota": V.EXCEEDS_MAX_QUOTA, "Pending": V.EXCEEDS_MAX_QUOTA},
        [A2 | dict(resource="cpu", requested="3", maximum="2"), A2 | dict(resource="pods", requested="3")],
    ),
    Row(  # FACTS A2 multi-podset example
        "A2-previous-podsets",
        f"{PS} three: insufficient quota for cpu in flavor default, previously considered podsets requests (50) "
        "+ current podset request (15) > maximum capacity (50)",
        {"ExceedsMaxQuota": V.EXCEEDS_MAX_QUOTA, "Pending": V.EXCEEDS_MAX_QUOTA},
        [A2 | dict(pod_set="three", previously="50", requested="15", maximum="50")],
    ),
    Row(  # scenario waiting-for-quota-computed-position
        "A2-gpu",
        f"{PS} main: insufficient quota for nvidia.com/gpu in flavor a100-40gb, previously considered podsets "
        "requests (0) + current podset request (24) > maximum capacity (16)",
        {"ExceedsMaxQuota": V.EXCEEDS_MAX_QUOTA},
        [A2 | dict(resource="nvidia.com/gpu", flavor="a100-40gb", requested="24", maximum="16")],
    ),
    Row(  # synthetic/pending-resource-not-in-clusterqueue.yaml
        "A3",
        f"{PS} main: resource nvidia.com/gpu unavailable in ClusterQueue",
        {"NoMatchingFlavor": V.NO_MATCHING_FLAVOR, "Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.RESOURCE_NOT_COVERED, resource="nvidia.com/gpu", flavor=None, pod_set="main")],
    ),
    Row(  # FACTS A4 example
        "A4-two-flavors",
        f"{PS} main: untolerated taint {{key val NoSchedule <nil>}} in flavor spot-tainted, untolerated taint "
        "{key val2 NoSchedule <nil>} in flavor spot-tainted-2",
        {"NoMatchingFlavor": V.NO_MATCHING_FLAVOR, "Pending": V.NO_MATCHING_FLAVOR},
        [
            dict(cause=C.UNTOLERATED_TAINT, taint="key=val:NoSchedule", flavor="spot-tainted"),
            dict(cause=C.UNTOLERATED_TAINT, taint="key=val2:NoSchedule", flavor="spot-tainted-2"),
        ],
    ),
    Row(  # scenario no-matching-flavor-taint
        "A4-gke-spot",
        f"{PS} main: untolerated taint {{cloud.google.com/gke-spot true NoSchedule <nil>}} in flavor spot-l4",
        {"NoMatchingFlavor": V.NO_MATCHING_FLAVOR, "Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.UNTOLERATED_TAINT, taint="cloud.google.com/gke-spot=true:NoSchedule", flavor="spot-l4")],
    ),
    Row(
        "A4-empty-value",
        f"{PS} main: untolerated taint {{dedicated  NoExecute <nil>}} in flavor reserved",
        {"NoMatchingFlavor": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.UNTOLERATED_TAINT, taint="dedicated:NoExecute", flavor="reserved")],
    ),
    Row(  # FACTS A5 example
        "A5",
        f"{PS} main: flavor default-flavor doesn't match node affinity",
        {"NoMatchingFlavor": V.NO_MATCHING_FLAVOR, "Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.NODE_AFFINITY_MISMATCH, flavor="default-flavor")],
    ),
    Row(  # synthetic/pending-no-matching-flavor-affinity.yaml
        "A5-two-flavors",
        f"{PS} main: flavor on-demand doesn't match node affinity, flavor spot doesn't match node affinity",
        {"NoMatchingFlavor": V.NO_MATCHING_FLAVOR, "Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.NODE_AFFINITY_MISMATCH, flavor="on-demand"), dict(cause=C.NODE_AFFINITY_MISMATCH, flavor="spot")],
    ),
    Row(
        "A6",
        f"{PS} main: flavor gpu-a100 not found",
        {"NoMatchingFlavor": V.NO_MATCHING_FLAVOR, "Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.FLAVOR_NOT_FOUND, flavor="gpu-a100")],
    ),
    *(
        Row(
            f"A7-{n}",
            f'{PS} one: Flavor "tas-default" {what}',
            {"NoMatchingFlavor": V.NO_MATCHING_FLAVOR, "Pending": V.NO_MATCHING_FLAVOR},
            [dict(cause=C.TOPOLOGY_FLAVOR_MISMATCH, flavor="tas-default", detail=what, pod_set="one")],
        )
        for n, what in enumerate(
            [
                "does not contain the requested level",
                "does not support TopologyAwareScheduling",
                "information missing in TAS cache",
                "supports only TopologyAwareScheduling",
            ]
        )
    ),
    Row(  # FACTS A8 example
        "A8",
        f"{PS} main: insufficient unused quota for cpu in flavor default, 10 more needed, skipping flavor "
        "on-demand as it is not found in the nomination mapping for resource cpu",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.WAITING_FOR_QUOTA},
        [A1 | dict(flavor="default", needed="10"), dict(cause=C.FLAVOR_SKIPPED, flavor="on-demand", resource="cpu")],
    ),
    Row(  # A8 alone says nothing about the flavors: the reason decides
        "A8-alone",
        f"{PS} main: skipping flavor on-demand as it is not found in the nomination mapping for resource cpu",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.FLAVOR_SKIPPED, flavor="on-demand")],
    ),
    Row(
        "A9",
        f"{PS} main: insufficient unused quota for cpu in flavor a, 2 more needed, skipping flavor b due to "
        "WorkloadAllowedResourceFlavorAnnotation annotation",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.WAITING_FOR_QUOTA},
        [A1 | dict(flavor="a"), dict(cause=C.FLAVOR_SKIPPED, flavor="b", detail_has="variant")],
    ),
    Row(
        "A9-alone",
        f"{PS} main: skipping flavor b due to WorkloadAllowedResourceFlavorAnnotation annotation",
        {"NoMatchingFlavor": V.NO_MATCHING_FLAVOR, "Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.FLAVOR_SKIPPED, flavor="b")],
    ),
    Row(
        "A10",
        f"{PS} main: could not assign spot flavor since the original workload is assigned: on-demand, "
        "insufficient unused quota for cpu in flavor on-demand, 2 more needed",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.WAITING_FOR_QUOTA},
        [
            dict(cause=C.FLAVOR_SKIPPED, flavor="spot", detail="the original workload slice is on flavor on-demand"),
            A1 | dict(flavor="on-demand", needed="2"),
        ],
    ),
    Row(
        "A11-no-tas-flavor",
        "failed to assign flavors to pod set main: no TAS flavor assigned",
        {"NoMatchingFlavor": V.NO_MATCHING_FLAVOR, "Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.FLAVOR_ASSIGNMENT_ERROR, pod_set="main", detail="no TAS flavor assigned")],
    ),
    Row(  # tas_test.go observes ExceedsMaxQuota for this one
        "A11-several-tas-flavors",
        "failed to assign flavors to pod set main: more than one TAS flavor assigned: a, b",
        {"ExceedsMaxQuota": V.EXCEEDS_MAX_QUOTA, "Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.FLAVOR_ASSIGNMENT_ERROR, detail="more than one TAS flavor assigned: a, b")],
    ),
    Row(
        "A11-no-tas-cache",
        "failed to assign flavors to pod set main: workload requires Topology, but there is no TAS cache information",
        {"Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.FLAVOR_ASSIGNMENT_ERROR)],
    ),
    *(
        Row(
            f"A11-elastic-{kind}",
            f"failed to assign flavors to pod set main: {kind} topology is not supported with "
            "ElasticJobsViaWorkloadSlices",
            {"NoMatchingFlavor": V.INVALID_REQUEST, "Pending": V.INVALID_REQUEST},
            [dict(cause=C.FLAVOR_ASSIGNMENT_ERROR)],
        )
        for kind in ("required", "preferred")
    ),
]


@pytest.mark.parametrize(("row", "reason", "verdict"), _params(FLAVOR_ROWS))
def test_flavor_assignment_messages(row: Row, reason: str, verdict: Verdict) -> None:
    _run(row, reason, verdict)


def test_a12_flavors_considered_event() -> None:
    """A12 only shows in the "Flavors considered" list of the (Normal) QuotaReserved event."""
    got = classify_quota_reserved(
        "QuotaReserved",
        "Quota reserved in ClusterQueue cq, wait time since queued was 1s; Flavors considered: main: "
        "default(NoFit;flavor default does not provide resource example.com/gpu), spot(NoFit;insufficient quota "
        "for cpu in flavor spot, previously considered podsets requests (0) + current podset request (3) > "
        "maximum capacity (2)) | worker: x(preemptionMode=Preempt;insufficient unused quota for cpu in flavor x, "
        "1 more needed)",
    )
    assert got.verdict is V.NOT_YET_EVALUATED
    _check_facts(
        got.facts,
        [
            dict(cause=C.QUOTA_RESERVED, queue="cq"),
            dict(cause=C.RESOURCE_NOT_COVERED, pod_set="main", flavor="default", resource="example.com/gpu"),
            dict(cause=C.EXCEEDS_MAX_CAPACITY, pod_set="main", flavor="spot", maximum="2"),
            dict(cause=C.INSUFFICIENT_UNUSED_QUOTA, pod_set="worker", flavor="x", needed="1"),
        ],
    )


# ------------------------------------------------------------------------------------------------
# FACTS §4.1 B: Topology-Aware Scheduling

B1 = (
    f'{PS} one: topology "tas-three-level" doesn\'t allow to fit any of 1 pod(s). Total nodes: 6; excluded: '
    'resource "cpu": 1, topologyDomain: 5'
)
B2 = f'{PS} one: topology "tas-single-level" allows to fit only 1 out of 2 pod(s)'
B3 = (
    f'{PS} one: topology "tas-three-level" doesn\'t allow to fit; 0/1 slice(s) fit on level cloud.provider.com/rack; '
    "2/3 slice(s) fit on level kubernetes.io/hostname"
)
TOPO = dict(cause=C.TOPOLOGY_NO_FIT, pod_set="one")
MAYBE = "may be temporary"

TOPOLOGY_ROWS = [
    Row(
        "B1",
        B1,
        {
            "TopologyPlacementFailed": V.TOPOLOGY_PLACEMENT_FAILED,
            "WaitingForQuota": V.WAITING_FOR_QUOTA,
            "WaitingForPreemptedWorkloads": V.WAITING_FOR_PREEMPTION,
        },
        [
            TOPO
            | dict(
                topology="tas-three-level",
                fit=(0, 1),
                detail='total nodes: 6; excluded: resource "cpu": 1, topologyDomain: 5',
            )
        ],
    ),
    Row(
        "B1-legacy",
        B1,
        {"Pending": V.TOPOLOGY_PLACEMENT_FAILED},
        [TOPO | dict(topology="tas-three-level", detail_has=MAYBE)],
    ),
    Row(
        "B1-slices-exclusions",
        f'{PS} one: topology "t" doesn\'t allow to fit any of 2 slice(s). Total nodes: 9; excluded: affinity: 1, '
        'nodeSelector: 2, schedulerLibraryNoFit: 1, taint "example.com/gpu": 3, topologyDomain: 2',
        {"TopologyPlacementFailed": V.TOPOLOGY_PLACEMENT_FAILED},
        [
            TOPO
            | dict(
                topology="t",
                fit=(0, 2),
                detail_has="counted in slices; total nodes: 9; excluded: affinity: 1, nodeSelector: 2, "
                'schedulerLibraryNoFit: 1, taint "example.com/gpu": 3',
            )
        ],
    ),
    Row(
        "B2",
        B2,
        {"TopologyPlacementFailed": V.TOPOLOGY_PLACEMENT_FAILED, "WaitingForQuota": V.WAITING_FOR_QUOTA},
        [TOPO | dict(topology="tas-single-level", fit=(1, 2), detail=None)],
    ),
    Row("B2-legacy", B2, {"Pending": V.TOPOLOGY_PLACEMENT_FAILED}, [TOPO | dict(fit=(1, 2), detail_has=MAYBE)]),
    Row(  # FACTS B2 example
        "B2-pending-preemption",
        B2 + ". Pending the preemption of 1 workload(s)",
        {"WaitingForPreemptedWorkloads": V.WAITING_FOR_PREEMPTION, "Pending": V.WAITING_FOR_PREEMPTION},
        [TOPO | dict(fit=(1, 2), detail=None)],
        {"preemptions_pending": 1},
    ),
    Row(
        "B3",
        B3,
        {"TopologyPlacementFailed": V.TOPOLOGY_PLACEMENT_FAILED, "WaitingForQuota": V.WAITING_FOR_QUOTA},
        [
            TOPO
            | dict(
                topology="tas-three-level",
                fit=None,
                detail="0/1 slice(s) fit on level cloud.provider.com/rack; "
                "2/3 slice(s) fit on level kubernetes.io/hostname",
            )
        ],
    ),
    Row(
        "B3-exclusions",
        B3 + '. Total nodes: 4; excluded: resource "cpu": 4',
        {"Pending": V.TOPOLOGY_PLACEMENT_FAILED},
        [TOPO | dict(detail_has='kubernetes.io/hostname; total nodes: 4; excluded: resource "cpu": 4')],
    ),
    *(
        Row(
            f"B4-{n}",
            f"{PS} one: {text}",
            {"TopologyPlacementFailed": V.TOPOLOGY_PLACEMENT_FAILED, "Pending": V.TOPOLOGY_PLACEMENT_FAILED},
            [dict(cause=C.TOPOLOGY_REQUEST_INVALID, detail=text, pod_set="one")],
        )
        for n, text in enumerate(
            [
                "no requested topology level: cloud.com/block",
                "no requested topology level for slices: cloud.com/rack",
                "podset slice topology cloud.com/block is above the podset topology cloud.com/rack",
                "invalid node selectors: map[a:b], reason: unknown level",
                "invalid affinity node selectors: [x], reason: bad",
                "invalid preferred node affinity terms: [y], reason: bad",
                "unable to calculate domain capacities for PodSet one, error: boom",
                "invalid podSetUpdate for PodSet one, error: boom",
                "no requested topology level for additional slice layer: cloud.com/x",
                "additional slice layer topology kubernetes.io/hostname must be at a lower level than cloud.com/rack",
                "additional slice layer size 3 must evenly divide parent layer size 4",
                "no topology domains at level: cloud.com/block",
            ]
        )
    ),
    Row(
        "B5-replacement",
        f"{PS} one: cannot find replacement assignment for unhealthy node: x0",
        {"Pending": V.TOPOLOGY_PLACEMENT_FAILED},
        [dict(cause=C.TOPOLOGY_REQUEST_INVALID, detail="cannot find replacement assignment for unhealthy node: x0")],
    ),
    Row(
        "B5-stale-domain",
        f"{PS} one: Cannot replace the node, because the existing topologyAssignment is invalid, as it contains "
        "the stale domain [x0]",
        {"Pending": V.TOPOLOGY_PLACEMENT_FAILED},
        [dict(cause=C.TOPOLOGY_REQUEST_INVALID)],
    ),
    Row(  # B6: the SecondPassFailed event carries the same TAS text
        "B6-second-pass",
        B1,
        {"SecondPassFailed": V.TOPOLOGY_PLACEMENT_FAILED},
        [TOPO | dict(detail_has=MAYBE)],
    ),
    Row(
        "B7",
        "There are pending delayed topology requests",
        {"PendingDelayedTopologyRequests": V.ADMISSION_CHECKS_PENDING},
        [dict(cause=C.DELAYED_TOPOLOGY_REQUEST)],
    ),
]


@pytest.mark.parametrize(("row", "reason", "verdict"), _params(TOPOLOGY_ROWS))
def test_topology_messages(row: Row, reason: str, verdict: Verdict) -> None:
    _run(row, reason, verdict)


# ------------------------------------------------------------------------------------------------
# FACTS §4.1 C, D, E and the eviction text Kueue copies into QuotaReserved

STATEMENT_ROWS = [
    Row(
        "C1",
        "Workload no longer fits after processing another workload",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.WAITING_FOR_QUOTA},
        [dict(cause=C.NO_LONGER_FITS)],
    ),
    Row(
        "C2",
        "Workload has overlapping preemption targets with another workload",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.WAITING_FOR_QUOTA},
        [dict(cause=C.OVERLAPPING_PREEMPTION, detail=None)],
    ),
    Row(
        "C3",
        "Workload has overlapping preemption targets with another workload, "
        "but will fit after these preemptions complete",
        {"WaitingForPreemptedWorkloads": V.WAITING_FOR_PREEMPTION, "Pending": V.WAITING_FOR_PREEMPTION},
        [dict(cause=C.OVERLAPPING_PREEMPTION, detail="but will fit after these preemptions complete")],
    ),
    Row(
        "C7",
        "Workload requires preemption, but it's gated",
        {"AdmissionGated": V.ADMISSION_GATED, "Pending": V.ADMISSION_GATED},
        [dict(cause=C.PREEMPTION_GATED)],
    ),
    Row(
        "C8",
        "waiting for all admitted workloads to be in PodsReady condition",
        {"WaitingForPodsReady": V.WAITING_FOR_PODS_READY, "Waiting": V.WAITING_FOR_PODS_READY},
        [dict(cause=C.PODS_READY_BLOCK)],
    ),
    Row(
        "C9",
        "Failed to admit workload: workload ns/name could not be added to the cache",
        {"Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.ADMIT_FAILED, detail="workload ns/name could not be added to the cache")],
    ),
    Row(
        "C9-apiserver",
        "Could not admit Workload and assign flavors in apiserver",
        {"Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.ADMIT_FAILED)],
    ),
    Row(
        "C10-variant",
        "A more favorable variant is already admitted",
        {"PendingEvaluation": V.NOT_YET_EVALUATED},
        [dict(cause=C.CONCURRENT_ADMISSION, detail="A more favorable variant is already admitted")],
    ),
    Row(
        "C10-last-acceptable",
        "Target flavor is below LastAcceptableFlavorName",
        {"PendingEvaluation": V.NOT_YET_EVALUATED},
        [dict(cause=C.CONCURRENT_ADMISSION)],
    ),
    Row(
        "C10-migration-eviction",
        "Evicted to accommodate a workload (UID: 3f2c) due to migration to more favorable resource flavor",
        {"PendingEvaluation": V.NOT_YET_EVALUATED, "Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.FLAVOR_MIGRATION, detail="migration to more favorable resource flavor")],
    ),
    Row(
        "C10-pending-migration",
        ". Pending the migration of 1 workload(s)",
        {"PendingEvaluation": V.WAITING_FOR_PREEMPTION},
        [dict(cause=C.UNKNOWN, text="")],
        {"migrations_pending": 1},
    ),
    Row(
        "D1",
        "The workload has failed admission checks",
        {"PendingEvaluation": V.ADMISSION_CHECKS_PENDING, "Pending": V.ADMISSION_CHECKS_PENDING},
        [dict(cause=C.FAILED_ADMISSION_CHECKS)],
    ),
    Row(  # D2 and E4 share the text; scenario queue-stopped
        "D2-E4",
        "ClusterQueue ml-training is inactive",
        {"Suspended": V.QUEUE_INACTIVE, "Pending": V.QUEUE_INACTIVE, "Inadmissible": V.QUEUE_INACTIVE},
        [dict(cause=C.CLUSTER_QUEUE_INACTIVE, queue="ml-training")],
    ),
    Row(
        "D3",
        "ClusterQueue cluster-queue not found",
        {"Misconfigured": V.CLUSTER_QUEUE_MISSING, "Pending": V.CLUSTER_QUEUE_MISSING},
        [dict(cause=C.CLUSTER_QUEUE_MISSING, queue="cluster-queue")],
    ),
    Row(  # v0.19+; synthetic/pending-namespace-mismatch.yaml
        "D4",
        "workload namespace doesn't match ClusterQueue selector",
        {"Misconfigured": V.NAMESPACE_NOT_ALLOWED, "Pending": V.NAMESPACE_NOT_ALLOWED},
        [dict(cause=C.NAMESPACE_NOT_SELECTED)],
    ),
    Row(  # ≤v0.18 (FACTS §4.4)
        "D4-upper-case",
        "Workload namespace doesn't match ClusterQueue selector",
        {"Misconfigured": V.NAMESPACE_NOT_ALLOWED, "Pending": V.NAMESPACE_NOT_ALLOWED},
        [dict(cause=C.NAMESPACE_NOT_SELECTED)],
    ),
    Row(
        "D5",
        'workload namespace "team-a" does not exist: namespaces "team-a" not found',
        {"Misconfigured": V.NAMESPACE_NOT_ALLOWED},
        [dict(cause=C.NAMESPACE_MISSING, detail='"team-a"')],
    ),
    Row(
        "D6",
        'resources validation failed: spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: '
        "requests must not exceed its limits",
        {"Misconfigured": V.INVALID_REQUEST, "Pending": V.INVALID_REQUEST},
        [dict(cause=C.REQUESTS_EXCEED_LIMITS, detail_has="requests must not exceed its limits")],
    ),
    Row(
        "D7-max",
        "resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec.containers[0]: "
        'Invalid value: ["cpu"]: '
        "requests must not be above the limitRange max",
        {"Misconfigured": V.INVALID_REQUEST, "Pending": V.INVALID_REQUEST},
        [dict(cause=C.LIMIT_RANGE_VIOLATION, detail_has="limitRange max")],
    ),
    Row(
        "D7-min",
        'resources didn\'t satisfy LimitRange constraints: spec.podSets[0].template.spec: Invalid value: ["memory"]: '
        "requests must not be below the limitRange min",
        {"Misconfigured": V.INVALID_REQUEST},
        [dict(cause=C.LIMIT_RANGE_VIOLATION)],
    ),
    Row(  # docs troubleshooting_jobs.md:256-262; KEP-10852 scenario 3
        "E1",
        "LocalQueue user-queue doesn't exist",
        {"Misconfigured": V.LOCAL_QUEUE_MISSING, "Inadmissible": V.LOCAL_QUEUE_MISSING},
        [dict(cause=C.LOCAL_QUEUE_MISSING, queue="user-queue")],
    ),
    Row(
        "E2",
        "LocalQueue team-queue is inactive",
        {"Suspended": V.QUEUE_INACTIVE, "Inadmissible": V.QUEUE_INACTIVE},
        [dict(cause=C.LOCAL_QUEUE_INACTIVE, queue="team-queue")],
    ),
    Row(  # troubleshooting_provreq.md:177-184
        "E3",
        "ClusterQueue cluster-queue doesn't exist",
        {"Misconfigured": V.CLUSTER_QUEUE_MISSING, "Inadmissible": V.CLUSTER_QUEUE_MISSING},
        [dict(cause=C.CLUSTER_QUEUE_MISSING, queue="cluster-queue")],
    ),
    Row(
        "E5",
        'invalid namespace selector: key: Invalid value: "a b": name part must consist of alphanumeric characters',
        {"Misconfigured": V.NAMESPACE_NOT_ALLOWED},
        [dict(cause=C.NAMESPACE_NOT_SELECTED, detail_has="Invalid value")],
    ),
    Row(
        "E7",
        "Admission is gated by: example.com/approval,example.com/budget",
        {"AdmissionGated": V.ADMISSION_GATED},
        [dict(cause=C.ADMISSION_GATED, detail="example.com/approval,example.com/budget")],
    ),
    Row(
        "E7-event",
        "Workload admission is gated by: example.com/approval",
        {"AdmissionGated": V.ADMISSION_GATED},
        [dict(cause=C.ADMISSION_GATED, detail="example.com/approval")],
    ),
    Row(
        "E8",
        "AdmissionGatedBy cleared, waiting for quota reservation",
        {"PendingEvaluation": V.NOT_YET_EVALUATED, "Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.ADMISSION_GATE_CLEARED)],
    ),
    Row(  # KEP-10852 scenario 1
        "E9",
        "Workload is pending evaluation in the scheduling queue",
        {"PendingEvaluation": V.NOT_YET_EVALUATED},
        [dict(cause=C.PENDING_EVALUATION)],
    ),
    Row(
        "E10",
        "Bypassed scheduling evaluation because an equivalent workload recently failed",
        {
            "WaitingForQuota": V.WAITING_FOR_QUOTA,
            "NoMatchingFlavor": V.NO_MATCHING_FLAVOR,
            "ExceedsMaxQuota": V.EXCEEDS_MAX_QUOTA,
            "TopologyPlacementFailed": V.TOPOLOGY_PLACEMENT_FAILED,
            "PendingEvaluation": V.NOT_YET_EVALUATED,
            "Pending": V.NOT_YET_EVALUATED,
        },
        [dict(cause=C.EVALUATION_BYPASSED)],
    ),
    Row(
        "E11",
        "The workload is deactivated",
        {"Deactivated": V.DEACTIVATED, "Inadmissible": V.DEACTIVATED},
        [dict(cause=C.DEACTIVATED, detail=None)],
    ),
    Row(
        "E11-due-to",
        "The workload is deactivated due to exceeding the maximum number of re-queuing retries",
        {"Deactivated": V.DEACTIVATED, "Pending": V.DEACTIVATED},
        [dict(cause=C.DEACTIVATED, detail="exceeding the maximum number of re-queuing retries")],
    ),
    Row(
        "E12-lq-missing",
        "LocalQueue lq is terminating or missing",
        {"Misconfigured": V.LOCAL_QUEUE_MISSING, "Inadmissible": V.LOCAL_QUEUE_MISSING},
        [dict(cause=C.LOCAL_QUEUE_MISSING, queue="lq", detail="is terminating or missing")],
    ),
    Row(
        "E12-lq-stopped",
        "LocalQueue lq is stopped",
        {"Suspended": V.QUEUE_STOPPED, "Inadmissible": V.QUEUE_STOPPED},
        [dict(cause=C.LOCAL_QUEUE_INACTIVE, queue="lq", detail="is stopped")],
    ),
    Row(
        "E12-cq-missing",
        "ClusterQueue cq is terminating or missing",
        {"Misconfigured": V.CLUSTER_QUEUE_MISSING, "Inadmissible": V.CLUSTER_QUEUE_MISSING},
        [dict(cause=C.CLUSTER_QUEUE_MISSING, queue="cq")],
    ),
    Row(
        "E12-cq-stopped",
        "ClusterQueue cq is stopped",
        {"Suspended": V.QUEUE_STOPPED, "Inadmissible": V.QUEUE_STOPPED},
        [dict(cause=C.CLUSTER_QUEUE_INACTIVE, queue="cq")],
    ),
    *(
        Row(
            f"E13-{n}",
            text,
            {"Misconfigured": V.INVALID_REQUEST, "Inadmissible": V.INVALID_REQUEST},
            [dict(cause=C.DRA_UNSUPPORTED)],
        )
        for n, text in enumerate(
            [
                "KueueDRAIntegration feature does not support use of resource claims",
                "Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled",
                "spec.podSets[0].template.spec.resourceClaims[0]: Invalid value: null: DeviceClass gpu.example.com "
                "is not mapped in DRA configuration for podset main",
                "spec.devices.requests[0]: Invalid value: null: FirstAvailable device selection is not supported",
                "[spec.devices.requests[0].exactly.allocationMode: Invalid value: \"All\": AllocationMode 'All' is not "
                "supported, spec.devices.requests[1]: Invalid value: null: "
                "Exactly must be set if FirstAvailable is nil]",
                "spec.devices.requests[0]: Internal error: insufficient matching devices for CEL selector in "
                "DeviceClass gpu: 2 device(s) match in the cluster but 4 requested",
            ]
        )
    ),
    Row(
        "OnHold-job",
        "Job is on hold",
        {"OnHold": V.NOT_YET_EVALUATED},
        [dict(cause=C.ON_HOLD, detail="Job is on hold")],
    ),
    Row(
        "OnHold-statefulset",
        "StatefulSet scaled to zero; workload on hold",
        {"OnHold": V.NOT_YET_EVALUATED},
        [dict(cause=C.ON_HOLD)],
    ),
    # Eviction text in QuotaReserved right after an eviction (reconciler.go:610-620), FACTS §3.1
    Row(  # synthetic/evicted-preempted-requeued.yaml
        "evicted-preempted",
        "Preempted to accommodate a workload (UID: 9f542104-a9e2-4344-ad2e-9c136204da18, JobUID: "
        "a20d0a6a-64a3-46ce-9b95-8cfb3bf6e675) due to prioritization in the ClusterQueue; preemptor path: "
        "/cohort-a/cluster-queue; preemptee path: /cohort-a/cluster-queue",
        {"PendingEvaluation": V.NOT_YET_EVALUATED, "Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.PREEMPTED, detail="prioritization in the ClusterQueue")],
    ),
    Row(
        "evicted-preempted-v0.6",
        "Preempted to accommodate a higher priority Workload",
        {"Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.PREEMPTED, detail=None)],
    ),
    Row(  # scenario requeue-backoff
        "evicted-pods-ready-timeout",
        "Exceeded the PodsReady timeout vision-prod/job-detector-retrain-v2-1744b",
        {"PendingEvaluation": V.NOT_YET_EVALUATED, "Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.PODS_READY_TIMEOUT, detail="vision-prod/job-detector-retrain-v2-1744b")],
    ),
    Row(  # F
        "F-evicted-admission-check-retry",
        'Evicted due to AdmissionCheck in Retry state: "dws-prov" (Retrying after failure: capacity)',
        {"PendingEvaluation": V.NOT_YET_EVALUATED, "Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.ADMISSION_CHECK_EVICTION, detail_has='"dws-prov"')],
    ),
    Row(
        "evicted-cq-stopped",
        "The ClusterQueue is stopped",
        {"PendingEvaluation": V.QUEUE_STOPPED, "Pending": V.QUEUE_STOPPED},
        [dict(cause=C.CLUSTER_QUEUE_INACTIVE, queue=None)],
    ),
    Row(
        "evicted-lq-stopped",
        "The LocalQueue is stopped",
        {"Pending": V.QUEUE_STOPPED},
        [dict(cause=C.LOCAL_QUEUE_INACTIVE)],
    ),
    Row(  # B5 eviction
        "evicted-node-failures",
        "Workload was evicted as there was no replacement for unhealthy node(s): x0",
        {"Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.NODE_REPLACEMENT_FAILED, detail="x0")],
    ),
]


@pytest.mark.parametrize(("row", "reason", "verdict"), _params(STATEMENT_ROWS))
def test_statement_messages(row: Row, reason: str, verdict: Verdict) -> None:
    _run(row, reason, verdict)


# ------------------------------------------------------------------------------------------------
# FACTS §4.4: older formats

LEGACY_ROWS = [
    Row(  # troubleshooting_jobs.md:165-177 (≤v0.9.3, no cohort)
        "le-v0.9.3-in-cluster-queue",
        f"{PS} main: insufficient quota for cpu in flavor default-flavor in ClusterQueue",
        {"Pending": V.EXCEEDS_MAX_QUOTA},
        [A2 | dict(resource="cpu", flavor="default-flavor", requested=None, detail_has="≤ v0.9")],
    ),
    Row(
        "le-v0.9.3-cohort",
        f"{PS} main: insufficient unused quota in cohort for cpu in flavor default, 3 more needed",
        {"Pending": V.WAITING_FOR_QUOTA},
        [A1 | dict(resource="cpu", flavor="default", needed="3", detail_has="cohort")],
    ),
    Row(
        "le-v0.9.3-borrowing-limit",
        f"{PS} main: borrowing limit for nvidia.com/gpu in flavor a100 exceeded",
        {"Pending": V.WAITING_FOR_QUOTA},
        [
            dict(
                cause=C.INSUFFICIENT_UNUSED_QUOTA,
                resource="nvidia.com/gpu",
                flavor="a100",
                detail_has="borrowing limit",
            )
        ],
    ),
    Row(
        "v0.9.4-v0.14-request-gt-max",
        f"{PS} main: insufficient quota for memory in flavor default, request > maximum capacity (24Gi > 16Gi)",
        {"Pending": V.EXCEEDS_MAX_QUOTA},
        [A2 | dict(resource="memory", requested="24Gi", maximum="16Gi", previously=None)],
    ),
    Row(
        "le-v0.8-requests-exceed-limits",
        "resource validation failed: podSets[main].containers[0][cpu, memory] requests exceed it's limits",
        {"Pending": V.INVALID_REQUEST},
        [dict(cause=C.REQUESTS_EXCEED_LIMITS)],
    ),
    Row(
        "le-v0.8-requests-exceed-limits-bare",
        "podSets[main].initContainers[0][cpu] requests exceed it's limits",
        {"Pending": V.INVALID_REQUEST},
        [dict(cause=C.REQUESTS_EXCEED_LIMITS)],
    ),
    Row(
        "v0.9.4-requests-exceed-limits",
        'resources validation failed: spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: '
        "requests must not exceed it's limits",
        {"Pending": V.INVALID_REQUEST},
        [dict(cause=C.REQUESTS_EXCEED_LIMITS)],
    ),
    Row(
        "le-v0.8-limit-range",
        "didn't satisfy LimitRange constraints: the requests of podSets[main].containers[0][cpu] exceeds the limits",
        {"Pending": V.INVALID_REQUEST},
        [dict(cause=C.LIMIT_RANGE_VIOLATION)],
    ),
]


@pytest.mark.parametrize(("row", "reason", "verdict"), _params(LEGACY_ROWS))
def test_older_formats(row: Row, reason: str, verdict: Verdict) -> None:
    _run(row, reason, verdict)


# ------------------------------------------------------------------------------------------------
# Least severe flavor within a pod set, most severe across pod sets (and resource groups)

EXCEEDS_A = (
    "insufficient quota for cpu in flavor a, previously considered podsets requests (0) + current podset "
    "request (8) > maximum capacity (4)"
)
TAINT_B = "untolerated taint {spot true NoSchedule <nil>} in flavor b"
QUOTA_C = "insufficient unused quota for cpu in flavor c, 2 more needed"
AFFINITY_D = "flavor d doesn't match node affinity"

SEVERITY_ROWS = [
    Row(
        "exceeds-and-tainted",
        f"{PS} main: {EXCEEDS_A}, {TAINT_B}",
        {"Pending": V.EXCEEDS_MAX_QUOTA, "ExceedsMaxQuota": V.EXCEEDS_MAX_QUOTA},
        [A2, dict(cause=C.UNTOLERATED_TAINT)],
    ),
    Row(
        "exceeds-and-quota",
        f"{PS} main: {EXCEEDS_A}, {QUOTA_C}",
        {"Pending": V.WAITING_FOR_QUOTA, "WaitingForQuota": V.WAITING_FOR_QUOTA},
        [A2, A1],
    ),
    Row(
        "tainted-and-affinity",
        f"{PS} main: {AFFINITY_D}, {TAINT_B}",
        {"Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.NODE_AFFINITY_MISMATCH), dict(cause=C.UNTOLERATED_TAINT)],
    ),
    Row(
        "tainted-affinity-quota",
        f"{PS} main: {AFFINITY_D}, {QUOTA_C}, {TAINT_B}",
        {"Pending": V.WAITING_FOR_QUOTA},
        [dict(cause=C.NODE_AFFINITY_MISMATCH), A1, dict(cause=C.UNTOLERATED_TAINT)],
    ),
    Row(  # a flavor's severity is its worst fact: flavor a has A1 on cpu but A2 on memory
        "flavor-worst-fact",
        f"{PS} main: insufficient quota for memory in flavor a, previously considered podsets requests (0) "
        "+ current podset request (9Gi) > maximum capacity (8Gi), insufficient unused quota for cpu in flavor a, "
        f"1 more needed, {TAINT_B}",
        {"Pending": V.EXCEEDS_MAX_QUOTA},
        [A2 | dict(maximum="8Gi"), A1, dict(cause=C.UNTOLERATED_TAINT)],
    ),
    Row(
        "pod-sets-quota-then-exceeds",
        f"{PS} driver: {QUOTA_C}; {PS} executor: {EXCEEDS_A}",
        {"Pending": V.EXCEEDS_MAX_QUOTA},
        [A1 | dict(pod_set="driver"), A2 | dict(pod_set="executor")],
    ),
    Row(
        "pod-sets-tainted-and-quota",
        f"{PS} leader: {TAINT_B}; {PS} worker: {QUOTA_C}",
        {"Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.UNTOLERATED_TAINT, pod_set="leader"), A1 | dict(pod_set="worker")],
    ),
    Row(
        "pod-sets-topology-and-quota",
        f'{PS} one: topology "t" doesn\'t allow to fit any of 4 pod(s); {PS} two: {QUOTA_C}',
        {"Pending": V.WAITING_FOR_QUOTA},
        [dict(cause=C.TOPOLOGY_NO_FIT, pod_set="one", fit=(0, 4)), A1 | dict(pod_set="two")],
    ),
    Row(  # a resource missing from the ClusterQueue blocks whatever the other resources do
        "uncovered-resource-and-quota",
        f"{PS} main: {QUOTA_C}, resource example.com/fpga unavailable in ClusterQueue",
        {"Pending": V.NO_MATCHING_FLAVOR, "WaitingForQuota": V.NO_MATCHING_FLAVOR},
        [A1, dict(cause=C.RESOURCE_NOT_COVERED, resource="example.com/fpga")],
    ),
    Row(  # two resource groups (flavors share no resource): co-requisites, the worst one counts
        "two-resource-groups",
        f"{PS} main: insufficient unused quota for cpu in flavor cpu-a, 1 more needed, insufficient quota for "
        "nvidia.com/gpu in flavor gpu-x, previously considered podsets requests (0) + current podset request (9) > "
        "maximum capacity (8)",
        {"Pending": V.EXCEEDS_MAX_QUOTA},
        [A1 | dict(flavor="cpu-a"), A2 | dict(flavor="gpu-x")],
    ),
    Row(  # flavors naming no resource with two resource groups: the reason picks within the possible range
        "two-resource-groups-and-a-tainted-flavor",
        f"{PS} main: insufficient unused quota for cpu in flavor cpu-a, 1 more needed, insufficient unused quota "
        f"for nvidia.com/gpu in flavor gpu-x, 2 more needed, {TAINT_B}",
        {
            "Pending": V.WAITING_FOR_QUOTA,
            "NoMatchingFlavor": V.NO_MATCHING_FLAVOR,
            "WaitingForQuota": V.WAITING_FOR_QUOTA,
        },
        [A1, A1, dict(cause=C.UNTOLERATED_TAINT)],
    ),
    Row(  # a reason that contradicts an unambiguous message loses
        "reason-contradicts-message",
        f"{PS} main: {QUOTA_C}",
        {"NoMatchingFlavor": V.WAITING_FOR_QUOTA, "ExceedsMaxQuota": V.WAITING_FOR_QUOTA},
        [A1],
    ),
    Row(
        "exceeds-with-preemption-suffix-stays-never",
        f"{PS} one: {EXCEEDS_A}; {PS} two: {QUOTA_C}. Pending the preemption of 2 workload(s)",
        {"Pending": V.EXCEEDS_MAX_QUOTA},
        [A2 | dict(pod_set="one"), A1 | dict(pod_set="two")],
        {"preemptions_pending": 2},
    ),
]


@pytest.mark.parametrize(("row", "reason", "verdict"), _params(SEVERITY_ROWS))
def test_severity_rules(row: Row, reason: str, verdict: Verdict) -> None:
    _run(row, reason, verdict)


# ------------------------------------------------------------------------------------------------
# Truncated messages (Kueue cuts at 1 KiB for events and 32 KiB for conditions, ending with " ...")

TRUNCATED_ROWS = [
    Row(
        "cut-in-last-reason",
        f"{PS} main: {AFFINITY_D}, insufficient unused quota for cpu in flavor c, 2 more needed, "
        "insufficient unused quota for memory in fla ...",
        {"Pending": V.WAITING_FOR_QUOTA},
        [
            dict(cause=C.NODE_AFFINITY_MISMATCH),
            A1 | dict(flavor="c", needed="2"),
            A1 | dict(resource="memory", flavor=None, needed=None, detail_has="cut by Kueue"),
        ],
        {"truncated": True},
    ),
    Row(
        "cut-in-a-field",
        f"{PS} main: insufficient unused quota for cpu in flavor default-flavor, 12 mo ...",
        {"Pending": V.WAITING_FOR_QUOTA},
        [A1 | dict(resource="cpu", flavor="default-flavor", needed=None)],
        {"truncated": True},
    ),
    Row(
        "cut-in-a-taint",
        f"{PS} main: {AFFINITY_D}, untolerated taint {{spot tr ...",
        {"Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.NODE_AFFINITY_MISMATCH), dict(cause=C.UNTOLERATED_TAINT, taint=None, flavor=None)],
    ),
    Row(
        "cut-in-a-lead",
        f"{PS} main: {TAINT_B}, insufficient unu ...",
        {"Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.UNTOLERATED_TAINT), dict(cause=C.UNKNOWN, text="insufficient unu", detail="cut by Kueue")],
    ),
    Row(  # the cut pod set may have lost its least severe flavor: the granular reason knows better
        "cut-granular-reason-wins",
        f"{PS} main: {AFFINITY_D}, ins ...",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.NO_MATCHING_FLAVOR},
        [dict(cause=C.NODE_AFFINITY_MISMATCH), dict(cause=C.UNKNOWN)],
    ),
    Row(  # complete pod sets before the cut are a floor; the cut one (maybe missing a milder flavor) doesn't count
        "cut-complete-pod-set-is-a-floor",
        f"{PS} one: {EXCEEDS_A}; {PS} two: {AFFINITY_D}, insuff ...",
        {
            "WaitingForQuota": V.EXCEEDS_MAX_QUOTA,
            "ExceedsMaxQuota": V.EXCEEDS_MAX_QUOTA,
            "NoMatchingFlavor": V.NO_MATCHING_FLAVOR,
            "Pending": V.EXCEEDS_MAX_QUOTA,
        },
        [A2, dict(cause=C.NODE_AFFINITY_MISMATCH), dict(cause=C.UNKNOWN)],
    ),
    Row(
        "cut-in-header",
        f"{PS} one: {QUOTA_C}; couldn't assign flavors to p ...",
        {"Pending": V.WAITING_FOR_QUOTA},
        [
            A1 | dict(pod_set="one", needed="2"),
            dict(cause=C.UNKNOWN, pod_set="one", text="couldn't assign flavors to p"),
        ],
    ),
    Row(  # only the tail of a message (its head cut by a UI): classify what is there
        "tail-only",
        "flavor default, 2 more needed, insufficient unused quota for memory in flavor b, 1Gi more needed",
        {"Pending": V.WAITING_FOR_QUOTA},
        [dict(cause=C.UNKNOWN, pod_set=None), A1 | dict(pod_set=None, resource="memory", needed="1Gi")],
    ),
    Row(
        "cut-whole-message",
        "Admission is gated by: example.com/a,example.com/b,exa ...",
        {"AdmissionGated": V.ADMISSION_GATED},
        [dict(cause=C.ADMISSION_GATED, detail="example.com/a,example.com/b,exa")],
        {"truncated": True},
    ),
    Row(
        "cut-unknown",
        "something Kueue will say one day and cut ...",
        {"WaitingForQuota": V.WAITING_FOR_QUOTA, "Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.UNKNOWN, detail="cut by Kueue")],
    ),
]


@pytest.mark.parametrize(("row", "reason", "verdict"), _params(TRUNCATED_ROWS))
def test_truncated_messages(row: Row, reason: str, verdict: Verdict) -> None:
    _run(row, reason, verdict)


def test_event_cut_at_1024_bytes() -> None:
    """A Warning event of the Workload with many tainted flavors, cut like api.TruncateEventMessage."""
    reasons = ", ".join(
        f"untolerated taint {{pool-{i} x NoSchedule <nil>}} in flavor flavor-{i:03d}" for i in range(60)
    )
    full = f"{PS} main: {reasons}"
    cut = full[: 1024 - 4] + " ..."
    got = classify_quota_reserved("Pending", cut)
    assert got.truncated
    assert got.verdict is V.NO_MATCHING_FLAVOR
    taints = [f for f in got.facts if f.cause is C.UNTOLERATED_TAINT and f.flavor is not None]
    assert taints[0] == Fact(
        C.UNTOLERATED_TAINT,
        "untolerated taint {pool-0 x NoSchedule <nil>} in flavor flavor-000",
        pod_set="main",
        flavor="flavor-000",
        taint="pool-0=x:NoSchedule",
    )
    assert 10 < len(taints) < 60


def test_condition_message_of_32_kib() -> None:
    """The largest condition message Kueue writes still classifies (no catastrophic backtracking)."""
    pod_sets = "; ".join(f"{PS} ps{i}: {EXCEEDS_A}, {QUOTA_C}, {TAINT_B}" for i in range(400))
    cut = pod_sets[: 32 * 1024 - 4] + " ..."
    got = classify_quota_reserved("Pending", cut)
    assert got.verdict is V.WAITING_FOR_QUOTA
    assert {f.pod_set for f in got.facts} >= {"ps0", "ps100"}


# ------------------------------------------------------------------------------------------------
# Unknown messages: the reason decides

FALLBACK = {
    "WaitingForQuota": V.WAITING_FOR_QUOTA,
    "WaitingForPreemptedWorkloads": V.WAITING_FOR_PREEMPTION,
    "ExceedsMaxQuota": V.EXCEEDS_MAX_QUOTA,
    "NoMatchingFlavor": V.NO_MATCHING_FLAVOR,
    "TopologyPlacementFailed": V.TOPOLOGY_PLACEMENT_FAILED,
    "Misconfigured": V.NOT_YET_EVALUATED,
    "Suspended": V.QUEUE_INACTIVE,
    "PendingEvaluation": V.NOT_YET_EVALUATED,
    "WaitingForPodsReady": V.WAITING_FOR_PODS_READY,
    "AdmissionGated": V.ADMISSION_GATED,
    "Deactivated": V.DEACTIVATED,
    "Pending": V.NOT_YET_EVALUATED,
    "Inadmissible": V.NOT_YET_EVALUATED,
    "Waiting": V.WAITING_FOR_PODS_READY,
    "": V.NOT_YET_EVALUATED,
    "SomethingNew": V.NOT_YET_EVALUATED,
}


@pytest.mark.parametrize(("reason", "verdict"), list(FALLBACK.items()), ids=[r or "empty" for r in FALLBACK])
def test_unknown_message_falls_back_on_the_reason(reason: str, verdict: Verdict) -> None:
    # KEP-10852's illustrative message: it doesn't exist in Kueue's code
    got = classify_quota_reserved(reason, "couldn't find matching flavor for pod set main")
    assert got.verdict is verdict
    assert got.facts == (Fact(C.UNKNOWN, "couldn't find matching flavor for pod set main"),)


def test_on_hold_reason_with_unknown_message() -> None:
    got = classify_quota_reserved("OnHold", "held for a reason of the future")
    assert got.verdict is V.NOT_YET_EVALUATED
    assert [f.cause for f in got.facts] == [C.ON_HOLD]
    assert got.facts[0].detail is not None and "on hold" in got.facts[0].detail


def test_deactivated_reason_wins_over_the_message() -> None:
    got = classify_quota_reserved("Deactivated", f"{PS} main: {QUOTA_C}")
    assert got.verdict is V.DEACTIVATED
    assert got.facts[0].cause is C.INSUFFICIENT_UNUSED_QUOTA


@pytest.mark.parametrize(
    ("reason", "message", "cause", "verdict"),
    [
        (
            "Misconfigured",
            "LocalQueue team-a was not found in namespace x",
            C.LOCAL_QUEUE_MISSING,
            V.LOCAL_QUEUE_MISSING,
        ),
        ("Inadmissible", "the ClusterQueue gpu went missing", C.CLUSTER_QUEUE_MISSING, V.CLUSTER_QUEUE_MISSING),
        ("Suspended", "ClusterQueue gpu became inactive today", C.CLUSTER_QUEUE_INACTIVE, V.QUEUE_INACTIVE),
        (
            "Misconfigured",
            "Namespace is not picked by the queue's selector",
            C.NAMESPACE_NOT_SELECTED,
            V.NAMESPACE_NOT_ALLOWED,
        ),
        ("Misconfigured", "violates a LimitRange", C.LIMIT_RANGE_VIOLATION, V.INVALID_REQUEST),
    ],
    ids=["lq", "cq", "cq-inactive", "namespace", "limitrange"],
)
def test_misconfigured_with_new_wording_says_which(reason: str, message: str, cause: Cause, verdict: Verdict) -> None:
    got = classify_quota_reserved(reason, message)
    assert (got.facts[0].cause, got.verdict) == (cause, verdict)


def test_empty_and_blank() -> None:
    for message in ("", "   ", "\n"):
        got = classify_quota_reserved("Pending", message)
        assert got.verdict is V.NOT_YET_EVALUATED
        assert [f.cause for f in got.facts] == [C.UNKNOWN]


def test_null_from_decoded_yaml() -> None:
    """A condition decoded from YAML can carry null reason or message; the parsers still answer."""
    got = classify_quota_reserved(None, None)
    assert (got.verdict, got.reason, got.message) == (V.NOT_YET_EVALUATED, "", "")
    assert parse_preemption(None) is None
    assert parse_eviction(None, None).reason == ""


def test_quoted_yaml_apostrophes_are_accepted() -> None:
    """Pasted raw YAML keeps the doubled quote of a single-quoted scalar."""
    got = classify_quota_reserved("Pending", "couldn''t assign flavors to pod set main: " + QUOTA_C)
    assert got.verdict is V.WAITING_FOR_QUOTA
    assert got.facts[0].pod_set == "main"


# ------------------------------------------------------------------------------------------------
# v0.20: every message format the project knows of, with its source. Where Kueue's exact text is not in the
# CRDs or FACTS (v0.20 is newer than ../shared/kueue's v0.19 CRDs), the row says where it was read and the
# classifier reads it by structure.

V020_ROWS = [
    Row(  # statefulset_reconciler (upstream test "zero released workload"): QuotaReserved=False, OnHold
        "v020-on-hold",
        "StatefulSet scaled to zero; workload on hold",
        {"OnHold": V.NOT_YET_EVALUATED},
        [dict(cause=C.ON_HOLD)],
    ),
    Row(  # statefulset_reconciler.go:278-292 (v0.20), after a scale-up: either vocabulary
        "v020-hold-released",
        "Workload no longer on hold; waiting for quota reservation",
        {"PendingEvaluation": V.NOT_YET_EVALUATED, "Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.HOLD_RELEASED)],
    ),
    Row(  # #16123, site docs tasks/run DRA "firstAvailable request not admitted": the field at fault
        "v020-dra-unresolved-class",
        "podset main: deviceClassName: Not found",
        {"DRAResourcesUnresolved": V.INVALID_REQUEST, "Inadmissible": V.INVALID_REQUEST},
        [dict(text="podset main: deviceClassName: Not found")],
    ),
    Row(  # same page: the gate KueueDRAIntegrationPrioritizedList disabled
        "v020-dra-unresolved-first-available",
        "FirstAvailable device selection is not supported",
        {"DRAResourcesUnresolved": V.INVALID_REQUEST, "Inadmissible": V.INVALID_REQUEST},
        [dict(text="FirstAvailable device selection is not supported")],
    ),
    Row(  # tas findTopologyAssignment tasExclusionStats.formatReasons (v0.20 adds draNoFit), B1 shape
        "v020-dra-no-fit-never",
        f'{PS} main: topology "default" doesn\'t allow to fit any of 2 pod(s). Total nodes: 4; excluded: '
        'draNoFit: 3, resource "cpu": 1',
        {"TopologyPlacementFailed": V.TOPOLOGY_PLACEMENT_FAILED, "WaitingForQuota": V.WAITING_FOR_QUOTA},
        [dict(cause=C.TOPOLOGY_NO_FIT, topology="default", detail_has="draNoFit: 3 nodes lack the DRA devices")],
    ),
    Row(  # same, B2 shape (site docs: "reason TopologyPlacementFailed and its message includes draNoFit: N")
        "v020-dra-no-fit-some",
        f'{PS} main: topology "default" allows to fit only 1 out of 2 pod(s). Total nodes: 4; excluded: draNoFit: 2',
        {"TopologyPlacementFailed": V.TOPOLOGY_PLACEMENT_FAILED},
        [dict(cause=C.TOPOLOGY_NO_FIT, fit=(1, 2), detail_has="excluded: draNoFit: 2")],
    ),
    Row(  # an exclusion key newer than this bot: read by the "key: N" structure, never "unexpected wording"
        "v020-future-exclusion-key",
        f'{PS} main: topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 2; excluded: '
        "gpuPartitionNoFit: 2",
        {"TopologyPlacementFailed": V.TOPOLOGY_PLACEMENT_FAILED},
        [dict(cause=C.TOPOLOGY_NO_FIT, detail_has="excluded: gpuPartitionNoFit: 2")],
    ),
    Row(  # v0.20 configurable preemption copied into QuotaReserved after the eviction (reconciler.go:610-620)
        "v020-preempted-by-rule",
        "Preempted by rule 'hero' in PreemptionConfig 'cfg' to accommodate workload team-b/hero-job",
        {"Pending": V.NOT_YET_EVALUATED, "PendingEvaluation": V.NOT_YET_EVALUATED},
        [dict(cause=C.PREEMPTED, detail_has="rule 'hero' in PreemptionConfig 'cfg'")],
    ),
    Row(  # FACTS B5, scheduler.go:930 (TASFailedNodeReplacementFailFast): the eviction text copied
        "v020-node-replacement-evicted",
        "Workload was evicted as there was no replacement for unhealthy node(s): x0, x1",
        {"Pending": V.NOT_YET_EVALUATED},
        [dict(cause=C.NODE_REPLACEMENT_FAILED, detail_has="x0, x1")],
    ),
    Row(  # FACTS B5, tas_flavor_snapshot.go:728: the second pass finds no replacement
        "v020-node-replacement-none",
        "cannot find replacement assignment for unhealthy node: x0",
        {"Pending": V.TOPOLOGY_PLACEMENT_FAILED},
        [dict(cause=C.TOPOLOGY_REQUEST_INVALID)],
    ),
]


@pytest.mark.parametrize(("row", "reason", "verdict"), _params(V020_ROWS))
def test_v020_messages(row: Row, reason: str, verdict: Verdict) -> None:
    _run(row, reason, verdict)


@pytest.mark.parametrize(
    ("reason", "message", "unknown"),
    [
        pytest.param("SomethingNew", "anything at all", True, id="unknown-reason"),
        pytest.param("Pending", "The frobnicator disagrees with the workload", True, id="unknown-message-pending"),
        pytest.param("Inadmissible", "The frobnicator disagrees", True, id="unknown-message-inadmissible"),
        pytest.param("", "The frobnicator disagrees", True, id="unknown-message-no-reason"),
        pytest.param("WaitingForQuota", "The frobnicator disagrees", False, id="the-reason-says-it"),
        pytest.param("OnHold", "held for a reason of the future", False, id="on-hold-is-known"),
        pytest.param("Pending", f"{PS} main: {QUOTA_C}", False, id="known-message"),
        pytest.param("Pending", "", False, id="nothing-said"),
        pytest.param("DRAResourcesUnresolved", "something new", False, id="dra-reason-says-it"),
    ],
)
def test_an_unknown_state_is_told_apart(reason: str, message: str, unknown: bool) -> None:
    """Issue 11, "anything unknown is honest": what the engine says verbatim and gives no queue place."""
    assert unknown_state(classify_quota_reserved(reason, message)) is unknown


def test_vocabularies() -> None:
    # FACTS §3.1's twelve, and v0.20's DRAResourcesUnresolved (#16123; "Inadmissible" when the administrator
    # disabled UnadmittedWorkloadsObservability, site docs tasks/run DRA "firstAvailable request not admitted")
    assert len(GRANULAR_REASONS) == 13
    assert {"Pending", "Inadmissible", "Waiting"} == LEGACY_REASONS
    assert not GRANULAR_REASONS & LEGACY_REASONS
    assert len({c.value for c in Cause}) == len(Cause)
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", c.value) for c in Cause)


# ------------------------------------------------------------------------------------------------
# Taints


@pytest.mark.parametrize(
    ("struct", "rendered"),
    [
        ("{key val NoSchedule <nil>}", "key=val:NoSchedule"),
        ("{key  NoSchedule <nil>}", "key:NoSchedule"),
        ("{cloud.google.com/gke-spot true NoSchedule <nil>}", "cloud.google.com/gke-spot=true:NoSchedule"),
        (
            "{node.kubernetes.io/unreachable  NoExecute 2024-05-01 10:00:00 +0000 UTC}",
            "node.kubernetes.io/unreachable:NoExecute",
        ),
        ("{example.com/gpu present PreferNoSchedule <nil>}", "example.com/gpu=present:PreferNoSchedule"),
        (" {k v NoSchedule <nil>} ", "k=v:NoSchedule"),
        ("key=val:NoSchedule", None),
        ("{}", None),
        ("", None),
    ],
    ids=["value", "empty-value", "gke-spot", "time-added", "prefer", "spaces", "not-a-struct", "empty-struct", "empty"],
)
def test_render_taint(struct: str, rendered: str | None) -> None:
    assert render_taint(struct) == rendered


# ------------------------------------------------------------------------------------------------
# Preemption (FACTS §4.6, §4.4) and eviction

UID = "5c023c28-8533-4927-b266-56bca5e310c1"
JUID = "4548c8bd-c399-4027-bb02-6114f3a8cdeb"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        pytest.param(
            "Preempted to accommodate a higher priority Workload", Preemption(None, None, None, None, None), id="v0.6"
        ),
        pytest.param(
            f"Preempted to accommodate a workload (UID: {UID}) due to reclamation within the cohort",
            Preemption(UID, None, "reclamation within the cohort", None, None),
            id="v0.8-v0.10",
        ),
        pytest.param(  # docs preemption.md
            f"Preempted to accommodate a workload (UID: {UID}, JobUID: {JUID}) "
            "due to prioritization in the ClusterQueue",
            Preemption(UID, JUID, "prioritization in the ClusterQueue", None, None),
            id="v0.11-v0.14",
        ),
        pytest.param(  # FACTS §4.6 example
            "Preempted to accommodate a workload (UID: wl-b1, JobUID: job-b1) due to reclamation within the cohort; "
            "preemptor path: /tas-cohort-main/tas-cq-b; preemptee path: /tas-cohort-main/tas-cq-a",
            Preemption(
                "wl-b1",
                "job-b1",
                "reclamation within the cohort",
                "/tas-cohort-main/tas-cq-b",
                "/tas-cohort-main/tas-cq-a",
            ),
            id="v0.15+",
        ),
        pytest.param(
            "Preempted to accommodate a workload (UID: wl, JobUID: job) due to Fair Sharing within the cohort; "
            "preemptor path: /eng/eng-beta; preemptee path: /eng/eng-alpha; "
            "preemptor effective priority: 100 (base: 100, boost: 0); "
            "preemptee effective priority: 10 (base: 10, boost: 0)",
            Preemption("wl", "job", "Fair Sharing within the cohort", "/eng/eng-beta", "/eng/eng-alpha"),
            id="victim-event",
        ),
        pytest.param(
            "Preempted to accommodate a workload (UID: wl, JobUID: job) due to reclamation within the cohort while "
            "borrowing; preemptor path: /a/b; preemptee path: /a/c",
            Preemption("wl", "job", "reclamation within the cohort while borrowing", "/a/b", "/a/c"),
            id="while-borrowing",
        ),
        pytest.param(
            "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) due to UNKNOWN; preemptor path: "
            "UNKNOWN; preemptee path: UNKNOWN",
            Preemption(None, None, None, None, None),
            id="unknown-values",
        ),
        pytest.param(
            f"Previously: Preempted to accommodate a workload (UID: {UID}, JobUID: {JUID}) "
            "due to prioritization in the ClusterQueue",
            Preemption(UID, JUID, "prioritization in the ClusterQueue", None, None),
            id="previously",
        ),
        pytest.param(
            "Evicted to accommodate a workload (UID: abc) due to migration to more favorable resource flavor",
            Preemption("abc", None, "migration to more favorable resource flavor", None, None),
            id="flavor-migration",
        ),
        pytest.param(
            "Replaced to accommodate a workload (UID: , JobUID: ) due to workload slice aggregation",
            Preemption(None, None, "workload slice aggregation", None, None),
            id="slice-replaced",
        ),
        pytest.param(
            "Preempted to accommodate a workload (UID: wl, JobUID: job) due to reclamation within the cohort; "
            "preemptor path: /a/b; preempt ...",
            Preemption("wl", "job", "reclamation within the cohort", "/a/b", None),
            id="cut-in-preemptee-label",
        ),
        pytest.param(
            "Preempted to accommodate a workload (UID: wl, JobUID: job) due to reclamation wit ...",
            Preemption("wl", "job", None, None, None),
            id="cut-in-why",
        ),
        pytest.param(
            "Preempted to accommodate a workload (UID: 5c0 ...",
            Preemption(None, None, None, None, None),
            id="cut-in-uid",
        ),
        pytest.param(  # v0.20 configurable preemption, Evicted (site docs concepts/preemption_config)
            "Preempted by rule 'evict-smaller-jobs' in PreemptionConfig 'defrag' to accommodate workload "
            "default/training-job-xyz",
            Preemption(
                None,
                None,
                "rule 'evict-smaller-jobs' in PreemptionConfig 'defrag'",
                None,
                None,
                rule="evict-smaller-jobs",
                config="defrag",
                preemptor="default/training-job-xyz",
            ),
            id="v020-rule-evicted",
        ),
        pytest.param(  # ... and the Preempted condition (reason ConfigurablePreemption / PreemptionConfigRule)
            "Preempted by rule 'hero-preempt-lower-priority' in PreemptionConfig 'hero-config'",
            Preemption(
                None,
                None,
                "rule 'hero-preempt-lower-priority' in PreemptionConfig 'hero-config'",
                None,
                None,
                rule="hero-preempt-lower-priority",
                config="hero-config",
            ),
            id="v020-rule-preempted",
        ),
        pytest.param("The workload is deactivated", None, id="not-a-preemption"),
        pytest.param("", None, id="empty"),
    ],
)
def test_parse_preemption(message: str, expected: Preemption | None) -> None:
    assert parse_preemption(message) == expected


@pytest.mark.parametrize(
    ("reason", "message", "expected"),
    [
        pytest.param(
            "Preempted",
            "Preempted to accommodate a workload (UID: wl, JobUID: job) due to prioritization in the ClusterQueue; "
            "preemptor path: /c/q; preemptee path: /c/q",
            dict(
                reason="Preempted",
                underlying=None,
                pods_ready_timeout=False,
                admission_check=False,
                checks=(),
                preemption=Preemption("wl", "job", "prioritization in the ClusterQueue", "/c/q", "/c/q"),
            ),
            id="preempted",
        ),
        pytest.param(
            "PodsReadyTimeout",
            "Exceeded the PodsReady timeout ml-nlp/job-t5-pretrain-shard3-fdbaf",
            dict(reason="PodsReadyTimeout", pods_ready_timeout=True, preemption=None, admission_check=False),
            id="pods-ready-timeout",
        ),
        pytest.param(
            "AdmissionCheck",
            'Evicted due to AdmissionCheck in Retry state: "dws-prov" (Retrying after failure: no capacity)',
            dict(
                reason="AdmissionCheck",
                admission_check=True,
                checks=(("dws-prov", "Retry", "Retrying after failure: no capacity"),),
            ),
            id="admission-check-retry",
        ),
        pytest.param(
            "AdmissionCheck",
            'Evicted due to AdmissionChecks in Retry state: "a" (first; with a semicolon); "b"; "c" (third)',
            dict(checks=(("a", "Retry", "first; with a semicolon"), ("b", "Retry", ""), ("c", "Retry", "third"))),
            id="admission-checks-retry",
        ),
        pytest.param(
            "DeactivatedDueToRequeuingLimitExceeded",
            "The workload is deactivated due to exceeding the maximum number of re-queuing retries",
            dict(reason="Deactivated", underlying="RequeuingLimitExceeded", admission_check=False, preemption=None),
            id="requeuing-limit",
        ),
        pytest.param(
            "DeactivatedDueToAdmissionCheck",
            'The workload is deactivated due to AdmissionCheck in Rejected state: "prov" (Provisioning failed)',
            dict(
                reason="Deactivated",
                underlying="AdmissionCheck",
                admission_check=True,
                checks=(("prov", "Rejected", "Provisioning failed"),),
            ),
            id="admission-check-rejected",
        ),
        pytest.param(
            "DeactivatedDueToMaximumExecutionTimeExceeded",
            "The workload is deactivated due to exceeding the maximum execution time",
            dict(reason="Deactivated", underlying="MaximumExecutionTimeExceeded"),
            id="max-execution-time",
        ),
        pytest.param(
            "EvictedDueToDeactivatedDueToEvictedOnManagerCluster",
            "The workload is deactivated due to Evicted on manager: Preempted",
            dict(reason="Deactivated", underlying="EvictedOnManagerCluster"),
            id="event-reason",
        ),
        pytest.param(
            "Deactivated",
            "The workload is deactivated",
            dict(reason="Deactivated", underlying=None),
            id="user-deactivated",
        ),
        pytest.param(
            "InactiveWorkload",
            "The workload is deactivated",
            dict(reason="Deactivated", underlying=None),
            id="v0.6-v0.10-deactivated",
        ),
        pytest.param(
            "ClusterQueueStopped",
            "The ClusterQueue is stopped",
            dict(reason="ClusterQueueStopped", preemption=None),
            id="cq-stopped",
        ),
        pytest.param(
            "LocalQueueStopped", "The LocalQueue is stopped", dict(reason="LocalQueueStopped"), id="lq-stopped"
        ),
        pytest.param(
            "NodeFailures",
            "Workload was evicted as there was no replacement for unhealthy node(s): x0",
            dict(reason="NodeFailures"),
            id="node-failures",
        ),
        pytest.param(
            "FlavorMigration",
            "Evicted to accommodate a workload (UID: abc) due to migration to more favorable resource flavor",
            dict(
                reason="FlavorMigration",
                preemption=Preemption("abc", None, "migration to more favorable resource flavor", None, None),
            ),
            id="flavor-migration",
        ),
        pytest.param(
            "Preempted",
            "Preempted to accommodate a higher priority Workload",
            dict(preemption=Preemption(None, None, None, None, None)),
            id="v0.6-preempted",
        ),
        pytest.param("", "", dict(reason="", underlying=None, preemption=None, checks=()), id="empty"),
    ],
)
def test_parse_eviction(reason: str, message: str, expected: dict[str, Any]) -> None:
    got = parse_eviction(reason, message)
    assert got.message == message
    for name, value in expected.items():
        assert getattr(got, name) == value, (name, got)


# ------------------------------------------------------------------------------------------------
# Properties: the classifier is total

REAL_MESSAGES = [row.message for row in FLAVOR_ROWS + TOPOLOGY_ROWS + STATEMENT_ROWS + LEGACY_ROWS + SEVERITY_ROWS]
REASONS = sorted(GRANULAR_REASONS | LEGACY_REASONS | {"", "QuotaReserved", "SecondPassFailed"})
QUANTITY = re.compile(r"^[0-9.]+[a-zA-Z]*$")
SETTINGS = settings(max_examples=150, deadline=None)


def _assert_sane(got: Classification, message: str) -> None:
    assert isinstance(got.verdict, Verdict)
    assert got.facts, "at least one fact, even an unknown one"
    for fact in got.facts:
        assert isinstance(fact.cause, Cause)
        assert fact.text in message
        for quantity in (fact.needed, fact.requested, fact.previously, fact.maximum):
            assert quantity is None or QUANTITY.match(quantity), fact
        assert fact.fit is None or all(isinstance(n, int) and n >= 0 for n in fact.fit)


@SETTINGS
@given(reason=st.one_of(st.sampled_from(REASONS), st.text(max_size=40)), message=st.text())
def test_classify_never_raises_on_any_text(reason: str, message: str) -> None:
    _assert_sane(classify_quota_reserved(reason, message), message)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    message = draw(st.sampled_from(REAL_MESSAGES))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(message)))
        how = draw(st.sampled_from(["cut", "cut-kueue", "insert", "delete", "swap-separators", "double", "upper"]))
        if how == "cut":
            message = message[:at]
        elif how == "cut-kueue":
            message = message[:at] + " ..."
        elif how == "insert":
            message = message[:at] + draw(st.text(max_size=12)) + message[at:]
        elif how == "delete":
            message = message[:at] + message[at + draw(st.integers(1, 8)) :]
        elif how == "swap-separators":
            message = message.replace(", ", "; ") if at % 2 else message.replace("; ", ", ")
        elif how == "double":
            message = message + draw(st.sampled_from([", ", "; ", " "])) + message
        else:
            message = message.upper()
    return message


@SETTINGS
@given(reason=st.sampled_from(REASONS), message=mutated())
def test_classify_never_raises_on_mutated_real_messages(reason: str, message: str) -> None:
    _assert_sane(classify_quota_reserved(reason, message), message)


@SETTINGS
@given(message=mutated(), reason=st.text(max_size=60))
def test_preemption_and_eviction_parsers_never_raise(message: str, reason: str) -> None:
    preemption = parse_preemption(message)
    assert preemption is None or isinstance(preemption, Preemption)
    eviction = parse_eviction(reason, message)
    assert eviction.message == message
    assert all(len(check) == 3 for check in eviction.checks)
