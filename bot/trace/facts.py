"""Kueue's recorded text, read into values: the causes Kueue gives, one fact per statement, a classification.

The reading itself is in bot.trace.messages (the classifier), bot.trace.reasons (flavor-assignment
reasons), bot.trace.statements (whole messages) and bot.trace.eviction (preemption and eviction). A fact
keeps Kueue's own words (`text`, and the verbatim parts of `about`) apart from the engine's remarks
(the `Text` parts of `about`: catalogue keys, so a reader gets them in their language).

Pure: standard library only, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from bot.copy import render_value
from bot.copy.text import Text
from bot.trace.codes import Verdict

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
        "DRAResourcesUnresolved",  # v0.20 (#16123): a device request Kueue cannot resolve ("Inadmissible" without)
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
    DRA_UNRESOLVED = "dra-unresolved"  # v0.20 reason DRAResourcesUnresolved: the template and the field at fault
    ON_HOLD = "on-hold"  # reason OnHold ("Job is on hold", StatefulSet scaled to zero)
    HOLD_RELEASED = "hold-released"  # v0.20 "Workload no longer on hold; waiting for quota reservation"
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
    about: tuple[Text | str, ...] = ()  # anything else worth showing: Kueue's words (str), the engine's (Text)

    @property
    def detail(self) -> str | None:
        """`about` in English, parts joined by "; " (for logs and tests; readers get `about` in their language)."""
        return render_value(self.about) if self.about else None

    @property
    def said(self) -> str | None:
        """Kueue's own words in `about` (a gate list, an error), without the engine's remarks."""
        words = [part for part in self.about if isinstance(part, str)]
        return "; ".join(words) if words else None


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


# ------------------------------------------------------------------------------------------------
# SmallKinds helpers

_QUANTITY = re.compile(r"[0-9.]+[a-zA-Z]*")
_TAINT = re.compile(r"\{(?P<key>[^\s{}]+) (?P<value>[^\s{}]*) (?P<effect>[^\s{}]*)(?: [^{}]*)?\}")
TRUNCATED = re.compile(r"\s*(?:\.\.\.|…)\Z")
SUFFIX = re.compile(
    r"\. (?:Pending the preemption of (?P<pending>[0-9]{1,9}) workload\(s\)"
    r"|Preempting (?P<failed>[0-9]{1,9}) workload\(s\) failed, will retry\."
    r"|Pending the migration of (?P<migration>[0-9]{1,9}) workload\(s\))\s*\Z"
)


def quantity_text(text: str | None) -> str | None:
    """A Kubernetes quantity as Kueue printed it, or None when the text is not one."""
    if text is None or len(text) > 64 or not _QUANTITY.fullmatch(text):
        return None
    return text


def as_int(text: str | None) -> int | None:
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


def clean_id(text: str | None) -> str | None:
    """Kueue prints "UNKNOWN" (v0.12+) or nothing when it doesn't know a UID or a path."""
    if text is None:
        return None
    text = text.strip()
    return None if text in {"", "UNKNOWN"} else text
