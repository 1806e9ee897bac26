"""Français : chaque phrase du bot, par clé (les mêmes clés qu'en anglais)."""

from __future__ import annotations

CATALOGUE: dict[str, str | tuple[str, ...]] = {
    "headline.job-not-found": "Aucun {kind} nommé {name} dans le namespace {namespace}.",
    "headline.not-managed": (
        "{job} n'est pas géré par Kueue : il ne désigne la LocalQueue {annotated} que par l'annotation {label}, "
        "que Kueue ignore depuis la v0.15 (seul le label compte), Kueue ne l'a donc jamais mis en file.",
        "{job} n'est pas géré par Kueue : il n'a pas le label {label}, Kueue ne l'a donc jamais mis en file. "
        "S'il attend, la raison est du côté du scheduler, pas de Kueue.",
    ),
    "headline.workload-missing": (
        "{job} est l'un des pods du groupe {group}, qui en a {present} sur {total} : Kueue ne crée le Workload du "
        "groupe qu'une fois les {total} présents, donc rien n'est encore en file.",
        "{job} est un pod du groupe {group}, pour lequel Kueue n'a créé aucun Workload : il ne peut pas encore "
        "être mis en file.",
        "{job} désigne la LocalQueue {queue}, mais Kueue ne lui a créé aucun Workload : il ne peut pas encore "
        "être mis en file.",
    ),
    "headline.local-queue-missing": (
        "{job} ne démarrera jamais en l'état : il désigne la LocalQueue {queue}, qui n'existe pas dans son namespace."
    ),
    "headline.cluster-queue-missing": (
        (
            "{job} ne démarrera jamais en l'état : la LocalQueue {queue} pointe vers la ClusterQueue "
            "{cluster_queue}, qui n'existe pas.",
            "{job} ne démarrera jamais en l'état : la LocalQueue {queue} ne pointe vers aucune ClusterQueue existante.",
        )
    ),
    "headline.queue-stopped": (
        "{job} attend car la {kind} {stopped} est arrêtée (stopPolicy {policy}) : rien de nouveau n'est admis "
        "tant qu'un admin ne la relance pas.",
        "{job} attend car sa file est arrêtée : rien de nouveau n'est admis tant qu'un admin ne la relance pas.",
    ),
    "headline.queue-inactive": (
        (
            "{job} attend car la ClusterQueue {cluster_queue} est inactive ({detail}) : elle n'admet rien tant "
            "qu'un admin ne l'a pas réparée.",
            "{job} attend car la ClusterQueue {cluster_queue} est inactive : elle n'admet rien tant qu'un admin "
            "ne l'a pas réparée.",
        )
    ),
    "headline.namespace-not-allowed": (
        "{job} ne sera jamais admis par la ClusterQueue {cluster_queue} : son namespaceSelector exige "
        "{requirement}, et le namespace {namespace} a {has}.",
        "{job} ne sera jamais admis par la ClusterQueue {cluster_queue} : son namespaceSelector ne "
        "sélectionne pas ce namespace.",
    ),
    "headline.no-matching-flavor": (
        "{job} ne rentrera jamais dans la ClusterQueue {cluster_queue} telle qu'elle est configurée : aucune "
        "flavor ne peut l'accueillir (flavor {flavor} : {detail}).",
        "{job} ne rentrera jamais dans la ClusterQueue {cluster_queue} telle qu'elle est configurée : aucune "
        "flavor ne peut l'accueillir ({detail}).",
        "{job} ne rentrera jamais dans la ClusterQueue {cluster_queue} telle qu'elle est configurée : aucune "
        "flavor ne peut l'accueillir.",
    ),
    "headline.exceeds-max-quota": (
        "{job} ne sera jamais admis en l'état, même partiellement : à son minimum de {min_pods} pods sur "
        "{all_pods}, il demande encore {requested} {resource}, mais la ClusterQueue {cluster_queue} ne peut "
        "jamais donner plus de {maximum} {resource} (flavor {flavor}) ; au-dessus du maximum aussi : {others}.",
        "{job} ne sera jamais admis en l'état, même partiellement : à son minimum de {min_pods} pods sur "
        "{all_pods}, il demande encore {requested} {resource}, mais la ClusterQueue {cluster_queue} ne peut "
        "jamais donner plus de {maximum} {resource} (flavor {flavor}).",
        "{job} ne sera jamais admis en l'état : il demande {requested} {resource}, mais la ClusterQueue "
        "{cluster_queue} ne peut jamais donner plus de {maximum} {resource} (flavor {flavor}) ; au-dessus du "
        "maximum aussi : {others}.",
        "{job} ne sera jamais admis en l'état : il demande {requested} {resource}, mais la ClusterQueue "
        "{cluster_queue} ne peut jamais donner plus de {maximum} {resource} (flavor {flavor}).",
        "{job} ne sera jamais admis en l'état : il demande plus que la ClusterQueue {cluster_queue} ne peut "
        "jamais donner.",
    ),
    "headline.waiting-for-quota": (
        "{job} {behind}. Position {position} dans la file, {ahead} devant.",
        "{job} {behind}.",
        "{job} attend sur la flavor {flavor} de la ClusterQueue {cluster_queue} (il manque {needed} {resource}), "
        "alors que la flavor {free_flavor} a de la place : flavorFungibility.{policy} vaut MayStopSearch, donc "
        "Kueue arrête sa recherche de flavor à {flavor} et n'essaie jamais {free_flavor}.",
        "{job} attend une capacité que d'autres utilisent en ce moment : ses {all_pods} pods ne tiennent pas, "
        "mais Kueue l'admet partiellement (minimum {min_pods} pods) : il démarrerait avec {pods} pods dès que "
        "{needed} {resource} de plus seront libres dans la ClusterQueue {cluster_queue} (flavor {flavor}). "
        "Position {position} dans la file, {ahead} devant.",
        "{job} attend une capacité que d'autres utilisent en ce moment : ses {all_pods} pods ne tiennent pas, "
        "mais Kueue l'admet partiellement (minimum {min_pods} pods) : il démarrerait avec {pods} pods dès que "
        "{needed} {resource} de plus seront libres dans la ClusterQueue {cluster_queue} (flavor {flavor}).",
        "{job} attend une capacité que d'autres utilisent en ce moment : ses {all_pods} pods ne tiennent pas, "
        "mais Kueue l'admet partiellement (minimum {min_pods} pods) : il démarrerait avec {pods} pods dès que "
        "de la capacité se libère dans la ClusterQueue {cluster_queue}.",
        "{job} attend une capacité que d'autres utilisent en ce moment : il lui manque {needed} {resource} "
        "dans la ClusterQueue {cluster_queue} (flavor {flavor}) ; il manque aussi : {others}. Position "
        "{position} dans la file, {ahead} devant.",
        "{job} attend une capacité que d'autres utilisent en ce moment : il lui manque {needed} {resource} "
        "dans la ClusterQueue {cluster_queue} (flavor {flavor}) ; il manque aussi : {others}.",
        "{job} attend une capacité que d'autres utilisent en ce moment : il lui manque {needed} {resource} "
        "dans la ClusterQueue {cluster_queue} (flavor {flavor}). Position {position} dans la file, {ahead} "
        "devant.",
        "{job} attend une capacité que d'autres utilisent en ce moment : il lui manque {needed} {resource} "
        "dans la ClusterQueue {cluster_queue} (flavor {flavor}).",
        "{job} attend une capacité que d'autres utilisent en ce moment dans la ClusterQueue {cluster_queue}. "
        "Position {position} dans la file, {ahead} devant.",
        "{job} attend une capacité que d'autres utilisent en ce moment dans la ClusterQueue {cluster_queue}.",
    ),
    "headline.waiting-for-preemption": (
        "{job} {behind}. Position {position} dans la file, {ahead} devant.",
        "{job} {behind}.",
        "{job} attend sur la flavor {flavor} de la ClusterQueue {cluster_queue}, où Kueue fait de la place par "
        "préemption, alors que la flavor {free_flavor} a de la place : flavorFungibility.{policy} vaut "
        "MayStopSearch, donc Kueue s'arrête à la première flavor où la préemption peut faire de la place et "
        "n'essaie jamais {free_flavor}.",
        "{job} devrait bientôt démarrer : Kueue préempte {preemptions} {preemptions|workload|workloads} dans la ClusterQueue "
        "{cluster_queue} pour lui faire de la place.",
        "{job} devrait bientôt démarrer : Kueue préempte d'autres workloads dans la ClusterQueue "
        "{cluster_queue} pour lui faire de la place.",
    ),
    "headline.topology-placement-failed": (
        "{job} ne peut pas être placé par l'ordonnancement topologique dans la ClusterQueue {cluster_queue} : {detail}",
        "{job} ne peut pas être placé par l'ordonnancement topologique dans la ClusterQueue {cluster_queue}.",
    ),
    "headline.waiting-for-pods-ready": (
        "{job} attend : {blocker} (ClusterQueue {blocker_queue}) doit d'abord avoir ses pods prêts ; avec "
        "waitForPodsReady.blockAdmission, Kueue n'admet rien, dans aucune ClusterQueue, tant que {count} "
        "{count|workload|workloads} qui {count|tient|tiennent} du quota {count|a|ont} des pods pas prêts.",
        "{job} attend que les pods des workloads admis avant lui soient prêts : waitForPodsReady bloque les "
        "nouvelles admissions en attendant.",
    ),
    "headline.not-yet-evaluated": (
        "{job} est en suspens : Kueue a rendu son quota exprès et le tient hors de la file ({on_hold}) ; il n'y a "
        "pas de place tant que dure la suspension.",
        "{job} : Kueue a enregistré un état que ce bot ne connaît pas ({unknown}). Position {position} dans la "
        "ClusterQueue {cluster_queue}, {ahead} devant.",
        "{job} : Kueue a enregistré un état que ce bot ne connaît pas ({unknown}) ; il ne reçoit pas de place "
        "dans la file.",
        "{job} {behind}. Position {position} dans la file, {ahead} devant.",
        "{job} {behind}.",
        "{job} tient partiellement : ses {all_pods} pods ne tiennent pas dans la ClusterQueue {cluster_queue} "
        "en ce moment, mais Kueue l'admet avec moins (minimum {min_pods}) : il démarrerait avec {pods} pods à "
        "son prochain essai. Position {position} dans la file, {ahead} devant.",
        "{job} tient partiellement : ses {all_pods} pods ne tiennent pas dans la ClusterQueue {cluster_queue} "
        "en ce moment, mais Kueue l'admet avec moins (minimum {min_pods}) : il démarrerait avec {pods} pods à "
        "son prochain essai.",
        "{job} est en file dans la ClusterQueue {cluster_queue} et Kueue ne l'a pas encore examiné : position "
        "{position}, {ahead} devant.",
        "{job} est en file dans la ClusterQueue {cluster_queue} et Kueue ne l'a pas encore examiné.",
    ),
    "headline.admission-gated": (
        "{job} est retenu par une porte d'admission ({gates}) : Kueue ne l'examinera pas tant qu'elle n'est pas levée."
    ),
    "headline.admission-checks-pending": (
        "{job} a son quota dans la ClusterQueue {cluster_queue} ; il attend maintenant {check_count|le contrôle|les contrôles} "
        "d'admission {checks} : « {message} »",
        "{job} a son quota dans la ClusterQueue {cluster_queue} ; il attend maintenant {check_count|le contrôle|les contrôles} "
        "d'admission {checks}.",
        "{job} a son quota ; il attend maintenant {check_count|le contrôle|les contrôles} d'admission {checks}.",
    ),
    "headline.admission-check-rejected": (
        (
            "{job} a été refusé par {check_count|le contrôle|les contrôles} d'admission {checks} : il ne sera pas admis ; corrigez la "
            "cause puis soumettez-le de nouveau.",
            "{job} a été refusé par un contrôle d'admission : il ne sera pas admis ; corrigez la cause puis "
            "soumettez-le de nouveau.",
        )
    ),
    "headline.requeue-backoff": (
        "{job} a été évincé ({reason}) car ses pods ne sont jamais devenus prêts : {trouble}. Remis en file tel "
        "quel, il sera évincé de nouveau ; il attend la fin de son délai de remise en file jusqu'à {until} (dans "
        "{in_seconds}), éviction numéro {count}.",
        "{job} a été évincé ({reason}) car ses pods ne sont jamais devenus prêts : {trouble}. Remis en file tel "
        "quel, il sera évincé de nouveau.",
        "{job} a été évincé ({reason}) et attend la fin de son délai de remise en file, jusqu'à {until} (dans "
        "{in_seconds}), éviction numéro {count}.",
        "{job} a été évincé ({reason}) et attend la fin de son délai de remise en file.",
        "{job} a été évincé et attend la fin de son délai de remise en file.",
    ),
    "headline.deactivated": (
        "{job} est désactivé ({reason}) : ses pods ne sont jamais devenus prêts : {trouble}. Corrigez cela, puis "
        "réactivez-le.",
        "{job} a été désactivé par Kueue : il a tourné plus longtemps que sa durée d'exécution maximale de "
        "{limit_seconds} ({reason}) ; il ne repartira pas avant d'être réactivé ou que sa limite soit relevée.",
        "{job} est désactivé ({reason}) : Kueue ne l'admettra pas tant qu'il n'est pas réactivé.",
        "{job} est désactivé : Kueue ne l'admettra pas tant qu'il n'est pas réactivé.",
    ),
    "headline.pods-pending": (
        "Kueue a admis {job}, mais ses pods ne sont pas prêts : {trouble}.",
        "Kueue a admis {job} ; {pending} {pending|pod attend|pods attendent} encore dans le kube-scheduler : {reason}",
        "Kueue a admis {job} ; des pods attendent encore dans le kube-scheduler.",
    ),
    "headline.running": (
        "{job} est admis dans la ClusterQueue {cluster_queue}, mais ses pods ne sont pas prêts : {trouble}.",
        "{job} est admis dans la ClusterQueue {cluster_queue} et tourne : rien n'est en attente.",
        "{job} est admis et tourne : rien n'est en attente.",
    ),
    "headline.finished": (
        "{job} est terminé ({reason}) : rien n'est en attente.",
        "{job} est terminé : rien n'est en attente.",
    ),
    "headline.workload-out-of-sync": (
        "{job} ne tournera pas en l'état : son Workload préconstruit {workload} ne lui correspond plus, Kueue a "
        "donc marqué ce Workload terminé (OutOfSync) et n'admettra pas le job par lui."
    ),
    "headline.invalid-request": (
        "{job} ne sera jamais admis : Kueue refuse ses demandes de ressources ({detail}).",
        "{job} ne sera jamais admis : Kueue refuse ses demandes de ressources.",
    ),
    "job.not-found": "Aucun {kind} {namespace}/{name} dans le cluster.",
    "job.found": "{kind} {job} trouvé.",
    "workload.found": (
        "Le Workload {workload} représente le job (trouvé par {how}), créé {age_ago}.",
        "Le Workload {workload} représente le job (trouvé par {how}).",
    ),
    "workload.found-through-parent": (
        "Kueue le gère via son parent {parent} : Workload {workload}, créé {age_ago}.",
        "Kueue le gère via son parent {parent} : Workload {workload}.",
    ),
    "workload.pod-group": (
        "Groupe de pods {group} (label {label}) : {present} {present|pod|pods} {present|exécutable|exécutables} sur les {total} que déclare son "
        "annotation {annotation}."
    ),
    "workload.pod-group-no-total": (
        "Groupe de pods {group} : le pod n'a pas d'annotation {annotation} valide, Kueue ne peut donc pas savoir "
        "quand le groupe est complet."
    ),
    "workload.pod-group-failed": "Les pods en échec ne comptent pas pour le groupe : {pods}.",
    "workload.pod-group-excess": (
        "Le groupe a {excess} {excess|pod|pods} de plus que son total de {total} : Kueue supprime ceux en trop "
        "(événement ExcessPodDeleted)."
    ),
    "workload.pod-group-mismatch": (
        "Les pods du groupe ne concordent pas, ce que Kueue refuse : totaux {totals} ; files {queues}.",
        "Les pods du groupe ne concordent pas sur leur total, ce que Kueue refuse : {totals}.",
        "Les pods du groupe ne concordent pas sur leur file, ce que Kueue refuse : {queues}.",
    ),
    "workload.per-pod": (
        "Le {kind} n'a pas de Workload à lui : chacun de ses pods a le sien ; {count} en tout, {admitted} admis, "
        "{pending} non admis."
    ),
    "workload.siblings": "Le job a {count} {count|autre|autres} {count|Workload|Workloads} (anciennes tranches ou autres groupes).",
    "workload.not-managed": "Aucun Workload : le job n'a pas le label {label}, Kueue ne le gère donc pas.",
    "workload.missing": "Aucun Workload alors que le job désigne la LocalQueue {queue} : Kueue n'en a pas créé.",
    "workload.event": "Événement {reason} : « {message} »",
    "workload.deactivated": (
        "Le Workload est désactivé (spec.active=false) : {reason}. {message}",
        "Le Workload est désactivé (spec.active=false) : {reason}.",
        "Le Workload est désactivé (spec.active=false).",
    ),
    "conditions.out-of-sync": "Le Workload {workload} est terminé (OutOfSync) : « {message} »",
    "workload.max-exec-time": (
        "Il peut tourner {limit_seconds} en tout (durée d'exécution maximale) : {used_seconds} utilisées, "
        "{left_seconds} restantes avant que Kueue ne le désactive."
    ),
    "workload.max-exec-exceeded": (
        "Kueue l'a désactivé quand sa durée d'exécution a atteint le maximum, {limit_seconds} "
        "(spec.maximumExecutionTimeSeconds, tiré du label {label} du job).",
        "Kueue l'a désactivé quand sa durée d'exécution a atteint son maximum "
        "(spec.maximumExecutionTimeSeconds, tiré du label {label} du job).",
    ),
    "workload.max-exec-reset": (
        "Kueue a remis à zéro le temps utilisé : réactivé tel quel, il repart du début pour au plus "
        "{limit_seconds}, puis est de nouveau désactivé."
    ),
    "workload.max-exec-again": (
        "Il a déjà utilisé {used_seconds} de ses {limit_seconds} : réactivé tel quel, Kueue le désactiverait de "
        "nouveau dès son admission."
    ),
    "workload.requeuing-limit": (
        "Kueue l'a désactivé après {count} évictions : ses pods ne sont jamais devenus prêts dans le délai de "
        "waitForPodsReady, et la limite de remises en file (requeuingStrategy.backoffLimitCount) est atteinte.",
        "Kueue l'a désactivé : ses pods ne sont pas devenus prêts dans le délai de waitForPodsReady trop de fois "
        "(requeuingStrategy.backoffLimitCount).",
    ),
    "workload.admission-gated": "L'admission est retenue par {gates} (annotation kueue.x-k8s.io/admission-gated-by).",
    "scheduling.not-held-by-kueue": "Kueue ne retient pas ce {kind} : si ses pods attendent, voyez le kube-scheduler.",
    "demand.total": ("Il demande à Kueue {total} au total ({shape}).", "Il demande à Kueue {total} au total."),
    "demand.assigned": (
        "Kueue a réservé dans la ClusterQueue {cluster_queue} : {assigned}.",
        "Kueue a réservé du quota dans la ClusterQueue {cluster_queue}.",
    ),
    "conditions.condition": (
        "{type}={status} ({reason}) : « {message} »",
        "{type}={status} ({reason})",
        "{type}={status} : « {message} »",
        "{type}={status}",
    ),
    "conditions.none-yet": "Kueue n'a pas encore écrit QuotaReserved : le scheduler n'a pas encore examiné ce Workload.",
    "conditions.finished": ("Le Workload est terminé ({reason}).", "Le Workload est terminé."),
    "conditions.backoff-until": (
        "Évincé {count} fois ({reason}) ; Kueue le remet en file à {until}, dans {in_seconds}.",
        "Évincé {count} fois ; Kueue le remet en file à {until}, dans {in_seconds}.",
    ),
    "conditions.backoff": (
        "Évincé ({reason}) ; il attend que Kueue le remette en file.",
        "Évincé ; il attend que Kueue le remette en file.",
    ),
    "conditions.evicted-because": "Dernière éviction : « {message} »",
    "conditions.preempted-by-rule": (
        "Il a été préempté par la règle {rule} de la PreemptionConfig {config} pour faire place à {preemptor}.",
        "Il a été préempté par la règle {rule} de la PreemptionConfig {config}.",
    ),
    "conditions.preempted": (
        "Il a été préempté ({why}) ; préempteur : {path}.",
        "Il a été préempté ({why}).",
        "Il a été préempté.",
    ),
    "record.insufficient-unused-quota": (
        "Kueue : le pod set {pod_set} a besoin de {needed} {resource} de plus dans la flavor {flavor}, "
        "utilisés par d'autres en ce moment.",
        "Kueue : pas assez de quota libre ({text}).",
    ),
    "record.exceeds-max-capacity": (
        "Kueue : le pod set {pod_set} demande {requested} {resource} dans la flavor {flavor}, au-delà de la "
        "capacité maximale {maximum} : il n'y rentrera jamais.",
        "Kueue : {resource} dans la flavor {flavor} ne rentrera jamais ({text}).",
        "Kueue : la demande dépasse la capacité maximale ({text}).",
    ),
    "record.resource-not-covered": (
        "Kueue : la ClusterQueue ne couvre pas la ressource {resource}.",
        "Kueue : une ressource demandée n'est pas couverte ({text}).",
    ),
    "record.untolerated-taint": (
        "Kueue : la flavor {flavor} porte le taint {taint}, que le job ne tolère pas.",
        "Kueue : le taint d'une flavor n'est pas toléré ({text}).",
    ),
    "record.node-affinity-mismatch": (
        "Kueue : la flavor {flavor} ne correspond pas au nodeSelector ou à l'affinité du job.",
        "Kueue : aucune flavor ne correspond à l'affinité de nœud ({text}).",
    ),
    "record.flavor-not-found": ("Kueue : la ResourceFlavor {flavor} n'existe pas.", "Kueue : « {text} »"),
    "record.topology-flavor-mismatch": "Kueue : la demande topologique et la flavor ne concordent pas : « {text} »",
    "record.flavor-skipped": "Kueue : « {text} »",
    "record.flavor-assignment-error": "Kueue n'a pas pu attribuer de flavor : « {text} »",
    "record.topology-no-fit": (
        "Kueue : la topologie {topology} ne peut pas placer les pods : « {text} »",
        "Kueue : l'ordonnancement topologique ne peut pas placer les pods : « {text} »",
        "Kueue : la topologie {topology} ne peut pas placer les pods.",
        "Kueue : l'ordonnancement topologique ne peut pas placer les pods.",
    ),
    "record.topology-request-invalid": "Kueue : demande topologique invalide : « {text} »",
    "record.no-longer-fits": "Kueue : un autre workload a pris la capacité dans le même cycle ; nouvel essai bientôt.",
    "record.overlapping-preemption": "Kueue : ses cibles de préemption recoupent celles d'un autre workload : « {text} »",
    "record.preemption-gated": "Kueue : il faut préempter, mais une porte de préemption le retient.",
    "record.pods-ready-block": "Kueue : en attente que tous les workloads admis aient leurs pods prêts.",
    "record.admit-failed": "Kueue n'a pas réussi à l'admettre : « {text} »",
    "record.concurrent-admission": "Kueue (admission concurrente) : « {text} »",
    "record.failed-admission-checks": "Kueue : un contrôle d'admission a échoué (Retry ou Rejected).",
    "record.cluster-queue-inactive": (
        "Kueue : la ClusterQueue {queue} est inactive.",
        "Kueue : la ClusterQueue est inactive ({text}).",
    ),
    "record.cluster-queue-missing": ("Kueue : la ClusterQueue {queue} n'existe pas.", "Kueue : « {text} »"),
    "record.namespace-not-selected": "Kueue : le namespaceSelector de la ClusterQueue ne sélectionne pas ce namespace.",
    "record.namespace-missing": "Kueue : « {text} »",
    "record.requests-exceed-limits": "Kueue : les demandes dépassent les limites : « {text} »",
    "record.limit-range-violation": "Kueue : les demandes enfreignent la LimitRange du namespace : « {text} »",
    "record.local-queue-missing": ("Kueue : la LocalQueue {queue} n'existe pas.", "Kueue : « {text} »"),
    "record.local-queue-inactive": ("Kueue : la LocalQueue {queue} est inactive (arrêtée).", "Kueue : « {text} »"),
    "record.admission-gated": ("Kueue : l'admission est retenue par {detail}.", "Kueue : « {text} »"),
    "record.hold-released": (
        "Kueue : il n'est plus en attente (son StatefulSet est remonté) ; il attend une réservation de quota."
    ),
    "record.admission-gate-cleared": "Kueue : la porte d'admission est levée ; il attend une réservation de quota.",
    "record.pending-evaluation": "Kueue : en attente d'examen dans la file.",
    "record.evaluation-bypassed": "Kueue l'a sauté car un workload équivalent a échoué récemment.",
    "record.deactivated": "Kueue : le workload est désactivé.",
    "record.dra-unsupported": "Kueue : « {text} »",
    "record.dra-unresolved": (
        "Kueue ne peut pas résoudre les demandes de périphériques (DRA) du job : « {text} »",
        "Kueue ne peut pas résoudre les demandes de périphériques (DRA) du job.",
    ),
    "record.delayed-topology-request": "Kueue : des demandes topologiques différées sont en attente.",
    "record.on-hold": "Kueue : le workload est en suspens (par exemple un StatefulSet ramené à zéro).",
    "record.preempted": (
        "Kueue : il a été préempté : « {text} »",
        "Kueue : il a été préempté.",
    ),
    "record.pods-ready-timeout": (
        "Kueue : ses pods n'ont pas été prêts à temps : « {text} »",
        "Kueue : ses pods n'ont pas été prêts à temps.",
    ),
    "record.admission-check-eviction": (
        "Kueue : évincé par un contrôle d'admission : « {text} »",
        "Kueue : évincé par un contrôle d'admission.",
    ),
    "record.node-replacement-failed": (
        "Kueue : pas de remplaçant pour un nœud défaillant : « {text} »",
        "Kueue : pas de remplaçant pour un nœud défaillant.",
    ),
    "record.flavor-migration": (
        "Kueue : évincé pour passer sur une flavor plus favorable : « {text} »",
        "Kueue : évincé pour passer sur une flavor plus favorable.",
    ),
    "record.quota-reserved": "Kueue : « {text} »",
    "record.unknown": "Kueue : « {text} »",
    "record.unknown-state": (
        "Kueue a enregistré un état que ce bot ne connaît pas : {kind} ({reason}) : « {message} »",
        "Kueue a enregistré un état que ce bot ne connaît pas : {kind} ({reason}).",
    ),
    "record.preempting": "Kueue préempte {count} {count|workload|workloads} pour faire de la place.",
    # --- fragments que le moteur place dans d'autres phrases (paramètres detail, notes) ---
    "fragment.taint": "taint {taint} non toléré",
    "fragment.node-labels": "labels de nœud",
    "fragment.on-hold": "raison OnHold",
    "fragment.not-covered": "{resources} non couvert(s)",
    "fragment.missing-flavors": "{count|ResourceFlavor manquante|ResourceFlavors manquantes} : {flavors}",
    "fragment.missing-checks": "{count|AdmissionCheck manquant|AdmissionChecks manquants} : {checks}",
    # --- remarques du moteur sur un message de Kueue (notes d'un fait) ---
    "note.legacy-cohort-wording": "dans la cohorte (formulation de Kueue ≤ v0.9)",
    "note.legacy-maximum-wording": "demande > capacité maximale (formulation de Kueue v0.9.4 à v0.14)",
    "note.legacy-nominal-wording": "demande au-dessus du quota nominal (formulation de Kueue ≤ v0.9)",
    "note.legacy-borrowing-limit": (
        "limite d'emprunt atteinte (formulation de Kueue ≤ v0.9) ; cela ne se résout jamais si la demande "
        "seule la dépasse"
    ),
    "note.not-nominated": "absente de la table de nomination de ce cycle d'ordonnancement",
    "note.variant-not-allowed": "interdite pour cette variante (WorkloadAllowedResourceFlavorAnnotation)",
    "note.original-slice-flavor": "la tranche d'origine du workload est sur la flavor {flavor}",
    "note.raw-taint": "taint {taint}",
    "note.counted-in-slices": "compté en tranches (slices)",
    "note.total-nodes": "nœuds au total : {total}",
    "note.excluded-nodes": "exclus : {excluded}",
    "note.dra-no-fit": (
        "draNoFit : {count} {count|nœud|nœuds} sans les périphériques DRA qu'un pod demande (utilisés par d'autres, ou "
        "marqués d'un taint) ; Kueue réessaie quand les périphériques changent"
    ),
    "record.dra-no-fit": (
        "draNoFit : {count} {count|nœud|nœuds} sans les périphériques DRA qu'un pod demande (utilisés par d'autres, ou "
        "marqués d'un taint) ; Kueue réessaie quand les périphériques changent."
    ),
    "note.cut-by-kueue": "coupé par Kueue",
    "note.unexpected-wording": "formulation inattendue",
    "note.on-hold": (
        "le job est en suspens (par exemple un StatefulSet ramené à zéro) ; Kueue l'admettra quand il reprendra"
    ),
    "note.topology-maybe-temporary": (
        "l'ancienne raison de Kueue ne dit pas s'il tiendrait sur un cluster vide : c'est peut-être temporaire"
    ),
    "note.quota-reserved": "le quota est réservé : ce n'est pas un blocage",
    "note.inferred-from-wording": "déduit d'une formulation que ce bot ne connaît pas",
    "local-queue.missing": (
        "La LocalQueue {queue} n'existe pas dans le namespace {namespace} (il a : {queues}).",
        "La LocalQueue {queue} n'existe pas dans le namespace {namespace}, qui n'a aucune LocalQueue.",
    ),
    "local-queue.ok": (
        "La LocalQueue {queue} existe et alimente la ClusterQueue {cluster_queue}.",
        "La LocalQueue {queue} existe mais ne désigne aucune ClusterQueue.",
    ),
    "local-queue.stopped": "La LocalQueue {queue} est arrêtée (stopPolicy {policy}).",
    "cluster-queue.missing": "La ClusterQueue {cluster_queue} n'existe pas.",
    "cluster-queue.stopped": "La ClusterQueue {cluster_queue} est arrêtée (stopPolicy {policy}).",
    "cluster-queue.inactive": (
        "La ClusterQueue {cluster_queue} est inactive : {detail}.",
        "La ClusterQueue {cluster_queue} est inactive.",
    ),
    "cluster-queue.effective-quotas": (
        "{kind} {name} ordonnance avec status.effectiveQuotas, fixé par {by}, et non avec son "
        "spec.resourceGroups : le quota ci-dessous est celui-là."
    ),
    "cluster-queue.ok": (
        "La ClusterQueue {cluster_queue} est active ({strategy}, cohorte {cohort}) ; {local_queues} {local_queues|LocalQueue|LocalQueues} "
        "{local_queues|l'alimente|l'alimentent}.",
        "La ClusterQueue {cluster_queue} est active ({strategy}, sans cohorte) ; {local_queues} {local_queues|LocalQueue|LocalQueues} "
        "{local_queues|l'alimente|l'alimentent}.",
        "La ClusterQueue {cluster_queue} est active ({strategy}, cohorte {cohort}).",
        "La ClusterQueue {cluster_queue} est active ({strategy}, sans cohorte).",
    ),
    "cluster-queue.namespace-not-selected": (
        "La ClusterQueue {cluster_queue} ne sélectionne pas le namespace {namespace} : son namespaceSelector "
        "exige {requirement} ; le namespace a {has}.",
        "La ClusterQueue {cluster_queue} ne sélectionne pas le namespace {namespace} (namespaceSelector).",
    ),
    "cluster-queue.admitted": ("Admis par la ClusterQueue {cluster_queue}.", "Admis."),
    "cluster-queue.reserved": ("Quota réservé dans la ClusterQueue {cluster_queue}.", "Quota réservé."),
    "flavors.resource-not-covered": "La ClusterQueue {cluster_queue} ne couvre pas {resource} : aucune flavor ne peut en donner.",
    "flavors.stops-to-preempt": (
        "Kueue arrête sa recherche de flavor à {flavor} pour le pod set {pod_set} : la préemption peut y faire "
        "de la place et flavorFungibility.{policy} vaut MayStopSearch, donc la flavor {free}, qui a de la place "
        "maintenant, n'est jamais essayée.",
        "Kueue arrête sa recherche de flavor à {flavor} pour le pod set {pod_set} : la préemption peut y faire "
        "de la place et flavorFungibility.{policy} vaut MayStopSearch.",
    ),
    "flavors.stops-to-borrow": (
        "Kueue prend la flavor {flavor} pour le pod set {pod_set} en empruntant à la cohorte : "
        "flavorFungibility.{policy} vaut MayStopSearch, donc la flavor {free}, qui tient sans emprunt, n'est "
        "jamais essayée.",
        "Kueue prend la flavor {flavor} pour le pod set {pod_set} en empruntant à la cohorte : "
        "flavorFungibility.{policy} vaut MayStopSearch.",
    ),
    "flavors.skips-borrowing": (
        "Kueue prend la flavor {flavor} pour le pod set {pod_set} : la flavor {skipped} ne tient qu'en "
        "empruntant et flavorFungibility.whenCanBorrow vaut TryNextFlavor."
    ),
    "flavors.missing": "La flavor {flavor} n'existe pas.",
    "flavors.taint": "La flavor {flavor} pose le taint {taint} sur ses nœuds ; le pod set {pod_set} ne le tolère pas.",
    "flavors.group-label-keys": (
        "La flavor {flavor} ({labels}) ne pose pas {keys}, que le pod set {pod_set} sélectionne et qu'une autre "
        "flavor de son groupe de ressources pose : ce Kueue (objets v1beta1 : avant v0.17.6, v0.18.2, v0.19.0) "
        "compte alors la flavor comme non correspondante.",
        "La flavor {flavor} (sans labels de nœud) ne pose pas {keys}, que le pod set {pod_set} sélectionne et "
        "qu'une autre flavor de son groupe de ressources pose : ce Kueue (objets v1beta1 : avant v0.17.6, v0.18.2, "
        "v0.19.0) compte alors la flavor comme non correspondante.",
        "La flavor {flavor} n'a pas une clé de label que le pod set {pod_set} sélectionne et qu'une autre flavor de "
        "son groupe de ressources pose : ce Kueue (objets v1beta1 : avant v0.17.6, v0.18.2, v0.19.0) compte alors "
        "la flavor comme non correspondante.",
    ),
    "flavors.recorded-exclusion": (
        "Kueue a consigné que la flavor {flavor} ({labels}) ne correspond pas à l'affinité du pod set {pod_set} : "
        "elle reste exclue.",
        "Kueue a consigné que la flavor {flavor} ne correspond pas à l'affinité du pod set {pod_set} : elle reste "
        "exclue.",
    ),
    "flavors.node-labels": (
        (
            "La flavor {flavor} ({labels}) ne correspond pas au nodeSelector ou à l'affinité du pod set {pod_set}.",
            "La flavor {flavor} ne correspond pas au nodeSelector ou à l'affinité du pod set {pod_set}.",
        )
    ),
    "flavors.no-quota-for": "La flavor {flavor} n'a pas de quota pour {resources}.",
    "quota.fits": (
        "{resource} dans la flavor {flavor} : il faut {requested} ; quota nominal {nominal}, utilisé {used}, "
        "libre {available} : ça rentre."
    ),
    "quota.in-cohort-fits": (
        "{resource} dans la flavor {flavor} : il faut {requested} ; quota nominal {nominal}, utilisé {used}, "
        "libre avec la cohorte {cohort} {available} (au plus {maximum} en empruntant) : ça rentre."
    ),
    "quota.waits": (
        "{resource} dans la flavor {flavor} : il faut {requested} ; quota nominal {nominal}, utilisé {used}, "
        "libre {available} : il en manque {needed}, il attend que d'autres terminent."
    ),
    "quota.in-cohort-waits": (
        "{resource} dans la flavor {flavor} : il faut {requested} ; quota nominal {nominal}, utilisé {used} "
        "(dont {borrowed} emprunté) ; le reste de la cohorte {cohort} prend {elsewhere} au pot commun ; libre "
        "maintenant {available} sur au plus {maximum} : il en manque {needed}, il attend de la capacité."
    ),
    "quota.never-fits": (
        "{resource} dans la flavor {flavor} : il faut {requested}, mais la ClusterQueue {cluster_queue} ne peut "
        "jamais avoir plus de {maximum} (nominal {nominal}, cohorte {cohort}) : ça ne rentrera jamais.",
        "{resource} dans la flavor {flavor} : il faut {requested}, mais la ClusterQueue {cluster_queue} ne peut "
        "jamais avoir plus que son quota nominal {maximum} (pas de cohorte où emprunter) : ça ne rentrera jamais.",
    ),
    "position.in-queue": (
        "Position {position} sur {total} dans la ClusterQueue {cluster_queue} ({local_position} dans la "
        "LocalQueue {local_queue}) ; {ahead} devant ({source}).",
        "Position {position} dans la ClusterQueue {cluster_queue} ({local_position} dans la LocalQueue "
        "{local_queue}) ; {ahead} devant ({source}).",
    ),
    "position.lower-bound": (
        "Position {position} ou plus loin dans la ClusterQueue {cluster_queue} ({local_position} dans la "
        "LocalQueue {local_queue}) : seules les Workloads du namespace {namespace} ont pu être lues, et l'API "
        "pending-workloads de Kueue n'a pas répondu ; celles d'autres namespaces qui la précèdent ne sont pas comptées."
    ),
    "position.ahead": (
        "Devant lui, par priorité : {by_priority} ; ensemble ils demandent {demand}.",
        "Devant lui, par priorité : {by_priority}.",
    ),
    "position.strict-fifo-head": (
        "La ClusterQueue {cluster_queue} est en StrictFIFO : sa tête de file, {head} (priorité {priority}), ne "
        "pourra jamais être admise en l'état ({blocked_by}), et Kueue n'examine rien derrière elle tant qu'un "
        "admin n'agit pas.",
        "La ClusterQueue {cluster_queue} est en StrictFIFO : sa tête de file, {head} (priorité {priority}), "
        "attend de la capacité (il faut encore {head_detail} de libre) et bloque tout ce qui la suit jusqu'à son "
        "admission.",
        "La ClusterQueue {cluster_queue} est en StrictFIFO : sa tête de file, {head} (priorité {priority}), "
        "bloque tout ce qui la suit jusqu'à son admission.",
        "La ClusterQueue {cluster_queue} est en StrictFIFO : la tête de file (priorité {priority}) bloque tout "
        "ce qui la suit jusqu'à son admission.",
    ),
    "admission-checks.provisioning-request": (
        "ProvisioningRequest {request} (tentative {attempt} sur {attempts} au plus, classe {class}) : {conditions}.",
        "ProvisioningRequest {request} (classe {class}) : {conditions}.",
        "ProvisioningRequest {request} : {conditions}.",
    ),
    "admission-checks.provisioning-said": "Le cluster autoscaler dit : {message}",
    "admission-checks.provisioning-none": (
        "Aucune ProvisioningRequest du contrôle {check} n'est encore connue pour ce Workload : Kueue la crée une "
        "fois le quota réservé."
    ),
    "admission-checks.provisioning-retries": (
        "Kueue a réessayé {retries} fois, sur {limit} au plus (retryStrategy.backoffLimitCount de la "
        "ProvisioningRequestConfig {config}) ; la prochaine tentative vient après {after_seconds}.",
        "Kueue a réessayé {retries} fois, sur {limit} au plus (retryStrategy.backoffLimitCount de la "
        "ProvisioningRequestConfig {config}).",
        "Kueue a réessayé {retries} fois, sur {limit} au plus ; la prochaine tentative vient après {after_seconds}.",
        "Kueue a réessayé {retries} fois, sur {limit} au plus (retryStrategy.backoffLimitCount).",
    ),
    "admission-checks.provisioning-inactive": (
        "Le contrôle d'admission {check} n'est pas actif : sa ProvisioningRequestConfig manque ou est fausse, "
        "aucune ProvisioningRequest n'est donc créée."
    ),
    "admission-checks.pod-set-updates": (
        "Le contrôle {check} ajoute aux pods du pod set {pod_set} : nodeSelector {selector}."
    ),
    "admission-checks.check": (
        "Contrôle d'admission {check} ({controller}) : {state} depuis {age_seconds} : {message}",
        "Contrôle d'admission {check} ({controller}) : {state} : {message}",
        "Contrôle d'admission {check} : {state} depuis {age_seconds} : {message}",
        "Contrôle d'admission {check} : {state} : {message}",
        "Contrôle d'admission {check} ({controller}) : {state} depuis {age_seconds}.",
        "Contrôle d'admission {check} : {state} depuis {age_seconds}.",
        "Contrôle d'admission {check} : {state}.",
    ),
    "scheduling.pods": "Pods : {total} en tout, {running} en cours, {pending} en attente d'un nœud.",
    "scheduling.failed": (
        "Le pod {pod} ne peut pas être placé : {message}",
        "Le pod {pod} ne peut pas être placé (les mots du scheduler sont cités plus haut).",
    ),
    "scheduling.gated": "Le pod {pod} est retenu par le(s) scheduling gate(s) {gates}.",
    "scheduling.failed-pods": "{count} pods ({pods}) ne peuvent pas être placés : {message}",
    "scheduling.node-reasons": (
        "Le kube-scheduler, pour le(s) pod(s) {pods} : {fit} {fit|nœud|nœuds} sur {total} conviennent ; les autres : "
        "{reasons}. Préemption : {preemption}.",
        "Le kube-scheduler, pour le(s) pod(s) {pods} : {fit} {fit|nœud|nœuds} sur {total} conviennent ; les autres : {reasons}.",
    ),
    "scheduling.waiting": "Le pod {pod} attend un nœud (pas encore d'événement du scheduler).",
    "scheduling.label-excludes": (
        "Aucun des {nodes} {nodes|nœud connu|nœuds connus} n'a le label {label} qu'exige le pod {pod} (nodeSelector) : ce label "
        "exclut tous les nœuds."
    ),
    "scheduling.flavor-nodes": (
        "La flavor {flavor} envoie les pods sur les nœuds {labels} : {nodes} {nodes|nœud|nœuds} de ce type {nodes|connu|connus}."
    ),
    "action.did-you-mean": "Vouliez-vous dire {names} ?",
    "action.other-namespace": "Un job nommé {name} existe dans le(s) namespace(s) {namespaces}.",
    "action.check-name": (
        "Vérifiez le nom et le namespace du job : kubectl get {resource} -n {namespace}",
        "Vérifiez le nom et le namespace du job : kubectl get jobs -n {namespace}",
    ),
    "action.add-queue-label": "Pour que Kueue le mette en file, donnez au label {label} l'une de ces valeurs : {queues}.",
    "action.ask-admin-local-queue": "Demandez à un admin une LocalQueue dans le namespace {namespace}.",
    "action.add-group-pods": (
        "Créez {missing|le|les} {missing} {missing|pod|pods} {missing|manquant|manquants} du groupe {group} (label {label}={group}, annotation "
        "{annotation}={total}, la même file), ou baissez {annotation} sur chaque pod du groupe."
    ),
    "action.set-group-total": "Posez l'annotation {annotation} (le nombre de pods) sur chaque pod du groupe {group}.",
    "action.align-group-pods": (
        "Donnez à chaque pod du groupe {group} le même label de file et la même {annotation}, puis recréez les "
        "pods discordants."
    ),
    "action.ask-admin-kueue": (
        "Regardez les événements du job (kubectl describe) et demandez à un admin si Kueue gère les {kind} ici."
    ),
    "action.fix-queue-name": "Corrigez le label {label} : utilisez {queue} (files disponibles : {queues}).",
    "action.fix-and-resubmit": "Corrigez ce que le contrôle d'admission a signalé, puis soumettez le job de nouveau.",
    "action.reactivate": (
        "Réactivez-le une fois la cause corrigée : kubectl patch workload -n {namespace} {workload} --type merge "
        '-p \'{"spec":{"active":true}}\''
    ),
    "action.raise-max-exec-time": (
        "S'il lui faut plus longtemps, relevez (ou retirez) le label {label} du {kind} suspendu : kubectl label "
        "{kind} -n {namespace} {name} {label}=<secondes> --overwrite ; Kueue remplace alors son Workload avec la "
        "nouvelle limite."
    ),
    "action.ask-admin-check": (
        "Demandez à un admin de corriger l'AdmissionCheck {check} (kubectl describe admissioncheck {check})."
    ),
    "action.ask-admin-autoscaler": (
        "Le cluster autoscaler n'a pas répondu à la ProvisioningRequest {request} : demandez à un admin s'il "
        "tourne avec la prise en charge des ProvisioningRequest pour la classe {class}.",
        "Le cluster autoscaler n'a pas répondu à la ProvisioningRequest {request} : demandez à un admin s'il "
        "tourne avec la prise en charge des ProvisioningRequest.",
    ),
    "action.provisioning-gave-up": (
        "Le cluster autoscaler n'a pas pu fournir les nœuds en {attempts} {attempts|tentative|tentatives} : voyez avec un admin la "
        "capacité de la classe {class}, ou demandez moins ou d'autres ressources, puis soumettez de nouveau.",
        "Le cluster autoscaler n'a pas pu fournir les nœuds en {attempts} {attempts|tentative|tentatives} : voyez avec un admin la "
        "capacité, ou demandez moins ou d'autres ressources, puis soumettez de nouveau.",
    ),
    "action.provisioning-revoked": (
        "La capacité fournie a été reprise (CapacityRevoked) : le contrôle {check} l'a rejetée et Kueue l'a "
        "désactivé ; soumettez de nouveau (ou réactivez) pour demander de nouveaux nœuds."
    ),
    "action.fix-prebuilt": (
        "Refaites le Workload {workload} à partir du {kind} tel qu'il est, ou retirez le label {label} du {kind} "
        "pour que Kueue crée son propre Workload."
    ),
    "action.check-scheduler": (
        "C'est l'affaire du kube-scheduler : kubectl describe pod -n {namespace} {pod} montre pourquoi il attend."
    ),
    "action.ask-admin-nodes": "S'il manque des nœuds ou s'ils sont pleins, voyez avec un admin la capacité ou l'autoscaler.",
    "action.wait-for-checks": "Attendez {checks} ; des nœuds sont peut-être en cours de création.",
    "action.end-hold": (
        "Il revient dans la file quand la suspension prend fin : remontez son StatefulSet (replicas au-dessus de 0), "
        "ou demandez à qui l'a suspendu ; `kubectl -n {namespace} describe workload {workload}` montre la suspension."
    ),
    "action.unknown-state": (
        "Ce bot ne connaît pas cet état et ne peut pas dire la suite : lisez-le avec `kubectl -n {namespace} "
        "describe workload {workload}` et demandez à l'admin du cluster (un Kueue plus récent que ce bot ?)."
    ),
    "action.wait": (
        "Attendez : Kueue l'admettra quand son tour viendra et que ceci de plus sera libre dans la ClusterQueue "
        "{cluster_queue} (flavor {flavor}) : {needed}.",
        "Attendez : Kueue l'admettra quand son tour viendra et que la capacité sera libre.",
    ),
    "action.ask-gate-owner": (
        "Demandez à qui a posé la porte d'admission ({gates}) de la lever.",
        "Demandez à qui a posé la porte d'admission de la lever.",
    ),
    "action.check-pods-ready": (
        "Ses pods ne sont pas devenus prêts à temps : vérifiez l'image, les volumes et les événements de ses pods."
    ),
    "action.wait-backoff": (
        "Attendez jusqu'à {until}, ou corrigez ce qui fait échouer les pods.",
        "Attendez la fin du délai.",
    ),
    "action.ask-admin-resume": "Demandez à un admin de relancer la {kind} {queue} (stopPolicy: None).",
    "action.ask-admin-cluster-queue": (
        "Demandez à un admin de créer la ClusterQueue {cluster_queue} ou de corriger la LocalQueue.",
        "Demandez à un admin de corriger la LocalQueue : elle ne désigne aucune ClusterQueue.",
    ),
    "action.ask-admin-inactive": (
        "Demandez à un admin de réparer la ClusterQueue {cluster_queue} : {detail}.",
        "Demandez à un admin de réparer la ClusterQueue {cluster_queue}.",
    ),
    "action.ask-admin-namespace": (
        "Demandez à un admin de poser le label {label} sur le namespace {namespace} (kubectl label namespace "
        "{namespace} {label} --overwrite), ou de changer le namespaceSelector de la ClusterQueue {cluster_queue} "
        "(il exige {requirement}).",
        "Demandez à un admin que la ClusterQueue {cluster_queue} sélectionne le namespace {namespace} (son "
        "namespaceSelector exige {requirement}).",
        "Demandez à un admin que la ClusterQueue {cluster_queue} sélectionne le namespace {namespace}.",
    ),
    "action.lower-min-count": (
        "Abaissez son minimum de {min_pods} à {pods} {pods|pod|pods} ou moins (kueue.x-k8s.io/job-min-parallelism sur "
        "un Job, minCount de son pod set sinon) : Kueue l'admet partiellement, jamais sous le minimum."
    ),
    "action.shrink-request": "Réduisez le job à {pods} {pods|pod|pods} au plus : c'est ce que la ClusterQueue {cluster_queue} peut contenir.",
    "action.shrink-to-start-now": "Avec {pods} {pods|pod|pods} ou moins, il rentrerait dans ce qui est libre maintenant.",
    "action.ask-admin-quota": (
        "Ou demandez à un admin de porter les quotas de la ClusterQueue {cluster_queue} dans la flavor {flavor} "
        "à au moins : {quotas} (quota nominal, ou emprunt dans une cohorte).",
        "Ou demandez à un admin de porter le quota de {resource} de la ClusterQueue {cluster_queue} dans la "
        "flavor {flavor} à au moins {requested} (quota nominal, ou emprunt dans une cohorte).",
    ),
    "action.ask-admin-priority": "Si c'est urgent, demandez une WorkloadPriorityClass plus haute (la préemption peut jouer).",
    "action.add-toleration": "Ajoutez une toleration pour {taint} au modèle de pod du job.",
    "action.ask-admin-flavor-keys": (
        "Demandez à un admin de mettre Kueue à jour (v0.17.6, v0.18.2, v0.19.0 ou plus ne comptent que les clés de "
        "label de la flavor elle-même), ou de poser {keys} dans les nodeLabels de la flavor {flavor} si ses nœuds "
        "l'ont.",
        "Demandez à un admin de mettre Kueue à jour (v0.17.6, v0.18.2, v0.19.0 ou plus ne comptent que les clés de "
        "label de la flavor elle-même).",
    ),
    "action.check-node-selector": (
        "{nodes} {nodes|nœud ne correspond|nœuds ne correspondent} pas au nodeSelector ou à l'affinité des pods : comparez-les (avec les "
        "labels qu'ajoute la flavor) aux labels des nœuds (kubectl get nodes --show-labels)."
    ),
    "action.fix-node-selector": "Faites correspondre le nodeSelector ou l'affinité du job aux labels de nœud d'une flavor.",
    "action.ask-admin-cover": (
        "Demandez à un admin de couvrir {resource} dans la ClusterQueue {cluster_queue}.",
        "Demandez à un admin de couvrir {resource} dans la ClusterQueue.",
    ),
    "action.use-other-queue": (
        "La LocalQueue {queue} (ClusterQueue {cluster_queue}) pourrait le prendre : mettez le label {label}={queue}."
    ),
    "action.fix-requests": "Corrigez les demandes et limites de ressources du job.",
    "action.relax-topology": "Assouplissez la demande topologique du job, ou voyez avec un admin la capacité de la topologie.",
    "terminal.position": (
        "{position} dans la ClusterQueue {cluster_queue}, {local_position} dans la LocalQueue {local_queue} ({source})",
        "{position} dans la ClusterQueue {cluster_queue} ({source})",
    ),
    "terminal.position-at-least": (
        "{position} ou plus loin dans la ClusterQueue {cluster_queue}, {local_position} dans la LocalQueue "
        "{local_queue} (seules les Workloads de ce namespace ont pu être lues)",
        "{position} ou plus loin dans la ClusterQueue {cluster_queue} (seules les Workloads de ce namespace ont pu "
        "être lues)",
    ),
    "terminal.demand": "Demande : {demand}",
    "slack.snoozed": "En pause : plus de nouvelles de {job} avant {until}.",
    "slack.stopped": "Arrêté : plus aucun message au sujet de {job}.",
    "slack.why.which-job": "Quel job ? Nommez-le avec son namespace, {full}, ou seulement son nom, {short} : je le cherche dans les namespaces que ce canal peut voir.",
    "slack.private_answer": ":lock: Vous seul voyez cette réponse : tout le monde dans cette conversation n'a pas accès au namespace {namespace}.",
    "slack.bad_button": "Ce bouton est périmé ou ne vient pas de moi : je ne peux rien en faire. Reposez la question : {how}.",
    "slack.muted": "Sourdine : je ne vous enverrai plus de message spontané jusqu'à {unmute}. Vos questions ont toujours leur réponse.",
    "slack.unmuted": "Sourdine levée : je vous préviendrai de nouveau quand un job que vous possédez ou suivez reste en attente.",
    "label.verdict": "Verdict",
    "label.position": "Position",
    "label.next": "Ce que vous pouvez faire",
    "label.steps": "Le chemin d'admission",
    "label.snapshot-age": "État du cluster vu {age_ago}.",
    "label.workload": "Workload",
    "label.none": "aucun",
    # --- Slack (bot/slack/render.py) ---
    # Les noms et les textes du cluster arrivent déjà mis en forme (code, échappés) ; ces mots restent du texte brut.
    "slack.family.never": "Ne démarrera pas en l'état",
    "slack.family.waits": "En attente",
    "slack.family.ok": "Rien n'est en attente",
    "slack.summary.verdict": "Verdict {verdict}",
    "slack.summary.position": (
        "{cq_position} sur {total} dans la ClusterQueue {cluster_queue} ; {lq_position} dans la LocalQueue {local_queue}",
        "{cq_position} dans la ClusterQueue {cluster_queue} ; {lq_position} dans la LocalQueue {local_queue}",
        "{cq_position} sur {total} dans la ClusterQueue {cluster_queue}",
        "{cq_position} dans la ClusterQueue {cluster_queue}",
    ),
    "slack.summary.position-at-least": (
        "{cq_position} ou plus loin dans la ClusterQueue {cluster_queue} (seul le namespace {namespace} a pu être lu)",
        "{cq_position} ou plus loin dans sa ClusterQueue (seul le namespace {namespace} a pu être lu)",
    ),
    "slack.summary.position-unnamed": (
        "{cq_position} sur {total} dans sa ClusterQueue ; {lq_position} dans sa LocalQueue",
        "{cq_position} dans sa ClusterQueue ; {lq_position} dans sa LocalQueue",
        "{cq_position} sur {total} dans sa ClusterQueue",
        "{cq_position} dans sa ClusterQueue",
    ),
    "slack.summary.age": "état vu {age_ago}",
    "slack.summary.fallback": "{family} ({verdict}) : {headline}",
    "slack.ordinal.first": "{n}er",
    "slack.ordinal.one": "{n}e",
    "slack.ordinal.two": "{n}e",
    "slack.ordinal.few": "{n}e",
    "slack.ordinal.other": "{n}e",
    "slack.button.recheck": "Revérifier",
    "slack.button.watch": "Suivre ce job",
    "slack.button.show-queue": "Voir la file",
    "slack.button.snooze-2h": "Plus tard (2 h)",
    "slack.button.snooze-1d": "Plus tard (1 jour)",
    "slack.button.stop": "Arrêter",
    "slack.button.unwatch": "Ne plus suivre",
    "slack.details.title": "Le chemin d'admission de {job}",
    "slack.details.step.job": "Job",
    "slack.details.step.workload": "Workload",
    "slack.details.step.demand": "Demande",
    "slack.details.step.conditions": "Ce que Kueue a noté",
    "slack.details.step.local-queue": "LocalQueue",
    "slack.details.step.cluster-queue": "ClusterQueue",
    "slack.details.step.flavors": "Flavors",
    "slack.details.step.quota": "Quota",
    "slack.details.step.position": "Place dans la file",
    "slack.details.step.admission-checks": "Contrôles d'admission",
    "slack.details.step.scheduling": "Placement des pods",
    "slack.details.step.other": "Autres vérifications",
    "slack.details.ahead": "Devant lui : {names}",
    "slack.details.ahead-item": "{name} (priorité {priority})",
    "slack.details.ahead-others": "{count} {count|workload|workloads} d'autres namespaces",
    "slack.details.next": "Ce que vous pouvez faire",
    "slack.details.more-steps": "{count} {count|étape|étapes} de plus, non {count|affichée|affichées} ici.",
    "slack.details.more-actions": "{count} {count|suggestion|suggestions} de plus, non {count|affichée|affichées} ici.",
    "slack.details.fallback": "Le chemin d'admission de {job} : {steps} {steps|étape|étapes}, dont {failed} en échec.",
    "slack.queue.title": "LocalQueue {queue}",
    "slack.queue.feeds": (
        "Alimente la ClusterQueue {cluster_queue} ({strategy}, cohorte {cohort}).",
        "Alimente la ClusterQueue {cluster_queue} ({strategy}, sans cohorte).",
        "Alimente la ClusterQueue {cluster_queue}.",
    ),
    "slack.queue.missing": "La LocalQueue {queue} n'existe pas dans le namespace {namespace}.",
    "slack.queue.cluster-queue-missing": (
        "Sa ClusterQueue {cluster_queue} n'existe pas : rien de cette file ne peut être admis.",
    ),
    "slack.queue.stopped": (
        "La {kind} {stopped} est arrêtée (stopPolicy {policy}) : rien de nouveau n'est admis tant qu'un admin ne la relance pas.",
        "La file est arrêtée : rien de nouveau n'est admis tant qu'un admin ne la relance pas.",
    ),
    "slack.queue.inactive": (
        "La ClusterQueue {cluster_queue} est inactive ({detail}) : elle n'admet rien tant qu'un admin ne l'a pas réparée.",
        "La ClusterQueue {cluster_queue} est inactive : elle n'admet rien tant qu'un admin ne l'a pas réparée.",
    ),
    "slack.queue.open": "Ouverte : elle admet des workloads dans la limite du quota.",
    "slack.queue.quota-title": "Quota par flavor et par ressource",
    "slack.queue.quota-line": (
        "{flavor} · {resource} : nominal {nominal}, utilisé {used} (dont {borrowed} emprunté), libre avec la "
        "cohorte {cohort} {available}, au plus {maximum} en empruntant",
        "{flavor} · {resource} : nominal {nominal}, utilisé {used}, libre avec la cohorte {cohort} {available}, "
        "au plus {maximum} en empruntant",
        "{flavor} · {resource} : nominal {nominal}, utilisé {used}, libre {available} (pas de cohorte où emprunter)",
    ),
    "slack.queue.no-quota": "Aucun quota à afficher.",
    "slack.queue.counts": (
        "{pending_total} en attente dans la ClusterQueue {cluster_queue}, dont {pending_here} venant de cette "
        "LocalQueue ; {admitted_here} admis depuis celle-ci."
    ),
    "slack.queue.waiting-title": "Qui attend, dans l'ordre de Kueue",
    "slack.queue.waiting-line": (
        "{position}. {name} · priorité {priority} · {demand}",
        "{position}. autre namespace · priorité {priority} · {demand}",
    ),
    "slack.queue.other-namespaces": "{count} {count|workload|workloads} d'autres namespaces",
    "slack.queue.nobody-waits": "Personne n'attend.",
    "slack.queue.more": "et {count} de plus",
    "slack.queue.fallback": "LocalQueue {queue} : {pending_here} en attente, {admitted_here} admis.",
    "slack.help.title": "Ce que je sais faire",
    "slack.help.intro": (
        "J'explique pourquoi un job attend sous Kueue. Mentionnez-moi, écrivez-moi en message direct, ou "
        "utilisez {command} :"
    ),
    "slack.help.why": "{example} : pourquoi ce job ne tourne pas, puis son chemin d'admission dans le fil.",
    "slack.help.queue": "{example} : l'état d'une LocalQueue, son quota et qui attend.",
    "slack.help.watch": "{example} : un message direct quand il est admis, se termine ou reste bloqué.",
    "slack.help.unwatch": "{example} : plus aucun message à son sujet.",
    "slack.help.mute": "{example} : plus aucun message spontané jusqu'à {unmute}.",
    "slack.help.help": "{example} : cette aide.",
    "slack.help.free-text": (
        "Vous pouvez aussi simplement demander : {first}, {second}, ou coller une ligne kubectl comme {third}."
    ),
    "slack.help.kinds": "Les autres sortes de jobs marchent aussi : {example}.",
    "slack.help.placeholder.namespace": "namespace",
    "slack.help.placeholder.job": "job",
    "slack.help.placeholder.queue": "localqueue",
    "slack.help.example.question": "pourquoi train-octobre est en attente ?",
    "slack.help.fallback": "Mode d'emploi : {example}",
    "slack.choose.title": "Plusieurs jobs correspondent à {name}. Lequel voulez-vous dire ?",
    "slack.choose.title-any": "Plusieurs jobs correspondent. Lequel voulez-vous dire ?",
    "slack.choose.queue": "Plusieurs namespaces ont une LocalQueue nommée {name}. Laquelle voulez-vous dire ?",
    "slack.choose.item": "{kind} {job}",
    "slack.choose.more": "et {count} de plus : précisez namespace/nom pour en choisir un.",
    "slack.did-you-mean.title": "Je n'ai trouvé aucun job nommé {name}. Vouliez-vous dire l'un de ceux-ci ?",
    "slack.not-found.title": (
        "Je n'ai trouvé aucun {kind} {job}.",
        "Je n'ai trouvé aucun {kind} nommé {name}.",
    ),
    "slack.not-found.suggest": "Vouliez-vous dire l'un de ceux-ci ?",
    "slack.not-found.hint": (
        "Vérifiez le nom et le namespace, par exemple {example} ; `/kueue help` dit à quoi je sais répondre."
    ),
    "slack.kind.any": "job",
    "slack.refused": (
        "Désolé, je ne peux pas répondre au sujet du namespace {namespace} ici. Si vous devriez y avoir accès, "
        "demandez aux admins du bot de vous l'ouvrir, à vous ou à ce canal.",
        "Désolé, je ne peux pas répondre au sujet de ce namespace ici. Si vous devriez y avoir accès, demandez-le "
        "aux admins du bot.",
    ),
    "slack.apology": (
        "Désolé, quelque chose s'est mal passé de mon côté et je n'ai pas pu répondre. Si cela se reproduit, "
        "donnez ce numéro d'incident aux admins du bot : {incident}."
    ),
    "slack.unavailable": (
        "Je n'arrive pas à joindre le cluster en ce moment, et ce que j'en ai vu en dernier date de {age_seconds} : "
        "trop ancien pour répondre. Réessayez dans quelques minutes.",
        "Je n'arrive pas à joindre le cluster en ce moment. Réessayez dans quelques minutes.",
    ),
    "slack.watch.confirmed": (
        "Suivi activé pour {job} : je vous enverrai un message direct quand il sera admis, quand il se terminera, ou si "
        "Kueue constate qu'il ne peut pas être admis."
    ),
    "slack.unwatch.confirmed": "C'est fait : vous ne recevrez plus de messages au sujet de {job}.",
    "slack.cluster.unknown": (
        "Je ne sers aucun cluster nommé {cluster} ; vouliez-vous dire {suggestion} ? Les clusters que je sers : {known}.",
        "Je ne sers aucun cluster nommé {cluster}. Les clusters que je sers : {known}.",
    ),
    "slack.unknown": (
        "Je n'ai pas compris {text}. Tapez {help} pour voir ce que je sais faire.",
        "Je n'ai pas compris. Tapez {help} pour voir ce que je sais faire.",
    ),
    "slack.notify.inadmissible": "{job} attend toujours : Kueue ne l'a pas encore admis.",
    "slack.notify.never-fits": "{job} ne démarrera jamais avec la configuration actuelle.",
    "slack.notify.updated": "Du nouveau pour {job}.",
    "slack.notify.footer": (
        "Vous recevez ce message parce que vous suivez ce job ou qu'il vous désigne. Arrêter met fin à ces messages "
        "pour lui."
    ),
    "slack.closed.admitted": ("{job} a été admis après {waited_seconds}.", "{job} a été admis."),
    "slack.closed.finished": (
        "{job} est terminé ; il avait attendu {waited_seconds} avant d'être admis.",
        "{job} est terminé.",
    ),
    "slack.closed.deleted": ("{job} a été supprimé après {waited_seconds} d'attente.", "{job} a été supprimé."),
    "slack.closed.stopped": "Je cesse de le suivre.",
    "slack.digest.title": "Du nouveau pour {count} de vos jobs",
    "slack.digest.counts": "Par verdict : {counts}",
    "slack.digest.more": "et {count} de plus",
    "slack.digest.fallback": "Du nouveau pour {count} de vos jobs : {counts}",
    "slack.home.title": "Les jobs que vous suivez",
    "slack.home.intro": "Leur état lors de mon dernier regard sur le cluster.",
    "slack.home.empty": (
        "Vous ne suivez encore aucun job. Pour recevoir un message direct quand un job est admis ou bloqué, "
        "utilisez {example} ou appuyez sur {button} sous l'une de mes réponses."
    ),
    "slack.home.no-news": (
        "Pas de réponse pour lui en ce moment : il a peut-être été supprimé, ou le cluster est injoignable."
    ),
    "slack.home.more": "et {count} de plus",
    # --- quand partira-t-il, qui tient ce qu'il attend, qu'est-ce qui le ferait admettre -----------
    "eta.estimate.cluster-queue": (
        "Probablement entre {low_seconds} et {high_seconds}, au plus tard dans {bound_seconds} (durée maximale "
        "d'exécution des jobs en cours) (d'après {admissions} admissions dans cette ClusterQueue ces dernières "
        "{hours} h ; {confidence} % des attentes passées à cette position ont fini dans cet intervalle).",
        "Probablement entre {low_seconds} et {high_seconds} (d'après {admissions} admissions dans cette "
        "ClusterQueue ces dernières {hours} h ; {confidence} % des attentes passées à cette position ont fini "
        "dans cet intervalle).",
        "Probablement d'ici {high_seconds} (d'après {admissions} admissions dans cette ClusterQueue ces "
        "dernières {hours} h ; {confidence} % des attentes passées à cette position ont fini dans ce délai).",
    ),
    "eta.estimate.flavor": (
        "Probablement entre {low_seconds} et {high_seconds}, au plus tard dans {bound_seconds} (durée maximale "
        "d'exécution des jobs en cours) (d'après {admissions} admissions dans cette flavor de la ClusterQueue ces "
        "dernières {hours} h ; {confidence} % des attentes passées à cette position ont fini dans cet "
        "intervalle).",
        "Probablement entre {low_seconds} et {high_seconds} (d'après {admissions} admissions dans cette flavor de "
        "la ClusterQueue ces dernières {hours} h ; {confidence} % des attentes passées à cette position ont "
        "fini dans cet intervalle).",
        "Probablement d'ici {high_seconds} (d'après {admissions} admissions dans cette flavor de la ClusterQueue "
        "ces dernières {hours} h ; {confidence} % des attentes passées à cette position ont fini dans ce "
        "délai).",
    ),
    "eta.no-estimate": (
        "Pas encore d'estimation : je n'ai vu que {admissions} {admissions|admission|admissions} dans cette ClusterQueue ces "
        "dernières {hours} h, trop peu pour le dire.",
    ),
    "eta.never": "Pas d'estimation : tel quel, il ne sera jamais admis (les étapes disent ce qui changerait cela).",
    "holders.contest": (
        "{resource} de la flavor {flavor} : il en faut {needed} de plus ; {count} {count|workload admis le tient|workloads admis le tiennent} : "
        "{held_here} dans {cluster_queue}, {held_in_cohort} ailleurs dans la cohorte {cohort}.",
        "{resource} de la flavor {flavor} : il en faut {needed} de plus ; {count} {count|workload admis le tient|workloads admis le tiennent} : "
        "{held_here} dans {cluster_queue}.",
        "{resource} de la flavor {flavor} : {count} {count|workload admis le tient|workloads admis le tiennent} : {held_here} dans "
        "{cluster_queue}, {held_in_cohort} ailleurs dans la cohorte {cohort}.",
        "{resource} de la flavor {flavor} : {count} {count|workload admis le tient|workloads admis le tiennent} : {held_here} dans {cluster_queue}.",
    ),
    "holders.item": (
        "{name} ({cluster_queue}) : {amount}, en cours depuis {running_seconds}, encore {left_seconds} au plus",
        "{name} ({cluster_queue}) : {amount}, en cours depuis {running_seconds}",
        "{name} ({cluster_queue}) : {amount}",
    ),
    "holders.item.borrowing": (
        "{name} ({cluster_queue}, emprunte) : {amount}, en cours depuis {running_seconds}, encore "
        "{left_seconds} au plus",
        "{name} ({cluster_queue}, emprunte) : {amount}, en cours depuis {running_seconds}",
        "{name} ({cluster_queue}, emprunte) : {amount}",
    ),
    "holders.item.preemptible": (
        "{name} ({cluster_queue}, préemptible par un job de cette priorité) : {amount}, en cours depuis "
        "{running_seconds}, encore {left_seconds} au plus",
        "{name} ({cluster_queue}, préemptible par un job de cette priorité) : {amount}, en cours depuis "
        "{running_seconds}",
        "{name} ({cluster_queue}, préemptible par un job de cette priorité) : {amount}",
    ),
    "holders.item.reclaimable": (
        "{name} ({cluster_queue}, emprunte, récupérable par cette file) : {amount}, en cours depuis "
        "{running_seconds}, encore {left_seconds} au plus",
        "{name} ({cluster_queue}, emprunte, récupérable par cette file) : {amount}, en cours depuis {running_seconds}",
        "{name} ({cluster_queue}, emprunte, récupérable par cette file) : {amount}",
    ),
    "holders.others": "{count} {count|workload|workloads} d'autres namespaces : {amount}",
    "holders.more": "et {count} de plus",
    "holders.reclaim": "Une récupération dans la cohorte rendrait {amount} : du quota de cette file que d'autres empruntent.",
    "holders.preemptible": "Un job de cette priorité pourrait préempter des workloads qui en tiennent {amount}.",
    "holders.none-preemptible": (
        "Aucun ne peut être préempté par un job de cette priorité (préemption : withinClusterQueue {within}, "
        "reclaimWithinCohort {reclaim}).",
    ),
    "holders.strict-fifo": (
        "StrictFIFO : {name} (priorité {priority}), en tête de file depuis {since_seconds}, doit être admis d'abord.",
        "StrictFIFO : {name} (priorité {priority}), en tête de file, doit être admis d'abord.",
    ),
    "holders.strict-fifo-hidden": (
        "StrictFIFO : un workload d'un autre namespace (priorité {priority}), en tête de file, doit être admis "
        "d'abord.",
    ),
    "holders.pods-ready": (
        "Kueue n'admet rien tant que {count} {count|workload admis n'a pas ses|workloads admis n'ont pas leurs} pods prêts "
        "(waitForPodsReady.blockAdmission) : {names}, et {hidden} d'autres namespaces.",
        "Kueue n'admet rien tant que {count} {count|workload admis n'a pas ses|workloads admis n'ont pas leurs} pods prêts "
        "(waitForPodsReady.blockAdmission) : {names}.",
        "Kueue n'admet rien tant que {count} {count|workload admis|workloads admis} d'autres namespaces {count|n'a pas ses|n'ont pas leurs} pods prêts "
        "(waitForPodsReady.blockAdmission) ; {hidden} d'entre eux.",
        "Kueue n'admet rien tant que {count} {count|workload admis n'a pas ses|workloads admis n'ont pas leurs} pods prêts "
        "(waitForPodsReady.blockAdmission).",
    ),
    "whatif.other-queue.now": (
        "Soumettez-le à la LocalQueue {queue} (ClusterQueue {cluster_queue}) : il serait admis tout de suite."
    ),
    "whatif.other-queue.ever": "Soumettez-le à la LocalQueue {queue} (ClusterQueue {cluster_queue}) : il y tiendrait.",
    "whatif.fewer-pods.now": "Lancez {pods} {pods|pod|pods} au lieu de {was_pods} : ils seraient admis tout de suite.",
    "whatif.fewer-pods.ever": "Lancez {pods} {pods|pod|pods} au lieu de {was_pods} : ils tiennent dans le maximum de la file.",
    "whatif.partial-admission.now": (
        "Ou laissez Kueue l'admettre en partie, jusqu'à {pods} {pods|pod|pods} (minCount ; pour un Job, l'annotation "
        "kueue.x-k8s.io/job-min-parallelism) : il partirait tout de suite.",
    ),
    "whatif.partial-admission.ever": (
        "Ou laissez Kueue l'admettre en partie, jusqu'à {pods} {pods|pod|pods} (minCount ; pour un Job, l'annotation "
        "kueue.x-k8s.io/job-min-parallelism) : il tiendrait alors.",
    ),
    "whatif.smaller-request.now": (
        "Demandez au plus {per_pod} de {resource} par pod (aujourd'hui {was_per_pod}) : il serait admis tout de suite."
    ),
    "whatif.smaller-request.ever": (
        "Demandez au plus {per_pod} de {resource} par pod (aujourd'hui {was_per_pod}) : il tiendrait dans le "
        "maximum de la file."
    ),
    "whatif.other-flavor.now": (
        "Laissez-le tourner sur la flavor {flavor} (nodeSelector {labels} ; tolérer {taints}) : il y a de la "
        "place tout de suite.",
        "Laissez-le tourner sur la flavor {flavor} (nodeSelector {labels}) : il y a de la place tout de suite.",
        "Laissez-le tourner sur la flavor {flavor} (tolérer {taints}) : il y a de la place tout de suite.",
        "Laissez-le tourner sur la flavor {flavor} : il y a de la place tout de suite.",
    ),
    "whatif.other-flavor.ever": (
        "Laissez-le tourner sur la flavor {flavor} (nodeSelector {labels} ; tolérer {taints}) : il y tiendrait.",
        "Laissez-le tourner sur la flavor {flavor} (nodeSelector {labels}) : il y tiendrait.",
        "Laissez-le tourner sur la flavor {flavor} (tolérer {taints}) : il y tiendrait.",
        "Laissez-le tourner sur la flavor {flavor} : il y tiendrait.",
    ),
    "whatif.raise-quota.now": (
        "Un admin relèverait le quota nominal de {resource} de la flavor {flavor} de {cluster_queue} de {by} "
        "(à {to}) : il serait admis tout de suite."
    ),
    "whatif.raise-quota.ever": (
        "Un admin relèverait le quota nominal de {resource} de la flavor {flavor} de {cluster_queue} de {by} "
        "(à {to}) : il tiendrait alors."
    ),
    "whatif.none": "Aucun changement du job ou de sa file que je sache vérifier ne le ferait admettre.",
    "slack.focus.who": (
        "Quel job ? Je réponds pour un job à la fois : demandez « qui tient ce qu'attend team-a/train ? » et je "
        "liste les workloads admis qui utilisent la capacité qu'il attend, depuis quand ils tournent, lesquels "
        "empruntent et lesquels pourraient être préemptés."
    ),
    "slack.focus.when": (
        "Quel job ? Demandez « quand team-a/train partira-t-il ? » : je donne un intervalle probable et ce sur "
        "quoi il repose."
    ),
    "slack.summary.when": "Quand : {eta}",
    "slack.details.step.holders": "Qui le tient",
    "slack.details.step.what-if": "Ce qui le ferait admettre",
    # « qui utilise les GPU ? » sur tout le cluster (bot.slack.render_who)
    "slack.who.title": "Qui utilise {resource}",
    "slack.who.scope": (
        "{resource} de la saveur {flavor} de {cluster_queue} : {total} tenus par {count} workloads.",
        "{resource} dans {cluster_queue} : {total} tenus par {count} workloads.",
        "{resource} de la saveur {flavor} : {total} tenus par {count} {count|workload|workloads} dans {queues} {queues|ClusterQueue|ClusterQueues}.",
        "{resource} : {total} tenus par {count} {count|workload|workloads} dans {queues} {queues|ClusterQueue|ClusterQueues}.",
    ),
    "slack.who.nobody": "Personne ne tient de {resource} en ce moment{where}.",
    "slack.who.where": (
        " dans la saveur {flavor} de {cluster_queue}",
        " dans {cluster_queue}",
        " dans la saveur {flavor}",
    ),
    "slack.who.queue": (
        "{cluster_queue} (cohorte {cohort}) : {used} sur {nominal} nominaux",
        "{cluster_queue} : {used} sur {nominal} nominaux",
        "{cluster_queue} (cohorte {cohort}) : {used}",
        "{cluster_queue} : {used}",
    ),
    "slack.who.namespace": "{namespace} : {amount} ({count} {count|workload|workloads})",
    "slack.who.holder": ("{name} : {amount}, depuis {running_seconds}", "{name} : {amount}"),
    "slack.who.more": "et {count} de plus",
    "slack.who.hidden": "{count} {count|workload|workloads} dans des namespaces que vous ne pouvez pas voir ici : {amount}",
    "slack.who.more-queues": "et {count} ClusterQueues de plus",
    "slack.who.unknown": "Je ne connais ni ressource, ni saveur, ni ClusterQueue nommée {word}. Essayez : {known}.",
    "slack.help.who": "{example} : qui tient une ressource (les GPU par défaut), par ClusterQueue et namespace.",
    # --- fin de : quand, qui, quoi ----------------------------------------------------------------------------------
    # --- times said as people say them -------------------------------------------------------------
    "time.ago": "il y a {duration}",
    "time.just-now": "à l'instant",
}


# The admins' view lives in its own module.
from bot.copy.admin_fr import ADMIN as _ADMIN  # noqa: E402

CATALOGUE.update(_ADMIN)

# The thing in the way, named, in its own module.
from bot.copy.blockers_fr import BLOCKERS as _BLOCKERS  # noqa: E402

CATALOGUE.update(_BLOCKERS)

# The terminal demo's intro and help, in their own module.
from bot.copy.demo_fr import DEMO as _DEMO  # noqa: E402

CATALOGUE.update(_DEMO)

# Will it fit? (la simulation d'un job pas encore créé) et /kueue quota, dans leur propre module.
from bot.copy.fit_fr import FIT as _FIT  # noqa: E402

CATALOGUE.update(_FIT)

# Ce qu'on dit quand Slack n'a pas pris une réponse à temps, dans son propre module.
from bot.copy.delivery_fr import DELIVERY as _DELIVERY  # noqa: E402

CATALOGUE.update(_DELIVERY)

# The party that holds a job, named, in its own module; its headline sentences come first.
from bot.copy.parties_fr import FIRST as _PARTIES_FIRST  # noqa: E402
from bot.copy.parties_fr import PARTIES as _PARTIES  # noqa: E402

CATALOGUE.update(_PARTIES)
for _key, _first in _PARTIES_FIRST.items():
    _own = CATALOGUE[_key]
    CATALOGUE[_key] = (*_first, *((_own,) if isinstance(_own, str) else _own))

# Les messages directs au propriétaire d'un job et l'onglet d'accueil, dans leur propre module.
from bot.copy.notify_fr import NOTIFY as _NOTIFY  # noqa: E402

CATALOGUE.update(_NOTIFY)

# Limits, unreadable objects and the cluster of a refusal, in their own module.
from bot.copy.limits_fr import LIMITS as _LIMITS  # noqa: E402

CATALOGUE.update(_LIMITS)

# The answer a person reads: the first message, the steps on demand, the one list of things to do.
from bot.copy.answer_fr import ANSWER as _ANSWER  # noqa: E402

CATALOGUE.update(_ANSWER)
