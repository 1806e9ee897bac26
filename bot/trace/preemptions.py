"""Preemption in the answer: a job being preempted (not "running"), a job preempted and requeued (who, where,
why, when), a job for which Kueue is preempting others (the victims and their ClusterQueue, not its own), and
the ClusterQueues that borrow what a job waits for when its ClusterQueue may not reclaim it (bot.trace.parties
finds them)."""

from __future__ import annotations

from dataclasses import replace

from bot.trace import parties
from bot.trace.codes import Outcome
from bot.trace.explanation import Explanation, Params, Text, Value
from bot.trace.model import ClusterQueue, Workload
from bot.trace.quantity import human
from bot.trace.walk import Walk, present

Mutable = dict[str, Value | None]


def _preemptor_params(walk: Walk, record: parties.Preempted) -> Mutable:
    """Who preempted, in which ClusterQueue, why and when."""
    params: Mutable = {"since": parties.clock(record.since), "why": record.why}
    found = parties.preemptor(walk.snapshot, record)
    queue = parties.queue_of(found) if found is not None else ""
    if found is not None and not queue:
        chain = walk.snapshot.local_queue(found.namespace, found.queue_name)
        queue = chain.cluster_queue if chain is not None else ""
    params["preemptor_queue"] = queue or record.preemptor_queue or None
    if found is not None:
        params["preemptor"] = parties.named(found)
    return params


def being_preempted(walk: Walk, workload: Workload) -> tuple[Mutable, parties.Preempted] | None:
    """A Workload that still holds its quota while Kueue preempts it (Evicted=True, reason Preempted): the
    step, the advice and the headline's parameters (who, where, why, and where it will stand once requeued)."""
    record = parties.preempted(workload) if workload.holds_quota else None
    if record is None:
        return None
    params = _preemptor_params(walk, record)
    walk.step("conditions", Outcome.FAIL, "conditions.being-preempted", params)
    cq = parties.queue_of(workload)
    headline: Mutable = {
        **params,
        "cluster_queue": cq or None,
        "position": parties.standing(walk.snapshot, cq, workload),
    }
    walk.act("wait-requeue")
    return headline, record


def after_preemption(walk: Walk, workload: Workload) -> Mutable | None:
    """A Workload Kueue preempted and requeued (it holds no quota, its Evicted condition still says Preempted):
    a step, and the parameters of the headline that says so before the rest of the answer."""
    record = parties.preempted(workload) if not workload.holds_quota else None
    if record is None:
        return None
    params = _preemptor_params(walk, record)
    said = next((i for i, step in enumerate(walk.steps) if step.code == "conditions.preempted"), None)
    walk.step("conditions", Outcome.INFO, "conditions.preempted", {**params, "requeued": Text("fragment.requeued")})
    if said is not None:  # Kueue's path alone ("preemptor: /research-cq") gives way to the party named
        walk.steps[said] = walk.steps.pop()
    return params


def headline_after_preemption(walk: Walk, explanation: Explanation, params: Params) -> Explanation:
    """The answer's headline, said after the preemption that put the job back in its queue (the position said
    there, not again in the rest)."""
    position = walk.position.cluster_queue if walk.position is not None else None
    then = explanation.headline
    if position is not None:
        then = Text(then.key, {k: v for k, v in then.params.items() if k not in ("position", "ahead")})
    values = present({**params, "job": walk.job_label, "position": position, "then": then})
    return replace(explanation, headline=Text("headline.after-preemption", values))


def victims(walk: Walk, workload: Workload, cq: ClusterQueue) -> Params:
    """The workloads Kueue is preempting for this one (waiting in `cq`), with their ClusterQueue(s) and why: a
    step, and the headline's parameters (empty when none is known)."""
    found = parties.victims(walk.snapshot, workload, cq)
    if not found:
        return {}
    queues = sorted({parties.queue_of(victim) for victim, _ in found} - {""})
    reasons = {record.reason for _, record in found}
    why = found[0][1].why if len(reasons) == 1 else None
    params: Mutable = {
        "victims": parties.listing([parties.named(victim) for victim, _ in found]),
        "victim_queues": ", ".join(queues) or None,
        "why": why,
    }
    walk.step("conditions", Outcome.INFO, "conditions.preempting-victims", params, count=len(found))
    return present(params)


def borrowed(walk: Walk, cq: ClusterQueue, flavor: str, resource: str) -> Params:
    """The ClusterQueues of the cohort that borrow (flavor, resource) now, and whether `cq` may reclaim it: a
    step, and the headline's parameters when its policy keeps it from reclaiming (reclaimWithinCohort Never)."""
    found = parties.borrowers(walk.snapshot, cq, flavor, resource)
    if not found:
        return {}
    names = [
        Text("fragment.borrower", {"cluster_queue": name, "amount": human(amount, resource)}) for name, amount in found
    ]
    policy = parties.reclaim_policy(cq)
    params: Mutable = {
        "resource": resource,
        "flavor": flavor,
        "borrowers": parties.listing(names),
        "cohort": cq.cohort,
        "cluster_queue": cq.name,
        "policy": policy,
    }
    walk.step("quota", Outcome.INFO, "quota.borrowed-by", params, borrowers=[name for name, _ in found])
    last = max((i for i, step in enumerate(walk.steps[:-1]) if step.step == "quota"), default=None)
    if last is not None:  # beside the quota it is about
        walk.steps.insert(last + 1, walk.steps.pop())
    return {"borrowers": params["borrowers"], "cohort": cq.cohort} if policy == parties.NEVER else {}
