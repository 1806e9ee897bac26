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

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

from bot.copy.text import Text
from bot.trace.codes import Verdict
from bot.trace.eviction import Eviction, Preemption, parse_eviction, parse_preemption
from bot.trace.facts import (
    GRANULAR_REASONS,
    LEGACY_REASONS,
    SUFFIX,
    TRUNCATED,
    Cause,
    Classification,
    Fact,
    as_int,
    render_taint,
)
from bot.trace.reasons import (
    CUT,
    EXCEEDS,
    NO_MATCH,
    PODSET_HEADER,
    QUOTA,
    REASON_SEVERITY,
    TOPOLOGY,
    GroupShape,
    Scanned,
    group_shapes,
    pod_set_bounds,
    scan_reasons,
    unknown_fact,
)
from bot.trace.statements import DRA, REASON_VERDICT, hints, whole

__all__ = [
    "GRANULAR_REASONS",
    "LEGACY_REASONS",
    "Cause",
    "Classification",
    "Eviction",
    "Fact",
    "GroupShape",
    "Preemption",
    "classify_quota_reserved",
    "group_shapes",
    "parse_eviction",
    "parse_preemption",
    "render_taint",
    "unknown_state",
]


_ON_HOLD_DETAIL = Text("note.on-hold")
_TOPOLOGY_MAYBE_TEMPORARY = Text("note.topology-maybe-temporary")
_SEVERITY_VERDICT = {
    NO_MATCH: Verdict.NO_MATCHING_FLAVOR,
    EXCEEDS: Verdict.EXCEEDS_MAX_QUOTA,
    QUOTA: Verdict.WAITING_FOR_QUOTA,
    TOPOLOGY: Verdict.TOPOLOGY_PLACEMENT_FAILED,
}


# ------------------------------------------------------------------------------------------------
# The classifier


def _strip(message: str) -> tuple[str, bool, int | None, int | None, int | None]:
    """(body, truncated, preemptions pending, preemptions failed, migrations pending)."""
    text = message.strip()
    cut = TRUNCATED.search(text)
    truncated = cut is not None
    if cut is not None:
        text = text[: cut.start()]
    pending = failed = migrations = None
    for _ in range(3):  # the suffixes can follow one another
        m = SUFFIX.search(text)
        if m is None:
            break
        pending = pending if m["pending"] is None else as_int(m["pending"])
        failed = failed if m["failed"] is None else as_int(m["failed"])
        migrations = migrations if m["migration"] is None else as_int(m["migration"])
        text = text[: m.start()]
    return text.strip(), truncated, pending, failed, migrations


def _flavor_facts(body: str, truncated: bool) -> tuple[list[Scanned], bool]:
    """Every pod set's facts; the flag says the text had any flavor-assignment wording at all."""
    headers = list(PODSET_HEADER.finditer(body))
    scanned: list[Scanned] = []
    head = body[: headers[0].start() if headers else len(body)].removesuffix("; ").strip()
    if head:
        scanned.append(scan_reasons(head, None, truncated and not headers))
    for i, header in enumerate(headers):
        last = i + 1 == len(headers)
        end = len(body) if last else headers[i + 1].start()
        part = body[header.end() : end].removesuffix("; ").strip()
        scanned.append(scan_reasons(part, header["ps"], truncated and last))
    known = bool(headers) or any(f.cause is not Cause.UNKNOWN for s in scanned for f in s.facts)
    return scanned, known


def _severity(bounds: list[tuple[int, int] | None], reason: str, truncated: bool) -> int | None:
    """Kueue's severity of the pod sets' reasons, refined by the reason; None when nothing counts."""
    known = [b for b in bounds if b is not None]
    if not known:
        return None
    best = max(b[0] for b in known)
    worst = max(b[1] for b in known)
    from_reason = REASON_SEVERITY.get(reason)
    if truncated:
        # Reasons are sorted, so the cut may have hidden a milder flavor of the last pod set (A1 sorts after
        # A2), and whole pod sets may be missing: the complete pod sets are a floor, the granular reason
        # (Kueue saw everything) decides above it, and the cut pod set only counts when it is all we have.
        complete = [b[0] for b in bounds[:-1] if b is not None]
        floor = max(complete) if complete else None
        if from_reason is not None and from_reason >= (floor or 0):
            return from_reason
        return floor if floor is not None else best
    if from_reason is not None and best <= from_reason <= worst:
        return from_reason
    return best


def _topology_verdict(scanned: list[Scanned], reason: str, preempting: bool) -> tuple[Verdict, bool]:
    no_fit = any(f.cause is Cause.TOPOLOGY_NO_FIT for s in scanned for f in s.facts)
    if not no_fit:
        return Verdict.TOPOLOGY_PLACEMENT_FAILED, False  # B4/B5: the request itself can't be placed
    if preempting or reason == "WaitingForPreemptedWorkloads":
        return Verdict.WAITING_FOR_PREEMPTION, False
    if reason == "WaitingForQuota":
        return Verdict.WAITING_FOR_QUOTA, False
    return Verdict.TOPOLOGY_PLACEMENT_FAILED, reason != "TopologyPlacementFailed"


def _flavor_verdict(
    scanned: list[Scanned],
    reason: str,
    truncated: bool,
    preempting: bool,
    groups: Sequence[GroupShape] = (),
) -> tuple[Verdict | None, bool]:
    """The verdict of flavor-assignment facts, and whether topology facts need the maybe-temporary note."""
    severity = _severity([pod_set_bounds(s, groups) for s in scanned], reason, truncated)
    if severity is None:
        return None, False
    if severity == QUOTA:
        waits_for_preemption = preempting or reason == "WaitingForPreemptedWorkloads"
        return (Verdict.WAITING_FOR_PREEMPTION if waits_for_preemption else Verdict.WAITING_FOR_QUOTA), False
    if severity != TOPOLOGY:
        return _SEVERITY_VERDICT[severity], False
    return _topology_verdict(scanned, reason, preempting)


def _note_topology(facts: Iterable[Fact]) -> list[Fact]:
    return [
        replace(f, about=(*f.about, _TOPOLOGY_MAYBE_TEMPORARY)) if f.cause is Cause.TOPOLOGY_NO_FIT else f
        for f in facts
    ]


def _read_flavors(
    body: str, reason: str, truncated: bool, preempting: bool, groups: Sequence[GroupShape] = ()
) -> tuple[list[Fact], Verdict]:
    """A message that is not one known statement: flavor-assignment reasons, DRA, hints or unknown text."""
    scanned, known = _flavor_facts(body, truncated) if body else ([], False)
    facts = [f for s in scanned for f in s.facts]
    verdict: Verdict | None = None
    if known:
        verdict, note = _flavor_verdict(scanned, reason, truncated, preempting, groups)
        if note:
            facts = _note_topology(facts)
    elif body and DRA.search(body):
        facts, verdict = [Fact(Cause.DRA_UNSUPPORTED, body, about=(body,))], Verdict.INVALID_REQUEST
    elif reason in {"Misconfigured", "Inadmissible", "Suspended"} and (hint := hints(body)) is not None:
        facts, verdict = list(hint.facts), hint.verdict
    else:
        facts = [unknown_fact(body, note=CUT if truncated else None)]
    if verdict is None:
        verdict = REASON_VERDICT.get(reason, Verdict.NOT_YET_EVALUATED)
        if preempting and verdict in {Verdict.WAITING_FOR_QUOTA, Verdict.NOT_YET_EVALUATED}:
            verdict = Verdict.WAITING_FOR_PREEMPTION
    return facts, verdict


def _ranked_first(reason: str, body: str, facts: list[Fact], verdict: Verdict) -> tuple[list[Fact], Verdict]:
    """Flavor-independent reasons Kueue ranks above everything else (FACTS §4.2)."""
    if reason == "Deactivated":
        return facts, Verdict.DEACTIVATED
    if reason == "DRAResourcesUnresolved":  # an invalid request whatever the message says: never "waiting"
        return [Fact(Cause.DRA_UNRESOLVED, body, about=(body,) if body else ())], Verdict.INVALID_REQUEST
    if reason == "OnHold":
        if not any(f.cause is Cause.ON_HOLD for f in facts):
            kept = [f for f in facts if f.cause is not Cause.UNKNOWN]
            facts = [Fact(Cause.ON_HOLD, body, about=(_ON_HOLD_DETAIL,)), *kept]
        return facts, Verdict.NOT_YET_EVALUATED
    return facts, verdict


KNOWN_REASONS = GRANULAR_REASONS | LEGACY_REASONS | frozenset(REASON_VERDICT)


def unknown_state(record: Classification) -> bool:
    """Kueue recorded a state this bot cannot read: a reason of no vocabulary it knows, or a message none of
    whose parts it knows under a reason that says nothing by itself (Pending, Inadmissible, none). Such a
    record is shown verbatim and gives no place in the queue ("anything unknown is honest")."""
    if record.reason and record.reason not in KNOWN_REASONS:
        return True
    if record.reason in REASON_VERDICT and record.reason != "PendingEvaluation":
        return False  # the reason says what it is, whatever the message adds
    return bool(record.message.strip()) and all(fact.cause is Cause.UNKNOWN for fact in record.facts)


# Kueue writes the same few messages on many Workloads (and one question reads its record up to three
# times): a classification is a function of (reason, message, groups), kept for the last ones seen.
_KEPT_CLASSIFICATIONS = 1024
_KEPT_MESSAGE_CHARS = 4096  # longer messages (rare, up to 32 KiB) are read each time rather than kept


def classify_quota_reserved(
    reason: str | None, message: str | None, groups: Sequence[GroupShape] = ()
) -> Classification:
    """A QuotaReserved=False condition (or the same text on a Warning event of the Workload).

    `groups` are the ClusterQueue's resource groups when known (`group_shapes`): they tell which flavors
    are alternatives and which resources co-requisites (otherwise guessed from the message's names).
    Total: any reason and message (empty, garbage, huge, cut, null in decoded YAML) give a Classification.
    """
    if isinstance(reason, str) and isinstance(message, str) and len(message) <= _KEPT_MESSAGE_CHARS:
        try:
            return _classify_kept(reason, message, tuple(groups))
        except TypeError:  # groups that cannot be a key: read as they are
            pass
    return _classify(reason, message, groups)


@lru_cache(maxsize=_KEPT_CLASSIFICATIONS)
def _classify_kept(reason: str, message: str, groups: tuple[GroupShape, ...]) -> Classification:
    return _classify(reason, message, groups)


def _classify(reason: str | None, message: str | None, groups: Sequence[GroupShape]) -> Classification:
    reason_text = (reason or "").strip() if isinstance(reason, str) else ""
    message_text = message if isinstance(message, str) else ""
    body, truncated, pending, failed, migrations = _strip(message_text)
    preempting = bool(pending) or bool(failed) or bool(migrations)
    hit = whole(body, reason_text) if body else None
    if hit is not None:
        facts, verdict = list(hit.facts), hit.verdict
        if verdict is Verdict.WAITING_FOR_QUOTA and preempting:
            verdict = Verdict.WAITING_FOR_PREEMPTION
    else:
        facts, verdict = _read_flavors(body, reason_text, truncated, preempting, groups)
    facts, verdict = _ranked_first(reason_text, body, facts, verdict)
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
