"""checks.fit_of (how well a Workload fits a ClusterQueue, without making the flavor tries) against the full
flavor search it stands for (checks.fit_in_queue(...).fit), on random ClusterQueues: several resource groups
and flavors, taints and node labels, quotas missing for a resource, borrowing limits, cohorts, usage reported
in the status, flavorFungibility, resources no group covers, one pod set or several."""

from __future__ import annotations

import random
from typing import Any

import pytest
from bot.trace import checks
from bot.trace.checks import Fit
from bot.trace.explain import Query, explain

from tests.builders import (
    NOW,
    Raw,
    assignment,
    cluster_queue,
    container,
    flavor_quotas,
    group,
    local_queue,
    namespace,
    pod_set,
    pod_spec,
    quota,
    reserved,
    resource_flavor,
    snapshot,
    taint,
    toleration,
    workload,
)
from tests.contention import GPU

FLAVORS = ("alpha", "beta", "gamma", "delta")
POLICIES = ("MayStopSearch", "TryNextFlavor")


def _queue(rng: random.Random, index: int) -> Raw:
    names = list(FLAVORS)
    rng.shuffle(names)
    split = rng.randint(1, len(names) - 1)
    groups = []
    for covered, flavors in ((["cpu", "memory"], names[:split]), ([GPU], names[split:])):
        if covered == [GPU] and rng.random() < 0.3:
            continue  # no GPUs in this queue: a GPU request is uncovered
        quotas = []
        for flavor in flavors:
            kept = [r for r in covered if rng.random() < 0.85]  # sometimes no quota for a covered resource
            quotas.append(
                flavor_quotas(
                    flavor,
                    *(quota(r, rng.choice([0, 2, 4, 8, 16]), borrowing=rng.choice([None, None, 0, 4])) for r in kept),
                )
            )
        groups.append(group(covered, *quotas))
    usage = {
        flavor: {r: rng.choice([0, 0, 1, 3, 8, 12]) for r in ("cpu", "memory", GPU)}
        for flavor in FLAVORS
        if rng.random() < 0.6
    }
    cq = cluster_queue(
        f"cq-{index}", *groups, cohort="shared" if rng.random() < 0.7 else None, reservation=usage or None
    )
    if rng.random() < 0.5:
        cq["spec"]["flavorFungibility"] = {
            "whenCanBorrow": rng.choice(POLICIES),
            "whenCanPreempt": rng.choice(POLICIES),
        }
    return cq


def _spec(rng: random.Random) -> Raw:
    requests = {"cpu": str(rng.choice([1, 2, 3, 6])), "memory": str(rng.choice([1, 2, 5]))}
    if rng.random() < 0.4:
        requests[GPU] = str(rng.choice([1, 2, 4]))
    if rng.random() < 0.05:
        requests["ephemeral-storage"] = "1"  # no group covers it
    selector = {"pool": rng.choice(FLAVORS)} if rng.random() < 0.3 else None
    tolerations = [toleration("dedicated", "Exists")] if rng.random() < 0.5 else []
    return pod_spec(container(requests=requests), node_selector=selector, tolerations=tolerations)


def _objects(seed: int) -> list[Raw]:
    rng = random.Random(seed)
    objects: list[Raw] = [namespace("team-a")]
    for name in FLAVORS:
        taints = [taint("dedicated", name)] if rng.random() < 0.3 else []
        objects.append(resource_flavor(name, labels={"pool": name}, taints=taints))
    queues = [_queue(rng, i) for i in range(rng.randint(1, 4))]
    objects += queues
    objects += [local_queue(f"lq-{i}", "team-a", f"cq-{i}") for i in range(len(queues))]
    for n in range(12):
        sets = [pod_set(f"ps-{k}", rng.randint(1, 4), _spec(rng)) for k in range(1 if rng.random() < 0.75 else 2)]
        objects.append(workload(f"w-{n}", "team-a", queue=f"lq-{rng.randrange(len(queues))}", pod_sets=sets))
    return objects


@pytest.mark.parametrize("seed", range(150))
def test_fit_of_is_the_flavor_search_s_fit(seed: int) -> None:
    view = snapshot(_objects(seed))
    seen: dict[Fit, int] = {}
    for cq in view.cluster_queues():
        for wl in view.workloads_in("team-a"):
            expected = checks.fit_in_queue(view, cq, wl.pod_sets, wl).fit
            assert checks.fit_of(view, cq, wl.pod_sets, wl) == expected, (cq.name, wl.name)
            seen[expected] = seen.get(expected, 0) + 1
    assert seen


def test_the_random_queues_reach_every_kind_of_fit() -> None:
    """The generator is not trivial: every kind of fit, with one pod set, comes out of it."""
    kinds: set[Any] = set()
    for seed in range(150):
        view = snapshot(_objects(seed))
        for cq in view.cluster_queues():
            for wl in view.workloads_in("team-a"):
                if len(wl.pod_sets) == 1:
                    kinds.add(checks.fit_in_queue(view, cq, wl.pod_sets, wl).fit)
    assert kinds == set(Fit)


@pytest.mark.parametrize("seed", range(150))
def test_the_question_s_own_search_stands_for_the_plain_one_only_when_it_is_that_one(seed: int) -> None:
    """A question's flavor search weighs preemption (queuecheck); holders and what-if read the plain one
    (checks.shape_fit). The question's is kept for them only when nothing told the two apart (its preemption
    callback never asked, nothing excluded): what they read is the plain search, on every random queue."""
    rng = random.Random(seed)
    objects = _objects(seed)
    for obj in list(objects):  # preemption that can make room: policies, and lower-priority jobs holding quota
        if obj["kind"] == "ClusterQueue":
            obj["spec"]["preemption"] = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}
            name, flavor = obj["metadata"]["name"], obj["spec"]["resourceGroups"][0]["flavors"][0]["name"]
            for k in range(rng.randint(0, 3)):
                usage = {flavor: {"cpu": str(rng.choice([2, 4, 8])), "memory": "1"}}
                status = reserved(name, assignment("main", 1, **usage))
                objects.append(workload(f"held-{name}-{k}", "team-a", queue="elsewhere", priority=0, status=status))
        elif obj["kind"] == "Workload":
            obj["spec"]["priority"] = 100
    view = snapshot(objects)
    for wl in view.workloads_in("team-a"):
        if wl.admission is not None:
            continue
        answer = explain(view, Query("team-a", wl.name, "Workload"), now=NOW)
        own = view.cluster_queue(answer.cluster_queue)
        assert own is not None
        assert checks.shape_fit(view, own, wl) == checks.fit_in_queue(view, own, wl.pod_sets, wl), wl.name
