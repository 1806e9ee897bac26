"""Clicking "Show the steps" under an answer, as a person would: the steps come in the answer's thread."""

from __future__ import annotations

from bot.standin.slack import Call, FakeSlack


async def show_steps(slack: FakeSlack, url: str, user: str, answer: Call) -> Call:
    """Click "Show the steps" under the posted `answer`; the steps' chat.postMessage in its thread."""
    assert answer.response is not None
    channel, ts = str(answer.params["channel"]), str(answer.response["ts"])
    if not channel.startswith("C"):
        channel = str(answer.response["channel"])
    before = len(slack.calls("chat.postMessage"))
    await slack.deliver_block_action(
        f"{url}/slack/events", action_id="kueue_show_steps", user_id=user, channel_id=channel, message_ts=ts
    )
    return await slack.wait_for_call("chat.postMessage", nth=before + 1)
