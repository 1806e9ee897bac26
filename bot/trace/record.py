"""Kueue's record of a Workload, as steps: its conditions, its requeue backoff, what its messages say and
the state of its admission checks. Kueue's record decides first; the engine's checks come after it."""

from __future__ import annotations

from datetime import UTC

from bot.trace import messages, provisioning
from bot.trace.codes import Outcome
from bot.trace.explanation import Params, Text, named_workload
from bot.trace.model import MAX_EXEC_TIME_LABEL, Condition, Job, Workload
from bot.trace.walk import Walk, seconds_between

BACKOFF_REASONS = frozenset({"PodsReadyTimeout", "AdmissionCheck", "NodeFailures"})
_CONDITIONS = (
    "QuotaReserved",
    "Admitted",
    "Evicted",
    "Requeued",
    "PodsReady",
    "PodsScheduled",  # v0.20: False with WaitForScheduling while required pods are not scheduled
    "WaitingForReplacementPods",
    "BlockedOnPreemptionGates",
)
MAX_FACTS_SHOWN = 6
DRA_NO_FIT_NOTE = "note.dra-no-fit"


_BAD_WHEN_TRUE = frozenset({"Evicted", "WaitingForReplacementPods", "BlockedOnPreemptionGates"})


def _condition_outcome(kind: str, is_true: bool, is_false: bool) -> Outcome:
    good = is_true != (kind in _BAD_WHEN_TRUE)
    if kind == "Requeued" and is_true:
        good = True
    if good:
        return Outcome.PASS
    return Outcome.FAIL if is_false or kind in _BAD_WHEN_TRUE else Outcome.INFO


def _groups(walk: Walk) -> tuple[messages.GroupShape, ...]:
    """The resource groups of the Workload's ClusterQueue, for the classifier."""
    cq = walk.chain.cluster_queue if walk.chain is not None else None
    return messages.group_shapes(
        (group.covered, (flavor.name for flavor in group.flavors)) for group in (cq.resource_groups if cq else ())
    )


def _read_whole(walk: Walk, condition: Condition) -> bool:
    """Whether the record steps (read_record) will say all a QuotaReserved=False message says: then the
    condition's step leaves the message out (every Kueue message shown once)."""
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
        if kind in ("Evicted", "Requeued") and condition.is_true and messages.parse_preemption(message) is not None:
            message = ""  # the preemption's step names the preemptor, its ClusterQueue and why (not UIDs)
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


# Requeued=False reasons Kueue writes (FACTS §3.1: the eviction's reason, a stopped queue's, a deactivation's,
# Inadmissible for DRA errors); any other is a state this bot does not know.
_REQUEUE_FALSE_REASONS = BACKOFF_REASONS | {
    "ClusterQueueStopped",
    "LocalQueueStopped",
    "Inadmissible",
    "Deactivated",
    "InactiveWorkload",
    "Preempted",
}


def unknown_state(workload: Workload, recorded: messages.Classification | None) -> Condition | None:
    """The condition in which Kueue recorded a state this bot does not know: a QuotaReserved=False it cannot
    read (messages.unknown_state), or Requeued=False with a reason of no known kind. None: all is known."""
    if recorded is not None and messages.unknown_state(recorded):
        return workload.condition("QuotaReserved")
    requeued = workload.condition("Requeued")
    if requeued is None or not requeued.is_false or not requeued.reason:
        return None
    known = requeued.reason in _REQUEUE_FALSE_REASONS or requeued.reason.startswith("Deactivated")
    return None if known else requeued


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
    if reason == "AdmissionCheck":
        for check in workload.checks:
            if provisioning.is_provisioning(walk, check):
                provisioning.check_steps(walk, workload, check)
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
        for note in fact.about:  # v0.20 draNoFit: what the count means, which Kueue's message does not say
            if isinstance(note, Text) and note.key == DRA_NO_FIT_NOTE:
                walk.step("conditions", Outcome.INFO, "record.dra-no-fit", note.params)
    if record.preemptions_pending:
        walk.step("conditions", Outcome.INFO, "record.preempting", {"count": record.preemptions_pending})
    evicted = workload.condition("Evicted")
    if evicted is not None and evicted.is_true:
        eviction = messages.parse_eviction(evicted.reason, evicted.message)
        if eviction.preemption is not None:
            _preempted_step(walk, eviction.preemption)
    return record


def _preempted_step(walk: Walk, preemption: messages.Preemption) -> None:
    if preemption.rule is not None:  # v0.20 configurable preemption: the rule, its config and the preemptor
        namespace, _, name = (preemption.preemptor or "").partition("/")
        preemptor = named_workload(namespace, name, name) if namespace and name else None
        params: Params = {"rule": preemption.rule, "config": preemption.config, "preemptor": preemptor}
        walk.step("conditions", Outcome.INFO, "conditions.preempted-by-rule", params)
        return
    walk.step(
        "conditions",
        Outcome.INFO,
        "conditions.preempted",
        {"why": preemption.why, "path": preemption.preemptor_path},
        preemptor_job_uid=preemption.preemptor_job_uid,
    )


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
        if provisioning.is_provisioning(walk, check):
            provisioning.check_steps(walk, workload, check)


# --- maximum execution time and the requeuing limit --------------------------------------------------

MAX_EXEC_EXCEEDED = "MaximumExecutionTimeExceeded"
REQUEUING_LIMIT_EXCEEDED = "RequeuingLimitExceeded"


def execution_time_used(walk: Walk, workload: Workload) -> int | None:
    """Seconds the Workload has run against its maximum execution time: earlier admissions
    (status.accumulatedPastExecutionTimeSeconds) plus the current one (since Admitted=True); Kueue's own sum
    (pkg/controller/core/workload_controller.go:848-851). None when it is not admitted."""
    admitted = workload.condition("Admitted")
    if admitted is None or not admitted.is_true:
        return None
    current = seconds_between(admitted.since, walk.now) or 0
    return (workload.past_execution_seconds or 0) + current


def execution_time_step(walk: Walk, workload: Workload) -> None:
    """An admitted Workload with spec.maximumExecutionTimeSeconds: how long it may still run."""
    limit = workload.maximum_execution_seconds
    used = execution_time_used(walk, workload)
    if limit is None or used is None:
        return
    params: Params = {
        "limit_seconds": limit,
        "limit_value": limit,  # as the user wrote it (seconds), beside the friendly duration
        "used_seconds": used,
        "left_seconds": max(0, limit - used),
    }
    walk.step("workload", Outcome.INFO, "workload.max-exec-time", params, limit=limit, used=used)


def max_exec_deactivation(walk: Walk, workload: Workload, job: Job | None) -> Params:
    """Kueue deactivated the Workload for running longer than spec.maximumExecutionTimeSeconds (set from the
    job's label kueue.x-k8s.io/max-exec-time-seconds, jobframework/utils.go:192-204). On deactivation Kueue
    resets status.accumulatedPastExecutionTimeSeconds (workload_controller.go:858-863, since v0.9): a
    reactivation runs again for the whole limit, from the start. The label may change only while the job is
    suspended (jobframework/validation.go:249-257); a new value makes the Workload differ from the job, so Kueue
    replaces it (reconciler.go:1435, EquivalentToWorkload). Returns the headline's extra parameters."""
    limit = workload.maximum_execution_seconds
    past = workload.past_execution_seconds or 0
    params: Params = {"limit_seconds": limit, "limit_value": limit} if limit is not None else {}
    again = limit is not None and past >= limit  # not reset: a reactivation is deactivated again at once
    walk.step(
        "workload",
        Outcome.FAIL,
        "workload.max-exec-exceeded",
        {"limit_seconds": limit, "limit_value": limit, "label": MAX_EXEC_TIME_LABEL},
        limit=limit,
    )
    if again:
        max_exec_used_up(walk, workload)
    elif limit is not None:
        walk.step("workload", Outcome.INFO, "workload.max-exec-reset", {"limit_seconds": limit})
    kind = job.meta.kind if job is not None else "job"
    name = job.meta.name if job is not None else walk.query.name
    walk.act(
        "raise-max-exec-time",
        {"label": MAX_EXEC_TIME_LABEL, "kind": kind.lower(), "name": name, "namespace": workload.namespace},
    )
    return params


def max_exec_used_up(walk: Walk, workload: Workload) -> None:
    """A deactivated Workload whose earlier admissions used up its maximum execution time: reactivated as it
    is, Kueue deactivates it again at once (the remaining time is already <= 0, workload_controller.go:848-855)."""
    limit = workload.maximum_execution_seconds
    past = workload.past_execution_seconds or 0
    if limit is not None and past >= limit:
        walk.step("workload", Outcome.FAIL, "workload.max-exec-again", {"used_seconds": past, "limit_seconds": limit})


def requeuing_limit_steps(walk: Walk, workload: Workload) -> None:
    """Deactivated after too many evictions for the PodsReady timeout (waitForPodsReady.requeuingStrategy
    .backoffLimitCount, workload_controller.go:1215-1229). Kueue clears the requeue state on deactivation
    (:616-628), so a reactivation starts a fresh count; the pods' own failures are the cause to fix."""
    count = workload.requeue.count if workload.requeue and workload.requeue.count else None
    walk.step("workload", Outcome.FAIL, "workload.requeuing-limit", {"count": count})
    walk.act("check-pods-ready")
