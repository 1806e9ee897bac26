"""Kueue's record of a Workload, as steps: its conditions, its requeue backoff, what its messages say and
the state of its admission checks. Kueue's record decides first; the engine's checks come after it."""

from __future__ import annotations

from datetime import UTC

from bot.trace import messages
from bot.trace.codes import Outcome
from bot.trace.explanation import Params
from bot.trace.model import Condition, Workload
from bot.trace.walk import Walk, seconds_between

BACKOFF_REASONS = frozenset({"PodsReadyTimeout", "AdmissionCheck", "NodeFailures"})
_CONDITIONS = ("QuotaReserved", "Admitted", "Evicted", "Requeued", "PodsReady")
MAX_FACTS_SHOWN = 6


def _condition_outcome(kind: str, is_true: bool, is_false: bool) -> Outcome:
    good = is_true != (kind == "Evicted")
    if kind == "Requeued" and is_true:
        good = True
    if good:
        return Outcome.PASS
    return Outcome.FAIL if is_false or kind == "Evicted" else Outcome.INFO


def _groups(walk: Walk) -> tuple[messages.GroupShape, ...]:
    """The resource groups of the Workload's ClusterQueue, for the classifier (issue 11 bug c)."""
    cq = walk.chain.cluster_queue if walk.chain is not None else None
    return messages.group_shapes(
        (group.covered, (flavor.name for flavor in group.flavors)) for group in (cq.resource_groups if cq else ())
    )


def _read_whole(walk: Walk, condition: Condition) -> bool:
    """Whether the record steps (read_record) will say all a QuotaReserved=False message says: then the
    condition's step leaves the message out (issue 11: every Kueue message shown once)."""
    if not condition.is_false or not condition.message:
        return False
    record = messages.classify_quota_reserved(condition.reason, condition.message, _groups(walk))
    return (
        bool(record.facts)
        and not record.truncated
        and len(record.facts) <= MAX_FACTS_SHOWN
        and all(fact.cause != messages.Cause.UNKNOWN for fact in record.facts)
    )


def _says_reserved(condition: Condition) -> bool:
    """Kueue's "Quota reserved in ClusterQueue X": the engine's cluster-queue.reserved step says the same."""
    return condition.is_true and condition.message.startswith("Quota reserved in ClusterQueue")


def condition_steps(walk: Walk, workload: Workload) -> None:
    for kind in _CONDITIONS:
        condition = workload.condition(kind)
        if condition is None or (kind == "PodsReady" and not workload.admitted):
            continue
        message = condition.message
        if kind == "QuotaReserved" and (_read_whole(walk, condition) or _says_reserved(condition)):
            message = ""  # the record's steps, or the reserved step, say it
        walk.step(
            "conditions",
            _condition_outcome(kind, condition.is_true, condition.is_false),
            "conditions.condition",
            {"type": kind, "status": condition.status, "reason": condition.reason, "message": message},
            type=kind,
            status=condition.status,
            reason=condition.reason,
        )
    if workload.condition("QuotaReserved") is None:
        walk.step("conditions", Outcome.INFO, "conditions.none-yet")


def _backoff_reason(requeued: Condition | None, evicted: Condition | None) -> str:
    if requeued is not None and requeued.reason:
        return requeued.reason
    return evicted.reason if evicted is not None else ""


def backoff(walk: Walk, workload: Workload) -> Params | None:
    """The headline parameters of a Workload waiting for its requeue backoff; None when it does not."""
    requeued = workload.condition("Requeued")
    requeue_at = workload.requeue.requeue_at if workload.requeue else None
    if requeue_at is not None and requeue_at <= walk.now:
        return None  # the backoff is over
    if requeue_at is None and (requeued is None or not requeued.is_false):
        return None  # no backoff at all
    evicted = workload.condition("Evicted")
    reason = _backoff_reason(requeued, evicted)
    if reason and reason not in BACKOFF_REASONS and requeue_at is None:
        return None  # Requeued=False for a stopped queue or a deactivation: not a backoff
    count = workload.requeue.count if workload.requeue and workload.requeue.count else 0
    params: dict[str, str | int | None] = {"reason": reason, "count": count}
    if requeue_at is not None:
        params["until"] = requeue_at.astimezone(UTC).strftime("%H:%M:%S UTC")
        params["in_seconds"] = seconds_between(walk.now, requeue_at) or 0
        walk.step("conditions", Outcome.FAIL, "conditions.backoff-until", params)
    else:
        walk.step("conditions", Outcome.FAIL, "conditions.backoff", params)
    if evicted is not None and evicted.message:
        walk.step("conditions", Outcome.INFO, "conditions.evicted-because", {"message": evicted.message})
    if reason == "PodsReadyTimeout":
        walk.act("check-pods-ready")
    walk.act("wait-backoff", params)
    return params


def _fact_params(fact: messages.Fact) -> Params:
    values = {
        "pod_set": fact.pod_set,
        "resource": fact.resource,
        "flavor": fact.flavor,
        "needed": fact.needed,
        "requested": fact.requested,
        "maximum": fact.maximum,
        "taint": fact.taint,
        "queue": fact.queue,
        "topology": fact.topology,
        "detail": fact.said,
        "text": fact.text,
    }
    return {key: value for key, value in values.items() if value}


def read_record(walk: Walk, workload: Workload) -> messages.Classification | None:
    """What Kueue's QuotaReserved=False record says, as steps; None when there is no such record."""
    condition = workload.condition("QuotaReserved")
    if condition is None or not condition.is_false:
        return None
    record = messages.classify_quota_reserved(condition.reason, condition.message, _groups(walk))
    for fact in record.facts[:MAX_FACTS_SHOWN]:
        if fact.cause == messages.Cause.UNKNOWN:
            continue
        walk.step("conditions", Outcome.FAIL, f"record.{fact.cause.value}", _fact_params(fact), cause=fact.cause.value)
    if record.preemptions_pending:
        walk.step("conditions", Outcome.INFO, "record.preempting", {"count": record.preemptions_pending})
    evicted = workload.condition("Evicted")
    if evicted is not None and evicted.is_true:
        eviction = messages.parse_eviction(evicted.reason, evicted.message)
        if eviction.preemption is not None:
            walk.step(
                "conditions",
                Outcome.INFO,
                "conditions.preempted",
                {"why": eviction.preemption.why, "path": eviction.preemption.preemptor_path},
                preemptor_job_uid=eviction.preemption.preemptor_job_uid,
            )
    return record


def check_steps(walk: Walk, workload: Workload) -> None:
    for check in workload.checks:
        known = walk.snapshot.admission_check(check.name)
        outcome = {"Ready": Outcome.PASS, "Rejected": Outcome.FAIL, "Retry": Outcome.FAIL}.get(
            check.state, Outcome.INFO
        )
        params: dict[str, str | int | None] = {
            "check": check.name,
            "state": check.state,
            "message": check.message,
            "controller": known.controller if known else "",
        }
        age = seconds_between(check.since, walk.now)
        if age is not None:
            params["age_seconds"] = age
        walk.step("admission-checks", outcome, "admission-checks.check", params, state=check.state)
