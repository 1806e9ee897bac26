"""The party that holds a job, named, in French: merged into bot.copy.fr's catalogue.

`PARTIES` holds new keys; `FIRST` holds headline sentences tried before the catalogue's own ones for that key."""

PARTIES: dict[str, str | tuple[str, ...]] = {
    # --- pourquoi Kueue a préempté ---
    "fragment.why-in-cluster-queue": "priorité au sein de la ClusterQueue",
    "fragment.why-reclamation": "récupération de son quota nominal au sein de la cohorte",
    "fragment.why-fair-sharing": "partage équitable (Fair Sharing) au sein de la cohorte",
    "fragment.why-reclaim-while-borrowing": "récupération au sein de la cohorte en empruntant",
    "fragment.and-more": "et {count} {count|autre|autres}",
    "fragment.requeued": "remis en file",
    "fragment.borrower": "{cluster_queue} en emprunte {amount}",
    # --- en cours de préemption ---
    "headline.preempted": (
        "{job} est en cours de préemption : Kueue l'arrête pour faire de la place à {preemptor} dans la "
        "ClusterQueue {preemptor_queue} ({why}). Une fois ses pods arrêtés, Kueue le remet en file dans la "
        "ClusterQueue {cluster_queue}, où il sera en position {position}.",
        "{job} est en cours de préemption : Kueue l'arrête pour faire de la place à {preemptor} dans la "
        "ClusterQueue {preemptor_queue} ({why}). Une fois ses pods arrêtés, Kueue le remet en file dans la "
        "ClusterQueue {cluster_queue}.",
        "{job} est en cours de préemption ({why}) : Kueue l'arrête pour faire de la place à une autre charge dans "
        "la ClusterQueue {preemptor_queue}. Une fois ses pods arrêtés, Kueue le remet en file dans la ClusterQueue "
        "{cluster_queue}.",
        "{job} est en cours de préemption ({why}) : Kueue l'arrête pour faire de la place à une autre charge. Une "
        "fois ses pods arrêtés, Kueue le remet en file dans la ClusterQueue {cluster_queue}.",
        "{job} est en cours de préemption : Kueue l'arrête pour faire de la place à une autre charge, puis le "
        "remet en file.",
    ),
    "conditions.being-preempted": (
        "Kueue l'a évincé à {since} pour faire de la place à {preemptor} dans la ClusterQueue {preemptor_queue} "
        "({why}) ; il garde son quota jusqu'à l'arrêt de ses pods.",
        "Kueue l'a évincé à {since} ({why}) ; il garde son quota jusqu'à l'arrêt de ses pods.",
        "Kueue l'a évincé pour faire de la place à une autre charge ; il garde son quota jusqu'à l'arrêt de ses pods.",
    ),
    "action.wait-requeue": (
        "Rien à faire : une fois ses pods arrêtés, Kueue le remet en file et l'admet de nouveau quand il y a de la "
        "place. Une WorkloadPriorityClass plus haute évite qu'un travail moins prioritaire le préempte."
    ),
    # --- préempté, puis remis en file ---
    "headline.after-preemption": (
        "{job} a été préempté à {since} par {preemptor} dans la ClusterQueue {preemptor_queue} ({why}) et remis "
        "en file, position {position}. {then}",
        "{job} a été préempté à {since} par {preemptor} dans la ClusterQueue {preemptor_queue} ({why}) et remis "
        "en file. {then}",
        "{job} a été préempté à {since} ({why}) et remis en file, position {position}. {then}",
        "{job} a été préempté à {since} ({why}) et remis en file. {then}",
        "{job} a été préempté et remis en file. {then}",
    ),
    # --- préempter les autres ---
    "conditions.preempting-victims": (
        "Kueue préempte {victims} dans la ClusterQueue {victim_queues} ({why}) pour lui faire de la place.",
        "Kueue préempte {victims} dans la ClusterQueue {victim_queues} pour lui faire de la place.",
    ),
    # --- quota emprunté ---
    "quota.borrowed-by": (
        "{resource} dans la flavor {flavor} : {borrowers} à la cohorte {cohort} ; la "
        "preemption.reclaimWithinCohort de la ClusterQueue {cluster_queue} vaut {policy}, donc Kueue ne le "
        "reprend pas : il attend qu'elles finissent.",
        "{resource} dans la flavor {flavor} : {borrowers} à la cohorte {cohort} ; la ClusterQueue "
        "{cluster_queue} peut le reprendre (preemption.reclaimWithinCohort {policy}).",
    ),
    # --- une WorkloadPriorityClass qui n'existe pas ---
    "workload.priority-class-missing": (
        "Le job nomme la WorkloadPriorityClass {priority_class} (label {label}), qui n'existe pas : Kueue ne peut "
        "pas donner de priorité à son Workload, donc il n'en crée aucun."
    ),
    "action.fix-priority-class": (
        "Mettez dans le label {label} une WorkloadPriorityClass qui existe (`kubectl get workloadpriorityclasses`), "
        "ou demandez à un admin de créer {priority_class} ; Kueue crée alors le Workload du {kind}."
    ),
    # --- admission partielle : les étapes du quota s'accordent avec le titre ---
    "quota.partial-fits": (
        "Admission partielle (annotation {annotation}, au moins {min_pods} pods) : Kueue l'admet avec moins de "
        "pods ; {pods} de ses {all_pods} pods tiennent maintenant.",
        "Admission partielle (minCount, au moins {min_pods} pods) : Kueue l'admet avec moins de pods ; {pods} de "
        "ses {all_pods} pods tiennent maintenant.",
    ),
    "quota.partial-waits": (
        "Admission partielle (annotation {annotation}, au moins {min_pods} pods) : {pods} de ses {all_pods} pods "
        "tiennent dans le maximum de la file ; ils attendent la capacité que d'autres utilisent maintenant.",
        "Admission partielle (minCount, au moins {min_pods} pods) : {pods} de ses {all_pods} pods tiennent dans "
        "le maximum de la file ; ils attendent la capacité que d'autres utilisent maintenant.",
    ),
    # --- les clusters workers de MultiKueue ---
    "admission-checks.multikueue-worker": "MultiKueue l'a envoyé au cluster worker {worker}.",
    "admission-checks.multikueue-nominated": (
        "MultiKueue a proposé {nominated_count|le cluster|les clusters} worker {nominated} ; aucun ne l'a encore admis."
    ),
    # --- admis, mais les nœuds ne peuvent pas le porter ---
    "scheduling.nodes-below-quota": (
        "{nodes|Le|Les} {nodes} {nodes|nœud|nœuds} {nodes|schedulable|schedulables} de la flavor {flavor} ont {allocatable} {resource} allouables en tout, "
        "moins que le quota de {quota} de la ClusterQueue {cluster_queue} : Kueue admet selon le quota, il a donc "
        "admis plus que ces nœuds ne peuvent faire tourner (nœuds absents, cordonnés ou en panne)."
    ),
    "action.ask-admin-node-capacity": (
        "Demandez à un admin de réparer ou d'ajouter des nœuds de la flavor {flavor} (leur {resource} allouable : "
        "{allocatable}), ou de ramener le quota {resource} de la ClusterQueue {cluster_queue} ({quota}) à ce que "
        "les nœuds portent."
    ),
}

FIRST: dict[str, tuple[str, ...]] = {
    "workload.max-exec-time": (
        "Il peut tourner {limit_seconds} ({limit_value} s) en tout (durée d'exécution maximale) : {used_seconds} "
        "utilisées, {left_seconds} restantes avant que Kueue ne le désactive.",
    ),
    "workload.max-exec-exceeded": (
        "Kueue l'a désactivé quand son temps d'exécution a atteint la durée maximale, {limit_seconds} "
        "({limit_value} s : spec.maximumExecutionTimeSeconds, venue du label {label} du job).",
    ),
    "headline.deactivated": (
        "{job} a été désactivé par Kueue : il a tourné plus longtemps que sa durée d'exécution maximale de "
        "{limit_seconds} ({limit_value} s) ({reason}) ; il ne tournera plus tant qu'il n'est pas réactivé ou que "
        "sa limite n'est pas relevée.",
    ),
    "headline.pods-pending": (
        "Kueue a admis {job}, mais les nœuds ne peuvent pas le porter : les nœuds de la flavor {flavor} ont "
        "{allocatable} {resource} allouables en tout, sous le quota de {quota} de la ClusterQueue "
        "{cluster_queue} ; {pending} {pending|pod|pods} attendent dans le kube-scheduler.",
    ),
    "headline.admission-checks-pending": (
        "{job} a son quota dans la ClusterQueue {cluster_queue} ; MultiKueue l'a envoyé au cluster worker "
        "{worker}, où il attend d'être admis (admission check {checks}).",
        "{job} a son quota dans la ClusterQueue {cluster_queue} ; MultiKueue a proposé {nominated_count|le cluster|les clusters} worker "
        "{nominated} et attend que l'un d'eux l'admette (admission check {checks}).",
    ),
    "headline.running": (
        "{job} est admis dans la ClusterQueue {cluster_queue} et tourne sur le cluster worker MultiKueue {worker} : "
        "rien n'est en attente.",
    ),
    "quota.never-fits": (
        "{resource} dans la flavor {flavor} : ses {all_pods} pods demandent {requested}, plus que la ClusterQueue "
        "{cluster_queue} ne peut jamais obtenir ({maximum}) : Kueue admet moins de pods à la place (admission "
        "partielle).",
    ),
    "quota.waits": (
        "{resource} dans la flavor {flavor} : ses {all_pods} pods demandent {requested} ; libre {available} : "
        "Kueue admet moins de pods à la place (admission partielle).",
    ),
    "quota.in-cohort-waits": (
        "{resource} dans la flavor {flavor} : ses {all_pods} pods demandent {requested} ; libre maintenant "
        "{available} avec la cohorte {cohort} : Kueue admet moins de pods à la place (admission partielle).",
    ),
    "headline.workload-missing": (
        "{job} nomme la WorkloadPriorityClass {priority_class}, qui n'existe pas : Kueue ne lui crée pas de "
        "Workload, il ne peut donc pas être mis en file.",
    ),
    "conditions.preempted": (
        "Préempté à {since} par {preemptor} dans la ClusterQueue {preemptor_queue} ({why}) ; {requeued}.",
        "Préempté à {since} ({why}) ; {requeued}.",
    ),
    "headline.waiting-for-preemption": (
        "{job} devrait bientôt démarrer : Kueue préempte {victims} dans la ClusterQueue {victim_queues} ({why}) "
        "pour lui faire de la place.",
        "{job} devrait bientôt démarrer : Kueue préempte {victims} dans la ClusterQueue {victim_queues} pour lui "
        "faire de la place.",
        "{job} devrait bientôt démarrer : Kueue préempte {preemptions} {preemptions|charge|charges}, dans la ClusterQueue "
        "{cluster_queue} ou ailleurs dans la cohorte {cohort}, pour lui faire de la place.",
    ),
    "headline.waiting-for-quota": (
        "{job} attend {needed} {resource} de plus dans la ClusterQueue {cluster_queue} (flavor {flavor}) : "
        "{borrowers} à la cohorte {cohort}, et la preemption.reclaimWithinCohort de {cluster_queue} vaut Never, "
        "donc Kueue ne le reprend pas ; il attend qu'elles finissent. Position {position} dans la file, {ahead} "
        "devant.",
        "{job} attend {needed} {resource} de plus dans la ClusterQueue {cluster_queue} (flavor {flavor}) : "
        "{borrowers} à la cohorte {cohort}, et la preemption.reclaimWithinCohort de {cluster_queue} vaut Never, "
        "donc Kueue ne le reprend pas ; il attend qu'elles finissent.",
    ),
}
