"""Ce qui bloque, nommé (issue 11), en français : fusionné dans le catalogue de bot.copy.fr."""

BLOCKERS: dict[str, str | tuple[str, ...]] = {
    # --- le namespaceSelector ---
    "fragment.label-value": "{key}={value}",
    "fragment.label-absent": "aucun label {key}",
    # --- l'annotation queue-name (ignorée depuis Kueue v0.15) ---
    "workload.queue-annotation-ignored": (
        "Le job ne désigne la LocalQueue {queue} que par l'annotation {label} : Kueue v0.15 et suivants ne lisent "
        "que le label (l'annotation a été retirée en v0.15.0), et ces objets Kueue sont en {api_version} : ce "
        "Kueue l'ignore et ne crée aucun Workload.",
    ),
    "workload.queue-annotation-deprecated": (
        "Le job ne désigne la LocalQueue {queue} que par l'annotation {label} : Kueue avant la v0.15 la lit, la "
        "v0.15 et les suivantes ne lisent que le label (ces objets Kueue sont en {api_version}, ce qui ne dit pas "
        "la version à coup sûr).",
        "Le job ne désigne la LocalQueue {queue} que par l'annotation {label} : Kueue avant la v0.15 la lit, la "
        "v0.15 et les suivantes ne lisent que le label.",
    ),
    "action.use-queue-label": (
        "Désignez la file par le label {label}={queue} au lieu de l'annotation (Kueue v0.15 et suivants "
        "ignorent l'annotation) : posez-le dans le manifeste du {kind} et soumettez-le de nouveau.",
    ),
    # --- un autre job nommé (fragment que le rendu Slack cache à qui ne peut pas voir son namespace) ---
    "fragment.workload": "{namespace}/{name}",
    "fragment.workload-elsewhere": "un workload d'un autre namespace",
    "fragment.no-flavor": "aucune flavor ne peut l'accueillir : {detail}",
    # --- la tête d'une file StrictFIFO ---
    "position.strict-fifo-is-head": (
        "Il est en tête de la ClusterQueue StrictFIFO {cluster_queue} : les {behind} workload(s) derrière lui "
        "attendent son admission.",
    ),
    "action.unblock-head": (
        "Demandez à un admin de débloquer la ClusterQueue StrictFIFO {cluster_queue} : sa tête de file {head} ne "
        "pourra jamais être admise ({blocked_by}) et {behind} workload(s) attendent derrière elle. Le remède : "
        "donner à la tête le quota qu'il lui faut, la désactiver ou la supprimer (spec.active: false sur son "
        "Workload), ou passer la file en BestEffortFIFO.",
    ),
    "action.release-head": (
        "Changez sa demande ou supprimez-le vite : en tête de la ClusterQueue StrictFIFO {cluster_queue}, il "
        "retient les {behind} workload(s) qui le suivent, que Kueue n'examine pas tant qu'il est là.",
    ),
}
