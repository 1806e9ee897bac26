"""`kubectl kueue ...`: the CLI as a kubectl plugin (`kubectl-kueue` on PATH from `pip install`), with kubectl's
words: `why NAME -n NS` (explain), `fit -f job.yaml`, `queue NAME -n NS`. Everything else is passed as is to
`python -m bot` (explain, fit, queue, serve, check-config, demo)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from bot.cli import main as cli_main

USAGE = """\
usage: kubectl kueue COMMAND ...

  kubectl kueue why NAME [-n NAMESPACE] [--kind KIND]    why a job is pending (NAME alone searches namespaces)
  kubectl kueue fit -f JOB.yaml [-n NAMESPACE]           would this job be admitted if submitted now?
  kubectl kueue queue NAME -n NAMESPACE                  a LocalQueue: its quota and who waits
  kubectl kueue explain|fit|queue --help                 every option (--format json, --lang fr, --context ...)
"""


def translate(argv: Sequence[str]) -> list[str] | None:
    """kubectl's words -> `python -m bot`'s arguments; None: print the usage."""
    args = list(argv)
    if not args or args[0] in ("-h", "--help", "help"):
        return None
    command, rest = args[0], args[1:]
    if command == "why":
        return ["explain", *rest]
    if command == "fit":
        return ["fit", *_file_operand(rest)]
    return [command, *rest]


def _file_operand(rest: list[str]) -> list[str]:
    """`-f FILE` / `--filename FILE` / `-f=FILE` (kubectl's way) -> the FILE operand of `fit`."""
    out: list[str] = []
    index = 0
    while index < len(rest):
        word = rest[index]
        if word in ("-f", "--filename") and index + 1 < len(rest):
            out.insert(0, rest[index + 1])
            index += 2
            continue
        for prefix in ("-f=", "--filename="):
            if word.startswith(prefix):
                out.insert(0, word.removeprefix(prefix))
                break
        else:
            out.append(word)
        index += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    translated = translate(sys.argv[1:] if argv is None else argv)
    if translated is None:
        sys.stdout.write(USAGE)
        return 0
    return cli_main(translated)
