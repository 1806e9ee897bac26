"""The one builder of raw Kueue objects, as the API server returns them (and the metadata, conditions and owner
references they carry). The tests' builders (tests/builders.py), the benchmark's generator (bench/run.py) and
the demo's generator (tools/build_cluster.py) all make their Kueue objects here, each with its own values.

A field whose argument is None (or empty, for lists and maps) is left out, so that each caller gets exactly the
fields it sets: the benchmark's objects are lean, the demo's are what kubectl shows. Plain dicts and the
standard library only: importing this module imports nothing of the bot, and the product never imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Raw = dict[str, Any]

KUEUE = "kueue.x-k8s.io/v1beta2"
KUEUE_V1BETA1 = "kueue.x-k8s.io/v1beta1"
RESOURCE_IN_USE = "kueue.x-k8s.io/resource-in-use"  # the finalizer Kueue puts on what admissions use
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


# --- what every object carries ----------------------------------------------------------------------------


def metadata(
    name: str,
    namespace: str | None = None,
    *,
    uid: str | None = None,
    created: str | None = None,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    owners: Sequence[Raw] = (),
    resource_version: str | None = None,
    **extra: Any,
) -> Raw:
    """An object's metadata; `extra` are further fields by their API names (finalizers=..., generation=...),
    left out when None."""
    meta: Raw = {"name": name}
    if uid is not None:
        meta["uid"] = uid
    if created is not None:
        meta["creationTimestamp"] = created
    if namespace is not None:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = dict(labels)
    if annotations:
        meta["annotations"] = dict(annotations)
    if owners:
        meta["ownerReferences"] = list(owners)
    if resource_version is not None:
        meta["resourceVersion"] = resource_version
    meta.update({key: value for key, value in extra.items() if value is not None})
    return meta


def owner_reference(api_version: str, kind: str, name: str, uid: str, *, controller: bool = True) -> Raw:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": name,
        "uid": uid,
        "controller": controller,
        "blockOwnerDeletion": True,
    }


def condition(
    type: str, status: str, reason: str, message: str, at: str, *, observed_generation: int | None = None
) -> Raw:
    """A status condition; `status` is "True", "False" or "Unknown"."""
    out: Raw = {"type": type, "status": status, "reason": reason, "message": message, "lastTransitionTime": at}
    if observed_generation is not None:
        out["observedGeneration"] = observed_generation
    return out


# --- Workloads ----------------------------------------------------------------------------------------------


def pod_set(name: str, count: int, template: Raw, *, topology_request: Raw | None = None) -> Raw:
    """A Workload's pod set; `template` is a PodTemplateSpec ({"metadata"?, "spec"})."""
    out: Raw = {"name": name, "count": count, "template": template}
    if topology_request is not None:
        out["topologyRequest"] = topology_request
    return out


def workload(
    meta: Raw,
    *,
    pod_sets: Sequence[Raw],
    queue: str,
    status: Raw,
    priority: int | None = None,
    priority_class: str | None = None,
    active: bool | None = None,
    api_version: str = KUEUE,
) -> Raw:
    """A Workload. Its WorkloadPriorityClass as v1beta2 names it (priorityClassRef) or v1beta1
    (priorityClassName and priorityClassSource), by `api_version`."""
    spec: Raw = {"podSets": list(pod_sets), "queueName": queue}
    if priority is not None:
        spec["priority"] = priority
    if priority_class is not None:
        if api_version == KUEUE:
            spec["priorityClassRef"] = {
                "group": "kueue.x-k8s.io",
                "kind": "WorkloadPriorityClass",
                "name": priority_class,
            }
        else:
            spec["priorityClassName"] = priority_class
            spec["priorityClassSource"] = "kueue.x-k8s.io/workloadpriorityclass"
    if active is not None:
        spec["active"] = active
    return {"apiVersion": api_version, "kind": "Workload", "metadata": meta, "spec": spec, "status": status}


def pod_set_assignment(name: str, count: int, flavors: Mapping[str, str], usage: Mapping[str, str]) -> Raw:
    """Where an admitted pod set's resources are counted: flavor and total usage by resource."""
    return {"name": name, "count": count, "flavors": dict(flavors), "resourceUsage": dict(usage)}


def admission(cluster_queue: str, assignments: Iterable[Raw]) -> Raw:
    return {"clusterQueue": cluster_queue, "podSetAssignments": list(assignments)}


def quota_reserved(cluster_queue: str, at: str, *, observed_generation: int | None = None) -> Raw:
    """The condition of a Workload holding quota in `cluster_queue`, with Kueue's message."""
    message = f"Quota reserved in ClusterQueue {cluster_queue}"
    return condition("QuotaReserved", "True", "QuotaReserved", message, at, observed_generation=observed_generation)


def admitted(at: str, *, observed_generation: int | None = None) -> Raw:
    """The condition of an admitted Workload, with Kueue's message."""
    message = "The workload is admitted"
    return condition("Admitted", "True", "Admitted", message, at, observed_generation=observed_generation)


def pod_set_requests(name: str, resources: Mapping[str, str]) -> Raw:
    """A pending Workload's status.resourceRequests entry."""
    return {"name": name, "resources": dict(resources)}


def check_state(name: str, state: str, message: str, at: str) -> Raw:
    """A Workload's status.admissionChecks entry."""
    return {"name": name, "state": state, "message": message, "lastTransitionTime": at}


# --- queues -------------------------------------------------------------------------------------------------


def quota(resource: str, nominal: str | int, *, borrowing: str | None = None, lending: str | None = None) -> Raw:
    out: Raw = {"name": resource, "nominalQuota": nominal}
    if borrowing is not None:
        out["borrowingLimit"] = borrowing
    if lending is not None:
        out["lendingLimit"] = lending
    return out


def flavor_quotas(name: str, quotas: Iterable[Raw]) -> Raw:
    return {"name": name, "resources": list(quotas)}


def resource_group(covered: Iterable[str], flavors: Iterable[Raw]) -> Raw:
    return {"coveredResources": list(covered), "flavors": list(flavors)}


def flavor_usage(flavor: str, totals: Iterable[tuple[str, str, str | None]]) -> Raw:
    """A queue's status.flavorsReservation / flavorsUsage entry: (resource, total, borrowed or None)."""
    resources: list[Raw] = []
    for resource, total, borrowed in totals:
        entry: Raw = {"name": resource, "total": total}
        if borrowed is not None:
            entry["borrowed"] = borrowed
        resources.append(entry)
    return {"name": flavor, "resources": resources}


def queue_status(
    conditions: Sequence[Raw],
    *,
    reservation: Sequence[Raw] | None = None,
    usage: Sequence[Raw] | None = None,
    counts: Mapping[str, int] | None = None,
) -> Raw:
    """A ClusterQueue's or a LocalQueue's status: conditions, flavorsReservation, flavorsUsage and the
    workload counts (admittedWorkloads, pendingWorkloads, reservingWorkloads)."""
    status: Raw = {"conditions": list(conditions)}
    if reservation is not None:
        status["flavorsReservation"] = list(reservation)
    if usage is not None:
        status["flavorsUsage"] = list(usage)
    status.update(counts or {})
    return status


def cluster_queue_active(at: str, *, observed_generation: int | None = None) -> Raw:
    """The condition of a ClusterQueue that admits, with Kueue's message."""
    message = "Can admit new workloads"
    return condition("Active", "True", "Ready", message, at, observed_generation=observed_generation)


def cluster_queue(
    meta: Raw,
    groups: Sequence[Raw],
    *,
    status: Raw,
    cohort: str | None = None,
    selector: Raw | None = None,
    stop_policy: str | None = None,
    strategy: str | None = None,
    checks: Sequence[str] = (),
    fungibility: Raw | None = None,
    preemption: Raw | None = None,
    api_version: str = KUEUE,
) -> Raw:
    """A ClusterQueue. The cohort and the admission checks as v1beta2 names them (cohortName,
    admissionChecksStrategy) or v1beta1 (cohort, admissionChecks), by `api_version`."""
    spec: Raw = {"resourceGroups": list(groups)}
    if cohort is not None:
        spec["cohortName" if api_version == KUEUE else "cohort"] = cohort
    if selector is not None:
        spec["namespaceSelector"] = selector
    if stop_policy is not None:
        spec["stopPolicy"] = stop_policy
    if strategy is not None:
        spec["queueingStrategy"] = strategy
    if checks:
        if api_version == KUEUE:
            spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": check} for check in checks]}
        else:
            spec["admissionChecks"] = list(checks)
    if fungibility is not None:
        spec["flavorFungibility"] = fungibility
    if preemption is not None:
        spec["preemption"] = preemption
    return {"apiVersion": api_version, "kind": "ClusterQueue", "metadata": meta, "spec": spec, "status": status}


def local_queue(
    meta: Raw,
    cluster_queue: str,
    *,
    stop_policy: str | None = None,
    status: Raw | None = None,
    api_version: str = KUEUE,
) -> Raw:
    spec: Raw = {"clusterQueue": cluster_queue}
    if stop_policy is not None:
        spec["stopPolicy"] = stop_policy
    out: Raw = {"apiVersion": api_version, "kind": "LocalQueue", "metadata": meta, "spec": spec}
    if status is not None:
        out["status"] = status
    return out


# --- flavors, cohorts, priorities, checks -------------------------------------------------------------------


def resource_flavor(
    meta: Raw,
    *,
    node_labels: Mapping[str, str] | None = None,
    taints: Sequence[Raw] = (),
    tolerations: Sequence[Raw] = (),
) -> Raw:
    spec: Raw = {}
    if node_labels:
        spec["nodeLabels"] = dict(node_labels)
    if taints:
        spec["nodeTaints"] = list(taints)
    if tolerations:
        spec["tolerations"] = list(tolerations)
    return {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": meta, "spec": spec}


def cohort(meta: Raw, *, parent: str | None = None, groups: Sequence[Raw] = ()) -> Raw:
    spec: Raw = {}
    if parent:
        spec["parentName"] = parent
    if groups:
        spec["resourceGroups"] = list(groups)
    return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": meta, "spec": spec}


def priority_class(meta: Raw, value: int, *, description: str | None = None) -> Raw:
    out: Raw = {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": meta, "value": value}
    if description is not None:
        out["description"] = description
    return out


def admission_check(meta: Raw, controller: str, *, conditions: Sequence[Raw], parameters: Raw | None = None) -> Raw:
    spec: Raw = {"controllerName": controller}
    if parameters is not None:
        spec["parameters"] = parameters
    return {
        "apiVersion": KUEUE,
        "kind": "AdmissionCheck",
        "metadata": meta,
        "spec": spec,
        "status": {"conditions": list(conditions)},
    }


def admission_check_active(at: str, *, observed_generation: int | None = None) -> Raw:
    """The condition of an AdmissionCheck in use, with Kueue's message."""
    message = "The admission check is active"
    return condition("Active", "True", "Active", message, at, observed_generation=observed_generation)


def provisioning_request_config(
    meta: Raw, class_name: str, *, managed_resources: Sequence[str] = (), retry: Raw | None = None
) -> Raw:
    spec: Raw = {"provisioningClassName": class_name}
    if managed_resources:
        spec["managedResources"] = list(managed_resources)
    if retry is not None:
        spec["retryStrategy"] = retry
    return {"apiVersion": KUEUE, "kind": "ProvisioningRequestConfig", "metadata": meta, "spec": spec}


def pending_summary(*rows: tuple[Raw, int, int]) -> Raw:
    """A visibility API PendingWorkloadsSummary: (Workload, positionInClusterQueue, positionInLocalQueue),
    0-based."""
    return {
        "apiVersion": "visibility.kueue.x-k8s.io/v1beta2",
        "kind": "PendingWorkloadsSummary",
        "metadata": {"creationTimestamp": None},
        "items": [
            {
                "metadata": {
                    "name": wl["metadata"]["name"],
                    "namespace": wl["metadata"]["namespace"],
                    "creationTimestamp": wl["metadata"]["creationTimestamp"],
                },
                "priority": wl["spec"].get("priority", 0),
                "localQueueName": wl["spec"]["queueName"],
                "positionInClusterQueue": in_cq,
                "positionInLocalQueue": in_lq,
            }
            for wl, in_cq, in_lq in rows
        ],
    }
