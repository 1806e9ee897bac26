"""The command line: `python -m bot explain ns/job`, and the other commands. A composition root."""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from bot import __version__
from bot.cli_queue import add_queue, add_source_options, apply_cluster, run_queue
from bot.config import Settings
from bot.copy import CATALOGUES, language_of
from bot.errors import BotError, DumpUnreadable
from bot.forecast.serialize import to_json
from bot.service.explaining import explain_job
from bot.terminal import DEFAULT_WIDTH, render_text
from bot.trace.codes import Verdict
from bot.trace.explain import Query
from bot.trace.resolve import canonical_kind
from bot.trace.snapshot import Snapshot

EXIT_OK = 0
EXIT_NOT_FOUND = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3

_EXPLAIN_HELP = """\
Explain why a job is pending under Kueue: its Workload, its conditions, its request against the
ClusterQueue's quota, its position in the queue, and what you can do.

examples:
  python -m bot explain team-a/train-bert
  python -m bot explain team-a/my-rayjob --kind RayJob
  python -m bot explain train-bert -n team-a              (as kubectl names it)
  python -m bot explain team-a/train-bert --from-file cluster.yaml --now 2026-10-14T10:30:00Z
  kubectl get jobs,workloads,localqueues,clusterqueues,resourceflavors,events -A -o yaml > cluster.yaml

exit status: 0 answered, 1 no such job, 2 bad usage, 3 the cluster or the file could not be read.
"""

_FIT_HELP = """\
Will it fit, before I submit? A dry run of Kueue's admission for a job not yet created: the Workload Kueue
would make of FILE (what you would `kubectl apply`: one job, YAML or JSON; - for stdin), its LocalQueue and
ClusterQueue, the flavor each pod set would get, and whether it is admitted now (quota free now), later (it
waits for capacity others use: the place it would take and the ETA) or never as configured (the verdict it
would get, and the smallest change that works). Nothing is created.

examples:
  python -m bot fit job.yaml
  python -m bot fit job.yaml --namespace team-a --format json
  python -m bot fit job.yaml --from-file cluster.yaml --now 2026-10-14T10:30:00Z
  kubectl create job demo --image=busybox --dry-run=client -o yaml | python -m bot fit - -n team-a

exit status: 0 answered (now, later or never), 2 bad usage or an invalid job file, 3 the cluster or a file
could not be read.
"""


_DEMO_HELP = """\
Chat with the real kueue-bot (its HTTP server, Bolt, the engine, the watcher) about a small demo cluster
that moves on over time, through a local Slack stand-in. Nothing else needs to run.

what you type:
  why is train-octobre pending?        an @mention of kueue-bot in #ml-platform
  /kueue queue equipe-data/default     the slash command
  dm why is llm-eval-70b pending?      a direct message
  click watch                          a button of the last message that has it (click queue, ...)
  more                                 the rest of a long answer (one screen at a time)
  /advance                             the cluster moves on to its next moment
  /wait-dm [TEXT]                      (scripts) wait for a DM from kueue-bot
  /kueue admin, /digest                the admins' view, and its daily digest by DM (you are an admin)
  help, quit

Without a terminal on stdin, the demo plays its tour (bot/demo/script.txt) and exits.
"""


_CHECK_HELP = """\
Print every setting (the environment over the .env file; secrets masked), where each came from, and every
problem with them, one line each: values left at .env.example's placeholders, unknown variables (with the
setting meant), a KUBECONFIG file that is not there, a URL that carries credentials.

With --online, also: Slack's auth.test with SLACK_BOT_TOKEN (and apps.connections.open with SLACK_APP_TOKEN
in Socket Mode), the Kubernetes API's reachability and Kueue's API, and a SelfSubjectAccessReview for each
permission of the bot's ClusterRole (and of its Role, when Leases or ConfigMaps are used). One line per
check. Tokens are never printed.

exit status: 0 the settings are valid (and every online check passed), 2 a setting is invalid,
3 an online check failed (Slack refused a token, the cluster is out of reach, a permission is missing).
"""


def _parse_now(value: str) -> datetime:
    text = value.strip().replace("z", "Z")
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not an RFC 3339 time: {value!r} (e.g. 2026-10-14T10:30:00Z)") from error
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _parse_ref(value: str, namespace: str | None) -> tuple[str | None, str, str | None]:
    """ "ns/name", "ns/kind/name", or with `-n ns`: "name" and "kind/name" -> (namespace, name, kind); without a
    namespace, "name" -> (None, name, None): the namespaces are searched. Raises ValueError with the line to show."""
    parts = [part for part in value.strip().split("/") if part]
    if namespace is not None:
        if len(parts) == 1:
            return namespace, parts[0], None
        if len(parts) == 2 and canonical_kind(parts[0]) is not None:
            return namespace, parts[1], parts[0]
        raise ValueError(f"with -n {namespace}, name the job as NAME or KIND/NAME, not {value!r}")
    if len(parts) == 1:
        return None, parts[0], None
    if len(parts) == 2:
        return parts[0], parts[1], None
    if len(parts) == 3:
        return parts[0], parts[2], parts[1]
    raise ValueError(f"expected NAME, NAMESPACE/NAME or NAME -n NAMESPACE, got {value!r}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kueue-bot",
        description="Explains why a job is pending on a Kueue-managed Kubernetes cluster, in a terminal or in Slack.",
    )
    parser.add_argument("--version", action="version", version=f"kueue-bot {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    _add_explain(commands)
    _add_fit(commands)
    add_queue(commands)
    _add_serve(commands)
    _add_check_config(commands)
    _add_demo(commands)
    return parser


def _env_file(command: argparse.ArgumentParser) -> None:
    command.add_argument("--env-file", default=".env", help="settings file read under the environment (default: .env)")


def _add_explain(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    explain_cmd = commands.add_parser(
        "explain",
        help="explain why a job is pending",
        description=_EXPLAIN_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    explain_cmd.add_argument(
        "job",
        metavar="NAMESPACE/NAME",
        help="the job, e.g. team-a/train-bert (or NAME with -n NAMESPACE; NAME alone searches every namespace)",
    )
    explain_cmd.add_argument("-n", "--namespace", default=None, help="the job's namespace, as with kubectl")
    explain_cmd.add_argument(
        "--kind",
        default=None,
        help="the job's kind: Job (default), JobSet, RayJob, PyTorchJob, MPIJob, Pod, Workload, ...",
    )
    explain_cmd.add_argument(
        "--now", type=_parse_now, metavar="TIME", help="explain as of this RFC 3339 time (default: now)"
    )
    add_source_options(explain_cmd)


def _add_fit(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fit_cmd = commands.add_parser(
        "fit",
        help="will this job fit? a dry run of Kueue's admission for a job not yet created",
        description=_FIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fit_cmd.add_argument("file", metavar="FILE", help="the job you would kubectl apply (YAML or JSON; - for stdin)")
    fit_cmd.add_argument(
        "-n", "--namespace", default=None, help="its namespace when the file names none (default: default)"
    )
    fit_cmd.add_argument("--now", type=_parse_now, metavar="TIME", help="as of this RFC 3339 time (default: now)")
    add_source_options(fit_cmd)


def _add_serve(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve_cmd = commands.add_parser(
        "serve",
        help="run the Slack bot (Socket Mode when SLACK_APP_TOKEN is set, else HTTP at POST /slack/events)",
        description="Run the Slack bot. Settings come from the environment and a .env file: see .env.example.",
    )
    serve_cmd.add_argument(
        "--from-file", metavar="DUMP", help="answer from a `kubectl get -o yaml` dump, not a cluster"
    )
    serve_cmd.add_argument("--port", type=int, default=None, help="HTTP port (default: $PORT or 3000)")
    _env_file(serve_cmd)


def _add_check_config(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check_cmd = commands.add_parser(
        "check-config",
        help="print the effective settings (secrets masked) and every problem with them",
        description=_CHECK_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check_cmd.add_argument(
        "--online",
        action="store_true",
        help="also ask Slack (auth.test) and the cluster (reachable? the ClusterRole's permissions held?)",
    )
    _env_file(check_cmd)


def _add_demo(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo_cmd = commands.add_parser(
        "demo",
        help="chat with the real bot about a demo cluster, in this terminal (no Slack, no cluster needed)",
        description=_DEMO_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo_cmd.add_argument(
        "--script",
        metavar="FILE",
        default=None,
        help="play the lines of FILE (- for stdin) instead of reading the terminal; exit 1 if one gets no answer",
    )
    demo_cmd.add_argument(
        "--advance-every",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="the cluster moves on by itself every SECONDS when you chat (default: 0, only when you type /advance)",
    )
    demo_cmd.add_argument("--lang", choices=("en", "fr"), default="en", help="your Slack language (default: en)")
    demo_cmd.add_argument("--no-color", action="store_true", help="no colours, even on a terminal")
    demo_cmd.add_argument("--verbose", action="store_true", help="show the bot's own log lines on stderr")


@functools.lru_cache(maxsize=1)
def _dump_snapshot(path: str) -> Snapshot:
    """A dump's snapshot, read once per command (searched for the job's namespace, then explained)."""
    from bot.kube.dump import read_dump

    return read_dump(path).snapshot


def _snapshot(args: argparse.Namespace, namespace: str, name: str, kind: str | None) -> Snapshot:
    if args.from_file:
        return _dump_snapshot(args.from_file)
    from bot.kube.live import read_live_snapshot

    live = read_live_snapshot(namespace, name, kind, kubeconfig=args.kubeconfig, context=args.context)
    for note in live.notes:
        print(f"kueue-bot: note: {note}", file=sys.stderr)
    return live.snapshot


def _query(args: argparse.Namespace) -> Query:
    """The job the command line names (namespace "" when it names none). Raises ValueError with the line to show."""
    namespace, name, kind_in_ref = _parse_ref(args.job, args.namespace)
    if args.lang is not None and args.lang.strip().lower() not in CATALOGUES:
        raise ValueError(f"--lang {args.lang!r}: kueue-bot speaks {' or '.join(sorted(CATALOGUES))}")
    kind_text = args.kind or kind_in_ref
    kind = canonical_kind(kind_text) if kind_text else "Job"
    if kind is None:
        raise ValueError(f"unknown kind {kind_text!r} (try Job, JobSet, RayJob, PyTorchJob, Pod, Workload)")
    return Query(namespace or "", name, kind)


def _locate(args: argparse.Namespace, query: Query) -> Query | int:
    """A query without a namespace: the one namespace that has a job of that name, or an exit status after
    saying the matches (several) or that there is none."""
    from bot.kube.find import in_snapshot, search_live

    kind = None if args.kind is None else query.kind
    if args.from_file:
        found = in_snapshot(_dump_snapshot(args.from_file), query.name, kind)
    else:
        found = search_live(query.name, kind, kubeconfig=args.kubeconfig, context=args.context)
    for note in found.notes:
        print(f"kueue-bot: note: {note}", file=sys.stderr)
    if len(found.matches) == 1:
        namespace, job_kind = found.matches[0]
        print(f"kueue-bot: {job_kind} {query.name} found in namespace {namespace}", file=sys.stderr)
        return Query(namespace, query.name, job_kind)
    if not found.matches:
        print(f"kueue-bot: no job named {query.name} in any namespace this identity may read", file=sys.stderr)
        return EXIT_NOT_FOUND
    print(f"kueue-bot: {len(found.matches)} jobs are named {query.name}; name the namespace:", file=sys.stderr)
    for namespace, job_kind in found.matches:
        print(f"  {namespace}/{query.name}  ({job_kind}; or: {query.name} -n {namespace})", file=sys.stderr)
    return EXIT_NOT_FOUND


def _print_answer(args: argparse.Namespace, snapshot: Snapshot, query: Query) -> int:
    now = args.now or datetime.now(UTC)
    language = language_of(args.lang or os.environ.get("KUEUE_BOT_LANG"))
    explanation, outlook = explain_job(snapshot, query, now=now)
    if args.format == "json":
        print(json.dumps(to_json(explanation, outlook, language), indent=2, ensure_ascii=False))
    elif explanation.verdict == Verdict.JOB_NOT_FOUND:
        from bot.trace.serialize import text

        hints = " ".join(text(action.text, language) for action in explanation.actions)
        print(f"kueue-bot: {text(explanation.headline, language)} {hints}".rstrip(), file=sys.stderr)
    else:
        colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        width = shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns  # COLUMNS first, then the terminal's
        sys.stdout.write(render_text(explanation, colour=colour, language=language, width=width, outlook=outlook))
    return EXIT_NOT_FOUND if explanation.verdict == Verdict.JOB_NOT_FOUND else EXIT_OK


def run_explain(args: argparse.Namespace) -> int:
    _dump_snapshot.cache_clear()  # a dump is read once per command, never kept from an earlier one
    try:
        query = _query(args)
    except ValueError as error:
        print(f"kueue-bot: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if not query.namespace:
            located = _locate(args, query)
            if isinstance(located, int):
                return located
            query = located
        snapshot = _snapshot(args, query.namespace, query.name, query.kind)
    except DumpUnreadable as error:
        print(f"kueue-bot: cannot read the dump: {error}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except BotError as error:
        print(f"kueue-bot: {error}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    return _print_answer(args, snapshot, query)


def run_fit(args: argparse.Namespace) -> int:
    from bot.errors import JobFileInvalid
    from bot.fit.decide import fit
    from bot.fit.serialize import fit_json
    from bot.kube.jobfile import read_job_file
    from bot.terminal import render_fit_text

    if args.lang is not None and args.lang.strip().lower() not in CATALOGUES:
        print(f"kueue-bot: --lang {args.lang!r}: kueue-bot speaks {' or '.join(sorted(CATALOGUES))}", file=sys.stderr)
        return EXIT_USAGE
    language = language_of(args.lang or os.environ.get("KUEUE_BOT_LANG"))
    try:
        draft = read_job_file(args.file)
    except JobFileInvalid as error:
        print(f"kueue-bot: {error}", file=sys.stderr)
        return EXIT_USAGE
    except DumpUnreadable as error:
        print(f"kueue-bot: cannot read the job file: {error}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    namespace = draft.job.meta.namespace or args.namespace or "default"
    try:
        snapshot = _snapshot(args, namespace, draft.job.meta.name, "Workload")  # no job to read: not created yet
    except DumpUnreadable as error:
        print(f"kueue-bot: cannot read the dump: {error}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except BotError as error:
        print(f"kueue-bot: {error}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    fitting = fit(snapshot, draft, namespace=namespace, now=args.now or datetime.now(UTC))
    if args.format == "json":
        print(json.dumps(fit_json(fitting, language), indent=2, ensure_ascii=False))
    else:
        colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        sys.stdout.write(render_fit_text(fitting, colour=colour, language=language))
    return EXIT_OK


def run_check_config(args: argparse.Namespace) -> int:
    from bot.config import inspect_settings

    inspection = inspect_settings(env_file=args.env_file)
    rows = inspection.rows()
    width = max(len(name) for name, _, _ in rows)
    value_width = min(40, max(len(value) for _, value, _ in rows))
    for name, value, origin in rows:
        print(f"{name:<{width}}  {value:<{value_width}}  ({origin})")
    for problem in inspection.problems:
        print(f"kueue-bot: problem: {problem}", file=sys.stderr)
    if inspection.problems:
        count = len(inspection.problems)
        print(f"kueue-bot: {count} problem(s): the settings are not valid", file=sys.stderr)
        if args.online:
            print("kueue-bot: the online checks were not run: fix the problems above first", file=sys.stderr)
        return EXIT_USAGE
    print("kueue-bot: the settings are valid")
    return _check_online(inspection.settings) if args.online else EXIT_OK


def _check_online(settings: Settings) -> int:
    """Slack's auth.test, the cluster's reachability and the roles' permissions: one line each."""
    from bot.kube.permissions import check_cluster
    from bot.kube.sources import kube_client
    from bot.slack.check import check_slack

    findings = check_slack(settings)
    try:
        client = kube_client(settings)
    except BotError as error:
        findings.append((False, f"no Kubernetes API to ask: {error}"))
    else:
        leases, configmaps = settings.leader_election, settings.state_url.startswith("kubernetes://")
        findings += check_cluster(client, namespace=settings.pod_namespace, leases=leases, configmaps=configmaps)
    for ok, line in findings:
        word = "ok" if ok else "skipped" if ok is None else "problem"
        print(f"kueue-bot: {word}: {line}", file=sys.stdout if ok else sys.stderr)
    failed = sum(1 for ok, _ in findings if ok is False)
    if failed:
        skipped = sum(1 for ok, _ in findings if ok is None)
        also = f", {skipped} not run" if skipped else ""
        print(f"kueue-bot: {failed} online check{'s' if failed > 1 else ''} failed{also}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    print("kueue-bot: every online check passed")
    return EXIT_OK


def run_serve(args: argparse.Namespace) -> int:
    import asyncio
    from dataclasses import replace

    from bot.config import load_settings
    from bot.errors import ConfigError
    from bot.log import setup_logging

    try:
        settings = load_settings(env_file=args.env_file)
    except ConfigError as error:
        print(f"kueue-bot: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.port is not None:
        settings = replace(settings, port=args.port)
    setup_logging(settings.log_level, settings.log_format)
    try:
        asyncio.run(_serve(settings, args.from_file))
    except BotError as error:
        print(f"kueue-bot: {error}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    return EXIT_OK


async def _serve(settings: Settings, dump: str | None) -> None:
    """Assemble the bot for `serve`: a dump or the live cluster, the state store, the leader election."""
    from bot.server import build_server, utc_now
    from bot.service.ports import SnapshotSource, StaticSource

    source: SnapshotSource
    clusters: Mapping[str, SnapshotSource] | None = None
    elector = None
    if dump:
        from bot.kube.dump import read_dump
        from bot.kube.sources import state_store

        source = StaticSource(read_dump(dump).snapshot)
        store = state_store(settings, None)
    elif settings.clusters:  # several clusters, each with its own cache
        from bot.kube.sources import cluster_sources, leader_elector, state_store

        clusters, first = cluster_sources(settings, utc_now)
        source = next(iter(clusters.values()))
        store = state_store(settings, first)
        if settings.leader_election and first is not None:
            elector = leader_elector(settings, first, utc_now)
    else:
        from bot.kube.sources import kube_client, leader_elector, live_source, state_store

        client = kube_client(settings)
        source = live_source(client, utc_now)
        store = state_store(settings, client)
        if settings.leader_election:
            elector = leader_elector(settings, client, utc_now)
    server = build_server(
        settings,
        source,
        clusters=clusters,
        store=store,
        is_leader=(lambda: elector.is_leader) if elector is not None else None,
        fence=elector.fence if elector is not None else None,
    )
    if elector is not None:
        notifier = server.notifier
        if notifier is not None:  # a new leader looks at once, not at its next tick
            elector.listen(lambda leading: notifier.wake() if leading else None)
        elector.start()
        server.background.append(elector.stop)
    await server.run_forever()


def run_demo(args: argparse.Namespace) -> int:
    from bot.demo.run import demo_main, demo_options

    options = demo_options(args, stdout_tty=sys.stdout.isatty(), no_color=bool(os.environ.get("NO_COLOR")))
    return demo_main(options, stdin_tty=sys.stdin.isatty(), out=sys.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    note = apply_cluster(args)
    if note:
        print(f"kueue-bot: note: {note}", file=sys.stderr)
    if args.command == "explain":
        return run_explain(args)
    if args.command == "fit":
        return run_fit(args)
    if args.command == "queue":
        return run_queue(args)
    if args.command == "serve":
        return run_serve(args)
    if args.command == "check-config":
        return run_check_config(args)
    if args.command == "demo":
        return run_demo(args)
    parser.error(f"unknown command {args.command!r}")
