"""The engine's own admission checks, one table per step: the queue chain, the namespace selector, taints and
tolerations, node labels, covered resources, flavor order and fallback, multi pod-set accumulation."""

from __future__ import annotations

from decimal import Decimal

import pytest
from bot.trace.checks import fit_in_queue
from bot.trace.codes import Verdict
from bot.trace.fits import Fit, QueueFit, max_pods_that_fit, requested_resources, verdict_of
from bot.trace.flavormatch import matches_node_labels, untolerated_taint
from bot.trace.model import (
    LabelSelector,
    Meta,
    PodSet,
    PodTemplate,
    Requirement,
    ResourceFlavor,
    Taint,
    Toleration,
)
from bot.trace.queuechain import namespace_allowed, queue_chain

from tests.builders import (
    NS,
    Raw,
    admission_check,
    cluster_queue,
    condition,
    container,
    cpu_group,
    cpu_spec,
    flavor_quotas,
    group,
    local_queue,
    namespace,
    pod_set,
    pod_spec,
    quota,
    resource_flavor,
    snapshot,
    taint,
    workload,
)

# --- the queue chain --------------------------------------------------------------------------------

CQ = cluster_queue("cq")
FLAVOR = resource_flavor()
INACTIVE = [
    condition(
        "Active", False, "FlavorNotFound", "Can't admit new workloads: references missing ResourceFlavor(s): gpu."
    )
]

CHAINS = [
    ("all good", [FLAVOR, CQ, local_queue()], None, "", ""),
    ("LocalQueue missing", [FLAVOR, CQ], Verdict.LOCAL_QUEUE_MISSING, "", ""),
    ("LocalQueue Hold", [FLAVOR, CQ, local_queue(stop_policy="Hold")], Verdict.QUEUE_STOPPED, "LocalQueue", "Hold"),
    (
        "LocalQueue HoldAndDrain",
        [FLAVOR, CQ, local_queue(stop_policy="HoldAndDrain")],
        Verdict.QUEUE_STOPPED,
        "LocalQueue",
        "HoldAndDrain",
    ),
    ("LocalQueue stopPolicy None", [FLAVOR, CQ, local_queue(stop_policy="None")], None, "", ""),
    ("ClusterQueue missing", [FLAVOR, local_queue(cluster_queue="nope")], Verdict.CLUSTER_QUEUE_MISSING, "", ""),
    (
        "a stopped LocalQueue is met before a missing ClusterQueue",
        [FLAVOR, local_queue(cluster_queue="nope", stop_policy="Hold")],
        Verdict.QUEUE_STOPPED,
        "LocalQueue",
        "Hold",
    ),
    (
        "ClusterQueue Hold",
        [FLAVOR, cluster_queue("cq", stop_policy="Hold"), local_queue()],
        Verdict.QUEUE_STOPPED,
        "ClusterQueue",
        "Hold",
    ),
    (
        "ClusterQueue HoldAndDrain",
        [FLAVOR, cluster_queue("cq", stop_policy="HoldAndDrain"), local_queue()],
        Verdict.QUEUE_STOPPED,
        "ClusterQueue",
        "HoldAndDrain",
    ),
    (
        "ClusterQueue inactive, missing flavor, with its condition",
        [cluster_queue("cq", cpu_group("gpu"), conditions=INACTIVE), local_queue()],
        Verdict.QUEUE_INACTIVE,
        "",
        "",
    ),
    (
        "ClusterQueue with a missing flavor, no condition yet",
        [cluster_queue("cq", cpu_group("gpu")), local_queue()],
        Verdict.QUEUE_INACTIVE,
        "",
        "",
    ),
    (
        "ClusterQueue with a missing admission check",
        [FLAVOR, cluster_queue("cq", checks=["prov"]), local_queue()],
        Verdict.QUEUE_INACTIVE,
        "",
        "",
    ),
    (
        "ClusterQueue with its admission check",
        [FLAVOR, cluster_queue("cq", checks=["prov"]), admission_check("prov"), local_queue()],
        None,
        "",
        "",
    ),
]


@pytest.mark.parametrize(
    ("objects", "blocker", "stopped_by", "policy"), [c[1:] for c in CHAINS], ids=[c[0] for c in CHAINS]
)
def test_queue_chain(objects: list[Raw], blocker: Verdict | None, stopped_by: str, policy: str) -> None:
    chain = queue_chain(snapshot(objects), NS, "user-queue")
    assert chain.blocker == blocker
    assert chain.stopped_by == stopped_by
    assert chain.stop_policy == policy


def test_queue_chain_details_of_an_inactive_queue() -> None:
    chain = queue_chain(
        snapshot([cluster_queue("cq", cpu_group("gpu"), conditions=INACTIVE), local_queue()]), NS, "user-queue"
    )
    assert chain.missing_flavors == ("gpu",)
    assert chain.inactive_reason == "FlavorNotFound"
    assert "gpu" in chain.inactive_message
    chain = queue_chain(snapshot([FLAVOR, cluster_queue("cq", checks=["prov"]), local_queue()]), NS, "user-queue")
    assert chain.missing_checks == ("prov",)
    assert chain.missing_flavors == ()


def test_queue_chain_follows_the_admission_of_a_reserved_workload() -> None:
    chain = queue_chain(snapshot([FLAVOR, CQ, cluster_queue("cq-old"), local_queue()]), NS, "user-queue", "cq-old")
    assert chain.cluster_queue_name == "cq-old"
    assert chain.blocker is None


def test_queue_chain_without_a_queue_name() -> None:
    chain = queue_chain(snapshot([FLAVOR, CQ]), NS, "")
    assert chain.blocker == Verdict.LOCAL_QUEUE_MISSING


# --- the namespace selector -------------------------------------------------------------------------

TEAM_NS = namespace(NS, {"team": "a", "tier": "gold"})

SELECTORS = [
    ("no selector", None, [TEAM_NS], True),
    ("empty selector selects everything", {}, [TEAM_NS], True),
    ("matchLabels match", {"matchLabels": {"team": "a"}}, [TEAM_NS], True),
    ("matchLabels differ", {"matchLabels": {"team": "b"}}, [TEAM_NS], False),
    ("matchLabels absent", {"matchLabels": {"dept": "x"}}, [TEAM_NS], False),
    ("In", {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["gold", "silver"]}]}, [TEAM_NS], True),
    ("In, no match", {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["bronze"]}]}, [TEAM_NS], False),
    ("NotIn", {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["gold"]}]}, [TEAM_NS], False),
    ("Exists", {"matchExpressions": [{"key": "team", "operator": "Exists"}]}, [TEAM_NS], True),
    ("DoesNotExist", {"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]}, [TEAM_NS], False),
    (
        "labels and expressions together",
        {"matchLabels": {"team": "a"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["bronze"]}]},
        [TEAM_NS],
        False,
    ),
    (
        "the name label is always there",
        {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": [NS]}]},
        [TEAM_NS],
        True,
    ),
    (
        "unknown namespace, selected by name",
        {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": [NS]}]},
        [],
        True,
    ),
    (
        "unknown namespace, not selected by name",
        {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": [NS]}]},
        [],
        False,
    ),
    ("unknown namespace, other labels: cannot tell", {"matchLabels": {"team": "a"}}, [], None),
]


@pytest.mark.parametrize(("selector", "objects", "expected"), [s[1:] for s in SELECTORS], ids=[s[0] for s in SELECTORS])
def test_namespace_allowed(selector: Raw | None, objects: list[Raw], expected: bool | None) -> None:
    snap = snapshot([*objects, cluster_queue("cq", selector=selector)])
    cq = snap.cluster_queue("cq")
    assert cq is not None
    assert namespace_allowed(snap, cq, NS) is expected


# --- taints and tolerations -------------------------------------------------------------------------

SPOT = Taint("spot", "true", "NoSchedule")

TOLERATIONS = [
    ("no toleration", [], [SPOT], [], SPOT),
    ("Exists on the key", [Toleration("spot", "Exists")], [SPOT], [], None),
    ("Exists with an empty key tolerates everything", [Toleration("", "Exists")], [SPOT], [], None),
    ("Equal with the value", [Toleration("spot", "Equal", "true")], [SPOT], [], None),
    ("Equal with another value", [Toleration("spot", "Equal", "false")], [SPOT], [], SPOT),
    ("Equal with an empty key tolerates nothing", [Toleration("", "Equal", "true")], [SPOT], [], SPOT),
    ("the effect must match", [Toleration("spot", "Exists", effect="NoExecute")], [SPOT], [], SPOT),
    ("an empty effect matches every effect", [Toleration("spot", "Equal", "true", "")], [SPOT], [], None),
    ("NoExecute blocks", [], [Taint("gpu", "", "NoExecute")], [], Taint("gpu", "", "NoExecute")),
    ("PreferNoSchedule is ignored", [], [Taint("soft", "x", "PreferNoSchedule")], [], None),
    ("the flavor's own tolerations count", [], [SPOT], [Toleration("spot", "Exists")], None),
    (
        "the first untolerated taint is named",
        [Toleration("spot", "Exists")],
        [SPOT, Taint("a", "1"), Taint("b", "2")],
        [],
        Taint("a", "1"),
    ),
]


@pytest.mark.parametrize(
    ("tolerations", "taints", "flavor_tolerations", "expected"),
    [t[1:] for t in TOLERATIONS],
    ids=[t[0] for t in TOLERATIONS],
)
def test_untolerated_taint(
    tolerations: list[Toleration], taints: list[Taint], flavor_tolerations: list[Toleration], expected: Taint | None
) -> None:
    pod = PodSet("main", 1, PodTemplate(tolerations=tuple(tolerations)))
    flavor = ResourceFlavor(
        Meta("ResourceFlavor", "f"), node_taints=tuple(taints), tolerations=tuple(flavor_tolerations)
    )
    assert untolerated_taint(pod, flavor) == expected


def test_taint_as_text() -> None:
    assert str(Taint("spot", "true", "NoSchedule")) == "spot=true:NoSchedule"
    assert str(Taint("gpu", "", "NoExecute")) == "gpu:NoExecute"


# --- node labels: nodeSelector and required node affinity ------------------------------------------

ZONE_A = {"zone": "a", "pool": "gpu"}


def req(key: str, operator: str, *values: str) -> Requirement:
    return Requirement(key, operator, values)


NODE_LABELS = [
    ("no selector", {}, (), ZONE_A, True),
    ("nodeSelector matches", {"zone": "a"}, (), ZONE_A, True),
    ("nodeSelector differs", {"zone": "b"}, (), ZONE_A, False),
    ("a nodeSelector key the flavor does not set is ignored", {"disk": "ssd"}, (), ZONE_A, True),
    ("a flavor without labels matches anything", {"zone": "b"}, (), {}, True),
    ("affinity In", {}, ((req("zone", "In", "a", "b"),),), ZONE_A, True),
    ("affinity In, no match", {}, ((req("zone", "In", "b"),),), ZONE_A, False),
    ("affinity NotIn", {}, ((req("zone", "NotIn", "a"),),), ZONE_A, False),
    ("affinity on a key the flavor does not set is ignored", {}, ((req("disk", "In", "ssd"),),), ZONE_A, True),
    ("affinity terms are ORed", {}, ((req("zone", "In", "b"),), (req("zone", "In", "a"),)), ZONE_A, True),
    (
        "requirements of a term are ANDed",
        {},
        ((req("zone", "In", "a"), req("pool", "In", "cpu")),),
        ZONE_A,
        False,
    ),
    ("nodeSelector and affinity both apply", {"zone": "a"}, ((req("pool", "In", "cpu"),),), ZONE_A, False),
]


@pytest.mark.parametrize(
    ("selector", "terms", "labels", "expected"), [n[1:] for n in NODE_LABELS], ids=[n[0] for n in NODE_LABELS]
)
def test_matches_node_labels(
    selector: dict[str, str], terms: tuple[tuple[Requirement, ...], ...], labels: dict[str, str], expected: bool
) -> None:
    pod = PodSet("main", 1, PodTemplate(node_selector=selector, affinity_terms=terms))
    flavor = ResourceFlavor(Meta("ResourceFlavor", "f"), node_labels=labels)
    assert matches_node_labels(pod, flavor) is expected


# --- flavors and quota ------------------------------------------------------------------------------


def fit_of(objects: list[Raw], *pod_sets: Raw, cq: str = "cq") -> QueueFit:
    wl = workload("wl", pod_sets=list(pod_sets) or [pod_set()])
    snap = snapshot([*objects, wl])
    queue, decoded = snap.cluster_queue(cq), snap.workload(NS, "wl")
    assert queue is not None and decoded is not None
    return fit_in_queue(snap, queue, decoded.pod_sets, decoded)


def two_flavors(first: int = 4, second: int = 8) -> Raw:
    return cluster_queue(
        "cq",
        group(["cpu"], flavor_quotas("first", quota("cpu", first)), flavor_quotas("second", quota("cpu", second))),
    )


def tries(fit: QueueFit, pod_set_index: int = 0) -> list[tuple[str, Fit]]:
    return [(attempt.flavor, attempt.fit) for attempt in fit.pod_sets[pod_set_index].groups[0].tries]


def test_a_resource_no_group_covers_cannot_fit() -> None:
    fit = fit_of([FLAVOR, CQ], pod_set(spec=cpu_spec("1", extra={"nvidia.com/gpu": "1"})))
    assert fit.uncovered == ("nvidia.com/gpu",)
    assert fit.fit == Fit.NO_MATCH
    assert verdict_of(fit) == Verdict.NO_MATCHING_FLAVOR


def test_a_zero_request_of_an_uncovered_resource_is_ignored() -> None:
    fit = fit_of([FLAVOR, CQ], pod_set(spec=pod_spec(container(requests={"cpu": "1", "example.com/fpga": "0"}))))
    assert fit.uncovered == ()
    assert verdict_of(fit) is None


def test_flavors_are_tried_in_order_and_the_first_that_fits_is_taken() -> None:
    fit = fit_of([resource_flavor("first"), resource_flavor("second"), two_flavors()], pod_set(spec=cpu_spec("2")))
    assert tries(fit) == [("first", Fit.FITS)]


FALLBACKS = [
    # first flavor tainted -> second
    (
        "first flavor tainted",
        [resource_flavor("first", taints=[taint("spot", "true")]), resource_flavor("second")],
        "2",
        [("first", Fit.NO_MATCH), ("second", Fit.FITS)],
        None,
    ),
    # first flavor's node labels do not match the pod set's nodeSelector zone=b -> second
    (
        "first flavor's labels do not match",
        [resource_flavor("first", labels={"zone": "a"}), resource_flavor("second", labels={"zone": "b"})],
        "2",
        [("first", Fit.NO_MATCH), ("second", Fit.FITS)],
        None,
    ),
    # 6 cpu: more than first's 4 (never there), within second's 8
    (
        "too big for the first flavor",
        [resource_flavor("first"), resource_flavor("second")],
        "6",
        [("first", Fit.NEVER), ("second", Fit.FITS)],
        None,
    ),
    # 9 cpu: never on first (4), never on second (8)
    (
        "too big for both",
        [resource_flavor("first"), resource_flavor("second")],
        "9",
        [("first", Fit.NEVER), ("second", Fit.NEVER)],
        Verdict.EXCEEDS_MAX_QUOTA,
    ),
    # first flavor missing (no ResourceFlavor object) -> second
    (
        "first flavor does not exist",
        [resource_flavor("second")],
        "2",
        [("first", Fit.NO_MATCH), ("second", Fit.FITS)],
        None,
    ),
    # tainted first, and too big for second: the least severe failure (never fits) is the answer
    (
        "tainted, then too small",
        [resource_flavor("first", taints=[taint("spot", "true")]), resource_flavor("second")],
        "9",
        [("first", Fit.NO_MATCH), ("second", Fit.NEVER)],
        Verdict.EXCEEDS_MAX_QUOTA,
    ),
]


@pytest.mark.parametrize(
    ("flavors", "cpu", "expected_tries", "verdict"), [f[1:] for f in FALLBACKS], ids=[f[0] for f in FALLBACKS]
)
def test_fallback_to_the_next_flavor(
    flavors: list[Raw], cpu: str, expected_tries: list[tuple[str, Fit]], verdict: Verdict | None
) -> None:
    spec = pod_spec(container(requests={"cpu": cpu}), node_selector={"zone": "b"})
    fit = fit_of([*flavors, two_flavors()], pod_set(spec=spec))
    assert tries(fit) == expected_tries
    assert verdict_of(fit) == verdict


def test_a_full_first_flavor_falls_back_to_a_free_second() -> None:
    # first: 4 cpu, 3 in use -> 2 cpu waits there; second: 8 free -> fits
    objects = [
        resource_flavor("first"),
        resource_flavor("second"),
        cluster_queue(
            "cq",
            group(["cpu"], flavor_quotas("first", quota("cpu", 4)), flavor_quotas("second", quota("cpu", 8))),
            reservation={"first": {"cpu": 3}},
        ),
    ]
    fit = fit_of(objects, pod_set(spec=cpu_spec("2")))
    assert tries(fit) == [("first", Fit.WAITS), ("second", Fit.FITS)]
    assert verdict_of(fit) is None


def test_waiting_on_one_flavor_beats_never_on_another() -> None:
    # 6 cpu: never on first (4); second has 8 with 4 in use: waits, 2 more needed
    objects = [
        resource_flavor("first"),
        resource_flavor("second"),
        cluster_queue(
            "cq",
            group(["cpu"], flavor_quotas("first", quota("cpu", 4)), flavor_quotas("second", quota("cpu", 8))),
            reservation={"second": {"cpu": 4}},
        ),
    ]
    fit = fit_of(objects, pod_set(spec=cpu_spec("6")))
    assert tries(fit) == [("first", Fit.NEVER), ("second", Fit.WAITS)]
    assert verdict_of(fit) == Verdict.WAITING_FOR_QUOTA
    [shortfall] = fit.shortfalls()
    assert (shortfall.flavor, shortfall.requested, shortfall.needed, shortfall.never) == (
        "second",
        Decimal(6),
        Decimal(2),
        False,
    )


def test_a_flavor_without_quota_for_a_covered_resource_cannot_host() -> None:
    objects = [
        resource_flavor("first"),
        resource_flavor("second"),
        cluster_queue(
            "cq",
            group(
                ["cpu", "memory"],
                flavor_quotas("first", quota("cpu", 8)),
                flavor_quotas("second", quota("cpu", 8), quota("memory", "16Gi")),
            ),
        ),
    ]
    fit = fit_of(objects, pod_set(spec=cpu_spec("2", "4Gi")))
    first, second = fit.pod_sets[0].groups[0].tries
    assert first.missing_resources == ("memory",)
    assert (first.fit, second.fit) == (Fit.NO_MATCH, Fit.FITS)


def test_resource_groups_pick_their_flavors_independently() -> None:
    objects = [
        resource_flavor("cpu-flavor"),
        resource_flavor("a100"),
        resource_flavor("h100"),
        cluster_queue(
            "cq",
            group(["cpu"], flavor_quotas("cpu-flavor", quota("cpu", 32))),
            group(
                ["nvidia.com/gpu"],
                flavor_quotas("a100", quota("nvidia.com/gpu", 2)),
                flavor_quotas("h100", quota("nvidia.com/gpu", 8)),
            ),
        ),
    ]
    fit = fit_of(objects, pod_set(count=2, spec=cpu_spec("4", extra={"nvidia.com/gpu": "2"})))
    cpu_group_fit, gpu_group_fit = fit.pod_sets[0].groups
    assert [(a.flavor, a.fit) for a in cpu_group_fit.tries] == [("cpu-flavor", Fit.FITS)]
    # 2 pods x 2 GPU = 4 > a100's 2: never there; h100 fits
    assert [(a.flavor, a.fit) for a in gpu_group_fit.tries] == [("a100", Fit.NEVER), ("h100", Fit.FITS)]
    assert verdict_of(fit) is None


def test_pod_sets_accumulate_on_a_flavor() -> None:
    # two pod sets of 6 cpu on a 10-cpu flavor: the second sees 6 (earlier) + 6 = 12 > 10, like Kueue's
    # "previously considered podsets requests (6) + current podset request (6) > maximum capacity (10)"
    fit = fit_of(
        [FLAVOR, cluster_queue("cq", cpu_group(cpu=10))],
        pod_set("a", spec=cpu_spec("6")),
        pod_set("b", spec=cpu_spec("6")),
    )
    assert [p.fit for p in fit.pod_sets] == [Fit.FITS, Fit.NEVER]
    [shortfall] = fit.shortfalls()
    assert (shortfall.requested, shortfall.capacity.maximum, shortfall.never) == (Decimal(12), Decimal(10), True)
    assert verdict_of(fit) == Verdict.EXCEEDS_MAX_QUOTA


def test_a_later_pod_set_falls_back_when_an_earlier_one_filled_the_first_flavor() -> None:
    # first 4, second 8: pod set a (4) takes first; b (4) sees 4 + 4 > 4 on first, takes second
    objects = [resource_flavor("first"), resource_flavor("second"), two_flavors()]
    fit = fit_of(objects, pod_set("a", spec=cpu_spec("4")), pod_set("b", spec=cpu_spec("4")))
    assert tries(fit, 0) == [("first", Fit.FITS)]
    assert tries(fit, 1) == [("first", Fit.NEVER), ("second", Fit.FITS)]
    assert verdict_of(fit) is None


def test_pods_count_as_a_resource_when_covered() -> None:
    # 3 pods x 1 cpu against cpu 2 and pods 2: both never fit (the blog example)
    objects = [
        FLAVOR,
        cluster_queue("cq", group(["cpu", "pods"], flavor_quotas("default", quota("cpu", 2), quota("pods", 2)))),
    ]
    fit = fit_of(objects, pod_set(count=3, spec=cpu_spec("1")))
    assert sorted((s.resource, s.requested) for s in fit.shortfalls()) == [("cpu", Decimal(3)), ("pods", Decimal(3))]
    assert verdict_of(fit) == Verdict.EXCEEDS_MAX_QUOTA
    assert requested_resources(fit) == {"cpu": Decimal(3)}
    assert max_pods_that_fit(fit, "main", now=False) == 2


def test_max_pods_that_fit_now_and_ever() -> None:
    # 10 cpu, 6 in use; 1.5 cpu per pod: ever 10 // 1.5 = 6 pods, now 4 // 1.5 = 2 pods
    objects = [FLAVOR, cluster_queue("cq", cpu_group(cpu=10), reservation={"default": {"cpu": 6}})]
    fit = fit_of(objects, pod_set(count=8, spec=cpu_spec("1500m")))
    assert verdict_of(fit) == Verdict.EXCEEDS_MAX_QUOTA
    assert max_pods_that_fit(fit, "main", now=False) == 6
    assert max_pods_that_fit(fit, "main", now=True) == 2
    assert max_pods_that_fit(fit, "other", now=True) is None


VERDICTS = [
    ("fits", "2", 10, 0, None),
    ("waits", "6", 10, 6, Verdict.WAITING_FOR_QUOTA),
    ("never", "12", 10, 0, Verdict.EXCEEDS_MAX_QUOTA),
    ("exactly the quota fits", "10", 10, 0, None),
    ("exactly what is free fits", "4", 10, 6, None),
]


@pytest.mark.parametrize(("cpu", "nominal", "used", "verdict"), [v[1:] for v in VERDICTS], ids=[v[0] for v in VERDICTS])
def test_verdict_of(cpu: str, nominal: int, used: int, verdict: Verdict | None) -> None:
    objects = [FLAVOR, cluster_queue("cq", cpu_group(cpu=nominal), reservation={"default": {"cpu": used}})]
    assert verdict_of(fit_of(objects, pod_set(spec=cpu_spec(cpu)))) == verdict


def test_a_selector_without_requirements_still_matches() -> None:
    assert LabelSelector().matches({}) is True
