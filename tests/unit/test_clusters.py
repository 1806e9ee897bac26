"""Several clusters (issue 17, item 1): CLUSTERS and its scoped CHANNEL_NAMESPACES, and how a question names
its cluster. Without CLUSTERS nothing changes (a `cluster/ns` entry is still refused)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from bot.clusters import (
    ClusterSpec,
    Scoped,
    default_cluster,
    namespaces_in,
    parse_clusters,
    scope_question,
)
from bot.config import load_settings
from bot.errors import ConfigError
from bot.multicluster import _KINDS

CLUSTERS = ("prod-eu", "prod-us")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("prod-eu/ml-vision/train", Scoped("prod-eu", "ml-vision/train"), id="cluster/ns/name"),
        pytest.param("why prod-us/a/rayjob/x", Scoped("prod-us", "why a/rayjob/x"), id="cluster/ns/kind/name"),
        pytest.param("prod-eu/job/train", Scoped(None, "prod-eu/job/train"), id="ns/kind/name-stays"),
        pytest.param("train --cluster prod-us", Scoped("prod-us", "train"), id="--cluster"),
        pytest.param("--cluster=prod-eu train", Scoped("prod-eu", "train"), id="--cluster="),
        pytest.param("--cluster nope train", Scoped(None, "train", "nope"), id="unknown-cluster"),
        pytest.param("other/ns/name", Scoped(None, "other/ns/name"), id="not-a-cluster"),
    ],
)
def test_a_question_names_its_cluster(text: str, expected: Scoped) -> None:
    assert scope_question(text, CLUSTERS, _KINDS) == expected


def test_without_clusters_the_text_is_untouched() -> None:
    assert scope_question("  prod-eu/ml-vision/train  --cluster x", (), _KINDS).text == (
        "  prod-eu/ml-vision/train  --cluster x"
    )


def test_clusters_are_parsed_with_each_problem_said() -> None:
    problems: list[str] = []
    specs = parse_clusters(
        "eu=context:prod-eu; us=file:/etc/kb/us@ctx ;here=in-cluster;bad;x=foo:1;eu=in-cluster", problems
    )
    assert specs == (
        ClusterSpec("eu", "context", context="prod-eu"),
        ClusterSpec("us", "file", context="ctx", path="/etc/kb/us"),
        ClusterSpec("here", "in-cluster"),
    )
    assert len(problems) == 3 and "eu is named twice" in problems[2]


def test_channel_namespaces_per_cluster() -> None:
    visible = ("prod-eu/team-a", "shared", "prod-us/team-b")
    assert namespaces_in(visible, "prod-eu") == ("team-a", "shared")
    assert namespaces_in(visible, "prod-us") == ("shared", "team-b")
    assert namespaces_in(None, "prod-eu") is None
    assert default_cluster(visible) == "prod-eu" and default_cluster(("shared",)) is None


def test_settings_take_clusters_and_scoped_channel_entries() -> None:
    settings = load_settings(
        {"CLUSTERS": "prod-eu=context:eu;prod-us=in-cluster", "CHANNEL_NAMESPACES": "C0123ABCD=prod-eu/team-a,shared"},
        env_file=None,
        require_slack=False,
    )
    assert [c.name for c in settings.clusters] == ["prod-eu", "prod-us"]
    assert settings.namespaces_for_channel("C0123ABCD") == ("prod-eu/team-a", "shared")
    assert settings.masked()["CLUSTERS"] == "prod-eu=context:eu; prod-us=in-cluster"


@pytest.mark.parametrize(
    "environ",
    [
        pytest.param({"CHANNEL_NAMESPACES": "C0123ABCD=prod-eu/team-a"}, id="scoped-entry-without-clusters"),
        pytest.param(
            {"CLUSTERS": "prod-eu=in-cluster", "CHANNEL_NAMESPACES": "C0123ABCD=prod-us/team-a"}, id="unknown-cluster"
        ),
    ],
)
def test_a_scoped_entry_needs_its_cluster(environ: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match="CHANNEL_NAMESPACES"):
        load_settings(environ, env_file=None, require_slack=False)


KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- {name: a, cluster: {server: "http://127.0.0.1:1"}}
- {name: b, cluster: {server: "http://127.0.0.1:2"}}
users:
- {name: u, user: {token: t}}
contexts:
- {name: ctx-a, context: {cluster: a, user: u}}
- {name: ctx-b, context: {cluster: b, user: u}}
current-context: ctx-a
"""


def test_each_cluster_gets_its_own_source_and_a_broken_one_stays_unavailable(tmp_path: Path) -> None:
    from bot.kube.sources import UnreachableSource, cluster_sources

    config = tmp_path / "kubeconfig"
    config.write_text(KUBECONFIG)
    settings = load_settings(
        {
            "KUBECONFIG": str(config),
            "CLUSTERS": f"eu=context:ctx-b;us=file:{config};gone=file:{tmp_path / 'missing'}",
        },
        env_file=None,
        require_slack=False,
    )
    sources, first = cluster_sources(settings, lambda: datetime(2026, 11, 3, tzinfo=UTC))
    try:
        assert list(sources) == ["eu", "us", "gone"] and first is not None
        assert isinstance(sources["gone"], UnreachableSource) and not sources["gone"].ready
        assert not isinstance(sources["eu"], UnreachableSource)
        assert sources["eu"].cache.client.api_client.configuration.host == "http://127.0.0.1:2"
        assert not isinstance(sources["us"], UnreachableSource)
        assert sources["us"].cache.client.api_client.configuration.host == "http://127.0.0.1:1"
    finally:
        for source in sources.values():
            if not isinstance(source, UnreachableSource):
                source.cache.client.api_client.close()  # type: ignore[no-untyped-call]
