"""Limites et objets illisibles (dumps hostiles, objets hors des bornes de l'API), et le cluster dont parle un
refus, en français : fusionné dans le catalogue de bot.copy.fr."""

LIMITS: dict[str, str | tuple[str, ...]] = {
    "slack.refused.cluster": (
        "Désolé, je ne peux pas répondre au sujet du namespace {namespace} du cluster {cluster} ici. Si vous "
        "devriez y avoir accès, demandez aux admins du bot de vous l'ouvrir, à vous ou à ce canal."
    ),
}
