"""Preemption and eviction: who preempted a workload and why, an Evicted condition read into parts (FACTS §4.6)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.trace.facts import TRUNCATED, clean_id


@dataclass(frozen=True)
class Preemption:
    """Who preempted a workload and why (FACTS §4.6; every version since v0.6)."""

    preemptor_uid: str | None
    preemptor_job_uid: str | None
    why: str | None  # "prioritization in the ClusterQueue", "reclamation within the cohort", ...
    preemptor_path: str | None  # "/cohort/cq" (v0.15+)
    preemptee_path: str | None
    rule: str | None = None  # v0.20 configurable preemption: the PreemptionConfig's rule that chose it
    config: str | None = None  # ... and the PreemptionConfig
    preemptor: str | None = None  # ... and the preemptor, "namespace/workload"


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
# v0.20 configurable preemption (KEP "PreemptionConfig", site docs concepts/preemption_config "Observability"):
# the Evicted message "Preempted by rule 'R' in PreemptionConfig 'C' to accommodate workload ns/name", the
# Preempted condition the same without the preemptor. Read by structure: the exact text is the docs'.
_PREEMPTION_RULE = re.compile(
    r"(?:Previously: )?Preempted by rule '(?P<rule>[^']*)' in PreemptionConfig '(?P<config>[^']*)'"
    r"(?: to accommodate workload (?P<wl>\S+?))?\.?\Z",
    re.DOTALL,
)


def _by_rule(text: str) -> Preemption | None:
    m = _PREEMPTION_RULE.match(text)
    if m is None:
        return None
    why = f"rule '{m['rule']}' in PreemptionConfig '{m['config']}'"
    return Preemption(None, None, why, None, None, rule=m["rule"], config=m["config"], preemptor=m["wl"])


def parse_preemption(message: str | None) -> Preemption | None:
    """Who preempted (or evicted for a migration, or replaced) a workload; None if the text says nothing of it.

    Every version: v0.6 "Preempted to accommodate a higher priority Workload"; v0.8-v0.10 "(UID: %s) due
    to %s"; v0.11-v0.14 "(UID: %s, JobUID: %s) due to %s"; v0.15+ "...; preemptor path: %s; preemptee
    path: %s"; the victim's event adds "; preemptor effective priority: ..."; v0.20's configurable preemption
    "Preempted by rule 'R' in PreemptionConfig 'C' to accommodate workload ns/x". A cut message keeps what
    is whole: the last field before the cut is dropped.
    """
    text = (message if isinstance(message, str) else "").strip()
    cut = TRUNCATED.search(text)
    if cut is not None:
        text = text[: cut.start()]
    if _PREEMPTION_V06.match(text):
        return Preemption(None, None, None, None, None)
    by_rule = _by_rule(text)
    if by_rule is not None:
        return by_rule
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
        preemptor_uid=clean_id(uid),
        preemptor_job_uid=clean_id(juid),
        why=None if why_text in {"", "UNKNOWN"} else why_text,
        preemptor_path=clean_id(pp),
        preemptee_path=clean_id(ep),
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


def parse_eviction(reason: str | None, message: str | None) -> Eviction:
    """An Evicted condition (reason, message) or an ``EvictedDueTo...`` event of the Workload."""
    raw = (reason if isinstance(reason, str) else "").strip().removeprefix("EvictedDueTo")
    base, _, underlying = raw.partition("DueTo")
    if base == "InactiveWorkload":  # v0.6-v0.10 name of a deactivation
        base = "Deactivated"
    text = message if isinstance(message, str) else ""
    body = TRUNCATED.sub("", text.strip()).removeprefix("Previously: ")
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
