"""Limits and unreadable input (hostile dumps, objects beyond the API's own bounds), and the cluster a refusal
is about, in English: merged into bot.copy.en's catalogue."""

LIMITS: dict[str, str | tuple[str, ...]] = {
    "headline.object-unreadable": ("I could not read {kind} {name}, so I can't say why {job} waits: {reason}."),
    "object.unreadable": "{kind} {name} is there, but I could not read it.",
    "action.report-unreadable": (
        "Look at {kind} {name} with kubectl: Kueue and the API server would not hold it as it is. If it looks "
        "right, tell the bot's admins (its log names it)."
    ),
    "slack.refused.cluster": (
        "Sorry, I can't answer about namespace {namespace} of cluster {cluster} here. If you should be able to, "
        "ask the bot's admins to give you or this channel access to it."
    ),
}
