"""The cluster as the engine sees it: frozen, decoded objects with only the fields the trace needs.

`bot.kube.decode` builds these from raw API objects of either Kueue API version (v1beta2, v1beta1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from bot.trace.quantity import Quantities

_EMPTY: Mapping[str, str] = {}
_NO_QUANTITIES: Quantities = {}
_FLAGS: dict[frozenset[str], frozenset[str]] = {}  # Workload.true_conditions: one set per combination
_NO_FLAGS: frozenset[str] = frozenset()
_MAX_FLAGS = 4096

# Labels and annotations Kueue and the bot read.
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
POD_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
PREBUILT_WORKLOAD_LABEL = "kueue.x-k8s.io/prebuilt-workload-name"
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
MAX_EXEC_TIME_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
POD_GROUP_TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count"
ADMISSION_GATED_BY = "kueue.x-k8s.io/admission-gated-by"
MANAGED_LABEL = "kueue.x-k8s.io/managed"
NOTIFY_ANNOTATION = "kueue-bot.io/notify"
NOTIFY_EMAIL_ANNOTATION = "kueue-bot.io/notify-email"


@dataclass(frozen=True, slots=True)
class OwnerRef:
    api_version: str
    kind: str
    name: str
    uid: str
    controller: bool = False

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""


@dataclass(frozen=True, slots=True)
class Meta:
    kind: str
    name: str
    namespace: str | None = None
    api_version: str = ""
    uid: str = ""
    created: datetime | None = None
    labels: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    annotations: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    owners: tuple[OwnerRef, ...] = ()
    resource_version: str = ""
    deleting: bool = False

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace or "", self.name)


@dataclass(frozen=True, slots=True)
class Condition:
    type: str
    status: str
    reason: str = ""
    message: str = ""
    since: datetime | None = None

    @property
    def is_true(self) -> bool:
        return self.status == "True"

    @property
    def is_false(self) -> bool:
        return self.status == "False"


def find_condition(conditions: tuple[Condition, ...], kind: str) -> Condition | None:
    for condition in conditions:
        if condition.type == kind:
            return condition
    return None


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""

    def tolerates(self, taint: Taint) -> bool:
        """The Kubernetes rule (k8s.io/api/core/v1 Toleration.ToleratesTaint)."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if not self.key and self.operator != "Exists":
            return False
        if self.operator == "Exists":
            return True
        return self.value == taint.value


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str = ""
    effect: str = "NoSchedule"

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@dataclass(frozen=True, slots=True)
class Requirement:
    """One matchExpressions entry of a node selector term (operators In, NotIn, Exists, DoesNotExist, Gt, Lt)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key, "")
        if self.operator == "In":
            return present and value in self.values
        if self.operator == "NotIn":
            return not present or value not in self.values
        if self.operator == "Exists":
            return present
        if self.operator == "DoesNotExist":
            return not present
        if self.operator in ("Gt", "Lt") and present and self.values:
            try:
                left, right = int(value), int(self.values[0])
            except ValueError:
                return False
            return left > right if self.operator == "Gt" else left < right
        return False


@dataclass(frozen=True, slots=True)
class Container:
    name: str
    requests: Quantities = field(default_factory=lambda: _NO_QUANTITIES)
    limits: Quantities = field(default_factory=lambda: _NO_QUANTITIES)
    restart_policy: str = ""  # "Always" on an init container makes it a sidecar


@dataclass(frozen=True, slots=True)
class PodTemplate:
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    overhead: Quantities = field(default_factory=lambda: _NO_QUANTITIES)
    pod_requests: Quantities = field(default_factory=lambda: _NO_QUANTITIES)  # pod-level spec.resources
    pod_limits: Quantities = field(default_factory=lambda: _NO_QUANTITIES)
    node_selector: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    affinity_terms: tuple[tuple[Requirement, ...], ...] = ()  # required node affinity, OR of ANDs
    tolerations: tuple[Toleration, ...] = ()
    priority_class_name: str = ""
    scheduling_gates: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PodSet:
    name: str
    count: int
    template: PodTemplate
    min_count: int | None = None
    topology_request: Mapping[str, str] = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True, slots=True)
class PodSetAssignment:
    name: str
    flavors: Mapping[str, str] = field(default_factory=lambda: _EMPTY)  # resource -> flavor
    usage: Quantities = field(default_factory=lambda: _NO_QUANTITIES)
    count: int | None = None
    delayed_topology: str = ""


@dataclass(frozen=True, slots=True)
class Admission:
    cluster_queue: str
    assignments: tuple[PodSetAssignment, ...] = ()


@dataclass(frozen=True, slots=True)
class PodSetUpdate:
    """What an admission check adds to a pod set's pods once Ready (status.admissionChecks[].podSetUpdates)."""

    name: str
    node_selector: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    labels: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    tolerations: int = 0


@dataclass(frozen=True, slots=True)
class CheckState:
    name: str
    state: str  # Pending | Ready | Retry | Rejected
    message: str = ""
    since: datetime | None = None
    requeue_after_seconds: int | None = None
    retry_count: int | None = None
    pod_set_updates: tuple[PodSetUpdate, ...] = ()


@dataclass(frozen=True, slots=True)
class RequeueState:
    count: int | None = None
    requeue_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Workload:
    meta: Meta
    queue_name: str
    pod_sets: tuple[PodSet, ...]
    priority: int = 0
    priority_class: str = ""
    active: bool = True
    conditions: tuple[Condition, ...] = ()
    admission: Admission | None = None
    requeue: RequeueState | None = None
    checks: tuple[CheckState, ...] = ()
    resource_requests: tuple[tuple[str, Quantities], ...] = ()  # status.resourceRequests
    reclaimable: Mapping[str, int] = field(default_factory=dict)
    cluster_name: str = ""
    nominated_clusters: tuple[str, ...] = ()  # status.nominatedClusterNames (MultiKueue)
    maximum_execution_seconds: int | None = None  # spec.maximumExecutionTimeSeconds
    past_execution_seconds: int | None = None  # status.accumulatedPastExecutionTimeSeconds (earlier admissions)
    # Read of the conditions once, when the object is made (every question reads them, many times per Workload
    # of a queue): the types whose condition is True, when the last wait began, when it got its quota.
    true_conditions: frozenset[str] = field(init=False, repr=False, compare=False)
    queued_at: datetime | None = field(init=False, repr=False, compare=False)
    reserved_at: datetime | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        setattr_ = object.__setattr__
        if not self.conditions:
            setattr_(self, "true_conditions", _NO_FLAGS)
            setattr_(self, "queued_at", self.meta.created)
            setattr_(self, "reserved_at", None)
            return
        first: dict[str, Condition] = {}
        for condition in self.conditions:  # the first of each type counts, as find_condition reads them
            if condition.type not in first:
                first[condition.type] = condition
        flags = frozenset([kind for kind, condition in first.items() if condition.status == "True"])
        if len(_FLAGS) < _MAX_FLAGS:  # shared (a few combinations in practice; a cluster's own types bounded)
            flags = _FLAGS.setdefault(flags, flags)
        setattr_(self, "true_conditions", flags)
        # When the last wait began: the last eviction (Evicted, True or flipped back to False on re-admission),
        # else the creation.
        evicted = first.get("Evicted")
        queued = self.meta.created
        if evicted is not None and evicted.since and (evicted.status == "True" or evicted.reason == "QuotaReserved"):
            queued = evicted.since
        setattr_(self, "queued_at", queued)
        # When it got its quota (QuotaReserved True), else when it was admitted.
        at = None
        for held in (first.get("QuotaReserved"), first.get("Admitted")):
            if held is not None and held.status == "True" and held.since is not None:
                at = held.since
                break
        setattr_(self, "reserved_at", at)

    @property
    def namespace(self) -> str:
        return self.meta.namespace or ""

    @property
    def name(self) -> str:
        return self.meta.name

    def condition(self, kind: str) -> Condition | None:
        return find_condition(self.conditions, kind)

    def is_true(self, kind: str) -> bool:
        return kind in self.true_conditions

    @property
    def finished(self) -> bool:
        return "Finished" in self.true_conditions

    @property
    def holds_quota(self) -> bool:
        true = self.true_conditions
        return "QuotaReserved" in true and "Finished" not in true

    @property
    def admitted(self) -> bool:
        return "Admitted" in self.true_conditions


def job_name(workload: Workload) -> str:
    """What people call a Workload: its job's name (the controller owner), else its own name."""
    for owner in workload.meta.owners:
        if owner.controller:
            return owner.name
    return workload.name


@dataclass(frozen=True, slots=True)
class LocalQueue:
    meta: Meta
    cluster_queue: str
    stop_policy: str = "None"
    conditions: tuple[Condition, ...] = ()

    @property
    def name(self) -> str:
        return self.meta.name


@dataclass(frozen=True, slots=True)
class ResourceQuota:
    name: str
    nominal: Decimal
    borrowing_limit: Decimal | None = None
    lending_limit: Decimal | None = None


@dataclass(frozen=True, slots=True)
class FlavorQuotas:
    name: str
    resources: tuple[ResourceQuota, ...]

    def quota(self, resource: str) -> ResourceQuota | None:
        for quota in self.resources:
            if quota.name == resource:
                return quota
        return None


@dataclass(frozen=True, slots=True)
class ResourceGroup:
    covered: tuple[str, ...]
    flavors: tuple[FlavorQuotas, ...]


@dataclass(frozen=True, slots=True)
class LabelSelector:
    match_labels: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    expressions: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        if any(labels.get(key) != value for key, value in self.match_labels.items()):
            return False
        return all(requirement.matches(labels) for requirement in self.expressions)


@dataclass(frozen=True, slots=True)
class ClusterQueue:
    meta: Meta
    resource_groups: tuple[ResourceGroup, ...] = ()
    cohort: str = ""
    namespace_selector: LabelSelector | None = None  # None: every namespace
    stop_policy: str = "None"
    queueing_strategy: str = "BestEffortFIFO"
    preemption: Mapping[str, str] = field(default_factory=lambda: _EMPTY)  # withinClusterQueue, ...
    admission_checks: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (check, onFlavors)
    conditions: tuple[Condition, ...] = ()
    reservation: Mapping[str, Quantities] | None = None  # status.flavorsReservation: flavor -> totals
    usage: Mapping[str, Quantities] | None = None  # status.flavorsUsage (admitted only)
    pending_count: int | None = None
    fair_sharing_admission: bool = False  # admissionScope UsageBasedAdmissionFairSharing
    # spec.flavorFungibility: whenCanBorrow, whenCanPreempt (v1beta2 names), preference when set
    fungibility: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    effective_quota_by: str = ""  # "Kind/name" of the orchestrator of status.effectiveQuotas, when it is used

    @property
    def name(self) -> str:
        return self.meta.name

    def flavor_names(self) -> tuple[str, ...]:
        return tuple(flavor.name for group in self.resource_groups for flavor in group.flavors)


@dataclass(frozen=True, slots=True)
class ResourceFlavor:
    meta: Meta
    node_labels: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    node_taints: tuple[Taint, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    topology_name: str = ""

    @property
    def name(self) -> str:
        return self.meta.name


@dataclass(frozen=True, slots=True)
class Cohort:
    meta: Meta
    parent: str = ""
    resource_groups: tuple[ResourceGroup, ...] = ()
    effective_quota_by: str = ""  # as for a ClusterQueue: status.effectiveQuotas replaces the spec's groups

    @property
    def name(self) -> str:
        return self.meta.name


@dataclass(frozen=True, slots=True)
class AdmissionCheck:
    meta: Meta
    controller: str = ""
    conditions: tuple[Condition, ...] = ()
    parameters: tuple[str, str] = ("", "")  # spec.parameters (kind, name): a ProvisioningRequestConfig's name


PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"


@dataclass(frozen=True, slots=True)
class ProvisioningConfig:
    """A ProvisioningRequestConfig (apis/kueue/v1beta2/provisioningrequestconfig_types.go:44-157); the retry
    strategy's defaults are Kueue's (+kubebuilder:default={backoffLimitCount:3,backoffBaseSeconds:60,
    backoffMaxSeconds:1800}, :77)."""

    meta: Meta
    class_name: str = ""
    managed_resources: tuple[str, ...] = ()
    retry_limit: int = 3
    backoff_base_seconds: int = 60
    backoff_max_seconds: int = 1800


@dataclass(frozen=True, slots=True)
class ProvisioningRequest:
    """A cluster-autoscaler ProvisioningRequest (autoscaling.x-k8s.io), which Kueue's provisioning check makes
    for a Workload, named <workload>-<check>-<attempt> (pkg/controller/admissionchecks/provisioning/
    provisioning.go:55-58), owned by the Workload."""

    meta: Meta
    class_name: str = ""
    conditions: tuple[Condition, ...] = ()

    def condition(self, kind: str) -> Condition | None:
        return find_condition(self.conditions, kind)


@dataclass(frozen=True, slots=True)
class PriorityClass:
    name: str
    value: int


@dataclass(frozen=True, slots=True)
class PendingEntry:
    """One item of a PendingWorkloadsSummary (the pending-workloads visibility API)."""

    namespace: str
    name: str
    local_queue: str
    priority: int
    position_in_cluster_queue: int  # 0-based, as the API gives it
    position_in_local_queue: int


@dataclass(frozen=True, slots=True)
class JobTemplate:
    """A pod template of a job object, with how many pods of it the job runs."""

    name: str
    count: int
    template: PodTemplate


@dataclass(frozen=True, slots=True)
class Job:
    """Any object Kueue may manage: batch Job, JobSet, RayJob, Kubeflow jobs, Pods, ..."""

    meta: Meta
    suspended: bool | None = None
    templates: tuple[JobTemplate, ...] = ()
    conditions: tuple[Condition, ...] = ()

    @property
    def queue_name(self) -> str:
        return self.meta.labels.get(QUEUE_NAME_LABEL) or self.meta.annotations.get(QUEUE_NAME_LABEL, "")


@dataclass(frozen=True, slots=True)
class ContainerStatus:
    """A container's state in a Pod's status (containerStatuses, initContainerStatuses): what the kubelet says
    keeps it from running or from being ready."""

    name: str
    ready: bool = False
    waiting_reason: str = ""  # state.waiting.reason: ErrImagePull, ImagePullBackOff, CrashLoopBackOff, ...
    message: str = ""  # state.waiting.message
    restarts: int = 0
    last_reason: str = ""  # lastState.terminated.reason: Error, OOMKilled, ...
    last_exit_code: int | None = None
    image: str = ""
    init: bool = False


@dataclass(frozen=True, slots=True)
class Pod:
    meta: Meta
    phase: str = ""
    conditions: tuple[Condition, ...] = ()
    node_name: str = ""
    template: PodTemplate = field(default_factory=PodTemplate)
    containers: tuple[ContainerStatus, ...] = ()  # status.initContainerStatuses then status.containerStatuses

    def condition(self, kind: str) -> Condition | None:
        return find_condition(self.conditions, kind)


@dataclass(frozen=True, slots=True)
class Event:
    namespace: str
    involved_kind: str
    involved_name: str
    involved_uid: str
    reason: str
    message: str
    type: str = "Normal"
    last_seen: datetime | None = None
    count: int = 1


@dataclass(frozen=True, slots=True)
class Namespace:
    meta: Meta


@dataclass(frozen=True, slots=True)
class Node:
    meta: Meta
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: Quantities = field(default_factory=lambda: _NO_QUANTITIES)
