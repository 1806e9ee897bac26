"""Who is using the GPUs, cluster-wide (issue 16, item 4): the words of the question, the holders found on
built clusters (cohorts, several flavors and queues), and the message within Slack's limits."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from bot.forecast.usage import Subject, Unknown, resolve, who_uses
from bot.slack.mrkdwn import slack_len
from bot.slack.parse import Command, parse
from bot.slack.render import MAX_BLOCKS, MAX_SECTION, MAX_TOTAL
from bot.slack.render_who import who_view
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.builders import NOW, resource_flavor, snapshot
from tests.contention import base, gpu_queue, lq, running


@pytest.mark.parametrize(
    ("text", "command", "subject", "name"),
    [
        pytest.param("who", Command.WHO, (), None, id="bare"),
        pytest.param("who gpu", Command.WHO, ("gpu",), None, id="resource-word"),
        pytest.param("who nvidia.com/gpu h100 cq-b", Command.WHO, ("nvidia.com/gpu", "h100", "cq-b"), None, id="all"),
        pytest.param("/kueue who a100", Command.WHO, ("a100",), None, id="typed-slash"),
        pytest.param("who is using the GPUs?", Command.WHO, ("gpus",), None, id="phrase"),
        pytest.param("Who's hogging the gpus in cq-a?", Command.WHO, ("gpus", "cq-a"), None, id="phrase-queue"),
        pytest.param("qui utilise les GPU ?", Command.WHO, ("gpu",), None, id="fr"),
        pytest.param("qui occupe les gpu dans cq-b ?", Command.WHO, ("gpu", "cq-b"), None, id="fr-queue"),
        pytest.param("who holds what team-a/train needs?", Command.WHY, (), "train", id="a-job-s-holders"),
        pytest.param("qui tient ce qu'attend team-a/train ?", Command.WHY, (), "train", id="fr-a-job-s-holders"),
        pytest.param("who is using a100", Command.WHY, (), "a100", id="a-word-that-may-be-a-job"),
    ],
)
def test_the_words_of_the_question(text: str, command: Command, subject: tuple[str, ...], name: str | None) -> None:
    question = parse(text)
    assert (question.command, question.subject, question.name) == (command, subject, name)


def cluster() -> list[dict[str, object]]:
    return [
        *base(
            gpu_queue("cq-a", ("a100", 8), ("h100", 4), cohort_name="pool"),
            gpu_queue("cq-b", ("a100", 8), cohort_name="pool"),
            flavors=[resource_flavor("a100"), resource_flavor("h100")],
        ),
        lq("gpus", "team-a", "cq-a"),
        lq("gpus", "team-b", "cq-b"),
        *running("train", "team-a", "cq-a", pods=2, gpus_per_pod=2, minutes=40),
        *running("tune", "team-a", "cq-a", pods=1, gpus_per_pod=4, flavor="h100", minutes=10),
        *running("infer", "team-b", "cq-b", pods=1, gpus_per_pod=6, minutes=90),
    ]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        pytest.param([], Subject("nvidia.com/gpu"), id="the-accelerator-by-default"),
        pytest.param(["gpus", "h100"], Subject("nvidia.com/gpu", "h100"), id="a-flavor"),
        pytest.param(["cq-b"], Subject("nvidia.com/gpu", "", "cq-b"), id="a-queue"),
        pytest.param(["cpu"], Subject("cpu"), id="cpu"),
    ],
)
def test_words_name_a_resource_a_flavor_and_a_queue(words: list[str], expected: Subject) -> None:
    assert resolve(snapshot(cluster()), words) == expected


def test_a_word_that_names_nothing_is_told_with_what_exists() -> None:
    found = resolve(snapshot(cluster()), ["tpu-v5"])
    assert isinstance(found, Unknown) and found.word == "tpu-v5"
    assert {"nvidia.com/gpu", "a100", "cq-a"} <= set(found.known)


@pytest.mark.parametrize(
    ("subject", "rows"),
    [
        pytest.param(
            Subject("nvidia.com/gpu"),
            [("cq-a", 8, 12, [("team-a", 8, ["train", "tune"])]), ("cq-b", 6, 8, [("team-b", 6, ["infer"])])],
            id="every-flavor-largest-first",
        ),
        pytest.param(
            Subject("nvidia.com/gpu", "a100"),
            [("cq-b", 6, 8, [("team-b", 6, ["infer"])]), ("cq-a", 4, 8, [("team-a", 4, ["train"])])],
            id="one-flavor",
        ),
        pytest.param(Subject("nvidia.com/gpu", "h100", "cq-b"), [], id="a-queue-without-that-flavor"),
    ],
)
def test_holders_are_grouped_by_queue_and_namespace(subject: Subject, rows: list[object]) -> None:
    usage = who_uses(snapshot(cluster()), subject, now=NOW)
    got = [
        (
            q.cluster_queue,
            q.used,
            q.nominal,
            [(n.namespace, n.amount, [h.name for h in n.holders]) for n in q.namespaces],
        )
        for q in usage.queues
    ]
    assert got == rows
    if rows:
        assert usage.queues[0].cohort == "pool"


def test_the_holders_say_how_long_they_have_run() -> None:
    usage = who_uses(snapshot(cluster()), Subject("nvidia.com/gpu", "", "cq-b"), now=NOW)
    (holder,) = usage.queues[0].namespaces[0].holders
    assert (holder.name, holder.amount, holder.running_seconds) == ("infer", Decimal(6), 90 * 60)


def test_a_workload_holding_only_a_quota_reservation_is_not_said_to_run() -> None:
    """Quota reserved while its admission checks are pending (QuotaReserved=True, no Admitted): it holds the
    GPUs in Kueue's books, but it has not started; the answer lists it without a running time."""
    objects = cluster()
    for item in objects:
        meta = item["metadata"]
        if item["kind"] == "Workload" and isinstance(meta, dict) and meta.get("namespace") == "team-b":
            status = item["status"]
            assert isinstance(status, dict)
            status["conditions"] = [c for c in status["conditions"] if c["type"] != "Admitted"]
    usage = who_uses(snapshot(objects), Subject("nvidia.com/gpu", "", "cq-b"), now=NOW)
    (holder,) = usage.queues[0].namespaces[0].holders
    assert (holder.name, holder.amount, holder.running_seconds) == ("infer", Decimal(6), None)
    text = json.dumps(who_view(usage, language="en", shown={"team-b"}).blocks)
    assert "infer" in text and "running" not in text


@settings(max_examples=30, deadline=None)
@given(
    queues=st.integers(min_value=1, max_value=30),
    namespaces=st.integers(min_value=1, max_value=15),
    jobs=st.integers(min_value=1, max_value=12),
    shown=st.booleans(),
)
def test_the_message_stays_within_slack_s_limits(queues: int, namespaces: int, jobs: int, shown: bool) -> None:
    objects: list[dict[str, object]] = [*base(*(gpu_queue(f"cq-{q}", ("a100", 10_000)) for q in range(queues)))]
    names = [f"team-{n}-{'x' * 40}" for n in range(namespaces)]
    for q in range(queues):
        for n, ns in enumerate(names[: 1 + q % namespaces]):
            objects.append(lq(f"lq-{q}", ns, f"cq-{q}"))
            for j in range(jobs):
                objects.extend(running(f"job-{q}-{n}-{j}-{'y' * 30}", ns, f"cq-{q}", queue=f"lq-{q}", minutes=5))
    usage = who_uses(snapshot(objects), Subject("nvidia.com/gpu"), now=NOW)
    for language in ("en", "fr"):
        message = who_view(usage, language=language, shown=set(names) if shown else set())
        assert len(message.blocks) <= MAX_BLOCKS
        texts = [str(b.get("text", {}).get("text", "")) for b in message.blocks if isinstance(b.get("text"), dict)]
        assert all(slack_len(t) <= MAX_SECTION for t in texts)
        assert sum(slack_len(t) for t in texts) <= MAX_TOTAL
        assert json.dumps(message.blocks)
