"""Limites et objets illisibles (dumps hostiles, objets hors des bornes de l'API), et le cluster dont parle un
refus, en français : fusionné dans le catalogue de bot.copy.fr."""

LIMITS: dict[str, str | tuple[str, ...]] = {
    "headline.object-unreadable": (
        "Je n'ai pas pu lire {kind} {name}, je ne peux donc pas dire pourquoi {job} attend : {reason}."
    ),
    "object.unreadable": "{kind} {name} existe, mais je n'ai pas pu le lire.",
    "action.report-unreadable": (
        "Examinez {kind} {name} avec kubectl : ni Kueue ni le serveur d'API ne le garderaient tel quel. S'il "
        "semble correct, prévenez les admins du bot (son journal le nomme)."
    ),
    "slack.refused.cluster": (
        "Désolé, je ne peux pas répondre au sujet du namespace {namespace} du cluster {cluster} ici. Si vous "
        "devriez y avoir accès, demandez aux admins du bot de vous l'ouvrir, à vous ou à ce canal."
    ),
}
