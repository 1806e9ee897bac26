"""The answer a person reads, in English: the first message, the steps on demand, the one list of things to do
and the words of Kueue it explains. Merged into bot.copy.en's catalogue."""

ANSWER: dict[str, str | tuple[str, ...]] = {
    # --- the first message ------------------------------------------------------------------------------------
    "answer.todo": "What to do:",
    "answer.todo.more": "{count} other {count|option|options} under “Show the steps”.",
    "answer.where": "Place:",
    "answer.when": "When:",
    "answer.button.steps": "Show the steps",
    "answer.button.headlamp": "Open in Headlamp",
    "answer.button.headlamp-queue": "Queue in Headlamp",
    "answer.fallback": ("{family}: {headline} What to do: {todo} ({verdict})", "{family}: {headline} ({verdict})"),
    "answer.glossary": "Kueue's words: {terms}",
    # --- where a position comes from -----------------------------------------------------------------------
    "position.source.computed": "computed by the bot",
    "position.source.visibility-api": "from Kueue's visibility API",
    # --- the steps, on demand ---------------------------------------------------------------------------------
    "answer.steps.passed": "{count} {count|check|checks} passed: {names}.",
    "answer.steps.kueue": "Kueue's own record",
    "answer.steps.todo": "What you can do",
    "answer.steps.who.admin": "What only an admin can change (ask one)",
    # --- the one list of things to do -------------------------------------------------------------------------
    "todo.fewer-pods.now": "Run {pods} {pods|pod|pods} instead of {was_pods}: that many fit in what is free now.",
    "todo.fewer-pods.now-max": (
        "Run {pods} {pods|pod|pods} instead of {was_pods} to start now: {pods} {pods|fits|fit} in what is free "
        "now, and {max_pods} in the queue's maximum once others finish."
    ),
    "todo.fewer-pods.ever": (
        "Run at most {pods} {pods|pod|pods} instead of {was_pods}: that is what the queue can ever hold; it "
        "starts once that much is free."
    ),
    "todo.partial-admission.now": (
        "Let Kueue admit it partially, down to {pods} {pods|pod|pods} of {was_pods} (minCount; for a Job, the "
        "annotation kueue.x-k8s.io/job-min-parallelism): it would start now."
    ),
    "todo.partial-admission.ever": (
        "Let Kueue admit it partially, down to {pods} {pods|pod|pods} of {was_pods} (minCount; for a Job, the "
        "annotation kueue.x-k8s.io/job-min-parallelism): it would fit the queue's maximum."
    ),
    "todo.smaller-request.now": (
        "Ask for at most {per_pod} {resource} per pod (now {was_per_pod}): that fits in what is free now."
    ),
    "todo.smaller-request.ever": (
        "Ask for at most {per_pod} {resource} per pod (now {was_per_pod}): that fits the queue's maximum."
    ),
    "todo.other-queue.now": "Submit it to LocalQueue {queue} (ClusterQueue {cluster_queue}): it has room now.",
    "todo.other-queue.ever": "Submit it to LocalQueue {queue} (ClusterQueue {cluster_queue}): it would fit there.",
    "todo.other-flavor.now": (
        "Let it run on flavor {flavor} (node selector {labels}; tolerate {taints}): it has room now.",
        "Let it run on flavor {flavor} (node selector {labels}): it has room now.",
        "Let it run on flavor {flavor} (tolerate {taints}): it has room now.",
        "Let it run on flavor {flavor}: it has room now.",
    ),
    "todo.other-flavor.ever": (
        "Let it run on flavor {flavor} (node selector {labels}; tolerate {taints}): it would fit there.",
        "Let it run on flavor {flavor} (node selector {labels}): it would fit there.",
        "Let it run on flavor {flavor} (tolerate {taints}): it would fit there.",
        "Let it run on flavor {flavor}: it would fit there.",
    ),
    "todo.raise-quota.now": (
        "Ask an admin to raise the nominal quota of {resource} in flavor {flavor} of ClusterQueue "
        "{cluster_queue} by {by}, to {to}: it would be admitted now."
    ),
    "todo.raise-quota.ever": (
        "Ask an admin to raise the nominal quota of {resource} in flavor {flavor} of ClusterQueue "
        "{cluster_queue} by {by}, to {to}: it would then fit, once that much is free."
    ),
    "todo.priority-preempts": (
        "If it is urgent, ask for a higher WorkloadPriorityClass: ClusterQueue {cluster_queue} may then preempt "
        "lower-priority jobs for it."
    ),
    "todo.priority-ahead": (
        "If it is urgent, ask for a higher WorkloadPriorityClass: it would pass the {ahead} {ahead|job|jobs} "
        "ahead of it (ClusterQueue {cluster_queue} preempts no one)."
    ),
    "todo.none": "No change to the job or its queue that I can check would get it admitted.",
    # --- Kueue's words, glossed (docs/glossary.md) ------------------------------------------------------------
    "term.cluster-queue": "ClusterQueue",
    "term.local-queue": "LocalQueue",
    "term.flavor": "flavor",
    "term.cohort": "cohort",
    "term.nominal-quota": "nominal quota",
    "term.pod-set": "pod set",
    "term.admission-check": "admission check",
    "term.priority-class": "WorkloadPriorityClass",
}
