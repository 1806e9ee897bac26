"""Will it fit? (la simulation d'un job pas encore créé), en français : fusionné dans le catalogue de bot.copy.fr."""

FIT: dict[str, str | tuple[str, ...]] = {
    "fit.headline.now": (
        "Si vous le soumettez maintenant, {job} est admis tout de suite : ClusterQueue {cluster_queue}, "
        "flavor {flavors}."
    ),
    "fit.headline.later": "Si vous le soumettez maintenant : {why}",
    "fit.headline.never": "Si vous le soumettez maintenant : {why}",
    "fit.headline.refused": "{job} serait refusé avant que Kueue ne le voie : {why}",
    "fit.step.above-limit": (
        "Pod set {pod_set}, conteneur {container} : sa demande de {resource} {request} dépasse sa limite {limit} : "
        "le serveur d'API refuse un tel pod (une demande ne doit pas dépasser sa limite)."
    ),
    "fit.labelled": "{label} : {value}",
    "fit.label.fits": "Admissible",
    "fit.fits.now": "maintenant",
    "fit.fits.later": "plus tard",
    "fit.fits.never": "jamais (tel que configuré)",
    "fit.label.flavors": "Flavors",
    "fit.flavor-line": "pod set {pod_set} : {resources} → {flavor}",
    "fit.label.eta": "Estimation",
    "fit.label.change": "Un changement qui marche",
    "fit.label.path": "Le chemin d'admission qu'il suivrait",
    "fit.position": (
        "{position} dans la ClusterQueue {cluster_queue}, {local_position} dans la LocalQueue {local_queue} "
        "({ahead} devant)",
        "{position} dans la ClusterQueue {cluster_queue} ({ahead} devant)",
    ),
    "fit.note.defaulted-queue": (
        "Il ne nomme aucune LocalQueue : Kueue le met dans la LocalQueue default de son namespace."
    ),
    "fit.note.priority-unknown": (
        "La PriorityClass {name} n'est pas parmi les objets lus : sa priorité compte pour 0."
    ),
    "fit.note.per-pod": (
        "Chacun des {replicas} {replicas|pod|pods} du Deployment a son propre Workload : cette réponse vaut pour un seul."
    ),
    # Slack
    "fit.help.fit": "{example} : un tel job serait-il admis, avant de le soumettre ? (ou collez son YAML dans un bloc de code après « est-ce que ça rentre ? »).",
    "fit.help.quota": "{example} : ce que cette queue peut donner maintenant, par flavor et ressource.",
    "fit.slack.title.now": "✅ Admissible maintenant",
    "fit.slack.title.later": "⏳ Admissible plus tard",
    "fit.slack.title.never": "⛔ Jamais admissible tel que configuré",
    "fit.slack.flavors": "Flavor : {flavors}",
    "fit.slack.position": "Position : {position}",
    "fit.slack.eta": "Estimation : {eta}",
    "fit.slack.change": "Un changement qui marche : {change}",
    "fit.slack.footer": "Une simulation : rien n'a été créé. Au {time}.",
    "fit.slack.no-yaml": (
        "Collez le YAML du job dans un bloc de code (```...```) après « will this fit? », ou utilisez "
        "`/kueue fit NAMESPACE/QUEUE 4 pods x (cpu 8, memory 32Gi, nvidia.com/gpu 2)`."
    ),
    "fit.slack.bad-job": "Je ne peux pas lire ce job : {reason}",
    "fit.slack.bad-spec": (
        "Je n'ai pas compris cette demande. Écrivez-la ainsi : `/kueue fit team-a/default 4 pods x (cpu 8, "
        "memory 32Gi, nvidia.com/gpu 2)`."
    ),
    # /kueue quota
    "queue-quota.title": "Ce que la LocalQueue {namespace}/{local_queue} peut donner maintenant (ClusterQueue {cluster_queue})",
    "queue-quota.row": (
        "{flavor} · {resource} : nominal {nominal}, empruntable {borrowable}, prêtable {lendable}, utilisé {used}, "
        "libre maintenant {free}, au plus {maximum}"
    ),
    "queue-quota.none": "La ClusterQueue {cluster_queue} ne fixe aucun quota.",
    "queue-quota.usage": "Donnez une queue : `/kueue quota NAMESPACE/LOCALQUEUE`.",
    "queue-quota.missing": "Il n'y a pas de LocalQueue {local_queue} dans le namespace {namespace}.",
    "queue-quota.cq-missing": (
        "La LocalQueue {namespace}/{local_queue} pointe vers la ClusterQueue {cluster_queue}, qui n'existe pas."
    ),
}
