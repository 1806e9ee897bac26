"""Limits and unreadable input (hostile dumps, objects beyond the API's own bounds), and the cluster a refusal
is about, in English: merged into bot.copy.en's catalogue."""

LIMITS: dict[str, str | tuple[str, ...]] = {
    "slack.refused.cluster": (
        "Sorry, I can't answer about namespace {namespace} of cluster {cluster} here. If you should be able to, "
        "ask the bot's admins to give you or this channel access to it."
    ),
}
