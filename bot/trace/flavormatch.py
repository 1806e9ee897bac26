"""Whether a ResourceFlavor can take a pod set at all, whatever its quota: the flavor's taints against the pod
set's tolerations, and the flavor's node labels against the pod set's nodeSelector and required node affinity,
with the label keys Kueue compares (flavorassigner.go, flavorSelector)."""

from __future__ import annotations

from bot.trace.model import ClusterQueue, PodSet, ResourceFlavor, Taint
from bot.trace.snapshot import Snapshot

_BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def untolerated_taint(pod_set: PodSet, flavor: ResourceFlavor) -> Taint | None:
    """The first NoSchedule/NoExecute taint of the flavor that neither the pod set nor the flavor tolerates."""
    tolerations = pod_set.template.tolerations + flavor.tolerations
    for taint in flavor.node_taints:
        if taint.effect in _BLOCKING_EFFECTS and not any(t.tolerates(taint) for t in tolerations):
            return taint
    return None


def matches_node_labels(pod_set: PodSet, flavor: ResourceFlavor, keys: frozenset[str] | None = None) -> bool:
    """Kueue's rule: the pod set's nodeSelector and required node affinity, restricted to the label keys
    `keys` (by default the flavor's own), must match the flavor's nodeLabels; a term left with no key
    matches any flavor (flavorassigner.go, flavorSelector)."""
    labels = flavor.node_labels
    allowed = keys if keys is not None else labels.keys()
    for key, value in pod_set.template.node_selector.items():
        if key in allowed and labels.get(key) != value:
            return False
    terms = pod_set.template.affinity_terms
    if not terms:
        return True
    for term in terms:
        relevant = [requirement for requirement in term if requirement.key in allowed]
        if all(requirement.matches(labels) for requirement in relevant):
            return True
    return False


def excluding_keys(pod_set: PodSet, flavor: ResourceFlavor, keys: frozenset[str] | None = None) -> tuple[str, ...]:
    """The label keys of the pod set's nodeSelector (and required affinity) on which `flavor` fails, with
    Kueue's rule for `keys` (see matches_node_labels): the labels that exclude it."""
    labels = flavor.node_labels
    allowed = keys if keys is not None else labels.keys()
    found = [
        key for key, value in pod_set.template.node_selector.items() if key in allowed and labels.get(key) != value
    ]
    for term in pod_set.template.affinity_terms:
        found.extend(r.key for r in term if r.key in allowed and not r.matches(labels))
    return tuple(dict.fromkeys(found))


def group_label_keys(snapshot: Snapshot, cq: ClusterQueue, flavor_name: str) -> frozenset[str] | None:
    """The label keys Kueue restricts a pod set's node selector to when it tries `flavor_name`. Since #12449
    (in v0.17.6, v0.18.2 and v0.19.0): the flavor's own (None here). Before: those of every flavor of the
    resource group (pkg/cache/clusterqueue.go updateLabelKeys; v0.14.0 flavorassigner.go:691,856-900), so a
    flavor without a key another flavor sets does not match a selector on that key. The objects' API
    version tells which Kueue wrote them: v1beta1 only (v1beta2 came in v0.15) is a Kueue before the fix."""
    if not cq.meta.api_version.endswith("/v1beta1"):
        return None
    for group in cq.resource_groups:
        if any(f.name == flavor_name for f in group.flavors):
            keys: set[str] = set()
            for quotas in group.flavors:
                known = snapshot.flavor(quotas.name)
                if known is not None:
                    keys.update(known.node_labels)
            return frozenset(keys)
    return None
