"""The house rules of CONTRIBUTING.md, checked on every run so they stay true: rooms (modules outside the
catalogues) under 600 lines, functions under 60, no block of complexity D or worse (radon's scale: 21 and up),
and comments that do not go stale (no issue numbers, no timings or sizes)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest
from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(p for p in (ROOT / "bot").rglob("*.py") if "copy" not in p.relative_to(ROOT / "bot").parts[:1])
EVERY_MODULE = sorted((ROOT / "bot").rglob("*.py"))  # the catalogues' comments too
MAX_LINES, MAX_FUNCTION, MAX_COMPLEXITY = 600, 60, 20
STALE = re.compile(r"\bissues? #?\d+|\b\d+(?:\.\d+)? ?(?:ms|µs|us|MB|KB|GB|CPU-s)\b|\b\d+\.\d+ ?s\b")


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_a_module_is_under_600_lines(path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) < MAX_LINES


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_a_function_is_under_60_lines(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION
    ]
    assert not long


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_block_is_of_complexity_d_or_worse(path: Path) -> None:
    complex_blocks = [
        f"{block.name} ({block.complexity})"
        for block in cc_visit(path.read_text(encoding="utf-8"))
        if block.complexity > MAX_COMPLEXITY
    ]
    assert not complex_blocks


@pytest.mark.parametrize("path", EVERY_MODULE, ids=_name)
def test_comments_name_no_issue_and_no_timing(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    texts = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT]
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                texts.append(doc)
    stale = [match.group(0) for text in texts for match in STALE.finditer(text)]
    assert not stale
