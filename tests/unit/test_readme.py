"""The README is a user's page that works when followed literally: its links lead somewhere in the repository,
it names nothing a stranger's clone does not have, it stays short, and its two commands are the ones CI and a
newcomer run (`.ci/run` installs with the same constraints file)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", "CONTRIBUTING.md", "SECURITY.md", *(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES)
def test_every_relative_link_leads_to_a_file_of_the_repository(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    for target in LINK.findall(text):
        if "://" in target or target.startswith("mailto:"):
            continue
        assert (ROOT / page).parent.joinpath(target).resolve().exists(), f"{page} links to {target}"


@pytest.mark.parametrize("page", PAGES)
def test_no_page_sends_a_stranger_to_a_folder_beside_the_clone(page: str) -> None:
    assert "../shared" not in (ROOT / page).read_text(encoding="utf-8")


def test_the_readme_is_a_short_users_page_with_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.split()) <= 1500
    assert (
        "python3 -m venv .venv && .venv/bin/pip install -c constraints.txt -e . && .venv/bin/python -m bot demo" in text
    )
    assert "bash .ci/run" in text
    assert text.index("## The two commands") < text.index("docs/threaded-answer.png")
    assert "-c constraints.txt" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert (ROOT / "constraints.txt").is_file()
