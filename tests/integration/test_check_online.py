"""`check-config --online` over real HTTP: Slack's auth.test against the Slack stand-in, the cluster's
reachability, Kueue's API and a SelfSubjectAccessReview per permission of the ClusterRole against the fake
API server. One line per check; exit 0 when all pass, 3 when one fails; never a token on the screen."""

from __future__ import annotations

import asyncio
import contextlib
import io
import socket
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.cli import EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE, main
from bot.kube.permissions import CLUSTER_ROLE, CONFIGMAPS, LEASES, Rule
from bot.standin.slack import FakeSlack

from tests.fakes.kube_api import FakeKubeAPI

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "deploy" / "kustomize" / "base"
ADMIN_TOKEN, BOT_TOKEN_K8S = "adm1n", "b0t-sa-t0ken"


def _rules(kind: str) -> list[dict[str, Any]]:
    path = BASE / ("clusterrole.yaml" if kind == "ClusterRole" else "role.yaml")
    document = next(d for d in yaml.safe_load_all(path.read_text()) if d and d.get("kind") == kind)
    return list(document["rules"])


def _as_rules(rules: list[dict[str, Any]]) -> list[Rule]:
    return [
        Rule(group, tuple(rule["resources"]), tuple(rule["verbs"])) for rule in rules for group in rule["apiGroups"]
    ]


def test_the_checked_permissions_are_the_deployed_roles() -> None:
    assert _as_rules(_rules("ClusterRole")) == list(CLUSTER_ROLE)
    assert sorted(_as_rules(_rules("Role")), key=repr) == sorted([LEASES, CONFIGMAPS], key=repr)


def _env_file(tmp_path: Path, slack: FakeSlack, kubeconfig: Path, **extra: str) -> Path:
    values = {
        "SLACK_BOT_TOKEN": slack.bot_token,
        "SLACK_SIGNING_SECRET": slack.signing_secret,
        "SLACK_API_URL": slack.api_url,
        "KUBECONFIG": str(kubeconfig),
        **extra,
    }
    path = tmp_path / "online.env"
    path.write_text("".join(f"{k}={v}\n" for k, v in values.items()))
    return path


async def _check(env_file: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL", "KUBECONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    out, err = io.StringIO(), io.StringIO()

    def run() -> int:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            return main(["check-config", "--online", "--env-file", str(env_file)])

    status = await asyncio.to_thread(run)  # blocking clients: the stand-ins keep serving on this loop
    return status, out.getvalue(), err.getvalue()


async def test_online_every_check_passes_with_the_deployed_roles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeSlack() as slack, FakeKubeAPI(token=ADMIN_TOKEN) as api:
        api.add_identity(
            BOT_TOKEN_K8S,
            "system:serviceaccount:kueue-bot:kueue-bot",
            _rules("ClusterRole"),
            namespace_rules={"kueue-bot": _rules("Role")},
        )
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig", token=BOT_TOKEN_K8S)
        env_file = _env_file(
            tmp_path, slack, kubeconfig, STATE_URL="kubernetes://", POD_NAMESPACE="kueue-bot", LEADER_ELECTION="true"
        )
        status, out, err = await _check(env_file, monkeypatch)
    assert status == EXIT_OK, out + err
    online = [line for line in out.splitlines() if line.startswith("kueue-bot: ok:")]
    assert [line.split(":")[2].split()[0] for line in online] == ["Slack", "the", "Kueue's", "every"], out
    assert "Slack accepts SLACK_BOT_TOKEN: the bot @" in out
    assert "every permission the bot's roles grant is held (" in out
    assert slack.bot_token not in out + err and BOT_TOKEN_K8S not in out + err


async def test_online_a_refused_token_and_a_missing_permission_are_one_line_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = [r for r in _rules("ClusterRole") if "batch" not in r["apiGroups"]]  # no jobs
    async with FakeSlack() as slack, FakeKubeAPI(token=ADMIN_TOKEN) as api:
        api.add_identity(BOT_TOKEN_K8S, "system:serviceaccount:kueue-bot:kueue-bot", rules)
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig", token=BOT_TOKEN_K8S)
        env_file = _env_file(tmp_path, slack, kubeconfig, SLACK_BOT_TOKEN="xoxb-revoked-0000")
        status, out, err = await _check(env_file, monkeypatch)
    assert status == EXIT_UNAVAILABLE, out + err
    problems = [line for line in err.splitlines() if line.startswith("kueue-bot: problem:")]
    assert problems == [
        f"kueue-bot: problem: Slack ({slack.api_url}) did not accept SLACK_BOT_TOKEN in auth.test: invalid_auth",
        "kueue-bot: problem: this identity may not get, list, watch jobs.batch (cluster-wide); "
        "the bot's Role grants it",
    ], err
    assert "xoxb-revoked-0000" not in out + err


async def test_online_an_unreachable_cluster_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with FakeSlack() as slack, FakeKubeAPI(token=ADMIN_TOKEN) as api:
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        await api.stop()
        env_file = _env_file(tmp_path, slack, kubeconfig)
        status, _, err = await _check(env_file, monkeypatch)
    assert status == EXIT_UNAVAILABLE
    problems = [line for line in err.splitlines() if line.startswith("kueue-bot: problem:")]
    assert len(problems) == 1 and "does not answer" in problems[0], err


async def test_online_slack_out_of_reach_is_said_so_not_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No network to Slack is not a refused token; the checks that could not run are said too."""
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/api/"
    async with FakeSlack() as slack, FakeKubeAPI(token=ADMIN_TOKEN) as api:
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        await api.stop()
        extra = {"SLACK_API_URL": dead, "SLACK_APP_TOKEN": "xapp-1-A0000-0000-socket"}
        env_file = _env_file(tmp_path, slack, kubeconfig, **extra)
        status, _, err = await _check(env_file, monkeypatch)
    assert status == EXIT_UNAVAILABLE, err
    problems = [line for line in err.splitlines() if line.startswith("kueue-bot: problem:")]
    assert problems[0].startswith(f"kueue-bot: problem: could not reach Slack at {dead} to check SLACK_BOT_TOKEN")
    assert "did not accept" not in err
    skipped = [line for line in err.splitlines() if line.startswith("kueue-bot: skipped:")]
    assert len(skipped) == 2, err  # the app token, and Kueue's API with the permissions
    assert "2 online checks failed, 2 not run" in err


def test_online_is_not_run_on_invalid_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-your-bot-token\nSLACK_SIGNING_SECRET=x\n")
    assert main(["check-config", "--online"]) == EXIT_USAGE
