"""SmallKinds builders of raw Kubernetes and Kueue objects, as `kubectl get -o yaml` returns them.

The Kueue objects come from the one builder of raw Kueue objects (tests/raw_objects.py, which the benchmark and
the demo's generator use too); these builders give them the tests' defaults. Every Kueue object they build
validates against the real CRDs in tests/data/kueue/crds (a test checks them,
and runs ../shared/tools/validate-dump over them too when that folder is there). `snapshot()` decodes them
the way a dump is read, and `explain_objects()` runs the engine on them, so a test reads like the cluster it describes.
"""

from __future__ import annotations

import copy
import hashlib
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import yaml
from bot.forecast.outlook import Outlook, explain_with_outlook
from bot.kube.decode import read_or_unreadable
from bot.trace.explain import Query, explain
from bot.trace.explanation import Explanation
from bot.trace.snapshot import MemorySnapshot

from tests import raw_objects as raw
from tests.raw_objects import JOB_UID_LABEL, KUEUE, KUEUE_V1BETA1, QUEUE_LABEL, Raw, pending_summary

__all__ = ["JOB_UID_LABEL", "KUEUE", "KUEUE_V1BETA1", "QUEUE_LABEL", "Raw", "pending_summary"]  # re-exported

NS = "team-a"
NOW = datetime(2026, 10, 14, 10, 30, tzinfo=UTC)


def stamp(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def ago(minutes: float) -> str:
    """An RFC 3339 time `minutes` before NOW."""
    return stamp(NOW - timedelta(minutes=minutes))


def uid_of(*parts: str) -> str:
    """A stable UID for an object (tests never depend on randomness)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "/".join(parts)))


def kueue_name(kind: str, group: str, name: str, uid: str, max_length: int = 253) -> str:
    """Kueue's Workload name (FACTS §2.1), written out again here so tests do not trust the engine's."""
    digest = hashlib.sha1(f"{kind}\n{group}\n{name}\n{uid}".encode(), usedforsecurity=False).hexdigest()[:5]
    return f"{(kind.lower() + '-' + name)[: max_length - 6]}-{digest}"


def _metadata(
    name: str, namespace: str | None = None, *, uid: str | None = None, created: str | None = None, **fields: Any
) -> Raw:
    """raw_objects.metadata with the tests' defaults: a stable uid, created two hours before NOW, version 1."""
    uid, created = uid or uid_of(namespace or "", name), created or ago(120)
    return raw.metadata(name, namespace, uid=uid, created=created, resource_version="1", **fields)


# --- pods and their templates ---------------------------------------------------------------------


def resources(requests: Mapping[str, str] | None = None, limits: Mapping[str, str] | None = None) -> Raw:
    out: Raw = {}
    if requests is not None:
        out["requests"] = dict(requests)
    if limits is not None:
        out["limits"] = dict(limits)
    return out


def container(
    name: str = "main",
    *,
    requests: Mapping[str, str] | None = None,
    limits: Mapping[str, str] | None = None,
    restart_policy: str | None = None,
) -> Raw:
    out: Raw = {"name": name, "image": "registry.example.com/app:1"}
    if requests is not None or limits is not None:
        out["resources"] = resources(requests, limits)
    if restart_policy is not None:
        out["restartPolicy"] = restart_policy
    return out


def pod_spec(
    *containers: Raw,
    init: Sequence[Raw] = (),
    node_selector: Mapping[str, str] | None = None,
    tolerations: Sequence[Raw] = (),
    affinity: Sequence[Sequence[tuple[str, str, Sequence[str]]]] = (),
    overhead: Mapping[str, str] | None = None,
    pod_resources: Raw | None = None,
    gates: Sequence[str] = (),
) -> Raw:
    """A PodSpec. `affinity` is the required node affinity: a list of terms (OR), each a list of
    (key, operator, values) requirements (AND)."""
    spec: Raw = {"containers": list(containers) or [container(requests={"cpu": "1"})], "restartPolicy": "Never"}
    if init:
        spec["initContainers"] = list(init)
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    if tolerations:
        spec["tolerations"] = list(tolerations)
    if affinity:
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": key, "operator": operator, **({"values": list(values)} if values else {})}
                                for key, operator, values in term
                            ]
                        }
                        for term in affinity
                    ]
                }
            }
        }
    if overhead:
        spec["overhead"] = dict(overhead)
    if pod_resources:
        spec["resources"] = pod_resources
    if gates:
        spec["schedulingGates"] = [{"name": gate} for gate in gates]
    return spec


def cpu_spec(cpu: str = "1", memory: str | None = None, extra: Mapping[str, str] | None = None) -> Raw:
    """A one-container PodSpec requesting `cpu` (and `memory`, and any `extra` resources)."""
    requests = {"cpu": cpu, **({"memory": memory} if memory else {}), **(extra or {})}
    return pod_spec(container(requests=requests))


def toleration(key: str = "", operator: str = "Equal", value: str = "", effect: str = "") -> Raw:
    out: Raw = {"operator": operator}
    if key:
        out["key"] = key
    if value:
        out["value"] = value
    if effect:
        out["effect"] = effect
    return out


def taint(key: str, value: str = "", effect: str = "NoSchedule") -> Raw:
    return {"key": key, "effect": effect, **({"value": value} if value else {})}


# --- jobs ------------------------------------------------------------------------------------------


def owner(obj: Raw, *, controller: bool = True) -> Raw:
    """An ownerReference to a raw object."""
    meta = obj["metadata"]
    return raw.owner_reference(obj["apiVersion"], obj["kind"], meta["name"], meta["uid"], controller=controller)


def job(
    name: str = "train",
    namespace: str = NS,
    *,
    queue: str | None = "user-queue",
    spec: Raw | None = None,
    parallelism: int = 1,
    completions: int | None = None,
    suspend: bool = True,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    owners: Sequence[Raw] = (),
    created: str | None = None,
) -> Raw:
    all_labels = {**({QUEUE_LABEL: queue} if queue else {}), **(labels or {})}
    body: Raw = {
        "parallelism": parallelism,
        "suspend": suspend,
        "template": {"metadata": {"labels": {"batch.kubernetes.io/job-name": name}}, "spec": spec or cpu_spec()},
    }
    if completions is not None:
        body["completions"] = completions
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": _metadata(
            name, namespace, labels=all_labels, annotations=annotations, owners=owners, created=created
        ),
        "spec": body,
        "status": {},
    }


def jobset(name: str, namespace: str = NS, *, queue: str | None = "user-queue", replicas: int = 2) -> Raw:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": _metadata(name, namespace, labels={QUEUE_LABEL: queue} if queue else None),
        "spec": {
            "suspend": True,
            "replicatedJobs": [
                {
                    "name": "workers",
                    "replicas": replicas,
                    "template": {"spec": {"parallelism": 1, "template": {"spec": cpu_spec()}}},
                }
            ],
        },
    }


def pod(
    name: str,
    namespace: str = NS,
    *,
    phase: str = "Pending",
    owned_by: Raw | None = None,
    node: str | None = None,
    spec: Raw | None = None,
    labels: Mapping[str, str] | None = None,
    conditions: Sequence[Raw] = (),
) -> Raw:
    body = dict(spec or cpu_spec())
    if node:
        body["nodeName"] = node
    all_labels = dict(labels or {})
    if owned_by is not None and owned_by["kind"] == "Job":
        all_labels.setdefault("batch.kubernetes.io/job-name", owned_by["metadata"]["name"])
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": _metadata(
            name, namespace, labels=all_labels, owners=[owner(owned_by)] if owned_by is not None else ()
        ),
        "spec": body,
        "status": {"phase": phase, **({"conditions": list(conditions)} if conditions else {})},
    }


def event(about: Raw, reason: str, message: str, *, type: str = "Normal", at: str | None = None) -> Raw:
    meta = about["metadata"]
    namespace = meta.get("namespace", "default")
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": _metadata(f"{meta['name']}.{reason.lower()}", namespace, created=at),
        "involvedObject": {
            "apiVersion": about["apiVersion"],
            "kind": about["kind"],
            "name": meta["name"],
            "namespace": namespace,
            "uid": meta["uid"],
        },
        "reason": reason,
        "message": message,
        "type": type,
        "count": 1,
        "firstTimestamp": at or ago(60),
        "lastTimestamp": at or ago(60),
        "source": {"component": "kueue-admission"},
    }


def namespace(name: str = NS, labels: Mapping[str, str] | None = None) -> Raw:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": _metadata(name, labels={"kubernetes.io/metadata.name": name, **(labels or {})}),
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def node(name: str, labels: Mapping[str, str] | None = None) -> Raw:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": _metadata(name, labels=labels),
        "spec": {},
        "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}},
    }


# --- Kueue objects ---------------------------------------------------------------------------------


def condition(type: str, status: bool | str, reason: str, message: str = "", at: str | None = None) -> Raw:
    text = status if isinstance(status, str) else ("True" if status else "False")
    return raw.condition(type, text, reason, message, at or ago(30))


def pod_set(name: str = "main", count: int = 1, spec: Raw | None = None) -> Raw:
    return raw.pod_set(name, count, {"spec": spec or cpu_spec()})


def assignment(name: str = "main", count: int = 1, **usage_by_flavor: Mapping[str, str]) -> Raw:
    """A podSetAssignment: assignment("main", 2, default={"cpu": "4"}) -> cpu 4 in flavor default."""
    flavors = {resource: flavor for flavor, usage in usage_by_flavor.items() for resource in usage}
    usage = {resource: amount for values in usage_by_flavor.values() for resource, amount in values.items()}
    return raw.pod_set_assignment(name, count, flavors, usage)


def reserved(cluster_queue: str, *assignments: Raw, admitted: bool = True, at: str | None = None) -> Raw:
    """The status of a Workload holding quota in `cluster_queue` (and admitted, unless told)."""
    conditions = [raw.quota_reserved(cluster_queue, at or ago(30))]
    if admitted:
        conditions.append(raw.admitted(at or ago(30)))
    return {"admission": raw.admission(cluster_queue, assignments), "conditions": conditions}


def check_state(name: str, state: str, message: str = "", at: str | None = None) -> Raw:
    return raw.check_state(name, state, message, at or ago(10))


def workload(
    name: str | None = None,
    namespace: str = NS,
    *,
    of: Raw | None = None,
    queue: str = "user-queue",
    pod_sets: Sequence[Raw] = (),
    priority: int | None = None,
    priority_class: str | None = None,
    active: bool | None = None,
    status: Raw | None = None,
    conditions: Sequence[Raw] = (),
    created: str | None = None,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    api_version: str = KUEUE,
    uid: str | None = None,
) -> Raw:
    """A Workload. `of` is the job it represents: the name, the job-uid label, the controller
    ownerReference and the pod set are taken from it, as Kueue's job reconciler does."""
    all_labels = dict(labels or {})
    owners: list[Raw] = []
    sets = list(pod_sets)
    if of is not None:
        meta = of["metadata"]
        group = of["apiVersion"].rpartition("/")[0]
        name = name or kueue_name(of["kind"], group, meta["name"], meta["uid"])
        all_labels.setdefault(JOB_UID_LABEL, meta["uid"])
        owners.append(owner(of))
        if not sets and of["kind"] == "Job":
            spec = of["spec"]
            count = min(spec.get("parallelism", 1), spec.get("completions", spec.get("parallelism", 1)))
            sets = [raw.pod_set("main", count, copy.deepcopy(spec["template"]))]
    assert name, "a Workload needs a name (or a job to take it from)"
    full_status = dict(status or {})
    if conditions:
        full_status["conditions"] = [*full_status.get("conditions", []), *conditions]
    metadata = _metadata(
        name, namespace, uid=uid, created=created, labels=all_labels, annotations=annotations, owners=owners
    )
    return raw.workload(
        {**metadata, "finalizers": [raw.RESOURCE_IN_USE]},
        pod_sets=sets or [pod_set()],
        queue=queue,
        priority=priority,
        priority_class=priority_class,
        active=active,
        status=full_status,
        api_version=api_version,
    )


def local_queue(
    name: str = "user-queue",
    namespace: str = NS,
    cluster_queue: str = "cq",
    *,
    stop_policy: str | None = None,
    api_version: str = KUEUE,
) -> Raw:
    meta = _metadata(name, namespace)
    return raw.local_queue(meta, cluster_queue, stop_policy=stop_policy, status={}, api_version=api_version)


def quota(
    resource: str, nominal: str | int, *, borrowing: str | int | None = None, lending: str | int | None = None
) -> Raw:
    return raw.quota(
        resource,
        str(nominal),
        borrowing=None if borrowing is None else str(borrowing),
        lending=None if lending is None else str(lending),
    )


def flavor_quotas(name: str, *quotas: Raw) -> Raw:
    return raw.flavor_quotas(name, quotas)


def group(covered: Sequence[str], *flavors: Raw) -> Raw:
    return raw.resource_group(covered, flavors)


def cpu_group(flavor: str = "default", cpu: str | int = 10, **limits: str | int | None) -> Raw:
    """One resource group covering cpu with one flavor."""
    return group(["cpu"], flavor_quotas(flavor, quota("cpu", cpu, **limits)))


def usage_status(by_flavor: Mapping[str, Mapping[str, str | int]]) -> list[Raw]:
    return [
        raw.flavor_usage(flavor, [(r, str(v), "0") for r, v in values.items()]) for flavor, values in by_flavor.items()
    ]


def cluster_queue(
    name: str = "cq",
    *groups: Raw,
    cohort: str | None = None,
    selector: Raw | None = None,
    stop_policy: str | None = None,
    strategy: str | None = None,
    reservation: Mapping[str, Mapping[str, str | int]] | None = None,
    conditions: Sequence[Raw] | None = None,
    checks: Sequence[str] = (),
    api_version: str = KUEUE,
) -> Raw:
    status = raw.queue_status(
        conditions if conditions is not None else [raw.cluster_queue_active(ago(600))],
        reservation=None if reservation is None else usage_status(reservation),
        usage=None if reservation is None else usage_status(reservation),
    )
    return raw.cluster_queue(
        _metadata(name),
        list(groups) or [cpu_group()],
        status=status,
        cohort=cohort,
        selector=selector,
        stop_policy=stop_policy,
        strategy=strategy,
        checks=checks,
        api_version=api_version,
    )


def resource_flavor(
    name: str = "default",
    *,
    labels: Mapping[str, str] | None = None,
    taints: Sequence[Raw] = (),
    tolerations: Sequence[Raw] = (),
) -> Raw:
    return raw.resource_flavor(_metadata(name), node_labels=labels, taints=taints, tolerations=tolerations)


def cohort(name: str, *groups: Raw, parent: str | None = None) -> Raw:
    return raw.cohort(_metadata(name), parent=parent, groups=groups)


def admission_check(name: str, controller: str = "kueue.x-k8s.io/provisioning-request") -> Raw:
    return raw.admission_check(_metadata(name), controller, conditions=[raw.admission_check_active(ago(600))])


def priority_class(name: str, value: int) -> Raw:
    return raw.priority_class(_metadata(name), value)


# --- a small cluster, and the engine on it ----------------------------------------------------------


def cluster(cpu: str | int = 10, **cq: Any) -> list[Raw]:
    """A namespace, flavor "default", ClusterQueue "cq" (cpu `cpu`), LocalQueue team-a/user-queue -> cq."""
    return [namespace(), resource_flavor(), cluster_queue("cq", cpu_group(cpu=cpu), **cq), local_queue()]


def pending(
    name: str = "train",
    *,
    cpu: str = "1",
    count: int = 1,
    namespace_name: str = NS,
    queue: str = "user-queue",
    spec: Raw | None = None,
    created: str | None = None,
    **wl: Any,
) -> list[Raw]:
    """A suspended Job of `count` pods x `cpu` and its Workload (extra keywords go to the Workload)."""
    the_job = job(
        name,
        namespace_name,
        queue=queue,
        parallelism=count,
        spec=spec or cpu_spec(cpu),
        created=created,
    )
    return [the_job, workload(of=the_job, namespace=namespace_name, queue=queue, created=created, **wl)]


def flatten(documents: Iterable[object]) -> list[Raw]:
    """The objects of YAML documents, `kind: List` items included."""
    out: list[Raw] = []
    for document in documents:
        if isinstance(document, dict) and isinstance(document.get("items"), list) and document.get("kind") == "List":
            out.extend(item for item in document["items"] if isinstance(item, dict))
        elif isinstance(document, dict):
            out.append(document)
    return out


def snapshot(objects: Iterable[Raw]) -> MemorySnapshot:
    decoded: list[object] = []
    for obj in objects:
        decoded.extend(read_or_unreadable(obj))  # what the bot cannot read is named (bot.trace.unreadable)
    return MemorySnapshot(decoded)


def explain_objects(
    objects: Iterable[Raw], name: str = "train", *, namespace: str = NS, kind: str | None = "Job", now: datetime = NOW
) -> Explanation:
    return explain(snapshot(objects), Query(namespace, name, kind), now=now)


def foresee_objects(
    objects: Iterable[Raw], name: str = "train", *, namespace: str = NS, kind: str | None = "Job", now: datetime = NOW
) -> tuple[Explanation, Outlook]:
    """`explain_objects` with the forecast beside it (when, who holds it, what would admit it)."""
    return explain_with_outlook(snapshot(objects), Query(namespace, name, kind), now=now)


class _NoAliasDumper(yaml.SafeDumper):
    """kubectl never writes anchors and aliases, even where a test shares one dict between two objects."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def as_yaml(objects: Iterable[Raw]) -> str:
    return yaml.dump_all(list(objects), Dumper=_NoAliasDumper, sort_keys=False)


def step_codes(explanation: Explanation) -> list[str]:
    return [step.code for step in explanation.steps]


def action_codes(explanation: Explanation) -> list[str]:
    return [action.code for action in explanation.actions]
