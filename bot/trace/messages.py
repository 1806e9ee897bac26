"""Kueue's recorded text -> structured facts.

Kueue explains a pending Workload in prose: the reason and message of its ``QuotaReserved=False``
condition (the same text goes on a Warning event of the Workload), the ``Evicted`` and ``Preempted``
conditions. This module reads every message format of Kueue v0.4 to main (../shared/kueue/FACTS.md §4)
into frozen values, for both reason vocabularies: the granular reasons of newer Kueue
(``WaitingForQuota``, ``NoMatchingFlavor``, ...) and the legacy ``Pending`` / ``Inadmissible`` / ``Waiting``.

The message is the authority; the reason refines it (a topology no-fit is never-fit with
``TopologyPlacementFailed`` and a wait for capacity with ``WaitingForQuota``). Messages are scanned
with regular expressions, never split: a pod set's reasons are joined by ``", "`` but some reasons hold
commas themselves (the node exclusion list of Topology-Aware Scheduling), pod sets are joined by
``"; "`` which a topology reason also contains, and Kueue cuts long messages (``" ..."`` at the end).

Pure: standard library only, no I/O. Every public function is total: any text gives an answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum

from bot.trace.codes import Verdict

__all__ = [
    "GRANULAR_REASONS",
    "LEGACY_REASONS",
    "Cause",
    "Classification",
    "Eviction",
    "Fact",
    "Preemption",
    "classify_quota_reserved",
    "parse_eviction",
    "parse_preemption",
    "render_taint",
]

# QuotaReserved=False reasons written with feature gate UnadmittedWorkloadsObservability (default on from
# Kueue v0.20). AdmissionGated is written in both modes; it is listed here as Kueue's KEP-10852 does.
GRANULAR_REASONS = frozenset(
    {
        "WaitingForQuota",
        "ExceedsMaxQuota",
        "NoMatchingFlavor",
        "TopologyPlacementFailed",
        "WaitingForPreemptedWorkloads",
        "Misconfigured",
        "Suspended",
        "PendingEvaluation",
        "WaitingForPodsReady",
        "AdmissionGated",
        "Deactivated",
        "OnHold",
    }
)
# The reasons of Kueue up to v0.19.x with default feature gates.
LEGACY_REASONS = frozenset({"Pending", "Inadmissible", "Waiting"})


class Cause(StrEnum):
    """One kind of Kueue message (FACTS §4.1 ids in the comments). Values are stable codes."""

    INSUFFICIENT_UNUSED_QUOTA = "insufficient-unused-quota"  # A1, ≤v0.9 cohort and borrowing-limit forms
    EXCEEDS_MAX_CAPACITY = "exceeds-max-capacity"  # A2, v0.9.4-v0.14 and ≤v0.9.3 forms
    RESOURCE_NOT_COVERED = "resource-not-covered"  # A3, A12
    UNTOLERATED_TAINT = "untolerated-taint"  # A4
    NODE_AFFINITY_MISMATCH = "node-affinity-mismatch"  # A5
    FLAVOR_NOT_FOUND = "flavor-not-found"  # A6
    TOPOLOGY_FLAVOR_MISMATCH = "topology-flavor-mismatch"  # A7
    FLAVOR_SKIPPED = "flavor-skipped"  # A8, A9, A10
    FLAVOR_ASSIGNMENT_ERROR = "flavor-assignment-error"  # A11
    TOPOLOGY_NO_FIT = "topology-no-fit"  # B1-B3
    TOPOLOGY_REQUEST_INVALID = "topology-request-invalid"  # B4, B5
    DELAYED_TOPOLOGY_REQUEST = "delayed-topology-request"  # B7 (an Admitted=False message)
    NO_LONGER_FITS = "no-longer-fits"  # C1
    OVERLAPPING_PREEMPTION = "overlapping-preemption"  # C2, C3
    PREEMPTION_GATED = "preemption-gated"  # C7
    PODS_READY_BLOCK = "pods-ready-block"  # C8
    ADMIT_FAILED = "admit-failed"  # C9
    CONCURRENT_ADMISSION = "concurrent-admission"  # C10
    FAILED_ADMISSION_CHECKS = "failed-admission-checks"  # D1
    CLUSTER_QUEUE_INACTIVE = (
        "cluster-queue-inactive"  # D2, E4, E12 "is stopped", eviction "The ClusterQueue is stopped"
    )
    CLUSTER_QUEUE_MISSING = "cluster-queue-missing"  # D3, E3, E12 "terminating or missing"
    NAMESPACE_NOT_SELECTED = "namespace-not-selected"  # D4 (both cases), E5
    NAMESPACE_MISSING = "namespace-missing"  # D5
    REQUESTS_EXCEED_LIMITS = "requests-exceed-limits"  # D6 and ≤v0.10 forms
    LIMIT_RANGE_VIOLATION = "limit-range-violation"  # D7 and ≤v0.10 forms
    LOCAL_QUEUE_MISSING = "local-queue-missing"  # E1, E12 "terminating or missing"
    LOCAL_QUEUE_INACTIVE = "local-queue-inactive"  # E2, E12 "is stopped", eviction "The LocalQueue is stopped"
    ADMISSION_GATED = "admission-gated"  # E7
    ADMISSION_GATE_CLEARED = "admission-gate-cleared"  # E8
    PENDING_EVALUATION = "pending-evaluation"  # E9
    EVALUATION_BYPASSED = "evaluation-bypassed"  # E10
    DEACTIVATED = "deactivated"  # E11, eviction "The workload is deactivated due to ..."
    DRA_UNSUPPORTED = "dra-unsupported"  # E13
    ON_HOLD = "on-hold"  # reason OnHold ("Job is on hold", StatefulSet scaled to zero)
    # Eviction text that Kueue copies into QuotaReserved right after an eviction (FACTS §3.1, §4.6, F, G).
    PREEMPTED = "preempted"
    PODS_READY_TIMEOUT = "pods-ready-timeout"
    ADMISSION_CHECK_EVICTION = "admission-check-eviction"
    NODE_REPLACEMENT_FAILED = "node-replacement-failed"  # B5 eviction
    FLAVOR_MIGRATION = "flavor-migration"  # C10 eviction
    QUOTA_RESERVED = "quota-reserved"  # the success message (a QuotaReserved event), not a blocker
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Fact:
    """One thing Kueue said, taken from one segment of a message."""

    cause: Cause
    text: str  # the segment of the message this fact came from
    pod_set: str | None = None
    resource: str | None = None
    flavor: str | None = None
    needed: str | None = None  # "9", "1953125Ki": the quantity as printed (A1 "more needed")
    requested: str | None = None  # A2 current podset request, or the legacy "request > maximum capacity" left side
    previously: str | None = None  # A2 previously considered podsets requests
    maximum: str | None = None  # A2 maximum capacity
    taint: str | None = None  # "key=value:Effect"
    queue: str | None = None  # LocalQueue / ClusterQueue name
    topology: str | None = None  # B1-B3
    fit: tuple[int, int] | None = None  # B1/B2: fit (n, out of m); B1 is (0, m)
    detail: str | None = None  # anything else worth showing


@dataclass(frozen=True)
class Classification:
    """What one QuotaReserved=False record (reason + message) says."""

    verdict: Verdict  # what this record means on its own; the engine refines with the rest of the cluster
    facts: tuple[Fact, ...]
    reason: str
    message: str
    preemptions_pending: int | None = None  # ". Pending the preemption of N workload(s)"
    preemptions_failed: int | None = None  # ". Preempting N workload(s) failed, will retry."
    granular: bool = False  # the reason came from the granular vocabulary
    migrations_pending: int | None = None  # ". Pending the migration of N workload(s)"
    truncated: bool = False  # Kueue cut the message (it ended with " ...")


@dataclass(frozen=True)
class Preemption:
    """Who preempted a workload and why (FACTS §4.6; every version since v0.6)."""

    preemptor_uid: str | None
    preemptor_job_uid: str | None
    why: str | None  # "prioritization in the ClusterQueue", "reclamation within the cohort", ...
    preemptor_path: str | None  # "/cohort/cq" (v0.15+)
    preemptee_path: str | None


@dataclass(frozen=True)
class Eviction:
    """An Evicted condition (or EvictedDueTo... event) read into parts."""

    reason: str  # "Preempted", "PodsReadyTimeout", "Deactivated", ... (legacy "InactiveWorkload" -> "Deactivated")
    underlying: str | None  # "DeactivatedDueToRequeuingLimitExceeded" -> "RequeuingLimitExceeded"
    message: str
    preemption: Preemption | None
    pods_ready_timeout: bool
    admission_check: bool
    checks: tuple[tuple[str, str, str], ...]  # (check name, state, message)


# ------------------------------------------------------------------------------------------------
# Small helpers

_QUANTITY = re.compile(r"[0-9.]+[a-zA-Z]*")
_TAINT = re.compile(r"\{(?P<key>[^\s{}]+) (?P<value>[^\s{}]*) (?P<effect>[^\s{}]*)(?: [^{}]*)?\}")
_TRUNCATED = re.compile(r"\s*(?:\.\.\.|…)\Z")
_SUFFIX = re.compile(
    r"\. (?:Pending the preemption of (?P<pending>[0-9]{1,9}) workload\(s\)"
    r"|Preempting (?P<failed>[0-9]{1,9}) workload\(s\) failed, will retry\."
    r"|Pending the migration of (?P<migration>[0-9]{1,9}) workload\(s\))\s*\Z"
)


def _quantity(text: str | None) -> str | None:
    """A Kubernetes quantity as Kueue printed it, or None when the text is not one."""
    if text is None or len(text) > 64 or not _QUANTITY.fullmatch(text):
        return None
    return text


def _int(text: str | None) -> int | None:
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 9:
        return None
    return int(text)


def render_taint(text: str) -> str | None:
    """A taint printed as a Go struct, ``{key value NoSchedule <nil>}``, as ``key=value:NoSchedule``.

    An empty value (``{key  NoSchedule <nil>}``) gives ``key:NoSchedule``. None when it is not a taint.
    """
    m = _TAINT.fullmatch((text or "").strip())
    if m is None:
        return None
    key, value, effect = m["key"], m["value"], m["effect"]
    head = f"{key}={value}" if value else key
    return f"{head}:{effect}" if effect else head


def _clean_id(text: str | None) -> str | None:
    """Kueue prints "UNKNOWN" (v0.12+) or nothing when it doesn't know a UID or a path."""
    if text is None:
        return None
    text = text.strip()
    return None if text in {"", "UNKNOWN"} else text


# ------------------------------------------------------------------------------------------------
# Flavor-assignment reasons: one segment of "couldn't assign flavors to pod set <ps>: <r1>, <r2>, ..."

_N = r"[^\s,;()]+"  # a flavor, resource or pod set name: no spaces, commas, semicolons or parentheses
_Q = r"[0-9.]+[a-zA-Z]*"  # a quantity as ResourceFormatter prints it
_EXCL_ITEM = r'(?:nodeSelector|affinity|topologyDomain|schedulerLibraryNoFit|taint "[^"]*"|resource "[^"]*"): [0-9]+'
_EXCLUSIONS = rf"\. Total nodes: (?P<total>[0-9]+); excluded: (?P<excluded>{_EXCL_ITEM}(?:, {_EXCL_ITEM})*)"
_END = r"(?=, |; |\Z)"  # a reason ends where the next one (or pod set) starts, or at the end of its pod set


@dataclass(frozen=True)
class _Kind:
    """One reason format: how to spot it (lead), read it whole (full), or read what is left of it (partial)."""

    cause: Cause
    lead: str
    full: re.Pattern[str]
    bare: re.Pattern[str]  # full, without the end-of-reason check (for text that wraps reasons in parentheses)
    partial: re.Pattern[str]
    note: str | None = None  # a fixed detail, e.g. which legacy format
    detail: Callable[[dict[str, str]], str | None] | None = None
    severity: int | None = None  # overrides the cause's severity (A9/A10 make a flavor unusable)


def _kind(
    cause: Cause,
    lead: str,
    full: str,
    partial: str | None = None,
    *,
    note: str | None = None,
    detail: Callable[[dict[str, str]], str | None] | None = None,
    severity: int | None = None,
) -> _Kind:
    return _Kind(
        cause=cause,
        lead=lead,
        full=re.compile(full + _END, re.DOTALL),
        bare=re.compile(full, re.DOTALL),
        partial=re.compile(partial if partial is not None else lead, re.DOTALL),
        note=note,
        detail=detail,
        severity=severity,
    )


def _topology_detail(g: dict[str, str]) -> str | None:
    parts: list[str] = []
    if g.get("unit") == "slice":
        parts.append("counted in slices")
    if g.get("levels"):
        parts.append(g["levels"].removeprefix("; "))
    if g.get("total"):
        parts.append(f"total nodes: {g['total']}")
    if g.get("excluded"):
        parts.append(f"excluded: {g['excluded']}")
    return "; ".join(parts) or None


def _group(name: str) -> Callable[[dict[str, str]], str | None]:
    def get(g: dict[str, str]) -> str | None:
        return g.get(name) or None

    return get


_TOPO_REQUEST_LEADS = (
    r"no requested topology level",
    r"podset slice topology ",
    r"invalid node selectors: ",
    r"invalid affinity node selectors: ",
    r"invalid preferred node affinity terms: ",
    r"unable to calculate domain capacities for PodSet ",
    r"invalid podSetUpdate for PodSet ",
    r"additional slice layer ",
    r"no topology domains at level: ",
    r"cannot find replacement assignment for unhealthy node: ",
    r"Cannot replace the node, because ",
)
_TOPO_FLAVOR = (
    r"(?:does not support TopologyAwareScheduling|information missing in TAS cache"
    r"|does not contain the requested level|supports only TopologyAwareScheduling)"
)

_KINDS: tuple[_Kind, ...] = (
    # A1 (v0.4+)
    _kind(
        Cause.INSUFFICIENT_UNUSED_QUOTA,
        r"insufficient unused quota for ",
        rf"insufficient unused quota for (?P<resource>{_N}) in flavor (?P<flavor>{_N}), (?P<needed>{_Q}) more needed",
        rf"insufficient unused quota for (?:(?P<resource>{_N}) (?:in flavor (?:(?P<flavor>{_N}),"
        rf"(?: (?P<needed>{_Q}) more)?)?)?)?",
    ),
    # ≤v0.9.3, ClusterQueue in a cohort
    _kind(
        Cause.INSUFFICIENT_UNUSED_QUOTA,
        r"insufficient unused quota in cohort for ",
        rf"insufficient unused quota in cohort for (?P<resource>{_N}) in flavor (?P<flavor>{_N}), "
        rf"(?P<needed>{_Q}) more needed",
        rf"insufficient unused quota in cohort for (?:(?P<resource>{_N}) (?:in flavor (?:(?P<flavor>{_N}),"
        rf"(?: (?P<needed>{_Q}) more)?)?)?)?",
        note="in the cohort (Kueue ≤ v0.9 wording)",
    ),
    # A2 (v0.15+)
    _kind(
        Cause.EXCEEDS_MAX_CAPACITY,
        r"insufficient quota for ",
        rf"insufficient quota for (?P<resource>{_N}) in flavor (?P<flavor>{_N}), previously considered podsets "
        r"requests \((?P<previously>[^()]*)\) \+ current podset request \((?P<requested>[^()]*)\) "
        r"> maximum capacity \((?P<maximum>[^()]*)\)",
        rf"insufficient quota for (?:(?P<resource>{_N}) (?:in flavor (?:(?P<flavor>{_N}), previously considered"
        r"(?: podsets requests \((?P<previously>[^()]*)\)(?: \+ current podset request \((?P<requested>[^()]*)\)"
        r"(?: > maximum capacity \((?P<maximum>[^()]*)\))?)?)?)?)?)?",
    ),
    # v0.9.4-v0.14
    _kind(
        Cause.EXCEEDS_MAX_CAPACITY,
        r"insufficient quota for ",
        rf"insufficient quota for (?P<resource>{_N}) in flavor (?P<flavor>{_N}), request > maximum capacity "
        r"\((?P<requested>[^()\s]*) > (?P<maximum>[^()\s]*)\)",
        rf"insufficient quota for (?:(?P<resource>{_N}) (?:in flavor (?:(?P<flavor>{_N}), request"
        r"(?: > maximum capacity \((?:(?P<requested>[^()\s]*) >(?: (?P<maximum>[^()\s]*)\))?)?)?)?)?)?",
        note="request > maximum capacity (Kueue v0.9.4-v0.14 wording)",
    ),
    # ≤v0.9.3, ClusterQueue without a cohort: the request is above the nominal quota
    _kind(
        Cause.EXCEEDS_MAX_CAPACITY,
        r"insufficient quota for ",
        rf"insufficient quota for (?P<resource>{_N}) in flavor (?P<flavor>{_N}) in ClusterQueue",
        rf"insufficient quota for (?:(?P<resource>{_N}) )?",
        note="request above the nominal quota (Kueue ≤ v0.9 wording)",
    ),
    # ≤v0.9.3: this ClusterQueue's usage plus the request went over nominal + borrowingLimit. The usage
    # counts, so it can clear when other workloads finish; it never clears if the request alone is over.
    _kind(
        Cause.INSUFFICIENT_UNUSED_QUOTA,
        r"borrowing limit for ",
        rf"borrowing limit for (?P<resource>{_N}) in flavor (?P<flavor>{_N}) exceeded",
        rf"borrowing limit for (?:(?P<resource>{_N}) )?",
        note="borrowing limit reached (Kueue ≤ v0.9 wording); never clears if the request alone is above it",
    ),
    # A3
    _kind(
        Cause.RESOURCE_NOT_COVERED,
        rf"resource {_N} unavailable in ClusterQueue",
        rf"resource (?P<resource>{_N}) unavailable in ClusterQueue",
    ),
    # A12 (only in the "Flavors considered" list of a QuotaReserved event)
    _kind(
        Cause.RESOURCE_NOT_COVERED,
        rf"flavor {_N} does not provide resource ",
        rf"flavor (?P<flavor>{_N}) does not provide resource (?P<resource>{_N})",
        rf"flavor (?P<flavor>{_N}) does not provide resource ",
    ),
    # A4
    _kind(
        Cause.UNTOLERATED_TAINT,
        r"untolerated taint \{",
        rf"untolerated taint (?P<taint>\{{[^{{}}]*\}}) in flavor (?P<flavor>{_N})",
        r"untolerated taint (?P<taint>\{[^{}]*\})?",
    ),
    # A5
    _kind(
        Cause.NODE_AFFINITY_MISMATCH,
        rf"flavor {_N} doesn't match node affinity",
        rf"flavor (?P<flavor>{_N}) doesn't match node affinity",
    ),
    # A6
    _kind(
        Cause.FLAVOR_NOT_FOUND,
        rf"flavor {_N} not found",
        rf"flavor (?P<flavor>{_N}) not found",
    ),
    # A7
    _kind(
        Cause.TOPOLOGY_FLAVOR_MISMATCH,
        rf'Flavor "[^"]*" {_TOPO_FLAVOR}',
        rf'Flavor "(?P<flavor>[^"]*)" (?P<what>{_TOPO_FLAVOR})',
        detail=_group("what"),
    ),
    # A8: within-cycle recompute, says nothing about the flavor itself
    _kind(
        Cause.FLAVOR_SKIPPED,
        rf"skipping flavor {_N} as it is not found in the nomination mapping",
        rf"skipping flavor (?P<flavor>{_N}) as it is not found in the nomination mapping for resource "
        rf"(?P<resource>{_N})",
        rf"skipping flavor (?P<flavor>{_N}) as it is not found in the nomination mapping",
        note="not in this scheduling cycle's nomination mapping",
    ),
    # A9: a ConcurrentAdmission variant may not use this flavor
    _kind(
        Cause.FLAVOR_SKIPPED,
        rf"skipping flavor {_N} due to ",
        rf"skipping flavor (?P<flavor>{_N}) due to WorkloadAllowedResourceFlavorAnnotation annotation",
        rf"skipping flavor (?P<flavor>{_N}) due to ",
        note="not allowed for this variant (WorkloadAllowedResourceFlavorAnnotation)",
        severity=4,
    ),
    # A10: an elastic workload slice must stay on its original flavor
    _kind(
        Cause.FLAVOR_SKIPPED,
        rf"could not assign {_N} flavor since the original workload is assigned: ",
        rf"could not assign (?P<flavor>{_N}) flavor since the original workload is assigned: (?P<original>[^\s,;]*)",
        rf"could not assign (?P<flavor>{_N}) flavor since ",
        detail=lambda g: f"the original workload slice is on flavor {g['original']}" if g.get("original") else None,
        severity=4,
    ),
    # B3 (multi-layer) before B1: same start
    _kind(
        Cause.TOPOLOGY_NO_FIT,
        r'topology "[^"]*" doesn\'t allow to fit(?! any of)',
        r'topology "(?P<topology>[^"]*)" doesn\'t allow to fit'
        r"(?P<levels>(?:; [0-9]+/[0-9]+ slice\(s\) fit on level [^\s;,]+?(?=; |\. Total nodes: |, |\Z))*)"
        rf"(?:{_EXCLUSIONS})?",
        r'topology "(?P<topology>[^"]*)" doesn\'t allow to fit',
        detail=_topology_detail,
    ),
    # B1
    _kind(
        Cause.TOPOLOGY_NO_FIT,
        r'topology "[^"]*" doesn\'t allow to fit any of ',
        r'topology "(?P<topology>[^"]*)" doesn\'t allow to fit any of (?P<of>[0-9]+) (?P<unit>pod|slice)\(s\)'
        rf"(?:{_EXCLUSIONS})?",
        r'topology "(?P<topology>[^"]*)" doesn\'t allow to fit any of (?:(?P<of>[0-9]+) (?P<unit>pod|slice)\()?',
        detail=_topology_detail,
    ),
    # B2
    _kind(
        Cause.TOPOLOGY_NO_FIT,
        r'topology "[^"]*" allows to fit only ',
        r'topology "(?P<topology>[^"]*)" allows to fit only (?P<fit>[0-9]+) out of (?P<of>[0-9]+) '
        rf"(?P<unit>pod|slice)\(s\)(?:{_EXCLUSIONS})?",
        r'topology "(?P<topology>[^"]*)" allows to fit only (?:(?P<fit>[0-9]+) out of (?:(?P<of>[0-9]+) '
        r"(?P<unit>pod|slice)\()?)?",
        detail=_topology_detail,
    ),
    # B4, B5: free text after a fixed lead
    *(
        _kind(
            Cause.TOPOLOGY_REQUEST_INVALID,
            lead,
            rf"(?P<what>{lead}.*)",
            rf"(?P<what>{lead}.*)",
            detail=_group("what"),
        )
        for lead in _TOPO_REQUEST_LEADS
    ),
)
# A reason starts a pod set's text or follows ", ".
_LEADS = re.compile(r"(?:\A|(?<=, ))(?:" + "|".join(kind.lead for kind in _KINDS) + ")")
_PODSET_HEADER = re.compile(r"couldn'{1,2}t assign flavors to pod set (?P<ps>[^\s:;,]+): ")

# Severity of a flavor-assignment fact (Kueue's own order, flavorassigner.go reasonSeverity).
_NO_MATCH, _EXCEEDS, _QUOTA, _TOPOLOGY = 4, 3, 2, 1
_SEVERITY = {
    Cause.UNTOLERATED_TAINT: _NO_MATCH,
    Cause.NODE_AFFINITY_MISMATCH: _NO_MATCH,
    Cause.RESOURCE_NOT_COVERED: _NO_MATCH,
    Cause.FLAVOR_NOT_FOUND: _NO_MATCH,
    Cause.TOPOLOGY_FLAVOR_MISMATCH: _NO_MATCH,
    Cause.EXCEEDS_MAX_CAPACITY: _EXCEEDS,
    Cause.INSUFFICIENT_UNUSED_QUOTA: _QUOTA,
    Cause.TOPOLOGY_NO_FIT: _TOPOLOGY,
    Cause.TOPOLOGY_REQUEST_INVALID: _TOPOLOGY,
}
_REASON_SEVERITY = {
    "NoMatchingFlavor": _NO_MATCH,
    "ExceedsMaxQuota": _EXCEEDS,
    "WaitingForQuota": _QUOTA,
    "WaitingForPreemptedWorkloads": _QUOTA,
    "TopologyPlacementFailed": _TOPOLOGY,
}


@dataclass(frozen=True)
class _Scanned:
    """Facts read from one pod set's reasons, with each fact's severity (None: says nothing)."""

    facts: tuple[Fact, ...]
    severities: tuple[int | None, ...]


def _build(kind: _Kind, m: re.Match[str], text: str, pod_set: str | None) -> Fact:
    g = {k: v for k, v in m.groupdict().items() if v is not None}
    fit: tuple[int, int] | None = None
    of = _int(g.get("of"))
    if of is not None:
        got = _int(g.get("fit")) if "fit" in g else 0
        fit = (got, of) if got is not None else None
    details = [d for d in (kind.note, kind.detail(g) if kind.detail else None) if d]
    raw_taint = g.get("taint")
    taint = render_taint(raw_taint) if raw_taint else None
    if raw_taint and taint is None:
        details.append(f"taint {raw_taint}")
    return Fact(
        cause=kind.cause,
        text=text,
        pod_set=pod_set,
        resource=g.get("resource") or None,
        flavor=g.get("flavor") or None,
        needed=_quantity(g.get("needed")),
        requested=_quantity(g.get("requested")),
        previously=_quantity(g.get("previously")),
        maximum=_quantity(g.get("maximum")),
        taint=taint,
        topology=g.get("topology"),
        fit=fit,
        detail="; ".join(details) or None,
    )


def _unknown(text: str, pod_set: str | None = None, detail: str | None = None) -> Fact:
    return Fact(cause=Cause.UNKNOWN, text=text, pod_set=pod_set, detail=detail)


def _read_reason(text: str, pod_set: str | None, last: bool, truncated: bool) -> list[tuple[Fact, int | None]]:
    """One reason, from its lead to the next reason's lead. May give a trailing unknown fact."""
    for kind in _KINDS:
        m = kind.full.match(text)
        if m is None:
            continue
        out = [(_build(kind, m, text[: m.end()], pod_set), _severity(kind))]
        rest = text[m.end() :].removeprefix(", ").removeprefix("; ").strip()
        if rest:
            note = "cut by Kueue" if last and truncated else None
            out.append((_unknown(rest, pod_set, note), None))
        return out
    for kind in _KINDS:
        m = kind.partial.match(text)
        if m is not None:
            note = "cut by Kueue" if last and truncated else "unexpected wording"
            fact = _build(kind, m, text, pod_set)
            fact = replace(fact, detail="; ".join(d for d in (fact.detail, note) if d))
            return [(fact, _severity(kind))]
    return [(_unknown(text, pod_set), None)]  # pragma: no cover - a lead always matches its own partial


def _severity(kind: _Kind) -> int | None:
    return kind.severity if kind.severity is not None else _SEVERITY.get(kind.cause)


def _scan_reasons(body: str, pod_set: str | None, truncated: bool) -> _Scanned:
    """All reasons of one pod set (or of a text with no pod set header)."""
    starts = [m.start() for m in _LEADS.finditer(body)]
    pairs: list[tuple[Fact, int | None]] = []
    head = body[: starts[0] if starts else len(body)].removesuffix(", ").strip()
    if head:
        pairs.append((_unknown(head, pod_set, "cut by Kueue" if truncated and not starts else None), None))
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(body)
        text = body[start:end].removesuffix(", ").strip()
        pairs.extend(_read_reason(text, pod_set, last=i + 1 == len(starts), truncated=truncated))
    return _Scanned(tuple(f for f, _ in pairs), tuple(s for _, s in pairs))


def _pod_set_bounds(scanned: _Scanned) -> tuple[int, int] | None:
    """How bad one pod set is: (best reading, worst reading) of Kueue's rule, None if nothing counts.

    Kueue takes, within a resource group, the least severe flavor (an alternative may still work) and,
    across resource groups (co-requisites), the most severe. The message doesn't name resource groups:
    flavors that name a common resource share one; a resource missing from the ClusterQueue (A3) is a
    group of its own. Flavors whose facts name no resource (taints, affinity, topology) belong to one of
    the groups, we can't tell which: the best reading makes them an alternative in every group, the worst
    a group of their own. With a single resource group both readings agree.
    """
    flavor_resources: dict[str, set[str]] = {}
    flavor_severity: dict[str, int] = {}
    independent: list[int] = []
    for fact, sev in zip(scanned.facts, scanned.severities, strict=True):
        if sev is None:
            continue
        if fact.flavor is None and fact.cause is Cause.RESOURCE_NOT_COVERED:
            independent.append(sev)
            continue
        key = f"flavor {fact.flavor}" if fact.flavor is not None else f"topology {fact.topology or fact.text}"
        flavor_severity[key] = max(sev, flavor_severity.get(key, 0))
        resources = flavor_resources.setdefault(key, set())
        if fact.resource is not None:
            resources.add(fact.resource)
    groups: list[set[str]] = []
    loose: set[str] = set()
    for key, resources in flavor_resources.items():
        if not resources:
            loose.add(key)
            continue
        joined = [g for g in groups if any(resources & flavor_resources[k] for k in g)]
        merged = {key}.union(*joined)
        groups = [g for g in groups if g not in joined] + [merged]
    if not groups and not loose and not independent:
        return None

    def least(keys: Iterable[str]) -> int:
        return min(flavor_severity[k] for k in keys)

    if len(groups) <= 1:
        base = [least(set().union(*groups) | loose)] if groups or loose else []
        best = worst = max(base + independent)
    else:
        best = max([least(g | loose) for g in groups] + independent)
        worst = max([least(g) for g in groups] + ([least(loose)] if loose else []) + independent)
    return best, worst


# ------------------------------------------------------------------------------------------------
# Whole messages (C, D, E, eviction copies)


@dataclass(frozen=True)
class _Hit:
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
_CONSIDERED_LEADS = re.compile("(?<=[;(])(?:" + "|".join(kind.lead for kind in _KINDS) + ")")
_DRA = re.compile(
    r"\bDRA\b|DeviceClass|ResourceClaim|ResourceSlice|FirstAvailable|AllocationMode|matching devices"
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
_REASON_VERDICT = {
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
}
_ON_HOLD_DETAIL = "the job is on hold (for instance a StatefulSet scaled to zero); Kueue admits it when it resumes"
_TOPOLOGY_MAYBE_TEMPORARY = (
    "Kueue's legacy reason doesn't say whether it would fit on an empty cluster: it may be temporary"
)
_SEVERITY_VERDICT = {
    _NO_MATCH: Verdict.NO_MATCHING_FLAVOR,
    _EXCEEDS: Verdict.EXCEEDS_MAX_QUOTA,
    _QUOTA: Verdict.WAITING_FOR_QUOTA,
    _TOPOLOGY: Verdict.TOPOLOGY_PLACEMENT_FAILED,
}


def _whole(body: str, reason: str) -> _Hit | None:
    """A message that is one statement (everything but flavor assignment)."""
    for pattern, cause, verdict, group in _WHOLE:
        m = pattern.match(body)
        if m is None:
            continue
        g = m.groupdict()
        detail = g.get(group) if group else None
        return _Hit((Fact(cause=cause, text=body, queue=g.get("q"), detail=detail or None),), verdict)
    if _LEGACY_LIMITS.search(body):
        return _Hit((Fact(Cause.REQUESTS_EXCEED_LIMITS, body, detail=body),), Verdict.INVALID_REQUEST)
    m = _ASSIGN_ERROR.match(body)
    if m is not None:
        error = m["d"]
        fact = Fact(Cause.FLAVOR_ASSIGNMENT_ERROR, body, pod_set=m["ps"], detail=error)
        if "not supported with ElasticJobsViaWorkloadSlices" in error:
            return _Hit((fact,), Verdict.INVALID_REQUEST)
        by_reason = _REASON_VERDICT.get(reason) if reason in _REASON_SEVERITY else None
        return _Hit((fact,), by_reason or Verdict.NO_MATCHING_FLAVOR)
    if _BYPASSED.match(body):
        fact = Fact(Cause.EVALUATION_BYPASSED, body, detail=reason or None)
        by_reason = _REASON_VERDICT.get(reason) if reason in _REASON_SEVERITY else None
        return _Hit((fact,), by_reason or Verdict.NOT_YET_EVALUATED)
    preemption = parse_preemption(body)
    if preemption is not None:
        migration = (preemption.why or "").startswith("migration to")
        cause = Cause.FLAVOR_MIGRATION if migration else Cause.PREEMPTED
        return _Hit((Fact(cause, body, detail=preemption.why),), Verdict.NOT_YET_EVALUATED)
    m = _RESERVED.match(body)
    if m is not None:
        facts = [Fact(Cause.QUOTA_RESERVED, body, queue=m["q"], detail="quota is reserved: this is not a blocker")]
        facts.extend(_considered(m["rest"]))
        return _Hit(tuple(facts), Verdict.NOT_YET_EVALUATED)
    return None


def _considered(text: str) -> list[Fact]:
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
            for kind in _KINDS:
                m = kind.bare.match(reason) or kind.partial.match(reason)
                if m is not None:
                    facts.append(_build(kind, m, reason[: m.end()], header["ps"]))
                    break
    return facts


def _hints(body: str) -> _Hit | None:
    for pattern, cause, verdict in _HINTS:
        if pattern.search(body):
            return _Hit((Fact(cause, body, detail="inferred from wording this bot doesn't know"),), verdict)
    return None


# ------------------------------------------------------------------------------------------------
# The classifier


def _strip(message: str) -> tuple[str, bool, int | None, int | None, int | None]:
    """(body, truncated, preemptions pending, preemptions failed, migrations pending)."""
    text = message.strip()
    cut = _TRUNCATED.search(text)
    truncated = cut is not None
    if cut is not None:
        text = text[: cut.start()]
    pending = failed = migrations = None
    for _ in range(3):  # the suffixes can follow one another
        m = _SUFFIX.search(text)
        if m is None:
            break
        pending = pending if m["pending"] is None else _int(m["pending"])
        failed = failed if m["failed"] is None else _int(m["failed"])
        migrations = migrations if m["migration"] is None else _int(m["migration"])
        text = text[: m.start()]
    return text.strip(), truncated, pending, failed, migrations


def _flavor_facts(body: str, truncated: bool) -> tuple[list[_Scanned], bool]:
    """Every pod set's facts; the flag says the text had any flavor-assignment wording at all."""
    headers = list(_PODSET_HEADER.finditer(body))
    scanned: list[_Scanned] = []
    head = body[: headers[0].start() if headers else len(body)].removesuffix("; ").strip()
    if head:
        scanned.append(_scan_reasons(head, None, truncated and not headers))
    for i, header in enumerate(headers):
        last = i + 1 == len(headers)
        end = len(body) if last else headers[i + 1].start()
        part = body[header.end() : end].removesuffix("; ").strip()
        scanned.append(_scan_reasons(part, header["ps"], truncated and last))
    known = bool(headers) or any(f.cause is not Cause.UNKNOWN for s in scanned for f in s.facts)
    return scanned, known


def _flavor_verdict(
    scanned: list[_Scanned],
    reason: str,
    truncated: bool,
    preempting: bool,
) -> tuple[Verdict | None, bool]:
    """The verdict of flavor-assignment facts, and whether topology facts need the maybe-temporary note."""
    bounds = [_pod_set_bounds(s) for s in scanned]
    known = [b for b in bounds if b is not None]
    if not known:
        return None, False
    best = max(b[0] for b in known)
    worst = max(b[1] for b in known)
    severity = best
    from_reason = _REASON_SEVERITY.get(reason)
    if truncated:
        # Reasons are sorted, so the cut may have hidden a milder flavor of the last pod set (A1 sorts after
        # A2), and whole pod sets may be missing: the complete pod sets are a floor, the granular reason
        # (Kueue saw everything) decides above it, and the cut pod set only counts when it is all we have.
        complete = [b[0] for b in bounds[:-1] if b is not None]
        floor = max(complete) if complete else None
        if from_reason is not None and from_reason >= (floor or 0):
            severity = from_reason
        elif floor is not None:
            severity = floor
    elif from_reason is not None and best <= from_reason <= worst:
        severity = from_reason
    wait_reason = reason in {"WaitingForQuota", "WaitingForPreemptedWorkloads"}
    if severity == _QUOTA:
        waits_for_preemption = preempting or reason == "WaitingForPreemptedWorkloads"
        return (Verdict.WAITING_FOR_PREEMPTION if waits_for_preemption else Verdict.WAITING_FOR_QUOTA), False
    if severity != _TOPOLOGY:
        return _SEVERITY_VERDICT[severity], False
    no_fit = any(f.cause is Cause.TOPOLOGY_NO_FIT for s in scanned for f in s.facts)
    if not no_fit:
        return Verdict.TOPOLOGY_PLACEMENT_FAILED, False  # B4/B5: the request itself can't be placed
    if preempting or reason == "WaitingForPreemptedWorkloads":
        return Verdict.WAITING_FOR_PREEMPTION, False
    if wait_reason:
        return Verdict.WAITING_FOR_QUOTA, False
    return Verdict.TOPOLOGY_PLACEMENT_FAILED, reason != "TopologyPlacementFailed"


def _note_topology(facts: Iterable[Fact]) -> list[Fact]:
    return [
        replace(f, detail="; ".join(d for d in (f.detail, _TOPOLOGY_MAYBE_TEMPORARY) if d))
        if f.cause is Cause.TOPOLOGY_NO_FIT
        else f
        for f in facts
    ]


def classify_quota_reserved(reason: str, message: str) -> Classification:
    """A QuotaReserved=False condition (or the same text on a Warning event of the Workload).

    Total: any reason and message (empty, garbage, huge, cut) give a Classification.
    """
    reason_text = (reason or "").strip() if isinstance(reason, str) else ""
    message_text = message if isinstance(message, str) else ""
    body, truncated, pending, failed, migrations = _strip(message_text)
    preempting = bool(pending) or bool(failed) or bool(migrations)
    facts: list[Fact]
    verdict: Verdict | None = None

    hit = _whole(body, reason_text) if body else None
    if hit is not None:
        facts, verdict = list(hit.facts), hit.verdict
        if verdict is Verdict.WAITING_FOR_QUOTA and preempting:
            verdict = Verdict.WAITING_FOR_PREEMPTION
    else:
        scanned, known = _flavor_facts(body, truncated) if body else ([], False)
        facts = [f for s in scanned for f in s.facts]
        if known:
            verdict, note = _flavor_verdict(scanned, reason_text, truncated, preempting)
            if note:
                facts = _note_topology(facts)
        elif body and _DRA.search(body):
            facts, verdict = [Fact(Cause.DRA_UNSUPPORTED, body, detail=body)], Verdict.INVALID_REQUEST
        elif reason_text in {"Misconfigured", "Inadmissible", "Suspended"} and (hint := _hints(body)) is not None:
            facts, verdict = list(hint.facts), hint.verdict
        else:
            facts = [_unknown(body, detail="cut by Kueue" if truncated else None)]
        if verdict is None:
            verdict = _REASON_VERDICT.get(reason_text, Verdict.NOT_YET_EVALUATED)
            if preempting and verdict in {Verdict.WAITING_FOR_QUOTA, Verdict.NOT_YET_EVALUATED}:
                verdict = Verdict.WAITING_FOR_PREEMPTION

    # Flavor-independent reasons Kueue ranks above everything else (FACTS §4.2).
    if reason_text == "Deactivated":
        verdict = Verdict.DEACTIVATED
    elif reason_text == "OnHold":
        verdict = Verdict.NOT_YET_EVALUATED
        if not any(f.cause is Cause.ON_HOLD for f in facts):
            kept = [f for f in facts if f.cause is not Cause.UNKNOWN]
            facts = [Fact(Cause.ON_HOLD, body, detail=_ON_HOLD_DETAIL), *kept]

    return Classification(
        verdict=verdict,
        facts=tuple(facts),
        reason=reason_text,
        message=message_text,
        preemptions_pending=pending,
        preemptions_failed=failed,
        granular=reason_text in GRANULAR_REASONS,
        migrations_pending=migrations,
        truncated=truncated,
    )


# ------------------------------------------------------------------------------------------------
# Preemption and eviction

_PREEMPTION = re.compile(
    r"(?:Previously: )?(?P<verb>Preempted|Evicted|Replaced) to accommodate a workload "
    r"\(UID: (?P<uid>[^,)]*)(?:, JobUID: (?P<juid>[^)]*))?\) due to (?P<why>.*?)"
    r"(?:; preemptor path: (?P<pp>.*?)(?:; preemptee path: (?P<ep>.*?))?)?"
    r"(?:; preemptor effective priority: .*)?\Z",
    re.DOTALL,
)
_PREEMPTION_CUT = re.compile(
    r"(?:Previously: )?(?:Preempted|Evicted|Replaced) to accommodate a workload"
    r"(?: \(UID: (?P<uid>[^,)]*)(?:(?:, JobUID: (?P<juid>[^)]*))?\) due to (?P<why>.*?)"
    r"(?:; preemptor path: (?P<pp>.*?)(?:; preemptee path: (?P<ep>.*?))?)?)?)?\Z",
    re.DOTALL,
)
_PREEMPTION_V06 = re.compile(r"(?:Previously: )?Preempted to accommodate a higher priority Workload")


def parse_preemption(message: str) -> Preemption | None:
    """Who preempted (or evicted for a migration, or replaced) a workload; None if the text says nothing of it.

    Every version: v0.6 "Preempted to accommodate a higher priority Workload"; v0.8-v0.10 "(UID: %s) due
    to %s"; v0.11-v0.14 "(UID: %s, JobUID: %s) due to %s"; v0.15+ "...; preemptor path: %s; preemptee
    path: %s"; the victim's event adds "; preemptor effective priority: ...". A cut message keeps what
    is whole: the last field before the cut is dropped.
    """
    text = (message if isinstance(message, str) else "").strip()
    cut = _TRUNCATED.search(text)
    if cut is not None:
        text = text[: cut.start()]
    if _PREEMPTION_V06.match(text):
        return Preemption(None, None, None, None, None)
    m = _PREEMPTION.match(text) if cut is None else None
    if m is None:
        m = _PREEMPTION_CUT.match(text)
        if m is None:
            return None
        fields = [m["uid"], m["juid"], m["why"], m["pp"], m["ep"]]
        present = [i for i, v in enumerate(fields) if v is not None]
        if present:  # the last field reached the cut: keep it only up to a "; " that a cut label follows
            last = fields[present[-1]] or ""
            fields[present[-1]] = last.split("; ")[0] if "; " in last else None
        uid, juid, why, pp, ep = fields
    else:
        uid, juid, why, pp, ep = m["uid"], m["juid"], m["why"], m["pp"], m["ep"]
    why_text = (why or "").strip()
    return Preemption(
        preemptor_uid=_clean_id(uid),
        preemptor_job_uid=_clean_id(juid),
        why=None if why_text in {"", "UNKNOWN"} else why_text,
        preemptor_path=_clean_id(pp),
        preemptee_path=_clean_id(ep),
    )


_CHECKS = re.compile(r"AdmissionChecks? in (?P<state>\w+) state: (?P<list>.*)", re.DOTALL)
_CHECK_START = re.compile(r'(?:\A|(?<=; ))"(?P<name>(?:[^"\\]|\\.)*)"')


def _parse_checks(text: str) -> tuple[tuple[str, str, str], ...]:
    """("name", state, message) from "AdmissionCheck(s) in <State> state: \"a\" (msg); \"b\"\"."""
    m = _CHECKS.search(text)
    if m is None:
        return ()
    state, listing = m["state"], m["list"]
    starts = list(_CHECK_START.finditer(listing))
    out: list[tuple[str, str, str]] = []
    for i, start in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(listing)
        rest = listing[start.end() : end].removesuffix("; ").strip()
        msg = rest[1:-1] if rest.startswith("(") and rest.endswith(")") else rest.removeprefix("(")
        name = start["name"].replace('\\"', '"').replace("\\\\", "\\")
        out.append((name, state, msg))
    return tuple(out)


def parse_eviction(reason: str, message: str) -> Eviction:
    """An Evicted condition (reason, message) or an ``EvictedDueTo...`` event of the Workload."""
    raw = (reason if isinstance(reason, str) else "").strip().removeprefix("EvictedDueTo")
    base, _, underlying = raw.partition("DueTo")
    if base == "InactiveWorkload":  # v0.6-v0.10 name of a deactivation
        base = "Deactivated"
    text = message if isinstance(message, str) else ""
    body = _TRUNCATED.sub("", text.strip()).removeprefix("Previously: ")
    checks = _parse_checks(body)
    return Eviction(
        reason=base,
        underlying=underlying or None,
        message=text,
        preemption=parse_preemption(body),
        pods_ready_timeout=base == "PodsReadyTimeout" or body.startswith("Exceeded the PodsReady timeout"),
        admission_check="AdmissionCheck" in {base, underlying} or bool(checks),
        checks=checks,
    )
