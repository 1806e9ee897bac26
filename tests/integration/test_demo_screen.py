"""The demo in a terminal of 80x24 (issue 15 item 5): the first screen shows the intro and "Try:", lines break
between words under their margin, an answer keeps its headline on the screen (`more` shows the rest), the
story's clock stands still while one reads, `click queue` works, the startup DM of a waiting job says it waits,
and no Pod is offered as a job."""

from __future__ import annotations

import asyncio
import io
import re

import pytest
from bot.cli import build_parser
from bot.demo.run import DemoOptions, demo_options, run
from bot.demo.text import Button, matches, strip_ansi, width_of

WIDTH, HEIGHT = 80, 24
ECHO = re.compile(r"^you> ")


async def _screen(*lines: str, colour: bool = False) -> list[str]:
    """The rows the demo prints at 80x24 (a script of `lines`), as the terminal shows them."""
    out = io.StringIO()
    options = DemoOptions(width=WIDTH, height=HEIGHT, colour=colour)
    status = await asyncio.wait_for(run(options, list(lines), out), timeout=300)
    assert status == 0, out.getvalue()
    return [strip_ansi(row) for row in out.getvalue().split("\n")]


def _answer(rows: list[str], line: str) -> list[str]:
    """The rows printed for the script line `line`: from its echo to the next one (or the end)."""
    start = rows.index(f"you> {line}")
    end = next(i for i in range(start + 1, len(rows)) if ECHO.match(rows[i]) or rows[i].startswith("(the script"))
    return rows[start + 1 : end]


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
async def test_the_first_screen_shows_the_intro_and_what_to_try(colour: bool) -> None:
    rows = await _screen(colour=colour)
    first_screen = rows[: HEIGHT - 1]  # the intro comes first, before the DMs it tells of
    assert first_screen[0].startswith("kueue-bot demo:")
    assert "Try:" in first_screen
    for example in ("why is train-octobre pending?", "/kueue queue equipe-data/default", "click watch", "more"):
        assert any(row.strip().startswith(example) for row in first_screen), example
    assert rows.index("Try:") < min(i for i, row in enumerate(rows) if row.startswith("✉  DM from kueue-bot"))
    assert all(width_of(row) <= WIDTH for row in rows), [row for row in rows if width_of(row) > WIDTH]


async def test_more_never_starts_mid_sentence_and_survives_a_click() -> None:
    question = "why is vit-large-finetune pending?"
    rows = await _screen(question, "click steps", "click queue", "more")  # the steps: longer than a screen
    after = _answer(rows, "more")
    shown = [row for row in after if row.startswith("   │")]
    assert shown, "more shows the rest of the answer held before click queue"
    assert not shown[0].startswith("   │   "), "a page starts a sentence, not the rest of a wrapped one"
    assert "(nothing more to show" not in "\n".join(after)


async def test_lines_break_between_words_under_their_margin() -> None:
    rows = await _screen("why is train-octobre pending?")
    answer = _answer(rows, "why is train-octobre pending?")
    body = [row for row in answer if row.strip() and not row.startswith("(")][1:]  # under the title
    assert all(row.startswith("   │ ") for row in body), body
    assert all(width_of(row) <= WIDTH for row in answer)
    headline = (
        "equipe-data/train-octobre will never be admitted as configured: it asks for 3 cpu, but ClusterQueue "
        "cq-equipe-data can never give more than 2 cpu (flavor default-flavor); also over the maximum: pods 3 > 2."
    )
    start = next(i for i, row in enumerate(body) if row.startswith("   │ equipe-data/train-octobre will never"))
    pieces = [body[start].removeprefix("   │ ")]
    for row in body[start + 1 :]:
        if not row.startswith("   │   "):
            break
        pieces.append(row.removeprefix("   │   "))
    assert len(pieces) > 1 and " ".join(pieces) == headline  # whole words on each row, nothing lost


async def test_an_answer_keeps_its_headline_on_the_screen_and_more_shows_the_rest() -> None:
    question = "why is vit-large-finetune pending?"
    rows = await _screen(question, "click steps", "more", "more", "more")
    answer = _answer(rows, question)
    assert len(answer) <= HEIGHT - 2  # the first message: with your line above and the prompt below, one screen
    assert answer[1] == "   │ ⏳ Waiting"
    assert answer[2].startswith("   │ ml-vision/vit-large-finetune waits for capacity")
    steps = _answer(rows, "click steps")  # the admission path: longer than a screen, the rest held for `more`
    assert len(steps) <= HEIGHT - 2
    held = int(re.match(r"\(… (\d+) more line\(s\)", steps[-1]).group(1))  # type: ignore[union-attr]
    rest = rows[rows.index("you> more") + 1 :]
    shown = [row for row in rest if not ECHO.match(row) and not row.startswith("(")]
    assert "   │ What you can do" in shown and held >= 10
    assert "(nothing more to show: the last answer was shown whole)" in rows


async def test_the_clock_stands_still_and_click_queue_shows_the_queue() -> None:
    question = "why is train-octobre pending?"
    rows = await _screen(question, "click queue", question)
    first = _answer(rows, question)
    again = rows[len(rows) - 1 - rows[::-1].index(f"you> {question}") + 1 :]
    assert first and [row for row in again if row.startswith("   │")] == [r for r in first if r.startswith("   │")]
    assert "as of just" in " ".join(first)  # the same answer a while later: the clock stood still
    queue = _answer(rows, "click queue")
    assert "(you click [Show the queue] on kueue-bot's message in #ml-platform)" in queue
    assert any("LocalQueue equipe-data/default" in row for row in queue)
    assert matches(Button("Show the queue", "kueue_show_queue", None), "queue")
    assert matches(Button("Show the queue", "kueue_show_queue", None), "show queue")
    assert not matches(Button("Watch this job", "kueue_watch", None), "queue")


def test_the_story_moves_on_only_when_asked() -> None:
    args = build_parser().parse_args(["demo"])
    assert demo_options(args, stdout_tty=False, no_color=False).advance_every == 0


async def test_the_startup_dm_of_a_waiting_job_says_it_waits() -> None:
    rows = await _screen()
    dms = "\n".join(rows)
    assert "ml-vision/vit-large-finetune is still waiting: Kueue has not admitted it yet." in dms
    assert "cannot admit" not in dms


async def test_suggestions_offer_jobs_not_their_pods() -> None:
    rows = await _screen("why is llm-eval pending?")
    answer = _answer(rows, "why is llm-eval pending?")
    offered = [row for row in answer if "  [" in row and row.rstrip().endswith("]")]
    # issue 17: the demo has two clusters; the button says the job's name
    assert offered == ["   │ job paris/ml-nlp/llm-eval-70b  [paris/ml-nlp/llm-eval-70b]"], answer
