"""La vue des admins (issue 17), en français : fusionnée dans le catalogue de bot.copy.fr."""

ADMIN: dict[str, str | tuple[str, ...]] = {
    "admin.title": "Ce que seul un admin peut corriger",
    "admin.intro": "{count} point(s) à corriger, par ClusterQueue. Ce message est modifié sur place quand ils changent.",
    "admin.all-clear": "Rien à corriger pour un admin : chaque ClusterQueue est active et chaque job en attente peut tenir.",
    "admin.group": "ClusterQueue {cluster_queue}",
    "admin.group-missing": "ClusterQueue {cluster_queue} (n'existe pas)",
    "admin.fix": "Correction :",
    "admin.more": "…et {count} de plus ; demandez `/kueue admin` pour la suite.",
    "admin.as-of": "État au {time}.",
    "admin.cluster": "Cluster {cluster}",
    "admin.not-admin": "La vue des admins est réservée aux admins listés dans ADMINS ; demandez à l'un d'eux.",
    "admin.stopped": "La ClusterQueue {cluster_queue} est arrêtée (stopPolicy {policy}) : elle n'admet rien.",
    "admin.inactive.flavors": "La ClusterQueue {cluster_queue} est inactive : les ResourceFlavor(s) {flavors} n'existent pas.",
    "admin.inactive.checks": "La ClusterQueue {cluster_queue} est inactive : les AdmissionCheck(s) {checks} n'existent pas.",
    "admin.inactive.kueue": "La ClusterQueue {cluster_queue} est inactive ({reason}) : {message}",
    "admin.cohort-cycle": "La cohorte {cohort} est dans un cycle ({cycle}) : Kueue garde ses ClusterQueues inactives.",
    "admin.orphan-local-queue": "La LocalQueue {local_queue} pointe vers la ClusterQueue {cluster_queue}, qui n'existe pas.",
    "admin.never-fits": "{job} ne pourra jamais tenir tel que c'est configuré : {headline}",
    "admin.starved": (
        "{cluster_queue} est affamée par les emprunts : {borrowers} tien(nen)t son {resource} de la variante "
        "{flavor} pendant que {job} attend."
    ),
    "admin.long-wait": "{job} attend depuis {waited_seconds} : {headline}",
    "admin.fix.stopped": 'quand elle doit admettre à nouveau, `kubectl patch clusterqueue {cluster_queue} --type merge -p \'{"spec":{"stopPolicy":"None"}}\'`.',
    "admin.fix.flavors": "créez les ResourceFlavor(s) {flavors}, ou retirez-les des resourceGroups de {cluster_queue}.",
    "admin.fix.checks": "créez les AdmissionCheck(s) {checks}, ou retirez-les de l'admissionChecksStrategy de {cluster_queue}.",
    "admin.fix.check-inactive": "regardez les AdmissionChecks de {cluster_queue} (`kubectl get admissionchecks`) : leur contrôleur dit pourquoi elles ne sont pas actives.",
    "admin.fix.topology": "créez la Topology que nomme sa variante TAS, ou retirez topologyName de ce ResourceFlavor.",
    "admin.fix.multikueue-config": "gardez une seule AdmissionCheck MultiKueue sur {cluster_queue}, pour toutes les variantes, sans ProvisioningRequest.",
    "admin.fix.terminating": "{cluster_queue} est en cours de suppression ; pointez ses LocalQueues vers une autre ClusterQueue.",
    "admin.fix.inactive": "`kubectl describe clusterqueue {cluster_queue}` : sa condition Active dit ce qui manque.",
    "admin.fix.cohort-cycle": "cassez le cycle : changez spec.parentName de la cohorte {cohort}.",
    "admin.fix.orphan-local-queue": "créez la ClusterQueue {cluster_queue}, ou pointez la LocalQueue vers une ClusterQueue existante ({existing}).",
    "admin.fix.starved.reclaim": "mettez spec.preemption.reclaimWithinCohort: Any sur {cluster_queue} pour qu'elle reprenne ce qu'elle a prêté, ou un borrowingLimit sur {borrowers}.",
    "admin.fix.starved.lending": "mettez un lendingLimit sur le quota de {cluster_queue}, ou un borrowingLimit sur {borrowers}.",
    "admin.fix.look": "rien que le moteur puisse vérifier ; faites `kubectl describe` de son Workload.",
}
