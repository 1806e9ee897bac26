"""Issue 13, tried again as an attacker and as a hostile environment: unsigned and malformed requests, replays
(also across a restart), a broken state store, a port in use, a bad kubeconfig, Socket Mode with a refused
token or no Slack at all, signals while starting, and slow clients. In process where that shows it; as a real
`serve` process where the issue says so. Every test says what would make it fail."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import resource
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
from bot.kube.dump import read_dump
from bot.notify.store import SQLiteStore
from bot.server import Server, build_server
from bot.service.ports import StaticSource

from tests.fakes.slack_api import FakeSlack, bot_settings
from tests.paths import SCENARIOS

DUMP = SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml"
USER, CHANNEL = "U0ALICE01", "C0MLVISION"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as fake:
        fake.add_user(USER, name="alice", email="alice@example.com", locale="en-US")
        fake.add_channel(CHANNEL, "ml-vision", members=[USER])
        yield fake


async def _serve(slack: FakeSlack, store: SQLiteStore | None = None, **fields: Any) -> Server:
    source = StaticSource(read_dump(DUMP).snapshot)
    server = build_server(bot_settings(slack), source, store=store, tick_seconds=3600)
    for name, value in fields.items():
        setattr(server, name, value)
    await server.start()
    return server


def _events(server: Server) -> str:
    return f"{server.url}/slack/events"


async def _post(url: str, body: str, headers: dict[str, str]) -> int:
    async with aiohttp.ClientSession() as session, session.post(url, data=body.encode(), headers=headers) as response:
        return response.status


def _signed(secret: str, body: str, stamp: str) -> dict[str, str]:
    signature = "v0=" + hmac.new(secret.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature}


# --- item 9: the signature before anything, replays ------------------------------------------------------


async def test_unsigned_and_malformed_requests_are_401_before_any_parsing_and_without_a_traceback(
    slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    # Fails if Bolt parsed the body before the signature was checked (malformed JSON: a 500 and a traceback), or
    # if a non-numeric timestamp reached int() (a 500).
    server = await _serve(slack)
    try:
        caplog.set_level(logging.INFO)
        url, now = _events(server), str(int(time.time()))
        json_type = {"Content-Type": "application/json"}
        form_type = {"Content-Type": "application/x-www-form-urlencoded"}
        statuses = [
            await _post(url, "{not json", json_type),
            await _post(url, "payload=%7Bnot-json", form_type),
            await _post(url, "[1, 2", {**json_type, "X-Slack-Request-Timestamp": now, "X-Slack-Signature": "v0=00"}),
            await _post(url, "{}", {**json_type, **_signed(slack.signing_secret, "{}", "abc")}),
            await _post(url, "{}", {**json_type, **_signed(slack.signing_secret, "{}", "1e9")}),
            await _post(url, "{}", {**json_type, **_signed(slack.signing_secret, "{}", " " + now + "0" * 40)}),
            await _post(url, "{}", {**json_type, "X-Slack-Request-Timestamp": now, "X-Slack-Signature": "v0=é"}),
            await _post(url, "", json_type),
        ]
        assert statuses == [401] * len(statuses)
        # Rightly signed but not a payload: 400, still no traceback.
        assert await _post(url, "[1, 2", {**json_type, **_signed(slack.signing_secret, "[1, 2", now)}) == 400
        assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
        assert slack.calls("chat.postMessage") == []
    finally:
        await server.stop()


async def _sentinel(slack: FakeSlack, server: Server) -> None:
    """A fresh question, answered: everything delivered before it has been handled (or dropped)."""
    event = slack.app_mention_event(USER, CHANNEL, "ml-vision/vit-ablation-lr3e4")
    await slack.deliver_event(_events(server), event)
    await slack.wait_for_call("chat.postMessage", lambda c: c.params.get("thread_ts") == event["ts"])


def _answers_to_slash(slack: FakeSlack) -> int:
    return sum(1 for c in slack.calls("chat.postMessage") if c.params.get("thread_ts") is None)


async def test_a_replayed_slash_command_is_answered_once(slack: FakeSlack) -> None:
    # Fails if a captured, rightly signed slash command replayed within the window were answered again.
    server = await _serve(slack)
    try:
        stamp = int(time.time())
        fields = slack.slash_command_payload(text="why ml-vision/segformer-finetune", user_id=USER, channel_id=CHANNEL)
        body = urlencode(fields)
        signed = _signed(slack.signing_secret, body, str(stamp))
        headers = {"Content-Type": "application/x-www-form-urlencoded", **signed}
        assert [await _post(_events(server), body, headers) for _ in range(3)] == [200, 200, 200]
        await _sentinel(slack, server)
        assert _answers_to_slash(slack) == 1
    finally:
        await server.stop()


async def test_replays_and_retried_events_across_a_restart_are_not_answered_again(
    slack: FakeSlack, tmp_path: Path
) -> None:
    # Fails if the event ids and signatures seen were kept in memory only: after the restart, the retried
    # event and the replayed slash command would be answered a second time.
    path = tmp_path / "state.sqlite3"
    event = slack.app_mention_event(USER, CHANNEL, "why is segformer-finetune pending?")
    fields = slack.slash_command_payload(text="why ml-vision/segformer-finetune", user_id=USER, channel_id=CHANNEL)
    body = urlencode(fields)
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        **_signed(slack.signing_secret, body, str(int(time.time()))),
    }
    first = await _serve(slack, SQLiteStore(path))
    try:
        await slack.deliver_event(_events(first), event, event_id="Ev0RESTART1")
        assert await _post(_events(first), body, headers) == 200
        await slack.wait_for_call("chat.postMessage", nth=2)
    finally:
        await first.stop()
    second = await _serve(slack, SQLiteStore(path))
    try:
        retry = await slack.deliver_event(_events(second), event, event_id="Ev0RESTART1", retry_num=1)
        assert retry.status == 200
        assert await _post(_events(second), body, headers) == 200
        await _sentinel(slack, second)
        assert [c.params.get("thread_ts") for c in slack.calls("chat.postMessage")].count(event["ts"]) == 1
        assert _answers_to_slash(slack) == 1
    finally:
        await second.stop()


async def _click(
    slack: FakeSlack, server: Server, action_id: str, raw_value: str, ts: str = "1700000000.000100"
) -> int:
    """A block_actions request as an attacker who has a signed channel would craft it (any value at all)."""
    payload = {
        "type": "block_actions",
        "team": {"id": slack.identity.team_id},
        "api_app_id": slack.identity.app_id,
        "user": {"id": USER},
        "channel": {"id": CHANNEL},
        "container": {"type": "message", "message_ts": ts, "channel_id": CHANNEL},
        "message": {"ts": ts, "type": "message"},
        "trigger_id": "1.2.3",
        "actions": [{"type": "button", "action_id": action_id, "block_id": "b", "value": raw_value}],
    }
    body = urlencode({"payload": json.dumps(payload)})
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        **_signed(slack.signing_secret, body, str(int(time.time()))),
    }
    return await _post(_events(server), body, headers)


# --- item 9: crafted buttons ----------------------------------------------------------------------------


async def test_a_list_where_a_string_is_expected_in_a_button_gets_a_friendly_private_note(slack: FakeSlack) -> None:
    # Fails if a crafted value reached the service (a TypeError, then a public apology in the channel).
    server = await _serve(slack)
    try:
        ts = slack.app_mention_event(USER, CHANNEL, "a message with buttons")["ts"]  # stored, not delivered
        for action_id, value in (
            ("kueue_recheck", {"ns": ["ml-vision"], "name": "segformer-finetune"}),
            ("kueue_pick", {"ns": "ml-vision", "name": {"$ne": 1}}),
            ("kueue_show_queue", {"ns": "ml-vision", "lq": 3}),
            ("kueue_watch", ["not", "an", "object"]),
            ("kueue_recheck", "{not json"),
        ):
            raw = value if isinstance(value, str) else json.dumps(value)
            assert await _click(slack, server, action_id, raw, ts) == 200
        await slack.wait_for_call("chat.postEphemeral", nth=5)
        notes = [c.params["text"] for c in slack.calls("chat.postEphemeral")]
        assert all("out of date" in note for note in notes)
        assert slack.calls("chat.postMessage") == []  # nothing public, no apology
    finally:
        await server.stop()


async def test_snooze_and_stop_are_access_checked_and_echo_the_job_escaped(slack: FakeSlack, tmp_path: Path) -> None:
    # Fails if a crafted Snooze read another namespace (the channel may ask about ml-vision only) or if the
    # confirmation echoed the button's value as live markup (<!channel>).
    source = StaticSource(read_dump(DUMP).snapshot)
    settings = replace(bot_settings(slack), channel_namespaces={CHANNEL: ("ml-vision",)})
    server = build_server(settings, source, store=SQLiteStore(tmp_path / "s.sqlite3"), tick_seconds=3600)
    await server.start()
    try:
        ts = slack.app_mention_event(USER, CHANNEL, "a DM's buttons")["ts"]  # stored, not delivered
        crafted = json.dumps({"ns": "team-b", "name": "secret-job"})
        assert await _click(slack, server, "kueue_snooze_2h", crafted, ts) == 200
        refusal = await slack.wait_for_call("chat.postEphemeral")
        assert "team-b" in refusal.params["text"] and "Snoozed" not in refusal.params["text"]
        marked = json.dumps({"ns": "ml-vision", "name": "<!channel>"})
        assert await _click(slack, server, "kueue_stop", marked, ts) == 200
        stopped = await slack.wait_for_call("chat.postEphemeral", nth=2)
        assert "&lt;!channel&gt;" in stopped.params["text"] and "<!channel>" not in stopped.params["text"]
        assert slack.calls("chat.postMessage") == []
    finally:
        await server.stop()


# --- item 9: a broken state store, readiness ------------------------------------------------------------


async def _get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


def _overwrite(path: Path) -> None:
    """The database, its WAL and its index overwritten in place, under the open connection."""
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{path}{suffix}")
        if part.exists():
            part.write_bytes(b"\xff" * part.stat().st_size)


async def test_a_broken_state_store_makes_readyz_503_with_a_metric(slack: FakeSlack, tmp_path: Path) -> None:
    # Fails if /readyz answered 200 while the state could not be read, or if nothing in /metrics said so.
    path = tmp_path / "state.sqlite3"
    server = await _serve(slack, SQLiteStore(path))
    try:
        status, body = await _get(f"{server.url}/readyz")
        assert status == 200 and json.loads(body)["stateStore"] == "ok"
        assert "kueue_bot_state_store_up 1.0" in (await _get(f"{server.url}/metrics"))[1]
        await asyncio.to_thread(_overwrite, path)
        status, body = await _get(f"{server.url}/readyz")
        assert status == 503 and json.loads(body)["stateStore"] == "unavailable"
        assert "kueue_bot_state_store_up 0.0" in (await _get(f"{server.url}/metrics"))[1]
        assert (await _get(f"{server.url}/healthz"))[0] == 200  # alive: a restart would not mend the file
    finally:
        await server.stop()


# --- item 9: one-line errors from real processes ---------------------------------------------------------


def _env(slack: FakeSlack | None, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "SLACK_BOT_TOKEN": slack.bot_token if slack else "xoxb-test",
        "SLACK_SIGNING_SECRET": slack.signing_secret if slack else "s3cr3t",
        "SLACK_API_URL": slack.api_url if slack else "http://127.0.0.1:9/api/",
        "STATE_URL": f"sqlite:///{tmp_path / 'state.sqlite3'}",
        "HOST": "127.0.0.1",
        "LOG_FORMAT": "text",
    }
    env.update(extra)
    return env


async def _run(args: list[str], env: dict[str, str], *, timeout: float = 120) -> tuple[int, str]:  # noqa: ASYNC109
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, env=env, cwd=REPO,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        async with asyncio.timeout(timeout):
            out, err = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    return process.returncode or 0, (out + err).decode()


async def test_serve_on_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    # Fails if the OSError of bind() ended the process in a traceback.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, output = await _run(
            ["serve", "--from-file", str(DUMP), "--port", str(port), "--env-file", "/nonexistent"],
            _env(None, tmp_path),
        )
    assert code != 0
    assert "Traceback" not in output
    assert f"cannot listen on 127.0.0.1:{port}: the address is already in use" in output


async def test_explain_with_a_file_that_is_not_a_kubeconfig_is_one_line(tmp_path: Path) -> None:
    # Fails if the kubernetes library's YAML or TypeError reached the user as a traceback.
    junk = tmp_path / "NOT-A-KUBECONFIG"
    for text in ("not: [a kubeconfig\n", "hello\n", "- 1\n- 2\n"):
        junk.write_text(text)
        code, output = await _run(["explain", "team-a/job", "--kubeconfig", str(junk)], _env(None, tmp_path))
        assert code == 3
        assert "Traceback" not in output
        assert len(output.strip().splitlines()) == 1 and "is not a kubeconfig" in output


async def test_socket_mode_with_a_refused_token_is_one_line_and_a_non_zero_exit(
    slack: FakeSlack, tmp_path: Path
) -> None:
    # Fails if the bot retried a refused token for ever (the test's timeout), logged tracebacks, or exited 0.
    for token in ("xapp-not-the-token", ""):
        env = _env(slack, tmp_path, SLACK_APP_TOKEN="xapp-1-bad" if token else "xapp-")
        code, output = await _run(["serve", "--from-file", str(DUMP), "--port", "0", "--env-file", "/x"], env)
        assert code != 0
        assert "Traceback" not in output
        refused = [line for line in output.splitlines() if "Slack refused SLACK_APP_TOKEN" in line]
        assert len(refused) == 1 and "invalid_auth" in refused[0]


async def _wait_for_line(stream: asyncio.StreamReader, text: str, *, timeout: float = 120) -> str:  # noqa: ASYNC109
    async with asyncio.timeout(timeout):
        while True:
            line = (await stream.readline()).decode()
            if not line:
                raise AssertionError(f"the process ended before logging {text!r}")
            if text in line:
                return line


async def test_socket_mode_without_slack_honours_sigterm_and_is_not_ready(tmp_path: Path) -> None:
    # Slack out of reach: the bot keeps trying to connect. Fails if SIGTERM were ignored while it does (the
    # test's timeout), or if /readyz said ready without a connection.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = _env(None, tmp_path, SLACK_APP_TOKEN="xapp-1-test", PORT=str(port))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "serve", "--from-file", str(DUMP), "--env-file", "/x",
        env=env, cwd=REPO, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        await _wait_for_line(process.stderr, "out of reach")
        status, body = await _get(f"http://127.0.0.1:{port}/readyz")
        assert status == 503 and json.loads(body)["slack"] == "disconnected"
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(15):
            rest = (await process.stderr.read()).decode()
            assert await process.wait() == 0
        assert "Traceback" not in rest
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


# --- item 6: slow clients --------------------------------------------------------------------------------


async def test_a_half_sent_request_is_closed_after_the_header_timeout(slack: FakeSlack) -> None:
    # Fails if a connection that never finishes its headers were held for ever.
    server = await _serve(slack, header_timeout=0.5)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Le")
        await writer.drain()
        async with asyncio.timeout(10):
            assert await reader.read() == b""  # closed by the bot
        writer.close()
        await writer.wait_closed()
    finally:
        await server.stop()


async def test_a_body_that_never_arrives_is_a_408(slack: FakeSlack) -> None:
    # Fails if the request handler waited for ever for a body announced but never sent.
    server = await _serve(slack)
    server.bot.body_timeout = 0.5
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Length: 100\r\n\r\n{")
        await writer.drain()
        async with asyncio.timeout(30):
            status_line = await reader.readline()
        assert status_line.startswith(b"HTTP/1.1 408")
        writer.close()
        await writer.wait_closed()
    finally:
        await server.stop()


def _nofile_1024() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))


async def test_a_flood_of_half_sent_requests_never_stops_healthz(slack: FakeSlack, tmp_path: Path) -> None:
    # The attack on a real `serve` under a 1,024-descriptor limit: 1,100 connections, each sending half
    # a request and then nothing. Fails if /healthz stops answering (descriptors exhausted, or every slot held
    # by the attacker) or if the process dies.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1300:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = _env(slack, tmp_path, PORT=str(port))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "serve", "--from-file", str(DUMP), "--env-file", "/x",
        env=env, cwd=REPO, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        preexec_fn=_nofile_1024,
    )  # fmt: skip
    attackers: list[asyncio.StreamWriter] = []
    try:
        assert process.stderr is not None
        await _wait_for_line(process.stderr, "kueue-bot serving")
        for _ in range(1100):
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue
            writer.write(b"POST /slack/events HTTP/1.1\r\nHost: bot\r\nX-Slow: ")
            attackers.append(writer)
        await asyncio.gather(*(w.drain() for w in attackers), return_exceptions=True)
        for _ in range(5):
            async with asyncio.timeout(5):
                status, _ = await _get(f"http://127.0.0.1:{port}/healthz")
            assert status == 200
        async with asyncio.timeout(5):
            metrics = (await _get(f"http://127.0.0.1:{port}/metrics"))[1]
        assert 'kueue_bot_http_connections_shed_total{how="evicted"}' in metrics
        assert process.returncode is None
    finally:
        for writer in attackers:
            writer.close()
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(15):
            await process.wait()


STUCK_BODY = (
    b'POST /slack/events HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":'
)


async def _drain(stream: asyncio.StreamReader, lines: list[str]) -> None:
    """Read a process's log as it comes (a full pipe would stop the process), keeping the lines."""
    while line := await stream.readline():
        lines.append(line.decode(errors="replace"))


async def test_a_flood_of_stuck_bodies_never_stops_healthz_nor_slacks_events(slack: FakeSlack, tmp_path: Path) -> None:
    # The attack on a real `serve` under a 1,024-descriptor limit: 1,100 connections, each sending
    # complete headers (Content-Length: 100000) and 5 bytes of body, then nothing. Fails if /healthz is not
    # answered every time (before: 0 of 3), if Slack's signed event is not answered and its answer posted
    # (before: reset), if a traceback is logged, or if the process dies.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1300:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = _env(slack, tmp_path, PORT=str(port))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "serve", "--from-file", str(DUMP), "--env-file", "/x",
        env=env, cwd=REPO, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        preexec_fn=_nofile_1024,
    )  # fmt: skip
    attackers: list[asyncio.StreamWriter] = []
    logged: list[str] = []
    try:
        assert process.stderr is not None
        await _wait_for_line(process.stderr, "kueue-bot serving")
        draining = asyncio.create_task(_drain(process.stderr, logged))
        for _ in range(1100):
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue
            writer.write(STUCK_BODY)
            attackers.append(writer)
        await asyncio.gather(*(w.drain() for w in attackers), return_exceptions=True)
        for _ in range(5):
            async with asyncio.timeout(5):
                status, _ = await _get(f"http://127.0.0.1:{port}/healthz")
            assert status == 200
        event = slack.app_mention_event(USER, CHANNEL, "why is ml-vision/segformer-finetune pending?")
        async with asyncio.timeout(10):
            delivery = await slack.deliver_event(f"http://127.0.0.1:{port}/slack/events", event)
        assert delivery.status == 200
        await slack.wait_for_call("chat.postMessage", lambda c: c.params.get("thread_ts") == event["ts"])
        async with asyncio.timeout(5):
            metrics = (await _get(f"http://127.0.0.1:{port}/metrics"))[1]
        assert 'kueue_bot_http_connections_shed_total{how="evicted"}' in metrics
        assert process.returncode is None
    finally:
        for writer in attackers:
            writer.close()
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(15):
            await process.wait()
    await draining
    tracebacks = [i for i, line in enumerate(logged) if "Traceback" in line]
    assert not tracebacks, "".join(logged[tracebacks[0] - 2 : tracebacks[0] + 30])


async def test_a_flood_from_one_address_never_pushes_out_another_addresss_connections(slack: FakeSlack) -> None:
    # At most `per_address` connections from one address: a flood of stuck bodies from 127.0.0.1 pushes out its
    # own oldest, never those of 127.0.0.2. Fails if 127.0.0.2's connections are closed, or /healthz refused.
    server = await _serve(slack)
    assert server.site is not None
    server.site.max_connections, server.site.per_address = 12, 4
    others: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    flood: list[asyncio.StreamWriter] = []
    try:
        for _ in range(4):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port, local_addr=("127.0.0.2", 0))
            writer.write(STUCK_BODY)
            others.append((reader, writer))
        for _ in range(40):
            _, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(STUCK_BODY)
            flood.append(writer)
        await asyncio.gather(*(w.drain() for w in flood), return_exceptions=True)
        async with asyncio.timeout(5):
            assert (await _get(f"{server.url}/healthz"))[0] == 200
        assert server.site.evicted >= 36
        for reader, _ in others:
            assert not reader.at_eof()
            with pytest.raises(TimeoutError):  # still open: nothing comes, the body is still owed
                async with asyncio.timeout(0.2):
                    await reader.read(1)
    finally:
        for writer in flood + [w for _, w in others]:
            writer.close()
        await server.stop()


async def test_health_probes_are_answered_outside_the_shared_room(slack: FakeSlack) -> None:
    # No shared room at all: only the probes' room is left. Fails if /healthz or /readyz is refused (before: every
    # connection was refused once the cap was reached), or if anything else is let in through the probes' room.
    server = await _serve(slack)
    assert server.site is not None
    server.site.max_connections = 0
    try:
        async with asyncio.timeout(5):
            assert (await _get(f"{server.url}/healthz"))[0] == 200
            assert (await _get(f"{server.url}/readyz"))[0] in (200, 503)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(STUCK_BODY)
        async with asyncio.timeout(5):
            assert await reader.read() == b""  # closed once its request line showed it was no probe
        writer.close()
    finally:
        await server.stop()
