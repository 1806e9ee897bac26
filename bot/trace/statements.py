"""Whole messages: every Kueue text that is one statement (FACTS §4.1 C, D, E ids, eviction copies).

Also the "Flavors considered" list of a QuotaReserved event, and hints read from wordings this bot does
not know (`hints`), and what a granular reason means when the message says nothing known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.copy.text import Text
from bot.trace.codes import Verdict
from bot.trace.eviction import parse_preemption
from bot.trace.facts import Cause, Fact
from bot.trace.reasons import KINDS, REASON_SEVERITY, build_fact


@dataclass(frozen=True)
class Hit:
    facts: tuple[Fact, ...]
    verdict: Verdict


def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags | re.DOTALL)


_WHOLE: tuple[tuple[re.Pattern[str], Cause, Verdict, str | None], ...] = (
    # pattern, cause, verdict, detail group name (or None)
    (
        _rx(r"Workload no longer fits after processing another workload"),
        Cause.NO_LONGER_FITS,
        Verdict.WAITING_FOR_QUOTA,
        None,
    ),
    (
        _rx(
            r"Workload has overlapping preemption targets with another workload, "
            r"(?P<d>but will fit after these preemptions complete)"
        ),
        Cause.OVERLAPPING_PREEMPTION,
        Verdict.WAITING_FOR_PREEMPTION,
        "d",
    ),
    (
        _rx(r"Workload has overlapping preemption targets with another workload"),
        Cause.OVERLAPPING_PREEMPTION,
        Verdict.WAITING_FOR_QUOTA,
        None,
    ),
    (_rx(r"Workload requires preemption, but it's gated"), Cause.PREEMPTION_GATED, Verdict.ADMISSION_GATED, None),
    # v0.20: a StatefulSet scaled back up from zero (jobs/statefulset/statefulset_reconciler.go:278-292)
    (
        _rx(r"Workload no longer on hold; waiting for quota reservation"),
        Cause.HOLD_RELEASED,
        Verdict.NOT_YET_EVALUATED,
        None,
    ),
    (
        _rx(r"waiting for all admitted workloads to be in PodsReady condition", re.IGNORECASE),
        Cause.PODS_READY_BLOCK,
        Verdict.WAITING_FOR_PODS_READY,
        None,
    ),
    (_rx(r"Failed to admit workload: (?P<d>.*)"), Cause.ADMIT_FAILED, Verdict.NOT_YET_EVALUATED, "d"),
    (
        _rx(r"Could not admit Workload and assign flavors in apiserver"),
        Cause.ADMIT_FAILED,
        Verdict.NOT_YET_EVALUATED,
        None,
    ),
    (
        _rx(r"(?P<d>A more favorable variant is already admitted|Target flavor is below LastAcceptableFlavorName)"),
        Cause.CONCURRENT_ADMISSION,
        Verdict.NOT_YET_EVALUATED,
        "d",
    ),
    (
        _rx(r"The workload has failed admission checks"),
        Cause.FAILED_ADMISSION_CHECKS,
        Verdict.ADMISSION_CHECKS_PENDING,
        None,
    ),
    (_rx(r"ClusterQueue (?P<q>\S+) is inactive"), Cause.CLUSTER_QUEUE_INACTIVE, Verdict.QUEUE_INACTIVE, None),
    (
        _rx(r"ClusterQueue (?P<q>\S+) (?P<d>is stopped)"),
        Cause.CLUSTER_QUEUE_INACTIVE,
        Verdict.QUEUE_STOPPED,
        "d",
    ),
    (
        _rx(r"ClusterQueue (?P<q>\S+) (?:not found|doesn't exist|(?P<d>is terminating or missing))"),
        Cause.CLUSTER_QUEUE_MISSING,
        Verdict.CLUSTER_QUEUE_MISSING,
        "d",
    ),
    (
        _rx(r"LocalQueue (?P<q>\S+) (?:doesn't exist|(?P<d>is terminating or missing))"),
        Cause.LOCAL_QUEUE_MISSING,
        Verdict.LOCAL_QUEUE_MISSING,
        "d",
    ),
    (_rx(r"LocalQueue (?P<q>\S+) is inactive"), Cause.LOCAL_QUEUE_INACTIVE, Verdict.QUEUE_INACTIVE, None),
    (_rx(r"LocalQueue (?P<q>\S+) (?P<d>is stopped)"), Cause.LOCAL_QUEUE_INACTIVE, Verdict.QUEUE_STOPPED, "d"),
    (
        _rx(r"workload namespace doesn't match ClusterQueue selector", re.IGNORECASE),
        Cause.NAMESPACE_NOT_SELECTED,
        Verdict.NAMESPACE_NOT_ALLOWED,
        None,
    ),
    (
        _rx(r"invalid namespace selector: (?P<d>.*)"),
        Cause.NAMESPACE_NOT_SELECTED,
        Verdict.NAMESPACE_NOT_ALLOWED,
        "d",
    ),
    (
        _rx(r"workload namespace (?P<d>\"[^\"]*\") does not exist"),
        Cause.NAMESPACE_MISSING,
        Verdict.NAMESPACE_NOT_ALLOWED,
        "d",
    ),
    (
        _rx(r"resources? validation failed: (?P<d>.*)"),
        Cause.REQUESTS_EXCEED_LIMITS,
        Verdict.INVALID_REQUEST,
        "d",
    ),
    (
        _rx(r"(?:resources )?didn't satisfy LimitRange constraints: (?P<d>.*)"),
        Cause.LIMIT_RANGE_VIOLATION,
        Verdict.INVALID_REQUEST,
        "d",
    ),
    (
        _rx(r"(?:Workload admission|Admission) is gated by: (?P<d>.*)"),
        Cause.ADMISSION_GATED,
        Verdict.ADMISSION_GATED,
        "d",
    ),
    (
        _rx(
            r"AdmissionGatedBy cleared, waiting for quota reservation"
            r"|Admission gate cleared, workload is now admissible"
        ),
        Cause.ADMISSION_GATE_CLEARED,
        Verdict.NOT_YET_EVALUATED,
        None,
    ),
    (
        _rx(r"Workload is pending evaluation in the scheduling queue"),
        Cause.PENDING_EVALUATION,
        Verdict.NOT_YET_EVALUATED,
        None,
    ),
    (
        _rx(r"The workload is deactivated(?: due to (?P<d>.*))?"),
        Cause.DEACTIVATED,
        Verdict.DEACTIVATED,
        "d",
    ),
    (
        _rx(
            r"(?P<d>KueueDRAIntegration feature does not support use of resource claims"
            r"|Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled)"
        ),
        Cause.DRA_UNSUPPORTED,
        Verdict.INVALID_REQUEST,
        "d",
    ),
    (
        _rx(r"(?P<d>Job is on hold|StatefulSet scaled to zero; workload on hold)"),
        Cause.ON_HOLD,
        Verdict.NOT_YET_EVALUATED,
        "d",
    ),
    # Eviction messages Kueue copies into QuotaReserved right after an eviction.
    (
        _rx(r"Exceeded the PodsReady timeout (?P<d>\S*)"),
        Cause.PODS_READY_TIMEOUT,
        Verdict.NOT_YET_EVALUATED,
        "d",
    ),
    (
        _rx(r"Evicted due to (?P<d>AdmissionChecks? in \w+ state: .*)"),
        Cause.ADMISSION_CHECK_EVICTION,
        Verdict.NOT_YET_EVALUATED,
        "d",
    ),
    (_rx(r"The ClusterQueue (?P<d>is stopped)"), Cause.CLUSTER_QUEUE_INACTIVE, Verdict.QUEUE_STOPPED, "d"),
    (_rx(r"The LocalQueue (?P<d>is stopped)"), Cause.LOCAL_QUEUE_INACTIVE, Verdict.QUEUE_STOPPED, "d"),
    (
        _rx(r"Workload was evicted as there was no replacement for unhealthy node\(s\): (?P<d>.*)"),
        Cause.NODE_REPLACEMENT_FAILED,
        Verdict.NOT_YET_EVALUATED,
        "d",
    ),
    (
        _rx(r"There are pending delayed topology requests"),
        Cause.DELAYED_TOPOLOGY_REQUEST,
        Verdict.ADMISSION_CHECKS_PENDING,
        None,
    ),
)
# ≤v0.10: "podSets[main].containers[0][cpu] requests exceed it's limits" (also inside other text). Linear: the
# last bracket pair before the words (`\S+\[[^\]]*\]` took minutes on 8 kB of "a[a[a[..."; tests/unit/test_bad_input).
_LEGACY_LIMITS = re.compile(
    r"(?<=\S)\[[^\[\]]*\] requests exceed it's limits|the requests of \S+ (?:exceeds|are less than)"
)
_ASSIGN_ERROR = _rx(r"failed to assign flavors to pod set (?P<ps>[^\s:]+): (?P<d>.*)")
_BYPASSED = _rx(r"Bypassed scheduling evaluation because an equivalent workload recently failed")
_RESERVED = _rx(r"Quota reserved in ClusterQueue (?P<q>[^\s,;]+)(?P<rest>.*)")
_CONSIDERED_PODSET = re.compile(r"(?:(?<=Flavors considered: )|(?<= \| ))(?P<ps>[^\s:|]+): ")
_CONSIDERED_LEADS = re.compile("(?<=[;(])(?:" + "|".join(kind.lead for kind in KINDS) + ")")
DRA = re.compile(
    r"\bDRA\b|[Dd]eviceClass|ResourceClaim|ResourceSlice|FirstAvailable|AllocationMode|matching devices"
    r"|consumesCounters|CEL evaluation error|resourceClaims|capacity dimension"
)
# Misconfigured / Inadmissible / Suspended with a wording we don't know: the text may still say which.
_HINTS: tuple[tuple[re.Pattern[str], Cause, Verdict], ...] = (
    (
        re.compile(r"\bLocalQueue\b.*\b(?:exist|missing|not found)", re.DOTALL),
        Cause.LOCAL_QUEUE_MISSING,
        Verdict.LOCAL_QUEUE_MISSING,
    ),
    (
        re.compile(r"\bClusterQueue\b.*\b(?:exist|missing|not found)", re.DOTALL),
        Cause.CLUSTER_QUEUE_MISSING,
        Verdict.CLUSTER_QUEUE_MISSING,
    ),
    (
        re.compile(r"\bLocalQueue\b.*\b(?:inactive|stopped)", re.DOTALL),
        Cause.LOCAL_QUEUE_INACTIVE,
        Verdict.QUEUE_INACTIVE,
    ),
    (
        re.compile(r"\bClusterQueue\b.*\b(?:inactive|stopped)", re.DOTALL),
        Cause.CLUSTER_QUEUE_INACTIVE,
        Verdict.QUEUE_INACTIVE,
    ),
    (
        re.compile(r"\bnamespace\b.*\bselector\b", re.DOTALL | re.IGNORECASE),
        Cause.NAMESPACE_NOT_SELECTED,
        Verdict.NAMESPACE_NOT_ALLOWED,
    ),
    (re.compile(r"LimitRange"), Cause.LIMIT_RANGE_VIOLATION, Verdict.INVALID_REQUEST),
    (
        re.compile(r"\brequests?\b.*\bexceed.*\blimits?\b", re.DOTALL),
        Cause.REQUESTS_EXCEED_LIMITS,
        Verdict.INVALID_REQUEST,
    ),
)
# What a granular reason means when the message says nothing we know.
REASON_VERDICT = {
    "WaitingForQuota": Verdict.WAITING_FOR_QUOTA,
    "WaitingForPreemptedWorkloads": Verdict.WAITING_FOR_PREEMPTION,
    "ExceedsMaxQuota": Verdict.EXCEEDS_MAX_QUOTA,
    "NoMatchingFlavor": Verdict.NO_MATCHING_FLAVOR,
    "TopologyPlacementFailed": Verdict.TOPOLOGY_PLACEMENT_FAILED,
    "Suspended": Verdict.QUEUE_INACTIVE,
    "AdmissionGated": Verdict.ADMISSION_GATED,
    "PendingEvaluation": Verdict.NOT_YET_EVALUATED,
    "WaitingForPodsReady": Verdict.WAITING_FOR_PODS_READY,
    "Waiting": Verdict.WAITING_FOR_PODS_READY,
    "Deactivated": Verdict.DEACTIVATED,
    "DRAResourcesUnresolved": Verdict.INVALID_REQUEST,
}


def whole(body: str, reason: str) -> Hit | None:
    """A message that is one statement (everything but flavor assignment)."""
    for pattern, cause, verdict, group in _WHOLE:
        m = pattern.match(body)
        if m is None:
            continue
        g = m.groupdict()
        detail = g.get(group) if group else None
        return Hit((Fact(cause=cause, text=body, queue=g.get("q"), about=(detail,) if detail else ()),), verdict)
    if _LEGACY_LIMITS.search(body):
        return Hit((Fact(Cause.REQUESTS_EXCEED_LIMITS, body, about=(body,)),), Verdict.INVALID_REQUEST)
    m = _ASSIGN_ERROR.match(body)
    if m is not None:
        error = m["d"]
        fact = Fact(Cause.FLAVOR_ASSIGNMENT_ERROR, body, pod_set=m["ps"], about=(error,) if error else ())
        if "not supported with ElasticJobsViaWorkloadSlices" in error:
            return Hit((fact,), Verdict.INVALID_REQUEST)
        by_reason = REASON_VERDICT.get(reason) if reason in REASON_SEVERITY else None
        return Hit((fact,), by_reason or Verdict.NO_MATCHING_FLAVOR)
    if _BYPASSED.match(body):
        fact = Fact(Cause.EVALUATION_BYPASSED, body, about=(reason,) if reason else ())
        by_reason = REASON_VERDICT.get(reason) if reason in REASON_SEVERITY else None
        return Hit((fact,), by_reason or Verdict.NOT_YET_EVALUATED)
    preemption = parse_preemption(body)
    if preemption is not None:
        migration = (preemption.why or "").startswith("migration to")
        cause = Cause.FLAVOR_MIGRATION if migration else Cause.PREEMPTED
        return Hit((Fact(cause, body, about=(preemption.why,) if preemption.why else ()),), Verdict.NOT_YET_EVALUATED)
    m = _RESERVED.match(body)
    if m is not None:
        facts = [Fact(Cause.QUOTA_RESERVED, body, queue=m["q"], about=(Text("note.quota-reserved"),))]
        facts.extend(considered(m["rest"]))
        return Hit(tuple(facts), Verdict.NOT_YET_EVALUATED)
    return None


def considered(text: str) -> list[Fact]:
    """The "Flavors considered" list of a QuotaReserved event: the reasons of each flavor tried."""
    facts: list[Fact] = []
    headers = list(_CONSIDERED_PODSET.finditer(text))
    for i, header in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        part = text[header.end() : end]
        starts = [m.start() for m in _CONSIDERED_LEADS.finditer(part)]
        for j, start in enumerate(starts):
            stop = starts[j + 1] - 1 if j + 1 < len(starts) else len(part)
            reason = part[start:stop].rstrip(" |,")
            for kind in KINDS:
                m = kind.bare.match(reason) or kind.partial.match(reason)
                if m is not None:
                    facts.append(build_fact(kind, m, reason[: m.end()], header["ps"]))
                    break
    return facts


def hints(body: str) -> Hit | None:
    for pattern, cause, verdict in _HINTS:
        if pattern.search(body):
            return Hit((Fact(cause, body, about=(Text("note.inferred-from-wording"),)),), verdict)
    return None
