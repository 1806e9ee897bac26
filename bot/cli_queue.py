"""`python -m bot queue NAMESPACE/LOCALQUEUE`: a LocalQueue's state in a terminal, as `/kueue queue` shows it in
Slack (what it feeds, its quota by flavor and resource, who waits in Kueue's order). A composition root, like
bot.cli."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from decimal import Decimal
from typing import Any

from bot.copy import CATALOGUES, language_of
from bot.errors import BotError, DumpUnreadable
from bot.terminal import render_queue_text
from bot.trace.queueview import QueueView, describe_queue
from bot.trace.snapshot import Snapshot

_QUEUE_HELP = """\
Show a LocalQueue as Kueue sees it: the ClusterQueue it feeds, the quota by flavor and resource (nominal, in
use, free now, the most with borrowing), and who waits, in Kueue's order.

examples:
  python -m bot queue team-a/default
  python -m bot queue default -n team-a
  python -m bot queue team-a/default --from-file cluster.yaml --format json

exit status: 0 answered, 1 no such LocalQueue, 2 bad usage, 3 the cluster or the file could not be read.
"""


def add_queue(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    queue_cmd = commands.add_parser(
        "queue",
        help="show a LocalQueue: its ClusterQueue, quota and who waits",
        description=_QUEUE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    queue_cmd.add_argument("queue", metavar="NAMESPACE/LOCALQUEUE", help="e.g. team-a/default (or NAME with -n)")
    queue_cmd.add_argument("-n", "--namespace", default=None, help="the LocalQueue's namespace, as with kubectl")
    add_source_options(queue_cmd)


def add_source_options(command: argparse.ArgumentParser) -> None:
    """What explain, fit and queue share: where the cluster is read from, and how the answer is written."""
    command.add_argument("--from-file", metavar="DUMP", help="read a `kubectl get -o yaml` dump instead of the cluster")
    command.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    command.add_argument("--lang", default=None, help="language of the sentences: en (default) or fr")
    command.add_argument("--context", default=None, help="kubeconfig context to use (live cluster)")
    add_cluster_option(command)
    command.add_argument("--kubeconfig", default=None, help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")


def _names(args: argparse.Namespace) -> tuple[str, str]:
    parts = [part for part in args.queue.strip().split("/") if part]
    if args.namespace is not None and len(parts) == 1:
        return args.namespace, parts[0]
    if args.namespace is None and len(parts) == 2:
        return parts[0], parts[1]
    raise ValueError(f"expected NAMESPACE/LOCALQUEUE or LOCALQUEUE -n NAMESPACE, got {args.queue!r}")


def _snapshot(args: argparse.Namespace, namespace: str, name: str) -> Snapshot:
    if args.from_file:
        from bot.kube.dump import read_dump

        return read_dump(args.from_file).snapshot
    from bot.kube.live import read_live_snapshot

    # The Kueue objects a job's question reads, for no job: kind Workload reads no job object.
    live = read_live_snapshot(namespace, name, "Workload", kubeconfig=args.kubeconfig, context=args.context)
    for note in live.notes:
        print(f"kueue-bot: note: {note}", file=sys.stderr)
    return live.snapshot


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {_camel(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def queue_json(view: QueueView) -> dict[str, Any]:
    """The view as JSON, keys in camelCase as `explain`'s (quantities as Kubernetes writes them)."""
    data = {field.name: getattr(view, field.name) for field in dataclasses.fields(view) if field.name != "chain"}
    data["blocker"] = view.blocker.value if view.blocker is not None else None
    data["quotas"] = [dataclasses.asdict(line) for line in view.quotas]
    data["waiting"] = [dataclasses.asdict(line) for line in view.waiting]
    return dict(_plain(data))


def run_queue(args: argparse.Namespace) -> int:
    try:
        namespace, name = _names(args)
        if args.lang is not None and args.lang.strip().lower() not in CATALOGUES:
            raise ValueError(f"--lang {args.lang!r}: kueue-bot speaks {' or '.join(sorted(CATALOGUES))}")
    except ValueError as error:
        print(f"kueue-bot: {error}", file=sys.stderr)
        return 2
    try:
        snapshot = _snapshot(args, namespace, name)
    except DumpUnreadable as error:
        print(f"kueue-bot: cannot read the dump: {error}", file=sys.stderr)
        return 3
    except BotError as error:
        print(f"kueue-bot: {error}", file=sys.stderr)
        return 3
    view = describe_queue(snapshot, namespace, name)
    language = language_of(args.lang or os.environ.get("KUEUE_BOT_LANG"))
    if args.format == "json":
        print(json.dumps(queue_json(view), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(render_queue_text(view, language))
    return 0 if view.exists else 1


def add_cluster_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--cluster",
        default=None,
        metavar="NAME",
        help="a cluster of CLUSTERS (as the bot names it), or else a kubeconfig context",
    )


def apply_cluster(args: argparse.Namespace) -> str | None:
    """`--cluster NAME`: the kubeconfig and context of that cluster of CLUSTERS (the setting the bot serves several
    clusters with), or NAME as a kubeconfig context when CLUSTERS does not name it. Returns a note for stderr."""
    from bot.clusters import CONTEXT, IN_CLUSTER, parse_clusters

    name = getattr(args, "cluster", None)
    if not name:
        return None
    problems: list[str] = []
    specs = {spec.name: spec for spec in parse_clusters(os.environ.get("CLUSTERS", ""), problems)}
    spec = specs.get(name)
    if spec is None:
        args.context = args.context or name
        return f"--cluster {name}: not in CLUSTERS, used as the kubeconfig context {name}"
    if spec.how == IN_CLUSTER:
        args.kubeconfig, args.context = None, None
    elif spec.how == CONTEXT:
        args.context = spec.context
    else:
        args.kubeconfig, args.context = spec.path, spec.context
    return None
