"""Français : chaque phrase du bot, par clé (les mêmes clés qu'en anglais)."""

from __future__ import annotations

CATALOGUE: dict[str, str | tuple[str, ...]] = {
    "headline.job-not-found": "Aucun {kind} nommé {name} dans le namespace {namespace} : vérifiez le nom et le namespace.",
    "headline.not-managed": (
        "{job} n'est pas géré par Kueue : il n'a pas le label {label}, Kueue ne l'a donc jamais mis en file. "
        "S'il attend, la raison est du côté du scheduler, pas de Kueue."
    ),
    "headline.workload-missing": (
        "{job} désigne la LocalQueue {queue}, mais Kueue ne lui a créé aucun Workload : il ne peut pas encore "
        "être mis en file."
    ),
    "headline.local-queue-missing": (
        "{job} ne démarrera jamais en l'état : il désigne la LocalQueue {queue}, qui n'existe pas dans son namespace."
    ),
    "headline.cluster-queue-missing": (
        "{job} ne démarrera jamais en l'état : la LocalQueue {queue} pointe vers la ClusterQueue "
        "{cluster_queue}, qui n'existe pas."
    ),
    "headline.queue-stopped": (
        "{job} attend car la {kind} {stopped} est arrêtée (stopPolicy {policy}) : rien de nouveau n'est admis "
        "tant qu'un admin ne la relance pas.",
        "{job} attend car sa file est arrêtée : rien de nouveau n'est admis tant qu'un admin ne la relance pas.",
    ),
    "headline.queue-inactive": (
        "{job} attend car la ClusterQueue {cluster_queue} est inactive ({detail}) : elle n'admet rien tant "
        "qu'un admin ne l'a pas réparée."
    ),
    "headline.namespace-not-allowed": (
        "{job} ne sera jamais admis par la ClusterQueue {cluster_queue} : son namespaceSelector ne "
        "sélectionne pas ce namespace."
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
        "{job} ne sera jamais admis en l'état : il demande {requested} {resource}, mais la ClusterQueue "
        "{cluster_queue} ne peut jamais donner plus de {maximum} {resource} (flavor {flavor}).",
        "{job} ne sera jamais admis en l'état : il demande plus que la ClusterQueue {cluster_queue} ne peut "
        "jamais donner.",
    ),
    "headline.waiting-for-quota": (
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
        "{job} devrait bientôt démarrer : Kueue préempte {preemptions} workload(s) dans la ClusterQueue "
        "{cluster_queue} pour lui faire de la place.",
        "{job} devrait bientôt démarrer : Kueue préempte d'autres workloads dans la ClusterQueue "
        "{cluster_queue} pour lui faire de la place.",
    ),
    "headline.topology-placement-failed": (
        "{job} ne peut pas être placé par l'ordonnancement topologique dans la ClusterQueue {cluster_queue} : {detail}",
        "{job} ne peut pas être placé par l'ordonnancement topologique dans la ClusterQueue {cluster_queue}.",
    ),
    "headline.waiting-for-pods-ready": (
        "{job} attend que les pods des workloads admis avant lui soient prêts : waitForPodsReady bloque les "
        "nouvelles admissions en attendant."
    ),
    "headline.not-yet-evaluated": (
        "{job} est en file dans la ClusterQueue {cluster_queue} et Kueue ne l'a pas encore examiné : position "
        "{position}, {ahead} devant.",
        "{job} est en file dans la ClusterQueue {cluster_queue} et Kueue ne l'a pas encore examiné.",
    ),
    "headline.admission-gated": (
        "{job} est retenu par une porte d'admission ({gates}) : Kueue ne l'examinera pas tant qu'elle n'est pas levée."
    ),
    "headline.admission-checks-pending": (
        "{job} a son quota dans la ClusterQueue {cluster_queue} ; il attend maintenant le(s) contrôle(s) "
        "d'admission {checks} : {message}",
        "{job} a son quota dans la ClusterQueue {cluster_queue} ; il attend maintenant le(s) contrôle(s) "
        "d'admission {checks}.",
    ),
    "headline.admission-check-rejected": (
        "{job} a été refusé par le(s) contrôle(s) d'admission {checks} : il ne sera pas admis ; corrigez la "
        "cause puis soumettez-le de nouveau."
    ),
    "headline.requeue-backoff": (
        "{job} a été évincé ({reason}) et attend la fin de son délai de remise en file, jusqu'à {until} (dans "
        "{in_seconds}), éviction numéro {count}.",
        "{job} a été évincé ({reason}) et attend la fin de son délai de remise en file.",
    ),
    "headline.deactivated": "{job} est désactivé ({reason}) : Kueue ne l'admettra pas tant qu'il n'est pas réactivé.",
    "headline.pods-pending": (
        "Kueue a admis {job} ; {pending} pod(s) attendent encore dans le kube-scheduler : {reason}",
        "Kueue a admis {job} ; des pods attendent encore dans le kube-scheduler.",
    ),
    "headline.running": "{job} est admis dans la ClusterQueue {cluster_queue} et tourne : rien n'est en attente.",
    "headline.finished": "{job} est terminé ({reason}) : rien n'est en attente.",
    "headline.invalid-request": (
        "{job} ne sera jamais admis : Kueue refuse ses demandes de ressources ({detail}).",
        "{job} ne sera jamais admis : Kueue refuse ses demandes de ressources.",
    ),
    "job.not-found": "Aucun {kind} {namespace}/{name} dans le cluster.",
    "job.found": "{kind} {job} trouvé.",
    "workload.found": (
        "Le Workload {workload} représente le job (trouvé par {how}), créé il y a {age_seconds}.",
        "Le Workload {workload} représente le job (trouvé par {how}).",
    ),
    "workload.found-through-parent": (
        "Kueue le gère via son parent {parent} : Workload {workload}, créé il y a {age_seconds}.",
        "Kueue le gère via son parent {parent} : Workload {workload}.",
    ),
    "workload.siblings": "Le job a {count} autre(s) Workload(s) (anciennes tranches ou autres groupes).",
    "workload.not-managed": "Aucun Workload : le job n'a pas le label {label}, Kueue ne le gère donc pas.",
    "workload.missing": "Aucun Workload alors que le job désigne la LocalQueue {queue} : Kueue n'en a pas créé.",
    "workload.event": "Événement {reason} : {message}",
    "workload.deactivated": "Le Workload est désactivé (spec.active=false) : {reason}. {message}",
    "workload.admission-gated": "L'admission est retenue par {gates} (annotation kueue.x-k8s.io/admission-gated-by).",
    "scheduling.not-held-by-kueue": "Kueue ne retient pas ce {kind} : si ses pods attendent, voyez le kube-scheduler.",
    "demand.total": "Il demande à Kueue {total} au total ({shape}).",
    "demand.assigned": "Kueue a réservé dans la ClusterQueue {cluster_queue} : {assigned}.",
    "conditions.condition": "{type}={status} ({reason}) : {message}",
    "conditions.none-yet": "Kueue n'a pas encore écrit QuotaReserved : le scheduler n'a pas encore examiné ce Workload.",
    "conditions.finished": "Le Workload est terminé ({reason}).",
    "conditions.backoff-until": (
        "Évincé {count} fois ({reason}) ; Kueue le remet en file à {until}, dans {in_seconds}.",
    ),
    "conditions.backoff": "Évincé ({reason}) ; il attend que Kueue le remette en file.",
    "conditions.evicted-because": "Dernière éviction : {message}",
    "conditions.preempted": "Il a été préempté ({why}) ; préempteur : {path}.",
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
    "record.flavor-not-found": ("Kueue : la ResourceFlavor {flavor} n'existe pas.", "Kueue : {text}"),
    "record.topology-flavor-mismatch": "Kueue : la demande topologique et la flavor ne concordent pas : {text}",
    "record.flavor-skipped": "Kueue : {text}",
    "record.flavor-assignment-error": "Kueue n'a pas pu attribuer de flavor : {text}",
    "record.topology-no-fit": (
        "Kueue : la topologie {topology} ne peut pas placer les pods : {text}",
        "Kueue : l'ordonnancement topologique ne peut pas placer les pods : {text}",
    ),
    "record.topology-request-invalid": "Kueue : demande topologique invalide : {text}",
    "record.no-longer-fits": "Kueue : un autre workload a pris la capacité dans le même cycle ; nouvel essai bientôt.",
    "record.overlapping-preemption": "Kueue : ses cibles de préemption recoupent celles d'un autre workload : {text}",
    "record.preemption-gated": "Kueue : il faut préempter, mais une porte de préemption le retient.",
    "record.pods-ready-block": "Kueue : en attente que tous les workloads admis aient leurs pods prêts.",
    "record.admit-failed": "Kueue n'a pas réussi à l'admettre : {text}",
    "record.concurrent-admission": "Kueue (admission concurrente) : {text}",
    "record.failed-admission-checks": "Kueue : un contrôle d'admission a échoué (Retry ou Rejected).",
    "record.cluster-queue-inactive": (
        "Kueue : la ClusterQueue {queue} est inactive.",
        "Kueue : la ClusterQueue est inactive ({text}).",
    ),
    "record.cluster-queue-missing": ("Kueue : la ClusterQueue {queue} n'existe pas.", "Kueue : {text}"),
    "record.namespace-not-selected": "Kueue : le namespaceSelector de la ClusterQueue ne sélectionne pas ce namespace.",
    "record.namespace-missing": "Kueue : {text}",
    "record.requests-exceed-limits": "Kueue : les demandes dépassent les limites : {text}",
    "record.limit-range-violation": "Kueue : les demandes enfreignent la LimitRange du namespace : {text}",
    "record.local-queue-missing": ("Kueue : la LocalQueue {queue} n'existe pas.", "Kueue : {text}"),
    "record.local-queue-inactive": ("Kueue : la LocalQueue {queue} est inactive (arrêtée).", "Kueue : {text}"),
    "record.admission-gated": ("Kueue : l'admission est retenue par {detail}.", "Kueue : {text}"),
    "record.admission-gate-cleared": "Kueue : la porte d'admission est levée ; il attend une réservation de quota.",
    "record.pending-evaluation": "Kueue : en attente d'examen dans la file.",
    "record.evaluation-bypassed": "Kueue l'a sauté car un workload équivalent a échoué récemment.",
    "record.deactivated": "Kueue : le workload est désactivé.",
    "record.dra-unsupported": "Kueue : {text}",
    "record.delayed-topology-request": "Kueue : des demandes topologiques différées sont en attente.",
    "record.on-hold": "Kueue : le workload est en suspens (par exemple un StatefulSet ramené à zéro).",
    "record.preempted": "Kueue : il a été préempté : {text}",
    "record.pods-ready-timeout": "Kueue : ses pods n'ont pas été prêts à temps : {text}",
    "record.admission-check-eviction": "Kueue : évincé par un contrôle d'admission : {text}",
    "record.node-replacement-failed": "Kueue : pas de remplaçant pour un nœud défaillant : {text}",
    "record.flavor-migration": "Kueue : évincé pour passer sur une flavor plus favorable : {text}",
    "record.quota-reserved": "Kueue : {text}",
    "record.preempting": "Kueue préempte {count} workload(s) pour faire de la place.",
    "local-queue.missing": "La LocalQueue {queue} n'existe pas dans le namespace {namespace} (il a : {queues}).",
    "local-queue.ok": "La LocalQueue {queue} existe et alimente la ClusterQueue {cluster_queue}.",
    "local-queue.stopped": "La LocalQueue {queue} est arrêtée (stopPolicy {policy}).",
    "cluster-queue.missing": "La ClusterQueue {cluster_queue} n'existe pas.",
    "cluster-queue.stopped": "La ClusterQueue {cluster_queue} est arrêtée (stopPolicy {policy}).",
    "cluster-queue.inactive": "La ClusterQueue {cluster_queue} est inactive : {detail}.",
    "cluster-queue.ok": (
        "La ClusterQueue {cluster_queue} est active ({strategy}, cohorte {cohort}) ; {local_queues} LocalQueue(s) "
        "l'alimentent.",
        "La ClusterQueue {cluster_queue} est active ({strategy}, sans cohorte) ; {local_queues} LocalQueue(s) "
        "l'alimentent.",
    ),
    "cluster-queue.namespace-not-selected": (
        "La ClusterQueue {cluster_queue} ne sélectionne pas le namespace {namespace} (namespaceSelector)."
    ),
    "cluster-queue.admitted": "Admis par la ClusterQueue {cluster_queue}.",
    "cluster-queue.reserved": "Quota réservé dans la ClusterQueue {cluster_queue}.",
    "flavors.resource-not-covered": "La ClusterQueue {cluster_queue} ne couvre pas {resource} : aucune flavor ne peut en donner.",
    "flavors.missing": "La flavor {flavor} n'existe pas.",
    "flavors.taint": "La flavor {flavor} pose le taint {taint} sur ses nœuds ; le pod set {pod_set} ne le tolère pas.",
    "flavors.node-labels": (
        "La flavor {flavor} ({labels}) ne correspond pas au nodeSelector ou à l'affinité du pod set {pod_set}."
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
        "(dont {borrowed} emprunté), les autres de la cohorte {cohort} utilisent {elsewhere} ; libre maintenant "
        "{available} sur au plus {maximum} : il en manque {needed}, il attend de la capacité."
    ),
    "quota.never-fits": (
        "{resource} dans la flavor {flavor} : il faut {requested}, mais la ClusterQueue {cluster_queue} ne peut "
        "jamais avoir plus de {maximum} (nominal {nominal}, cohorte {cohort}) : ça ne rentrera jamais.",
        "{resource} dans la flavor {flavor} : il faut {requested}, mais la ClusterQueue {cluster_queue} ne peut "
        "jamais avoir plus que son quota nominal {maximum} (pas de cohorte où emprunter) : ça ne rentrera jamais.",
    ),
    "position.in-queue": (
        "Position {position} sur {total} dans la ClusterQueue {cluster_queue} ({local_position} dans la "
        "LocalQueue {local_queue}) ; {ahead} devant ({source})."
    ),
    "position.ahead": "Devant lui, par priorité : {by_priority} ; ensemble ils demandent {demand}.",
    "position.strict-fifo-head": (
        "La ClusterQueue {cluster_queue} est en StrictFIFO : la tête de file (priorité {priority}) bloque tout "
        "ce qui la suit jusqu'à son admission."
    ),
    "admission-checks.check": (
        "Contrôle d'admission {check} ({controller}) : {state} depuis {age_seconds} : {message}",
        "Contrôle d'admission {check} ({controller}) : {state} : {message}",
    ),
    "scheduling.pods": "Pods : {total} en tout, {running} en cours, {pending} en attente d'un nœud.",
    "scheduling.failed": "Le pod {pod} ne peut pas être placé : {message}",
    "scheduling.gated": "Le pod {pod} est retenu par le(s) scheduling gate(s) {gates}.",
    "scheduling.waiting": "Le pod {pod} attend un nœud (pas encore d'événement du scheduler).",
    "scheduling.flavor-nodes": (
        "La flavor {flavor} envoie les pods sur les nœuds {labels} : {nodes} nœud(s) de ce type connus."
    ),
    "action.did-you-mean": "Vouliez-vous dire {names} ?",
    "action.other-namespace": "Un job nommé {name} existe dans le(s) namespace(s) {namespaces}.",
    "action.check-name": "Vérifiez le nom et le namespace du job : kubectl get jobs -n {namespace}",
    "action.add-queue-label": "Pour que Kueue le mette en file, donnez au label {label} l'une de ces valeurs : {queues}.",
    "action.ask-admin-local-queue": "Demandez à un admin une LocalQueue dans le namespace {namespace}.",
    "action.ask-admin-kueue": (
        "Regardez les événements du job (kubectl describe) et demandez à un admin si Kueue gère les {kind} ici."
    ),
    "action.fix-queue-name": "Corrigez le label {label} : utilisez {queue} (files disponibles : {queues}).",
    "action.fix-and-resubmit": "Corrigez ce que le contrôle d'admission a signalé, puis soumettez le job de nouveau.",
    "action.reactivate": (
        "Réactivez-le une fois la cause corrigée : kubectl patch workload -n {namespace} {workload} --type merge "
        '-p \'{{"spec":{{"active":true}}}}\''
    ),
    "action.check-scheduler": (
        "C'est l'affaire du kube-scheduler : kubectl describe pod -n {namespace} {pod} montre pourquoi il attend."
    ),
    "action.ask-admin-nodes": "S'il manque des nœuds ou s'ils sont pleins, voyez avec un admin la capacité ou l'autoscaler.",
    "action.wait-for-checks": "Attendez {checks} ; des nœuds sont peut-être en cours de création.",
    "action.wait": ("Attendez : Kueue l'admettra quand son tour viendra et que la capacité sera libre.",),
    "action.ask-gate-owner": "Demandez à qui a posé la porte d'admission ({gates}) de la lever.",
    "action.check-pods-ready": (
        "Ses pods ne sont pas devenus prêts à temps : vérifiez l'image, les volumes et les événements de ses pods."
    ),
    "action.wait-backoff": (
        "Attendez jusqu'à {until}, ou corrigez ce qui fait échouer les pods.",
        "Attendez la fin du délai.",
    ),
    "action.ask-admin-resume": "Demandez à un admin de relancer la {kind} {queue} (stopPolicy: None).",
    "action.ask-admin-cluster-queue": "Demandez à un admin de créer la ClusterQueue {cluster_queue} ou de corriger la LocalQueue.",
    "action.ask-admin-inactive": "Demandez à un admin de réparer la ClusterQueue {cluster_queue} : {detail}.",
    "action.ask-admin-namespace": (
        "Demandez à un admin que la ClusterQueue {cluster_queue} sélectionne le namespace {namespace}."
    ),
    "action.shrink-request": "Réduisez le job à {pods} pod(s) au plus : c'est ce que la ClusterQueue {cluster_queue} peut contenir.",
    "action.shrink-to-start-now": "Avec {pods} pod(s) ou moins, il rentrerait dans ce qui est libre maintenant.",
    "action.ask-admin-quota": (
        "Ou demandez à un admin de porter le quota de {resource} de la ClusterQueue {cluster_queue} dans la "
        "flavor {flavor} à au moins {requested} (quota nominal, ou emprunt dans une cohorte)."
    ),
    "action.ask-admin-priority": "Si c'est urgent, demandez une WorkloadPriorityClass plus haute (la préemption peut jouer).",
    "action.add-toleration": "Ajoutez une toleration pour {taint} au modèle de pod du job.",
    "action.fix-node-selector": "Faites correspondre le nodeSelector ou l'affinité du job aux labels de nœud d'une flavor.",
    "action.ask-admin-cover": "Demandez à un admin de couvrir {resource} dans la ClusterQueue {cluster_queue}.",
    "action.use-other-queue": (
        "La LocalQueue {queue} (ClusterQueue {cluster_queue}) pourrait le prendre : mettez le label {label}={queue}."
    ),
    "action.fix-requests": "Corrigez les demandes et limites de ressources du job.",
    "action.relax-topology": "Assouplissez la demande topologique du job, ou voyez avec un admin la capacité de la topologie.",
    "label.verdict": "Verdict",
    "label.position": "Position",
    "label.next": "Ce que vous pouvez faire",
    "label.steps": "Le chemin d'admission",
    "label.snapshot-age": "État du cluster d'il y a {age_seconds}.",
    "label.workload": "Workload",
    "label.none": "aucun",
}
