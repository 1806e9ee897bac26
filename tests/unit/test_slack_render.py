"""bot.slack.render and bot.slack.mrkdwn: goldens per scenario, Slack's limits under hostile input, escaping."""

from __future__ import annotations

import functools
import json
import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.copy import en, fr
from bot.forecast.outlook import Outlook, explain_with_outlook
from bot.kube.dump import read_dump
from bot.slack import mrkdwn, render
from bot.slack.render import SlackMessage
from bot.trace.codes import Outcome, Verdict
from bot.trace.explain import Query
from bot.trace.explanation import Action, Ahead, Explanation, JobRef, Position, Step, Text
from bot.trace.queuechain import QueueChain
from bot.trace.queueview import QueueView, QuotaLine, Waiting, describe_queue
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fakes.slack_blocks import block_errors
from tests.paths import SCENARIOS

GOLDENS = Path(__file__).resolve().parents[1] / "goldens" / "blockkit"
SCENARIO_NAMES = sorted(p.name for p in SCENARIOS.iterdir() if (p / "expect.yaml").is_file())
SNAPSHOT_AGE = 130


@functools.cache
def scenario(name: str) -> tuple[Explanation, Outlook, Any]:
    folder = SCENARIOS / name
    expect = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))
    query = expect["query"]
    now = datetime.fromisoformat(str(expect["now"]).replace("Z", "+00:00"))
    snapshot = read_dump(folder / "cluster.yaml").snapshot
    query = Query(query["namespace"], query["name"], query.get("kind", "Job"))
    explanation, outlook = explain_with_outlook(snapshot, query, now=now)
    return explanation, outlook, snapshot


# --- the validator: Slack's limits, structurally -------------------------------------------------------

_ALLOWED_BLOCKS = {"section", "header", "context", "actions", "divider"}
_BAD_ENTITY = re.compile(r"&(?!(?:amp|lt|gt);)")


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# The only markup the bot writes on purpose: links to Kueue's concept pages (its words glossed) and date tokens.
_OWN_MARKUP = re.compile(
    r"<https://kueue\.sigs\.k8s\.io/docs/concepts/[a-z_/#]*\|[^<>|]+>|<!date\^[0-9]+\^[^<>|]+\|[^<>|]+>"
)


def _mrkdwn_errors(text: str, where: str) -> list[str]:
    errors = []
    text = _OWN_MARKUP.sub("link", text)
    if "<" in text or ">" in text:
        errors.append(f"{where}: unescaped < or >")
    if _BAD_ENTITY.search(text):
        errors.append(f"{where}: a bare & or a broken entity")
    for line in text.split("\n"):
        if line.count("`") % 2:
            errors.append(f"{where}: an unclosed code span in {line[:80]!r}")
        outside = "".join(part for i, part in enumerate(line.split("`")) if i % 2 == 0)
        if outside.count("*") % 2:
            errors.append(f"{where}: an unclosed bold run in {line[:80]!r}")
    return errors


def _text_object_errors(obj: Any, where: str, limit: int, *, plain_only: bool = False) -> list[str]:
    if not isinstance(obj, dict) or obj.get("type") not in ("plain_text", "mrkdwn"):
        return [f"{where}: not a text object"]
    if plain_only and obj["type"] != "plain_text":
        return [f"{where}: must be plain_text"]
    text = obj.get("text")
    if not isinstance(text, str) or not text.strip():
        return [f"{where}: empty text"]
    errors = [f"{where}: {_units(text)} > {limit} characters"] if _units(text) > limit else []
    if obj["type"] == "mrkdwn":
        errors += _mrkdwn_errors(text, where)
    elif "<" in text or ">" in text:
        errors.append(f"{where}: < or > in plain text")
    return errors


def _button_errors(button: Any, where: str) -> list[str]:
    if not isinstance(button, dict) or button.get("type") != "button":
        return [f"{where}: not a button"]
    errors = _text_object_errors(button.get("text"), f"{where}/text", 75, plain_only=True)
    action_id = button.get("action_id", "")
    if not isinstance(action_id, str) or not 0 < len(action_id) <= 255:
        errors.append(f"{where}: bad action_id")
    value = button.get("value")
    if value is not None:
        if _units(value) > 2000:
            errors.append(f"{where}: value longer than 2000")
        if "<" in value or ">" in value:
            errors.append(f"{where}: < or > in a value")
        json.loads(value)
    return errors


def limit_errors(blocks: list[dict[str, Any]], *, max_blocks: int = 50, max_total: int = 12_000) -> list[str]:
    """Every way `blocks` break Slack's limits or our escaping rules (empty: fine)."""
    errors: list[str] = []
    if not blocks:
        errors.append("no blocks")
    if len(blocks) > max_blocks:
        errors.append(f"{len(blocks)} blocks > {max_blocks}")
    total = 0
    for index, block in enumerate(blocks):
        where = f"/blocks/{index}"
        kind = block.get("type")
        if kind not in _ALLOWED_BLOCKS:
            errors.append(f"{where}: block type {kind!r}")
            continue
        if kind == "section":
            errors += _text_object_errors(block.get("text"), f"{where}/text", 3000)
            total += _units(block.get("text", {}).get("text", ""))
            if "accessory" in block:
                errors += _button_errors(block["accessory"], f"{where}/accessory")
        elif kind == "header":
            errors += _text_object_errors(block.get("text"), f"{where}/text", 150, plain_only=True)
            total += _units(block.get("text", {}).get("text", ""))
        elif kind == "context":
            elements = block.get("elements", [])
            if not 1 <= len(elements) <= 10:
                errors.append(f"{where}: {len(elements)} context elements")
            for i, element in enumerate(elements):
                errors += _text_object_errors(element, f"{where}/elements/{i}", 3000)
                total += _units(element.get("text", ""))
        elif kind == "actions":
            elements = block.get("elements", [])
            if not 1 <= len(elements) <= 25:
                errors.append(f"{where}: {len(elements)} actions")
            ids = [element.get("action_id") for element in elements]
            if len(ids) != len(set(ids)):
                errors.append(f"{where}: duplicate action_id")
            for i, element in enumerate(elements):
                errors += _button_errors(element, f"{where}/elements/{i}")
    if total > max_total:
        errors.append(f"{total} characters in all > {max_total}")
    return errors


def message_errors(message: SlackMessage) -> list[str]:
    errors = limit_errors(message.blocks)
    if not message.text.strip() or _units(message.text) >= 3000:
        errors.append(f"fallback text of {_units(message.text)} characters")
    errors += _mrkdwn_errors(message.text, "/text")
    errors += block_errors(message.blocks)  # the Slack stand-in's own checks agree
    return errors


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return [value] if isinstance(value, str) else []


def _everything(message: SlackMessage) -> str:
    return "\n".join([message.text, *_strings(message.blocks)])


# --- goldens ------------------------------------------------------------------------------------------


def _golden(request: pytest.FixtureRequest, path: Path, message: SlackMessage) -> None:
    actual = json.dumps({"text": message.text, "blocks": message.blocks}, indent=2, ensure_ascii=False) + "\n"
    if request.config.getoption("--update-goldens"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    assert path.is_file(), f"{path} is missing: run pytest --update-goldens and review the diff"
    assert actual == path.read_text(encoding="utf-8"), f"{path.name} changed: run pytest --update-goldens if intended"


@pytest.mark.parametrize("name", SCENARIO_NAMES)
def test_golden_summary_and_details(request: pytest.FixtureRequest, name: str) -> None:
    explanation, outlook, _ = scenario(name)
    summary = render.answer_summary(explanation, outlook=outlook, language="en", snapshot_age_seconds=SNAPSHOT_AGE)
    details = render.answer_details(explanation, outlook=outlook, language="en", show_names=True)
    assert message_errors(summary) == []
    assert message_errors(details) == []
    _golden(request, GOLDENS / f"{name}.summary.json", summary)
    _golden(request, GOLDENS / f"{name}.details.json", details)


def test_every_scenario_has_goldens_and_no_golden_is_stale() -> None:
    expected = {f"{name}.{part}.json" for name in SCENARIO_NAMES for part in ("summary", "details")}
    assert {p.name for p in GOLDENS.glob("*.json")} == expected


@pytest.mark.parametrize("name", SCENARIO_NAMES)
def test_french_rendering_of_every_scenario(name: str) -> None:
    explanation, outlook, _ = scenario(name)
    summary = render.answer_summary(explanation, outlook=outlook, language="fr", snapshot_age_seconds=SNAPSHOT_AGE)
    details = render.answer_details(explanation, outlook=outlook, language="fr", show_names=False)
    assert message_errors(summary) == []
    assert message_errors(details) == []
    family = render.family(explanation.verdict)
    assert str(fr.CATALOGUE[f"slack.family.{family}"]) in summary.blocks[0]["text"]["text"]
    assert "état vu il y a 2 min" in _everything(summary)
    assert "Le chemin d'admission de" in details.blocks[0]["text"]["text"]
    english = {str(en.CATALOGUE[key]) for key in ("slack.details.next", "slack.button.recheck", "slack.button.watch")}
    assert not any(word in _everything(summary) + _everything(details) for word in english)


# --- what the answer says -----------------------------------------------------------------------------


def test_the_first_message_says_the_cause_one_thing_to_do_the_place_and_when() -> None:
    explanation, outlook, _ = scenario("waiting-for-quota-computed-position")
    message = render.answer_summary(explanation, outlook=outlook, language="en", snapshot_age_seconds=120)
    texts = [block["text"]["text"] for block in message.blocks if block["type"] == "section"]
    assert texts[0].startswith(":hourglass_flowing_sand: *Waiting*\n`ml-vision/segformer-finetune` waits")
    assert "2 more `nvidia.com/gpu` in ClusterQueue `gpu-a100-shared` (flavor `a100-40gb`)" in texts[0]
    assert texts[1].startswith("*What to do:* Wait: Kueue will admit it when its turn comes")
    assert texts[1].endswith("5 other options under “Show the steps”.")
    assert texts[2] == (
        "*Place:* 3rd of 5 in ClusterQueue `gpu-a100-shared`; 2nd in LocalQueue `vision-queue`\n"
        "*When:* No estimate yet: I have seen 3 admissions in this ClusterQueue in the last 24 h, too few to say."
    )
    buttons = next(block for block in message.blocks if block["type"] == "actions")["elements"]
    assert [b["action_id"] for b in buttons] == ["kueue_show_steps", "kueue_recheck", "kueue_watch", "kueue_show_queue"]
    assert json.loads(buttons[0]["value"]) == {
        "ns": "ml-vision",
        "name": "segformer-finetune",
        "kind": "Job",
        "lq": "vision-queue",
    }
    footer = [element["text"] for element in message.blocks[-1]["elements"]]
    assert footer[-1] == "as of 2 min ago"
    assert footer[0] == "`waiting-for-quota`"
    assert "<https://kueue.sigs.k8s.io/docs/concepts/resource_flavor/|flavor>" in footer[1]
    assert message.text.startswith("Waiting: ml-vision/segformer-finetune waits for capacity")
    assert "What to do: Wait:" in message.text and "`" not in message.text and "*" not in message.text
    hidden = render.answer_summary(explanation, outlook=outlook, language="en", show_queue_names=False)
    assert "gpu-a100-shared" not in hidden.blocks[2]["text"]["text"]
    assert "as of" not in _everything(hidden)


def test_the_first_message_links_headlamp_only_when_it_is_set() -> None:
    explanation, outlook, _ = scenario("waiting-for-quota-computed-position")
    plain = render.answer_summary(explanation, outlook=outlook, language="en")
    assert "headlamp" not in json.dumps(plain.blocks).lower()
    linked = render.answer_summary(
        explanation, outlook=outlook, language="en", links=render.Links("https://hl.example/c/main/")
    )
    buttons = next(block for block in linked.blocks if block["type"] == "actions")["elements"]
    link = next(b for b in buttons if b["action_id"] == render.ACTION_OPEN_LINK)
    assert link["text"]["text"] == "Open in Headlamp"
    assert link["url"] == "https://hl.example/c/main/kueue/workloads/ml-vision/job-segformer-finetune-0d118"


@pytest.mark.parametrize(
    ("name", "emoji"),
    [
        ("article-three-cpus", ":no_entry:"),
        ("waiting-for-quota-visibility-api", ":hourglass_flowing_sand:"),
        ("finished", ":white_check_mark:"),
    ],
)
def test_emoji_by_verdict_family(name: str, emoji: str) -> None:
    explanation, outlook, _ = scenario(name)
    summary = render.answer_summary(explanation, outlook=outlook, language="en")
    assert summary.blocks[0]["text"]["text"].startswith(emoji)


def test_the_steps_fold_what_passed_and_group_the_rest_in_admission_order() -> None:
    explanation, outlook, _ = scenario("article-three-cpus")
    message = render.answer_details(explanation, outlook=outlook, language="en", show_names=True)
    texts = [block["text"]["text"] for block in message.blocks if block["type"] == "section"]
    assert texts[0] == "*The admission path of `equipe-data/train-octobre`* · `exceeds-max-quota`"
    assert texts[1] == ":white_check_mark: 3 checks passed: Workload, LocalQueue, ClusterQueue."
    titles = [text.split("\n", 1)[0] for text in texts[2:]]
    assert titles == ["*Demand*", "*Kueue's record*", "*Quota*", "*Position in the queue*", "*What you can do*"]
    assert ":x: 9. `cpu` in flavor `default-flavor`: needs 3" in texts[4]
    assert texts[-1].split("\n") == [
        "*What you can do*",
        "• Run 2 pods instead of 3: that many fit in what is free now.",
        "• Let Kueue admit it partially, down to 2 pods of 3 (minCount; for a Job, the annotation "
        "kueue.x-k8s.io/job-min-parallelism): it would start now.",
        "*What only an admin can change (ask one)*",
        "• Ask an admin to raise the nominal quota of `cpu` in flavor `default-flavor` of ClusterQueue "
        "`cq-equipe-data` by 1, to 3: it would be admitted now.",
        "• Ask an admin to raise the nominal quota of `pods` in flavor `default-flavor` of ClusterQueue "
        "`cq-equipe-data` by 1, to 3: it would be admitted now.",
    ]


def test_hidden_names_never_show_another_teams_workloads() -> None:
    explanation, outlook, snapshot = scenario("waiting-for-quota-computed-position")
    secret = ("llm-eval-suite-xl", "t5-pretrain-shard3", "ml-nlp", "nlp-queue")
    hidden = _everything(render.answer_details(explanation, outlook=outlook, language="en", show_names=False))
    assert not any(word in hidden for word in secret)
    assert "1 workload of other namespaces" in hidden
    assert "`ml-vision/detr-prod-hotfix`" in hidden  # the asker's own namespace stays named (by the job's name)
    shown = _everything(render.answer_details(explanation, outlook=outlook, language="en", show_names=True))
    assert "`ml-nlp/llm-eval-suite-xl`" in shown

    view = describe_queue(snapshot, "ml-vision", "vision-queue")
    queue_hidden = render.queue_view(view, language="en", show_names=False)
    assert message_errors(queue_hidden) == []
    assert not any(word in _everything(queue_hidden) for word in secret)
    assert "2 workloads of other namespaces" in _everything(queue_hidden)
    assert "llm-eval-suite-xl" in _everything(render.queue_view(view, language="en", show_names=True))


def test_the_other_namespace_hint_is_only_for_readers_who_may_see() -> None:
    action = Action("other-namespace", Text("action.other-namespace", {"namespaces": "secret-team", "name": "x"}))
    explanation = _explanation(verdict=Verdict.JOB_NOT_FOUND, actions=(action,))
    assert "secret-team" not in _everything(render.answer_details(explanation, language="en", show_names=False))
    assert "secret-team" in _everything(render.answer_details(explanation, language="en", show_names=True))


def test_queue_view_lists_quota_and_who_waits() -> None:
    _, _, snapshot = scenario("waiting-for-quota-computed-position")
    view = describe_queue(snapshot, "ml-vision", "vision-queue")
    text = _everything(render.queue_view(view, language="en", show_names=False))
    assert "`a100-40gb` · `nvidia.com/gpu`: nominal 16, in use 14, free 2 (no cohort to borrow from)" in text
    assert "`a100-40gb` · `memory`: nominal 768Gi, in use 336Gi, free 432Gi (no cohort to borrow from)" in text
    assert "1. another namespace · priority 1000 · cpu 36, memory 288Gi, nvidia.com/gpu 24, pods 3" in text
    assert "3. `ml-vision/segformer-finetune` · priority 100" in text  # by the job's name
    assert "5 waiting in ClusterQueue `gpu-a100-shared`, 3 of them from this LocalQueue; 1 admitted from it." in text
    missing = describe_queue(snapshot, "ml-vision", "no-such-queue")
    message = render.queue_view(missing, language="fr", show_names=False)
    assert message_errors(message) == []
    assert "La LocalQueue `no-such-queue` n'existe pas dans le namespace `ml-vision`." in _everything(message)


def test_queue_view_says_what_blocks_the_queue() -> None:
    _, _, snapshot = scenario("queue-stopped")
    view = describe_queue(snapshot, "speech", "asr-queue")
    text = _everything(render.queue_view(view, language="en", show_names=True))
    assert "ClusterQueue `ml-training` is stopped (stopPolicy Hold)" in text


def test_help_lists_every_command_with_examples() -> None:
    for language in ("en", "fr"):
        message = render.help_message(language=language, command="/kueue")
        assert message_errors(message) == []
        text = _everything(message)
        for sub in ("why", "queue", "watch", "unwatch", "help"):
            assert f"`/kueue {sub}" in text
        assert "&lt;namespace&gt;/&lt;job&gt;" in text


def test_choose_job_offers_ten_buttons_then_counts_the_rest() -> None:
    candidates = [(f"team-{i}", "train", "Job") for i in range(12)]
    message = render.choose_job(candidates, language="en")
    assert message_errors(message) == []
    buttons = [b["accessory"] for b in message.blocks if "accessory" in b]
    assert len(buttons) == 10
    assert {b["action_id"] for b in buttons} == {"kueue_pick"}
    assert json.loads(buttons[3]["value"]) == {"ns": "team-3", "name": "train", "kind": "Job"}
    assert buttons[3]["text"]["text"] == "team-3/train"  # the job's name, not "This one"
    assert "and 2 more" in _everything(message)


def test_did_you_mean_and_not_found() -> None:
    message = render.did_you_mean("train-octobr", ["train-octobre", "ns/train-octo"], language="en", namespace="d")
    assert message_errors(message) == []
    values = [json.loads(b["accessory"]["value"]) for b in message.blocks if "accessory" in b]
    assert values == [
        {"ns": "d", "name": "train-octobre", "kind": None},
        {"ns": "ns", "name": "train-octo", "kind": None},
    ]
    found = render.not_found("equipe-data", "train-octobr", "Job", ["train-octobre"], language="fr")
    assert message_errors(found) == []
    assert "Je n'ai trouvé aucun Job `equipe-data/train-octobr`." in found.text
    queues = render.not_found(None, "gpu", "LocalQueue", ["a/gpu", "b/gpu"], language="en")
    # Queues: a "Show the queue" button each (issue 15, item 6), not a pick.
    buttons = [b["accessory"] for b in queues.blocks if "accessory" in b]
    assert [(b["action_id"], json.loads(b["value"])) for b in buttons] == [
        ("kueue_show_queue", {"ns": "a", "lq": "gpu"}),
        ("kueue_show_queue", {"ns": "b", "lq": "gpu"}),
    ]
    chosen = render.choose_queue("default", ["a", "b"], language="fr")
    assert message_errors(chosen) == [] and "LocalQueue" in chosen.text
    assert [json.loads(b["accessory"]["value"]) for b in chosen.blocks if "accessory" in b] == [
        {"ns": "a", "lq": "default"},
        {"ns": "b", "lq": "default"},
    ]


def test_short_replies() -> None:
    assert "`/kueue help`" in render.unknown_command("frobnicate <!channel>", language="en").text
    assert "&lt;!channel&gt;" in render.unknown_command("frobnicate <!channel>", language="en").text
    assert "`c0ffee42`" in render.apology("c0ffee42", language="fr").text
    refusal = render.refused("finance", language="en")
    assert "`finance`" in refusal.text and "exist" not in refusal.text
    assert "5 min old" in render.cluster_unavailable(300, language="en").text
    assert "old" not in render.cluster_unavailable(None, language="en").text
    assert "`a/b`" in render.watch_confirmed("a", "b", language="en").text
    assert "`a/b`" in render.unwatch_confirmed("a", "b", language="fr").text
    closed = render.notification_closed("a", "b", "admitted", 2520, language="en")
    assert "`a/b` was admitted after 42 min." in closed.text
    assert "a été admis après 42 min" in render.notification_closed("a", "b", "admitted", 2520, language="fr").text
    assert "`a/b` was deleted." in render.notification_closed("a", "b", "deleted", None, language="en").text


@pytest.mark.parametrize("language", ["en", "fr"])
def test_notification_has_why_snooze_and_stop_these_dms(language: str) -> None:
    explanation, outlook, _ = scenario("article-three-cpus")
    message = render.notification(explanation, language=language, reason="never-fits", eta=outlook.eta)
    assert message_errors(message) == []
    if language == "en":
        assert message.text.startswith("`equipe-data/train-octobre` will never start as it is configured.")
        assert "*What to do:*" in message.blocks[0]["text"]["text"]  # the fix of a job that will never fit
    else:
        assert "*Que faire :*" in message.blocks[0]["text"]["text"]
    actions = next(b for b in message.blocks if b["type"] == "actions")["elements"]
    assert [a["action_id"] for a in actions] == ["kueue_why", "kueue_snooze_2h", "kueue_snooze_1d", "kueue_stop"]
    stop = actions[-1]
    assert "style" not in stop  # not a danger: it stops DMs, nothing else
    assert stop["text"]["text"] == {"en": "Stop these DMs", "fr": "Ne plus m'écrire"}[language]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_never_fits_news_says_why_and_what_to_do(language: str) -> None:
    explanation, _, _ = scenario("article-three-cpus")
    message = render.never_fits_news(explanation, language=language)
    assert message_errors(message) == []
    text = message.blocks[0]["text"]["text"]
    if language == "en":
        assert "will now never start" in text and "*Why:*" in text and "*What to do:*" in text
    else:
        assert "ne démarrera désormais jamais" in text and "*Pourquoi :*" in text and "*Que faire :*" in text
    assert "`equipe-data/train-octobre`" in text


def test_digest_counts_by_verdict_and_lists_twenty() -> None:
    explanations = [scenario(name)[0] for name in SCENARIO_NAMES] * 2  # 26 jobs
    message = render.digest(explanations, language="en")
    assert message_errors(message) == []
    text = _everything(message)
    assert "News about 26 of your jobs" in text
    waiting = sum(1 for e in explanations if e.verdict == Verdict.WAITING_FOR_QUOTA)
    assert f"`waiting-for-quota` × {waiting}" in text
    assert "and 6 more" in text
    listed = sum(block["text"]["text"].count("\n") + 1 for block in message.blocks[2:] if block["type"] == "section")
    assert listed == 20
    whys = [b["accessory"] for b in message.blocks if b.get("accessory", {}).get("action_id") == "kueue_why"]
    assert len(whys) == 20  # each line with its Why?


def test_home_view_lists_watched_jobs_or_explains_how_to_watch() -> None:
    explanation, _, _ = scenario("cohort-borrowing-waits")
    view = render.home_view([("alpha-llm", "llama-sft-run7", explanation), ("x", "gone", None)], language="en")
    assert view["type"] == "home"
    assert limit_errors(view["blocks"], max_blocks=100) == []
    assert block_errors(view["blocks"], max_blocks=100) == []
    text = "\n".join(_strings(view["blocks"]))
    assert "`alpha-llm/llama-sft-run7` · `waiting-for-quota`" in text and "`x/gone`" in text
    empty = render.home_view([], language="fr")
    assert "Vous ne suivez encore aucun job" in "\n".join(_strings(empty["blocks"]))
    many = render.home_view([("ns", f"job-{i}", explanation) for i in range(150)], language="en")
    assert limit_errors(many["blocks"], max_blocks=100, max_total=40_000) == []
    assert "and " in many["blocks"][-1]["elements"][0]["text"]
    actions = [e["action_id"] for b in view["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert actions[:2] == ["kueue_why", "kueue_stop"]  # each watched job: Why? and Stop watching
    assert "/kueue why" in text  # how to ask


@pytest.mark.parametrize("language", ["en", "fr"])
def test_home_view_lists_the_jobs_told_with_a_why_each(language: str) -> None:
    explanation, _, _ = scenario("cohort-borrowing-waits")
    view = render.home_view([], language=language, told=[("alpha-llm", "llama-sft-run7", explanation)])
    assert block_errors(view["blocks"], max_blocks=100) == []
    told = next(b for b in view["blocks"] if b.get("accessory", {}).get("action_id") == "kueue_why")
    assert "`alpha-llm/llama-sft-run7`" in told["text"]["text"]
    title = {"en": "Jobs I tell you or your namespaces' channels about", "fr": "Les jobs dont je vous parle"}
    assert title[language] in "\n".join(_strings(view["blocks"]))


# --- the catalogue ------------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def _placeholders(entry: str | tuple[str, ...]) -> list[set[str]]:
    return [set(_PLACEHOLDER.findall(t)) for t in ((entry,) if isinstance(entry, str) else entry)]


def test_slack_words_exist_in_both_languages_with_the_same_placeholders() -> None:
    english = {k: v for k, v in en.CATALOGUE.items() if k.startswith("slack.")}
    french = {k: v for k, v in fr.CATALOGUE.items() if k.startswith("slack.")}
    assert english.keys() == french.keys()
    for key, entry in english.items():
        assert _placeholders(entry) == _placeholders(french[key]), key


def test_every_slack_key_the_renderer_names_exists() -> None:
    source = "".join(p.read_text(encoding="utf-8") for p in Path(render.__file__).parent.glob("*.py"))
    named = set(re.findall(r'"(slack\.[a-z0-9.-]+)"', source))
    dynamic = {f"slack.family.{f}" for f in ("never", "waits", "ok")}
    dynamic |= {f"slack.details.step.{s}" for s in (*render.STEP_ORDER, "other")}
    dynamic |= {f"slack.ordinal.{c}" for c in ("first", "one", "two", "few", "other")}
    dynamic |= {f"slack.notify.{r}" for r in ("inadmissible", "never-fits", "updated")}
    dynamic |= {f"slack.closed.{o}" for o in ("admitted", "finished", "deleted")}
    for key in named | dynamic:
        assert key in en.CATALOGUE and key in fr.CATALOGUE, key


@pytest.mark.parametrize(
    ("number", "english", "french"),
    [(1, "1st", "1er"), (2, "2nd", "2e"), (3, "3rd", "3e"), (4, "4th", "4e"), (11, "11th", "11e"), (21, "21st", "21e")],
)
def test_ordinals(number: int, english: str, french: str) -> None:
    position = Position(number, None, "computed", "cq", "lq")
    assert render.position_text(position, "en", named=False) == f"{english} in its ClusterQueue"
    assert render.position_text(position, "fr", named=False) == f"{french} dans sa ClusterQueue"


# --- mrkdwn -------------------------------------------------------------------------------------------


@given(st.text())
def test_escape_leaves_no_angle_brackets_and_unescapes_back(text: str) -> None:
    escaped = mrkdwn.escape(text)
    assert "<" not in escaped and ">" not in escaped
    assert mrkdwn.unescape(escaped) == text


@given(st.text())
def test_literal_and_code_defuse_everything(text: str) -> None:
    literal = mrkdwn.literal(text)
    assert not set("<>*`~\n") & set(literal)
    assert not re.search(r"&(?!(?:amp|lt|gt);)", literal)
    assert "://" not in literal and not re.search(r"@(here|channel|everyone)", literal, re.IGNORECASE)
    code = mrkdwn.code(text)
    assert code.startswith("`") and code.endswith("`") and code.count("`") == 2
    assert not set("<>\n") & set(code)


def test_mentions_and_links_cannot_be_formed() -> None:
    assert mrkdwn.literal("<!channel> <@U1> <https://x|y>") == "&lt;!channel&gt; &lt;@U1&gt; &lt;https:\u200b//x|y&gt;"
    assert mrkdwn.literal("*bold* _it_ ~s~ `c` node_pool") == "∗bold∗ ˍitˍ ∼s∼ ˋcˋ node_pool"
    assert mrkdwn.literal("> quote") == "› quote"
    assert mrkdwn.code("a`b") == "`aˋb`"
    assert mrkdwn.plain("<!here>\nx") == "‹!here› x"


@given(
    st.lists(
        st.one_of(
            st.text(max_size=20).map(mrkdwn.literal),
            st.text(max_size=20).map(mrkdwn.code),
            st.text(min_size=1, max_size=20).map(mrkdwn.bold),
            st.sampled_from(["🙂", "👨‍👩‍👧", "&amp;", " "]),
        ),
        max_size=20,
    ),
    st.integers(min_value=1, max_value=120),
)
def test_truncate_never_breaks_an_entity_a_code_span_or_a_bold_run(parts: list[str], limit: int) -> None:
    text = "".join(parts)
    cut = mrkdwn.truncate(text, limit)
    assert mrkdwn.slack_len(cut) <= max(limit, 1)
    if cut != text:
        assert cut.endswith("…")
        assert _mrkdwn_errors(cut, "cut") == [] or _mrkdwn_errors(text, "text") != []
        assert text.startswith(cut[:-1].rstrip()) or cut == "…"


# --- hostile input: every renderer stays inside the limits ---------------------------------------------

_HOSTILE = [
    "<!channel>",
    "<!here|here>",
    "<@U0123>",
    "<#C1|general>",
    "<https://evil.example|click me>",
    "http://evil.example/x",
    "@here",
    "*bold*",
    "_it_",
    "~s~",
    "`",
    "```code```",
    "> quote",
    "&",
    "&amp;",
    "&lt;",
    "🙂",
    "👨‍👩‍👧",
    "\n",
    "\u200b",
    "é",
]
hostile = st.one_of(
    st.sampled_from(_HOSTILE),
    st.text(max_size=40),
    st.builds(lambda piece, times: piece * times, st.sampled_from(_HOSTILE), st.integers(1, 3000)),
    st.just("x" * 10_000),
)
param_names = st.sampled_from(
    ["job", "name", "namespace", "queue", "cluster_queue", "message", "text", "detail", "reason", "age_seconds", "n"]
)
params = st.dictionaries(param_names, st.one_of(hostile, st.integers(-10, 10**12)), max_size=6)
keys = st.sampled_from(
    [
        "headline.waiting-for-quota",
        "headline.exceeds-max-quota",
        "conditions.condition",
        "workload.found",
        "action.check-name",
        "slack.unknown",
        "no.such.key",
    ]
)
texts = st.builds(Text, keys, params)
steps = st.builds(
    Step,
    st.sampled_from([*render.STEP_ORDER, "<!channel>", "x" * 300]),
    st.sampled_from(list(Outcome)),
    st.just("x.y"),
    texts,
)
names_or_hostile = st.one_of(st.sampled_from(["ml-vision", "a"]), hostile)
positions = st.builds(
    Position,
    st.integers(1, 10**6),
    st.one_of(st.none(), st.integers(1, 10**6)),
    st.sampled_from(["computed", "visibility-api"]),
    names_or_hostile,
    names_or_hostile,
    st.one_of(st.none(), st.integers(0, 10**6)),
    st.one_of(
        st.none(),
        st.builds(
            Ahead,
            st.integers(0, 100),
            st.just(((1000, 2),)),
            st.lists(st.tuples(names_or_hostile, names_or_hostile, st.integers()), max_size=12).map(tuple),
        ),
    ),
)
explanations = st.builds(
    Explanation,
    job=st.builds(JobRef, names_or_hostile, names_or_hostile, names_or_hostile),
    workload=st.none(),
    verdict=st.sampled_from(list(Verdict)),
    headline=texts,
    steps=st.lists(steps, max_size=70).map(tuple),
    actions=st.lists(st.builds(Action, st.sampled_from(["wait", "other-namespace"]), texts), max_size=30).map(tuple),
    position=st.one_of(st.none(), positions),
    local_queue=names_or_hostile,
)
HYPOTHESIS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def _assert_safe(message: SlackMessage) -> None:
    errors = message_errors(message)
    assert errors == [], errors[:5]


@HYPOTHESIS
@given(explanations, st.sampled_from(["en", "fr"]), st.booleans(), st.one_of(st.none(), st.integers(-5, 10**9)))
def test_answers_stay_within_limits(explanation: Explanation, language: str, show: bool, age: int | None) -> None:
    _assert_safe(render.answer_summary(explanation, language=language, snapshot_age_seconds=age, show_queue_names=show))
    _assert_safe(render.answer_details(explanation, language=language, show_names=show))
    _assert_safe(render.notification(explanation, language=language, reason="inadmissible"))


@HYPOTHESIS
@given(st.lists(explanations, max_size=25), st.lists(st.tuples(hostile, hostile), max_size=5))
def test_digest_and_home_stay_within_limits(items: list[Explanation], unknown: list[tuple[str, str]]) -> None:
    _assert_safe(render.digest(items, language="en"))
    watched: list[tuple[str, str, Explanation | None]] = [(e.job.namespace, e.job.name, e) for e in items]
    watched += [(ns, name, None) for ns, name in unknown]
    view = render.home_view(watched, language="fr")
    assert limit_errors(view["blocks"], max_blocks=100, max_total=40_000) == []


@HYPOTHESIS
@given(hostile, hostile, hostile, st.lists(hostile, max_size=12), st.one_of(st.none(), st.integers(-5, 10**9)))
def test_short_replies_stay_within_limits(ns: str, name: str, kind: str, others: list[str], number: int | None) -> None:
    candidates = [(ns, other, kind) for other in others]
    for message in (
        render.choose_job(candidates, language="en"),
        render.did_you_mean(name, others, language="fr", namespace=ns, kind=kind),
        render.not_found(ns, name, kind, others, language="en"),
        render.not_found(None, name, None, others, language="fr"),
        render.refused(ns, language="en"),
        render.apology(name, language="fr"),
        render.cluster_unavailable(number, language="en"),
        render.watch_confirmed(ns, name, language="en"),
        render.unwatch_confirmed(ns, name, language="fr"),
        render.unknown_command(name, language="en"),
        render.notification_closed(ns, name, "finished", number, language="fr"),
        render.help_message(language="en", command=kind or "/kueue"),
    ):
        _assert_safe(message)


quota_lines = st.builds(
    QuotaLine,
    names_or_hostile,
    names_or_hostile,
    *[st.decimals(min_value=0, max_value=10**15, places=0) for _ in range(4)],
)
waiting = st.builds(
    Waiting,
    names_or_hostile,
    names_or_hostile,
    names_or_hostile,
    st.integers(),
    st.integers(1, 10**6),
    st.dictionaries(names_or_hostile, st.just(Decimal(3)), max_size=3),
)
queue_views = st.builds(
    QueueView,
    namespace=names_or_hostile,
    name=names_or_hostile,
    exists=st.booleans(),
    blocker=st.sampled_from(
        [
            None,
            Verdict.CLUSTER_QUEUE_MISSING,
            Verdict.QUEUE_STOPPED,
            Verdict.QUEUE_INACTIVE,
            Verdict.LOCAL_QUEUE_MISSING,
        ]
    ),
    cluster_queue=names_or_hostile,
    cohort=names_or_hostile,
    strategy=names_or_hostile,
    quotas=st.lists(quota_lines, max_size=80).map(tuple),
    pending_in_cluster_queue=st.integers(0, 10**6),
    pending_here=st.integers(0, 10**6),
    admitted_here=st.integers(0, 10**6),
    waiting=st.lists(waiting, max_size=12).map(tuple),
    chain=st.builds(
        QueueChain,
        st.none(),
        st.none(),
        names_or_hostile,
        stopped_by=st.sampled_from(["", "LocalQueue", "ClusterQueue"]),
        stop_policy=names_or_hostile,
        inactive_reason=names_or_hostile,
        inactive_message=names_or_hostile,
    ),
)


@HYPOTHESIS
@given(queue_views, st.booleans())
def test_queue_view_stays_within_limits(view: QueueView, show: bool) -> None:
    _assert_safe(render.queue_view(view, language="en", show_names=show))


def test_a_ten_thousand_character_message_from_kueue_is_cut_cleanly() -> None:
    message = "<!channel> " + "*no* `quota` & more " * 600
    condition = {"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": message}
    step = Step("conditions", Outcome.FAIL, "conditions.condition", Text("conditions.condition", condition))
    explanation = _explanation(steps=(step,) * 30, headline=Text("headline.queue-inactive", {"detail": message}))
    for show in (True, False):
        details = render.answer_details(explanation, language="en", show_names=show)
        _assert_safe(details)
        assert "more steps not shown here" in _everything(details)
    _assert_safe(render.answer_summary(explanation, language="en"))


def _explanation(
    *,
    verdict: Verdict = Verdict.WAITING_FOR_QUOTA,
    steps: tuple[Step, ...] = (),
    actions: tuple[Action, ...] = (),
    headline: Text | None = None,
) -> Explanation:
    return Explanation(
        job=JobRef("Job", "team-a", "train"),
        workload=None,
        verdict=verdict,
        headline=headline or Text("headline.job-not-found", {"kind": "Job", "namespace": "team-a", "name": "train"}),
        steps=steps,
        actions=actions,
    )


def test_say_keeps_its_sentences_split_and_says_each_with_its_own_fragments_and_numbers() -> None:
    """blocks.say keeps a sentence split at its fragments' marks, by key, language, fragment names and numbers:
    the same sentence with other fragments or another number is said anew, each as `literal(render(...))` with
    the fragments put back; past blocks._SAID_MAX sentences the kept ones are let go, the answers unchanged."""
    from bot.copy import render as render_copy
    from bot.slack.render import blocks

    def by_hand(key: str, language: str, **fragments: str | int) -> str:
        slots = [v for v in fragments.values() if isinstance(v, str)]
        marks = iter(range(len(slots)))
        params = {k: (f"\ue000{next(marks)}\ue001" if isinstance(v, str) else v) for k, v in fragments.items()}
        sentence = mrkdwn.literal(render_copy(key, params, language))
        return re.sub("\ue000([0-9]+)\ue001", lambda m: slots[int(m.group(1))], sentence)

    blocks._SAID.clear()
    for language in ("en", "fr"):
        for kind, count in (("`Job`", 1), ("`JobSet`", 1), ("`Job`", 12), ("*x* _y_ <@U1>", 3)):
            fragments: dict[str, str | int] = {"kind": kind, "count": count, "admitted": 0, "pending": count}
            said = blocks.say("workload.per-pod", language, **fragments)
            assert said == by_hand("workload.per-pod", language, **fragments)
            assert kind in said and str(count) in said
    assert len(blocks._SAID) == 6  # (language, count) shapes: the fragments are not part of the key
    said = blocks.say("workload.per-pod", "en", kind="`Job`", count=True, admitted=0, pending=1)
    assert said == by_hand("workload.per-pod", "en", kind="`Job`", count=True, admitted=0, pending=1)
    assert said != blocks.say("workload.per-pod", "en", kind="`Job`", count=1, admitted=0, pending=1)
    limit = blocks._SAID_MAX
    for count in range(limit + 10):
        fragments = {"kind": "`Pod`", "count": count, "admitted": 1, "pending": 2}
        assert blocks.say("workload.per-pod", "en", **fragments) == by_hand("workload.per-pod", "en", **fragments)
    assert len(blocks._SAID) <= limit
