"""The party that holds a job, named, in English: merged into bot.copy.en's catalogue.

`PARTIES` holds new keys; `FIRST` holds headline sentences tried before the catalogue's own ones for that key
(render takes the first whose placeholders are all given)."""

PARTIES: dict[str, str | tuple[str, ...]] = {
    # --- why Kueue preempted (the Preempted condition's reason) ---
    "fragment.why-in-cluster-queue": "priority within the ClusterQueue",
    "fragment.why-reclamation": "reclamation of its nominal quota within the cohort",
    "fragment.why-fair-sharing": "Fair Sharing within the cohort",
    "fragment.why-reclaim-while-borrowing": "reclamation within the cohort while borrowing",
    "fragment.and-more": "and {count} more",
    "fragment.requeued": "requeued",
    "fragment.borrower": "{cluster_queue} borrows {amount}",
    # --- being preempted: still holding its quota while its pods stop ---
    "headline.preempted": (
        "{job} is being preempted: Kueue is stopping it to make room for {preemptor} in ClusterQueue "
        "{preemptor_queue} ({why}). Once its pods have stopped, Kueue requeues it in ClusterQueue {cluster_queue}, "
        "where it will stand at position {position}.",
        "{job} is being preempted: Kueue is stopping it to make room for {preemptor} in ClusterQueue "
        "{preemptor_queue} ({why}). Once its pods have stopped, Kueue requeues it in ClusterQueue {cluster_queue}.",
        "{job} is being preempted ({why}): Kueue is stopping it to make room for another workload in ClusterQueue "
        "{preemptor_queue}. Once its pods have stopped, Kueue requeues it in ClusterQueue {cluster_queue}.",
        "{job} is being preempted ({why}): Kueue is stopping it to make room for another workload. Once its pods "
        "have stopped, Kueue requeues it in ClusterQueue {cluster_queue}.",
        "{job} is being preempted: Kueue is stopping it to make room for another workload, then requeues it.",
    ),
    "conditions.being-preempted": (
        "Kueue evicted it at {since} to make room for {preemptor} in ClusterQueue {preemptor_queue} ({why}); it "
        "still holds its quota until its pods have stopped.",
        "Kueue evicted it at {since} ({why}); it still holds its quota until its pods have stopped.",
        "Kueue evicted it to make room for another workload; it still holds its quota until its pods have stopped.",
    ),
    "action.wait-requeue": (
        "Nothing to do: once its pods have stopped, Kueue requeues it and admits it again when there is room. "
        "A higher WorkloadPriorityClass keeps a job from being preempted by lower-priority work."
    ),
    # --- preempted, then requeued ---
    "headline.after-preemption": (
        "{job} was preempted at {since} by {preemptor} in ClusterQueue {preemptor_queue} ({why}) and requeued, "
        "position {position}. {then}",
        "{job} was preempted at {since} by {preemptor} in ClusterQueue {preemptor_queue} ({why}) and requeued. {then}",
        "{job} was preempted at {since} ({why}) and requeued, position {position}. {then}",
        "{job} was preempted at {since} ({why}) and requeued. {then}",
        "{job} was preempted and requeued. {then}",
    ),
    # --- preempting others ---
    "conditions.preempting-victims": (
        "Kueue is preempting {victims} in ClusterQueue {victim_queues} ({why}) to make room for it.",
        "Kueue is preempting {victims} in ClusterQueue {victim_queues} to make room for it.",
    ),
    # --- borrowed quota ---
    "quota.borrowed-by": (
        "{resource} in flavor {flavor}: {borrowers} of it from cohort {cohort}; ClusterQueue {cluster_queue}'s "
        "preemption.reclaimWithinCohort is {policy}, so Kueue does not take it back: it waits for them to finish.",
        "{resource} in flavor {flavor}: {borrowers} of it from cohort {cohort}; ClusterQueue {cluster_queue} can "
        "reclaim it (preemption.reclaimWithinCohort {policy}).",
    ),
    # --- a WorkloadPriorityClass that does not exist ---
    "workload.priority-class-missing": (
        "The job names WorkloadPriorityClass {priority_class} (label {label}), which does not exist: Kueue cannot "
        "give its Workload a priority, so it creates none."
    ),
    "action.fix-priority-class": (
        "Set the label {label} to an existing WorkloadPriorityClass (`kubectl get workloadpriorityclasses`), or "
        "ask an admin to create {priority_class}; Kueue then creates the {kind}'s Workload."
    ),
    # --- partial admission: the quota steps agree with the headline ---
    "quota.partial-fits": (
        "Partial admission (annotation {annotation}, minimum {min_pods} pods): Kueue admits it with fewer pods; "
        "{pods} of its {all_pods} pods fit now.",
        "Partial admission (minCount, minimum {min_pods} pods): Kueue admits it with fewer pods; {pods} of its "
        "{all_pods} pods fit now.",
    ),
    "quota.partial-waits": (
        "Partial admission (annotation {annotation}, minimum {min_pods} pods): {pods} of its {all_pods} pods "
        "fit the most the queue can give; they wait for capacity others use now.",
        "Partial admission (minCount, minimum {min_pods} pods): {pods} of its {all_pods} pods fit the most the "
        "queue can give; they wait for capacity others use now.",
    ),
    # --- MultiKueue's worker clusters ---
    "admission-checks.multikueue-worker": "MultiKueue dispatched it to worker cluster {worker}.",
    "admission-checks.multikueue-nominated": "MultiKueue nominated worker {nominated_count|cluster|clusters} {nominated}; none has admitted it yet.",
    # --- admitted, yet the nodes cannot hold it ---
    "scheduling.nodes-below-quota": (
        "The {nodes} schedulable {nodes|node|nodes} of flavor {flavor} have {allocatable} {resource} allocatable in all, less "
        "than ClusterQueue {cluster_queue}'s quota of {quota}: Kueue admits by quota, so it admitted more than "
        "these nodes can run (nodes missing, cordoned or unhealthy)."
    ),
    "action.ask-admin-node-capacity": (
        "Ask an admin to repair or add nodes of flavor {flavor} (their {resource} allocatable is {allocatable}), or "
        "to lower ClusterQueue {cluster_queue}'s {resource} quota ({quota}) to what the nodes hold."
    ),
}

FIRST: dict[str, tuple[str, ...]] = {
    "workload.max-exec-time": (
        "It may run {limit_seconds} ({limit_value} s) in all (maximum execution time): {used_seconds} used, "
        "{left_seconds} left before Kueue deactivates it.",
    ),
    "workload.max-exec-exceeded": (
        "Kueue deactivated it when its running time reached the maximum execution time, {limit_seconds} "
        "({limit_value} s: spec.maximumExecutionTimeSeconds, from the job's label {label}).",
    ),
    "headline.deactivated": (
        "{job} was deactivated by Kueue: it ran longer than its maximum execution time of {limit_seconds} "
        "({limit_value} s) ({reason}); it will not run again until it is reactivated or its limit is raised.",
    ),
    "headline.pods-pending": (
        "Kueue admitted {job}, but the nodes cannot hold it: flavor {flavor}'s nodes have {allocatable} {resource} "
        "allocatable in all, below ClusterQueue {cluster_queue}'s quota of {quota}; {pending} {pending|pod|pods} wait in the "
        "kube-scheduler.",
    ),
    "headline.admission-checks-pending": (
        "{job} has its quota in ClusterQueue {cluster_queue}; MultiKueue dispatched it to worker cluster {worker}, "
        "where it waits to be admitted (admission check {checks}).",
        "{job} has its quota in ClusterQueue {cluster_queue}; MultiKueue nominated worker {nominated_count|cluster|clusters} {nominated} "
        "and waits for one of them to admit it (admission check {checks}).",
    ),
    "headline.running": (
        "{job} is admitted in ClusterQueue {cluster_queue} and runs on MultiKueue worker cluster {worker}: nothing "
        "is pending.",
    ),
    "quota.never-fits": (
        "{resource} in flavor {flavor}: all {all_pods} pods need {requested}, more than ClusterQueue "
        "{cluster_queue} can ever get ({maximum}): Kueue admits fewer pods instead (partial admission).",
    ),
    "quota.waits": (
        "{resource} in flavor {flavor}: all {all_pods} pods need {requested}; free {available}: Kueue admits "
        "fewer pods instead (partial admission).",
    ),
    "quota.in-cohort-waits": (
        "{resource} in flavor {flavor}: all {all_pods} pods need {requested}; free now {available} with cohort "
        "{cohort}: Kueue admits fewer pods instead (partial admission).",
    ),
    "headline.workload-missing": (
        "{job} names WorkloadPriorityClass {priority_class}, which does not exist, so Kueue creates no Workload "
        "for it and it cannot be queued.",
    ),
    "conditions.preempted": (
        "Preempted at {since} by {preemptor} in ClusterQueue {preemptor_queue} ({why}); {requeued}.",
        "Preempted at {since} ({why}); {requeued}.",
    ),
    "headline.waiting-for-preemption": (
        "{job} should start soon: Kueue is preempting {victims} in ClusterQueue {victim_queues} ({why}) to make "
        "room for it.",
        "{job} should start soon: Kueue is preempting {victims} in ClusterQueue {victim_queues} to make room for it.",
        "{job} should start soon: Kueue is preempting {preemptions} {preemptions|workload|workloads}, in ClusterQueue {cluster_queue} "
        "or elsewhere in cohort {cohort}, to make room for it.",
    ),
    "headline.waiting-for-quota": (
        "{job} waits for {needed} more {resource} in ClusterQueue {cluster_queue} (flavor {flavor}): {borrowers} "
        "of it from cohort {cohort}, and {cluster_queue}'s preemption.reclaimWithinCohort is Never, so Kueue does "
        "not take it back; it waits for them to finish. Position {position} in the queue, {ahead} ahead.",
        "{job} waits for {needed} more {resource} in ClusterQueue {cluster_queue} (flavor {flavor}): {borrowers} "
        "of it from cohort {cohort}, and {cluster_queue}'s preemption.reclaimWithinCohort is Never, so Kueue does "
        "not take it back; it waits for them to finish.",
    ),
}
