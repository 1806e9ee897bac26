"""The composition root builds the bot in one pass: every object is given what it needs when it is made
(constructor arguments), in dependency order; none is patched afterwards (`thing.part = ...`), which would let
a half-made object be used, and hide which way a dependency points."""

from __future__ import annotations

import ast

from tests.paths import ROOT

COMPOSITION_ROOT = ["bot/server.py", "bot/background.py"]


def _patches(source: str) -> list[str]:
    """Each assignment to an attribute of an object other than `self` (`self.part = ...` is the object's own
    state), or to `self.a.b` (a part of one of its parts), and each `setattr`: `line: target`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets = [t for target in node.targets for t in _flattened(target)]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
            found.append((node.lineno, "setattr"))
            continue
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Attribute) and not _own(target):
                found.append((node.lineno, ast.unparse(target)))
    return [f"{line}: {target}" for line, target in sorted(found)]


def _flattened(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, ast.Tuple | ast.List):
        return [t for element in target.elts for t in _flattened(element)]
    return [target]


def _own(target: ast.Attribute) -> bool:
    return isinstance(target.value, ast.Name) and target.value.id == "self"


def test_the_composition_root_patches_no_object_after_making_it() -> None:
    patched = {path: _patches((ROOT / path).read_text(encoding="utf-8")) for path in COMPOSITION_ROOT}
    assert {path: lines for path, lines in patched.items() if lines} == {}


def test_the_scan_sees_a_patch_however_it_is_written() -> None:
    source = """
class Holder:
    def __init__(self):
        self.part = 1
        self.count += 1

def wire(service, bot, watches):
    service.history = lambda: None
    bot.replies.admin = object()
    cast("X", watches).wake = print
    first, bot.other = 1, 2
    service.count += 1
    setattr(service, "policy", None)
    self.a.b = 3
"""
    assert [line.split(": ")[1] for line in _patches(source)] == [
        "service.history",
        "bot.replies.admin",
        "cast('X', watches).wake",
        "bot.other",
        "service.count",
        "setattr",
        "self.a.b",
    ]
