"""`explain NAME` without a namespace searches the namespaces the identity may read (as Slack does), on a live
cluster (the real kubernetes client over HTTP to the fake API server, deploy/'s read-only ClusterRole) and on a
dump; one match is explained, several are offered, none is one clear line."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from bot.cli import EXIT_NOT_FOUND, EXIT_OK, main

from tests.fakes.kube_api import FakeKubeAPI
from tests.fakes.kube_rbac import rules_from_cluster_role
from tests.paths import SCENARIOS

ROOT = Path(__file__).resolve().parents[2]
CLUSTER_ROLE = ROOT / "deploy" / "kustomize" / "base" / "clusterrole.yaml"
DUMP = SCENARIOS / "article-three-cpus" / "cluster.yaml"
NOW = "2026-10-14T10:30:00Z"


@pytest.fixture
def server() -> Iterator[FakeKubeAPI]:
    api = FakeKubeAPI(token="admin-token")
    handle = api.start_in_thread()
    try:
        yield api
    finally:
        handle.stop()


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _twin(server: FakeKubeAPI) -> None:
    """The same job name in a second namespace."""
    server.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "equipe-ops"}})
    job = copy.deepcopy(server.get("Job", "equipe-data", "train-octobre"))
    assert job is not None
    job["metadata"] = {"name": "train-octobre", "namespace": "equipe-ops", "labels": job["metadata"].get("labels", {})}
    job.pop("status", None)
    server.add(job)


def test_one_match_is_explained_with_the_read_only_identity(
    server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.load_dump(DUMP)
    server.add_identity("bot-token", "system:serviceaccount:kueue-bot:kueue-bot", rules_from_cluster_role(CLUSTER_ROLE))
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig", token="bot-token")
    server.clear_requests()
    code, out, err = _run(capsys, "explain", "train-octobre", "--kubeconfig", str(kubeconfig), "--format", "json")
    assert code == EXIT_OK, err
    assert json.loads(out)["verdict"] == "exceeds-max-quota"
    assert "found in namespace equipe-data" in err
    assert {r.method for r in server.requests} == {"GET"}


def test_several_matches_are_offered(server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server.load_dump(DUMP)
    _twin(server)
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
    code, out, err = _run(capsys, "explain", "train-octobre", "--kubeconfig", str(kubeconfig))
    assert code == EXIT_NOT_FOUND
    assert out == ""
    assert "equipe-data/train-octobre" in err and "equipe-ops/train-octobre" in err
    assert "-n equipe-ops" in err


def test_no_match_is_one_clear_line(server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server.load_dump(DUMP)
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
    code, out, err = _run(capsys, "explain", "no-such-job", "--kubeconfig", str(kubeconfig))
    assert code == EXIT_NOT_FOUND
    assert out == ""
    assert err.strip().splitlines() == ["kueue-bot: no job named no-such-job in any namespace this identity may read"]


def test_a_dump_is_searched_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys, "explain", "train-octobre", "--from-file", str(DUMP), "--now", NOW, "--format", "json"
    )
    assert code == EXIT_OK, err
    assert json.loads(out)["job"]["namespace"] == "equipe-data"
    documents = list(yaml.safe_load_all(DUMP.read_text()))
    jobs = [d for d in documents if isinstance(d, dict) and d.get("kind") == "Job"]
    assert jobs, "the scenario has its Job"
    twin = copy.deepcopy(jobs[0])
    twin["metadata"] = {"name": twin["metadata"]["name"], "namespace": "equipe-ops"}
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "equipe-ops"}}
    two = tmp_path / "two.yaml"
    two.write_text(yaml.safe_dump_all([*documents, namespace, twin]))
    code, out, err = _run(capsys, "explain", "train-octobre", "--from-file", str(two), "--now", NOW)
    assert code == EXIT_NOT_FOUND
    assert "equipe-ops/train-octobre" in err and "equipe-data/train-octobre" in err


def test_cluster_names_a_cluster_of_clusters_or_a_context(
    server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--cluster NAME` as the bot's CLUSTERS names it (the README's word), else a kubeconfig context."""
    server.load_dump(DUMP)
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
    monkeypatch.setenv("CLUSTERS", f"lab=file:{kubeconfig}")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    code, out, err = _run(capsys, "explain", "equipe-data/train-octobre", "--cluster", "lab", "--format", "json")
    assert code == EXIT_OK, err
    assert json.loads(out)["verdict"] == "exceeds-max-quota"
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    code, _, err = _run(capsys, "explain", "equipe-data/train-octobre", "--cluster", "elsewhere")
    assert "--cluster elsewhere: not in CLUSTERS, used as the kubeconfig context elsewhere" in err
    assert code == 3  # no such context: one clear line, exit 3
