"""An ETA with an interval from a dump alone (`explain --from-file --now --format json`): the CLI has no recorded
history, so the queue's admissions are the ones its Workloads' own records show (tests/eta_backlog.py: a
backlog drained one job every 30 minutes for a day). The queue goes on as it went, so each waiting job's
admission time is known: the interval the bot gives must hold it. The same dump is written into a real
kube-apiserver in tests/real/test_real_scenarios.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from bot.cli import EXIT_OK, main

from tests import eta_backlog
from tests.builders import NOW, stamp


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("backlog") / "cluster.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": eta_backlog.objects()}))
    return path


@pytest.mark.parametrize("waiting", range(eta_backlog.WAITING))
def test_a_backlog_s_own_records_give_an_interval_that_holds_the_next_admission(
    waiting: int, dump: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "explain", f"{eta_backlog.NAMESPACE}/waiting-{waiting}", "--from-file", str(dump),
            "--now", stamp(NOW), "--format", "json",
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == EXIT_OK, captured.err
    answer = json.loads(captured.out)
    assert answer["verdict"] == "waiting-for-quota"
    position = answer["position"]["clusterQueue"]
    eta = answer["eta"]
    assert (eta["status"], eta["position"], eta["admissions"]) == ("estimate", position, eta_backlog.ADMITTED)
    assert eta["lowSeconds"] <= eta_backlog.admitted_in_seconds(position) <= eta["highSeconds"], (position, eta)
    assert eta["highSeconds"] - eta["lowSeconds"] <= eta_backlog.EVERY_MINUTES * 60  # narrower than one admission
