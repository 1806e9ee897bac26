"""Ce qui bloque, nommé, en français : fusionné dans le catalogue de bot.copy.fr."""

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
    "fragment.workload": ("{namespace}/{name} (Workload {workload})", "{namespace}/{name}"),
    "fragment.workload-elsewhere": "un workload d'un autre namespace",
    "fragment.no-flavor": "aucune flavor ne peut l'accueillir : {detail}",
    # --- la tête d'une file StrictFIFO ---
    "position.strict-fifo-is-head": (
        "Il est en tête de la ClusterQueue StrictFIFO {cluster_queue} : les {behind} {behind|workload|workloads} derrière lui "
        "{behind|attend|attendent} son admission.",
    ),
    "action.unblock-head": (
        "Demandez à un admin de débloquer la ClusterQueue StrictFIFO {cluster_queue} : sa tête de file {head} ne "
        "pourra jamais être admise ({blocked_by}) et {behind} {behind|workload attend|workloads attendent} derrière elle. Le remède : "
        "donner à la tête le quota qu'il lui faut, la désactiver ou la supprimer (spec.active: false sur son "
        "Workload), ou passer la file en BestEffortFIFO.",
    ),
    "action.release-head": (
        "Changez sa demande ou supprimez-le vite : en tête de la ClusterQueue StrictFIFO {cluster_queue}, il "
        "retient les {behind} {behind|workload|workloads} qui le suivent, que Kueue n'examine pas tant qu'il est là.",
    ),
    # --- pourquoi les pods ne sont jamais devenus prêts (rootcause) ---
    "fragment.trouble.image": (
        "le pod {pod} (et {more} {more|autre|autres}) ne peut pas tirer son image {image} ({reason})",
        "le pod {pod} ne peut pas tirer son image {image} ({reason})",
        "le pod {pod} (et {more} {more|autre|autres}) ne peut pas tirer son image ({reason})",
        "le pod {pod} ne peut pas tirer son image ({reason})",
        "ses pods ne peuvent pas tirer leur image ({reason})",
    ),
    "fragment.trouble.crash": (
        "le conteneur {container} du pod {pod} (et {more} {more|autre|autres}) plante en boucle ({reason} ; dernière sortie : "
        "{last})",
        "le conteneur {container} du pod {pod} plante en boucle ({reason} ; dernière sortie : {last})",
        "le conteneur {container} du pod {pod} (et {more} {more|autre|autres}) plante en boucle ({reason})",
        "le conteneur {container} du pod {pod} plante en boucle ({reason})",
        "le pod {pod} plante en boucle ({reason})",
        "ses pods plantent en boucle ({reason})",
    ),
    "fragment.trouble.config": (
        "le kubelet ne peut pas démarrer le conteneur {container} du pod {pod} ({reason})",
        "le kubelet ne peut pas démarrer le pod {pod} ({reason})",
        "le kubelet ne peut pas démarrer ses pods ({reason})",
    ),
    "fragment.trouble.mount": (
        "le pod {pod} (et {more} {more|autre|autres}) ne peut pas monter ses volumes ({reason})",
        "le pod {pod} ne peut pas monter ses volumes ({reason})",
        "ses pods ne peuvent pas monter leurs volumes ({reason})",
    ),
    "fragment.trouble.quota": "un ResourceQuota du namespace refuse ses pods ({reason})",
    "fragment.trouble.limit-range": "une LimitRange du namespace refuse ses pods ({reason})",
    "fragment.trouble.webhook": "un webhook d'admission refuse ses pods ({reason})",
    "fragment.trouble.create": "ses pods ne peuvent pas être créés ({reason})",
    "fragment.trouble.unscheduled": "ses pods n'ont jamais été placés sur un nœud (Kueue : {reason})",
    "scheduling.pod-trouble": ("{trouble} : {message}", "{trouble}."),
    "action.check-unscheduled": (
        "Voyez pourquoi le kube-scheduler ne trouve aucun nœud pour ses pods (kubectl get events -n {namespace} "
        "--field-selector reason=FailedScheduling) : des demandes plus grandes qu'un nœud, un nodeSelector, une "
        "affinité ou un taint qu'aucun nœud ne satisfait ; remis en file tel quel, il est évincé de nouveau.",
    ),
    "action.fix-image": (
        "Corrigez l'image {image} (nom, tag, accès au registre, imagePullSecrets) du {kind} : remis en file tel "
        "quel, il est évincé de nouveau.",
        "Corrigez l'image du {kind} (nom, tag, accès au registre, imagePullSecrets) : remis en file tel quel, il "
        "est évincé de nouveau.",
    ),
    "action.read-crash-logs": (
        "Voyez pourquoi il plante : kubectl logs -n {namespace} {pod} -c {container} --previous ; corrigez le "
        "{kind} avant sa prochaine admission.",
        "Voyez pourquoi il plante : kubectl logs -n {namespace} {pod} --previous ; corrigez le {kind} avant sa "
        "prochaine admission.",
        "Voyez pourquoi ses pods plantent (kubectl logs --previous) et corrigez le {kind} avant sa prochaine "
        "admission.",
    ),
    "action.fix-pod-config": (
        "Corrigez ce que le kubelet refuse dans le modèle de pod (la ConfigMap, le Secret ou la clé qu'il nomme) : "
        "kubectl describe pod -n {namespace} {pod}.",
        "Corrigez ce que le kubelet refuse dans le modèle de pod (la ConfigMap, le Secret ou la clé qu'il nomme).",
    ),
    "action.fix-volumes": (
        "Corrigez le volume que le pod {pod} ne peut pas monter (le PersistentVolumeClaim, la ConfigMap ou le "
        "Secret que l'événement nomme) : kubectl describe pod -n {namespace} {pod}.",
        "Corrigez le volume que les pods ne peuvent pas monter (le PersistentVolumeClaim, la ConfigMap ou le "
        "Secret que l'événement nomme).",
    ),
    "action.ask-admin-resource-quota": (
        "Baissez les demandes du {kind}, ou demandez à un admin de relever le ResourceQuota du namespace "
        "(kubectl describe resourcequota -n {namespace}).",
    ),
    "action.fit-limit-range": (
        "Ajustez les demandes et limites du {kind} à la LimitRange du namespace (kubectl describe limitrange -n "
        "{namespace}), ou demandez à un admin de la changer.",
    ),
    "action.ask-webhook-owner": (
        "Demandez à qui gère le webhook d'admission nommé par l'événement pourquoi il refuse les pods, ou changez "
        "le {kind} pour respecter sa règle.",
    ),
    "action.check-job-events": (
        "Voyez pourquoi ses pods ne peuvent pas être créés : kubectl describe {kind} -n {namespace} {job}."
    ),
    # --- waitForPodsReady.blockAdmission : qui retient toutes les admissions ---
    "position.pods-ready-blocker": (
        "{blocker} tient du quota dans la ClusterQueue {cluster_queue} depuis {since_seconds} et ses pods ne sont "
        "pas prêts : {trouble}.",
        "{blocker} tient du quota dans la ClusterQueue {cluster_queue} depuis {since_seconds} et ses pods ne sont "
        "pas encore prêts.",
        "{blocker} tient du quota dans la ClusterQueue {cluster_queue} et ses pods ne sont pas prêts : {trouble}.",
        "{blocker} tient du quota dans la ClusterQueue {cluster_queue} et ses pods ne sont pas encore prêts.",
    ),
    "position.pods-ready-more": "Et {count} {count|autre|autres} {count|workload|workloads} qui tiennent du quota avec des pods pas prêts.",
    "position.pods-ready-none": (
        "Aucun workload qui tient du quota n'a de pods pas prêts en ce moment : le blocage est levé, et Kueue "
        "réexamine celui-ci à son prochain cycle.",
    ),
    "action.wait-pods-ready": (
        "Attendez : Kueue admet de nouveau dès que {blocker} (ClusterQueue {cluster_queue}) a ses pods prêts, "
        "ou dès qu'il l'évince à l'échéance de waitForPodsReady.",
    ),
    "action.unblock-pods-ready": (
        "Les pods de {blocker} ne peuvent pas devenir prêts en l'état ({trouble}) : son propriétaire ou un admin "
        "peut le corriger ou le supprimer, pour que les admissions reprennent plus tôt.",
    ),
    "fragment.waits-behind": (
        "attend derrière {head}, la tête de la ClusterQueue StrictFIFO {cluster_queue}, qui ne pourra jamais être "
        "admise en l'état ({blocked_by}) : Kueue n'examine rien derrière elle tant qu'un admin n'agit pas",
        "attend derrière {head}, la tête de la ClusterQueue StrictFIFO {cluster_queue} : Kueue n'examine que la "
        "tête tant qu'elle n'est pas admise",
    ),
}
