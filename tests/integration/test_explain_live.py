"""`python -m bot explain` on a live cluster: the real kubernetes client over HTTP to the fake API server.

The same scenarios as the dumps, served by the fake; the answer must be the dump's answer. Identities are
checked like a real server's: the bot's read-only ClusterRole from deploy/ is enough; missing rights,
a wrong token, no Kueue and no server each give one clear line and a non-zero exit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from bot.cli import EXIT_NOT_FOUND, EXIT_OK, EXIT_UNAVAILABLE, main

from tests.fakes.kube_api import FakeKubeAPI
from tests.fakes.kube_rbac import rules_from_cluster_role
from tests.paths import SCENARIOS

ROOT = Path(__file__).resolve().parents[2]
CLUSTER_ROLE = ROOT / "deploy" / "kustomize" / "base" / "clusterrole.yaml"
NAMES = sorted(p.parent.name for p in SCENARIOS.glob("*/expect.yaml"))


def _expect(name: str) -> dict[str, object]:
    import yaml

    data = yaml.safe_load((SCENARIOS / name / "expect.yaml").read_text())
    assert isinstance(data, dict)
    return data


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def server() -> Iterator[FakeKubeAPI]:
    api = FakeKubeAPI(token="admin-token")
    handle = api.start_in_thread()
    try:
        yield api
    finally:
        handle.stop()


def _explain_json(capsys: pytest.CaptureFixture[str], kubeconfig: Path, expect: dict[str, object]) -> dict[str, object]:
    query = expect["query"]
    assert isinstance(query, dict)
    code, out, err = _run(
        capsys,
        "explain",
        f"{query['namespace']}/{query['name']}",
        "--kind",
        str(query.get("kind", "Job")),
        "--kubeconfig",
        str(kubeconfig),
        "--now",
        str(expect["now"]),
        "--format",
        "json",
    )
    assert code == EXIT_OK, err
    answer = json.loads(out)
    assert isinstance(answer, dict)
    return answer


@pytest.mark.parametrize("name", NAMES)
def test_live_answer_is_the_dump_answer(
    name: str, server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.load_dump(SCENARIOS / name / "cluster.yaml")
    expect = _expect(name)
    live = _explain_json(capsys, server.write_kubeconfig(tmp_path / "kubeconfig"), expect)
    query = expect["query"]
    assert isinstance(query, dict)
    code, out, err = _run(
        capsys,
        "explain",
        f"{query['namespace']}/{query['name']}",
        "--kind",
        str(query.get("kind", "Job")),
        "--from-file",
        str(SCENARIOS / name / "cluster.yaml"),
        "--now",
        str(expect["now"]),
        "--format",
        "json",
    )
    assert code == EXIT_OK, err
    dump = json.loads(out)
    assert live["verdict"] == expect["verdict"] == dump["verdict"]
    assert live["workload"] == dump["workload"]
    assert live["demand"] == dump["demand"]
    if dump["position"] is not None:
        assert live["position"] is not None
        for key in ("clusterQueue", "localQueue"):
            assert live["position"][key] == dump["position"][key]  # type: ignore[index]


def test_a_read_only_identity_bound_to_the_deploy_cluster_role_is_enough(
    server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.load_dump(SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml")
    server.add_identity("bot-token", "system:serviceaccount:kueue-bot:kueue-bot", rules_from_cluster_role(CLUSTER_ROLE))
    server.clear_requests()
    expect = _expect("waiting-for-quota-computed-position")
    answer = _explain_json(capsys, server.write_kubeconfig(tmp_path / "kubeconfig", token="bot-token"), expect)
    assert answer["verdict"] == "waiting-for-quota"
    assert answer["position"]["source"] == "visibility-api"  # type: ignore[index]
    assert answer["position"]["clusterQueue"] == 3  # type: ignore[index]
    assert {r.method for r in server.requests} == {"GET"}, "explain must only read"


def test_what_the_identity_may_not_read_is_left_out_and_said(
    server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nodes, pods, events and the pending-workloads API are optional: the answer comes without them."""
    server.load_dump(SCENARIOS / "article-three-cpus" / "cluster.yaml")
    rules = [
        {"apiGroups": ["kueue.x-k8s.io"], "resources": ["*"], "verbs": ["get", "list"]},
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list"]},
        {"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get"]},
    ]
    server.add_identity("user-token", "alice", rules)
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig", token="user-token")
    code, out, err = _run(capsys, "explain", "equipe-data/train-octobre", "--kubeconfig", str(kubeconfig))
    assert code == EXIT_OK
    assert "Verdict: exceeds-max-quota" in out
    assert "note: pods not read" in err and "note: nodes not read" in err


def test_no_such_job_is_one_clear_line_and_exit_1(
    server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.load_dump(SCENARIOS / "article-three-cpus" / "cluster.yaml")
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
    code, out, err = _run(capsys, "explain", "equipe-data/train-octobr", "--kubeconfig", str(kubeconfig))
    assert code == EXIT_NOT_FOUND
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "train-octobre" in err  # did you mean


def test_a_wrong_token_is_refused_clearly(
    server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.load_dump(SCENARIOS / "article-three-cpus" / "cluster.yaml")
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig", token="not-the-token")
    code, out, err = _run(capsys, "explain", "equipe-data/train-octobre", "--kubeconfig", str(kubeconfig))
    assert code == EXIT_UNAVAILABLE
    assert out == ""
    assert "401" in err and len(err.strip().splitlines()) == 1


def test_an_identity_without_rights_is_told_it_is_forbidden(
    server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.add_identity("nobody-token", "nobody", [])
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig", token="nobody-token")
    code, _, err = _run(capsys, "explain", "equipe-data/train-octobre", "--kubeconfig", str(kubeconfig))
    assert code == EXIT_UNAVAILABLE
    assert "forbidden" in err.lower() and 'User "nobody"' in err
    assert len(err.strip().splitlines()) == 1


def test_a_cluster_without_kueue_is_said_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    api = FakeKubeAPI(token="t", kueue_versions=())
    handle = api.start_in_thread()
    try:
        code, _, err = _run(
            capsys, "explain", "ns/job", "--kubeconfig", str(api.write_kubeconfig(tmp_path / "kubeconfig"))
        )
    finally:
        handle.stop()
    assert code == EXIT_UNAVAILABLE
    assert "Kueue" in err and "not serve" in err


def test_an_old_cluster_serving_only_v1beta1_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    api = FakeKubeAPI(token="t", kueue_versions=("v1beta1",))
    handle = api.start_in_thread()
    try:
        api.load_dump(SCENARIOS / "v1beta1-legacy" / "cluster.yaml")
        answer = _explain_json(capsys, api.write_kubeconfig(tmp_path / "kubeconfig"), _expect("v1beta1-legacy"))
    finally:
        handle.stop()
    assert answer["verdict"] == "waiting-for-quota"
    assert answer["position"]["clusterQueue"] == 4  # type: ignore[index]


def test_a_missing_job_kind_is_said_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    api = FakeKubeAPI(token="t", job_kinds=())  # no optional job CRD installed
    handle = api.start_in_thread()
    try:
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        code, _, err = _run(capsys, "explain", "ns/x", "--kind", "SparkApplication", "--kubeconfig", str(kubeconfig))
    finally:
        handle.stop()
    assert code == EXIT_UNAVAILABLE
    assert "SparkApplication" in err and len(err.strip().splitlines()) == 1


def test_no_server_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:9'}}]\n"
        "users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
        "current-context: x\n"
    )
    code, out, err = _run(capsys, "explain", "ns/job", "--kubeconfig", str(kubeconfig))
    assert code == EXIT_UNAVAILABLE
    assert out == "" and "cannot reach" in err and len(err.strip().splitlines()) == 1


def test_no_kubeconfig_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "explain", "ns/job", "--kubeconfig", str(tmp_path / "missing"))
    assert code == EXIT_UNAVAILABLE
    assert len(err.strip().splitlines()) == 1


# --- one namespace's Workloads only (issue 12, item 2) ----------------------------------------------------

_CLUSTER_KINDS = {
    "apiGroups": ["kueue.x-k8s.io"],
    "resources": ["clusterqueues", "resourceflavors", "admissionchecks", "workloadpriorityclasses", "cohorts"],
    "verbs": ["get", "list"],
}
_IN_NAMESPACE = [
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads", "localqueues"], "verbs": ["get", "list"]},
    {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list"]},
]
_PENDING_IN_NAMESPACE = {
    "apiGroups": ["visibility.kueue.x-k8s.io"],
    "resources": ["localqueues/pendingworkloads"],
    "verbs": ["get"],
}


def _namespace_reader(server: FakeKubeAPI, tmp_path: Path, *, pending_api: bool) -> Path:
    """ml-vision's Workloads and LocalQueues only (a RoleBinding there), the cluster-scoped kinds everywhere.
    ml-nlp/llm-eval-suite-xl, first in the ClusterQueue, is out of its sight."""
    server.load_dump(SCENARIOS / "waiting-for-quota-computed-position" / "cluster.yaml")
    rules = [*_IN_NAMESPACE, _PENDING_IN_NAMESPACE] if pending_api else _IN_NAMESPACE
    server.add_identity("reader-token", "reader", [_CLUSTER_KINDS], namespace_rules={"ml-vision": rules})
    return server.write_kubeconfig(tmp_path / "kubeconfig", token="reader-token")


def _explain(capsys: pytest.CaptureFixture[str], kubeconfig: Path, *extra: str) -> tuple[str, str]:
    code, out, err = _run(
        capsys,
        "explain",
        "ml-vision/segformer-finetune",
        "--kubeconfig",
        str(kubeconfig),
        "--now",
        "2026-11-03T09:41:00Z",
        *extra,
    )
    assert code == EXIT_OK, err
    return out, err


def test_one_namespace_only_takes_the_position_from_the_pending_workloads_api(
    server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The LocalQueue endpoint is namespace-scoped: it gives the true place in the ClusterQueue (3rd: a
    Workload of ml-nlp is ahead), where the Workloads of ml-vision alone would say 2nd."""
    out, _ = _explain(capsys, _namespace_reader(server, tmp_path, pending_api=True), "--format", "json")
    position = json.loads(out)["position"]
    assert (position["clusterQueue"], position["localQueue"], position["source"]) == (3, 2, "visibility-api")
    assert position.get("pendingInClusterQueue") is None  # one namespace cannot count the whole queue


def test_one_namespace_only_without_the_api_says_the_position_is_a_lower_bound(
    server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kubeconfig = _namespace_reader(server, tmp_path, pending_api=False)
    out, err = _explain(capsys, kubeconfig)
    assert "workloads.kueue.x-k8s.io read in namespace ml-vision only" in err
    assert "Position 2 or further back in ClusterQueue gpu-a100-shared" in out
    assert "only namespace ml-vision's Workloads could be read" in out
    assert "Position 2 in the queue" not in out and "LocalQueue(s) feed it" not in out
    answer = json.loads(_explain(capsys, kubeconfig, "--format", "json")[0])
    assert (answer["position"]["clusterQueue"], answer["position"]["source"]) == (2, "namespace-lower-bound")


def _asked_workload_changed(server: FakeKubeAPI, change: Callable[[dict[str, Any]], None]) -> dict[str, object]:
    """The scenario waiting-for-quota-computed-position on the fake, its asked job's Workload replaced by one
    `change` made (unchecked by the fake, as a server that does not validate keeps it); its expect.yaml."""
    name = "waiting-for-quota-computed-position"
    expect = _expect(name)
    objects = server.load_dump(SCENARIOS / name / "cluster.yaml")
    workload = next(o for o in objects if o["kind"] == "Workload" and o["metadata"]["name"] == expect["workload"])
    server.delete("Workload", workload["metadata"]["namespace"], workload["metadata"]["name"])
    change(workload)
    del workload["metadata"]["resourceVersion"]
    server.add_all([workload], validate=False)
    return expect


def test_a_workload_beyond_kueues_bounds_is_named_unreadable_on_a_live_cluster(
    server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A server that does not validate (the fake, told not to) holds the asked job's Workload with 30 pod sets
    # (Kueue keeps 18). Fails if the answer is "Kueue has created no Workload for it" (the Workload skipped
    # without a word) rather than that Workload named as unreadable.
    def thirty_pod_sets(workload: dict[str, Any]) -> None:
        pod_set = workload["spec"]["podSets"][0]
        workload["spec"]["podSets"] = [{**pod_set, "name": f"p{i}"} for i in range(30)]

    expect = _asked_workload_changed(server, thirty_pod_sets)
    answer = _explain_json(capsys, server.write_kubeconfig(tmp_path / "kubeconfig"), expect)
    assert answer["verdict"] == "object-unreadable"
    assert str(expect["workload"]) in json.dumps(answer["headline"]) and "at most 18" in json.dumps(answer["headline"])


def test_a_workload_with_text_that_is_not_unicode_is_named_unreadable_on_a_live_cluster(
    server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The asked job's Workload holds a lone surrogate (escaped, as a proxy or another server may write it; the
    # strict parser refuses the page, the standard one reads it). Fails if the answer is not that Workload named
    # as unreadable (its text is not Unicode: it cannot be shown or posted).
    def lone_surrogate(workload: dict[str, Any]) -> None:
        workload["metadata"].setdefault("annotations", {})["note"] = "broken \ud800 text"

    expect = _asked_workload_changed(server, lone_surrogate)
    answer = _explain_json(capsys, server.write_kubeconfig(tmp_path / "kubeconfig"), expect)
    assert answer["verdict"] == "object-unreadable"
    assert str(expect["workload"]) in json.dumps(answer["headline"]) and "Unicode" in json.dumps(answer["headline"])
