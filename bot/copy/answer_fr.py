"""The answer a person reads, in French: the first message, the steps on demand, the one list of things to do
and the words of Kueue it explains. Merged into bot.copy.fr's catalogue. Kueue's own words stay in English,
between « »; a flavor is feminine (« la flavor »)."""

ANSWER: dict[str, str | tuple[str, ...]] = {
    # --- le premier message -----------------------------------------------------------------------------------
    "answer.todo": "Que faire :",
    "answer.todo.more": "{count} autre{count||s} possibilité{count||s} sous « Voir les étapes ».",
    "answer.where": "Place :",
    "answer.when": "Quand :",
    "answer.button.steps": "Voir les étapes",
    "answer.button.headlamp": "Ouvrir dans Headlamp",
    "answer.button.headlamp-queue": "File dans Headlamp",
    "answer.fallback": ("{family} : {headline} Que faire : {todo} ({verdict})", "{family} : {headline} ({verdict})"),
    "answer.glossary": "Les mots de Kueue : {terms}",
    # --- d'où vient une place -----------------------------------------------------------------------------
    "position.source.computed": "calculée par le bot",
    "position.source.visibility-api": "d'après l'API de visibilité de Kueue",
    # --- les étapes, à la demande -----------------------------------------------------------------------------
    "answer.steps.passed": "{count} {count|vérification passée|vérifications passées} : {names}.",
    "answer.steps.kueue": "Ce que Kueue a noté",
    "answer.steps.todo": "Ce que vous pouvez faire",
    "answer.steps.who.admin": "Ce que seul un admin peut changer (demandez-lui)",
    # --- la liste de ce qu'on peut faire ----------------------------------------------------------------------
    "todo.fewer-pods.now": (
        "Lancez {pods} {pods|pod|pods} au lieu de {was_pods} : c'est ce qui tient dans ce qui est libre maintenant."
    ),
    "todo.fewer-pods.now-max": (
        "Lancez {pods} {pods|pod|pods} au lieu de {was_pods} pour démarrer maintenant : {pods} {pods|tient|tiennent} "
        "dans ce qui est libre, et {max_pods} dans le maximum de la file quand d'autres auront fini."
    ),
    "todo.fewer-pods.ever": (
        "Lancez au plus {pods} {pods|pod|pods} au lieu de {was_pods} : c'est ce que la file peut contenir ; il "
        "démarre dès que c'est libre."
    ),
    "todo.partial-admission.now": (
        "Laissez Kueue l'admettre en partie, jusqu'à {pods} {pods|pod|pods} sur {was_pods} (« minCount » ; pour un "
        "Job, l'annotation kueue.x-k8s.io/job-min-parallelism) : il démarrerait maintenant."
    ),
    "todo.partial-admission.ever": (
        "Laissez Kueue l'admettre en partie, jusqu'à {pods} {pods|pod|pods} sur {was_pods} (« minCount » ; pour un "
        "Job, l'annotation kueue.x-k8s.io/job-min-parallelism) : il tiendrait dans le maximum de la file."
    ),
    "todo.smaller-request.now": (
        "Demandez au plus {per_pod} {resource} par pod (aujourd'hui {was_per_pod}) : cela tient dans ce qui est "
        "libre maintenant."
    ),
    "todo.smaller-request.ever": (
        "Demandez au plus {per_pod} {resource} par pod (aujourd'hui {was_per_pod}) : cela tient dans le maximum "
        "de la file."
    ),
    "todo.other-queue.now": (
        "Soumettez-le à la LocalQueue {queue} (ClusterQueue {cluster_queue}) : il y a de la place maintenant."
    ),
    "todo.other-queue.ever": "Soumettez-le à la LocalQueue {queue} (ClusterQueue {cluster_queue}) : il y tiendrait.",
    "todo.other-flavor.now": (
        "Faites-le tourner sur la flavor {flavor} (nodeSelector {labels} ; tolérer {taints}) : elle a de la place "
        "maintenant.",
        "Faites-le tourner sur la flavor {flavor} (nodeSelector {labels}) : elle a de la place maintenant.",
        "Faites-le tourner sur la flavor {flavor} (tolérer {taints}) : elle a de la place maintenant.",
        "Faites-le tourner sur la flavor {flavor} : elle a de la place maintenant.",
    ),
    "todo.other-flavor.ever": (
        "Faites-le tourner sur la flavor {flavor} (nodeSelector {labels} ; tolérer {taints}) : il y tiendrait.",
        "Faites-le tourner sur la flavor {flavor} (nodeSelector {labels}) : il y tiendrait.",
        "Faites-le tourner sur la flavor {flavor} (tolérer {taints}) : il y tiendrait.",
        "Faites-le tourner sur la flavor {flavor} : il y tiendrait.",
    ),
    "todo.raise-quota.now": (
        "Demandez à un admin de relever le quota nominal de {resource} dans la flavor {flavor} de la ClusterQueue "
        "{cluster_queue} de {by}, à {to} : il serait admis maintenant."
    ),
    "todo.raise-quota.ever": (
        "Demandez à un admin de relever le quota nominal de {resource} dans la flavor {flavor} de la ClusterQueue "
        "{cluster_queue} de {by}, à {to} : il tiendrait alors, dès que ce sera libre."
    ),
    "todo.priority-preempts": (
        "Si c'est urgent, demandez une WorkloadPriorityClass plus haute : la ClusterQueue {cluster_queue} pourra "
        "alors préempter des jobs moins prioritaires pour lui."
    ),
    "todo.priority-ahead": (
        "Si c'est urgent, demandez une WorkloadPriorityClass plus haute : il passerait devant {ahead|le|les} "
        "{ahead} {ahead|job|jobs} qui le précède{ahead||nt} (la ClusterQueue {cluster_queue} ne préempte personne)."
    ),
    "todo.none": "Aucun changement du job ou de sa file que je sache vérifier ne le ferait admettre.",
    # --- les mots de Kueue, expliqués (docs/glossary.md) -------------------------------------------------------
    "term.cluster-queue": "ClusterQueue",
    "term.local-queue": "LocalQueue",
    "term.flavor": "flavor",
    "term.cohort": "cohort",
    "term.nominal-quota": "quota nominal",
    "term.pod-set": "pod set",
    "term.admission-check": "contrôle d'admission",
    "term.priority-class": "WorkloadPriorityClass",
}
