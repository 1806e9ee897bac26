"""Issue 15 item 6: words as people write them. Durations and times ago in each language (test_copy), the
queue view's numbers named, `explain NAME -n NS` as kubectl and Slack take it, `--lang de` refused in one
line, and the not-found hint naming the kind that was asked for."""

from __future__ import annotations

from pathlib import Path

import pytest
from bot.cli import main
from bot.demo.source import MOMENTS, load_moment
from bot.slack.render import queue_view
from bot.trace.explain import Query, explain
from bot.trace.queueview import describe_queue
from bot.trace.serialize import text

ROOT = Path(__file__).resolve().parents[2]
DUMP = str(ROOT / "tests" / "data" / "scenarios" / "article-three-cpus" / "cluster.yaml")
NOW = "2026-10-14T10:30:00Z"


def _explain(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["explain", *args, "--from-file", DUMP, "--now", NOW])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_explain_takes_name_dash_n_namespace_as_kubectl_does(capsys: pytest.CaptureFixture[str]) -> None:
    slashed = _explain(capsys, "equipe-data/train-octobre")
    assert slashed[0] == 0 and "exceeds-max-quota" in slashed[1]
    assert _explain(capsys, "train-octobre", "-n", "equipe-data") == slashed
    assert _explain(capsys, "--namespace", "equipe-data", "job/train-octobre") == slashed


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ("a/b/c/d",),
            "kueue-bot: expected NAME, NAMESPACE/NAME or NAME -n NAMESPACE, got 'a/b/c/d'\n",
        ),
        (
            ("equipe-data/train-octobre", "-n", "other"),
            "kueue-bot: with -n other, name the job as NAME or KIND/NAME, not 'equipe-data/train-octobre'\n",
        ),
        (("equipe-data/train-octobre", "--lang", "de"), "kueue-bot: --lang 'de': kueue-bot speaks en or fr\n"),
    ],
    ids=["too-many-parts", "two-namespaces", "lang-de"],
)
def test_bad_usage_is_one_line(capsys: pytest.CaptureFixture[str], args: tuple[str, ...], line: str) -> None:
    assert _explain(capsys, *args) == (2, "", line)


@pytest.mark.parametrize(
    ("kind", "language", "hint"),
    [
        ("RayJob", "en", "kubectl get rayjobs -n equipe-data"),
        ("PyTorchJob", "fr", "kubectl get pytorchjobs -n equipe-data"),
        (None, "en", "kubectl get jobs -n equipe-data"),
    ],
)
def test_the_not_found_hint_names_the_kind_asked_for(
    capsys: pytest.CaptureFixture[str], kind: str | None, language: str, hint: str
) -> None:
    args = ["equipe-data/no-such-job", "--lang", language, *(["--kind", kind] if kind else [])]
    status, out, err = _explain(capsys, *args)
    assert status == 1 and out == ""
    assert hint in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize(
    ("language", "cohort", "borrowed", "alone"),
    [
        ("en", "free with the cohort `ml-gpu-pool` 2", "in use 14 (6 borrowed)", "(no cohort to borrow from)"),
        (
            "fr",
            "libre avec la cohorte `ml-gpu-pool` 2",
            "utilisé 14 (dont 6 emprunté)",
            "(pas de cohorte où emprunter)",
        ),
    ],
)
def test_the_queue_view_says_what_its_numbers_are(language: str, cohort: str, borrowed: str, alone: str) -> None:
    snapshot = load_moment(MOMENTS[2])  # 11:00: vision-gpu borrows GPUs from ml-nlp
    shown = str(queue_view(describe_queue(snapshot, "ml-vision", "default"), language=language, show_names=True))
    gpu = next(line for line in shown.split("\\n") if "nvidia.com/gpu" in line and "nominal" in line)
    assert cohort in gpu and borrowed in gpu, gpu
    alone_view = queue_view(describe_queue(snapshot, "equipe-data", "default"), language=language, show_names=True)
    assert alone in str(alone_view) and "cohort ml" not in str(alone_view)


def test_times_ago_read_as_people_say_them() -> None:
    snapshot = load_moment(MOMENTS[0])
    explanation = explain(snapshot, Query("ml-vision", "vit-large-finetune"), now=MOMENTS[0].at)
    found = text(explanation.steps[0].text, "en")
    assert found.endswith("created 41 min ago."), found
    assert text(explanation.steps[0].text, "fr").endswith("créé il y a 41 min."), found
