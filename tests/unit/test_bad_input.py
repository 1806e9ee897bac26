"""Bad input: whatever people type, whatever Kueue writes in a condition, whatever a dump file holds, the bot
gives a clear answer (a Question; a Classification; an Explanation; DumpUnreadable in one line), never a crash.

The parser and the classifier have their properties next to them (test_slack_parse, test_messages); here are
the gaps: huge, binary and adversarial text (long repetitions that make careless regular expressions
backtrack for minutes; a per-test timeout is the bound, not a stopwatch). The dump reader and the engine get
garbage, YAML bombs, wrong kinds, missing and mistyped fields, deep nesting, and hostile-but-valid objects.
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from bot.errors import DumpUnreadable
from bot.kube.dump import MAX_DUMP_BYTES, parse_text, read_dump
from bot.slack import render
from bot.slack.parse import MAX_INPUT, Question, is_name, is_namespace, parse
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation
from bot.trace.messages import classify_quota_reserved, parse_eviction, parse_preemption
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.builders import NOW, NS, Raw, as_yaml, cluster, cluster_queue, cpu_group, local_queue, pending

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Any code point, surrogates and controls included (st.text() leaves surrogates out by default).
any_char = st.characters(codec=None, exclude_categories=())
wild_text = st.text(alphabet=any_char, max_size=400)
HOSTILE_WORDS = [
    "<!channel>",
    "<!here|here>",
    "<@U0BOT42>",
    "<#C1|x>",
    "<http://x|y>",
    "&lt;",
    "\x00",
    "\u202e",
    "\u200b",
    "\ufeff",
    "`",
    "*",
    "_",
    "~",
    ">",
    "\n",
    "kubectl",
    "-n",
    "--namespace=",
    "/",
    "why",
    "watch",
    "é",
    "🙂",
    "İ",
    "ﬁ",
    "a" * 300,
]
hostile_text = st.lists(st.sampled_from(HOSTILE_WORDS) | wild_text, max_size=40).map(" ".join)


def _valid(question: Question) -> None:
    assert isinstance(question, Question)
    assert question.namespace is None or is_namespace(question.namespace)
    assert question.name is None or is_name(question.name)
    assert len(question.raw) <= MAX_INPUT


# --- the question parser ---------------------------------------------------------------------------------


@FAST
@given(hostile_text)
def test_parse_is_total_on_binary_and_hostile_text(text: str) -> None:
    _valid(parse(text, bot_user_id="U0BOT42"))


ADVERSARIAL_QUESTIONS = [
    ("a megabyte of one letter", "a" * 1_000_000),
    ("a megabyte of dashes", "-" * 1_000_000),
    ("slashes", "ns/" * 200_000),
    ("unclosed links", "<http://x|" * 100_000),
    ("nested angle brackets", "<" * 200_000 + ">" * 200_000),
    ("mentions", "<@U0BOT42>" * 100_000),
    ("entities", "&amp;" * 200_000),
    ("flags", "kubectl get job -n " * 50_000),
    ("code spans", "`" * 300_000),
    ("NUL bytes", "\x00" * 500_000),
    ("a name too long", "why is " + "a" * 10_000 + " pending?"),
    ("lone surrogates", "why is \ud800train\udfff pending?"),
]


@pytest.mark.timeout(120)  # catastrophic backtracking never ends; a loaded machine only slows it
@pytest.mark.parametrize("text", [q[1] for q in ADVERSARIAL_QUESTIONS], ids=[q[0] for q in ADVERSARIAL_QUESTIONS])
def test_parse_of_huge_and_adversarial_text_is_bounded(text: str) -> None:
    _valid(parse(text, bot_user_id="U0BOT42"))


def test_an_injection_in_the_question_is_never_a_name() -> None:
    question = parse("why is <!channel> train-octobre <@U0BOB> pending in <#C1|general>?", bot_user_id="U0BOT42")
    assert question.name == "train-octobre"


# --- the Kueue message classifier ------------------------------------------------------------------------

PREFIX = "couldn't assign flavors to pod set main: "
ADVERSARIAL_MESSAGES = [
    ("many reasons", PREFIX + "insufficient unused quota for cpu in flavor x, 2 more needed, " * 3000),
    ("many pod sets", "; ".join(f"couldn't assign flavors to pod set p{i}: flavor f not found" for i in range(3000))),
    ("unclosed quotes", PREFIX + 'untolerated taint {"' * 20_000),
    ("numbers", PREFIX + "insufficient quota for cpu in flavor x, request > maximum capacity (" + "9" * 50_000),
    ("separators", ", ; " * 50_000),
    ("a megabyte", "x" * 1_000_000),
    ("controls", "\x00\x1b[31m\r\n" * 50_000),
    ("preemption", "Preempted to accommodate a workload (UID: " * 20_000),
    # The legacy limits pattern was cubic on these (8 kB took 98 s, on the event loop in the notifier's pass).
    ("brackets", "a[" * 500_000),
    ("brackets and spaces", "a[b " * 250_000),
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("message", [m[1] for m in ADVERSARIAL_MESSAGES], ids=[m[0] for m in ADVERSARIAL_MESSAGES])
def test_the_classifier_is_bounded_on_huge_and_adversarial_messages(message: str) -> None:
    for reason in ("Pending", "FlavorNotFound", "QuotaReserved", ""):
        classification = classify_quota_reserved(reason, message)
        assert classification.facts
    parse_preemption(message)
    assert parse_eviction("Preempted", message).message == message


@FAST
@given(reason=wild_text, message=wild_text)
def test_the_classifier_is_total_on_binary_text(reason: str, message: str) -> None:
    classification = classify_quota_reserved(reason, message)
    assert classification.facts
    parse_preemption(message)
    parse_eviction(reason, message)


# --- the dump reader --------------------------------------------------------------------------------------

OBJECTS = [*cluster(), *pending("train")]


def _laughs(levels: int) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _deep_block(depth: int) -> str:
    return "".join(f"{' ' * i}a:\n" for i in range(depth)) + " " * depth + "b: 1\n"


def _merge_key() -> str:
    return "base: &b {kind: Workload}\nthing:\n  <<: *b\n"


UNREADABLE: list[tuple[str, str, str]] = [
    ("billion laughs", _laughs(9), "alias"),
    ("a merge key", _merge_key(), "alias"),
    ("deep block nesting", _deep_block(3000), "nesting depth"),
    ("deep flow mappings", "{a: " * 50_000 + "}" * 50_000, "nesting depth"),
    ("a NUL byte", "kind: Workload\x00\nmetadata: {}\n", "not valid YAML"),
    ("an escape to a lone surrogate", 'kind: "\\ud800"\n', "not valid YAML"),
    ("a Python object tag", "!!python/object/apply:os.system [echo pwned]\n", "not valid YAML"),
    ("only separators", "---\n---\n...\n", "dump"),
    ("a scalar document", "42\n", "not a Kubernetes dump"),
    ("a list document", "- 1\n- 2\n", "not a Kubernetes dump"),
    ("a JSON array", json.dumps([{"kind": "Workload"}]), "not a Kubernetes dump"),
    ("unicode junk", "🙂" * 10_000, "not a Kubernetes dump"),
    ("a huge single scalar", "x" * 2_000_000, "not a Kubernetes dump"),
    ("an unterminated quote", 'kind: "Workload\n', "not valid YAML"),
    ("a duplicate anchor", "a: &x 1\nb: &x 2\nc: *x\n", "not valid YAML"),
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("text", "says"), [u[1:] for u in UNREADABLE], ids=[u[0] for u in UNREADABLE])
def test_an_unreadable_dump_is_one_clear_line(text: str, says: str) -> None:
    with pytest.raises(DumpUnreadable) as caught:
        parse_text(text, source="cluster.yaml")
    message = str(caught.value)
    assert "\n" not in message and len(message) < 300 and "cluster.yaml" in message
    assert says in message


ODD_BUT_READABLE = [
    ("a binary kind", "kind: !!binary AAAA\nmetadata: {name: x}\n"),
    ("a numeric kind", "kind: 42\nmetadata: {name: x}\n"),
    ("a list as kind", "kind: [Workload]\napiVersion: kueue.x-k8s.io/v1beta2\nmetadata: {name: x}\n"),
    ("metadata a string", "kind: Workload\napiVersion: kueue.x-k8s.io/v1beta2\nmetadata: train\n"),
    ("items not a list", "kind: List\nitems: nope\n"),
    ("items of scalars", "kind: List\nitems: [1, two, null]\n"),
    ("a timestamp as name", "kind: Namespace\napiVersion: v1\nmetadata: {name: 2026-01-01T00:00:00Z}\n"),
    ("a set", "kind: Workload\napiVersion: kueue.x-k8s.io/v1beta2\nmetadata: !!set {a, b}\n"),
]


@pytest.mark.parametrize("text", [o[1] for o in ODD_BUT_READABLE], ids=[o[0] for o in ODD_BUT_READABLE])
def test_documents_of_a_wrong_shape_are_skipped_and_the_rest_is_answered(text: str) -> None:
    explanation = _answer(as_yaml(OBJECTS) + "---\n" + text)
    assert explanation is not None and explanation.workload is not None


def test_a_file_too_large_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as file:
        file.truncate(MAX_DUMP_BYTES + 1)  # sparse: nothing is written, nothing is read
    with pytest.raises(DumpUnreadable, match=r"MiB; the largest dump read is 16 MiB"):
        read_dump(path)


def test_binary_with_a_valid_utf8_header_is_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_bytes(b"apiVersion: v1\nkind: List\n" + bytes(range(256)))
    with pytest.raises(DumpUnreadable, match="not UTF-8"):
        read_dump(path)


def _answer(text: str) -> Explanation | None:
    """Read a dump and ask about team-a/train: an Explanation, or None when the dump is refused (one line)."""
    try:
        dump = parse_text(text, source="cluster.yaml")
    except DumpUnreadable as error:
        assert "\n" not in str(error) and len(str(error)) < 300
        return None
    explanation = explain(dump.snapshot, Query(NS, "train", "Job"), now=NOW)
    render.answer_summary(explanation, language="en")
    render.answer_details(explanation, language="en", show_names=True)
    return explanation


@FAST
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=()), max_size=400))
def test_any_text_is_a_dump_or_one_line(text: str) -> None:
    _answer(text)  # (text read from a file is UTF-8: no lone surrogates; bytes are tried below)


@FAST
@given(st.binary(max_size=400) | hostile_text.map(lambda text: text.encode("utf-8", "surrogatepass")))
def test_any_bytes_in_a_file_are_a_dump_or_one_line(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cluster.yaml"
        path.write_bytes(content)
        try:
            read_dump(path)
        except DumpUnreadable as error:
            assert "\n" not in str(error) and str(path) in str(error)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
KINDS = [
    "Workload",
    "ClusterQueue",
    "LocalQueue",
    "ResourceFlavor",
    "Cohort",
    "AdmissionCheck",
    "WorkloadPriorityClass",
    "Job",
    "Pod",
    "Event",
    "Namespace",
    "Node",
    "JobSet",
    "RayJob",
    "List",
    "PendingWorkloadsSummary",
]
API_VERSIONS = [
    "kueue.x-k8s.io/v1beta2",
    "kueue.x-k8s.io/v1beta1",
    "batch/v1",
    "v1",
    "jobset.x-k8s.io/v1alpha2",
    "ray.io/v1",
    "visibility.kueue.x-k8s.io/v1beta2",
    "events.k8s.io/v1",
]
odd_objects = st.fixed_dictionaries(
    {"kind": st.sampled_from(KINDS) | json_values, "apiVersion": st.sampled_from(API_VERSIONS) | json_values},
    optional={"metadata": json_values, "spec": json_values, "status": json_values, "items": json_values},
)


@FAST
@given(st.lists(odd_objects, max_size=6))
def test_objects_of_any_shape_are_read_or_skipped(documents: list[dict[str, Any]]) -> None:
    _answer(as_yaml([*OBJECTS, *documents]))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _set(value: Any, path: tuple[Any, ...], new: Any) -> None:
    for key in path[:-1]:
        value = value[key]
    if new is _DELETE:
        del value[path[-1]]
    else:
        value[path[-1]] = new


_DELETE = object()
junk = st.one_of(
    st.just(_DELETE),
    st.none(),
    st.sampled_from(
        [
            "",
            "-5",
            "1e400",
            "NaN",
            "Infinity",
            "999999999999999999999Ei",
            "0.0000001m",
            "🙂",
            "<!channel>",
            "2026-13-45T99:99:99Z",
            "x" * 300,
            [],
            {},
            -1,
            2**63,
            -(2**63),
            1.5,
            True,
        ]
    ),
    json_values,
)


@FAST
@given(st.data())
def test_a_valid_cluster_with_any_field_broken_is_answered_or_refused_in_one_line(data: st.DataObject) -> None:
    objects = copy.deepcopy(OBJECTS)
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.integers(0, len(objects) - 1))
        paths = _paths(objects[index])
        if paths:
            _set(objects[index], data.draw(st.sampled_from(paths)), data.draw(junk))
    _answer(as_yaml(objects))


# --- the engine on hostile-but-valid objects -----------------------------------------------------------


def _workload(objects: list[Raw]) -> Raw:
    return next(o for o in objects if o["kind"] == "Workload")


def _job(objects: list[Raw]) -> Raw:
    return next(o for o in objects if o["kind"] == "Job")


def _unicode_names(objects: list[Raw]) -> None:
    for obj in objects:
        if obj["kind"] in ("ClusterQueue", "ResourceFlavor"):
            obj["metadata"]["name"] = "équipe-🙂-\u202eflipped"


def _huge_count(objects: list[Raw]) -> None:
    _workload(objects)["spec"]["podSets"][0]["count"] = 10**15
    _job(objects)["spec"]["parallelism"] = 2**63


def _negative_quantities(objects: list[Raw]) -> None:
    _workload(objects)["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": "-4", "memory": "-1Gi"}
    }


def _huge_quantities(objects: list[Raw]) -> None:
    _workload(objects)["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": "999999999999999999999999Ei", "nvidia.com/gpu": "1e400"}
    }


def _missing_specs(objects: list[Raw]) -> None:
    for obj in objects:
        obj.pop("spec", None)


def _missing_workload_spec(objects: list[Raw]) -> None:
    _workload(objects)["spec"] = {}


def _priority_extremes(objects: list[Raw]) -> None:
    _workload(objects)["spec"]["priority"] = -(2**31)


def _far_times(objects: list[Raw]) -> None:
    for obj in objects:
        obj["metadata"]["creationTimestamp"] = (
            "9999-12-31T23:59:59Z" if obj["kind"] == "Workload" else "0001-01-01T00:00:00Z"
        )


def _many_flavors(objects: list[Raw]) -> None:
    objects.append(cluster_queue("cq", *[cpu_group(flavor=f"f{i}", cpu=1) for i in range(200)]))


def _self_cohort(objects: list[Raw]) -> None:
    objects.append(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Cohort",
            "metadata": {"name": "loop"},
            "spec": {"parentName": "loop"},
        }
    )
    for obj in objects:
        if obj["kind"] == "ClusterQueue":
            obj["spec"]["cohortName"] = "loop"


def _queue_cycle(objects: list[Raw]) -> None:
    objects.append(local_queue("user-queue", NS, cluster_queue="user-queue"))


HOSTILE_BUT_VALID: list[tuple[str, Callable[[list[Raw]], None]]] = [
    ("unicode names", _unicode_names),
    ("huge counts", _huge_count),
    ("negative quantities", _negative_quantities),
    ("huge quantities", _huge_quantities),
    ("no spec anywhere", _missing_specs),
    ("an empty Workload spec", _missing_workload_spec),
    ("the lowest priority", _priority_extremes),
    ("times at the ends of the calendar", _far_times),
    ("200 flavors", _many_flavors),
    ("a cohort that is its own parent", _self_cohort),
    ("a LocalQueue pointing at a queue of its own name", _queue_cycle),
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("change", [h[1] for h in HOSTILE_BUT_VALID], ids=[h[0] for h in HOSTILE_BUT_VALID])
def test_the_engine_never_raises_on_hostile_but_valid_objects(change: Callable[[list[Raw]], None]) -> None:
    objects = copy.deepcopy(OBJECTS)
    change(objects)
    explanation = _answer(as_yaml(objects))
    assert explanation is not None  # read, not refused: every one of these is a dump kubectl could write
    assert explanation.verdict is not None


@FEW
@given(
    name=st.text(min_size=1, max_size=80),  # a dump (UTF-8 YAML) cannot carry lone surrogates
    count=st.integers(-(2**63), 2**63),
    cpu=st.sampled_from(["-1", "0", "1e3", "1000000000000000Ei", "0.0001m", "NaN", "abc"]),
    minutes=st.integers(-(10**7), 10**7),
)
def test_any_name_count_and_quantity_is_explained(name: str, count: int, cpu: str, minutes: int) -> None:
    objects = copy.deepcopy(OBJECTS)
    workload = _workload(objects)
    workload["spec"]["podSets"][0]["count"] = count
    workload["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu}}
    for obj in objects:
        if obj["kind"] == "ResourceFlavor":
            obj["metadata"]["name"] = name
    now = datetime(2026, 10, 14, 10, 30, tzinfo=UTC)
    snapshot = parse_text(as_yaml(objects)).snapshot
    for moment in (now, datetime.fromtimestamp(max(0, now.timestamp() + minutes * 60), UTC)):
        explanation = explain(snapshot, Query(NS, "train", "Job"), now=moment)
        render.answer_details(explanation, language="fr", show_names=False)
