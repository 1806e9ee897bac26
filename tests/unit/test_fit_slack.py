"""Will it fit? in Slack, pure parts: what a message asks (bot.slack.fitparse, total), the short spec
(bot.fit.spec), and the answer within the first screen's limits (bot.slack.render.fit) in English and French."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from bot.fit.decide import fit
from bot.fit.quota import queue_quota
from bot.fit.spec import parse_spec
from bot.kube.jobfile import draft_of
from bot.slack.fitparse import fit_request, shortcut_job
from bot.slack.render.blocks import chars
from bot.slack.render.fit import FIRST_SCREEN_BLOCKS, FIRST_SCREEN_CHARS, fit_message, quota_message
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.builders import snapshot
from tests.fit_support import pending_scenarios, take_out

GI = Decimal(2**30)


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("<@U0BOT> will this fit?\n```\nkind: Job\n```", "yaml"),
        ("does it fit? ```yaml\nkind: Job```", "yaml"),
        ("est-ce que ça rentre ?\n```kind: Job```", "yaml"),
        ("will it fit?", "no-yaml"),
        ("fit team-a/default 4 pods × (cpu 8, memory 32Gi, nvidia.com/gpu 2)", "spec"),
        ("fit team-a/default 4 pods x (cpu 8)", "spec"),
        ("fit ```kind: Job```", "yaml"),
        ("fit please", "bad-spec"),
        ("quota team-a/default", "quota"),
        ("quota", "quota-usage"),
    ],
)
def test_what_a_message_asks_of_the_dry_run(text: str, what: str) -> None:
    ask = fit_request(text)
    assert ask is not None and ask.what == what


@pytest.mark.parametrize(
    "text", ["why is train pending?", "ml-vision/segformer", "queue team-a/default", "```kind: Job```", ""]
)
def test_other_questions_are_left_to_the_question_parser(text: str) -> None:
    assert fit_request(text) is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_an_answer_or_none_never_an_error(text: str) -> None:
    fit_request(text)
    shortcut_job(text)
    parse_spec(text)


def test_the_short_spec_reads_counts_resources_and_the_times_sign() -> None:
    spec = parse_spec("team-a/default 4 pods × (cpu 8, memory 32Gi, nvidia.com/gpu 2)")
    assert spec is not None
    assert (spec.namespace, spec.queue, spec.count) == ("team-a", "default", 4)
    assert spec.requests == {"cpu": Decimal(8), "memory": 32 * GI, "nvidia.com/gpu": Decimal(2)}
    assert parse_spec("default (cpu=2)") is not None
    assert parse_spec("a/b 3 pods") is None and parse_spec("a/b 0 x (cpu 1)") is None


def test_a_code_block_keeps_its_yaml_with_slacks_entities_undone() -> None:
    ask = fit_request("will this fit? ```a: &lt;b&gt;```")
    assert ask is not None and ask.text == "a: <b>"


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("name", pending_scenarios())
def test_the_answer_stays_within_the_first_screen(name: str, language: str) -> None:
    taken = take_out(name)
    now = datetime(2026, 12, 1, tzinfo=UTC)
    result = fit(snapshot(taken.cluster), draft_of(taken.job), namespace=taken.expect["query"]["namespace"], now=now)
    answer = fit_message(result, language=language, show_names=False, as_of="2026-12-01 00:00 UTC")
    assert len(answer.blocks) <= FIRST_SCREEN_BLOCKS
    assert chars(answer.blocks) <= FIRST_SCREEN_CHARS
    assert result.verdict in answer.text


def test_the_quota_view_has_a_row_per_flavor_and_resource() -> None:
    taken = take_out("cohort-borrowing-waits")
    quota = queue_quota(snapshot(taken.cluster), "alpha-llm", "alpha-queue")
    assert quota.cluster_queue == "alpha-cq"
    gpu = next(row for row in quota.rows if row.resource == "nvidia.com/gpu")
    assert [gpu.nominal, gpu.maximum, gpu.used, gpu.free] == [Decimal(8), Decimal(16), Decimal(2), Decimal(6)]
    text = quota_message(quota, language="fr").blocks[1]["text"]["text"]
    assert "libre maintenant 6" in text
    missing = queue_quota(snapshot(taken.cluster), "alpha-llm", "nope")
    assert missing.problem == "local-queue-missing"
