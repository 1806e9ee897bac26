"""Which engine runs: bot.trace's pure-Python sources, or the same sources compiled with mypyc.

`python -m tools.compile_engine` compiles every module of bot.trace but its __init__ with mypyc (from the
project's dev extra, with a C compiler) into bot/trace/_compiled/, beside a manifest of the sources it was built
from. Importing `bot` (bot/__init__.py imports this module) puts that folder first on bot.trace's path, so its
compiled modules are imported instead of the sources, only while the manifest matches the sources byte for byte
and this interpreter's extension suffix: an edited source, or another Python, falls back to the pure-Python
engine (with a warning when a build is there but stale). KUEUE_BOT_ENGINE (the process environment, read when
`bot` is first imported; not a .env setting) chooses: `auto` (the default: compiled when current), `python`
(never), `compiled` (required: the process stops with one line saying why otherwise, for images and CI that must
run what they built). bench/README.md has the speed of each. Here, not in bot.trace: the engine does
no I/O (the import contracts).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sysconfig
from pathlib import Path

from bot import trace

ENGINE_ENV = "KUEUE_BOT_ENGINE"
ENGINES = ("auto", "python", "compiled")
PACKAGE = Path(__file__).with_name("trace")
COMPILED_DIR = PACKAGE / "_compiled"
MANIFEST = "manifest.json"


def sources() -> dict[str, str]:
    """The modules compiled (every module of bot.trace but its __init__): file name -> sha256."""
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(PACKAGE.glob("*.py"))
        if path.name != "__init__.py"
    }


def extension_suffix() -> str:
    return str(sysconfig.get_config_var("EXT_SUFFIX") or "")


def stale_because(directory: Path = COMPILED_DIR) -> str | None:
    """Why the compiled modules in `directory` cannot stand for the sources here (None: they can)."""
    manifest = directory / MANIFEST
    if not manifest.is_file():
        return f"no compiled engine in {directory} (python -m tools.compile_engine builds it)"
    try:
        built = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return f"its manifest {manifest} cannot be read ({error})"
    if not isinstance(built, dict) or built.get("extension_suffix") != extension_suffix():
        return f"it was built for another Python ({built.get('extension_suffix') if isinstance(built, dict) else '?'})"
    current = sources()
    recorded = built.get("sources")
    if recorded != current:
        recorded = recorded if isinstance(recorded, dict) else {}
        changed = sorted(name for name in {*current, *recorded} if current.get(name) != recorded.get(name))
        more = ", ..." if len(changed) > 5 else ""
        return f"it was built from other sources ({', '.join(changed[:5])}{more} changed)"
    missing = [name for name in current if not (directory / (name[:-3] + extension_suffix())).is_file()]
    if missing:
        return f"its modules are missing ({', '.join(missing[:5])})"
    return None


def choose(wanted: str | None, directory: Path = COMPILED_DIR) -> tuple[bool, str]:
    """(whether the compiled modules in `directory` run, why) for KUEUE_BOT_ENGINE=`wanted`. `compiled` that
    cannot run stops the process with one line saying why (SystemExit: no traceback); an unknown value is said
    once and read as `auto`."""
    given = (wanted or "auto").strip().lower() or "auto"
    if given not in ENGINES:
        logging.getLogger("bot.trace").warning(
            "%s=%r is not one of %s: read as auto", ENGINE_ENV, wanted, ", ".join(ENGINES)
        )
        given = "auto"
    if given == "python":
        return False, f"{ENGINE_ENV}=python"
    reason = stale_because(directory)
    if reason is None:
        return True, "compiled"
    if given == "compiled":
        raise SystemExit(f"kueue-bot: {ENGINE_ENV}=compiled, but the compiled engine cannot be used: {reason}")
    if directory.is_dir():
        logging.getLogger("bot.trace").warning("using the pure-Python engine: the compiled one is stale: %s", reason)
    return False, reason


COMPILED, REASON = choose(os.environ.get(ENGINE_ENV))
if COMPILED:
    trace.__path__.insert(0, str(COMPILED_DIR))  # its modules are found first (the sources stay beside them)


def running() -> str:
    """Which engine this process runs: `compiled` or `python`, as its modules were actually imported."""
    from bot.trace import explain

    return "compiled" if (explain.__file__ or "").endswith(extension_suffix()) else "python"
