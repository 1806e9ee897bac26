"""Properties: quantity and demand math, the order of objects in a dump, quota monotonicity, rendering."""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from bot.copy import CATALOGUES, render
from bot.forecast.outlook import explain_with_outlook
from bot.forecast.serialize import to_json
from bot.kube.decode import decode, parse_time
from bot.trace.checks import fit_in_queue
from bot.trace.codes import Verdict
from bot.trace.demand import PODS, pod_requests, pod_set_demand
from bot.trace.explain import Query
from bot.trace.fits import verdict_of
from bot.trace.model import (
    ClusterQueue,
    Cohort,
    Condition,
    Container,
    FlavorQuotas,
    Meta,
    PodSet,
    PodTemplate,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Workload,
)
from bot.trace.quantity import format_quantity, parse
from bot.trace.resolve import canonical_kind
from bot.trace.snapshot import MemorySnapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.builders import (
    Raw,
    cluster,
    cluster_queue,
    cpu_group,
    flatten,
    local_queue,
    pending,
)
from tests.unit.test_explain import QUEUE
from tests.unit.test_goldens import FOLDERS

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])

RESOURCES = ["cpu", "memory", "nvidia.com/gpu", "ephemeral-storage", "hugepages-2Mi", "pods"]

# --- quantities -------------------------------------------------------------------------------------

decimals = st.builds(
    lambda digits, places: Decimal(digits).scaleb(-places),
    st.integers(min_value=-(10**21), max_value=10**21),
    st.integers(min_value=0, max_value=12),
)


@FAST
@given(decimals, st.sampled_from(RESOURCES))
def test_parse_of_format_is_identity(value: Decimal, resource: str) -> None:
    assert parse(format_quantity(value, resource)) == value


SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}


@FAST
@given(st.integers(min_value=0, max_value=10**6), st.sampled_from([*SUFFIXES, *BINARY]))
def test_parse_of_every_suffix(number: int, suffix: str) -> None:
    expected = Decimal(number) * (
        Decimal(1024) ** BINARY[suffix] if suffix in BINARY else Decimal(10) ** SUFFIXES[suffix]
    )
    assert parse(f"{number}{suffix}") == expected


# --- demand -----------------------------------------------------------------------------------------

amounts = st.integers(min_value=0, max_value=64_000).map(lambda m: Decimal(m).scaleb(-3))
requests = st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]), amounts, max_size=3)
containers = st.builds(
    Container,
    name=st.just("c"),
    requests=requests,
    limits=requests,
    restart_policy=st.sampled_from(["", "", "Always"]),
)
templates = st.builds(
    PodTemplate,
    containers=st.lists(containers, min_size=1, max_size=3).map(tuple),
    init_containers=st.lists(containers, max_size=3).map(tuple),
    overhead=st.one_of(st.just({}), requests),
)


@FAST
@given(templates, st.integers(min_value=0, max_value=50))
def test_demand_scales_linearly_with_the_count(template: PodTemplate, count: int) -> None:
    per_pod = pod_requests(template)
    demand = pod_set_demand(PodSet("main", count, template))
    assert demand[PODS] == count
    assert {k: v for k, v in demand.items() if k != PODS} == {k: v * count for k, v in per_pod.items()}


@FAST
@given(templates, st.data())
def test_demand_is_monotone_in_each_container_request(template: PodTemplate, data: st.DataObject) -> None:
    everyone = [("containers", i) for i in range(len(template.containers))] + [
        ("init", i) for i in range(len(template.init_containers))
    ]
    where, index = data.draw(st.sampled_from(everyone))
    resource = data.draw(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]))
    more = data.draw(amounts.filter(lambda a: a > 0))
    group = list(template.containers if where == "containers" else template.init_containers)
    old = group[index]
    effective = {**old.limits, **old.requests}
    group[index] = Container(
        old.name, {**old.requests, resource: effective.get(resource, Decimal(0)) + more}, old.limits, old.restart_policy
    )
    bigger = (
        PodTemplate(tuple(group), template.init_containers, template.overhead)
        if where == "containers"
        else PodTemplate(template.containers, tuple(group), template.overhead)
    )
    before, after = pod_requests(template), pod_requests(bigger)
    for name in set(before) | set(after):
        assert after.get(name, Decimal(0)) >= before.get(name, Decimal(0)), name


# --- the order of objects in a dump -----------------------------------------------------------------


def _answer(objects: list[Raw], namespace: str, name: str, kind: str | None, now_text: str) -> str:
    now = parse_time(now_text)
    assert now is not None
    decoded: list[object] = []
    for raw in objects:
        decoded.extend(decode(raw))
    explanation, outlook = explain_with_outlook(MemorySnapshot(decoded), Query(namespace, name, kind), now=now)
    return json.dumps(to_json(explanation, outlook), sort_keys=True)


@functools.cache
def _scenario(folder: Path) -> tuple[list[Raw], str, str, str | None, str, str]:
    """A scenario's objects, its query, and the answer to it with the objects in the dump's order."""
    expect = yaml.safe_load((folder / "expect.yaml").read_text(encoding="utf-8"))
    objects = flatten(yaml.safe_load_all((folder / "cluster.yaml").read_text(encoding="utf-8")))
    query = expect["query"]
    namespace, name, kind = query["namespace"], query["name"], canonical_kind(query.get("kind", "Job"))
    now = str(expect["now"])
    return objects, namespace, name, kind, now, _answer(objects, namespace, name, kind, now)


# Two other LocalQueues of the namespace could take a job that never fits its own queue: the advice names
# both, whatever order the dump lists them in.
TWO_WAYS_OUT = [
    *cluster(),
    cluster_queue("cq-big", cpu_group(cpu=32)),
    cluster_queue("cq-huge", cpu_group(cpu=64)),
    local_queue("big-queue", cluster_queue="cq-big"),
    local_queue("huge-queue", cluster_queue="cq-huge"),
    *pending(cpu="12"),
]
HAND_BUILT = {
    "positions": (QUEUE, "team-a", "train", "Job", "2026-10-14T10:30:00Z"),
    "two ways out": (TWO_WAYS_OUT, "team-a", "train", "Job", "2026-10-14T10:30:00Z"),
}


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
@FEW
@given(st.randoms(use_true_random=False))
def test_the_order_of_a_scenario_dump_never_changes_the_answer(folder: Path, rng: random.Random) -> None:
    objects, namespace, name, kind, now, expected = _scenario(folder)
    shuffled = list(objects)
    rng.shuffle(shuffled)
    assert _answer(shuffled, namespace, name, kind, now) == expected


@pytest.mark.parametrize("world", sorted(HAND_BUILT))
@FEW
@given(st.randoms(use_true_random=False))
def test_the_order_of_objects_never_changes_the_answer(world: str, rng: random.Random) -> None:
    objects, namespace, name, kind, now = HAND_BUILT[world]
    expected = _answer(objects, namespace, name, kind, now)
    shuffled = list(objects)
    rng.shuffle(shuffled)
    assert _answer(shuffled, namespace, name, kind, now) == expected


# --- raising a quota never makes a fitting workload never fit --------------------------------------

SEVERITY = {None: 0, Verdict.WAITING_FOR_QUOTA: 1, Verdict.EXCEEDS_MAX_QUOTA: 2, Verdict.NO_MATCHING_FLAVOR: 3}
quantities = st.integers(min_value=0, max_value=40).map(Decimal)


def _meta(kind: str, name: str) -> Meta:
    return Meta(kind, name)


Quotas = dict[tuple[str, str], ResourceQuota]
Usage = dict[str, dict[str, Decimal]]


@dataclass(frozen=True)
class QuotaWorld:
    resources: tuple[str, ...]
    flavors: tuple[str, ...]
    cq: Quotas
    cq_usage: Usage
    other: Quotas | None
    other_usage: Usage | None
    cohort: Quotas | None
    parent: Quotas | None
    pod_sets: list[tuple[int, dict[str, Decimal]]]


@st.composite
def quota_worlds(draw: st.DrawFn) -> QuotaWorld:
    """A ClusterQueue "cq" with one group of 1-2 flavors over cpu (and maybe memory), alone or in a cohort
    with another ClusterQueue and maybe a Cohort object with its own quota (and maybe a parent), some usage,
    and 1-2 pod sets (several flavors only with one pod set, see test_raising_a_quota_can_move_a_pod_set)."""
    resources = draw(st.sampled_from([("cpu",), ("cpu", "memory")]))
    in_cohort = draw(st.booleans())
    pod_set_count = draw(st.integers(min_value=1, max_value=2))
    flavors = ("f1",) if pod_set_count > 1 else draw(st.sampled_from([("f1",), ("f1", "f2")]))

    def limits(nominal: Decimal) -> tuple[Decimal | None, Decimal | None]:
        if not in_cohort:
            return None, None
        borrowing = draw(st.one_of(st.none(), quantities))
        lending = draw(st.one_of(st.none(), st.integers(min_value=0, max_value=int(nominal)).map(Decimal)))
        return borrowing, lending

    def queue_quotas() -> Quotas:
        out = {}
        for flavor in flavors:
            for resource in resources:
                nominal = draw(quantities)
                borrowing, lending = limits(nominal)
                out[(flavor, resource)] = ResourceQuota(resource, nominal, borrowing, lending)
        return out

    def usage() -> Usage:
        return {f: {r: draw(quantities) for r in resources} for f in flavors}

    return QuotaWorld(  # the fields are drawn in this order
        resources=resources,
        flavors=flavors,
        cq=queue_quotas(),
        cq_usage=usage(),
        other=queue_quotas() if in_cohort else None,
        other_usage=usage() if in_cohort else None,
        cohort=(
            {(f, r): ResourceQuota(r, draw(quantities)) for f in flavors for r in resources}
            if in_cohort and draw(st.booleans())
            else None
        ),
        parent=(
            {(f, r): ResourceQuota(r, draw(quantities)) for f in flavors for r in resources}
            if in_cohort and draw(st.booleans())
            else None
        ),
        pod_sets=[
            (
                draw(st.integers(min_value=1, max_value=4)),
                {r: draw(st.integers(min_value=1, max_value=12).map(Decimal)) for r in resources},
            )
            for _ in range(pod_set_count)
        ],
    )


def _groups(world: QuotaWorld, quotas: Quotas) -> tuple[ResourceGroup, ...]:
    flavors, resources = world.flavors, world.resources
    return (
        ResourceGroup(resources, tuple(FlavorQuotas(f, tuple(quotas[(f, r)] for r in resources)) for f in flavors)),
    )


def _verdict(world: QuotaWorld) -> Verdict | None:
    cohort_name = "pool" if world.other is not None else ""
    objects: list[object] = [ResourceFlavor(_meta("ResourceFlavor", f)) for f in world.flavors]
    cq = ClusterQueue(
        _meta("ClusterQueue", "cq"), _groups(world, world.cq), cohort=cohort_name, reservation=world.cq_usage
    )
    objects.append(cq)
    if world.other is not None:
        objects.append(
            ClusterQueue(
                _meta("ClusterQueue", "other"),
                _groups(world, world.other),
                cohort=cohort_name,
                reservation=world.other_usage,
            )
        )
    if world.cohort is not None:
        parent = "root" if world.parent is not None else ""
        objects.append(Cohort(_meta("Cohort", "pool"), parent, _groups(world, world.cohort)))
        if world.parent is not None:
            objects.append(Cohort(_meta("Cohort", "root"), "", _groups(world, world.parent)))
    pod_sets = [
        PodSet(f"ps{i}", count, PodTemplate(containers=(Container("c", per_pod),)))
        for i, (count, per_pod) in enumerate(world.pod_sets)
    ]
    snap = MemorySnapshot(objects)
    return verdict_of(fit_in_queue(snap, cq, pod_sets, None))


def _with_quotas(world: QuotaWorld, target: str, quotas: Quotas) -> QuotaWorld:
    """The world with the quotas of one of its queues ("cq", "other") or cohorts ("cohort", "parent") replaced."""
    replaced = {
        "cq": lambda: dataclasses.replace(world, cq=quotas),
        "other": lambda: dataclasses.replace(world, other=quotas),
        "cohort": lambda: dataclasses.replace(world, cohort=quotas),
        "parent": lambda: dataclasses.replace(world, parent=quotas),
    }
    return replaced[target]()


@settings(max_examples=300, deadline=None)
@given(quota_worlds(), st.data())
def test_raising_a_nominal_quota_never_makes_it_fit_less(world: QuotaWorld, data: st.DataObject) -> None:
    before = _verdict(world)
    candidates = {"cq": world.cq, "other": world.other, "cohort": world.cohort, "parent": world.parent}
    targets = [key for key, quotas_of_key in candidates.items() if quotas_of_key is not None]
    target = data.draw(st.sampled_from(targets))
    quotas: Quotas = dict(candidates[target] or {})
    key = data.draw(st.sampled_from(sorted(quotas)))
    raise_by = data.draw(st.integers(min_value=1, max_value=40).map(Decimal))
    old = quotas[key]
    quotas[key] = ResourceQuota(old.name, old.nominal + raise_by, old.borrowing_limit, old.lending_limit)
    after = _verdict(_with_quotas(world, target, quotas))
    if before in (None, Verdict.WAITING_FOR_QUOTA):
        assert after != Verdict.EXCEEDS_MAX_QUOTA
    assert SEVERITY[after] <= SEVERITY[before], (before, after)


def test_raising_a_quota_can_move_a_pod_set() -> None:
    """Why the generator above keeps one flavor when there are several pod sets: Kueue assigns pod sets one
    by one, each to the first flavor that fits (FACTS §6), so more quota on the first flavor can draw an
    earlier pod set there and crowd a later one out. f1: cpu 10, memory 4; f2: cpu 6, memory 8.
    ps0 = 6 cpu / 6Gi-ish (memory 6), ps1 = 8 cpu / memory 2.
    Before: ps0 does not fit f1 (memory 6 > 4) and takes f2; ps1 takes f1 (8 <= 10, 2 <= 4): it fits.
    After raising f1's memory to 100: ps0 takes f1; ps1 finds 6 + 8 = 14 > 10 cpu on f1 and 8 > 6 on f2:
    it can never fit, exactly as Kueue's greedy flavor assigner would say."""
    d = Decimal
    world = QuotaWorld(
        resources=("cpu", "memory"),
        flavors=("f1", "f2"),
        cq={
            ("f1", "cpu"): ResourceQuota("cpu", d(10)),
            ("f1", "memory"): ResourceQuota("memory", d(4)),
            ("f2", "cpu"): ResourceQuota("cpu", d(6)),
            ("f2", "memory"): ResourceQuota("memory", d(8)),
        },
        cq_usage={},
        other=None,
        other_usage=None,
        cohort=None,
        parent=None,
        pod_sets=[(1, {"cpu": d(6), "memory": d(6)}), (1, {"cpu": d(8), "memory": d(2)})],
    )
    assert _verdict(world) is None
    raised = dict(world.cq)
    raised[("f1", "memory")] = ResourceQuota("memory", d(100))
    assert _verdict(dataclasses.replace(world, cq=raised)) == Verdict.EXCEEDS_MAX_QUOTA


# --- rendering never raises -------------------------------------------------------------------------

ALL_KEYS = sorted({key for catalogue in CATALOGUES.values() for key in catalogue})
PARAM_NAMES = sorted(
    {"job", "name", "count", "age_seconds", "in_seconds", "queue", "resource", "x", "seconds"}
    | {
        n
        for c in CATALOGUES.values()
        for t in c.values()
        for tt in ((t,) if isinstance(t, str) else t)
        for n in re.findall(r"\{([a-z_]+)\}", tt)
    }
)
param_values = st.one_of(st.text(max_size=30), st.integers(min_value=-(10**12), max_value=10**12))


@FAST
@given(
    st.one_of(st.sampled_from(ALL_KEYS), st.text(max_size=20)),
    st.dictionaries(st.sampled_from(PARAM_NAMES), param_values, max_size=8),
    st.sampled_from(["en", "fr", "de", ""]),
)
def test_render_never_raises(key: str, params: dict[str, object], language: str) -> None:
    assert isinstance(render(key, params, language), str)


_KINDS = ("QuotaReserved", "Admitted", "Evicted", "Finished", "PodsReady", "Requeued")
_CONDITIONS = st.lists(
    st.builds(
        Condition,
        type=st.sampled_from(_KINDS),
        status=st.sampled_from(("True", "False", "Unknown")),
        reason=st.sampled_from(("", "QuotaReserved", "Preempted", "Pending")),
        since=st.one_of(st.none(), st.datetimes(timezones=st.just(UTC))),
    ),
    max_size=6,
)


@given(conditions=_CONDITIONS, created=st.one_of(st.none(), st.datetimes(timezones=st.just(UTC))))
def test_a_workload_reads_its_conditions_once_as_every_question_read_them(
    conditions: list[Condition], created: datetime | None
) -> None:
    """The facts a Workload keeps from its conditions when it is made (which are True, when its last wait
    began, when it got its quota) are what reading the first condition of each type says, duplicates
    included; and a copy with other conditions reads its own."""

    def first(kind: str) -> Condition | None:
        return next((c for c in conditions if c.type == kind), None)

    made = Workload(Meta("Workload", "w", "ns", created=created), "q", (), conditions=tuple(conditions))
    for kind in _KINDS:
        found = first(kind)
        assert made.is_true(kind) == (found is not None and found.status == "True")
    evicted = first("Evicted")
    if evicted is not None and evicted.since and (evicted.status == "True" or evicted.reason == "QuotaReserved"):
        assert made.queued_at == evicted.since
    else:
        assert made.queued_at == created
    expected = None
    for kind in ("QuotaReserved", "Admitted"):
        found = first(kind)
        if found is not None and found.status == "True" and found.since is not None:
            expected = found.since
            break
    assert made.reserved_at == expected
    assert made.holds_quota == (made.is_true("QuotaReserved") and not made.is_true("Finished"))
    renewed = dataclasses.replace(made, conditions=(Condition("Finished", "True"),))
    assert renewed.finished and not renewed.holds_quota and renewed.reserved_at is None
    assert renewed == dataclasses.replace(made, conditions=(Condition("Finished", "True"),))
