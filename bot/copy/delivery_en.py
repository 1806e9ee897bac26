"""What a person is told when Slack would not take an answer in time (its rate limits), in English: merged into
bot.copy.en's catalogue."""

DELIVERY: dict[str, str | tuple[str, ...]] = {
    "delivery.too-busy": (
        "Sorry, Slack is limiting how fast I may post right now, and I could not answer you within {bound_seconds}. "
        "Please ask again in a few minutes."
    ),
}
