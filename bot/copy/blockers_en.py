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
}
