"""Ce qu'on dit à quelqu'un quand Slack n'a pas pris une réponse à temps (ses limites de débit), en français :
fusionné dans le catalogue de bot.copy.fr."""

DELIVERY: dict[str, str | tuple[str, ...]] = {
    "delivery.too-busy": (
        "Désolé, Slack limite en ce moment la vitesse à laquelle je peux écrire, et je n'ai pas pu vous répondre "
        "en moins de {bound_seconds}. Reposez la question dans quelques minutes."
    ),
}
