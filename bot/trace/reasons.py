"""Flavor-assignment reasons: one segment of "couldn't assign flavors to pod set <ps>: <r1>, <r2>, ...".

Every reason format of Kueue v0.4 to main (../shared/kueue/FACTS.md §4.1, A and B ids), how severe each
is (Kueue's own order, flavorassigner.go reasonSeverity), and the reading of one pod set's reasons.
Messages are scanned with regular expressions, never split: some reasons hold commas themselves (the node
exclusion list of Topology-Aware Scheduling) and Kueue cuts long messages.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

from bot.copy.text import Text
from bot.trace.facts import Cause, Fact, as_int, quantity_text, render_taint

CUT = Text("note.cut-by-kueue")
UNEXPECTED = Text("note.unexpected-wording")

_N = r"[^\s,;()]+"  # a flavor, resource or pod set name: no spaces, commas, semicolons or parentheses
_Q = r"[0-9.]+[a-zA-Z]*"  # a quantity as ResourceFormatter prints it
# An exclusion: nodeSelector, affinity, topologyDomain, schedulerLibraryNoFit, draNoFit (v0.20: nodes without
# the DRA devices a pod asks for), taint "k", resource "r"; any other camelCase key a later Kueue adds is read
# by the same structure (tasExclusionStats.formatReasons: "key: N" joined by ", ").
_EXCL_ITEM = r'(?:[a-z][A-Za-z]*(?: "[^"]*")?): [0-9]+'
_DRA_NO_FIT = re.compile(r"\bdraNoFit: (?P<n>[0-9]+)")
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
    note: Text | None = None  # a fixed remark, e.g. which legacy format
    detail: Callable[[dict[str, str]], tuple[Text | str, ...]] | None = None
    severity: int | None = None  # overrides the cause's severity (A9/A10 make a flavor unusable)


def _kind(
    cause: Cause,
    lead: str,
    full: str,
    partial: str | None = None,
    *,
    note: Text | None = None,
    detail: Callable[[dict[str, str]], tuple[Text | str, ...]] | None = None,
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


def _topology_detail(g: dict[str, str]) -> tuple[Text | str, ...]:
    parts: list[Text | str] = []
    if g.get("unit") == "slice":
        parts.append(Text("note.counted-in-slices"))
    if g.get("levels"):
        parts.append(g["levels"].removeprefix("; "))
    if g.get("total"):
        parts.append(Text("note.total-nodes", {"total": g["total"]}))
    if g.get("excluded"):
        parts.append(Text("note.excluded-nodes", {"excluded": g["excluded"]}))
        dra = _DRA_NO_FIT.search(g["excluded"])
        if dra is not None:
            parts.append(Text("note.dra-no-fit", {"count": int(dra["n"])}))
    return tuple(parts)


def _group(name: str) -> Callable[[dict[str, str]], tuple[Text | str, ...]]:
    def get(g: dict[str, str]) -> tuple[Text | str, ...]:
        return (g[name],) if g.get(name) else ()

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

KINDS: tuple[_Kind, ...] = (
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
        note=Text("note.legacy-cohort-wording"),
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
        note=Text("note.legacy-maximum-wording"),
    ),
    # ≤v0.9.3, ClusterQueue without a cohort: the request is above the nominal quota
    _kind(
        Cause.EXCEEDS_MAX_CAPACITY,
        r"insufficient quota for ",
        rf"insufficient quota for (?P<resource>{_N}) in flavor (?P<flavor>{_N}) in ClusterQueue",
        rf"insufficient quota for (?:(?P<resource>{_N}) )?",
        note=Text("note.legacy-nominal-wording"),
    ),
    # ≤v0.9.3: this ClusterQueue's usage plus the request went over nominal + borrowingLimit. The usage
    # counts, so it can clear when other workloads finish; it never clears if the request alone is over.
    _kind(
        Cause.INSUFFICIENT_UNUSED_QUOTA,
        r"borrowing limit for ",
        rf"borrowing limit for (?P<resource>{_N}) in flavor (?P<flavor>{_N}) exceeded",
        rf"borrowing limit for (?:(?P<resource>{_N}) )?",
        note=Text("note.legacy-borrowing-limit"),
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
        note=Text("note.not-nominated"),
    ),
    # A9: a ConcurrentAdmission variant may not use this flavor
    _kind(
        Cause.FLAVOR_SKIPPED,
        rf"skipping flavor {_N} due to ",
        rf"skipping flavor (?P<flavor>{_N}) due to WorkloadAllowedResourceFlavorAnnotation annotation",
        rf"skipping flavor (?P<flavor>{_N}) due to ",
        note=Text("note.variant-not-allowed"),
        severity=4,
    ),
    # A10: an elastic workload slice must stay on its original flavor
    _kind(
        Cause.FLAVOR_SKIPPED,
        rf"could not assign {_N} flavor since the original workload is assigned: ",
        rf"could not assign (?P<flavor>{_N}) flavor since the original workload is assigned: (?P<original>[^\s,;]*)",
        rf"could not assign (?P<flavor>{_N}) flavor since ",
        detail=lambda g: (Text("note.original-slice-flavor", {"flavor": g["original"]}),) if g.get("original") else (),
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
_LEADS = re.compile(r"(?:\A|(?<=, ))(?:" + "|".join(kind.lead for kind in KINDS) + ")")
PODSET_HEADER = re.compile(r"couldn'{1,2}t assign flavors to pod set (?P<ps>[^\s:;,]+): ")

# Severity of a flavor-assignment fact (Kueue's own order, flavorassigner.go reasonSeverity).
NO_MATCH, EXCEEDS, QUOTA, TOPOLOGY = 4, 3, 2, 1
_SEVERITY = {
    Cause.UNTOLERATED_TAINT: NO_MATCH,
    Cause.NODE_AFFINITY_MISMATCH: NO_MATCH,
    Cause.RESOURCE_NOT_COVERED: NO_MATCH,
    Cause.FLAVOR_NOT_FOUND: NO_MATCH,
    Cause.TOPOLOGY_FLAVOR_MISMATCH: NO_MATCH,
    Cause.EXCEEDS_MAX_CAPACITY: EXCEEDS,
    Cause.INSUFFICIENT_UNUSED_QUOTA: QUOTA,
    Cause.TOPOLOGY_NO_FIT: TOPOLOGY,
    Cause.TOPOLOGY_REQUEST_INVALID: TOPOLOGY,
}
REASON_SEVERITY = {
    "NoMatchingFlavor": NO_MATCH,
    "ExceedsMaxQuota": EXCEEDS,
    "WaitingForQuota": QUOTA,
    "WaitingForPreemptedWorkloads": QUOTA,
    "TopologyPlacementFailed": TOPOLOGY,
}


@dataclass(frozen=True)
class Scanned:
    """Facts read from one pod set's reasons, with each fact's severity (None: says nothing)."""

    facts: tuple[Fact, ...]
    severities: tuple[int | None, ...]


def build_fact(kind: _Kind, m: re.Match[str], text: str, pod_set: str | None) -> Fact:
    g = {k: v for k, v in m.groupdict().items() if v is not None}
    fit: tuple[int, int] | None = None
    of = as_int(g.get("of"))
    if of is not None:
        got = as_int(g.get("fit")) if "fit" in g else 0
        fit = (got, of) if got is not None else None
    details: list[Text | str] = [kind.note] if kind.note else []
    details.extend(kind.detail(g) if kind.detail else ())
    raw_taint = g.get("taint")
    taint = render_taint(raw_taint) if raw_taint else None
    if raw_taint and taint is None:
        details.append(Text("note.raw-taint", {"taint": raw_taint}))
    return Fact(
        cause=kind.cause,
        text=text,
        pod_set=pod_set,
        resource=g.get("resource") or None,
        flavor=g.get("flavor") or None,
        needed=quantity_text(g.get("needed")),
        requested=quantity_text(g.get("requested")),
        previously=quantity_text(g.get("previously")),
        maximum=quantity_text(g.get("maximum")),
        taint=taint,
        topology=g.get("topology"),
        fit=fit,
        about=tuple(details),
    )


def unknown_fact(text: str, pod_set: str | None = None, note: Text | None = None) -> Fact:
    return Fact(cause=Cause.UNKNOWN, text=text, pod_set=pod_set, about=(note,) if note else ())


def _read_reason(text: str, pod_set: str | None, last: bool, truncated: bool) -> list[tuple[Fact, int | None]]:
    """One reason, from its lead to the next reason's lead. May give a trailing unknown fact."""
    for kind in KINDS:
        m = kind.full.match(text)
        if m is None:
            continue
        out = [(build_fact(kind, m, text[: m.end()], pod_set), _severity(kind))]
        rest = text[m.end() :].removeprefix(", ").removeprefix("; ").strip()
        if rest:
            note = CUT if last and truncated else None
            out.append((unknown_fact(rest, pod_set, note), None))
        return out
    for kind in KINDS:
        m = kind.partial.match(text)
        if m is not None:
            note = CUT if last and truncated else UNEXPECTED
            fact = build_fact(kind, m, text, pod_set)
            fact = replace(fact, about=(*fact.about, note))
            return [(fact, _severity(kind))]
    return [(unknown_fact(text, pod_set), None)]  # pragma: no cover - a lead always matches its own partial


def _severity(kind: _Kind) -> int | None:
    return kind.severity if kind.severity is not None else _SEVERITY.get(kind.cause)


def scan_reasons(body: str, pod_set: str | None, truncated: bool) -> Scanned:
    """All reasons of one pod set (or of a text with no pod set header)."""
    starts = [m.start() for m in _LEADS.finditer(body)]
    pairs: list[tuple[Fact, int | None]] = []
    head = body[: starts[0] if starts else len(body)].removesuffix(", ").strip()
    if head:
        pairs.append((unknown_fact(head, pod_set, CUT if truncated and not starts else None), None))
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(body)
        text = body[start:end].removesuffix(", ").strip()
        pairs.extend(_read_reason(text, pod_set, last=i + 1 == len(starts), truncated=truncated))
    return Scanned(tuple(f for f, _ in pairs), tuple(s for _, s in pairs))


# A ClusterQueue's resource group as the classifier needs it: (covered resources, flavor names in order).
GroupShape = tuple[AbstractSet[str], Sequence[str]]


def group_shapes(groups: Iterable[tuple[Iterable[str], Iterable[str]]]) -> tuple[GroupShape, ...]:
    """(covered resources, flavor names) of each resource group, in the ClusterQueue's order."""
    return tuple((frozenset(covered), tuple(flavors)) for covered, flavors in groups)


def pod_set_bounds(scanned: Scanned, groups: Sequence[GroupShape] = ()) -> tuple[int, int] | None:
    """How bad one pod set is: (best reading, worst reading) of Kueue's rule, None if nothing counts.

    Kueue takes, within a resource group, the least severe flavor (an alternative may still work) and,
    across resource groups (co-requisites), the most severe (flavorassigner.go assignFlavors: one
    findFlavorForPodSets per group, the pod set's status is the union of the failing groups'). Kueue lists
    only the failing resources of each flavor ("insufficient quota for memory in flavor A, ..., insufficient
    unused quota for cpu in flavor B": one group [cpu, memory], B is the alternative that waits), so the
    groups come from the ClusterQueue's real resourceGroups when they are known (`groups`).
    Without them they are guessed: flavors that name a common resource share one. A resource missing from
    the ClusterQueue (A3) is a group of its own. Flavors whose facts name no resource and no known flavor
    (topology) belong to one of the groups, we can't tell which: the best reading makes them an alternative
    in every group, the worst a group of their own. With a single resource group both readings agree.
    """
    flavor_resources, flavor_severity, independent = _flavor_table(scanned)
    real = _real_groups(flavor_resources, groups) if groups else None
    found, loose = real if real is not None else _guess_groups(flavor_resources)
    if not found and not loose and not independent:
        return None

    def least(keys: Iterable[str]) -> int:
        return min(flavor_severity[k] for k in keys)

    if len(found) <= 1:
        base = [least(set().union(*found) | loose)] if found or loose else []
        best = worst = max(base + independent)
    else:
        best = max([least(g | loose) for g in found] + independent)
        worst = max([least(g) for g in found] + ([least(loose)] if loose else []) + independent)
    return best, worst


def _real_groups(
    flavor_resources: dict[str, set[str]], groups: Sequence[GroupShape]
) -> tuple[list[set[str]], set[str]]:
    """The flavors of the message placed in the ClusterQueue's resource groups: by flavor name (a flavor
    belongs to one group of a ClusterQueue), else by a resource it names; what fits neither is `loose`."""
    by_group: dict[int, set[str]] = {}
    loose: set[str] = set()
    for key, resources in flavor_resources.items():
        flavor = key.removeprefix("flavor ") if key.startswith("flavor ") else None
        index = next((i for i, (_, flavors) in enumerate(groups) if flavor is not None and flavor in flavors), None)
        if index is None:
            index = next((i for i, (covered, _) in enumerate(groups) if resources & covered), None)
        if index is None:
            loose.add(key)
        else:
            by_group.setdefault(index, set()).add(key)
    return [by_group[i] for i in sorted(by_group)], loose


def _flavor_table(scanned: Scanned) -> tuple[dict[str, set[str]], dict[str, int], list[int]]:
    """(resources each flavor's facts name, each flavor's worst severity, severities of flavor-less A3 facts)."""
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
    return flavor_resources, flavor_severity, independent


def _guess_groups(flavor_resources: dict[str, set[str]]) -> tuple[list[set[str]], set[str]]:
    """Resource groups guessed from the message: flavors naming a common resource share one. The flavors
    that name no resource are `loose`."""
    groups: list[set[str]] = []
    loose: set[str] = set()
    for key, resources in flavor_resources.items():
        if not resources:
            loose.add(key)
            continue
        joined = [g for g in groups if any(resources & flavor_resources[k] for k in g)]
        merged = {key}.union(*joined)
        groups = [g for g in groups if g not in joined] + [merged]
    return groups, loose
