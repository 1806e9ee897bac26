"""Will it fit? (the dry run of a job not yet created), in English: merged into bot.copy.en's catalogue."""

FIT: dict[str, str | tuple[str, ...]] = {
    "fit.headline.now": "If you submit it now, {job} is admitted at once: ClusterQueue {cluster_queue}, flavor {flavors}.",
    "fit.headline.later": "If you submit it now: {why}",
    "fit.headline.never": "If you submit it now: {why}",
    "fit.headline.refused": "{job} would be refused before Kueue sees it: {why}",
    "fit.step.above-limit": (
        "Pod set {pod_set}, container {container}: its {resource} request {request} is above its limit {limit}: "
        "the API server refuses such a pod (a request must not exceed its limit)."
    ),
    "fit.labelled": "{label}: {value}",
    "fit.label.fits": "Fits",
    "fit.fits.now": "now",
    "fit.fits.later": "later",
    "fit.fits.never": "never (as configured)",
    "fit.label.flavors": "Flavors",
    "fit.flavor-line": "pod set {pod_set}: {resources} → {flavor}",
    "fit.label.eta": "ETA",
    "fit.label.change": "One change that works",
    "fit.label.path": "The admission path it would take",
    "fit.position": (
        "{position} in ClusterQueue {cluster_queue}, {local_position} in LocalQueue {local_queue} ({ahead} ahead)",
        "{position} in ClusterQueue {cluster_queue} ({ahead} ahead)",
    ),
    "fit.note.defaulted-queue": "It names no LocalQueue: Kueue puts it in its namespace's LocalQueue default.",
    "fit.note.priority-unknown": "PriorityClass {name} is not among the objects read: its priority is counted as 0.",
    "fit.note.per-pod": "Each of the Deployment's {replicas} {replicas|pod|pods} gets a Workload of its own: this answer is for one.",
    # Slack
    "fit.help.fit": "{example}: will such a job fit, before you submit it? (or paste its YAML in a code block after “will this fit?”).",
    "fit.help.quota": "{example}: what that queue can give now, per flavor and resource.",
    "fit.slack.title.now": "✅ Fits now",
    "fit.slack.title.later": "⏳ Fits later",
    "fit.slack.title.never": "⛔ Never fits as configured",
    "fit.slack.flavors": "Flavor: {flavors}",
    "fit.slack.position": "Position: {position}",
    "fit.slack.eta": "ETA: {eta}",
    "fit.slack.change": "One change that works: {change}",
    "fit.slack.footer": "A dry run: nothing was created. As of {time}.",
    "fit.slack.no-yaml": (
        "Paste the job's YAML in a code block (```...```) after “will this fit?”, or use "
        "`/kueue fit NAMESPACE/QUEUE 4 pods x (cpu 8, memory 32Gi, nvidia.com/gpu 2)`."
    ),
    "fit.slack.bad-job": "I cannot read that job: {reason}",
    "fit.slack.bad-spec": (
        "I did not understand that spec. Write it as `/kueue fit team-a/default 4 pods x (cpu 8, memory 32Gi, "
        "nvidia.com/gpu 2)`."
    ),
    # /kueue quota
    "queue-quota.title": "What LocalQueue {namespace}/{local_queue} can give now (ClusterQueue {cluster_queue})",
    "queue-quota.row": (
        "{flavor} · {resource}: nominal {nominal}, borrowable {borrowable}, lendable {lendable}, in use {used}, "
        "free now {free}, at most {maximum}"
    ),
    "queue-quota.none": "ClusterQueue {cluster_queue} sets no quota.",
    "queue-quota.usage": "Give a queue: `/kueue quota NAMESPACE/LOCALQUEUE`.",
    "queue-quota.missing": "There is no LocalQueue {local_queue} in namespace {namespace}.",
    "queue-quota.cq-missing": "LocalQueue {namespace}/{local_queue} points at ClusterQueue {cluster_queue}, which does not exist.",
}
