"""The owner's direct messages and the App Home, in English: merged into bot.copy.en's catalogue."""

NOTIFY: dict[str, str | tuple[str, ...]] = {
    "notify.button.why": "Why?",
    "notify.button.stop": "Stop these DMs",
    "notify.footer": "You get this because you watch this job or it names you. “Stop these DMs” ends them for this job.",
    "notify.now-never-fits": "{job} will now never start as it is configured.",
    "notify.why": "Why:",
    "notify.fix": "What to do:",
    "notify.home.title": "Your jobs",
    "notify.home.ask": (
        "Ask me why a job waits: {command} anywhere, a mention of me in a channel, or a message to me here "
        "(the Messages tab)."
    ),
    "notify.home.told": "Jobs I tell you or your namespaces' channels about",
}
