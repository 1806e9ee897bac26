"""A view that holds one namespace's Workloads and LocalQueues (namespace-only read access, issue 12):
its computed queue position is a lower bound and is said to be one, in the steps, the Slack summary and
the terminal, in English and in French; a view of every namespace is unchanged."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import yaml
from bot.kube.decode import decode
from bot.slack import render
from bot.terminal import render_text
from bot.trace.explain import Query, explain
from bot.trace.explanation import LOWER_BOUND, Explanation
from bot.trace.model import LocalQueue, Workload
from bot.trace.serialize import text
from bot.trace.snapshot import MemorySnapshot

from tests.paths import SCENARIOS

SCENARIO = SCENARIOS / "waiting-for-quota-computed-position"

NOW = datetime(2026, 11, 3, 9, 41, tzinfo=UTC)
QUERY = Query("ml-vision", "segformer-finetune", "Job")


def _decoded(document: object) -> list[object]:
    if not isinstance(document, dict):
        return []
    items = document.get("items") if document.get("kind") == "List" else [document]
    return [o for item in items or () for o in decode(item)]


def _objects(*, only: str | None) -> list[object]:
    everything = [o for raw in yaml.safe_load_all((SCENARIO / "cluster.yaml").read_text()) for o in _decoded(raw)]
    if only is None:
        return everything
    return [o for o in everything if not isinstance(o, Workload | LocalQueue) or o.meta.namespace == only]


def _explain(*, scope: str | None) -> Explanation:
    return explain(MemorySnapshot(_objects(only=scope), read_scope=scope), QUERY, now=NOW)


def test_every_namespace_read_the_position_is_the_queue_s() -> None:
    position = _explain(scope=None).position
    assert position is not None
    assert (position.cluster_queue, position.source, position.pending_total) == (3, "computed", 5)


@pytest.mark.parametrize(
    ("language", "step", "summary", "terminal"),
    [
        pytest.param(
            "en",
            "Position 2 or further back in ClusterQueue gpu-a100-shared",
            "2nd or further back in ClusterQueue `gpu-a100-shared` (only namespace `ml-vision` could be read)",
            "2 or further back in ClusterQueue gpu-a100-shared",
            id="en",
        ),
        pytest.param(
            "fr",
            "Position 2 ou plus loin dans la ClusterQueue gpu-a100-shared",
            "ou plus loin dans la ClusterQueue `gpu-a100-shared` (seul le namespace `ml-vision` a pu être lu)",
            "2 ou plus loin dans la ClusterQueue gpu-a100-shared",
            id="fr",
        ),
    ],
)
def test_one_namespace_read_the_position_is_said_to_be_a_lower_bound(
    language: str, step: str, summary: str, terminal: str
) -> None:
    explanation = _explain(scope="ml-vision")
    position = explanation.position
    assert position is not None
    assert (position.cluster_queue, position.source, position.scope) == (2, LOWER_BOUND, "ml-vision")
    assert position.pending_total is None and position.ahead is not None and position.ahead.by_priority is None
    steps = [text(s.text, language) for s in explanation.steps if s.step == "position"]
    assert len(steps) == 1 and steps[0].startswith(step)
    assert "Position" not in text(explanation.headline, language)  # the headline states no position
    message = render.answer_summary(explanation, language=language)
    assert summary in str(message)
    assert terminal in render_text(explanation, language=language)
    cluster_queue = next(s for s in explanation.steps if s.step == "cluster-queue")
    assert "LocalQueue" not in text(cluster_queue.text, language)  # one namespace's LocalQueues are not counted
