"""A `kubectl get -o yaml|json` dump as a snapshot; every way a file can fail is one clear line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from bot.errors import DumpUnreadable
from bot.kube.dump import parse_text, read_dump
from bot.trace.explain import Query, explain

from tests.builders import NOW, NS, Raw, as_yaml, cluster, pending

OBJECTS = [*cluster(), *pending("train")]  # Namespace, ResourceFlavor, ClusterQueue, LocalQueue, Job, Workload
WORKLOAD_NAME = OBJECTS[-1]["metadata"]["name"]


def _multi_document() -> str:
    return as_yaml(OBJECTS)


def _list() -> str:
    return as_yaml([{"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": OBJECTS}])


def _typed_lists() -> str:
    """The API's own list kinds, whose items carry no kind or apiVersion (kubectl get --raw)."""
    by_kind: dict[str, list[Raw]] = {}
    for obj in OBJECTS:
        by_kind.setdefault(obj["kind"], []).append(obj)
    documents = [
        {
            "apiVersion": items[0]["apiVersion"],
            "kind": f"{kind}List",
            "items": [{k: v for k, v in item.items() if k not in ("kind", "apiVersion")} for item in items],
        }
        for kind, items in by_kind.items()
    ]
    return as_yaml(documents)


def _json() -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": OBJECTS}, indent=4)


FORMS: list[tuple[str, Callable[[], str]]] = [
    ("multi-document YAML", _multi_document),
    ("kind List", _list),
    ("typed lists", _typed_lists),
    ("-o json", _json),
]


@pytest.mark.parametrize("make", [f[1] for f in FORMS], ids=[f[0] for f in FORMS])
def test_a_dump_in_every_form_kubectl_writes(tmp_path: Path, make: Callable[[], str]) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(make(), encoding="utf-8")
    dump = read_dump(path, taken_at=NOW)
    assert dump.objects == len(OBJECTS)
    assert dump.skipped == ()
    assert dump.snapshot.taken_at == NOW
    assert dump.snapshot.workload(NS, WORKLOAD_NAME) is not None
    assert dump.snapshot.cluster_queue("cq") is not None
    assert explain(dump.snapshot, Query(NS, "train"), now=NOW).workload == (NS, WORKLOAD_NAME)


def test_an_empty_list_is_a_valid_dump() -> None:
    dump = parse_text(as_yaml([{"apiVersion": "v1", "kind": "List", "items": []}]))
    assert dump.objects == 0


def test_objects_the_decoder_refuses_are_listed_as_skipped() -> None:
    nameless = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"namespace": NS}}
    dump = parse_text(as_yaml([*OBJECTS, nameless]))
    assert dump.objects == len(OBJECTS)
    assert len(dump.skipped) == 1
    assert "metadata.name" in dump.skipped[0]


UNREADABLE: list[tuple[str, bytes | None, str]] = [
    ("aliases", b"a: &x {b: 1}\nc: *x\n", "alias"),
    ("broken YAML", b"apiVersion: v1\nkind: [Pod\n", "not valid YAML (line"),
    ("a tab in the indentation", b"kind: Pod\nmetadata:\n\tname: x\n", "not valid YAML"),
    ("a Python tag", b"!!python/object:os.system {}\n", "not valid YAML"),
    ("nested too deeply", b"[" * 100_000, "not valid YAML"),
    ("not UTF-8", b"\xff\xfe\x00k\x00i\x00n\x00d", "not UTF-8"),
    ("random bytes", bytes(range(256)) * 4, "not UTF-8"),
    ("an empty file", b"", "empty"),
    ("only blank lines and comments", b"\n# kubectl get pods -o yaml\n\n", "empty"),
    ("plain text", b"hello, this is not a cluster dump\n", "dump"),
]


@pytest.mark.parametrize(("content", "says"), [u[1:] for u in UNREADABLE], ids=[u[0] for u in UNREADABLE])
def test_an_unreadable_file_is_one_clear_line(tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_bytes(content)
    with pytest.raises(DumpUnreadable) as caught:
        read_dump(path)
    message = str(caught.value)
    assert "\n" not in message
    assert str(path) in message
    assert says in message
    assert len(message) < 300


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DumpUnreadable, match=r"no such file$"):
        read_dump(tmp_path / "nope.yaml")


def test_a_directory(tmp_path: Path) -> None:
    with pytest.raises(DumpUnreadable, match=r"is a directory"):
        read_dump(tmp_path)


def test_a_quota_that_is_not_a_number_does_not_crash_the_engine() -> None:
    # YAML reads `.nan` as a float NaN; the CRDs would refuse it, a hand-edited dump may still hold it
    text = as_yaml(OBJECTS).replace("nominalQuota: '10'", "nominalQuota: .nan")
    assert ".nan" in text
    dump = parse_text(text)
    explanation = explain(dump.snapshot, Query(NS, "train"), now=NOW)
    assert explanation.workload == (NS, WORKLOAD_NAME)
