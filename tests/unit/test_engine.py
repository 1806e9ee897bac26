"""Which engine runs (bot/engine.py): the compiled modules only while they were built from these very sources
for this Python; KUEUE_BOT_ENGINE says whether to take them, never, or only them. .ci/run runs the suite once
with each engine (tools/compile_engine.py builds the compiled one)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from bot import engine
from bot.engine import MANIFEST, choose, extension_suffix, sources, stale_because


def _build(directory: Path, *, suffix: str | None = None, changed: str = "", missing: str = "") -> Path:
    """A stand-in for a build (the manifest and one file per module; no compiler here)."""
    directory.mkdir()
    recorded = dict(sources())
    if changed:
        recorded[changed] = "0" * 64
    manifest = {"extension_suffix": extension_suffix() if suffix is None else suffix, "sources": recorded}
    (directory / MANIFEST).write_text(json.dumps(manifest))
    for name in recorded:
        if name != missing:
            (directory / (name[:-3] + extension_suffix())).write_bytes(b"")
    return directory


def test_a_build_of_these_sources_for_this_python_is_taken(tmp_path: Path) -> None:
    directory = _build(tmp_path / "built")
    assert stale_because(directory) is None
    assert choose(None, directory) == (True, "compiled")
    assert choose("compiled", directory) == (True, "compiled")
    assert choose(" Auto ", directory) == (True, "compiled")
    assert choose("python", directory) == (False, "KUEUE_BOT_ENGINE=python")


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("none", "no compiled engine in"),
        ("garbled", "cannot be read"),
        ("other-python", "built for another Python (.cpython-39-x86_64-linux-gnu.so)"),
        ("changed", "built from other sources (eta.py changed)"),
        ("missing", "its modules are missing (holders.py)"),
    ],
)
def test_a_build_that_is_not_of_these_sources_is_not_taken(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str, expected: str
) -> None:
    directory = tmp_path / "built"
    if kind == "garbled":
        directory.mkdir()
        (directory / MANIFEST).write_text("{not json")
    elif kind == "other-python":
        _build(directory, suffix=".cpython-39-x86_64-linux-gnu.so")
    elif kind in ("changed", "missing"):
        _build(
            directory, changed="eta.py" if kind == "changed" else "", missing="holders.py" if kind == "missing" else ""
        )
    reason = stale_because(directory)
    assert reason is not None and expected in reason
    with caplog.at_level(logging.WARNING, logger="bot.trace"):
        assert choose("auto", directory) == (False, reason)  # the pure-Python engine, said once
    assert [r.getMessage() for r in caplog.records] == (
        [f"using the pure-Python engine: the compiled one is stale: {reason}"] if kind != "none" else []
    )
    with pytest.raises(SystemExit, match=r"^kueue-bot: KUEUE_BOT_ENGINE=compiled, but the compiled engine cannot be"):
        choose("compiled", directory)


def test_an_unknown_choice_is_said_and_read_as_auto(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    directory = _build(tmp_path / "built")
    with caplog.at_level(logging.WARNING, logger="bot.trace"):
        assert choose("fast", directory) == (True, "compiled")
        assert choose("fast", tmp_path / "none") == (False, stale_because(tmp_path / "none"))
    assert [r.getMessage() for r in caplog.records] == [
        "KUEUE_BOT_ENGINE='fast' is not one of auto, python, compiled: read as auto"
    ] * 2


def test_the_engine_running_is_the_one_chosen() -> None:
    """.ci/run asks for each engine in turn: the modules imported are that engine's."""
    wanted = os.environ.get(engine.ENGINE_ENV, "auto")
    assert engine.running() == ("compiled" if engine.COMPILED else "python")
    if wanted in ("python", "compiled"):
        assert engine.running() == wanted
    from bot.trace import eta, holders

    assert all(
        module.__file__ and module.__file__.endswith(extension_suffix()) == engine.COMPILED for module in (eta, holders)
    )
