"""Les messages directs au propriétaire d'un job et l'onglet d'accueil, en français : fusionnés dans le
catalogue de bot.copy.fr."""

NOTIFY: dict[str, str | tuple[str, ...]] = {
    "notify.button.why": "Pourquoi ?",
    "notify.button.stop": "Ne plus m'écrire",
    "notify.footer": (
        "Vous recevez ce message parce que vous suivez ce job ou qu'il vous désigne. « Ne plus m'écrire » y met fin "
        "pour ce job."
    ),
    "notify.now-never-fits": "{job} ne démarrera désormais jamais avec la configuration actuelle.",
    "notify.why": "Pourquoi :",
    "notify.fix": "Que faire :",
    "notify.home.title": "Vos jobs",
    "notify.home.ask": (
        "Demandez-moi pourquoi un job attend : {command} n'importe où, une mention dans un canal, ou un message "
        "ici (l'onglet Messages)."
    ),
    "notify.home.told": "Les jobs dont je vous parle, à vous ou aux canaux de vos namespaces",
}
