"""`python -m bot demo`: the demo cluster is real Kueue data telling its stories, and the tour plays the real bot
(build_server, Bolt, the engine, the watcher) through the Slack stand-in, from end to end."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.demo.run import DemoOptions, run, tour_lines
from bot.demo.source import MOMENTS, DemoClock, DemoSource, load_moment
from bot.demo.text import Button, Style, buttons, matches, message_lines, mrkdwn
from bot.trace.codes import Verdict
from bot.trace.explain import Query, explain
from bot.trace.resolve import workload_name
from tools import build_cluster

from tests.fakes.kube_schema import dump_problems
from tests.paths import SHARED_TOOLS

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "bot" / "demo" / "cluster"
VALIDATE = SHARED_TOOLS / "validate-dump"
START, GPU_FREES, ADMITTED = range(3)


def _objects(moment: int) -> list[dict[str, Any]]:
    text = (CLUSTER / MOMENTS[moment].file).read_text(encoding="utf-8")
    return [doc for doc in yaml.safe_load_all(text) if isinstance(doc, dict)]


def _demo(*args: str, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    env.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "bot", "demo", *args],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=env,
        check=False,
    )


# --- the demo cluster ---------------------------------------------------------------------------------


def test_the_demo_dumps_validate_against_the_vendored_kueue_crds() -> None:
    for moment in MOMENTS:
        assert dump_problems((CLUSTER / moment.file).read_text(encoding="utf-8")) == [], moment.file


@pytest.mark.skipif(not VALIDATE.is_file(), reason="the shared validate-dump tool is not here")
def test_the_demo_dumps_validate_with_the_shared_tool() -> None:
    files = [str(CLUSTER / moment.file) for moment in MOMENTS]
    result = subprocess.run(
        [sys.executable, str(VALIDATE), *files], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(files)} valid, 0 invalid" in result.stdout


def test_the_dumps_are_what_build_cluster_writes() -> None:
    for index, moment in enumerate(MOMENTS):
        assert (CLUSTER / moment.file).read_text(encoding="utf-8") == build_cluster.render(index), (
            f"{moment.file} is stale: run tools/build_cluster.py"
        )


@pytest.mark.parametrize("moment", range(len(MOMENTS)), ids=[m.file for m in MOMENTS])
def test_workloads_carry_kueues_names_and_jobs_their_owner_annotation(moment: int) -> None:
    objects = _objects(moment)
    jobs = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in objects if o["kind"] == "Job"}
    workloads = [o for o in objects if o["kind"] == "Workload"]
    assert len(workloads) == len(jobs) >= 8
    for workload in workloads:
        owner = workload["metadata"]["ownerReferences"][0]
        job = jobs[(workload["metadata"]["namespace"], owner["name"])]
        assert workload["metadata"]["name"] == workload_name("Job", "batch", owner["name"], job["metadata"]["uid"])
    watched = sorted(
        name for (_, name), job in jobs.items() if "kueue-bot.io/notify" in job["metadata"].get("annotations", {})
    )
    assert watched == ["train-octobre", "vit-large-finetune"]
    kinds = {o["kind"] for o in objects}
    assert {
        "Namespace",
        "Node",
        "ResourceFlavor",
        "Cohort",
        "AdmissionCheck",
        "ClusterQueue",
        "LocalQueue",
        "Pod",
        "Event",
    } <= kinds
    assert sum(1 for o in objects if o["kind"] == "Node") == 4


STORIES = [
    # moment, job, verdict, position in its ClusterQueue (None: not waiting in a queue), words of the headline
    (START, "equipe-data/train-octobre", Verdict.EXCEEDS_MAX_QUOTA, 1, "can never give more than 2 cpu"),
    (START, "ml-vision/vit-large-finetune", Verdict.WAITING_FOR_QUOTA, 3, "4 more nvidia.com/gpu"),
    (START, "ml-vision/detr-hotfix", Verdict.WAITING_FOR_QUOTA, 1, "2 more nvidia.com/gpu"),
    (START, "robotics/isaac-policy-sweep", Verdict.ADMISSION_CHECKS_PENDING, None, "dws-prov"),
    (
        START,
        "ml-nlp/llm-eval-70b",
        Verdict.PODS_PENDING,
        None,
        "0/4 nodes are available: 2 Insufficient nvidia.com/gpu",
    ),
    (START, "equipe-data/nettoyage-donnees", Verdict.RUNNING, None, "running"),
    (GPU_FREES, "ml-vision/vit-large-finetune", Verdict.WAITING_FOR_QUOTA, 2, "2 more nvidia.com/gpu"),
    (GPU_FREES, "ml-vision/detr-hotfix", Verdict.RUNNING, None, "running"),
    (GPU_FREES, "ml-vision/yolo-nightly", Verdict.FINISHED, None, "finished"),
    (GPU_FREES, "ml-nlp/llm-eval-70b", Verdict.RUNNING, None, "running"),
    (GPU_FREES, "equipe-data/train-octobre", Verdict.EXCEEDS_MAX_QUOTA, 1, "2 cpu"),
    (ADMITTED, "ml-vision/vit-large-finetune", Verdict.RUNNING, None, "running"),
    (ADMITTED, "ml-vision/sam-distill", Verdict.RUNNING, None, "running"),
    (ADMITTED, "ml-nlp/llm-eval-70b", Verdict.FINISHED, None, "finished"),
    (ADMITTED, "robotics/isaac-policy-sweep", Verdict.ADMISSION_CHECKS_PENDING, None, "dws-prov"),
]


@pytest.mark.parametrize(
    ("moment", "job", "verdict", "position", "words"),
    STORIES,
    ids=[f"{MOMENTS[m].file[:2]}-{job.split('/')[1]}-{verdict.value}" for m, job, verdict, _, _ in STORIES],
)
def test_each_story_gives_its_verdict_through_the_engine(
    moment: int, job: str, verdict: Verdict, position: int | None, words: str
) -> None:
    from bot.trace.serialize import text

    namespace, name = job.split("/")
    explanation = explain(load_moment(MOMENTS[moment]), Query(namespace, name, "Job"), now=MOMENTS[moment].at)
    assert explanation.verdict == verdict
    assert (explanation.position.cluster_queue if explanation.position else None) == position
    assert words in text(explanation.headline, "en")


async def test_the_source_moves_on_tells_its_watchers_and_its_clock_follows() -> None:
    source = DemoSource.load(real_time=False)
    heard: list[int] = []
    source.add_listener(lambda: heard.append(source.version))
    first = await source.snapshot()
    assert source.ready and source.clock() == MOMENTS[0].at == source.taken_at()
    assert not source.changed.is_set()
    assert source.advance() == MOMENTS[1]
    assert source.changed.is_set() and heard == [1]
    assert source.clock() == MOMENTS[1].at and await source.snapshot() is not first
    assert source.advance() == MOMENTS[2] and heard == [1, 2]
    assert source.advance() is None and not source.has_next and heard == [1, 2]


def test_the_demo_clock_runs_in_real_time_and_never_goes_back() -> None:
    elapsed = [0.0]
    start = MOMENTS[0].at
    clock = DemoClock(start, real_time=True, monotonic=lambda: elapsed[0])
    assert clock() == start
    elapsed[0] = 12.5
    assert (clock() - start).total_seconds() == 12.5
    elapsed[0] = 20.0
    clock.jump(datetime.fromisoformat("2026-10-14T10:00:00+00:00"))  # earlier than now: it stays now
    assert (clock() - start).total_seconds() == 20.0
    clock.jump(MOMENTS[1].at)
    elapsed[0] = 23.0
    assert (clock() - MOMENTS[1].at).total_seconds() == 3.0
    assert DemoClock(start, real_time=False, monotonic=lambda: elapsed[0])() == start


# --- reading Slack in a terminal ----------------------------------------------------------------------

PLAIN = Style(colour=False)


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("*The admission path of `ml-vision/vit`*", "The admission path of ml-vision/vit"),
        (":no_entry: *Will not start* · `exceeds-max-quota`", "⛔ Will not start · exceeds-max-quota"),
        ("a &lt;b&gt; &amp; `x&lt;y`", "a <b> & x<y"),
        ("<@U0DEMOUSER> see <https://kueue.sigs.k8s.io|the docs>", "@you see the docs (https://kueue.sigs.k8s.io)"),
        ("`*not bold*` and node_pool_a", "*not bold* and node_pool_a"),
        ("at 10:30:00 :unknown_emoji:", "at 10:30:00 :unknown_emoji:"),
    ],
    ids=["bold-around-code", "emoji-and-code", "entities", "mention-and-link", "code-is-literal", "not-emoji"],
)
def test_mrkdwn_reads_as_a_person_sees_it(source: str, shown: str) -> None:
    assert mrkdwn(source, PLAIN, {"U0DEMOUSER": "you"}) == shown


def test_blocks_read_as_lines_with_buttons_and_only_colour_on_demand() -> None:
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": "LocalQueue equipe-data/default"}},
        {"type": "section", "text": {"type": "mrkdwn", "text": "line one\n*two*"}},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": "a"}, {"type": "mrkdwn", "text": "b"}]},
        {"type": "divider"},
        {
            "type": "actions",
            "elements": [
                {"type": "button", "text": {"type": "plain_text", "text": "Re-check"}, "action_id": "kueue_recheck"},
                {
                    "type": "button",
                    "text": {"type": "plain_text", "text": "Watch this job"},
                    "action_id": "kueue_watch",
                },
            ],
        },
    ]
    lines = message_lines("fallback", blocks, PLAIN)
    assert lines == [
        "LocalQueue equipe-data/default",
        "line one",
        "two",
        "a  ·  b",
        "─" * 40,
        "[Re-check] [Watch this job]",
    ]
    assert not any("\x1b[" in line for line in lines)
    assert any("\x1b[1m" in line for line in message_lines("fallback", blocks, Style(colour=True)))
    assert message_lines("*just* text", None, PLAIN) == ["just text"]
    found = buttons(blocks)
    assert [b.action_id for b in found] == ["kueue_recheck", "kueue_watch"]
    assert matches(found[0], "recheck") and matches(found[0], "Re-check") and matches(found[1], "watch")
    assert not matches(found[1], "recheck") and not matches(Button("Stop", "kueue_stop", None), "")


def test_a_choices_alike_buttons_are_numbered_so_each_can_be_told_and_clicked() -> None:
    # Slack labels every choice "This one" beside its job; the terminal numbers them (they read alike before).
    def choice(namespace: str) -> dict[str, Any]:
        return {
            "type": "section",
            "text": {"type": "mrkdwn", "text": f"Job `{namespace}/train`"},
            "accessory": {
                "type": "button",
                "text": {"type": "plain_text", "text": "This one"},
                "action_id": "kueue_pick",
                "value": f'{{"ns":"{namespace}","name":"train"}}',
            },
        }

    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "Which one?"}}, choice("team-a"), choice("team-b")]
    assert message_lines("fallback", blocks, PLAIN) == [
        "Which one?",
        "Job team-a/train  [This one 1]",
        "Job team-b/train  [This one 2]",
    ]
    first, second = buttons(blocks)
    assert (first.label, second.label) == ("This one 1", "This one 2")
    assert matches(second, "this one 2") and matches(second, "2") and not matches(first, "this one 2")
    assert second.value is not None and "team-b" in second.value


# --- the demo, end to end -----------------------------------------------------------------------------


async def test_the_tour_plays_in_process_and_every_line_is_answered() -> None:
    out = io.StringIO()
    status = await asyncio.wait_for(run(DemoOptions(), tour_lines(), out), timeout=300)
    text = out.getvalue()
    assert status == 0, text
    assert "every one answered" in text
    assert "you> why is train-octobre pending?" in text


async def test_the_french_tour_is_told_and_answered_in_french() -> None:
    """`demo --lang fr` without a terminal: the intro, the story's narration and the answers in French (its
    questions are asked in French), and `/wait-dm admitted` finds the French DM ("admis")."""
    out = io.StringIO()
    status = await asyncio.wait_for(run(DemoOptions(language="fr"), tour_lines("fr"), out), timeout=60)
    text = out.getvalue()
    assert status == 0, text
    assert "you> pourquoi train-octobre est en attente ?" in text
    assert "Ne démarrera pas en l'état · exceeds-max-quota" in text
    assert "── 10:45 : yolo-nightly a fini" in text and "── 11:00 : llm-eval-70b a fini" in text
    assert "Le cluster : le 14/10/2026 à 10:30 : le début" in text
    assert "the start, four stories" not in text


async def test_a_question_asked_in_french_is_answered_in_french() -> None:
    out = io.StringIO()
    status = await asyncio.wait_for(run(DemoOptions(), ["pourquoi train-octobre est en attente ?"], out), timeout=60)
    assert status == 0
    assert "│ ⛔ Ne démarrera pas en l'état\n" in out.getvalue() and "│ exceeds-max-quota  ·" in out.getvalue()
    assert "Que faire :" in out.getvalue()


def test_the_tour_as_a_command_answers_every_line_with_verdicts_positions_threads_and_dms() -> None:
    result = _demo("--script", "bot/demo/script.txt")
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "\x1b[" not in out  # not a terminal: no colours
    for verdict in ("exceeds-max-quota", "waiting-for-quota", "admission-checks-pending", "pods-pending", "running"):
        assert f"· {verdict}" in out or f"│ {verdict}  ·" in out, verdict  # a DM's verdict line, an answer's footer
    assert "can never give more than 2 cpu" in out  # the headlines
    assert "3rd of 3 in ClusterQueue vision-gpu" in out and "2nd of 2 in ClusterQueue vision-gpu" in out
    assert "0/4 nodes are available: 2 Insufficient nvidia.com/gpu" in out
    assert "   ↳ kueue-bot, in the thread\n   │ ⛔ Will not start as it is\n" in out  # threaded
    assert "   ↳ kueue-bot, in the thread of your DM" in out
    assert "only visible to you" in out and "[Re-check] [Watch this job] [Show the queue]" in out
    assert "(edited)" in out  # the Re-check button updates the answer in place
    assert "── 10:45" in out and "── 11:00" in out
    assert "✉  DM from kueue-bot\n│ equipe-data/train-octobre will never start" in out  # the watcher's DMs
    assert "✉  DM from kueue-bot (updated)\n│ ✅ ml-vision/vit-large-finetune was admitted" in out
    # Issue 17: two clusters (a lab, "lyon", beside the story's "paris") and the admins' view and digest.
    assert "Cluster lyon" in out and "ctr-model-refresh" in out
    assert "What only an admin can fix" in out and "ClusterQueue lyon/ranking-spot" in out
    assert "✉  DM from kueue-bot\n│ What only an admin can fix" in out
    assert "(the script is over: 18 line(s), every one answered)" in out


def test_without_a_terminal_the_demo_plays_its_tour_and_exits() -> None:
    result = _demo(stdin="why is train-octobre pending?\n", timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "stdin is not a terminal: playing the tour" in result.stdout
    assert "every one answered" in result.stdout


def test_a_line_without_an_answer_fails_the_script(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text("# a comment\n\n/kueue help\nclick frobnicate\n/advance\n/advance\n/advance\n", encoding="utf-8")
    result = _demo("--script", str(script))
    assert result.returncode == 1
    assert "2 of 5 line(s) got no answer:" in result.stdout
    assert "line 4: click frobnicate" in result.stdout and "line 7: /advance" in result.stdout
    assert "What I can do" in result.stdout  # /kueue help was answered, ephemerally
    missing = _demo("--script", str(tmp_path / "no-such-script.txt"))
    assert missing.returncode == 2 and "cannot read the script" in missing.stderr


def test_the_stand_in_and_the_demo_reader_import_no_slack_library() -> None:
    code = (
        "import sys, bot.standin, bot.demo.text, bot.demo.source; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'slack_sdk', 'slack_bolt'}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_on_a_terminal_you_chat_click_and_quit() -> None:
    import pty
    import select

    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "demo", "--advance-every", "0"],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"},
    )
    os.close(terminal)
    seen = b""

    def read_until(marker: bytes, after: int) -> int:
        """Read the terminal until `marker` shows up after offset `after`; its offset (the test's timeout
        bounds the wait)."""
        nonlocal seen
        while seen.find(marker, after) < 0:
            ready, _, _ = select.select([controller], [], [], 30)
            assert ready, seen.decode(errors="replace")
            seen += os.read(controller, 65536)
        return seen.find(marker, after)

    try:
        at = read_until(b"you> ", 0)
        os.write(controller, b"why is vit-large-finetune pending?\n")
        at = read_until(b"you> ", read_until(b"waiting-for-quota", at))
        os.write(controller, b"click watch\n")
        at = read_until(b"you> ", read_until(b"Watching ml-vision/vit-large-finetune", at))
        os.write(controller, b"quit\n")
        assert process.wait(timeout=300) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)
    assert "3rd of 3 in ClusterQueue vision-gpu" in seen.decode(errors="replace")


@pytest.mark.parametrize(
    ("language", "intro", "help_line"),
    [
        pytest.param("en", "Try:", "a direct message to kueue-bot", id="en"),
        pytest.param("fr", "Essayez :", "un message direct à kueue-bot", id="fr"),
    ],
)
async def test_the_intro_and_the_help_speak_the_demo_users_language(language: str, intro: str, help_line: str) -> None:
    # Issue 15: `python -m bot demo --lang fr` was French in the bot's answers only, its intro and help English.
    out = io.StringIO()
    status = await asyncio.wait_for(run(DemoOptions(language=language), ["help", "quit"], out), timeout=300)
    shown = out.getvalue()
    assert status == 0
    assert intro in shown and help_line in shown
    other = "Essayez :" if language == "en" else "Try:"
    assert other not in shown
