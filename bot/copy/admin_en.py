"""The admins' view (issue 17), in English: merged into bot.copy.en's catalogue."""

ADMIN: dict[str, str | tuple[str, ...]] = {
    "admin.title": "What only an admin can fix",
    "admin.intro": "{count} thing(s) to fix, by ClusterQueue. This message is edited in place as they change.",
    "admin.all-clear": "Nothing for an admin to fix: every ClusterQueue is active and every waiting job can fit.",
    "admin.group": "ClusterQueue {cluster_queue}",
    "admin.group-missing": "ClusterQueue {cluster_queue} (does not exist)",
    "admin.fix": "Fix:",
    "admin.more": "…and {count} more; ask `/kueue admin` for the rest.",
    "admin.as-of": "As of {time}.",
    "admin.cluster": "Cluster {cluster}",
    "admin.not-admin": "The admins' view is for the admins named in ADMINS; ask one of them.",
    "admin.stopped": "ClusterQueue {cluster_queue} is stopped (stopPolicy {policy}): it admits nothing.",
    "admin.inactive.flavors": "ClusterQueue {cluster_queue} is inactive: ResourceFlavor(s) {flavors} do not exist.",
    "admin.inactive.checks": "ClusterQueue {cluster_queue} is inactive: AdmissionCheck(s) {checks} do not exist.",
    "admin.inactive.kueue": "ClusterQueue {cluster_queue} is inactive ({reason}): {message}",
    "admin.cohort-cycle": "Cohort {cohort} is in a cycle ({cycle}): Kueue keeps its ClusterQueues inactive.",
    "admin.orphan-local-queue": "LocalQueue {local_queue} points at ClusterQueue {cluster_queue}, which does not exist.",
    "admin.never-fits": "{job} can never fit as configured: {headline}",
    "admin.starved": (
        "{cluster_queue} is starved by borrowing: {borrowers} hold(s) its {resource} in flavor {flavor} while "
        "{job} waits."
    ),
    "admin.long-wait": "{job} has waited {waited_seconds}: {headline}",
    "admin.fix.stopped": 'when it should admit again, `kubectl patch clusterqueue {cluster_queue} --type merge -p \'{"spec":{"stopPolicy":"None"}}\'`.',
    "admin.fix.flavors": "create the ResourceFlavor(s) {flavors}, or take them out of {cluster_queue}'s resourceGroups.",
    "admin.fix.checks": "create the AdmissionCheck(s) {checks}, or take them out of {cluster_queue}'s admissionChecksStrategy.",
    "admin.fix.check-inactive": "look at the AdmissionChecks of {cluster_queue} (`kubectl get admissionchecks`): their controller says why they are not active.",
    "admin.fix.topology": "create the Topology its TAS flavor names, or remove topologyName from that ResourceFlavor.",
    "admin.fix.multikueue-config": "keep one MultiKueue AdmissionCheck on {cluster_queue}, for every flavor, without ProvisioningRequest.",
    "admin.fix.terminating": "{cluster_queue} is being deleted; point its LocalQueues at another ClusterQueue.",
    "admin.fix.inactive": "`kubectl describe clusterqueue {cluster_queue}`: its Active condition says what is missing.",
    "admin.fix.cohort-cycle": "break the cycle: change spec.parentName of Cohort {cohort}.",
    "admin.fix.orphan-local-queue": "create ClusterQueue {cluster_queue}, or point the LocalQueue at an existing one ({existing}).",
    "admin.fix.starved.reclaim": "set spec.preemption.reclaimWithinCohort: Any on {cluster_queue} so it takes back what it lent, or a borrowingLimit on {borrowers}.",
    "admin.fix.starved.lending": "set a lendingLimit on {cluster_queue}'s quota, or a borrowingLimit on {borrowers}.",
    "admin.fix.look": "nothing the engine can verify; `kubectl describe` its Workload.",
}
