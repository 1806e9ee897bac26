"""The terminal demo's own words: its intro and its help, in French."""

from __future__ import annotations

DEMO: dict[str, str] = {
    "demo.title": "démo de kueue-bot",
    "demo.intro": (
        "{title} : le vrai bot (serveur, Bolt, moteur, veilleur) vous répond,\n"
        "à vous (@you) dans #ml-platform d'une copie locale de Slack, au sujet d'un petit cluster Kueue.\n"
        "Le cluster : {moment}.\n"
        "{pace}\n"
        "\n"
        "Essayez :\n"
        "  pourquoi train-octobre est en attente ?        un job qui ne tiendra jamais dans sa file\n"
        "  pourquoi vit-large-finetune est en attente ?   un job GPU troisième dans la file, dans une cohorte\n"
        "  /kueue why robotics/isaac-policy-sweep         retenu par un admission check\n"
        "  dm pourquoi llm-eval-70b est en attente ?      admis ; un pod attend un nœud\n"
        "  /kueue queue equipe-data/default               une file : son quota et qui attend\n"
        "  click watch, click recheck, click queue        un bouton de la dernière réponse\n"
        "  more                                           la suite d'une longue réponse\n"
        "  /advance                                       le cluster passe à la suite\n"
        "  help, quit\n"
    ),
    "demo.moment": "le 14/10/2026 à {title}",
    "demo.story.start": "10:30 : le début, quatre histoires dans quatre namespaces",
    "demo.story.gpu-frees": (
        "10:45 : yolo-nightly a fini ; detr-hotfix est admis ; le second pod de llm-eval-70b a trouvé un nœud"
    ),
    "demo.story.gpu-frees.1": "ml-vision/yolo-nightly a fini et rendu 4 GPU.",
    "demo.story.gpu-frees.2": "Kueue a admis ml-vision/detr-hotfix (priorité 1000) ; ml-vision/vit-large-finetune avance.",
    "demo.story.gpu-frees.3": "Le pod en attente de ml-nlp/llm-eval-70b a trouvé un nœud.",
    "demo.story.gpu-job-admitted": (
        "11:00 : llm-eval-70b a fini ; sam-distill et vit-large-finetune sont admis, en empruntant à ml-nlp"
    ),
    "demo.story.gpu-job-admitted.1": "ml-nlp/llm-eval-70b a fini : ml-nlp prête ses 8 GPU à la cohorte ml-gpu-pool.",
    "demo.story.gpu-job-admitted.2": (
        "Kueue a admis ml-vision/sam-distill et ml-vision/vit-large-finetune, en empruntant à ml-nlp."
    ),
    "demo.wait-word.admitted": "admis",
    "demo.pace.every": "Il avance toutes les {seconds} s (ou tapez /advance).",
    "demo.pace.advance": "Il avance quand vous tapez /advance.",
    "demo.pace.script": "Il avance quand le script dit /advance.",
    "demo.help": (
        "  TEXTE                une mention de kueue-bot dans #ml-platform, p. ex. why is train-octobre pending?\n"
        "  /kueue TEXTE         la commande slash, p. ex. /kueue queue ml-vision/default, /kueue help\n"
        "  dm TEXTE             un message direct à kueue-bot\n"
        "  click LIBELLÉ        un bouton du dernier message qui l'a : click watch, click recheck, click queue\n"
        "  more                 la suite d'une longue réponse\n"
        "  /advance             le cluster passe au moment suivant (aussi /wait)\n"
        "  /wait-dm [TEXTE]     attendre que kueue-bot vous envoie un DM (contenant TEXTE)\n"
        "  /digest              le résumé quotidien des admins, maintenant (vous êtes admin : /kueue admin montre le même)\n"
        "  help, quit\n"
    ),
}
