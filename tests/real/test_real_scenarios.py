"""The acceptance scenarios against a real kube-apiserver (issue 12): each dump of tests/data/scenarios is
written into the real server through its API (objects, then their status through `/status`, as Kueue and
the Job controller write them), and `python -m bot explain` reads it back live, as deploy/'s read-only
ClusterRole, and must give the dump's answer.

This needs a server with Kueue's CRDs and **no Kueue manager** (a manager would rewrite the frozen status):
the kit's apiserver mode. The CRDs decide which scenarios can run: a scenario is loaded only when the
server stores the Kueue version the dump is written in (the CRDs' storage version), because without Kueue's
conversion webhook a v1beta1 object read back as v1beta2 would keep its v1beta1 fields unconverted, which
no real cluster serves. So the suite runs twice to cover every scenario (from the project's root):

    # v1beta2 scenarios: upstream Kueue's CRDs (storage v1beta2)
    git --git-dir=/work/.mirror/kubernetes-sigs+kueue/repo archive HEAD config/components/crd/bases \\
        | tar -x -C /tmp/crds
    bash ../shared/real-cluster/cluster.sh wipe && bash ../shared/real-cluster/cluster.sh start apiserver \\
        --crds /tmp/crds/config/components/crd/bases
    # v1beta1 scenarios: the same upstream CRDs with v1beta1 as the only, stored version (the v1beta1-legacy
    # dump comes from a Kueue that already knows `whenCanBorrow: MayStopSearch`; the kit's own v0.14 CRDs
    # refuse it with a 422: "supported values: Borrow, TryNextFlavor")
    .venv/bin/python -m tests.real.crds /tmp/crds/config/components/crd/bases /tmp/crds-v1beta1
    bash ../shared/real-cluster/cluster.sh wipe && bash ../shared/real-cluster/cluster.sh start apiserver \\
        --crds /tmp/crds-v1beta1

What cannot be copied into a real server is said, not hidden: creation timestamps are the server's own (the
loader keeps the dump's creation order a second apart), uids are new (owner references rewritten), and a
status the server refuses is reported in the failure message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.cli import EXIT_OK, main

from tests import eta_backlog
from tests.builders import NOW, stamp
from tests.paths import SCENARIOS
from tests.real.cluster import Cluster, DumpLoader, dump_objects

DURATION = re.compile(r"\d+ ?(s|min|h|d|sec|seconds?|minutes?|hours?|days?)\b")
NAMES = sorted(p.parent.name for p in SCENARIOS.glob("*/expect.yaml"))


def _kueue_version_of(name: str) -> str:
    versions = {
        str(o["apiVersion"]).rpartition("/")[2]
        for o in dump_objects(SCENARIOS / name / "cluster.yaml")
        if str(o.get("apiVersion", "")).startswith("kueue.x-k8s.io/")
    }
    return versions.pop() if len(versions) == 1 else "mixed"


def _storage_version(cluster: Cluster) -> str | None:
    try:
        crd = cluster.admin.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/workloads.kueue.x-k8s.io")
    except Exception:  # noqa: BLE001 - no CRD at all: nothing here can run
        return None
    for version in crd["spec"]["versions"]:
        if version.get("storage"):
            return str(version["name"])
    return None


@pytest.fixture(scope="module")
def storage(cluster: Cluster) -> str:
    if cluster.kueue_running:
        pytest.skip("the Kueue manager runs here and would rewrite the frozen status: use `cluster.sh start apiserver`")
    version = _storage_version(cluster)
    if version is None:
        pytest.skip("no Kueue CRDs on this server")
    return version


def _explain(capsys: pytest.CaptureFixture[str], source: list[str], expect: dict[str, Any]) -> dict[str, Any]:
    query = expect["query"]
    code = main(
        [
            "explain",
            f"{query['namespace']}/{query['name']}",
            "--kind",
            str(query.get("kind", "Job")),
            *source,
            "--now",
            str(expect["now"]),
            "--format",
            "json",
        ]
    )
    captured = capsys.readouterr()
    assert code == EXIT_OK, captured.err
    answer = json.loads(captured.out)
    assert isinstance(answer, dict)
    return answer


@pytest.fixture
def loader(cluster: Cluster) -> Iterator[DumpLoader]:
    yield DumpLoader(cluster)


@pytest.mark.parametrize("name", NAMES)
def test_a_scenario_written_into_a_real_server_reads_back_as_its_dump(
    name: str, storage: str, cluster: Cluster, loader: DumpLoader, capsys: pytest.CaptureFixture[str]
) -> None:
    version = _kueue_version_of(name)
    if version != storage:
        pytest.skip(f"written in {version}; this server stores {storage} (the module's docstring: the other run)")
    expect = yaml.safe_load((SCENARIOS / name / "expect.yaml").read_text())
    dump = _explain(capsys, ["--from-file", str(SCENARIOS / name / "cluster.yaml")], expect)
    loaded = loader.load(SCENARIOS / name / "cluster.yaml")
    try:
        assert not loaded.differences, loaded.differences
        now = loaded.shifted(str(expect["now"]))
        live = _explain(capsys, ["--kubeconfig", str(cluster.reader_path)], {**expect, "now": now})
    finally:
        loader.remove(loaded)
    assert live["verdict"] == expect["verdict"] == dump["verdict"]
    assert live["workload"] == dump["workload"]
    assert live["demand"] == dump["demand"]
    # The dump's pending-workloads summary (the authority for positions) has no live counterpart without a
    # Kueue manager; lengths of time between creations are the server's (the loader's docstring).
    from_summary = dump["position"] is not None and dump["position"].get("source") == "visibility-api"
    if not DURATION.search(dump["headline"]) and not from_summary:
        assert live["headline"] == dump["headline"]
    if dump["position"] is not None and not from_summary:
        assert live["position"] is not None
        for key in ("clusterQueue", "localQueue"):
            assert live["position"][key] == dump["position"][key]


def test_the_loader_leaves_nothing_behind(storage: str, cluster: Cluster, loader: DumpLoader) -> None:
    name = next(n for n in NAMES if _kueue_version_of(n) == storage)
    loaded = loader.load(SCENARIOS / name / "cluster.yaml")
    loader.remove(loaded)
    for namespace in loaded.namespaces:
        left = cluster._items(cluster.kueue_path("workloads", namespace))
        assert left == [], f"{namespace}: {len(left)} Workloads left"
    for path in loaded.cluster_scoped:
        assert not _exists(cluster, path), path


def _exists(cluster: Cluster, path: str) -> bool:
    from bot.kube.client import NotFound

    try:
        cluster.admin.get(path)
    except NotFound:
        return False
    return True


def _backlog_answers(capsys: pytest.CaptureFixture[str], source: list[str], now: str) -> dict[int, dict[str, Any]]:
    """Every waiting job's answer in tests/eta_backlog.py's queue, by its position there."""
    found = {}
    for n in range(eta_backlog.WAITING):
        query = {"namespace": eta_backlog.NAMESPACE, "name": f"waiting-{n}"}
        answer = _explain(capsys, source, {"query": query, "now": now})
        assert answer["verdict"] == "waiting-for-quota", answer
        found[answer["position"]["clusterQueue"]] = answer
    assert sorted(found) == list(range(1, eta_backlog.WAITING + 1))
    return found


def _read_back(cluster: Cluster, path: Path) -> None:
    """The backlog's objects as the server serves them, as `kubectl get -o yaml` writes them."""
    version = f"kueue.x-k8s.io/{cluster.kueue_version}"
    items: list[dict[str, Any]] = []
    for api, kind, collection in (
        (version, "ResourceFlavor", cluster.kueue_path("resourceflavors")),
        (version, "ClusterQueue", cluster.kueue_path("clusterqueues")),
        (version, "LocalQueue", cluster.kueue_path("localqueues", eta_backlog.NAMESPACE)),
        (version, "Workload", cluster.kueue_path("workloads", eta_backlog.NAMESPACE)),
        ("batch/v1", "Job", f"/apis/batch/v1/namespaces/{eta_backlog.NAMESPACE}/jobs"),
    ):
        items += [{"apiVersion": api, "kind": kind, **item} for item in cluster._items(collection)]
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))


def test_an_eta_read_from_a_real_server_s_own_records_holds_as_from_the_dump(
    storage: str, cluster: Cluster, loader: DumpLoader, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An ETA with an interval, read live (deploy/'s read-only ClusterRole) from the admissions the Workloads'
    own records show on a real server (tests/eta_backlog.py: a day of a queue draining its backlog, written with
    their status as Kueue leaves it): it holds the time the job would be admitted as the queue goes, as the
    dump's does, and is exactly what `--from-file` reads from the same objects read back from the server.

    Not the dump's interval to the second: the server stamps creation itself, so the loader moves every time by
    the same arbitrary distance (the module's docstring), and where the admissions fall between the replay's
    10-minute moments (counted from `now` down to the minute) moves with its seconds; for this queue, which admits
    every 30 minutes like a clock, the interval is then 10 or 20 minutes wide (the dump moved by 20 s gives the
    same 20-minute intervals). The waiting jobs were created in the same second: their order among themselves
    (by uid) is the server's, so answers are compared by position."""
    if storage != "v1beta2":
        pytest.skip(f"tests/eta_backlog.py is written in v1beta2; this server stores {storage}")
    dump = tmp_path / "backlog.yaml"
    dump.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": eta_backlog.objects()}))
    from_dump = _backlog_answers(capsys, ["--from-file", str(dump)], stamp(NOW))
    loaded = loader.load(dump)
    try:
        assert not loaded.differences, loaded.differences
        now = loaded.shifted(stamp(NOW))
        live = _backlog_answers(capsys, ["--kubeconfig", str(cluster.reader_path)], now)
        _read_back(cluster, tmp_path / "read-back.yaml")
        read_back = _backlog_answers(capsys, ["--from-file", str(tmp_path / "read-back.yaml")], now)
    finally:
        loader.remove(loaded)
    for position, answer in live.items():
        eta, expected = answer["eta"], from_dump[position]["eta"]
        assert eta["status"] == "estimate" and eta["admissions"] == eta_backlog.ADMITTED, eta
        for key in ("status", "position", "confidence", "admissions", "windowHours", "scope"):
            assert eta[key] == expected[key], (key, eta, expected)
        for found in (eta, expected):
            assert found["lowSeconds"] <= eta_backlog.admitted_in_seconds(position) <= found["highSeconds"], found
            assert found["highSeconds"] - found["lowSeconds"] <= eta_backlog.EVERY_MINUTES * 60, found
        theirs = read_back[position]
        for key in ("verdict", "headline", "position", "eta", "holders"):
            assert answer[key] == theirs[key], (key, answer[key], theirs[key])
