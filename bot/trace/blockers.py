"""The thing in the way, named: the namespaceSelector requirement a namespace fails, the Kueue version the
objects reveal (what it makes of the queue-name annotation), and the shortfalls of every resource.

Pure: it reads decoded objects and returns values; the rooms of the engine (queuecheck, advice, explain)
turn them into steps and actions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from bot.trace.explanation import Text
from bot.trace.model import QUEUE_NAME_LABEL, Job, LabelSelector, Requirement
from bot.trace.quantity import human
from bot.trace.snapshot import Snapshot

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"  # the API server sets it on every Namespace


# --- the namespaceSelector -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unmet:
    """The first requirement of a ClusterQueue's namespaceSelector a namespace fails
    (metav1.LabelSelectorAsSelector: matchLabels first, then matchExpressions, all ANDed)."""

    requirement: str  # "team=ml", "team In (ml, ai)", "team Exists"
    key: str
    actual: str | None  # the namespace's value of `key`; None when it has no such label
    fix: str = ""  # a label (key=value) that meets it, when one label does

    @property
    def has(self) -> Text:
        """What the namespace has, as a sentence fragment."""
        if self.actual is None:
            return Text("fragment.label-absent", {"key": self.key})
        return Text("fragment.label-value", {"key": self.key, "value": self.actual})


def _expression(requirement: Requirement) -> str:
    values = f" ({', '.join(requirement.values)})" if requirement.values else ""
    return f"{requirement.key} {requirement.operator}{values}"


def _fix(requirement: Requirement) -> str:
    if requirement.operator == "In" and requirement.values:
        return f"{requirement.key}={requirement.values[0]}"
    return ""


def unmet_requirement(selector: LabelSelector | None, labels: Mapping[str, str]) -> Unmet | None:
    """The first requirement of `selector` that `labels` fail; None when they meet them all."""
    if selector is None:
        return None
    for key, value in selector.match_labels.items():
        if labels.get(key) != value:
            return Unmet(f"{key}={value}", key, labels.get(key), f"{key}={value}")
    for requirement in selector.expressions:
        if not requirement.matches(labels):
            return Unmet(_expression(requirement), requirement.key, labels.get(requirement.key), _fix(requirement))
    return None


def namespace_unmet(snapshot: Snapshot, selector: LabelSelector | None, namespace: str) -> Unmet | None:
    """The requirement the namespace fails, from its labels when the snapshot holds it (None: it meets them
    all, or its labels are not known)."""
    known = snapshot.namespace(namespace)
    if known is None:
        return None
    return unmet_requirement(selector, {**known.meta.labels, NAMESPACE_NAME_LABEL: namespace})


# --- the Kueue version the objects reveal ----------------------------------------------------------------

V1BETA2 = "kueue.x-k8s.io/v1beta2"
V1BETA1 = "kueue.x-k8s.io/v1beta1"


def kueue_api_version(snapshot: Snapshot, namespace: str) -> str:
    """The API version of the Kueue objects the snapshot holds ("" when it holds none): v1beta2 objects
    come from Kueue v0.15 or later (v1beta2 was added in v0.15.0); v1beta1 alone is an older Kueue, or a
    newer one still serving v1beta1."""
    found = {lq.meta.api_version for lq in snapshot.local_queues_in(namespace)}
    found.update(cq.meta.api_version for cq in snapshot.cluster_queues())
    if V1BETA2 in found:
        return V1BETA2
    return V1BETA1 if V1BETA1 in found else ""


def queue_by_annotation_only(job: Job) -> str:
    """The queue a job names by the annotation kueue.x-k8s.io/queue-name alone ("" when it has the label,
    or neither). Kueue read the annotation as a deprecated fallback until v0.14 (jobframework/interface.go
    QueueNameForObject); v0.15.0 removed it (#7271): from then on only the label counts."""
    if job.meta.labels.get(QUEUE_NAME_LABEL):
        return ""
    return job.meta.annotations.get(QUEUE_NAME_LABEL, "").strip()


# --- every resource that is short ------------------------------------------------------------------------


@dataclass(frozen=True)
class Short:
    """One resource of one flavor that does not fit: asked `requested`, `limit` at most (never fits) or
    `needed` more than is free now (waits)."""

    resource: str
    flavor: str
    requested: str = ""
    limit: str = ""
    needed: str = ""


def short_list(shorts: Iterable[Short], *, never: bool, flavor: str = "") -> str:
    """ "cpu 3 > 2, pods 3 > 2" (never) or "cpu 2, pods 1" (waits: how much more must be free), the flavor
    named where it is not `flavor`; units and notation are the same in every language."""
    parts = []
    for short in shorts:
        value = f"{short.requested} > {short.limit}" if never else short.needed
        where = f" ({short.flavor})" if short.flavor and short.flavor != flavor else ""
        parts.append(f"{short.resource} {value}{where}")
    return ", ".join(parts)


def unique(shorts: Sequence[Short]) -> list[Short]:
    """One entry per (flavor, resource), the last kept (later pod sets count the earlier ones' requests)."""
    by_key: dict[tuple[str, str], Short] = {}
    for short in shorts:
        by_key.pop((short.flavor, short.resource), None)
        by_key[(short.flavor, short.resource)] = short
    return list(by_key.values())


def amount(value: Decimal, resource: str) -> str:
    return human(value, resource)
