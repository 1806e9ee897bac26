"""`python -m bot demo`: the real bot, a demo cluster that changes over time, and a Slack stand-in, in a terminal."""
