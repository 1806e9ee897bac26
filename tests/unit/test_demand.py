"""What a Workload asks for: Kubernetes pod-request rules, times the pod count, summed over pod sets."""

from __future__ import annotations

from decimal import Decimal

import pytest
from bot.kube.decode import pod_template
from bot.trace.demand import (
    PODS,
    assigned,
    pod_requests,
    pod_set_count,
    pod_set_demand,
    templates_demand,
    workload_demand,
)
from bot.trace.model import Admission, Container, Meta, PodSet, PodSetAssignment, PodTemplate, Workload
from bot.trace.quantity import parse_map

from tests.builders import container, pod_spec

D = Decimal
GI = D(1024) ** 3


def c(
    requests: dict[str, str] | None = None, limits: dict[str, str] | None = None, *, sidecar: bool = False
) -> Container:
    return Container(
        "c", parse_map(requests or {}), parse_map(limits or {}), restart_policy="Always" if sidecar else ""
    )


def t(*containers: Container, init: tuple[Container, ...] = (), **extra: dict[str, str]) -> PodTemplate:
    return PodTemplate(
        containers=containers,
        init_containers=init,
        overhead=parse_map(extra.get("overhead", {})),
        pod_requests=parse_map(extra.get("pod_requests", {})),
        pod_limits=parse_map(extra.get("pod_limits", {})),
    )


POD_REQUESTS = [
    ("one container", t(c({"cpu": "2", "memory": "4Gi"})), {"cpu": D(2), "memory": 4 * GI}),
    # 1 + 0.5 cpu, 1Gi + 512Mi
    (
        "containers are summed",
        t(c({"cpu": "1", "memory": "1Gi"}), c({"cpu": "500m", "memory": "512Mi"})),
        {"cpu": D("1.5"), "memory": D("1.5") * GI},
    ),
    # max(sum 1.5, init 4) cpu = 4; memory max(1.5Gi, 1Gi) = 1.5Gi
    (
        "a larger init container wins",
        t(
            c({"cpu": "1", "memory": "1Gi"}),
            c({"cpu": "500m", "memory": "512Mi"}),
            init=(c({"cpu": "4", "memory": "1Gi"}),),
        ),
        {"cpu": D(4), "memory": D("1.5") * GI},
    ),
    # init containers run one at a time: the largest of them (3), not their sum (5), against the sum (2)
    (
        "init containers by maximum, not summed",
        t(c({"cpu": "2"}), init=(c({"cpu": "3"}), c({"cpu": "2"}))),
        {"cpu": D(3)},
    ),
    # a sidecar (restartPolicy Always) runs with the containers: 2 + 1 = 3
    ("a sidecar is added to the containers", t(c({"cpu": "2"}), init=(c({"cpu": "1"}, sidecar=True),)), {"cpu": D(3)}),
    # sidecar 1 starts first, so the regular init 2.5 runs beside it: 3.5 > containers 2 + sidecar 1 = 3
    (
        "a regular init container after a sidecar runs beside it",
        t(c({"cpu": "2"}), init=(c({"cpu": "1"}, sidecar=True), c({"cpu": "2500m"}))),
        {"cpu": D("3.5")},
    ),
    # the regular init 2.5 runs before the sidecar starts: max(2.5, containers 2 + sidecar 1 = 3) = 3
    (
        "a regular init container before a sidecar runs alone",
        t(c({"cpu": "2"}), init=(c({"cpu": "2500m"}), c({"cpu": "1"}, sidecar=True))),
        {"cpu": D(3)},
    ),
    # 1 cpu + 250m overhead (RuntimeClass)
    (
        "overhead is added",
        t(c({"cpu": "1"}), overhead={"cpu": "250m", "memory": "64Mi"}),
        {"cpu": D("1.25"), "memory": 64 * D(1024) ** 2},
    ),
    # pod-level resources replace the containers' sum for the resources they set (cpu 4, not 1 + 1); memory
    # stays the containers' sum; overhead still added on top
    (
        "pod-level resources replace the containers' sum",
        t(c({"cpu": "1", "memory": "1Gi"}), c({"cpu": "1"}), pod_requests={"cpu": "4"}, overhead={"cpu": "100m"}),
        {"cpu": D("4.1"), "memory": GI},
    ),
    ("pod-level limits stand in for pod-level requests", t(c({"cpu": "1"}), pod_limits={"cpu": "3"}), {"cpu": D(3)}),
    # nvidia.com/gpu only as a limit: the limit is the request
    (
        "a limit stands in for a missing request",
        t(c({"cpu": "1"}, {"cpu": "2", "nvidia.com/gpu": "1"})),
        {"cpu": D(1), "nvidia.com/gpu": D(1)},
    ),
    # a memory limit does not override the memory request
    ("a request wins over its limit", t(c({"memory": "24Gi"}, {"memory": "32Gi"})), {"memory": 24 * GI}),
    ("limits only", t(c(None, {"cpu": "2", "memory": "1Gi"})), {"cpu": D(2), "memory": GI}),
    ("zero requests are dropped", t(c({"cpu": "1", "example.com/fpga": "0"})), {"cpu": D(1)}),
    ("nothing asked", t(c()), {}),
]


@pytest.mark.parametrize(("template", "expected"), [p[1:] for p in POD_REQUESTS], ids=[p[0] for p in POD_REQUESTS])
def test_pod_requests(template: PodTemplate, expected: dict[str, Decimal]) -> None:
    assert pod_requests(template) == expected


def test_pod_requests_of_a_decoded_pod_spec() -> None:
    # containers 10 + 0.5 cpu, 80Gi + 512Mi; init 2 cpu / 96Gi; gpu only as a limit -> 10.5 cpu, 96Gi, 4 GPU
    spec = pod_spec(
        container("trainer", requests={"cpu": "10", "memory": "80Gi"}, limits={"nvidia.com/gpu": "4"}),
        container("sidecar", requests={"cpu": "500m", "memory": "512Mi"}),
        init=[container("warmup", requests={"cpu": "2", "memory": "96Gi"})],
    )
    assert pod_requests(pod_template(spec)) == {"cpu": D("10.5"), "memory": 96 * GI, "nvidia.com/gpu": D(4)}


def _workload(
    *pod_sets: PodSet, reclaimable: dict[str, int] | None = None, admission: Admission | None = None
) -> Workload:
    return Workload(Meta("Workload", "wl", "ns"), "q", pod_sets, reclaimable=reclaimable or {}, admission=admission)


ONE_CPU = t(c({"cpu": "1", "memory": "2Gi"}))


def test_pod_set_demand_is_per_pod_times_count_with_pods() -> None:
    assert pod_set_demand(PodSet("main", 3, ONE_CPU)) == {"cpu": D(3), "memory": 6 * GI, PODS: D(3)}


def test_reclaimable_pods_are_not_counted() -> None:
    # 5 workers, 2 already reclaimed: 3 count
    workers = PodSet("workers", 5, ONE_CPU)
    workload = _workload(PodSet("driver", 1, ONE_CPU), workers, reclaimable={"workers": 2})
    assert pod_set_count(workers, workload) == 3
    assert pod_set_count(workers) == 5
    assert pod_set_count(PodSet("workers", 1, ONE_CPU), _workload(reclaimable={"workers": 4})) == 0
    # driver 1 + workers 3 = 4 pods, 4 cpu, 8Gi
    assert workload_demand(workload) == {"cpu": D(4), "memory": 8 * GI, PODS: D(4)}


PER_SET = [
    # launcher 1 x 1 cpu + workers 4 x (2 cpu, 1 GPU as limit): cpu 9, GPU 4, pods 5
    (
        "mpi",
        [PodSet("launcher", 1, t(c({"cpu": "1"}))), PodSet("worker", 4, t(c({"cpu": "2"}, {"nvidia.com/gpu": "1"})))],
        {"cpu": D(9), "nvidia.com/gpu": D(4), PODS: D(5)},
    ),
    ("single", [PodSet("main", 2, ONE_CPU)], {"cpu": D(2), "memory": 4 * GI, PODS: D(2)}),
    ("zero pods", [PodSet("main", 0, ONE_CPU)], {"cpu": D(0), "memory": D(0), PODS: D(0)}),
]


@pytest.mark.parametrize(("pod_sets", "expected"), [p[1:] for p in PER_SET], ids=[p[0] for p in PER_SET])
def test_workload_demand_sums_pod_sets(pod_sets: list[PodSet], expected: dict[str, Decimal]) -> None:
    assert workload_demand(_workload(*pod_sets)) == expected


def test_templates_demand_for_a_job_without_workload() -> None:
    # head 1 x 1 cpu + 3 x 2 cpu = 7 cpu, 4 pods
    assert templates_demand([(t(c({"cpu": "1"})), 1), (t(c({"cpu": "2"})), 3)]) == {"cpu": D(7), PODS: D(4)}
    assert templates_demand([]) == {}


def test_assigned_is_per_flavor() -> None:
    admission = Admission(
        "cq",
        (
            PodSetAssignment("a", {"cpu": "on-demand", "memory": "on-demand"}, {"cpu": D(2), "memory": GI}),
            PodSetAssignment("b", {"cpu": "spot", "memory": "on-demand"}, {"cpu": D(4), "memory": GI}),
        ),
    )
    assert assigned(_workload(admission=admission)) == {
        "on-demand": {"cpu": D(2), "memory": 2 * GI},
        "spot": {"cpu": D(4)},
    }
    assert assigned(_workload()) == {}
