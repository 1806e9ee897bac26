"""bot.service.explaining: one way to explain a job. Its two entries give one answer, and no reader of an answer
explains a job another way: the trace and its outlook (`explain_with_outlook`, `slices.explained`,
`bot.trace.explain.explain`) are called only behind the use case, and by the dry run (bot.fit: under the
service, it explains its overlay of a job not yet created itself)."""

from __future__ import annotations

import ast
from dataclasses import replace

from bot.service.explaining import explain_job, explain_job_in_slices
from bot.trace.explain import Query

from tests.builders import NOW
from tests.contention import dense_admissions, gpu_waiters
from tests.paths import ROOT

BOT = ROOT / "bot"


def _uses(source: str, name: str, module: str) -> bool:
    """Whether `source` imports `name` from `module`, or names it through the module (`outlook.explain_with_outlook`
    after `from bot.forecast import outlook`, or the full path after `import bot.forecast.outlook`)."""
    leaf = module.rpartition(".")[2]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == module:
            if any(alias.name == name for alias in node.names):
                return True
        elif isinstance(node, ast.Attribute) and node.attr == name and ast.unparse(node.value) in (leaf, module):
            return True
    return False


def _users(name: str, module: str) -> set[str]:
    return {
        str(path.relative_to(ROOT))
        for path in sorted(BOT.rglob("*.py"))
        if str(path.relative_to(BOT)).replace("/", ".").removesuffix(".py") != module.removeprefix("bot.")
        and _uses(path.read_text(encoding="utf-8"), name, module)
    }


def test_the_finder_sees_each_way_of_reaching_a_function() -> None:
    module = "bot.forecast.outlook"
    assert _uses("from bot.forecast.outlook import Outlook, explain_with_outlook\n", "explain_with_outlook", module)
    assert _uses(
        "from bot.forecast import outlook\noutlook.explain_with_outlook(s, q)\n", "explain_with_outlook", module
    )
    assert _uses(
        "import bot.forecast.outlook\nbot.forecast.outlook.explain_with_outlook(s)\n", "explain_with_outlook", module
    )
    assert not _uses("from bot.forecast.outlook import Outlook\n", "explain_with_outlook", module)
    assert not _uses("from bot.forecast import outlook\noutlook.outlook_of(s)\n", "explain_with_outlook", module)
    assert not _uses("self.explain_with_outlook(s)\n", "explain_with_outlook", module)


def test_only_the_use_case_and_the_dry_run_explain_with_the_outlook() -> None:
    assert _users("explain_with_outlook", "bot.forecast.outlook") == {
        "bot/service/explaining.py",
        "bot/fit/decide.py",
    }


def test_the_bare_trace_is_read_only_under_the_use_case() -> None:
    users = {path for path in _users("explain", "bot.trace.explain") if not path.startswith("bot/trace/")}
    assert users == {"bot/forecast/outlook.py", "bot/service/explaining.py"}


async def test_in_one_go_or_in_slices_a_job_gets_one_answer() -> None:
    history, query = dense_admissions(), Query("team-a", "w2", "Job")
    sliced = await explain_job_in_slices(gpu_waiters(), query, now=NOW, history=history)
    at_once = explain_job(gpu_waiters(), query, now=NOW, history=history)
    assert sliced == at_once
    assert at_once[1].eta is not None and at_once[1].eta.status == "estimate" and at_once[1].holders is not None
    without = await explain_job_in_slices(gpu_waiters(), query, now=NOW, history=history, what_if=False)
    assert without == (at_once[0], replace(at_once[1], what_if=None))


def test_without_its_eta_the_answer_is_the_same_but_for_the_eta() -> None:
    history, query = dense_admissions(), Query("team-a", "w2", "Job")
    full = explain_job(gpu_waiters(), query, now=NOW, history=history)
    assert explain_job(gpu_waiters(), query, now=NOW, history=history, eta=False) == (
        full[0],
        replace(full[1], eta=None),
    )
