"""The admission trace: `explain(snapshot, query, now=...) -> Explanation`. Pure: no I/O, no clock.

It walks the admission path as Kueue does (FACTS §11): find the Workload; read Kueue's record
(conditions, reasons, messages, admission checks, requeue state); compare the demand with what was
assigned; follow the LocalQueue to its ClusterQueue; weigh the quota of each flavor within the cohort;
place the Workload in its queue; and, once admitted, hand over to the scheduler's view of the pods.
Kueue's own record decides first; the engine's checks decide where Kueue has recorded nothing.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from bot.trace import checks, messages
from bot.trace.checks import Fit, QueueChain, QueueFit
from bot.trace.codes import Outcome, Verdict
from bot.trace.demand import PODS, assigned, pod_requests, templates_demand, workload_demand
from bot.trace.explanation import LOWER_BOUND, Action, Ahead, Explanation, JobRef, Params, Position, Step, Text
from bot.trace.model import (
    ADMISSION_GATED_BY,
    NOTIFY_ANNOTATION,
    NOTIFY_EMAIL_ANNOTATION,
    QUEUE_NAME_LABEL,
    Job,
    Pod,
    PodSet,
    Workload,
    job_name,
)
from bot.trace.quantity import Quantities, human
from bot.trace.resolve import WORKLOAD_KIND, Resolution, other_namespaces, resolve, similar_jobs
from bot.trace.snapshot import Snapshot

MAX_AHEAD_LISTED = 10
MAX_AHEAD_DETAILED = 200
_BACKOFF_REASONS = frozenset({"PodsReadyTimeout", "AdmissionCheck", "NodeFailures"})
_KUEUE_GATES = ("kueue.x-k8s.io/admission", "kueue.x-k8s.io/topology")


@dataclass(frozen=True)
class Query:
    namespace: str
    name: str
    kind: str | None = "Job"  # None: any kind


def amounts(values: Quantities) -> str:
    """ "cpu 3, memory 96Gi, pods 3": resources sorted, pods last."""
    names = sorted(values, key=lambda name: (name == PODS, name))
    return ", ".join(f"{name} {human(values[name], name)}" for name in names)


def _queued_since(workload: Workload) -> datetime | None:
    """When the last wait began: the last eviction (Evicted, True or flipped back to False on re-admission),
    else the creation."""
    evicted = workload.condition("Evicted")
    if evicted is not None and evicted.since and (evicted.is_true or evicted.reason == "QuotaReserved"):
        return evicted.since
    return workload.meta.created


def _admitted_at(workload: Workload) -> datetime | None:
    admitted = workload.condition("Admitted")
    return admitted.since if admitted is not None and admitted.is_true else None


def present(params: Params | None) -> dict[str, str | int]:
    """The parameters that carry a value: a sentence leaves out what is not known (the catalogue has a
    shorter alternative), it never shows a placeholder."""
    return {key: value for key, value in (params or {}).items() if value is not None and value not in ("", "-")}


def seconds_between(start: datetime | None, end: datetime) -> int | None:
    if start is None:
        return None
    return max(0, int((end - start).total_seconds()))


def explain(snapshot: Snapshot, query: Query, *, now: datetime) -> Explanation:
    """Explain why the job named by `query` is (or is not) pending, as of `now`."""
    return _Trace(snapshot, query, now).run()


class _Trace:
    def __init__(self, snapshot: Snapshot, query: Query, now: datetime) -> None:
        self.snapshot = snapshot
        self.query = query
        self.now = now
        self.steps: list[Step] = []
        self.actions: list[Action] = []
        self.position: Position | None = None
        self.demand: Quantities | None = None
        self.chain: QueueChain | None = None
        self.fit: QueueFit | None = None
        self.job_label = f"{query.namespace}/{query.name}"

    # --- small helpers ------------------------------------------------------------------------------

    def step(self, step: str, outcome: Outcome, code: str, params: Params | None = None, **data: object) -> None:
        self.steps.append(Step(step, outcome, code, Text(code, present(params)), data))

    def act(self, code: str, params: Params | None = None, **data: object) -> None:
        values = present(params)
        if all(action.code != code or action.text.params != values for action in self.actions):
            self.actions.append(Action(code, Text(f"action.{code}", values), data))

    def result(
        self, verdict: Verdict, headline: Params, *, workload: Workload | None = None, job: Job | None = None
    ) -> Explanation:
        kind = job.meta.kind if job is not None else (self.query.kind or "Job")
        if kind == WORKLOAD_KIND and workload is not None:
            owner = next((o for o in workload.meta.owners if o.controller), None) or next(
                iter(workload.meta.owners), None
            )
            kind = owner.kind if owner is not None else WORKLOAD_KIND
        owners = self._notify_owners(job, workload)
        return Explanation(
            job=JobRef(kind, self.query.namespace, self.query.name),
            workload=(workload.namespace, workload.name) if workload else None,
            verdict=verdict,
            headline=Text(f"headline.{verdict.value}", present({"job": self.job_label, **headline})),
            steps=tuple(self.steps),
            actions=tuple(self.actions),
            demand=self.demand,
            assigned=assigned(workload) if workload is not None and workload.admission is not None else None,
            position=self.position,
            local_queue=workload.queue_name if workload else (job.queue_name if job else ""),
            cluster_queue=self.chain.cluster_queue_name if self.chain else "",
            waiting_since=self._waiting_since(workload),
            queued_since=_queued_since(workload) if workload is not None else None,
            admitted_at=_admitted_at(workload) if workload is not None else None,
            snapshot_taken_at=self.snapshot.taken_at,
            owners=owners,
        )

    @staticmethod
    def _notify_owners(job: Job | None, workload: Workload | None) -> tuple[str, ...]:
        found: list[str] = []
        for meta in (job.meta if job else None, workload.meta if workload else None):
            if meta is None:
                continue
            for key in (NOTIFY_ANNOTATION, NOTIFY_EMAIL_ANNOTATION):
                value = meta.annotations.get(key, "").strip()
                if value and value not in found:
                    found.append(value)
        return tuple(found)

    @staticmethod
    def _waiting_since(workload: Workload | None) -> datetime | None:
        if workload is None or workload.admitted or workload.finished:
            return None
        return _queued_since(workload)

    # --- the walk -----------------------------------------------------------------------------------

    def run(self) -> Explanation:
        found = resolve(self.snapshot, self.query.namespace, self.query.name, self.query.kind)
        if found.job is None and found.workload is None:
            return self.job_not_found()
        if found.workload is None:
            assert found.job is not None
            return self.no_workload(found.job)
        return self.with_workload(found)

    def job_not_found(self) -> Explanation:
        kind = self.query.kind or "job"
        similar = similar_jobs(self.snapshot, self.query.namespace, self.query.name, self.query.kind)
        elsewhere = other_namespaces(self.snapshot, self.query.namespace, self.query.name, self.query.kind)
        params: dict[str, str | int | None] = {"kind": kind, "namespace": self.query.namespace, "name": self.query.name}
        self.step("job", Outcome.FAIL, "job.not-found", params)
        if similar:
            self.act("did-you-mean", {"names": ", ".join(similar)}, names=similar)
        if elsewhere:
            self.act("other-namespace", {"namespaces": ", ".join(elsewhere), "name": self.query.name})
        self.act("check-name", {"namespace": self.query.namespace})
        return self.result(Verdict.JOB_NOT_FOUND, params)

    # A job without a Workload: not managed, or Kueue could not create its Workload.
    def no_workload(self, job: Job) -> Explanation:
        namespace = job.meta.namespace or ""
        self.demand = templates_demand((t.template, t.count) for t in job.templates) or None
        self.step("job", Outcome.PASS, "job.found", {"kind": job.meta.kind, "job": self.job_label})
        queue = job.queue_name
        queues = sorted(lq.name for lq in self.snapshot.local_queues_in(namespace))
        if not queue:
            self.step("workload", Outcome.FAIL, "workload.not-managed", {"label": QUEUE_NAME_LABEL})
            if job.suspended is False or job.suspended is None:
                self.step("scheduling", Outcome.INFO, "scheduling.not-held-by-kueue", {"kind": job.meta.kind})
            if queues:
                self.act("add-queue-label", {"label": QUEUE_NAME_LABEL, "queues": ", ".join(queues)}, queues=queues)
            else:
                self.act("ask-admin-local-queue", {"namespace": namespace})
            return self.result(Verdict.NOT_MANAGED, {"label": QUEUE_NAME_LABEL}, job=job)
        self.step("workload", Outcome.FAIL, "workload.missing", {"queue": queue})
        for event in self._job_events(job):
            self.step("workload", Outcome.INFO, "workload.event", {"reason": event[0], "message": event[1]})
        if self.snapshot.local_queue(namespace, queue) is None:
            self._local_queue_missing_step(namespace, queue, queues)
        self.act("ask-admin-kueue", {"kind": job.meta.kind})
        return self.result(Verdict.WORKLOAD_MISSING, {"queue": queue}, job=job)

    def _job_events(self, job: Job) -> list[tuple[str, str]]:
        namespace = job.meta.namespace or ""
        return [
            (event.reason, event.message)
            for event in self.snapshot.events_about(namespace, job.meta.kind, job.meta.name)
            if event.type == "Warning"
        ][-3:]

    def _local_queue_missing_step(self, namespace: str, queue: str, queues: Sequence[str]) -> None:
        self.step(
            "local-queue",
            Outcome.FAIL,
            "local-queue.missing",
            {"queue": queue, "namespace": namespace, "queues": ", ".join(queues)},
            existing=list(queues),
        )
        close = difflib.get_close_matches(queue, list(queues), n=1, cutoff=0.3)
        if queues:
            self.act(
                "fix-queue-name",
                {"label": QUEUE_NAME_LABEL, "queue": close[0] if close else queues[0], "queues": ", ".join(queues)},
            )
        self.act("ask-admin-local-queue", {"namespace": namespace})

    # --- with a Workload ----------------------------------------------------------------------------

    def with_workload(self, found: Resolution) -> Explanation:
        workload = found.workload
        assert workload is not None
        job = found.job
        self._workload_step(found, workload)
        self.demand = workload_demand(workload)
        self._demand_step(workload)
        if workload.finished:
            finished = workload.condition("Finished")
            reason = finished.reason if finished else ""
            self.step("conditions", Outcome.INFO, "conditions.finished", {"reason": reason})
            return self.result(Verdict.FINISHED, {"reason": reason}, workload=workload, job=job)
        self._condition_steps(workload)
        self.chain = checks.queue_chain(
            self.snapshot,
            workload.namespace,
            workload.queue_name,
            workload.admission.cluster_queue if workload.admission and workload.holds_quota else "",
        )
        if not workload.active:
            return self.deactivated(workload, job)
        if workload.admitted:
            return self.admitted(workload, job)
        if workload.is_true("QuotaReserved"):
            return self.quota_reserved(workload, job)
        return self.pending(workload, job)

    def _workload_step(self, found: Resolution, workload: Workload) -> None:
        params: dict[str, str | int | None] = {"workload": workload.name, "how": found.how or "name"}
        age = seconds_between(workload.meta.created, self.now)
        if age is not None:
            params["age_seconds"] = age
        if found.managed_through is not None:
            params["parent"] = f"{found.managed_through.meta.kind} {found.managed_through.meta.name}"
            self.step("workload", Outcome.PASS, "workload.found-through-parent", params, how=found.how)
        else:
            self.step("workload", Outcome.PASS, "workload.found", params, how=found.how)
        if found.siblings:
            self.step("workload", Outcome.INFO, "workload.siblings", {"count": len(found.siblings)})

    def _demand_step(self, workload: Workload) -> None:
        assert self.demand is not None
        per_set = [
            (pod_set.name, pod_set.count, amounts(self._per_pod(pod_set)))
            for pod_set in workload.pod_sets
            if pod_set.count
        ]
        shape = "; ".join(f"{name}: {count} × ({per_pod})" for name, count, per_pod in per_set)
        self.step(
            "demand",
            Outcome.INFO,
            "demand.total",
            {"total": amounts(self.demand), "shape": shape},
            demand={k: str(v) for k, v in self.demand.items()},
        )
        if workload.admission is not None and workload.holds_quota:
            given = assigned(workload)
            text = "; ".join(f"{flavor or '-'}: {amounts(values)}" for flavor, values in given.items())
            self.step(
                "demand",
                Outcome.PASS,
                "demand.assigned",
                {"cluster_queue": workload.admission.cluster_queue, "assigned": text},
            )

    @staticmethod
    def _per_pod(pod_set: PodSet) -> dict[str, Decimal]:
        return pod_requests(pod_set.template)

    def _condition_steps(self, workload: Workload) -> None:
        for kind in ("QuotaReserved", "Admitted", "Evicted", "Requeued", "PodsReady"):
            condition = workload.condition(kind)
            if condition is None:
                continue
            if kind == "PodsReady" and not workload.admitted:
                continue
            good = condition.is_true != (kind == "Evicted")
            if kind == "Requeued" and condition.is_true:
                good = True
            outcome = (
                Outcome.PASS if good else (Outcome.FAIL if condition.is_false or kind == "Evicted" else Outcome.INFO)
            )
            self.step(
                "conditions",
                outcome,
                "conditions.condition",
                {
                    "type": kind,
                    "status": condition.status,
                    "reason": condition.reason,
                    "message": condition.message,
                },
                type=kind,
                status=condition.status,
                reason=condition.reason,
            )
        if workload.condition("QuotaReserved") is None:
            self.step("conditions", Outcome.INFO, "conditions.none-yet")

    # --- deactivated, admitted, reserved ------------------------------------------------------------

    def deactivated(self, workload: Workload, job: Job | None) -> Explanation:
        evicted = workload.condition("Evicted")
        reason = evicted.reason if evicted is not None else ""
        message = evicted.message if evicted is not None else ""
        eviction = messages.parse_eviction(reason, message)
        rejected = [check for check in workload.checks if check.state == "Rejected"]
        if rejected or eviction.underlying == "AdmissionCheck" or reason == "DeactivatedDueToAdmissionCheck":
            names = [check.name for check in rejected] or [name for name, _, _ in eviction.checks]
            self._check_steps(workload)
            self.act("fix-and-resubmit")
            return self.result(
                Verdict.ADMISSION_CHECK_REJECTED, {"checks": ", ".join(names)}, workload=workload, job=job
            )
        self.step(
            "workload",
            Outcome.FAIL,
            "workload.deactivated",
            {"reason": eviction.underlying or reason, "message": message},
        )
        self.act("reactivate", {"namespace": workload.namespace, "workload": workload.name})
        return self.result(
            Verdict.DEACTIVATED,
            {"reason": eviction.underlying or reason or "spec.active=false"},
            workload=workload,
            job=job,
        )

    def admitted(self, workload: Workload, job: Job | None) -> Explanation:
        cq = (
            workload.admission.cluster_queue
            if workload.admission
            else self.chain.cluster_queue_name
            if self.chain
            else ""
        )
        self.step("cluster-queue", Outcome.PASS, "cluster-queue.admitted", {"cluster_queue": cq})
        if job is None:
            return self.result(Verdict.RUNNING, {"cluster_queue": cq}, workload=workload, job=job)
        pods = self._pods_of(job, workload)
        waiting = [pod for pod in pods if pod.phase == "Pending" and not pod.node_name]
        self.step(
            "scheduling",
            Outcome.PASS if not waiting else Outcome.FAIL,
            "scheduling.pods",
            {
                "total": len(pods),
                "running": sum(1 for p in pods if p.phase == "Running"),
                "pending": len(waiting),
            },
        )
        if not waiting:
            return self.result(Verdict.RUNNING, {"cluster_queue": cq}, workload=workload, job=job)
        first_reason = ""
        for pod in waiting[:3]:
            gates = [gate for gate in pod.template.scheduling_gates if gate]
            if gates:
                self.step(
                    "scheduling",
                    Outcome.FAIL,
                    "scheduling.gated",
                    {"pod": pod.meta.name, "gates": ", ".join(gates)},
                    kueue_gate=any(g in _KUEUE_GATES for g in gates),
                )
                first_reason = first_reason or ", ".join(gates)
                continue
            message = self._scheduling_message(pod)
            if message:
                self.step("scheduling", Outcome.FAIL, "scheduling.failed", {"pod": pod.meta.name, "message": message})
                first_reason = first_reason or message
            else:
                self.step("scheduling", Outcome.INFO, "scheduling.waiting", {"pod": pod.meta.name})
        flavors = sorted(
            {f for a in (workload.admission.assignments if workload.admission else ()) for f in a.flavors.values()}
        )
        for flavor_name in flavors:
            flavor = self.snapshot.flavor(flavor_name)
            if flavor is not None and flavor.node_labels:
                labels = ", ".join(f"{k}={v}" for k, v in sorted(flavor.node_labels.items()))
                matching = [
                    n
                    for n in self.snapshot.nodes()
                    if all(n.meta.labels.get(k) == v for k, v in flavor.node_labels.items())
                ]
                self.step(
                    "scheduling",
                    Outcome.INFO,
                    "scheduling.flavor-nodes",
                    {"flavor": flavor_name, "labels": labels, "nodes": len(matching)},
                    known_nodes=len(self.snapshot.nodes()),
                )
        self.act("check-scheduler", {"namespace": job.meta.namespace or "", "pod": waiting[0].meta.name})
        self.act("ask-admin-nodes")
        return self.result(
            Verdict.PODS_PENDING,
            {"pending": len(waiting), "reason": first_reason},
            workload=workload,
            job=job,
        )

    def _scheduling_message(self, pod: Pod) -> str:
        events = [
            e
            for e in self.snapshot.events_about(pod.meta.namespace or "", "Pod", pod.meta.name)
            if e.reason in ("FailedScheduling", "NotTriggerScaleUp", "FailedCreate")
        ]
        if events:
            return events[-1].message
        scheduled = pod.condition("PodScheduled")
        if scheduled is not None and scheduled.is_false and scheduled.message:
            return scheduled.message
        return ""

    def _pods_of(self, job: Job, workload: Workload) -> list[Pod]:
        namespace = job.meta.namespace or ""
        owners = {job.meta.uid} if job.meta.uid else set()
        jobs = self.snapshot.jobs_in(namespace)
        changed = True
        while changed:  # children of children: a JobSet's Jobs, a RayJob's RayCluster
            changed = False
            for child in jobs:
                if child.meta.uid and child.meta.uid not in owners and any(o.uid in owners for o in child.meta.owners):
                    owners.add(child.meta.uid)
                    changed = True
        pods = []
        for pod in self.snapshot.pods_in(namespace):
            labels = pod.meta.labels
            if (
                (job.meta.kind == "Pod" and pod.meta.uid == job.meta.uid)
                or any(o.uid in owners for o in pod.meta.owners)
                or labels.get("kueue.x-k8s.io/pod-group-name") == workload.name
                or (job.meta.kind == "Job" and labels.get("batch.kubernetes.io/job-name") == job.meta.name)
            ):
                pods.append(pod)
        return pods

    def quota_reserved(self, workload: Workload, job: Job | None) -> Explanation:
        cq = workload.admission.cluster_queue if workload.admission else ""
        self.step("cluster-queue", Outcome.PASS, "cluster-queue.reserved", {"cluster_queue": cq})
        self._check_steps(workload)
        rejected = [c.name for c in workload.checks if c.state == "Rejected"]
        if rejected:
            self.act("fix-and-resubmit")
            return self.result(
                Verdict.ADMISSION_CHECK_REJECTED, {"checks": ", ".join(rejected)}, workload=workload, job=job
            )
        waiting = [c for c in workload.checks if c.state != "Ready"]
        delayed = [
            a.name
            for a in (workload.admission.assignments if workload.admission else ())
            if a.delayed_topology == "Pending"
        ]
        if waiting or delayed:
            names = [c.name for c in waiting] or ["topology"]
            message = next((c.message for c in waiting if c.message), "")
            self.act("wait-for-checks", {"checks": ", ".join(names)})
            return self.result(
                Verdict.ADMISSION_CHECKS_PENDING,
                {"checks": ", ".join(names), "message": message, "cluster_queue": cq},
                workload=workload,
                job=job,
            )
        self.act("wait")
        return self.result(Verdict.NOT_YET_EVALUATED, {"cluster_queue": cq}, workload=workload, job=job)

    def _check_steps(self, workload: Workload) -> None:
        controllers = {}
        for check in workload.checks:
            known = self.snapshot.admission_check(check.name)
            controllers[check.name] = known.controller if known else ""
        for check in workload.checks:
            outcome = {"Ready": Outcome.PASS, "Rejected": Outcome.FAIL, "Retry": Outcome.FAIL}.get(
                check.state, Outcome.INFO
            )
            age = seconds_between(check.since, self.now)
            params: dict[str, str | int | None] = {
                "check": check.name,
                "state": check.state,
                "message": check.message,
                "controller": controllers.get(check.name),
            }
            if age is not None:
                params["age_seconds"] = age
            self.step("admission-checks", outcome, "admission-checks.check", params, state=check.state)

    # --- pending: no quota reserved -----------------------------------------------------------------

    def pending(self, workload: Workload, job: Job | None) -> Explanation:
        backoff = self._backoff(workload)
        if backoff is not None:
            return self.result(Verdict.REQUEUE_BACKOFF, backoff, workload=workload, job=job)
        gate = workload.meta.annotations.get(ADMISSION_GATED_BY, "").strip()
        if gate:
            self.step("workload", Outcome.FAIL, "workload.admission-gated", {"gates": gate})
            self.act("ask-gate-owner", {"gates": gate})
            return self.result(Verdict.ADMISSION_GATED, {"gates": gate}, workload=workload, job=job)

        record = self._record(workload)
        own = self._queue_checks(workload)
        verdict = self._decide(record, own)
        self._position(workload, verdict)
        headline = self._headline_params(workload, verdict, record)
        self._advice(workload, verdict, record)
        return self.result(verdict, headline, workload=workload, job=job)

    def _backoff(self, workload: Workload) -> dict[str, str | int | None] | None:
        requeued = workload.condition("Requeued")
        requeue_at = workload.requeue.requeue_at if workload.requeue else None
        waiting = requeued is not None and requeued.is_false
        if requeue_at is not None and requeue_at > self.now:
            waiting = True
        if not waiting or (requeue_at is not None and requeue_at <= self.now):
            return None
        evicted = workload.condition("Evicted")
        reason = (requeued.reason if requeued is not None and requeued.reason else "") or (
            evicted.reason if evicted is not None else ""
        )
        if reason and reason not in _BACKOFF_REASONS and requeue_at is None:
            return None  # Requeued=False for a stopped queue or a deactivation: not a backoff
        count = workload.requeue.count if workload.requeue and workload.requeue.count else 0
        params: dict[str, str | int | None] = {"reason": reason, "count": count}
        if requeue_at is not None:
            params["until"] = requeue_at.astimezone(UTC).strftime("%H:%M:%S UTC")
            params["in_seconds"] = seconds_between(self.now, requeue_at) or 0
            self.step("conditions", Outcome.FAIL, "conditions.backoff-until", params)
        else:
            self.step("conditions", Outcome.FAIL, "conditions.backoff", params)
        if evicted is not None and evicted.message:
            self.step("conditions", Outcome.INFO, "conditions.evicted-because", {"message": evicted.message})
        if reason == "PodsReadyTimeout":
            self.act("check-pods-ready")
        self.act("wait-backoff", params)
        return params

    def _record(self, workload: Workload) -> messages.Classification | None:
        condition = workload.condition("QuotaReserved")
        if condition is None or not condition.is_false:
            return None
        record = messages.classify_quota_reserved(condition.reason, condition.message)
        for fact in record.facts[:6]:
            if fact.cause == messages.Cause.UNKNOWN:
                continue
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
                "detail": fact.detail,
                "text": fact.text,
            }
            params = {key: value for key, value in values.items() if value}
            self.step("conditions", Outcome.FAIL, f"record.{fact.cause.value}", params, cause=fact.cause.value)
        if record.preemptions_pending:
            self.step("conditions", Outcome.INFO, "record.preempting", {"count": record.preemptions_pending})
        evicted = workload.condition("Evicted")
        if evicted is not None and evicted.is_true:
            eviction = messages.parse_eviction(evicted.reason, evicted.message)
            if eviction.preemption is not None:
                self.step(
                    "conditions",
                    Outcome.INFO,
                    "conditions.preempted",
                    {"why": eviction.preemption.why, "path": eviction.preemption.preemptor_path},
                    preemptor_job_uid=eviction.preemption.preemptor_job_uid,
                )
        return record

    def _queue_checks(self, workload: Workload) -> Verdict | None:
        """Queue chain, namespace selector, flavors and quota; returns the first blocker (None: fits)."""
        chain = self.chain
        assert chain is not None
        namespace = workload.namespace
        queues = sorted(lq.name for lq in self.snapshot.local_queues_in(namespace))
        if chain.local_queue is None:
            self._local_queue_missing_step(namespace, workload.queue_name, queues)
            return Verdict.LOCAL_QUEUE_MISSING
        lq_params = {"queue": chain.local_queue.name, "cluster_queue": chain.cluster_queue_name}
        if chain.blocker == Verdict.QUEUE_STOPPED and chain.stopped_by == "LocalQueue":
            self.step("local-queue", Outcome.FAIL, "local-queue.stopped", {**lq_params, "policy": chain.stop_policy})
            self.act("ask-admin-resume", {"kind": "LocalQueue", "queue": chain.local_queue.name})
            return Verdict.QUEUE_STOPPED
        self.step("local-queue", Outcome.PASS, "local-queue.ok", lq_params)
        cq = chain.cluster_queue
        if cq is None:
            self.step(
                "cluster-queue", Outcome.FAIL, "cluster-queue.missing", {"cluster_queue": chain.cluster_queue_name}
            )
            self.act("ask-admin-cluster-queue", {"cluster_queue": chain.cluster_queue_name})
            return Verdict.CLUSTER_QUEUE_MISSING
        if chain.blocker == Verdict.QUEUE_STOPPED:
            self.step(
                "cluster-queue",
                Outcome.FAIL,
                "cluster-queue.stopped",
                {"cluster_queue": cq.name, "policy": chain.stop_policy},
            )
            self.act("ask-admin-resume", {"kind": "ClusterQueue", "queue": cq.name})
            return Verdict.QUEUE_STOPPED
        if chain.blocker == Verdict.QUEUE_INACTIVE:
            detail = inactive_detail(chain)
            self.step(
                "cluster-queue", Outcome.FAIL, "cluster-queue.inactive", {"cluster_queue": cq.name, "detail": detail}
            )
            self.act("ask-admin-inactive", {"cluster_queue": cq.name, "detail": detail})
            return Verdict.QUEUE_INACTIVE
        cq_params: dict[str, str | int | None] = {"cluster_queue": cq.name, "strategy": cq.queueing_strategy}
        if self.snapshot.read_scope is None:  # one namespace's LocalQueues are not those of the ClusterQueue
            cq_params["local_queues"] = len(self.snapshot.local_queues_of(cq.name))
        if cq.cohort:
            cq_params["cohort"] = cq.cohort
        self.step("cluster-queue", Outcome.PASS, "cluster-queue.ok", cq_params, cohort=cq.cohort)
        allowed = checks.namespace_allowed(self.snapshot, cq, namespace)
        if allowed is False:
            self.step(
                "cluster-queue",
                Outcome.FAIL,
                "cluster-queue.namespace-not-selected",
                {"cluster_queue": cq.name, "namespace": namespace},
            )
            self.act("ask-admin-namespace", {"cluster_queue": cq.name, "namespace": namespace})
            return Verdict.NAMESPACE_NOT_ALLOWED
        self.fit = checks.fit_in_queue(self.snapshot, cq, workload.pod_sets, workload)
        self._flavor_steps(self.fit)
        return checks.verdict_of(self.fit)

    def _flavor_steps(self, fit: QueueFit) -> None:
        for resource in fit.uncovered:
            self.step(
                "flavors",
                Outcome.FAIL,
                "flavors.resource-not-covered",
                {"resource": resource, "cluster_queue": fit.cluster_queue},
            )
        for pod_set in fit.pod_sets:
            for group in pod_set.groups:
                for attempt in group.tries:
                    base: dict[str, str | int | None] = {"flavor": attempt.flavor, "pod_set": pod_set.pod_set}
                    if attempt.missing_flavor:
                        self.step("flavors", Outcome.FAIL, "flavors.missing", base)
                    elif attempt.taint is not None:
                        self.step("flavors", Outcome.FAIL, "flavors.taint", {**base, "taint": str(attempt.taint)})
                    elif attempt.affinity_mismatch:
                        flavor = self.snapshot.flavor(attempt.flavor)
                        labels = ", ".join(
                            f"{k}={v}" for k, v in sorted((flavor.node_labels if flavor else {}).items())
                        )
                        self.step("flavors", Outcome.FAIL, "flavors.node-labels", {**base, "labels": labels})
                    elif attempt.missing_resources:
                        self.step(
                            "flavors",
                            Outcome.FAIL,
                            "flavors.no-quota-for",
                            {**base, "resources": ", ".join(attempt.missing_resources)},
                        )
                    for cap in attempt.capacities:
                        requested = next((s.requested for s in attempt.shortfalls if s.resource == cap.resource), None)
                        shortfall = next((s for s in attempt.shortfalls if s.resource == cap.resource), None)
                        need = requested if requested is not None else self._requested(pod_set.pod_set, cap.resource)
                        params: dict[str, str | int | None] = {
                            **base,
                            "resource": cap.resource,
                            "requested": human(need, cap.resource),
                            "nominal": human(cap.nominal, cap.resource),
                            "used": human(cap.used, cap.resource),
                            "available": human(max(Decimal(0), cap.available), cap.resource),
                            "maximum": human(cap.maximum, cap.resource),
                            "cluster_queue": cap.cluster_queue,
                            "borrowed": human(cap.borrowed, cap.resource),
                            "elsewhere": human(cap.cohort_used_elsewhere, cap.resource),
                        }
                        data = {
                            "resource": cap.resource,
                            "flavor": cap.flavor,
                            "requested": str(need),
                            "nominal": str(cap.nominal),
                            "used": str(cap.used),
                            "available": str(cap.available),
                            "maximum": str(cap.maximum),
                            "borrowingLimit": None if cap.borrowing_limit is None else str(cap.borrowing_limit),
                            "lendingLimit": None if cap.lending_limit is None else str(cap.lending_limit),
                        }
                        if cap.cohort:
                            params["cohort"] = cap.cohort
                        if shortfall is not None and shortfall.never:
                            code, outcome = "quota.never-fits", Outcome.FAIL
                        elif shortfall is not None:
                            params["needed"] = human(shortfall.needed, cap.resource)
                            code = "quota.in-cohort-waits" if cap.cohort else "quota.waits"
                            outcome = Outcome.FAIL
                        else:
                            code = "quota.in-cohort-fits" if cap.cohort else "quota.fits"
                            outcome = Outcome.PASS
                        self.step("quota", outcome, code, params, **data)

    def _requested(self, pod_set_name: str, resource: str) -> Decimal:
        assert self.fit is not None
        for pod_set in self.fit.pod_sets:
            if pod_set.pod_set == pod_set_name:
                if resource == PODS:
                    return Decimal(pod_set.count)
                return pod_set.per_pod.get(resource, Decimal(0)) * pod_set.count
        return Decimal(0)

    def _decide(self, record: messages.Classification | None, own: Verdict | None) -> Verdict:
        """Kueue's record first; the engine's checks where Kueue recorded nothing (or was overtaken by a
        queue problem it has not written down yet)."""
        structural = {
            Verdict.LOCAL_QUEUE_MISSING,
            Verdict.CLUSTER_QUEUE_MISSING,
            Verdict.QUEUE_STOPPED,
            Verdict.QUEUE_INACTIVE,
            Verdict.NAMESPACE_NOT_ALLOWED,
        }
        if record is None or record.verdict == Verdict.NOT_YET_EVALUATED:
            return own or Verdict.NOT_YET_EVALUATED
        verdict = record.verdict
        if verdict == Verdict.QUEUE_INACTIVE and own == Verdict.QUEUE_STOPPED:
            return Verdict.QUEUE_STOPPED
        if verdict == Verdict.QUEUE_INACTIVE and self.chain and self.chain.blocker == Verdict.QUEUE_STOPPED:
            return Verdict.QUEUE_STOPPED
        if own in structural and verdict not in structural:
            return own
        return verdict

    # --- queue position -----------------------------------------------------------------------------

    def _position(self, workload: Workload, verdict: Verdict) -> None:
        chain = self.chain
        if chain is None or chain.local_queue is None or chain.cluster_queue is None:
            return  # no queue to wait in: Kueue queues nothing there
        cq_name = chain.cluster_queue_name
        entry = self.snapshot.pending_entry(workload.namespace, workload.name)
        computed = self.snapshot.position_in(cq_name, workload)
        pending = self.snapshot.pending_in(cq_name)
        scope = self.snapshot.read_scope  # Workloads read in one namespace only: the order is partial
        if entry is not None:
            cq_pos, lq_pos, source = (
                entry.position_in_cluster_queue + 1,
                entry.position_in_local_queue + 1,
                "visibility-api",
            )
        elif computed is not None:
            cq_pos, lq_pos = computed[0] + 1, computed[1] + 1
            source = "computed" if scope is None else LOWER_BOUND
        else:
            return
        if scope is not None:
            pending = ()  # how many wait in the whole queue is not known from one namespace
        # Who is ahead, in detail, when the queue ahead is short enough to be read (and summed) cheaply;
        # a long queue gets its count only, so that a question stays O(log n) on a busy cluster.
        detailed = computed is not None and source == "computed" and computed[0] <= MAX_AHEAD_DETAILED
        ahead_list = list(pending[: computed[0]]) if detailed and computed is not None else []
        by_priority = Counter(w.priority for w in ahead_list)
        ahead = Ahead(
            count=cq_pos - 1,
            by_priority=tuple(sorted(by_priority.items(), key=lambda item: -item[0])) if detailed else None,
            workloads=tuple((w.namespace, job_name(w), w.priority) for w in ahead_list[-MAX_AHEAD_LISTED:]),
        )
        self.position = Position(
            cluster_queue=cq_pos,
            local_queue=lq_pos,
            source=source,
            cluster_queue_name=cq_name,
            local_queue_name=workload.queue_name,
            pending_total=len(pending) if pending else None,
            ahead=ahead,
            scope=scope if source == LOWER_BOUND else None,
        )
        params: dict[str, str | int | None] = {
            "position": cq_pos,
            "local_position": lq_pos,
            "cluster_queue": cq_name,
            "local_queue": workload.queue_name,
            "ahead": cq_pos - 1,
            "source": source,
        }
        if scope is None:  # one namespace cannot count the whole queue
            params["total"] = len(pending) if pending else cq_pos
        if source == LOWER_BOUND:
            params["namespace"] = scope
            self.step("position", Outcome.INFO, "position.lower-bound", params, source=source)
            return
        self.step("position", Outcome.INFO, "position.in-queue", params, source=source)
        if ahead_list and ahead.by_priority:
            summary = ", ".join(f"{count} × {prio}" for prio, count in ahead.by_priority)
            demand = checks_total_demand(ahead_list)
            self.step("position", Outcome.INFO, "position.ahead", {"by_priority": summary, "demand": amounts(demand)})
        cq = chain.cluster_queue
        if (
            cq is not None
            and cq.queueing_strategy == "StrictFIFO"
            and pending
            and pending[0] is not workload
            and cq_pos > 1
        ):
            head = pending[0]
            self.step(
                "position",
                Outcome.INFO,
                "position.strict-fifo-head",
                {"priority": head.priority, "cluster_queue": cq_name},
            )

    # --- the headline and the advice ----------------------------------------------------------------

    def _first_shortfall(self, never: bool) -> checks.Shortfall | None:
        if self.fit is None:
            return None
        shortfalls = [s for s in self.fit.shortfalls() if s.never == never]
        return shortfalls[0] if shortfalls else None

    def _headline_params(
        self, workload: Workload, verdict: Verdict, record: messages.Classification | None
    ) -> dict[str, str | int | None]:
        chain = self.chain
        params: dict[str, str | int | None] = {
            "cluster_queue": (chain.cluster_queue_name if chain else ""),
            "queue": workload.queue_name,
        }
        if self.position is not None and self.position.source != LOWER_BOUND:
            params["position"] = self.position.cluster_queue
            params["ahead"] = self.position.cluster_queue - 1
        facts = record.facts if record is not None else ()
        if verdict == Verdict.EXCEEDS_MAX_QUOTA:
            shortfall = self._first_shortfall(never=True)
            fact = next((f for f in facts if f.cause == messages.Cause.EXCEEDS_MAX_CAPACITY), None)
            if shortfall is not None:
                params.update(
                    resource=shortfall.resource,
                    flavor=shortfall.flavor,
                    requested=human(shortfall.requested, shortfall.resource),
                    maximum=human(shortfall.capacity.maximum, shortfall.resource),
                )
            elif fact is not None:
                params.update(
                    resource=fact.resource,
                    flavor=fact.flavor,
                    requested=fact.requested,
                    maximum=fact.maximum,
                )
        elif verdict in (Verdict.WAITING_FOR_QUOTA, Verdict.WAITING_FOR_PREEMPTION):
            fact = next((f for f in facts if f.cause == messages.Cause.INSUFFICIENT_UNUSED_QUOTA), None)
            shortfall = self._first_shortfall(never=False)
            if fact is not None:
                params.update(resource=fact.resource, flavor=fact.flavor, needed=fact.needed)
            elif shortfall is not None:
                params.update(
                    resource=shortfall.resource,
                    flavor=shortfall.flavor,
                    needed=human(shortfall.needed, shortfall.resource),
                )
            if record is not None and record.preemptions_pending:
                params["preemptions"] = record.preemptions_pending
        elif verdict == Verdict.NO_MATCHING_FLAVOR:
            fact = next(
                (
                    f
                    for f in facts
                    if f.cause
                    in (
                        messages.Cause.UNTOLERATED_TAINT,
                        messages.Cause.NODE_AFFINITY_MISMATCH,
                        messages.Cause.RESOURCE_NOT_COVERED,
                    )
                ),
                None,
            )
            blocking = self.fit.blocking_flavors() if self.fit else []
            taint = next((a for a in blocking if a.taint is not None), None)
            if fact is not None and fact.cause == messages.Cause.UNTOLERATED_TAINT:
                params.update(flavor=fact.flavor or "", detail=f"taint {fact.taint}")
            elif fact is not None and fact.cause == messages.Cause.RESOURCE_NOT_COVERED:
                params.update(detail=f"{fact.resource} not covered")
            elif fact is not None:
                params.update(flavor=fact.flavor, detail="node labels")
            elif self.fit is not None and self.fit.uncovered:
                params.update(detail=f"{', '.join(self.fit.uncovered)} not covered")
            elif taint is not None:
                params.update(flavor=taint.flavor, detail=f"taint {taint.taint}")
            elif blocking:
                params.update(flavor=blocking[0].flavor, detail="node labels")
        elif verdict == Verdict.QUEUE_STOPPED and chain is not None:
            params.update(kind=chain.stopped_by or "ClusterQueue", policy=chain.stop_policy or "Hold")
            if chain.stopped_by == "LocalQueue":
                params["stopped"] = workload.queue_name
            else:
                params["stopped"] = chain.cluster_queue_name
        elif verdict == Verdict.QUEUE_INACTIVE and chain is not None:
            params["detail"] = inactive_detail(chain)
        elif record is not None and facts:
            params["detail"] = facts[0].text
        return params

    def _advice(self, workload: Workload, verdict: Verdict, record: messages.Classification | None) -> None:
        if verdict == Verdict.EXCEEDS_MAX_QUOTA:
            shortfall = self._first_shortfall(never=True)
            if shortfall is not None and self.fit is not None and len(workload.pod_sets) == 1:
                pods = checks.max_pods_that_fit(self.fit, workload.pod_sets[0].name, now=False)
                if pods:
                    self.act("shrink-request", {"pods": pods, "cluster_queue": self.fit.cluster_queue}, pods=pods)
            self._other_queues(workload, now=False)
            if shortfall is not None:
                self.act(
                    "ask-admin-quota",
                    {
                        "cluster_queue": shortfall.capacity.cluster_queue,
                        "resource": shortfall.resource,
                        "flavor": shortfall.flavor,
                        "requested": human(shortfall.requested, shortfall.resource),
                    },
                )
        elif verdict in (Verdict.WAITING_FOR_QUOTA, Verdict.WAITING_FOR_PREEMPTION):
            self.act("wait", {})
            if self.fit is not None and len(workload.pod_sets) == 1:
                pods = checks.max_pods_that_fit(self.fit, workload.pod_sets[0].name, now=True)
                if pods and pods < workload.pod_sets[0].count:
                    self.act("shrink-to-start-now", {"pods": pods}, pods=pods)
            self._other_queues(workload, now=True)
            self.act("ask-admin-priority")
        elif verdict == Verdict.NO_MATCHING_FLAVOR:
            blocking = self.fit.blocking_flavors() if self.fit else []
            taints = sorted({str(a.taint) for a in blocking if a.taint is not None})
            facts = record.facts if record else ()
            taints += [
                f.taint
                for f in facts
                if f.cause == messages.Cause.UNTOLERATED_TAINT and f.taint and f.taint not in taints
            ]
            for taint in taints[:3]:
                self.act("add-toleration", {"taint": taint})
            if any(a.affinity_mismatch for a in blocking) or any(
                f.cause == messages.Cause.NODE_AFFINITY_MISMATCH for f in facts
            ):
                self.act("fix-node-selector")
            uncovered = list(self.fit.uncovered) if self.fit else []
            uncovered += [
                f.resource
                for f in facts
                if f.cause == messages.Cause.RESOURCE_NOT_COVERED and f.resource and f.resource not in uncovered
            ]
            for resource in uncovered[:3]:
                self.act(
                    "ask-admin-cover",
                    {"resource": resource, "cluster_queue": self.chain.cluster_queue_name if self.chain else ""},
                )
            self._other_queues(workload, now=False)
        elif verdict == Verdict.QUEUE_STOPPED or verdict == Verdict.NAMESPACE_NOT_ALLOWED:
            self._other_queues(workload, now=False)
        elif verdict == Verdict.CLUSTER_QUEUE_MISSING:
            self.act("ask-admin-cluster-queue", {"cluster_queue": self.chain.cluster_queue_name if self.chain else ""})
        elif verdict == Verdict.WAITING_FOR_PODS_READY:
            self.act("wait")
        elif verdict == Verdict.ADMISSION_GATED:
            self.act("ask-gate-owner")
        elif verdict == Verdict.INVALID_REQUEST:
            self.act("fix-requests")
        elif verdict == Verdict.TOPOLOGY_PLACEMENT_FAILED:
            self.act("relax-topology")
        elif verdict == Verdict.ADMISSION_CHECKS_PENDING or verdict == Verdict.NOT_YET_EVALUATED:
            self.act("wait")

    def _other_queues(self, workload: Workload, *, now: bool) -> None:
        """LocalQueues of the namespace whose ClusterQueue could take the job (now, or ever)."""
        current = self.chain.cluster_queue_name if self.chain else ""
        for local_queue in sorted(self.snapshot.local_queues_in(workload.namespace), key=lambda lq: lq.name):
            if local_queue.name == workload.queue_name:
                continue
            chain = checks.queue_chain(self.snapshot, workload.namespace, local_queue.name)
            if chain.blocker is not None or chain.cluster_queue is None or chain.cluster_queue_name == current:
                continue
            if checks.namespace_allowed(self.snapshot, chain.cluster_queue, workload.namespace) is False:
                continue
            fit = checks.fit_in_queue(self.snapshot, chain.cluster_queue, workload.pod_sets, workload)
            good = fit.fit == Fit.FITS if now else fit.fit in (Fit.FITS, Fit.WAITS)
            if good:
                self.act(
                    "use-other-queue",
                    {"queue": local_queue.name, "cluster_queue": chain.cluster_queue_name, "label": QUEUE_NAME_LABEL},
                    queue=local_queue.name,
                    now=fit.fit == Fit.FITS,
                )


def inactive_detail(chain: QueueChain) -> str:
    """Why a ClusterQueue is inactive, in Kueue's words when it wrote them, else what the engine found."""
    if chain.missing_flavors:
        return f"missing ResourceFlavor(s): {', '.join(chain.missing_flavors)}"
    if chain.missing_checks:
        return f"missing AdmissionCheck(s): {', '.join(chain.missing_checks)}"
    return chain.inactive_message or chain.inactive_reason


def checks_total_demand(workloads: Sequence[Workload]) -> dict[str, Decimal]:
    total: dict[str, Decimal] = {}
    for workload in workloads:
        for name, amount in workload_demand(workload).items():
            total[name] = total.get(name, Decimal(0)) + amount
    return total
