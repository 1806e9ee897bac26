"""The README's dump recipe, run literally with the real kubectl against the fake API server (issue #15, item 2).

The recipe appends a second `kubectl get -o yaml` to the first; two `kind: List` documents without a `---`
between them used to read as one mapping whose second `items` won, and the Job was "not found". The file must
be read whole, with the recipe's `echo ---` and without it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from bot.kube.dump import parse_text

from tests.builders import cluster, pending
from tests.fakes.kube_api import FakeKubeAPI
from tests.paths import ROOT

KUBECTL = shutil.which("kubectl")


def _recipe() -> list[str]:
    """The README's lines that write cluster.yaml, as they are printed there."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [line for line in readme.splitlines() if re.search(r"(>|>>) cluster\.yaml$", line)]
    assert any(line.startswith("kubectl get") and " > cluster.yaml" in line for line in lines), lines
    return lines


@pytest.fixture
def server() -> Iterator[FakeKubeAPI]:
    api = FakeKubeAPI()  # no token: kubectl sends no bearer token over plain http
    for obj in [*cluster(), *pending("train-bert")]:
        api.add(obj)
    handle = api.start_in_thread()
    try:
        yield api
    finally:
        handle.stop()


def _explain(dump: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "explain", "team-a/train-bert", "--from-file", str(dump), "--format", "json",
         "--now", "2026-10-14T10:30:00Z"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    answer = json.loads(done.stdout)
    assert isinstance(answer, dict)
    return answer


@pytest.mark.skipif(KUBECTL is None, reason="no kubectl on PATH")
@pytest.mark.parametrize("with_separator", [True, False], ids=["as-printed", "without-the-echo"])
def test_the_readme_recipe_gives_the_whole_cluster(server: FakeKubeAPI, tmp_path: Path, with_separator: bool) -> None:
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
    lines = [line for line in _recipe() if with_separator or not line.startswith("echo")]
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "HOME": str(tmp_path)}  # kubectl caches under HOME
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", "\n".join(lines)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "cluster.yaml").read_text()
    assert text.count("kind: List") == 2
    snapshot = parse_text(text).snapshot
    assert snapshot.jobs_named("team-a", "train-bert") and snapshot.workloads_in("team-a")
    assert snapshot.local_queue("team-a", "user-queue") and snapshot.cluster_queue("cq") and snapshot.flavor("default")
    assert [ns.meta.name for ns in snapshot.namespaces()] == ["team-a"]
    answer = _explain(tmp_path / "cluster.yaml")
    assert answer["job"] == {"kind": "Job", "namespace": "team-a", "name": "train-bert"}
    assert answer["verdict"] != "not-found"


def test_appended_lists_and_appended_json_are_read_whole() -> None:
    first = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\nkind: List\n"
    second = first.replace("name: a", "name: b")
    assert {ns.meta.name for ns in parse_text(first + second).snapshot.namespaces()} == {"a", "b"}
    as_json = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}})
    joined = as_json + "\n" + as_json.replace('"a"', '"b"')
    assert {ns.meta.name for ns in parse_text(joined).snapshot.namespaces()} == {"a", "b"}
