"""The dataclasses of the engine that still spell out the `__init__` @dataclass would make (written for a
compiled engine, since retired: each goes when its module is next edited) must be exactly the generated one:
every field a parameter in order, with its default (a default_factory's field defaults to None and is made
then), each set (object.__setattr__ on a frozen class), and __post_init__ called when the class has one."""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path

import pytest

from tests.paths import ROOT

TRACE = ROOT / "bot" / "trace"


def _written() -> list[tuple[Path, ast.ClassDef]]:
    found = []
    for path in sorted(TRACE.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and any(
                isinstance(item, ast.FunctionDef) and item.name == "__init__" for item in node.body
            ):
                decorated = any(
                    (isinstance(d, ast.Call) and getattr(d.func, "id", "") == "dataclass")
                    or (isinstance(d, ast.Name) and d.id == "dataclass")
                    for d in node.decorator_list
                )
                if decorated:
                    found.append((path, node))
    return found


WRITTEN = _written()


def test_the_plain_dataclasses_write_no_init() -> None:
    names = {node.name for _, node in WRITTEN}
    assert not names & {"Walk", "QueueChain", "Workload"}


@pytest.mark.parametrize(("path", "node"), WRITTEN, ids=[node.name for _, node in WRITTEN])
def test_a_written_init_is_the_one_dataclass_would_make(path: Path, node: ast.ClassDef) -> None:
    module = importlib.import_module(f"bot.trace.{path.stem}")
    cls = getattr(module, node.name)
    fields = dataclasses.fields(cls)
    frozen = cls.__dataclass_params__.frozen
    [init] = [item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"]
    arguments = init.args
    assert not arguments.kwonlyargs and arguments.vararg is None and arguments.kwarg is None
    parameters = [a.arg for a in arguments.args[1:]]
    assert parameters == [f.name for f in fields if f.init]
    defaults = dict(zip(parameters[len(parameters) - len(arguments.defaults) :], arguments.defaults, strict=True))
    for f in fields:
        if not f.init:
            continue
        if f.default is not dataclasses.MISSING:
            assert f.name in defaults, f.name
            expression = compile(ast.Expression(defaults[f.name]), str(path), "eval")
            assert eval(expression, vars(module)) == f.default, f.name  # (the module's own names)
        elif f.default_factory is not dataclasses.MISSING:
            default = defaults.get(f.name)
            assert isinstance(default, ast.Constant) and default.value is None, f.name
        else:
            assert f.name not in defaults, f.name
    source = ast.unparse(init)
    for f in fields:
        if not f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            continue  # __post_init__ sets it
        value = f.name if f.init else ""
        if f.init and f.default_factory is not dataclasses.MISSING:
            value = f"{f.name} if {f.name} is not None else"
        if frozen:
            assert f"object.__setattr__(self, '{f.name}', {value}" in source, f.name
        else:
            assert f"self.{f.name} = {value}" in source, f.name
    assert ("self.__post_init__()" in source) == hasattr(cls, "__post_init__")


@pytest.mark.parametrize(("path", "node"), WRITTEN, ids=[node.name for _, node in WRITTEN])
def test_a_factory_field_is_new_for_each_object(path: Path, node: ast.ClassDef) -> None:
    module = importlib.import_module(f"bot.trace.{path.stem}")
    cls = getattr(module, node.name)
    for f in dataclasses.fields(cls):
        if f.init and f.default_factory is not dataclasses.MISSING:
            assert ast.unparse(node).count(f"{f.name} if {f.name} is not None else") == 1, f.name
