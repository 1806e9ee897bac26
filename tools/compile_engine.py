"""Compile the engine (bot/trace) with mypyc into bot/trace/_compiled/, which is imported instead of the sources
while they are the ones it was built from (bot/engine.py).

    python -m tools.compile_engine            # build (about 2 minutes on 2 cores)
    python -m tools.compile_engine --check    # exit 0 when the build is current, 1 (and why) when not
    python -m tools.compile_engine --clean    # remove it: the pure-Python engine runs

Needs mypy (the dev extra: `pip install -e '.[dev]'`) and a C compiler with the Python headers. The compiled
modules need neither at run time, only this interpreter's version (the extension suffix is in the manifest).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bot" / "trace"
GROUP = "bot.trace.engine"  # the shared library's module: bot/trace/_compiled/engine__mypyc*.so


def _pure() -> None:
    """bot imported here must not take a build (nor fail for want of one: KUEUE_BOT_ENGINE=compiled)."""
    sys.path.insert(0, str(ROOT))
    os.environ["KUEUE_BOT_ENGINE"] = "python"


def check() -> int:
    _pure()
    from bot import engine

    reason = engine.stale_because()
    if reason is None:
        print(f"the compiled engine in {engine.COMPILED_DIR} is current")
        return 0
    print(f"not current: {reason}")
    return 1


def clean() -> int:
    target = PACKAGE / "_compiled"
    if target.exists():
        shutil.rmtree(target)
        print(f"removed {target}")
    else:
        print(f"nothing to remove at {target}")
    return 0


@contextlib.contextmanager
def _output_to(log: Path) -> Iterator[None]:
    """This process's and its compilers' output into `log` (mypyc's notes, gcc's lines), shown on failure."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with log.open("w") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def build(jobs: int) -> int:
    try:
        from mypyc.build import mypycify
        from setuptools import setup  # type: ignore[import-untyped]
    except ImportError as error:
        print(f"cannot compile: {error} (pip install -e '.[dev]' brings mypy and setuptools)", file=sys.stderr)
        return 2
    _pure()
    from bot import engine

    before = engine.sources()
    modules = [str((PACKAGE / name).relative_to(ROOT)) for name in before]
    started = time.monotonic()
    target = PACKAGE / "_compiled"
    with tempfile.TemporaryDirectory(prefix="kueue-bot-engine-") as tmp:
        out, temp, generated = Path(tmp) / "lib", Path(tmp) / "temp", Path(tmp) / "c"
        cwd = Path.cwd()
        os.chdir(ROOT)  # mypy reads its settings from pyproject.toml and the modules by their paths
        log = Path(tmp) / "build.log"
        try:
            with _output_to(log):
                extensions = mypycify(
                    ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(Path(tmp) / "mypy"), *modules],
                    opt_level="3",
                    group_name=GROUP,
                    target_dir=str(generated),
                )
                steps = ["--quiet", "build_ext", "--build-lib", str(out), "--build-temp", str(temp)]
                setup(name="kueue-bot-engine", ext_modules=extensions, script_args=[*steps, "--parallel", str(jobs)])
        except (SystemExit, OSError) as error:  # mypy and setuptools end a failed build with SystemExit
            tail = log.read_text(errors="replace").splitlines()[-40:] if log.exists() else []
            print("\n".join(tail), file=sys.stderr)
            print(f"compiling the engine failed ({error!r}); the pure-Python engine still runs", file=sys.stderr)
            return 1
        finally:
            os.chdir(cwd)
        if engine.sources() != before:
            print("the sources changed while they were compiled: run it again", file=sys.stderr)
            return 1
        built = sorted((out / "bot" / "trace").glob("*" + engine.extension_suffix()))
        if target.exists():
            shutil.rmtree(target)
        target.mkdir()
        for path in built:
            shutil.copy2(path, target / path.name)
        manifest = {"extension_suffix": engine.extension_suffix(), "sources": before}
        (target / engine.MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(f"compiled {len(modules)} modules into {target} in {time.monotonic() - started:.0f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.compile_engine", description=__doc__.split("\n\n")[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--check", action="store_true", help="exit 0 when the build is current, 1 when not")
    action.add_argument("--clean", action="store_true", help="remove the build: the pure-Python engine runs")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="C compilers run at once")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    if args.clean:
        return clean()
    return build(max(1, args.jobs))


if __name__ == "__main__":
    sys.exit(main())
