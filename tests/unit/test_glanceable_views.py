"""`/kueue queue` and `/kueue who` follow the first message's rule: read at a glance (at most 900 visible
characters and 8 blocks), the rest counted in "and N more", however long the queue or many the holders."""

from __future__ import annotations

import pytest
from bot.forecast.usage import Subject, who_uses
from bot.slack.render.queue import queue_view
from bot.slack.render_who import who_view
from bot.trace.queueview import describe_queue

from tests.builders import NOW, assignment, cluster, cluster_queue, cpu_group, local_queue, pending, reserved, snapshot
from tests.visible import visible_chars, visible_text

LIMIT_CHARS, LIMIT_BLOCKS = 900, 8


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("waiting", [1, 5, 30])
def test_the_queue_view_is_one_screen(language: str, waiting: int) -> None:
    objects = [*cluster(cpu=1)]
    for index in range(waiting):
        objects += pending(f"train-with-a-rather-long-name-{index:03d}", cpu="2")
    view = describe_queue(snapshot(objects), "team-a", "user-queue")
    message = queue_view(view, language=language, show_names=True)
    assert visible_chars(message.blocks) <= LIMIT_CHARS
    assert len(message.blocks) <= LIMIT_BLOCKS
    if waiting > 5:
        assert str(waiting - 5) in visible_text(message.blocks)  # the rest counted


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_who_view_is_one_screen(language: str) -> None:
    objects = [*cluster(cpu=1000)]
    for index in range(12):  # twelve ClusterQueues, each with its LocalQueue and four admitted jobs
        name = f"cq-{index:02d}"
        objects += [cluster_queue(name, cpu_group(cpu=100)), local_queue(f"lq-{index:02d}", cluster_queue=name)]
        for job in range(4):
            status = reserved(name, assignment("main", 1, default={"cpu": "2"}))
            objects += pending(f"job-{index:02d}-{job}", cpu="2", queue=f"lq-{index:02d}", status=status)
    usage = who_uses(snapshot(objects), Subject("cpu"), now=NOW)
    assert len(usage.queues) == 12
    message = who_view(usage, language=language, shown=frozenset({"team-a"}))
    assert visible_chars(message.blocks) <= LIMIT_CHARS
    assert len(message.blocks) <= LIMIT_BLOCKS
    shown = len(message.blocks) - 3  # a header, the totals, the queues shown, then the count of the others
    assert str(len(usage.queues) - shown) in visible_text(message.blocks[-1:])
