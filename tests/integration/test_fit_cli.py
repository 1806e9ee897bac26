"""`python -m bot fit FILE`: the dry run from a dump and from a live cluster (the real kubernetes client over HTTP
to the fake API server), in English and French; a job taken out of each pending scenario is predicted the
verdict it got once in; files that are not one job, and files or clusters that cannot be read, exit as explain."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from bot.cli import EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE, main

from tests.fakes.kube_api import FakeKubeAPI
from tests.fit_support import pending_scenarios, take_out, write

CONTRACT = ("fits", "verdict", "localQueue", "clusterQueue", "flavors", "demand", "position", "eta", "what_if")


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


@pytest.mark.parametrize("name", pending_scenarios())
def test_a_job_taken_out_of_its_cluster_is_predicted_the_verdict_it_got(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = take_out(name)
    job_file, dump = write(taken, tmp_path)
    code, out, err = _run(
        capsys, "fit", str(job_file), "--from-file", str(dump), "--now", taken.now, "--format", "json"
    )
    assert code == EXIT_OK, err
    answer = json.loads(out)
    assert set(CONTRACT) | {"headline", "steps"} <= set(answer)
    assert answer["verdict"] == taken.expect["verdict"]
    assert answer["fits"] == ("later" if answer["verdict"] == "waiting-for-quota" else "never")
    if answer["fits"] == "later":
        assert answer["position"]["clusterQueue"] >= 1 and answer["flavors"]


@pytest.mark.parametrize("name", ["waiting-for-quota-computed-position", "article-three-cpus", "not-managed"])
def test_the_live_answer_is_the_dump_answer(
    name: str, server: FakeKubeAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = take_out(name)
    job_file, dump = write(taken, tmp_path)
    server.load_dump(dump)
    kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
    common = ("--now", taken.now, "--format", "json")
    code, live, err = _run(capsys, "fit", str(job_file), "--kubeconfig", str(kubeconfig), *common)
    assert code == EXIT_OK, err
    code, read, err = _run(capsys, "fit", str(job_file), "--from-file", str(dump), *common)
    assert code == EXIT_OK, err
    live_answer, dump_answer = json.loads(live), json.loads(read)
    for key in ("fits", "verdict", "localQueue", "clusterQueue", "flavors", "demand"):
        assert live_answer[key] == dump_answer[key], key
    assert (live_answer["position"] or {}).get("clusterQueue") == (dump_answer["position"] or {}).get("clusterQueue")


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", ("Fits: later", "Position:", "The admission path")), ("fr", ("Admissible : plus tard", "chemin"))],
)
def test_the_text_answer_speaks_the_readers_language(
    language: str, words: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = take_out("cohort-borrowing-waits")
    job_file, dump = write(taken, tmp_path)
    code, out, err = _run(
        capsys, "fit", str(job_file), "--from-file", str(dump), "--now", taken.now, "--lang", language
    )
    assert code == EXIT_OK, err
    for word in words:
        assert word in out


def test_the_job_can_come_on_stdin_with_its_namespace_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = take_out("article-three-cpus")
    job_file, dump = write(taken, tmp_path)
    text = job_file.read_text().replace("namespace: equipe-data", "")
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    code, out, err = _run(capsys, "fit", "-", "-n", "equipe-data", "--from-file", str(dump), "--format", "json")
    assert code == EXIT_OK, err
    assert json.loads(out)["verdict"] == "exceeds-max-quota"


@pytest.mark.parametrize(
    ("content", "code", "said"),
    [
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", EXIT_USAGE, "not a job kind"),
        ("kind: Job\nmetadata: {name: a}\n---\nkind: Job\nmetadata: {name: b}\n", EXIT_USAGE, "2 documents"),
        ("kind: Frob\nmetadata: {name: a}\n", EXIT_USAGE, "Frob"),
        (None, EXIT_UNAVAILABLE, "no such file"),
    ],
)
def test_a_file_that_is_not_one_job_or_is_not_there_is_one_line(
    content: str | None, code: int, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job_file = tmp_path / "job.yaml"
    if content is not None:
        job_file.write_text(content)
    taken = take_out("article-three-cpus")
    _, dump = write(taken, tmp_path)
    got, out, err = _run(capsys, "fit", str(job_file), "--from-file", str(dump))
    assert (got, out) == (code, "")
    assert said in err and err.count("\n") == 1


def test_an_unreadable_dump_exits_3_and_a_bad_language_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = take_out("article-three-cpus")
    job_file, dump = write(taken, tmp_path)
    assert _run(capsys, "fit", str(job_file), "--from-file", str(tmp_path / "nope.yaml"))[0] == EXIT_UNAVAILABLE
    assert _run(capsys, "fit", str(job_file), "--from-file", str(dump), "--lang", "xx")[0] == EXIT_USAGE


def test_help_says_what_fit_does(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["fit", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "Will it fit" in out and "--from-file" in out and "exit status" in out
