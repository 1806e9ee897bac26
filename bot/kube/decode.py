"""Raw Kubernetes objects (dicts from the API or a dump) -> the engine's frozen model.

Reads both Kueue API versions: v1beta2 and v1beta1's older field names (ClusterQueue `cohort`,
`admissionChecks`; Workload `priorityClassName`; LocalQueue `flavorUsage`). Total: a malformed object
raises DecodeError with a readable reason, never anything else.

Parts. The bulky parts of a Workload (its pod sets, admission's assignments, admission checks, resource requests,
reclaimable pods) are each decoded from a *view*: a tuple of exactly the raw values that part is built
from (a pod template's view holds its containers' names, resources and restart policies, not their
images, commands or env). `Parts.part(build, view)` builds the part; `bot.kube.compact.Interner`
(a `Parts`) instead hands out the part it already built for an equal view, so 50,000 Workloads of a few
dozen shapes share their parts and a watch update decodes only what it changed. A part is a function of
its view alone, by construction, whichever `Parts` decodes it.

The ground floor (the error, `Parts`, readers of raw values, metadata, conditions, selectors, pod templates)
is `bot.kube.decode_parts`; a Workload is `bot.kube.decode_workload`; this module decodes the other kinds and
dispatches (`decode`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal

from bot.kube.decode_core import event, node, pending_entries, pod
from bot.kube.decode_limits import check_bounds, readable_text, unreadable
from bot.kube.decode_parts import (
    KUEUE_GROUP,
    PLAIN,
    VISIBILITY_GROUP,
    DecodeError,
    Parts,
    Raw,
    View,
    _int,
    _list,
    _map,
    _str,
    _strings,
    _taints,
    _template_spec,
    _tolerations,
    conditions,
    label_selector,
    meta,
    parse_time,
    pod_template,
)
from bot.kube.decode_workload import workload
from bot.trace.model import (
    AdmissionCheck,
    ClusterQueue,
    Cohort,
    FlavorQuotas,
    Job,
    JobTemplate,
    LocalQueue,
    Namespace,
    PriorityClass,
    ProvisioningConfig,
    ProvisioningRequest,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
)
from bot.trace.quantity import Quantities, parse_or_none

__all__ = [
    "KUEUE_GROUP",
    "PLAIN",
    "VISIBILITY_GROUP",
    "DecodeError",
    "Parts",
    "Raw",
    "View",
    "conditions",
    "decode",
    "label_selector",
    "meta",
    "parse_time",
    "pod_template",
    "read_or_unreadable",
    "readable_text",
    "unreadable",
]


def _quantities_by_flavor(raw: object) -> dict[str, Quantities]:
    """status.flavorsReservation / flavorsUsage (v1beta1 LocalQueue: flavorUsage)."""
    result: dict[str, Quantities] = {}
    for flavor in map(_map, _list(raw)):
        totals: dict[str, Decimal] = {}
        for resource in map(_map, _list(flavor.get("resources"))):
            amount = parse_or_none(resource.get("total", 0))
            if amount is not None:
                totals[_str(resource.get("name"))] = amount
        result[_str(flavor.get("name"))] = totals
    return result


def _resource_groups(raw: object) -> tuple[ResourceGroup, ...]:
    groups = []
    for group in map(_map, _list(raw)):
        flavors = []
        for flavor in map(_map, _list(group.get("flavors"))):
            quotas = []
            for resource in map(_map, _list(flavor.get("resources"))):
                nominal = parse_or_none(resource.get("nominalQuota", 0))
                quotas.append(
                    ResourceQuota(
                        name=_str(resource.get("name")),
                        nominal=nominal if nominal is not None else Decimal(0),
                        borrowing_limit=parse_or_none(resource["borrowingLimit"])
                        if resource.get("borrowingLimit") is not None
                        else None,
                        lending_limit=parse_or_none(resource["lendingLimit"])
                        if resource.get("lendingLimit") is not None
                        else None,
                    )
                )
            flavors.append(FlavorQuotas(name=_str(flavor.get("name")), resources=tuple(quotas)))
        covered = tuple(_str(r) for r in _list(group.get("coveredResources")))
        groups.append(ResourceGroup(covered=covered, flavors=tuple(flavors)))
    return tuple(groups)


def local_queue(raw: Raw, parts: Parts = PLAIN) -> LocalQueue:
    spec = _map(raw.get("spec"))
    return LocalQueue(
        meta=meta(raw, parts),
        cluster_queue=parts.text(_str(spec.get("clusterQueue"))),
        stop_policy=_str(spec.get("stopPolicy"), "None") or "None",
        conditions=conditions(_map(raw.get("status")).get("conditions"), parts),
    )


def cluster_queue(raw: Raw, parts: Parts = PLAIN) -> ClusterQueue:
    spec = _map(raw.get("spec"))
    status = _map(raw.get("status"))
    # v1beta2 admissionChecksStrategy.admissionChecks[{name, onFlavors}]; v1beta1 also admissionChecks: [name].
    checks: list[tuple[str, tuple[str, ...]]] = [
        (_str(item.get("name")), tuple(_str(f) for f in _list(item.get("onFlavors"))))
        for item in map(_map, _list(_map(spec.get("admissionChecksStrategy")).get("admissionChecks")))
    ]
    checks.extend((_str(name), ()) for name in _list(spec.get("admissionChecks")) if isinstance(name, str))
    preemption = _map(spec.get("preemption"))
    borrow = _map(preemption.get("borrowWithinCohort"))
    admission_scope = _map(spec.get("admissionScope"))
    return ClusterQueue(
        meta=meta(raw, parts),
        resource_groups=_resource_groups(_effective(spec.get("resourceGroups"), status)),
        cohort=_str(spec.get("cohortName")) or _str(spec.get("cohort")),
        namespace_selector=label_selector(spec.get("namespaceSelector")),
        stop_policy=_str(spec.get("stopPolicy"), "None") or "None",
        queueing_strategy=_str(spec.get("queueingStrategy"), "BestEffortFIFO") or "BestEffortFIFO",
        preemption={
            "withinClusterQueue": _str(preemption.get("withinClusterQueue"), "Never"),
            "reclaimWithinCohort": _str(preemption.get("reclaimWithinCohort"), "Never"),
            "borrowWithinCohort": _str(borrow.get("policy"), "Never"),
            **(
                {"maxPriorityThreshold": str(_int(borrow.get("maxPriorityThreshold"), 0))}
                if borrow.get("maxPriorityThreshold") is not None
                else {}
            ),
        },
        admission_checks=tuple(checks),
        conditions=conditions(status.get("conditions"), parts),
        reservation=_quantities_by_flavor(status["flavorsReservation"]) if "flavorsReservation" in status else None,
        usage=_quantities_by_flavor(status["flavorsUsage"]) if "flavorsUsage" in status else None,
        pending_count=_int(status["pendingWorkloads"]) if status.get("pendingWorkloads") is not None else None,
        fair_sharing_admission=admission_scope.get("admissionMode") == "UsageBasedAdmissionFairSharing",
        fungibility=_fungibility(spec.get("flavorFungibility")),
        effective_quota_by=_effective_by(status.get("effectiveQuotas")),
    )


# v1beta1's deprecated policy names (apis/kueue/v1beta1/clusterqueue_types.go FlavorFungibilityPolicy):
# Borrow and Preempt are the old names of MayStopSearch.
_FUNGIBILITY_NAMES = {"Borrow": "MayStopSearch", "Preempt": "MayStopSearch"}


def _fungibility(raw: object) -> dict[str, str]:
    """spec.flavorFungibility with the v1beta2 names; defaults filled (whenCanBorrow MayStopSearch,
    whenCanPreempt TryNextFlavor: +kubebuilder:default in both API versions)."""
    spec = _map(raw)
    found = {
        "whenCanBorrow": _str(spec.get("whenCanBorrow"), "MayStopSearch") or "MayStopSearch",
        "whenCanPreempt": _str(spec.get("whenCanPreempt"), "TryNextFlavor") or "TryNextFlavor",
    }
    found = {key: _FUNGIBILITY_NAMES.get(value, value) for key, value in found.items()}
    preference = _str(spec.get("preference"))
    if preference:
        found["preference"] = preference
    return found


def _effective(spec_groups: object, status: Mapping[str, object]) -> object:
    """status.effectiveQuotas.resourceGroups when set (v0.20, DynamicQuotaOrchestration, KEP-12382: "used for
    scheduling instead of spec.resourceGroups when present"; an empty list is a complete override), else
    spec.resourceGroups."""
    effective = _map(status.get("effectiveQuotas"))
    groups = effective.get("resourceGroups")
    return groups if isinstance(groups, list) else spec_groups


def _effective_by(raw: object) -> str:
    effective = _map(raw)
    if not isinstance(effective.get("resourceGroups"), list):
        return ""
    ref = _map(effective.get("orchestratorRef"))
    kind, name = _str(ref.get("kind")), _str(ref.get("name"))
    return f"{kind}/{name}" if kind and name else (kind or name or "?")


def resource_flavor(raw: Raw, parts: Parts = PLAIN) -> ResourceFlavor:
    spec = _map(raw.get("spec"))
    return ResourceFlavor(
        meta=meta(raw, parts),
        node_labels=_strings(spec.get("nodeLabels")),
        node_taints=_taints(spec.get("nodeTaints")),
        tolerations=_tolerations(spec.get("tolerations")),
        topology_name=_str(spec.get("topologyName")),
    )


def cohort(raw: Raw, parts: Parts = PLAIN) -> Cohort:
    spec = _map(raw.get("spec"))
    status = _map(raw.get("status"))
    return Cohort(
        meta=meta(raw, parts),
        parent=_str(spec.get("parentName")) or _str(spec.get("parent")),
        resource_groups=_resource_groups(_effective(spec.get("resourceGroups"), status)),
        effective_quota_by=_effective_by(status.get("effectiveQuotas")),
    )


def admission_check(raw: Raw, parts: Parts = PLAIN) -> AdmissionCheck:
    spec = _map(raw.get("spec"))
    parameters = _map(spec.get("parameters"))
    return AdmissionCheck(
        meta=meta(raw, parts),
        controller=_str(spec.get("controllerName")),
        conditions=conditions(_map(raw.get("status")).get("conditions"), parts),
        parameters=(_str(parameters.get("kind")), _str(parameters.get("name"))),
    )


def provisioning_config(raw: Raw, parts: Parts = PLAIN) -> ProvisioningConfig:
    spec = _map(raw.get("spec"))
    retry = _map(spec.get("retryStrategy"))
    return ProvisioningConfig(
        meta=meta(raw, parts),
        class_name=_str(spec.get("provisioningClassName")),
        managed_resources=tuple(_str(r) for r in _list(spec.get("managedResources"))),
        retry_limit=_int(retry.get("backoffLimitCount"), 3) if retry.get("backoffLimitCount") is not None else 3,
        backoff_base_seconds=_int(retry.get("backoffBaseSeconds"), 60)
        if retry.get("backoffBaseSeconds") is not None
        else 60,
        backoff_max_seconds=_int(retry.get("backoffMaxSeconds"), 1800)
        if retry.get("backoffMaxSeconds") is not None
        else 1800,
    )


def provisioning_request(raw: Raw) -> ProvisioningRequest:
    return ProvisioningRequest(
        meta=meta(raw),
        class_name=_str(_map(raw.get("spec")).get("provisioningClassName")),
        conditions=conditions(_map(raw.get("status")).get("conditions")),
    )


def priority_class(raw: Raw, parts: Parts = PLAIN) -> PriorityClass:
    return PriorityClass(name=meta(raw, parts).name, value=_int(raw.get("value")))


def _replica_specs(spec: Raw) -> list[JobTemplate]:
    """Kubeflow's <kind>ReplicaSpecs: {Master: {replicas, template}, Worker: ...}."""
    templates: list[JobTemplate] = []
    for key, value in spec.items():
        if key.endswith("ReplicaSpecs") and isinstance(value, Mapping):
            for role, replica in value.items():
                replica = _map(replica)
                templates.append(
                    JobTemplate(
                        str(role).lower(),
                        _int(replica.get("replicas"), 1),
                        _template_spec(replica.get("template")),
                    )
                )
    return templates


def _job_templates(kind: str, spec: Raw) -> tuple[JobTemplate, ...]:
    if kind == "Job":
        parallelism = _int(spec.get("parallelism"), 1)
        completions = spec.get("completions")
        count = min(parallelism, _int(completions)) if completions is not None else parallelism
        return (JobTemplate("main", count, _template_spec(spec.get("template"))),)
    if kind == "JobSet":
        return tuple(
            JobTemplate(
                _str(item.get("name")).lower(),
                _int(item.get("replicas"), 1)
                * _int(_map(_map(item.get("template")).get("spec")).get("parallelism"), 1),
                _template_spec(_map(_map(item.get("template")).get("spec")).get("template")),
            )
            for item in map(_map, _list(spec.get("replicatedJobs")))
        )
    if kind in ("RayJob", "RayCluster", "RayService"):
        cluster = _map(spec.get("rayClusterSpec") or spec.get("rayClusterConfig")) if kind != "RayCluster" else spec
        templates = [JobTemplate("head", 1, _template_spec(_map(cluster.get("headGroupSpec")).get("template")))]
        templates.extend(
            JobTemplate(
                _str(group.get("groupName")),
                _int(group.get("replicas"), 1) * max(1, _int(group.get("numOfHosts"), 1)),
                _template_spec(group.get("template")),
            )
            for group in map(_map, _list(cluster.get("workerGroupSpecs")))
        )
        return tuple(templates)
    if kind in ("StatefulSet", "Deployment", "LeaderWorkerSet"):
        template = spec.get("template") or _map(spec.get("leaderWorkerTemplate")).get("workerTemplate")
        return (JobTemplate("main", _int(spec.get("replicas"), 1), _template_spec(template)),)
    return tuple(_replica_specs(spec))


def job(raw: Raw) -> Job:
    spec = _map(raw.get("spec"))
    kind = _str(raw.get("kind"))
    suspend = spec.get("suspend")
    return Job(
        meta=meta(raw),
        suspended=suspend if isinstance(suspend, bool) else None,
        templates=_job_templates(kind, spec),
        conditions=conditions(_map(raw.get("status")).get("conditions")),
    )


_KUEUE_DECODERS: dict[str, Callable[[Raw, Parts], object]] = {
    "Workload": workload,
    "LocalQueue": local_queue,
    "ClusterQueue": cluster_queue,
    "ResourceFlavor": resource_flavor,
    "Cohort": cohort,
    "AdmissionCheck": admission_check,
    "WorkloadPriorityClass": priority_class,
    "ProvisioningRequestConfig": provisioning_config,
}
AUTOSCALING_GROUP = "autoscaling.x-k8s.io"
_CORE_DECODERS: dict[str, Callable[[Raw], object]] = {
    "Pod": pod,
    "Event": event,
    "Namespace": lambda raw: Namespace(meta(raw)),
    "Node": node,
}
# Kinds Kueue can manage (FACTS §2.2), by kind; their group does not matter to the decoder.
JOB_KINDS = frozenset(
    {
        "Job",
        "JobSet",
        "RayJob",
        "RayCluster",
        "RayService",
        "PyTorchJob",
        "TFJob",
        "PaddleJob",
        "XGBoostJob",
        "JAXJob",
        "MPIJob",
        "TrainJob",
        "AppWrapper",
        "SparkApplication",
        "StatefulSet",
        "Deployment",
        "LeaderWorkerSet",
    }
)


def decode(raw: Raw, parts: Parts = PLAIN) -> list[object]:
    """One raw object -> model objects (a Pod is both a Pod and a job Kueue may manage). [] if not read.
    `parts`: how Kueue's objects are built (see the module's doc); other kinds are always built afresh."""
    kind = _str(raw.get("kind"))
    group = _str(raw.get("apiVersion")).rpartition("/")[0]
    check_bounds(raw, kind)
    if group == KUEUE_GROUP and kind in _KUEUE_DECODERS:
        return [_KUEUE_DECODERS[kind](raw, parts)]
    if group == VISIBILITY_GROUP and kind == "PendingWorkloadsSummary":
        return list(pending_entries(raw))
    if group == AUTOSCALING_GROUP and kind == "ProvisioningRequest":
        return [provisioning_request(raw)]
    if kind in _CORE_DECODERS and group in ("", "events.k8s.io"):
        decoded = _CORE_DECODERS[kind](raw)
        if kind == "Pod":
            return [
                decoded,
                Job(meta=meta(raw), templates=(JobTemplate("main", 1, pod_template(raw.get("spec"))),)),
            ]
        return [decoded]
    if kind in JOB_KINDS:
        return [job(raw)]
    return []


def read_or_unreadable(raw: Raw, parts: Parts = PLAIN, *, text_checked: bool = False) -> list[object]:
    """`decode`, or (what cannot be read: text that is not Unicode, a wrong shape, beyond the API's bounds) the
    object's `Unreadable` record, so that an answer names it instead of missing it. `text_checked`: its strings
    are known to be Unicode text (a strict parser read them)."""
    if not text_checked and not readable_text(raw):
        return [unreadable(raw, "it holds text that is not valid Unicode")]
    try:
        return decode(raw, parts)
    except DecodeError as error:
        return [unreadable(raw, str(error))]
