"""English: every sentence the bot says, by key. Keep keys stable; wording may change freely."""

from __future__ import annotations

CATALOGUE: dict[str, str | tuple[str, ...]] = {
    # --- headlines: one sentence a person can act on, per verdict ---
    "headline.job-not-found": "No {kind} named {name} in namespace {namespace}.",
    "headline.not-managed": (
        "{job} is not managed by Kueue: it names LocalQueue {annotated} only by the annotation {label}, which "
        "Kueue ignores since v0.15 (only the label counts), so Kueue never queued it.",
        "{job} is not managed by Kueue: it has no {label} label, so Kueue never queued it. "
        "If it is pending, the reason is in the scheduler, not in Kueue.",
    ),
    "headline.workload-missing": (
        "{job} is one of the pods of group {group}, which has {present} of its {total} pods: Kueue creates the "
        "group's Workload only once all {total} exist, so nothing is queued yet.",
        "{job} is a pod of group {group}, for which Kueue has created no Workload, so it cannot be queued yet.",
        "{job} names LocalQueue {queue}, but Kueue has created no Workload for it, so it cannot be queued yet.",
    ),
    "headline.local-queue-missing": (
        "{job} will never start as it is: it names LocalQueue {queue}, which does not exist in its namespace."
    ),
    "headline.cluster-queue-missing": (
        (
            "{job} will never start as it is: LocalQueue {queue} points to ClusterQueue {cluster_queue}, "
            "which does not exist.",
            "{job} will never start as it is: LocalQueue {queue} points to no existing ClusterQueue.",
        )
    ),
    "headline.queue-stopped": (
        "{job} waits because {kind} {stopped} is stopped (stopPolicy {policy}): nothing new is admitted "
        "until an admin resumes it.",
        "{job} waits because its queue is stopped: nothing new is admitted until an admin resumes it.",
    ),
    "headline.queue-inactive": (
        (
            "{job} waits because ClusterQueue {cluster_queue} is inactive ({detail}): it admits nothing until "
            "an admin fixes it.",
            "{job} waits because ClusterQueue {cluster_queue} is inactive: it admits nothing until an admin fixes it.",
        )
    ),
    "headline.namespace-not-allowed": (
        "{job} will never be admitted by ClusterQueue {cluster_queue}: its namespaceSelector requires "
        "{requirement}, and namespace {namespace} has {has}.",
        "{job} will never be admitted by ClusterQueue {cluster_queue}: its namespaceSelector does not select "
        "this namespace.",
    ),
    "headline.no-matching-flavor": (
        "{job} will never fit ClusterQueue {cluster_queue} as configured: no flavor can host it "
        "(flavor {flavor}: {detail}).",
        "{job} will never fit ClusterQueue {cluster_queue} as configured: no flavor can host it ({detail}).",
        "{job} will never fit ClusterQueue {cluster_queue} as configured: no flavor can host it.",
    ),
    "headline.exceeds-max-quota": (
        "{job} will never be admitted as configured, not even partially: at its minimum of {min_pods} of its "
        "{all_pods} pods it still asks for {requested} {resource}, but ClusterQueue {cluster_queue} can never "
        "give more than {maximum} {resource} (flavor {flavor}); also over the maximum: {others}.",
        "{job} will never be admitted as configured, not even partially: at its minimum of {min_pods} of its "
        "{all_pods} pods it still asks for {requested} {resource}, but ClusterQueue {cluster_queue} can never "
        "give more than {maximum} {resource} (flavor {flavor}).",
        "{job} will never be admitted as configured: it asks for {requested} {resource}, but ClusterQueue "
        "{cluster_queue} can never give more than {maximum} {resource} (flavor {flavor}); also over the "
        "maximum: {others}.",
        "{job} will never be admitted as configured: it asks for {requested} {resource}, but ClusterQueue "
        "{cluster_queue} can never give more than {maximum} {resource} (flavor {flavor}).",
        "{job} will never be admitted as configured: it asks for more than ClusterQueue {cluster_queue} can ever give.",
    ),
    "headline.waiting-for-quota": (
        "{job} {behind}. Position {position} in the queue, {ahead} ahead.",
        "{job} {behind}.",
        "{job} waits on flavor {flavor} of ClusterQueue {cluster_queue} ({needed} more {resource} needed), "
        "although flavor {free_flavor} has room: flavorFungibility.{policy} is MayStopSearch, so Kueue stops "
        "its flavor search at {flavor} and never tries {free_flavor}.",
        "{job} waits for capacity that others use now: its {all_pods} pods do not fit, but Kueue admits it "
        "partially (minimum {min_pods} pods): it would start with {pods} pods once {needed} more {resource} is "
        "free in ClusterQueue {cluster_queue} (flavor {flavor}). Position {position} in the queue, {ahead} ahead.",
        "{job} waits for capacity that others use now: its {all_pods} pods do not fit, but Kueue admits it "
        "partially (minimum {min_pods} pods): it would start with {pods} pods once {needed} more {resource} is "
        "free in ClusterQueue {cluster_queue} (flavor {flavor}).",
        "{job} waits for capacity that others use now: its {all_pods} pods do not fit, but Kueue admits it "
        "partially (minimum {min_pods} pods): it would start with {pods} pods once capacity frees in "
        "ClusterQueue {cluster_queue}.",
        "{job} waits for capacity that others use now: it needs {needed} more {resource} in ClusterQueue "
        "{cluster_queue} (flavor {flavor}); also short now: {others}. Position {position} in the queue, "
        "{ahead} ahead.",
        "{job} waits for capacity that others use now: it needs {needed} more {resource} in ClusterQueue "
        "{cluster_queue} (flavor {flavor}); also short now: {others}.",
        "{job} waits for capacity that others use now: it needs {needed} more {resource} in ClusterQueue "
        "{cluster_queue} (flavor {flavor}). Position {position} in the queue, {ahead} ahead.",
        "{job} waits for capacity that others use now: it needs {needed} more {resource} in ClusterQueue "
        "{cluster_queue} (flavor {flavor}).",
        "{job} waits for capacity that others use now in ClusterQueue {cluster_queue}. Position {position} "
        "in the queue, {ahead} ahead.",
        "{job} waits for capacity that others use now in ClusterQueue {cluster_queue}.",
    ),
    "headline.waiting-for-preemption": (
        "{job} {behind}. Position {position} in the queue, {ahead} ahead.",
        "{job} {behind}.",
        "{job} waits on flavor {flavor} of ClusterQueue {cluster_queue}, where Kueue makes room by preemption, "
        "although flavor {free_flavor} has room: flavorFungibility.{policy} is MayStopSearch, so Kueue stops at "
        "the first flavor where preemption can make room and never tries {free_flavor}.",
        "{job} should start soon: Kueue is preempting {preemptions} {preemptions|workload|workloads} in ClusterQueue "
        "{cluster_queue} to make room for it.",
        "{job} should start soon: Kueue is preempting other workloads in ClusterQueue {cluster_queue} to make "
        "room for it.",
    ),
    "headline.topology-placement-failed": (
        "{job} cannot be placed by topology-aware scheduling in ClusterQueue {cluster_queue}: {detail}",
        "{job} cannot be placed by topology-aware scheduling in ClusterQueue {cluster_queue}.",
    ),
    "headline.waiting-for-pods-ready": (
        "{job} waits until {blocker} (ClusterQueue {blocker_queue}) has its pods ready: with "
        "waitForPodsReady.blockAdmission Kueue admits nothing, in any ClusterQueue, while {count} {count|workload|workloads} "
        "holding quota have pods not ready.",
        "{job} waits until the pods of workloads admitted earlier are ready: waitForPodsReady blocks new "
        "admissions meanwhile.",
    ),
    "headline.not-yet-evaluated": (
        "{job} is on hold: Kueue released its quota on purpose and keeps it out of the queue ({on_hold}); it has "
        "no place in the queue until the hold ends.",
        "{job}: Kueue recorded a state this bot does not know ({unknown}). Position {position} in ClusterQueue "
        "{cluster_queue}, {ahead} ahead.",
        "{job}: Kueue recorded a state this bot does not know ({unknown}); it is given no place in the queue.",
        "{job} {behind}. Position {position} in the queue, {ahead} ahead.",
        "{job} {behind}.",
        "{job} fits partially: its {all_pods} pods do not fit ClusterQueue {cluster_queue} now, but Kueue "
        "admits it with fewer (minimum {min_pods}): it would start with {pods} pods at its next try. Position "
        "{position} in the queue, {ahead} ahead.",
        "{job} fits partially: its {all_pods} pods do not fit ClusterQueue {cluster_queue} now, but Kueue "
        "admits it with fewer (minimum {min_pods}): it would start with {pods} pods at its next try.",
        "{job} is queued in ClusterQueue {cluster_queue} and Kueue has not tried it yet: position {position}, "
        "{ahead} ahead.",
        "{job} is queued in ClusterQueue {cluster_queue} and Kueue has not tried it yet.",
    ),
    "headline.admission-gated": (
        "{job} is held by an admission gate ({gates}): Kueue will not consider it until the gate is removed."
    ),
    "headline.admission-checks-pending": (
        "{job} has its quota in ClusterQueue {cluster_queue}; it now waits for admission {check_count|check|checks} {checks}: {message}",
        "{job} has its quota in ClusterQueue {cluster_queue}; it now waits for admission {check_count|check|checks} {checks}.",
        "{job} has its quota; it now waits for admission {check_count|check|checks} {checks}.",
    ),
    "headline.admission-check-rejected": (
        (
            "{job} was rejected by admission {check_count|check|checks} {checks}: it will not be admitted; fix the cause and resubmit.",
            "{job} was rejected by an admission check: it will not be admitted; fix the cause and resubmit.",
        )
    ),
    "headline.requeue-backoff": (
        "{job} was evicted ({reason}) because its pods never became ready: {trouble}. Requeued as it is, it will "
        "be evicted again; it waits for its requeue backoff until {until} (in {in_seconds}), eviction number "
        "{count}.",
        "{job} was evicted ({reason}) because its pods never became ready: {trouble}. Requeued as it is, it will "
        "be evicted again.",
        "{job} was evicted ({reason}) and waits for its requeue backoff until {until} (in {in_seconds}), "
        "eviction number {count}.",
        "{job} was evicted ({reason}) and waits for its requeue backoff.",
        "{job} was evicted and waits for its requeue backoff.",
    ),
    "headline.deactivated": (
        "{job} is deactivated ({reason}): its pods never became ready: {trouble}. Fix that, then reactivate it.",
        "{job} was deactivated by Kueue: it ran longer than its maximum execution time of {limit_seconds} "
        "({reason}); it will not run again until it is reactivated or its limit is raised.",
        "{job} is deactivated ({reason}): Kueue will not admit it until it is reactivated.",
        "{job} is deactivated: Kueue will not admit it until it is reactivated.",
    ),
    "headline.pods-pending": (
        "Kueue admitted {job}, but its pods are not ready: {trouble}.",
        "Kueue admitted {job}; {pending} {pending|pod still waits|pods still wait} in the kube-scheduler: {reason}",
        "Kueue admitted {job}; some pods still wait in the kube-scheduler.",
    ),
    "headline.running": (
        "{job} is admitted in ClusterQueue {cluster_queue}, but its pods are not ready: {trouble}.",
        "{job} is admitted in ClusterQueue {cluster_queue} and running: nothing is pending.",
        "{job} is admitted and running: nothing is pending.",
    ),
    "headline.finished": (
        "{job} has finished ({reason}): nothing is pending.",
        "{job} has finished: nothing is pending.",
    ),
    "headline.workload-out-of-sync": (
        "{job} will not run as it is: its prebuilt Workload {workload} no longer matches it, so Kueue marked that "
        "Workload finished (OutOfSync) and will not admit the job through it."
    ),
    "headline.invalid-request": (
        "{job} will never be admitted: Kueue refuses its resource requests ({detail}).",
        "{job} will never be admitted: Kueue refuses its resource requests.",
    ),
    # --- steps ---
    "job.not-found": "No {kind} {namespace}/{name} in the cluster.",
    "job.found": "Found {kind} {job}.",
    "workload.found": (
        "Workload {workload} represents the job (found by {how}), created {age_ago}.",
        "Workload {workload} represents the job (found by {how}).",
    ),
    "workload.found-through-parent": (
        "Kueue manages it through its parent {parent}: Workload {workload}, created {age_ago}.",
        "Kueue manages it through its parent {parent}: Workload {workload}.",
    ),
    "workload.pod-group": (
        "Pod group {group} (label {label}): {present} runnable {present|pod|pods} of the {total} its annotation {annotation} "
        "declares."
    ),
    "workload.pod-group-no-total": (
        "Pod group {group}: the pod has no valid annotation {annotation}, so Kueue cannot tell when the group is "
        "complete."
    ),
    "workload.pod-group-failed": "Failed pods do not count for the group: {pods}.",
    "workload.pod-group-excess": (
        "The group has {excess} {excess|pod|pods} more than its total of {total}: Kueue deletes the extra ones "
        "(event ExcessPodDeleted)."
    ),
    "workload.pod-group-mismatch": (
        "The group's pods disagree, which Kueue refuses: total counts {totals}; queues {queues}.",
        "The group's pods disagree on their total count, which Kueue refuses: {totals}.",
        "The group's pods disagree on their queue name, which Kueue refuses: {queues}.",
    ),
    "workload.per-pod": (
        "The {kind} has no Workload of its own: each of its pods has one; {count} in all, {admitted} admitted, "
        "{pending} not admitted."
    ),
    "workload.siblings": "The job has {count} other {count|Workload|Workloads} (older slices or other groups).",
    "workload.not-managed": "No Workload: the job has no {label} label, so Kueue does not manage it.",
    "workload.missing": "No Workload although the job names LocalQueue {queue}: Kueue did not create one.",
    "workload.event": "Event {reason}: {message}",
    "workload.deactivated": (
        "The Workload is deactivated (spec.active=false): {reason}. {message}",
        "The Workload is deactivated (spec.active=false): {reason}.",
        "The Workload is deactivated (spec.active=false).",
    ),
    "conditions.out-of-sync": "Workload {workload} is Finished (OutOfSync): {message}",
    "workload.max-exec-time": (
        "It may run {limit_seconds} in all (maximum execution time): {used_seconds} used, {left_seconds} left "
        "before Kueue deactivates it."
    ),
    "workload.max-exec-exceeded": (
        "Kueue deactivated it when its running time reached the maximum execution time, {limit_seconds} "
        "(spec.maximumExecutionTimeSeconds, from the job's label {label}).",
        "Kueue deactivated it when its running time reached its maximum execution time "
        "(spec.maximumExecutionTimeSeconds, from the job's label {label}).",
    ),
    "workload.max-exec-reset": (
        "Kueue reset the time used: reactivated as it is, it runs again from the start for up to {limit_seconds}, "
        "then is deactivated again."
    ),
    "workload.max-exec-again": (
        "It has already used {used_seconds} of its {limit_seconds}: reactivated as it is, Kueue would deactivate "
        "it again as soon as it is admitted."
    ),
    "workload.requeuing-limit": (
        "Kueue deactivated it after {count} evictions: its pods never became ready within the waitForPodsReady "
        "timeout, and the requeuing limit (requeuingStrategy.backoffLimitCount) is reached.",
        "Kueue deactivated it: its pods never became ready within the waitForPodsReady timeout too many times "
        "(requeuingStrategy.backoffLimitCount).",
    ),
    "workload.admission-gated": "Admission is gated by {gates} (annotation kueue.x-k8s.io/admission-gated-by).",
    "scheduling.not-held-by-kueue": "Kueue does not hold this {kind}: if its pods wait, ask the kube-scheduler.",
    "demand.total": ("It asks Kueue for {total} in total ({shape}).", "It asks Kueue for {total} in total."),
    "demand.assigned": (
        "Kueue reserved in ClusterQueue {cluster_queue}: {assigned}.",
        "Kueue reserved quota in ClusterQueue {cluster_queue}.",
    ),
    "conditions.condition": (
        "{type}={status} ({reason}): {message}",
        "{type}={status} ({reason})",
        "{type}={status}: {message}",
        "{type}={status}",
    ),
    "conditions.none-yet": "Kueue has not written QuotaReserved yet: the scheduler has not tried this Workload.",
    "conditions.finished": ("The Workload finished ({reason}).", "The Workload finished."),
    "conditions.backoff-until": (
        "Evicted {count} {count|time|times} ({reason}); Kueue requeues it at {until}, in {in_seconds}.",
        "Evicted {count} {count|time|times}; Kueue requeues it at {until}, in {in_seconds}.",
    ),
    "conditions.backoff": (
        "Evicted ({reason}); it waits for Kueue to requeue it.",
        "Evicted; it waits for Kueue to requeue it.",
    ),
    "conditions.evicted-because": "Last eviction: {message}",
    "conditions.preempted-by-rule": (
        "It was preempted by rule {rule} of PreemptionConfig {config} to make room for {preemptor}.",
        "It was preempted by rule {rule} of PreemptionConfig {config}.",
    ),
    "conditions.preempted": (
        "It was preempted ({why}); preemptor: {path}.",
        "It was preempted ({why}).",
        "It was preempted.",
    ),
    "record.insufficient-unused-quota": (
        "Kueue: pod set {pod_set} needs {needed} more {resource} in flavor {flavor}, in use by others now.",
        "Kueue: not enough unused quota ({text}).",
    ),
    "record.exceeds-max-capacity": (
        "Kueue: pod set {pod_set} asks for {requested} {resource} in flavor {flavor}, above the maximum "
        "capacity {maximum}: it can never fit there.",
        "Kueue: {resource} in flavor {flavor} can never fit ({text}).",
        "Kueue: the request is above the maximum capacity ({text}).",
    ),
    "record.resource-not-covered": (
        "Kueue: ClusterQueue does not cover resource {resource}.",
        "Kueue: a requested resource is not covered ({text}).",
    ),
    "record.untolerated-taint": (
        "Kueue: flavor {flavor} has taint {taint}, which the job does not tolerate.",
        "Kueue: a flavor's taint is not tolerated ({text}).",
    ),
    "record.node-affinity-mismatch": (
        "Kueue: flavor {flavor} does not match the job's node selector or affinity.",
        "Kueue: no flavor matches the node affinity ({text}).",
    ),
    "record.flavor-not-found": ("Kueue: ResourceFlavor {flavor} does not exist.", "Kueue: {text}"),
    "record.topology-flavor-mismatch": "Kueue: topology request and flavor do not match: {text}",
    "record.flavor-skipped": "Kueue: {text}",
    "record.flavor-assignment-error": "Kueue could not assign flavors: {text}",
    "record.topology-no-fit": (
        "Kueue: topology {topology} cannot place the pods: {text}",
        "Kueue: topology-aware scheduling cannot place the pods: {text}",
        "Kueue: topology {topology} cannot place the pods.",
        "Kueue: topology-aware scheduling cannot place the pods.",
    ),
    "record.topology-request-invalid": "Kueue: invalid topology request: {text}",
    "record.no-longer-fits": "Kueue: another workload took the capacity in the same cycle; it will retry.",
    "record.overlapping-preemption": "Kueue: its preemption targets overlap another workload's: {text}",
    "record.preemption-gated": "Kueue: it needs preemption, but a preemption gate holds it.",
    "record.pods-ready-block": "Kueue: waiting for all admitted workloads to have their pods ready.",
    "record.admit-failed": "Kueue failed to admit it: {text}",
    "record.concurrent-admission": "Kueue (concurrent admission): {text}",
    "record.failed-admission-checks": "Kueue: an admission check failed (Retry or Rejected).",
    "record.cluster-queue-inactive": (
        "Kueue: ClusterQueue {queue} is inactive.",
        "Kueue: the ClusterQueue is inactive ({text}).",
    ),
    "record.cluster-queue-missing": ("Kueue: ClusterQueue {queue} does not exist.", "Kueue: {text}"),
    "record.namespace-not-selected": "Kueue: the ClusterQueue's namespaceSelector does not select this namespace.",
    "record.namespace-missing": "Kueue: {text}",
    "record.requests-exceed-limits": "Kueue: requests exceed limits: {text}",
    "record.limit-range-violation": "Kueue: requests break the namespace's LimitRange: {text}",
    "record.local-queue-missing": ("Kueue: LocalQueue {queue} does not exist.", "Kueue: {text}"),
    "record.local-queue-inactive": ("Kueue: LocalQueue {queue} is inactive (stopped).", "Kueue: {text}"),
    "record.admission-gated": ("Kueue: admission is gated by {detail}.", "Kueue: {text}"),
    "record.hold-released": "Kueue: it is no longer on hold (its StatefulSet scaled up again); it waits for quota.",
    "record.admission-gate-cleared": "Kueue: the admission gate was cleared; it waits for quota reservation.",
    "record.pending-evaluation": "Kueue: pending evaluation in the scheduling queue.",
    "record.evaluation-bypassed": "Kueue skipped it because an equivalent workload recently failed.",
    "record.deactivated": "Kueue: the workload is deactivated.",
    "record.dra-unsupported": "Kueue: {text}",
    "record.dra-unresolved": (
        "Kueue cannot resolve the job's device (DRA) requests: {text}",
        "Kueue cannot resolve the job's device (DRA) requests.",
    ),
    "record.delayed-topology-request": "Kueue: there are pending delayed topology requests.",
    "record.on-hold": "Kueue: the workload is on hold (for instance a StatefulSet scaled to zero).",
    "record.preempted": (
        "Kueue: it was preempted: {text}",
        "Kueue: it was preempted.",
    ),
    "record.pods-ready-timeout": (
        "Kueue: its pods were not ready in time: {text}",
        "Kueue: its pods were not ready in time.",
    ),
    "record.admission-check-eviction": (
        "Kueue: evicted by an admission check: {text}",
        "Kueue: evicted by an admission check.",
    ),
    "record.node-replacement-failed": (
        "Kueue: no replacement for an unhealthy node: {text}",
        "Kueue: no replacement for an unhealthy node.",
    ),
    "record.flavor-migration": (
        "Kueue: evicted to move to a more favourable flavor: {text}",
        "Kueue: evicted to move to a more favourable flavor.",
    ),
    "record.quota-reserved": "Kueue: {text}",
    "record.unknown": "Kueue: {text}",
    "record.unknown-state": (
        "Kueue recorded a state this bot does not know: {kind} ({reason}): {message}",
        "Kueue recorded a state this bot does not know: {kind} ({reason}).",
    ),
    "record.preempting": "Kueue is preempting {count} {count|workload|workloads} to make room.",
    # --- fragments the engine puts inside other sentences (parameters named detail, notes) ---
    "fragment.taint": "taint {taint}",
    "fragment.node-labels": "node labels",
    "fragment.on-hold": "reason OnHold",
    "fragment.not-covered": "{resources} not covered",
    "fragment.missing-flavors": "missing {count|ResourceFlavor|ResourceFlavors}: {flavors}",
    "fragment.missing-checks": "missing {count|AdmissionCheck|AdmissionChecks}: {checks}",
    # --- the engine's remarks on a message of Kueue (a fact's notes) ---
    "note.legacy-cohort-wording": "in the cohort (Kueue ≤ v0.9 wording)",
    "note.legacy-maximum-wording": "request > maximum capacity (Kueue v0.9.4-v0.14 wording)",
    "note.legacy-nominal-wording": "request above the nominal quota (Kueue ≤ v0.9 wording)",
    "note.legacy-borrowing-limit": (
        "borrowing limit reached (Kueue ≤ v0.9 wording); never clears if the request alone is above it"
    ),
    "note.not-nominated": "not in this scheduling cycle's nomination mapping",
    "note.variant-not-allowed": "not allowed for this variant (WorkloadAllowedResourceFlavorAnnotation)",
    "note.original-slice-flavor": "the original workload slice is on flavor {flavor}",
    "note.raw-taint": "taint {taint}",
    "note.counted-in-slices": "counted in slices",
    "note.total-nodes": "total nodes: {total}",
    "note.excluded-nodes": "excluded: {excluded}",
    "note.dra-no-fit": (
        "draNoFit: {count} {count|node|nodes} lack the DRA devices one pod asks for (in use by others, or tainted); Kueue "
        "tries again when the devices change"
    ),
    "record.dra-no-fit": (
        "draNoFit: {count} {count|node|nodes} lack the DRA devices one pod asks for (in use by others, or tainted); Kueue "
        "tries again when the devices change."
    ),
    "note.cut-by-kueue": "cut by Kueue",
    "note.unexpected-wording": "unexpected wording",
    "note.on-hold": "the job is on hold (for instance a StatefulSet scaled to zero); Kueue admits it when it resumes",
    "note.topology-maybe-temporary": (
        "Kueue's legacy reason doesn't say whether it would fit on an empty cluster: it may be temporary"
    ),
    "note.quota-reserved": "quota is reserved: this is not a blocker",
    "note.inferred-from-wording": "inferred from wording this bot doesn't know",
    "local-queue.missing": (
        "LocalQueue {queue} does not exist in namespace {namespace} (it has: {queues}).",
        "LocalQueue {queue} does not exist in namespace {namespace}, which has no LocalQueue at all.",
    ),
    "local-queue.ok": (
        "LocalQueue {queue} exists and feeds ClusterQueue {cluster_queue}.",
        "LocalQueue {queue} exists but names no ClusterQueue.",
    ),
    "local-queue.stopped": "LocalQueue {queue} is stopped (stopPolicy {policy}).",
    "cluster-queue.missing": "ClusterQueue {cluster_queue} does not exist.",
    "cluster-queue.stopped": "ClusterQueue {cluster_queue} is stopped (stopPolicy {policy}).",
    "cluster-queue.inactive": (
        "ClusterQueue {cluster_queue} is inactive: {detail}.",
        "ClusterQueue {cluster_queue} is inactive.",
    ),
    "cluster-queue.effective-quotas": (
        "{kind} {name} schedules with status.effectiveQuotas, set by {by}, not with its spec.resourceGroups: "
        "the quota below is that one."
    ),
    "cluster-queue.ok": (
        "ClusterQueue {cluster_queue} is active ({strategy}, cohort {cohort}); {local_queues} {local_queues|LocalQueue feeds|LocalQueues feed} it.",
        "ClusterQueue {cluster_queue} is active ({strategy}, no cohort); {local_queues} {local_queues|LocalQueue feeds|LocalQueues feed} it.",
        "ClusterQueue {cluster_queue} is active ({strategy}, cohort {cohort}).",
        "ClusterQueue {cluster_queue} is active ({strategy}, no cohort).",
    ),
    "cluster-queue.namespace-not-selected": (
        "ClusterQueue {cluster_queue} does not select namespace {namespace}: its namespaceSelector requires "
        "{requirement}; the namespace has {has}.",
        "ClusterQueue {cluster_queue} does not select namespace {namespace} (namespaceSelector).",
    ),
    "cluster-queue.admitted": ("Admitted by ClusterQueue {cluster_queue}.", "Admitted."),
    "cluster-queue.reserved": ("Quota reserved in ClusterQueue {cluster_queue}.", "Quota reserved."),
    "flavors.resource-not-covered": "ClusterQueue {cluster_queue} covers no {resource}: no flavor can give it.",
    "flavors.missing": "Flavor {flavor} does not exist.",
    "flavors.stops-to-preempt": (
        "Kueue stops its flavor search at flavor {flavor} for pod set {pod_set}: preemption can make room there "
        "and flavorFungibility.{policy} is MayStopSearch, so flavor {free}, which has room now, is never tried.",
        "Kueue stops its flavor search at flavor {flavor} for pod set {pod_set}: preemption can make room there "
        "and flavorFungibility.{policy} is MayStopSearch.",
    ),
    "flavors.stops-to-borrow": (
        "Kueue takes flavor {flavor} for pod set {pod_set} by borrowing from the cohort: flavorFungibility.{policy} "
        "is MayStopSearch, so flavor {free}, which fits without borrowing, is never tried.",
        "Kueue takes flavor {flavor} for pod set {pod_set} by borrowing from the cohort: flavorFungibility.{policy} "
        "is MayStopSearch.",
    ),
    "flavors.skips-borrowing": (
        "Kueue takes flavor {flavor} for pod set {pod_set}: flavor {skipped} fits only by borrowing and "
        "flavorFungibility.whenCanBorrow is TryNextFlavor."
    ),
    "flavors.taint": "Flavor {flavor} taints its nodes with {taint}; pod set {pod_set} does not tolerate it.",
    "flavors.group-label-keys": (
        "Flavor {flavor} ({labels}) does not set {keys}, which pod set {pod_set} selects and another flavor of its "
        "resource group sets: this Kueue (v1beta1 objects: before v0.17.6, v0.18.2, v0.19.0) then counts the flavor "
        "as not matching.",
        "Flavor {flavor} (no node labels) does not set {keys}, which pod set {pod_set} selects and another flavor of "
        "its resource group sets: this Kueue (v1beta1 objects: before v0.17.6, v0.18.2, v0.19.0) then counts the "
        "flavor as not matching.",
        "Flavor {flavor} lacks a label key that pod set {pod_set} selects and another flavor of its resource group "
        "sets: this Kueue (v1beta1 objects: before v0.17.6, v0.18.2, v0.19.0) then counts the flavor as not matching.",
    ),
    "flavors.recorded-exclusion": (
        "Kueue recorded that flavor {flavor} ({labels}) does not match pod set {pod_set}'s node affinity: it stays "
        "excluded.",
        "Kueue recorded that flavor {flavor} does not match pod set {pod_set}'s node affinity: it stays excluded.",
    ),
    "flavors.node-labels": (
        "Flavor {flavor} ({labels}) does not match pod set {pod_set}'s node selector or affinity.",
        "Flavor {flavor} does not match pod set {pod_set}'s node selector or affinity.",
    ),
    "flavors.no-quota-for": "Flavor {flavor} has no quota for {resources}.",
    "quota.fits": (
        "{resource} in flavor {flavor}: needs {requested}; nominal quota {nominal}, in use {used}, "
        "free {available}: it fits."
    ),
    "quota.in-cohort-fits": (
        "{resource} in flavor {flavor}: needs {requested}; nominal quota {nominal}, in use {used}, free with "
        "cohort {cohort} {available} (at most {maximum} with borrowing): it fits."
    ),
    "quota.waits": (
        "{resource} in flavor {flavor}: needs {requested}; nominal quota {nominal}, in use {used}, free "
        "{available}: {needed} more needed, it waits for others to finish."
    ),
    "quota.in-cohort-waits": (
        "{resource} in flavor {flavor}: needs {requested}; nominal quota {nominal}, in use {used} (borrowed "
        "{borrowed}); the rest of cohort {cohort} takes {elsewhere} from the shared pool; free now {available} "
        "of at most {maximum}: {needed} more needed, it waits for capacity."
    ),
    "quota.never-fits": (
        "{resource} in flavor {flavor}: needs {requested}, but ClusterQueue {cluster_queue} can never get more "
        "than {maximum} (nominal {nominal}, cohort {cohort}): it will never fit.",
        "{resource} in flavor {flavor}: needs {requested}, but ClusterQueue {cluster_queue} can never get more "
        "than its nominal quota {maximum} (no cohort to borrow from): it will never fit.",
    ),
    "position.in-queue": (
        "Position {position} of {total} in ClusterQueue {cluster_queue} ({local_position} in LocalQueue "
        "{local_queue}); {ahead} ahead ({source}).",
        "Position {position} in ClusterQueue {cluster_queue} ({local_position} in LocalQueue {local_queue}); "
        "{ahead} ahead ({source}).",
    ),
    "position.lower-bound": (
        "Position {position} or further back in ClusterQueue {cluster_queue} ({local_position} in LocalQueue "
        "{local_queue}): only namespace {namespace}'s Workloads could be read, and Kueue's pending-workloads API "
        "did not answer, so Workloads of other namespaces ahead of it are not counted."
    ),
    "position.ahead": (
        "Ahead of it, by priority: {by_priority}; together they ask for {demand}.",
        "Ahead of it, by priority: {by_priority}.",
    ),
    "position.strict-fifo-head": (
        "ClusterQueue {cluster_queue} is StrictFIFO: its head, {head} (priority {priority}), can never be admitted "
        "as configured ({blocked_by}), and Kueue tries nothing behind it until an admin acts.",
        "ClusterQueue {cluster_queue} is StrictFIFO: its head, {head} (priority {priority}), waits for capacity "
        "({head_detail} more must be free) and blocks everything behind it until it is admitted.",
        "ClusterQueue {cluster_queue} is StrictFIFO: its head, {head} (priority {priority}), blocks everything "
        "behind it until it is admitted.",
        "ClusterQueue {cluster_queue} is StrictFIFO: the head of the queue (priority {priority}) blocks "
        "everything behind it until it is admitted.",
    ),
    "admission-checks.provisioning-request": (
        "ProvisioningRequest {request} (attempt {attempt} of at most {attempts}, class {class}): {conditions}.",
        "ProvisioningRequest {request} (class {class}): {conditions}.",
        "ProvisioningRequest {request}: {conditions}.",
    ),
    "admission-checks.provisioning-said": "The cluster autoscaler says: {message}",
    "admission-checks.provisioning-none": (
        "No ProvisioningRequest of check {check} is known for this Workload yet: Kueue makes it once the quota "
        "is reserved."
    ),
    "admission-checks.provisioning-retries": (
        "Kueue has retried {retries} {retries|time|times}, of at most {limit} (retryStrategy.backoffLimitCount of "
        "ProvisioningRequestConfig {config}); the next attempt comes after {after_seconds}.",
        "Kueue has retried {retries} {retries|time|times}, of at most {limit} (retryStrategy.backoffLimitCount of "
        "ProvisioningRequestConfig {config}).",
        "Kueue has retried {retries} {retries|time|times}, of at most {limit}; the next attempt comes after {after_seconds}.",
        "Kueue has retried {retries} {retries|time|times}, of at most {limit} (retryStrategy.backoffLimitCount).",
    ),
    "admission-checks.provisioning-inactive": (
        "Admission check {check} is not active: its ProvisioningRequestConfig is missing or wrong, so no "
        "ProvisioningRequest is made."
    ),
    "admission-checks.pod-set-updates": "Check {check} adds to the pods of pod set {pod_set}: nodeSelector {selector}.",
    "admission-checks.check": (
        "Admission check {check} ({controller}): {state} for {age_seconds}: {message}",
        "Admission check {check} ({controller}): {state}: {message}",
        "Admission check {check}: {state} for {age_seconds}: {message}",
        "Admission check {check}: {state}: {message}",
        "Admission check {check} ({controller}): {state} for {age_seconds}.",
        "Admission check {check}: {state} for {age_seconds}.",
        "Admission check {check}: {state}.",
    ),
    "scheduling.pods": "Pods: {total} in all, {running} running, {pending} waiting for a node.",
    "scheduling.failed": (
        "Pod {pod} cannot be scheduled: {message}",
        "Pod {pod} cannot be scheduled (the scheduler's words are quoted above).",
    ),
    "scheduling.gated": "Pod {pod} is held by scheduling gate(s) {gates}.",
    "scheduling.failed-pods": "{count} pods ({pods}) cannot be scheduled: {message}",
    "scheduling.node-reasons": (
        "The kube-scheduler on pod(s) {pods}: {fit} of {total} nodes fit; the others: {reasons}. "
        "Preemption: {preemption}.",
        "The kube-scheduler on pod(s) {pods}: {fit} of {total} nodes fit; the others: {reasons}.",
    ),
    "scheduling.waiting": "Pod {pod} waits for a node (no scheduler event yet).",
    "scheduling.label-excludes": (
        "None of the {nodes} known {nodes|node|nodes} has the label {label} that pod {pod} requires (nodeSelector): that label "
        "excludes every node."
    ),
    "scheduling.flavor-nodes": "Flavor {flavor} sends pods to nodes with {labels}: {nodes} such {nodes|node|nodes} known.",
    # --- what to do next ---
    "action.did-you-mean": "Did you mean {names}?",
    "action.other-namespace": "A job named {name} exists in namespace(s) {namespaces}.",
    "action.check-name": (
        "Check the job's name and namespace: kubectl get {resource} -n {namespace}",
        "Check the job's name and namespace: kubectl get jobs -n {namespace}",
    ),
    "action.add-queue-label": "To have Kueue queue it, set the label {label} to one of: {queues}.",
    "action.ask-admin-local-queue": "Ask an admin for a LocalQueue in namespace {namespace}.",
    "action.add-group-pods": (
        "Create the {missing} missing {missing|pod|pods} of group {group} (label {label}={group}, annotation {annotation}={total}, "
        "the same queue), or lower {annotation} on every pod of the group."
    ),
    "action.set-group-total": "Set the annotation {annotation} (the number of pods) on every pod of group {group}.",
    "action.align-group-pods": (
        "Give every pod of group {group} the same queue label and the same {annotation}, then recreate the odd ones."
    ),
    "action.ask-admin-kueue": (
        "Look at the job's events (kubectl describe) and ask an admin whether Kueue manages {kind} here."
    ),
    "action.fix-queue-name": "Fix the label {label}: use {queue} (queues here: {queues}).",
    "action.fix-and-resubmit": "Fix what the admission check reported, then resubmit the job.",
    "action.reactivate": (
        "Reactivate it once the cause is fixed: kubectl patch workload -n {namespace} {workload} --type merge "
        '-p \'{"spec":{"active":true}}\''
    ),
    "action.raise-max-exec-time": (
        "If it needs longer, raise (or remove) the label {label} on the suspended {kind}: kubectl label {kind} -n "
        "{namespace} {name} {label}=<seconds> --overwrite; Kueue then replaces its Workload with the new limit."
    ),
    "action.ask-admin-check": "Ask an admin to fix AdmissionCheck {check} (kubectl describe admissioncheck {check}).",
    "action.ask-admin-autoscaler": (
        "The cluster autoscaler has not answered ProvisioningRequest {request}: ask an admin whether it runs with "
        "ProvisioningRequest support for class {class}.",
        "The cluster autoscaler has not answered ProvisioningRequest {request}: ask an admin whether it runs with "
        "ProvisioningRequest support.",
    ),
    "action.provisioning-gave-up": (
        "The cluster autoscaler could not provision the nodes in {attempts} {attempts|attempt|attempts}: ask an admin about capacity "
        "for class {class}, or ask for fewer or other resources, then resubmit.",
        "The cluster autoscaler could not provision the nodes in {attempts} {attempts|attempt|attempts}: ask an admin about "
        "capacity, or ask for fewer or other resources, then resubmit.",
    ),
    "action.provisioning-revoked": (
        "The provisioned capacity was taken back (CapacityRevoked), so check {check} rejected it and Kueue "
        "deactivated it: resubmit (or reactivate) to ask for new nodes."
    ),
    "action.fix-prebuilt": (
        "Make Workload {workload} again from the {kind} as it is now, or remove the label {label} from the {kind} "
        "so that Kueue makes its own Workload."
    ),
    "action.check-scheduler": (
        "This is the kube-scheduler's side: kubectl describe pod -n {namespace} {pod} shows why it waits."
    ),
    "action.ask-admin-nodes": "If nodes are missing or full, ask an admin about capacity or the autoscaler.",
    "action.wait-for-checks": "Wait for {checks}; nodes may be provisioned meanwhile.",
    "action.end-hold": (
        "It comes back into the queue when the hold ends: scale its StatefulSet up again (replicas above 0), or ask "
        "whoever put it on hold; `kubectl -n {namespace} describe workload {workload}` shows the hold."
    ),
    "action.unknown-state": (
        "This bot does not know that state, so it cannot say what comes next: read it with `kubectl -n {namespace} "
        "describe workload {workload}` and ask your cluster admin (a Kueue newer than this bot?)."
    ),
    "action.wait": (
        "Wait: Kueue will admit it when its turn comes and this much more is free in ClusterQueue "
        "{cluster_queue} (flavor {flavor}): {needed}.",
        "Wait: Kueue will admit it when its turn comes and the capacity is free.",
    ),
    "action.ask-gate-owner": (
        "Ask whoever set the admission gate ({gates}) to remove it.",
        "Ask whoever set the admission gate to remove it.",
    ),
    "action.check-pods-ready": (
        "Its pods did not become ready in time: check the image, the volumes and the events of its pods."
    ),
    "action.wait-backoff": ("Wait until {until}, or fix what made the pods fail.", "Wait for the backoff to end."),
    "action.ask-admin-resume": "Ask an admin to resume {kind} {queue} (set stopPolicy: None).",
    "action.ask-admin-cluster-queue": (
        "Ask an admin to create ClusterQueue {cluster_queue} or fix the LocalQueue.",
        "Ask an admin to fix the LocalQueue: it points to no ClusterQueue.",
    ),
    "action.ask-admin-inactive": (
        "Ask an admin to fix ClusterQueue {cluster_queue}: {detail}.",
        "Ask an admin to fix ClusterQueue {cluster_queue}.",
    ),
    "action.ask-admin-namespace": (
        "Ask an admin to label namespace {namespace} {label} (kubectl label namespace {namespace} {label} "
        "--overwrite), or to change ClusterQueue {cluster_queue}'s namespaceSelector (it requires {requirement}).",
        "Ask an admin to let ClusterQueue {cluster_queue} select namespace {namespace} (its namespaceSelector "
        "requires {requirement}).",
        "Ask an admin to let ClusterQueue {cluster_queue} select namespace {namespace}.",
    ),
    "action.lower-min-count": (
        "Lower its minimum from {min_pods} to {pods} {pods|pod|pods} or fewer (kueue.x-k8s.io/job-min-parallelism on a "
        "Job, minCount on its pod set otherwise): Kueue admits it partially, never below the minimum."
    ),
    "action.shrink-request": "Shrink the job to at most {pods} {pods|pod|pods}: that is what ClusterQueue {cluster_queue} can hold.",
    "action.shrink-to-start-now": "With {pods} {pods|pod|pods} or fewer it would fit in what is free now.",
    "action.ask-admin-quota": (
        "Or ask an admin to raise ClusterQueue {cluster_queue}'s quotas in flavor {flavor} to at least: {quotas} "
        "(nominal quota, or borrowing in a cohort).",
        "Or ask an admin to raise ClusterQueue {cluster_queue}'s quota of {resource} in flavor {flavor} to at "
        "least {requested} (nominal quota, or borrowing in a cohort).",
    ),
    "action.ask-admin-priority": "If it is urgent, ask for a higher WorkloadPriorityClass (preemption may apply).",
    "action.add-toleration": "Add a toleration for {taint} to the job's pod template.",
    "action.ask-admin-flavor-keys": (
        "Ask an admin to upgrade Kueue (v0.17.6, v0.18.2, v0.19.0 or later count only a flavor's own label keys), "
        "or to set {keys} in flavor {flavor}'s nodeLabels if its nodes have it.",
        "Ask an admin to upgrade Kueue (v0.17.6, v0.18.2, v0.19.0 or later count only a flavor's own label keys).",
    ),
    "action.check-node-selector": (
        "{nodes} {nodes|node|nodes} do not match the pods' nodeSelector or node affinity: compare it (with the labels the "
        "flavor adds) with the nodes' labels (kubectl get nodes --show-labels)."
    ),
    "action.fix-node-selector": "Make the job's nodeSelector or node affinity match a flavor's node labels.",
    "action.ask-admin-cover": (
        "Ask an admin to cover {resource} in ClusterQueue {cluster_queue}.",
        "Ask an admin to cover {resource} in the ClusterQueue.",
    ),
    "action.use-other-queue": (
        "LocalQueue {queue} (ClusterQueue {cluster_queue}) could take it: set the label {label}={queue}."
    ),
    "action.fix-requests": "Fix the job's resource requests and limits.",
    "action.relax-topology": "Relax the job's topology request, or ask an admin about the topology's capacity.",
    # --- words around the answer ---
    "terminal.position": (
        "{position} in ClusterQueue {cluster_queue}, {local_position} in LocalQueue {local_queue} ({source})",
        "{position} in ClusterQueue {cluster_queue} ({source})",
    ),
    "terminal.position-at-least": (
        "{position} or further back in ClusterQueue {cluster_queue}, {local_position} in LocalQueue {local_queue} "
        "(only this namespace's Workloads could be read)",
        "{position} or further back in ClusterQueue {cluster_queue} (only this namespace's Workloads could be read)",
    ),
    "terminal.demand": "Demand: {demand}",
    "slack.snoozed": "Snoozed: no news about {job} until {until}.",
    "slack.stopped": "Stopped: no more messages about {job}.",
    "slack.why.which-job": "Which job? Name it with its namespace, {full}, or just its name, {short}: I look for it in the namespaces this channel may see.",
    "slack.private_answer": ":lock: Only you can see this answer: not everyone in this conversation may see namespace {namespace}.",
    "slack.bad_button": "This button is out of date or was not made by me, so I cannot act on it. Ask again: {how}.",
    "slack.muted": "Muted: I will not send you proactive messages until you say {unmute}. Questions still get answers.",
    "slack.unmuted": "Unmuted: I will tell you again when a job you own or watch stays pending.",
    "label.verdict": "Verdict",
    "label.position": "Position",
    "label.next": "What you can do",
    "label.steps": "The admission path",
    "label.snapshot-age": "Cluster state as of {age_ago}.",
    "label.workload": "Workload",
    "label.none": "none",
    # --- Slack (bot/slack/render.py) ---
    # Names and cluster text arrive already formatted (code spans, escaped); keep these words plain: no mrkdwn.
    "slack.family.never": "Will not start as it is",
    "slack.family.waits": "Waiting",
    "slack.family.ok": "Nothing is pending",
    "slack.summary.verdict": "Verdict {verdict}",
    "slack.summary.position": (
        "{cq_position} of {total} in ClusterQueue {cluster_queue}; {lq_position} in LocalQueue {local_queue}",
        "{cq_position} in ClusterQueue {cluster_queue}; {lq_position} in LocalQueue {local_queue}",
        "{cq_position} of {total} in ClusterQueue {cluster_queue}",
        "{cq_position} in ClusterQueue {cluster_queue}",
    ),
    "slack.summary.position-at-least": (
        "{cq_position} or further back in ClusterQueue {cluster_queue} (only namespace {namespace} could be read)",
        "{cq_position} or further back in its ClusterQueue (only namespace {namespace} could be read)",
    ),
    "slack.summary.position-unnamed": (
        "{cq_position} of {total} in its ClusterQueue; {lq_position} in its LocalQueue",
        "{cq_position} in its ClusterQueue; {lq_position} in its LocalQueue",
        "{cq_position} of {total} in its ClusterQueue",
        "{cq_position} in its ClusterQueue",
    ),
    "slack.summary.age": "as of {age_ago}",
    "slack.summary.fallback": "{family} ({verdict}): {headline}",
    "slack.ordinal.first": "{n}st",
    "slack.ordinal.one": "{n}st",
    "slack.ordinal.two": "{n}nd",
    "slack.ordinal.few": "{n}rd",
    "slack.ordinal.other": "{n}th",
    "slack.button.recheck": "Re-check",
    "slack.button.watch": "Watch this job",
    "slack.button.show-queue": "Show the queue",
    "slack.button.snooze-2h": "Snooze 2 h",
    "slack.button.snooze-1d": "Snooze 1 day",
    "slack.button.stop": "Stop",
    "slack.button.unwatch": "Stop watching",
    "slack.details.title": "The admission path of {job}",
    "slack.details.step.job": "Job",
    "slack.details.step.workload": "Workload",
    "slack.details.step.demand": "Demand",
    "slack.details.step.conditions": "Kueue's record",
    "slack.details.step.local-queue": "LocalQueue",
    "slack.details.step.cluster-queue": "ClusterQueue",
    "slack.details.step.flavors": "Flavors",
    "slack.details.step.quota": "Quota",
    "slack.details.step.position": "Position in the queue",
    "slack.details.step.admission-checks": "Admission checks",
    "slack.details.step.scheduling": "Scheduling of the pods",
    "slack.details.step.other": "Other checks",
    "slack.details.ahead": "Ahead of it: {names}",
    "slack.details.ahead-item": "{name} (priority {priority})",
    "slack.details.ahead-others": "{count} {count|workload|workloads} of other namespaces",
    "slack.details.next": "What you can do",
    "slack.details.more-steps": "{count} more {count|step|steps} not shown here.",
    "slack.details.more-actions": "{count} more {count|suggestion|suggestions} not shown here.",
    "slack.details.fallback": "The admission path of {job}: {steps} {steps|step|steps}, {failed} in the way.",
    "slack.queue.title": "LocalQueue {queue}",
    "slack.queue.feeds": (
        "Feeds ClusterQueue {cluster_queue} ({strategy}, cohort {cohort}).",
        "Feeds ClusterQueue {cluster_queue} ({strategy}, no cohort).",
        "Feeds ClusterQueue {cluster_queue}.",
    ),
    "slack.queue.missing": "LocalQueue {queue} does not exist in namespace {namespace}.",
    "slack.queue.cluster-queue-missing": (
        "Its ClusterQueue {cluster_queue} does not exist: nothing from this queue can be admitted.",
    ),
    "slack.queue.stopped": (
        "{kind} {stopped} is stopped (stopPolicy {policy}): nothing new is admitted until an admin resumes it.",
        "The queue is stopped: nothing new is admitted until an admin resumes it.",
    ),
    "slack.queue.inactive": (
        "ClusterQueue {cluster_queue} is inactive ({detail}): it admits nothing until an admin fixes it.",
        "ClusterQueue {cluster_queue} is inactive: it admits nothing until an admin fixes it.",
    ),
    "slack.queue.open": "Open: it admits workloads as quota allows.",
    "slack.queue.quota-title": "Quota by flavor and resource",
    "slack.queue.quota-line": (
        "{flavor} · {resource}: nominal {nominal}, in use {used} ({borrowed} borrowed), free with the cohort "
        "{cohort} {available}, at most {maximum} with borrowing",
        "{flavor} · {resource}: nominal {nominal}, in use {used}, free with the cohort {cohort} {available}, "
        "at most {maximum} with borrowing",
        "{flavor} · {resource}: nominal {nominal}, in use {used}, free {available} (no cohort to borrow from)",
    ),
    "slack.queue.no-quota": "No quota to show.",
    "slack.queue.counts": (
        "{pending_total} waiting in ClusterQueue {cluster_queue}, {pending_here} of them from this LocalQueue; "
        "{admitted_here} admitted from it."
    ),
    "slack.queue.waiting-title": "Who waits, in Kueue's order",
    "slack.queue.waiting-line": (
        "{position}. {name} · priority {priority} · {demand}",
        "{position}. another namespace · priority {priority} · {demand}",
    ),
    "slack.queue.other-namespaces": "{count} {count|workload|workloads} of other namespaces",
    "slack.queue.nobody-waits": "Nobody waits.",
    "slack.queue.more": "and {count} more",
    "slack.queue.fallback": "LocalQueue {queue}: {pending_here} waiting, {admitted_here} admitted.",
    "slack.help.title": "What I can do",
    "slack.help.intro": "I explain why a job waits under Kueue. Mention me, send me a direct message, or use {command}:",
    "slack.help.why": "{example}: why this job is not running, then its admission path in the thread.",
    "slack.help.queue": "{example}: the state of a LocalQueue, its quota and who waits.",
    "slack.help.watch": "{example}: a direct message when it is admitted, finishes or gets stuck.",
    "slack.help.unwatch": "{example}: no more messages about it.",
    "slack.help.mute": "{example}: no proactive message at all until {unmute}.",
    "slack.help.help": "{example}: this help.",
    "slack.help.free-text": "You can also just ask: {first}, {second}, or paste a kubectl line such as {third}.",
    "slack.help.kinds": "Other kinds work too: {example}.",
    "slack.help.placeholder.namespace": "namespace",
    "slack.help.placeholder.job": "job",
    "slack.help.placeholder.queue": "localqueue",
    "slack.help.example.question": "why is train-octobre pending?",
    "slack.help.fallback": "How to use me: {example}",
    "slack.choose.title": "Several jobs match {name}. Which one do you mean?",
    "slack.choose.title-any": "Several jobs match. Which one do you mean?",
    "slack.choose.queue": "Several namespaces have a LocalQueue named {name}. Which one do you mean?",
    "slack.choose.item": "{kind} {job}",
    "slack.choose.more": "and {count} more: ask with namespace/name to pick one.",
    "slack.did-you-mean.title": "I found no job named {name}. Did you mean one of these?",
    "slack.not-found.title": (
        "I found no {kind} {job}.",
        "I found no {kind} named {name}.",
    ),
    "slack.not-found.suggest": "Did you mean one of these?",
    "slack.not-found.hint": (
        "Check the name and the namespace, for instance {example}; `/kueue help` lists what I can answer."
    ),
    "slack.kind.any": "job",
    "slack.refused": (
        "Sorry, I can't answer about namespace {namespace} here. If you should be able to, ask the bot's admins "
        "to give you or this channel access to it.",
        "Sorry, I can't answer about that namespace here. If you should be able to, ask the bot's admins for access.",
    ),
    "slack.apology": (
        "Sorry, something went wrong on my side and I could not answer. If it happens again, give the bot's "
        "admins this incident number: {incident}."
    ),
    "slack.unavailable": (
        "I can't reach the cluster right now, and what I last saw of it is {age_seconds} old: too old to answer. "
        "Please try again in a few minutes.",
        "I can't reach the cluster right now. Please try again in a few minutes.",
    ),
    "slack.watch.confirmed": (
        "Watching {job}: I'll send you a direct message when it is admitted, when it finishes, or when Kueue "
        "finds it cannot be admitted."
    ),
    "slack.unwatch.confirmed": "Done: you won't get messages about {job} any more.",
    "slack.cluster.unknown": (
        "I serve no cluster named {cluster}; did you mean {suggestion}? The clusters I serve: {known}.",
        "I serve no cluster named {cluster}. The clusters I serve: {known}.",
    ),
    "slack.unknown": (
        "I didn't understand {text}. Type {help} to see what I can do.",
        "I didn't understand. Type {help} to see what I can do.",
    ),
    "slack.notify.inadmissible": "{job} is still waiting: Kueue has not admitted it yet.",
    "slack.notify.never-fits": "{job} will never start as it is configured.",
    "slack.notify.updated": "News about {job}.",
    "slack.notify.footer": "You get this because you watch this job or it names you. Stop ends these messages for it.",
    "slack.closed.admitted": ("{job} was admitted after {waited_seconds}.", "{job} was admitted."),
    "slack.closed.finished": ("{job} has finished; it waited {waited_seconds} to be admitted.", "{job} has finished."),
    "slack.closed.deleted": ("{job} was deleted after waiting {waited_seconds}.", "{job} was deleted."),
    "slack.closed.stopped": "I stop watching it.",
    "slack.digest.title": "News about {count} of your {count|job|jobs}",
    "slack.digest.counts": "By verdict: {counts}",
    "slack.digest.more": "and {count} more",
    "slack.digest.fallback": "News about {count} of your {count|job|jobs}: {counts}",
    "slack.home.title": "Jobs you watch",
    "slack.home.intro": "Their state as of my last look at the cluster.",
    "slack.home.empty": (
        "You watch no job yet. To get a direct message when a job is admitted or stuck, use {example} "
        "or press {button} under one of my answers."
    ),
    "slack.home.no-news": "No answer for it right now: it may have been deleted, or the cluster is out of reach.",
    "slack.home.more": "and {count} more",
    # --- when will it run, who holds it, what would admit it (bot.forecast.outlook) -----------------
    "eta.estimate.cluster-queue": (
        "Likely between {low_seconds} and {high_seconds}, at the latest in {bound_seconds} (the running jobs' "
        "maximum execution time) (from {admissions} admissions in this ClusterQueue in the last {hours} h; "
        "{confidence} % of past waits at this position ended within that).",
        "Likely between {low_seconds} and {high_seconds} (from {admissions} admissions in this ClusterQueue in "
        "the last {hours} h; {confidence} % of past waits at this position ended within that).",
        "Likely within {high_seconds} (from {admissions} admissions in this ClusterQueue in the last {hours} h; "
        "{confidence} % of past waits at this position ended within that).",
    ),
    "eta.estimate.flavor": (
        "Likely between {low_seconds} and {high_seconds}, at the latest in {bound_seconds} (the running jobs' "
        "maximum execution time) (from {admissions} admissions in this flavor of the ClusterQueue in the last "
        "{hours} h; {confidence} % of past waits at this position ended within that).",
        "Likely between {low_seconds} and {high_seconds} (from {admissions} admissions in this flavor of the "
        "ClusterQueue in the last {hours} h; {confidence} % of past waits at this position ended within that).",
        "Likely within {high_seconds} (from {admissions} admissions in this flavor of the ClusterQueue in the "
        "last {hours} h; {confidence} % of past waits at this position ended within that).",
    ),
    "eta.no-estimate": (
        "No estimate yet: I have seen {admissions} {admissions|admission|admissions} in this ClusterQueue in the last {hours} h, "
        "too few to say.",
    ),
    "eta.never": "No estimate: as it is, it can never be admitted (the steps say what would change that).",
    "holders.contest": (
        "{resource} in flavor {flavor}: {needed} more must be free; {count} admitted {count|workload holds|workloads hold} it: "
        "{held_here} in {cluster_queue}, {held_in_cohort} elsewhere in cohort {cohort}.",
        "{resource} in flavor {flavor}: {needed} more must be free; {count} admitted {count|workload holds|workloads hold} it: "
        "{held_here} in {cluster_queue}.",
        "{resource} in flavor {flavor}: {count} admitted {count|workload holds|workloads hold} it: {held_here} in {cluster_queue}, "
        "{held_in_cohort} elsewhere in cohort {cohort}.",
        "{resource} in flavor {flavor}: {count} admitted {count|workload holds|workloads hold} it: {held_here} in {cluster_queue}.",
    ),
    "holders.item": (
        "{name} ({cluster_queue}): {amount}, running for {running_seconds}, at most {left_seconds} left",
        "{name} ({cluster_queue}): {amount}, running for {running_seconds}",
        "{name} ({cluster_queue}): {amount}",
    ),
    "holders.item.borrowing": (
        "{name} ({cluster_queue}, borrowing): {amount}, running for {running_seconds}, at most {left_seconds} left",
        "{name} ({cluster_queue}, borrowing): {amount}, running for {running_seconds}",
        "{name} ({cluster_queue}, borrowing): {amount}",
    ),
    "holders.item.preemptible": (
        "{name} ({cluster_queue}, preemptible by a job of this priority): {amount}, running for "
        "{running_seconds}, at most {left_seconds} left",
        "{name} ({cluster_queue}, preemptible by a job of this priority): {amount}, running for {running_seconds}",
        "{name} ({cluster_queue}, preemptible by a job of this priority): {amount}",
    ),
    "holders.item.reclaimable": (
        "{name} ({cluster_queue}, borrowing, reclaimable by this queue): {amount}, running for "
        "{running_seconds}, at most {left_seconds} left",
        "{name} ({cluster_queue}, borrowing, reclaimable by this queue): {amount}, running for {running_seconds}",
        "{name} ({cluster_queue}, borrowing, reclaimable by this queue): {amount}",
    ),
    "holders.others": "{count} {count|workload|workloads} of other namespaces: {amount}",
    "holders.more": "and {count} more",
    "holders.reclaim": "A cohort reclaim would give back {amount}: quota of this queue that others borrow.",
    "holders.preemptible": "A job of this priority could preempt workloads holding {amount} of it.",
    "holders.none-preemptible": (
        "None of them can be preempted by a job of this priority (preemption: withinClusterQueue {within}, "
        "reclaimWithinCohort {reclaim}).",
    ),
    "holders.strict-fifo": (
        "StrictFIFO: {name} (priority {priority}), at the head of the queue for {since_seconds}, must be "
        "admitted first.",
        "StrictFIFO: {name} (priority {priority}), at the head of the queue, must be admitted first.",
    ),
    "holders.strict-fifo-hidden": (
        "StrictFIFO: a workload of another namespace (priority {priority}) at the head of the queue must be "
        "admitted first.",
    ),
    "holders.pods-ready": (
        "Kueue admits nothing until {count} admitted {count|workload has its|workloads have their} pods ready "
        "(waitForPodsReady.blockAdmission): {names}, and {hidden} of other namespaces.",
        "Kueue admits nothing until {count} admitted {count|workload has its|workloads have their} pods ready "
        "(waitForPodsReady.blockAdmission): {names}.",
        "Kueue admits nothing until {count} admitted {count|workload|workloads} of other namespaces {count|has its|have their} pods ready "
        "(waitForPodsReady.blockAdmission); {hidden} of them.",
        "Kueue admits nothing until {count} admitted {count|workload has its|workloads have their} pods ready "
        "(waitForPodsReady.blockAdmission).",
    ),
    "whatif.other-queue.now": "Submit it to LocalQueue {queue} (ClusterQueue {cluster_queue}): it would be admitted now.",
    "whatif.other-queue.ever": "Submit it to LocalQueue {queue} (ClusterQueue {cluster_queue}): it would fit there.",
    "whatif.fewer-pods.now": "Run {pods} {pods|pod|pods} instead of {was_pods}: that many would be admitted now.",
    "whatif.fewer-pods.ever": "Run {pods} {pods|pod|pods} instead of {was_pods}: that many fit the queue's maximum.",
    "whatif.partial-admission.now": (
        "Or let Kueue admit it partially, down to {pods} {pods|pod|pods} (minCount; for a Job, the annotation "
        "kueue.x-k8s.io/job-min-parallelism): it would start now.",
    ),
    "whatif.partial-admission.ever": (
        "Or let Kueue admit it partially, down to {pods} {pods|pod|pods} (minCount; for a Job, the annotation "
        "kueue.x-k8s.io/job-min-parallelism): it would fit then.",
    ),
    "whatif.smaller-request.now": (
        "Ask for at most {per_pod} of {resource} per pod (now {was_per_pod}): it would be admitted now."
    ),
    "whatif.smaller-request.ever": (
        "Ask for at most {per_pod} of {resource} per pod (now {was_per_pod}): it would fit the queue's maximum."
    ),
    "whatif.other-flavor.now": (
        "Let it run on flavor {flavor} (node selector {labels}; tolerate {taints}): it has room now.",
        "Let it run on flavor {flavor} (node selector {labels}): it has room now.",
        "Let it run on flavor {flavor} (tolerate {taints}): it has room now.",
        "Let it run on flavor {flavor}: it has room now.",
    ),
    "whatif.other-flavor.ever": (
        "Let it run on flavor {flavor} (node selector {labels}; tolerate {taints}): it would fit there.",
        "Let it run on flavor {flavor} (node selector {labels}): it would fit there.",
        "Let it run on flavor {flavor} (tolerate {taints}): it would fit there.",
        "Let it run on flavor {flavor}: it would fit there.",
    ),
    "whatif.raise-quota.now": (
        "An admin would raise the nominal quota of {resource} in flavor {flavor} of {cluster_queue} by {by} "
        "(to {to}): it would be admitted now."
    ),
    "whatif.raise-quota.ever": (
        "An admin would raise the nominal quota of {resource} in flavor {flavor} of {cluster_queue} by {by} "
        "(to {to}): it would fit then."
    ),
    "whatif.none": "No change to the job or its queue that I can check would get it admitted: none would.",
    "slack.focus.who": (
        "Whose job? I answer for one job at a time: ask “who holds what team-a/train needs?” and I list the "
        "admitted workloads that use the capacity it waits for, how long they have run, which borrow and which "
        "could be preempted."
    ),
    "slack.focus.when": (
        "Which job? Ask “when will team-a/train run?”: I give a likely interval and what it rests on."
    ),
    "slack.summary.when": "When: {eta}",
    "slack.details.step.holders": "Who holds it",
    "slack.details.step.what-if": "What would get it admitted",
    # "who is using the GPUs?" cluster-wide (bot.slack.render_who)
    "slack.who.title": "Who is using {resource}",
    "slack.who.scope": (
        "{resource} in flavor {flavor} of {cluster_queue}: {total} held by {count} {count|workload|workloads}.",
        "{resource} in {cluster_queue}: {total} held by {count} {count|workload|workloads}.",
        "{resource} in flavor {flavor}: {total} held by {count} {count|workload|workloads} across {queues} {queues|ClusterQueue|ClusterQueues}.",
        "{resource}: {total} held by {count} {count|workload|workloads} across {queues} {queues|ClusterQueue|ClusterQueues}.",
    ),
    "slack.who.nobody": "Nobody holds any {resource} right now{where}.",
    "slack.who.where": (" in flavor {flavor} of {cluster_queue}", " in {cluster_queue}", " in flavor {flavor}"),
    "slack.who.queue": (
        "{cluster_queue} (cohort {cohort}): {used} of {nominal} nominal",
        "{cluster_queue}: {used} of {nominal} nominal",
        "{cluster_queue} (cohort {cohort}): {used}",
        "{cluster_queue}: {used}",
    ),
    "slack.who.namespace": "{namespace}: {amount} ({count} {count|workload|workloads})",
    "slack.who.holder": ("{name}: {amount}, running {running_seconds}", "{name}: {amount}"),
    "slack.who.more": "and {count} more",
    "slack.who.hidden": "{count} {count|workload|workloads} in namespaces you may not see here: {amount}",
    "slack.who.more-queues": "and {count} more ClusterQueues",
    "slack.who.unknown": "I know no resource, flavor or ClusterQueue named {word}. Try one of: {known}.",
    "slack.help.who": "{example}: who holds a resource (GPUs by default), by ClusterQueue and namespace.",
    # --- end of: when, who holds it, what would admit it -----------------------------------------------------------
    # --- times said as people say them -------------------------------------------------------------
    "time.ago": "{duration} ago",
    "time.just-now": "just now",
}


# The admins' view lives in its own module.
from bot.copy.admin_en import ADMIN as _ADMIN  # noqa: E402

CATALOGUE.update(_ADMIN)

# The thing in the way, named, in its own module.
from bot.copy.blockers_en import BLOCKERS as _BLOCKERS  # noqa: E402

CATALOGUE.update(_BLOCKERS)

# The terminal demo's intro and help, in their own module.
from bot.copy.demo_en import DEMO as _DEMO  # noqa: E402

CATALOGUE.update(_DEMO)

# Will it fit? (the dry run of a job not yet created) and /kueue quota, in their own module.
from bot.copy.fit_en import FIT as _FIT  # noqa: E402

CATALOGUE.update(_FIT)

# What a person is told when Slack would not take an answer in time, in its own module.
from bot.copy.delivery_en import DELIVERY as _DELIVERY  # noqa: E402

CATALOGUE.update(_DELIVERY)

# The party that holds a job, named, in its own module; its headline sentences come first.
from bot.copy.parties_en import FIRST as _PARTIES_FIRST  # noqa: E402
from bot.copy.parties_en import PARTIES as _PARTIES  # noqa: E402

CATALOGUE.update(_PARTIES)
for _key, _first in _PARTIES_FIRST.items():
    _own = CATALOGUE[_key]
    CATALOGUE[_key] = (*_first, *((_own,) if isinstance(_own, str) else _own))

# The owner's direct messages and the App Home, in their own module.
from bot.copy.notify_en import NOTIFY as _NOTIFY  # noqa: E402

CATALOGUE.update(_NOTIFY)

# Limits, unreadable objects and the cluster of a refusal, in their own module.
from bot.copy.limits_en import LIMITS as _LIMITS  # noqa: E402

CATALOGUE.update(_LIMITS)

# The answer a person reads: the first message, the steps on demand, the one list of things to do.
from bot.copy.answer_en import ANSWER as _ANSWER  # noqa: E402

CATALOGUE.update(_ANSWER)
