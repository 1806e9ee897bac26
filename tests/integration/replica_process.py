"""One bot replica in a process of its own, for the split-brain test (tests/integration/test_replicas.py).

    python -m tests.integration.replica_process CONFIG.json

The real server (build_server) with a dump as its cluster, the ConfigMap state and a Lease over the fake API
server, the Slack stand-in, a short lease and a short tick. It reports on stdout, one JSON object a line:
{"event": "ready"} once started, {"event": "leading"}, {"event": "following"}, and after each of its passes as
leader {"event": "pass", "passes": N, "stopped": S, "decisions": D} (S: passes stopped because the lease was
lost). It campaigns only when told so, a line "go" on stdin: the test decides which replica leads first, and
when, however long each took to start on a loaded machine.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.config import Secret, Settings
from bot.kube.client import KubeClient, load_api_client
from bot.kube.configmap_store import ConfigMapStore
from bot.kube.dump import read_dump
from bot.kube.lease import LeaderElector
from bot.server import build_server
from bot.service.ports import StaticSource

LEASE = "kueue-bot-leader"


def _emit(event: str, **fields: Any) -> None:
    sys.stdout.write(json.dumps({"event": event, **fields}) + "\n")
    sys.stdout.flush()


async def _main(config: dict[str, Any]) -> None:
    api_client = load_api_client(config["kubeconfig"])
    client = KubeClient(api_client)
    namespace = config["namespace"]
    settings = Settings(
        slack_bot_token=Secret(config["token"]),
        slack_signing_secret=Secret(config["secret"]),
        slack_api_url=config["slack_url"],
        host="127.0.0.1",
        port=0,
        pod_namespace=namespace,
        leader_election=True,
    )
    elector = LeaderElector(
        client,
        namespace,
        LEASE,
        config["identity"],
        lease_seconds=config["lease_seconds"],
        renew_every=config["renew_every"],
        clock=lambda: datetime.now(UTC),
    )
    server = build_server(
        settings,
        StaticSource(read_dump(config["dump"]).snapshot),
        store=ConfigMapStore(client, namespace, lease=LEASE),
        is_leader=lambda: elector.is_leader,
        fence=elector.fence,
        tick_seconds=config["tick_seconds"],
    )
    notifier = server.notifier
    assert notifier is not None

    def changed(leading: bool) -> None:
        _emit("leading" if leading else "following")
        if leading:
            notifier.wake()

    elector.listen(changed)
    await server.start()
    _emit("ready")
    loop = asyncio.get_running_loop()
    while (line := await loop.run_in_executor(None, sys.stdin.readline)).strip() != "go":
        if not line:  # the test is gone (stdin closed) before saying go: stop, never linger
            await server.stop()
            api_client.close()  # type: ignore[no-untyped-call]
            return
    elector.start()
    try:
        while True:
            seen = notifier.passes
            async with notifier.pass_done:
                await notifier.pass_done.wait_for(lambda seen=seen: notifier.passes > seen)  # type: ignore[misc]
            _emit(
                "pass",
                passes=notifier.passes,
                stopped=notifier.stopped_passes,
                decisions=len(notifier.last_decisions),
            )
    finally:
        await elector.stop()
        await server.stop()
        api_client.close()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    asyncio.run(_main(json.loads(Path(sys.argv[1]).read_text())))
