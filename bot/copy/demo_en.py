"""The terminal demo's own words: its intro and its help, in English."""

from __future__ import annotations

DEMO: dict[str, str] = {
    "demo.title": "kueue-bot demo",
    "demo.intro": (
        "{title}: the real bot (server, Bolt, engine, watcher) talks with you,\n"
        "@you in #ml-platform of a local Slack stand-in, about a small Kueue cluster.\n"
        "The cluster: {moment}.\n"
        "{pace}\n"
        "\n"
        "Try:\n"
        "  why is train-octobre pending?            a job that can never fit its queue\n"
        "  why is vit-large-finetune pending?       a GPU job third in line, in a cohort\n"
        "  /kueue why robotics/isaac-policy-sweep   held by an admission check\n"
        "  dm why is llm-eval-70b pending?          admitted; a pod waits for a node\n"
        "  /kueue queue equipe-data/default         a queue: its quota and who waits\n"
        "  click watch, click recheck, click queue  a button of the last answer\n"
        "  more                                     the rest of a long answer\n"
        "  /advance                                 the cluster moves on\n"
        "  help, quit\n"
    ),
    "demo.moment": "2026-10-14 at {title}",
    "demo.story.start": "10:30: the start, four stories in four namespaces",
    "demo.story.gpu-frees": (
        "10:45: yolo-nightly finished; detr-hotfix admitted; the second pod of llm-eval-70b found a node"
    ),
    "demo.story.gpu-frees.1": "ml-vision/yolo-nightly finished and gave back 4 GPUs.",
    "demo.story.gpu-frees.2": "Kueue admitted ml-vision/detr-hotfix (priority 1000); ml-vision/vit-large-finetune moves up.",
    "demo.story.gpu-frees.3": "The waiting pod of ml-nlp/llm-eval-70b got a node.",
    "demo.story.gpu-job-admitted": (
        "11:00: llm-eval-70b finished; sam-distill and vit-large-finetune admitted, borrowing from ml-nlp"
    ),
    "demo.story.gpu-job-admitted.1": "ml-nlp/llm-eval-70b finished: ml-nlp lends its 8 GPUs to the cohort ml-gpu-pool.",
    "demo.story.gpu-job-admitted.2": (
        "Kueue admitted ml-vision/sam-distill and ml-vision/vit-large-finetune, borrowing from ml-nlp."
    ),
    "demo.wait-word.admitted": "admitted",
    "demo.pace.every": "It moves on every {seconds} s (or type /advance).",
    "demo.pace.advance": "It moves on when you type /advance.",
    "demo.pace.script": "It moves on when the script says /advance.",
    "demo.help": (
        "  TEXT                 an @mention of kueue-bot in #ml-platform, e.g. why is train-octobre pending?\n"
        "  /kueue TEXT          the slash command, e.g. /kueue queue ml-vision/default, /kueue help\n"
        "  dm TEXT              a direct message to kueue-bot\n"
        "  click LABEL          a button of the last message that has it: click watch, click recheck, click queue\n"
        "  more                 the rest of a long answer\n"
        "  /advance             the cluster moves on to its next moment (also /wait)\n"
        "  /wait-dm [TEXT]      wait until kueue-bot sends you a DM (containing TEXT)\n"
        "  /digest              the admins' daily digest, now (you are an admin: /kueue admin shows the same)\n"
        "  help, quit\n"
    ),
}
