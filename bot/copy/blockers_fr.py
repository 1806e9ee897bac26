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
}
