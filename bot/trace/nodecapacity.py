"""Admitted, yet its pods wait: when the nodes cannot hold what the quota admits. Kueue admits against the
ClusterQueue's quota, never against the nodes (FACTS §6: quota is an accounting of the ClusterQueue's
nominalQuota; the kube-scheduler places the pods). When the nodes a flavor sends pods to have less of a
resource allocatable in all than the ClusterQueue's quota of it (nodes gone, cordoned, or reporting less, as
a node with failed GPUs does: its device plugin lowers status.allocatable), the quota admits work the nodes
cannot run: that is the root cause, not the pods' nodeSelector."""

from __future__ import annotations

from decimal import Decimal

from bot.trace.codes import Outcome
from bot.trace.explanation import Value
from bot.trace.model import Node, Workload
from bot.trace.quantity import human
from bot.trace.walk import Walk

ZERO = Decimal(0)
_SELECTOR_ADVICE = "check-node-selector"


def _nodes_of(walk: Walk, labels: dict[str, str]) -> list[Node]:
    return [
        node
        for node in walk.snapshot.nodes()
        if not node.unschedulable and all(node.meta.labels.get(k) == v for k, v in labels.items())
    ]


def below_quota(walk: Walk, workload: Workload, scheduler_says: str) -> dict[str, Value | None]:
    """For a resource the scheduler finds insufficient ("Insufficient nvidia.com/gpu"), whether the schedulable
    nodes of its assigned flavor hold less of it allocatable in all than the ClusterQueue's nominal quota: a
    step, the admin's fix first (the nodeSelector advice gives way) and the headline's parameters."""
    admission = workload.admission
    cq = walk.snapshot.cluster_queue(admission.cluster_queue) if admission is not None else None
    if admission is None or cq is None or not walk.snapshot.nodes():
        return {}
    for assignment in admission.assignments:
        for resource, flavor_name in sorted(assignment.flavors.items()):
            if f"Insufficient {resource}" not in scheduler_says:
                continue
            quota = next(
                (f.quota(resource) for g in cq.resource_groups for f in g.flavors if f.name == flavor_name), None
            )
            flavor = walk.snapshot.flavor(flavor_name)
            if quota is None or flavor is None:
                continue
            nodes = _nodes_of(walk, dict(flavor.node_labels))
            allocatable = sum((node.allocatable.get(resource, ZERO) for node in nodes), ZERO)
            if allocatable >= quota.nominal:
                continue
            params: dict[str, Value | None] = {
                "flavor": flavor_name,
                "resource": resource,
                "allocatable": human(allocatable, resource),
                "quota": human(quota.nominal, resource),
                "nodes": len(nodes),
                "cluster_queue": cq.name,
            }
            walk.step("scheduling", Outcome.FAIL, "scheduling.nodes-below-quota", params)
            walk.actions[:] = [action for action in walk.actions if action.code != _SELECTOR_ADVICE]
            walk.act("ask-admin-node-capacity", params, lead=True)
            return params
    return {}
