"""The thing in the way, named, in English: merged into bot.copy.en's catalogue."""

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
    "fragment.workload": ("{namespace}/{name} (Workload {workload})", "{namespace}/{name}"),
    "fragment.workload-elsewhere": "a workload of another namespace",
    "fragment.no-flavor": "no flavor can host it: {detail}",
    # --- the head of a StrictFIFO queue ---
    "position.strict-fifo-is-head": (
        "It is the head of StrictFIFO ClusterQueue {cluster_queue}: the {behind} {behind|workload|workloads} behind it {behind|waits|wait} until "
        "it is admitted.",
    ),
    "action.unblock-head": (
        "Ask an admin to unblock StrictFIFO ClusterQueue {cluster_queue}: its head {head} can never be admitted "
        "({blocked_by}) and {behind} {behind|workload waits|workloads wait} behind it. The fix: give the head the quota it needs, "
        "deactivate or delete it (spec.active: false on its Workload), or make the queue BestEffortFIFO.",
    ),
    "action.release-head": (
        "Change its request or delete it soon: at the head of StrictFIFO ClusterQueue {cluster_queue} it holds "
        "the {behind} {behind|workload|workloads} behind it, which Kueue does not try while it is there.",
    ),
    # --- why pods never became ready (rootcause) ---
    "fragment.trouble.image": (
        "pod {pod} (and {more} more) cannot pull its image {image} ({reason})",
        "pod {pod} cannot pull its image {image} ({reason})",
        "pod {pod} (and {more} more) cannot pull its image ({reason})",
        "pod {pod} cannot pull its image ({reason})",
        "its pods cannot pull their image ({reason})",
    ),
    "fragment.trouble.crash": (
        "container {container} of pod {pod} (and {more} more) keeps crashing ({reason}; last exit: {last})",
        "container {container} of pod {pod} keeps crashing ({reason}; last exit: {last})",
        "container {container} of pod {pod} (and {more} more) keeps crashing ({reason})",
        "container {container} of pod {pod} keeps crashing ({reason})",
        "pod {pod} keeps crashing ({reason})",
        "its pods keep crashing ({reason})",
    ),
    "fragment.trouble.config": (
        "the kubelet cannot start container {container} of pod {pod} ({reason})",
        "the kubelet cannot start pod {pod} ({reason})",
        "the kubelet cannot start its pods ({reason})",
    ),
    "fragment.trouble.mount": (
        "pod {pod} (and {more} more) cannot mount its volumes ({reason})",
        "pod {pod} cannot mount its volumes ({reason})",
        "its pods cannot mount their volumes ({reason})",
    ),
    "fragment.trouble.quota": "a ResourceQuota of the namespace refuses its pods ({reason})",
    "fragment.trouble.limit-range": "a LimitRange of the namespace refuses its pods ({reason})",
    "fragment.trouble.webhook": "an admission webhook refuses its pods ({reason})",
    "fragment.trouble.create": "its pods cannot be created ({reason})",
    "fragment.trouble.unscheduled": "its pods were never scheduled on a node (Kueue: {reason})",
    "scheduling.pod-trouble": ("{trouble}: {message}", "{trouble}."),
    "action.check-unscheduled": (
        "See why the kube-scheduler places no node for its pods (kubectl get events -n {namespace} "
        "--field-selector reason=FailedScheduling): requests larger than a node, a nodeSelector, affinity or taint "
        "no node matches; requeued as it is, it is evicted again.",
    ),
    "action.fix-image": (
        "Fix the image {image} (name, tag, registry access, imagePullSecrets) of the {kind}: requeued as it is, it "
        "is evicted again.",
        "Fix the image of the {kind} (name, tag, registry access, imagePullSecrets): requeued as it is, it is "
        "evicted again.",
    ),
    "action.read-crash-logs": (
        "See why it crashes: kubectl logs -n {namespace} {pod} -c {container} --previous; fix the {kind} before its "
        "next admission.",
        "See why it crashes: kubectl logs -n {namespace} {pod} --previous; fix the {kind} before its next admission.",
        "See why its pods crash (kubectl logs --previous) and fix the {kind} before its next admission.",
    ),
    "action.fix-pod-config": (
        "Fix what the kubelet refuses in the pod template (the ConfigMap, Secret or key it names): kubectl describe "
        "pod -n {namespace} {pod}.",
        "Fix what the kubelet refuses in the pod template (the ConfigMap, Secret or key it names).",
    ),
    "action.fix-volumes": (
        "Fix the volume pod {pod} cannot mount (the PersistentVolumeClaim, ConfigMap or Secret the event names): "
        "kubectl describe pod -n {namespace} {pod}.",
        "Fix the volume the pods cannot mount (the PersistentVolumeClaim, ConfigMap or Secret the event names).",
    ),
    "action.ask-admin-resource-quota": (
        "Lower the {kind}'s requests, or ask an admin to raise the namespace's ResourceQuota "
        "(kubectl describe resourcequota -n {namespace}).",
    ),
    "action.fit-limit-range": (
        "Fit the {kind}'s requests and limits to the namespace's LimitRange (kubectl describe limitrange -n "
        "{namespace}), or ask an admin to change it.",
    ),
    "action.ask-webhook-owner": (
        "Ask whoever runs the admission webhook the event names why it refuses the pods, or change the {kind} to "
        "meet its policy.",
    ),
    "action.check-job-events": "See why its pods cannot be created: kubectl describe {kind} -n {namespace} {job}.",
    # --- waitForPodsReady.blockAdmission: who holds every admission ---
    "position.pods-ready-blocker": (
        "{blocker} holds quota in ClusterQueue {cluster_queue} for {since_seconds} and its pods are not ready: "
        "{trouble}.",
        "{blocker} holds quota in ClusterQueue {cluster_queue} for {since_seconds} and its pods are not ready yet.",
        "{blocker} holds quota in ClusterQueue {cluster_queue} and its pods are not ready: {trouble}.",
        "{blocker} holds quota in ClusterQueue {cluster_queue} and its pods are not ready yet.",
    ),
    "position.pods-ready-more": "And {count} more {count|workload|workloads} holding quota with pods not ready.",
    "position.pods-ready-none": (
        "No workload holding quota has pods that are not ready now: the block is over, and Kueue tries this one "
        "again at its next cycle.",
    ),
    "action.wait-pods-ready": (
        "Wait: Kueue admits again once {blocker} (ClusterQueue {cluster_queue}) has its pods ready, or once it "
        "evicts it at its waitForPodsReady timeout.",
    ),
    "action.unblock-pods-ready": (
        "The pods of {blocker} cannot become ready as they are ({trouble}): its owner or an admin can fix or "
        "delete it, so that admissions resume sooner.",
    ),
    "fragment.waits-behind": (
        "waits behind {head}, the head of StrictFIFO ClusterQueue {cluster_queue}, which can never be admitted as "
        "configured ({blocked_by}): Kueue tries nothing behind it until an admin acts",
        "waits behind {head}, the head of StrictFIFO ClusterQueue {cluster_queue}: Kueue tries only the head until "
        "it is admitted",
    ),
}
