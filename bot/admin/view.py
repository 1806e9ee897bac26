"""What only an admin can fix, per ClusterQueue, each finding with its fix. Pure: a snapshot, `now` and the way
to explain a job (the service's: bot.service.explaining.explain_job, handed in) in.

    view = admin_view(snapshot, now=now, explain=explain_job)
    for group in view.groups:            # one per ClusterQueue (or the missing one a LocalQueue names)
        for finding in group.findings:   # what is wrong (`what`) and how to fix it (`fix`), as `Text`s
            ...
    view.fingerprint                     # the same when nothing an admin would act on changed

The findings, most structural first: a ClusterQueue that is stopped or inactive and why (missing
ResourceFlavors or AdmissionChecks from the spec; inactive AdmissionChecks, missing Topologies and the
rest from Kueue's own Active condition), a cohort cycle, a LocalQueue whose ClusterQueue does not exist,
jobs that can never fit as configured with the quota that would admit them (the engine's explanation and
what-if, as `explain` gives them: nothing re-derived here), a queue starved by its cohort's
borrowing, and the longest waits with what they wait for.

Limits: only the namespaces the view knows of are searched for LocalQueues (Namespace objects, and those
of the LocalQueues of existing ClusterQueues); at most MAX_EXPLAINED pending Workloads per ClusterQueue are
explained (the oldest first), so a huge backlog costs a bounded time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot.copy.text import Text, Value
from bot.forecast.holders import Holders
from bot.forecast.outlook import Outlook
from bot.forecast.texts import what_if_texts
from bot.forecast.whatif import RAISE_QUOTA
from bot.trace.codes import Verdict
from bot.trace.explain import Query
from bot.trace.explanation import Explanation
from bot.trace.model import ClusterQueue, Workload, find_condition, job_name
from bot.trace.resolve import known_namespaces
from bot.trace.snapshot import Snapshot, queue_order_time

MAX_EXPLAINED = 40  # pending Workloads explained per ClusterQueue (the oldest first)
MAX_TOTAL_EXPLAINED = 400  # and in all: a look costs a bounded time on the event loop
LONGEST = 3  # longest waits listed per ClusterQueue
MAX_CYCLE = 32

# Finding kinds (stable: the fingerprint and the copy keys `admin.<kind>` rest on them), in display order.
STOPPED = "stopped"
INACTIVE = "inactive"
COHORT_CYCLE = "cohort-cycle"
ORPHAN_LOCAL_QUEUE = "orphan-local-queue"
NEVER_FITS = "never-fits"
STARVED = "starved"
LONG_WAIT = "long-wait"
ORDER = (STOPPED, INACTIVE, COHORT_CYCLE, ORPHAN_LOCAL_QUEUE, NEVER_FITS, STARVED, LONG_WAIT)

# What Kueue's Active=False reasons of a ClusterQueue ask an admin to do (FACTS §ClusterQueue Active).
_FIX_BY_REASON = {
    "AdmissionCheckInactive": "admin.fix.check-inactive",
    "TopologyNotFound": "admin.fix.topology",
    "MultipleMultiKueueAdmissionChecks": "admin.fix.multikueue-config",
    "MultiKueueAdmissionCheckAppliedPerFlavor": "admin.fix.multikueue-config",
    "MultiKueueWithProvisioningRequest": "admin.fix.multikueue-config",
    "Terminating": "admin.fix.terminating",
}
_WAITING = frozenset({Verdict.WAITING_FOR_QUOTA, Verdict.WAITING_FOR_PREEMPTION})


class Explains(Protocol):
    """How the view explains a pending job: the service's one way (bot.service.explaining.explain_job), handed
    in by whoever builds the view (it sits beside the service, not above it)."""

    def __call__(
        self, snapshot: Snapshot, query: Query, *, now: datetime, eta: bool = ...
    ) -> tuple[Explanation, Outlook]: ...


@dataclass(frozen=True)
class Finding:
    kind: str
    cluster_queue: str  # its group
    subject: str  # what it is about: a ClusterQueue, "namespace/LocalQueue" or "namespace/job"
    what: Text
    fix: tuple[Text, ...]
    since: datetime | None = None  # long-wait: when the wait began

    @property
    def key(self) -> str:
        return f"{self.kind}|{self.cluster_queue}|{self.subject}"


@dataclass(frozen=True)
class Group:
    cluster_queue: str
    exists: bool  # False: a ClusterQueue a LocalQueue names that does not exist
    findings: tuple[Finding, ...]


@dataclass(frozen=True)
class AdminView:
    groups: tuple[Group, ...]
    taken_at: datetime | None = None

    @property
    def empty(self) -> bool:
        return not self.groups

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for g in self.groups for f in g.findings)

    @property
    def fingerprint(self) -> str:
        """The same when nothing an admin would act on changed: kinds, subjects and their texts, durations and
        amounts of time left out (a wait growing longer is not news)."""
        lines = sorted(f"{f.key}|{_stable(f.what)}|{'/'.join(_stable(t) for t in f.fix)}" for f in self.findings)
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:24]


def _stable(value: Value) -> str:
    if isinstance(value, Text):
        params = ",".join(f"{k}={_stable(v)}" for k, v in sorted(value.params.items()) if not k.endswith("_seconds"))
        return f"{value.key}({params})"
    if isinstance(value, tuple):
        return ";".join(_stable(v) for v in value)
    return str(value)


# --- the view ---------------------------------------------------------------------------------------------


def admin_view(
    snapshot: Snapshot,
    *,
    now: datetime,
    explain: Explains,
    max_explained: int = MAX_EXPLAINED,
    longest: int = LONGEST,
) -> AdminView:
    found: dict[str, list[Finding]] = {}
    missing: set[str] = set()
    cycles = _cohort_cycles(snapshot)
    budget = MAX_TOTAL_EXPLAINED
    for cq in sorted(snapshot.cluster_queues(), key=lambda c: c.name):
        findings = found.setdefault(cq.name, [])
        findings.extend(_queue_state(snapshot, cq))
        cycle = cycles.get(cq.cohort)
        if cycle is not None:
            findings.append(
                Finding(
                    COHORT_CYCLE,
                    cq.name,
                    cq.cohort,
                    Text("admin.cohort-cycle", {"cohort": cq.cohort, "cycle": " → ".join(cycle)}),
                    (Text("admin.fix.cohort-cycle", {"cohort": cycle[-2] if len(cycle) > 1 else cq.cohort}),),
                )
            )
        explained = min(max_explained, budget)
        budget -= explained
        findings.extend(_workload_findings(snapshot, cq, now, explain, explained, longest))
    existing = sorted(c.name for c in snapshot.cluster_queues())
    for namespace, lq_name, cq_name in _orphan_local_queues(snapshot):
        missing.add(cq_name)
        found.setdefault(cq_name, []).append(
            Finding(
                ORPHAN_LOCAL_QUEUE,
                cq_name,
                f"{namespace}/{lq_name}",
                Text(
                    "admin.orphan-local-queue",
                    {"local_queue": f"{namespace}/{lq_name}", "cluster_queue": cq_name or "-"},
                ),
                (
                    Text(
                        "admin.fix.orphan-local-queue",
                        {"cluster_queue": cq_name or "-", "existing": ", ".join(existing[:10]) or "-"},
                    ),
                ),
            )
        )
    groups = tuple(
        Group(name, name not in missing, tuple(sorted(items, key=_order)))
        for name, items in sorted(found.items())
        if items
    )
    return AdminView(groups, snapshot.taken_at)


def _order(finding: Finding) -> tuple[int, str, str]:
    """By kind; the longest waits first; then by subject."""
    return ORDER.index(finding.kind), finding.since.isoformat() if finding.since else "", finding.subject


def _missing(cq: ClusterQueue, what: str, names: tuple[str, ...]) -> Finding:
    """A ClusterQueue inactive for the ResourceFlavors (`what` "flavors") or AdmissionChecks ("checks") it names
    and that do not exist, and its fix."""
    params: dict[str, Value] = {"cluster_queue": cq.name, what: ", ".join(names), "count": len(names)}
    return Finding(
        INACTIVE,
        cq.name,
        f"{cq.name}:{what}",
        Text(f"admin.inactive.{what}", params),
        (Text(f"admin.fix.{what}", params),),
    )


def _queue_state(snapshot: Snapshot, cq: ClusterQueue) -> list[Finding]:
    """Stopped, or inactive and why: the engine's own reading of the spec, then Kueue's condition."""
    if cq.stop_policy not in ("", "None"):
        return [
            Finding(
                STOPPED,
                cq.name,
                cq.name,
                Text("admin.stopped", {"cluster_queue": cq.name, "policy": cq.stop_policy}),
                (Text("admin.fix.stopped", {"cluster_queue": cq.name}),),
            )
        ]
    findings: list[Finding] = []
    flavors = tuple(name for name in cq.flavor_names() if snapshot.flavor(name) is None)
    checks = tuple(name for name, _ in cq.admission_checks if snapshot.admission_check(name) is None)
    if flavors:
        findings.append(_missing(cq, "flavors", flavors))
    if checks:
        findings.append(_missing(cq, "checks", checks))
    active = find_condition(cq.conditions, "Active")
    reason = active.reason if active is not None and active.is_false else ""
    if cq.meta.deleting and not reason:
        reason = "Terminating"
    covered = (flavors and reason == "FlavorNotFound") or (checks and reason == "AdmissionCheckNotFound")
    if reason and not covered:
        message = active.message if active is not None and active.is_false else ""
        fix = _FIX_BY_REASON.get(reason, "admin.fix.inactive")
        findings.append(
            Finding(
                INACTIVE,
                cq.name,
                f"{cq.name}:{reason}",
                Text("admin.inactive.kueue", {"cluster_queue": cq.name, "reason": reason, "message": message or "-"}),
                (Text(fix, {"cluster_queue": cq.name}),),
            )
        )
    return findings


def _cohort_cycles(snapshot: Snapshot) -> dict[str, tuple[str, ...]]:
    """Each cohort in a parent cycle -> the cycle as walked from it ("a", "b", "a")."""
    cycles: dict[str, tuple[str, ...]] = {}
    for cohort in snapshot.cohorts():
        path = [cohort.name]
        current = cohort
        while current.parent and len(path) <= MAX_CYCLE:
            if current.parent in path:
                start = path.index(current.parent)
                loop = (*path[start:], current.parent)
                for member in path[start:]:
                    cycles.setdefault(member, loop)
                break
            parent = snapshot.cohort(current.parent)
            if parent is None:
                break
            path.append(parent.name)
            current = parent
    return cycles


def _orphan_local_queues(snapshot: Snapshot) -> Iterable[tuple[str, str, str]]:
    for namespace in known_namespaces(snapshot):
        for lq in snapshot.local_queues_in(namespace):
            if not lq.cluster_queue or snapshot.cluster_queue(lq.cluster_queue) is None:
                yield namespace, lq.name, lq.cluster_queue


def _query(workload: Workload) -> Query:
    owner = next((o for o in workload.meta.owners if o.controller), None)
    if owner is None:
        return Query(workload.namespace, workload.name, "Workload")
    return Query(workload.namespace, job_name(workload), owner.kind)


def _pending(snapshot: Snapshot, cq: ClusterQueue) -> list[Workload]:
    waiting = [
        w
        for w in snapshot.workloads_in_cluster_queue(cq.name)
        if w.active and not w.finished and not w.is_true("QuotaReserved")
    ]
    return sorted(waiting, key=lambda w: (queue_order_time(w), w.namespace, w.name))


_Starved = dict[tuple[str, str], tuple[Explanation, tuple[str, ...]]]  # (flavor, resource): a job, the borrowers
_Wait = tuple[datetime, Explanation, Outlook]  # since when, the job, its outlook


def _workload_findings(
    snapshot: Snapshot, cq: ClusterQueue, now: datetime, explain: Explains, max_explained: int, longest: int
) -> list[Finding]:
    """The never-fitting jobs (in queue order), then the starved flavor/resources, then the longest waits."""
    findings: list[Finding] = []
    waits: list[_Wait] = []
    starved: _Starved = {}
    for workload in _pending(snapshot, cq)[:max_explained]:
        # No ETA: the view shows none, and a queue's ETA would replay (and calibrate on) its history, in one go.
        explanation, outlook = explain(snapshot, _query(workload), now=now, eta=False)
        if explanation.verdict.never_admitted_as_is:
            job = _job(explanation)
            text = Text("admin.never-fits", {"job": job, "headline": explanation.headline})
            findings.append(Finding(NEVER_FITS, cq.name, job, text, _admin_fixes(explanation, outlook)))
            continue
        if explanation.verdict in _WAITING and outlook.holders is not None:
            _note_starved(cq, explanation, outlook.holders, starved)
        if explanation.verdict.waits_for_admission and explanation.waiting_since is not None:
            waits.append((explanation.waiting_since, explanation, outlook))
    findings += _starved_findings(cq, starved)
    # A long wait is an admin's to fix only when more quota would end it (verified by the what-if); the others
    # are their owners' (told by DM) or time's.
    admin_waits = [wait for wait in sorted(waits, key=_waiting_since) if _quota_fixes(wait[2])]
    findings += [_long_wait(cq, wait, now) for wait in admin_waits[:longest]]
    return findings


def _job(explanation: Explanation) -> str:
    return f"{explanation.job.namespace}/{explanation.job.name}"


def _waiting_since(item: _Wait) -> datetime:
    return item[0]


def _note_starved(cq: ClusterQueue, explanation: Explanation, holders: Holders, starved: _Starved) -> None:
    """Each flavor/resource this waiting job needs that other ClusterQueues of the cohort borrow (the first
    job seen for each)."""
    for contest in holders.contests:
        borrowers = tuple(
            sorted({h.cluster_queue for h in contest.holders if h.borrowing and h.cluster_queue != cq.name})
        )
        if contest.held_in_cohort > 0 and borrowers and (contest.flavor, contest.resource) not in starved:
            starved[(contest.flavor, contest.resource)] = (explanation, borrowers)


def _starved_findings(cq: ClusterQueue, starved: _Starved) -> list[Finding]:
    reclaim = dict(cq.preemption).get("reclaimWithinCohort", "Never")
    fix_key = "admin.fix.starved.reclaim" if reclaim in ("", "Never") else "admin.fix.starved.lending"
    findings = []
    for (flavor, resource), (explanation, borrowers) in sorted(starved.items()):
        names = ", ".join(borrowers)
        params = {"cluster_queue": cq.name, "flavor": flavor, "resource": resource, "borrowers": names}
        text = Text("admin.starved", {**params, "job": _job(explanation)})
        fix = Text(fix_key, {"cluster_queue": cq.name, "borrowers": names})
        findings.append(Finding(STARVED, cq.name, f"{cq.name}:{flavor}:{resource}", text, (fix,)))
    return findings


def _long_wait(cq: ClusterQueue, wait: _Wait, now: datetime) -> Finding:
    since, explanation, outlook = wait
    job = _job(explanation)
    waited = max(0, int((now - since).total_seconds()))
    text = Text("admin.long-wait", {"job": job, "waited_seconds": waited, "headline": explanation.headline})
    return Finding(LONG_WAIT, cq.name, job, text, _admin_fixes(explanation, outlook), since)


def _quota_fixes(outlook: Outlook) -> tuple[Text, ...]:
    """The quota that would admit it (the forecast's what-if, verified); () when more quota would not."""
    if outlook.what_if is not None:
        raised = [c for c in outlook.what_if.changes if c.code == RAISE_QUOTA]
        if raised:
            return tuple(what_if_texts(type(outlook.what_if)(changes=tuple(raised))))
    return ()


def _admin_fixes(explanation: Explanation, outlook: Outlook) -> tuple[Text, ...]:
    """The quota that would admit it, else the engine's own actions."""
    return _quota_fixes(outlook) or tuple(a.text for a in explanation.actions[:2]) or (Text("admin.fix.look"),)


def merged(views: dict[str, AdminView]) -> AdminView:
    """Several clusters' views as one (CLUSTERS): each group named `cluster/ClusterQueue`."""
    if len(views) == 1:
        return next(iter(views.values()))
    groups: list[Group] = []
    for cluster, view in views.items():
        for group in view.groups:
            name = f"{cluster}/{group.cluster_queue}"
            findings = tuple(Finding(f.kind, name, f.subject, f.what, f.fix, f.since) for f in group.findings)
            groups.append(Group(name, group.exists, findings))
    taken = [v.taken_at for v in views.values() if v.taken_at is not None]
    return AdminView(tuple(groups), min(taken) if taken else None)
