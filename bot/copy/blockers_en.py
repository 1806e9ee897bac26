"""The thing in the way, named (issue 11), in English: merged into bot.copy.en's catalogue."""

BLOCKERS: dict[str, str | tuple[str, ...]] = {
    # --- the namespaceSelector ---
    "fragment.label-value": "{key}={value}",
    "fragment.label-absent": "no label {key}",
    # --- the queue-name annotation (ignored since Kueue v0.15) ---
    "workload.queue-annotation-ignored": (
        "The job names LocalQueue {queue} only by the annotation {label}: Kueue v0.15 and later read only the "
        "label (the annotation was removed in v0.15.0), and these Kueue objects are {api_version}, so this Kueue "
        "ignores it and creates no Workload.",
    ),
    "workload.queue-annotation-deprecated": (
        "The job names LocalQueue {queue} only by the annotation {label}: Kueue before v0.15 reads it, v0.15 and "
        "later only the label (these Kueue objects are {api_version}, which does not tell the version for sure).",
        "The job names LocalQueue {queue} only by the annotation {label}: Kueue before v0.15 reads it, v0.15 and "
        "later only the label.",
    ),
    "action.use-queue-label": (
        "Name the queue with the label {label}={queue} instead of the annotation (Kueue v0.15 and later ignore "
        "the annotation): set it in the {kind}'s manifest and submit it again.",
    ),
    # --- another job named (a fragment the Slack renderer hides from who may not see its namespace) ---
    "fragment.workload": "{namespace}/{name}",
    "fragment.workload-elsewhere": "a workload of another namespace",
    "fragment.no-flavor": "no flavor can host it: {detail}",
    # --- the head of a StrictFIFO queue ---
    "position.strict-fifo-is-head": (
        "It is the head of StrictFIFO ClusterQueue {cluster_queue}: the {behind} workload(s) behind it wait until "
        "it is admitted.",
    ),
    "action.unblock-head": (
        "Ask an admin to unblock StrictFIFO ClusterQueue {cluster_queue}: its head {head} can never be admitted "
        "({blocked_by}) and {behind} workload(s) wait behind it. The fix: give the head the quota it needs, "
        "deactivate or delete it (spec.active: false on its Workload), or make the queue BestEffortFIFO.",
    ),
    "action.release-head": (
        "Change its request or delete it soon: at the head of StrictFIFO ClusterQueue {cluster_queue} it holds "
        "the {behind} workload(s) behind it, which Kueue does not try while it is there.",
    ),
}
