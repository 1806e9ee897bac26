"""`check-config --online`, the cluster's side: is the API server there, does it serve Kueue, and does the
identity the bot runs as hold what its ClusterRole (deploy/) grants? One SelfSubjectAccessReview per verb and
resource: a question, never a change. Each finding is one line for a person.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.config import mask_url
from bot.errors import BotError
from bot.kube.client import KubeClient
from bot.kube.kinds import KUEUE_GROUP, KUEUE_VERSIONS

SELF_SUBJECT_ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
READ = ("get", "list", "watch")


@dataclass(frozen=True)
class Rule:
    """One rule of a Role: these verbs on these resources ("resource/subresource") of an API group."""

    group: str
    resources: tuple[str, ...]
    verbs: tuple[str, ...] = READ


# In step with deploy/helm/kueue-bot/templates/clusterrole.yaml (tests/integration/test_check_online.py).
CLUSTER_ROLE: tuple[Rule, ...] = (
    Rule(
        KUEUE_GROUP,
        (
            "workloads",
            "localqueues",
            "clusterqueues",
            "resourceflavors",
            "cohorts",
            "admissionchecks",
            "workloadpriorityclasses",
            "topologies",
            "provisioningrequestconfigs",
            "multikueueclusters",
            "multikueueconfigs",
        ),
    ),
    Rule("autoscaling.x-k8s.io", ("provisioningrequests",), ("get", "list")),
    Rule("visibility.kueue.x-k8s.io", ("clusterqueues/pendingworkloads", "localqueues/pendingworkloads"), ("get",)),
    Rule("batch", ("jobs",)),
    Rule("jobset.x-k8s.io", ("jobsets",)),
    Rule("ray.io", ("rayjobs", "rayclusters", "rayservices")),
    Rule("kubeflow.org", ("pytorchjobs", "tfjobs", "paddlejobs", "xgboostjobs", "jaxjobs", "mpijobs")),
    Rule("trainer.kubeflow.org", ("trainjobs",)),
    Rule("leaderworkerset.x-k8s.io", ("leaderworkersets",)),
    Rule("apps", ("statefulsets", "deployments", "replicasets")),
    Rule("workload.codeflare.dev", ("appwrappers",)),
    Rule("sparkoperator.k8s.io", ("sparkapplications",)),
    Rule("", ("pods", "events", "namespaces", "nodes")),
    Rule("events.k8s.io", ("events",)),
    Rule("authorization.k8s.io", ("subjectaccessreviews",), ("create",)),
)
# In step with deploy/helm/kueue-bot/templates/role.yaml: only in the bot's own namespace.
LEASES = Rule("coordination.k8s.io", ("leases",), ("get", "list", "watch", "create", "update", "patch"))
CONFIGMAPS = Rule("", ("configmaps",), ("get", "list", "watch", "create", "update", "patch", "delete"))


Finding = tuple[bool | None, str]  # passed? (None: not checked, an earlier check failed), the line for a person


def _review(verb: str, group: str, resource: str, namespace: str) -> dict[str, object]:
    plural, _, subresource = resource.partition("/")
    attributes = {"verb": verb, "group": group, "resource": plural, "subresource": subresource}
    if namespace:
        attributes["namespace"] = namespace
    return {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": attributes},
    }


def _allowed(client: KubeClient, verb: str, group: str, resource: str, namespace: str) -> bool:
    answer = client.create(
        SELF_SUBJECT_ACCESS_REVIEWS, _review(verb, group, resource, namespace), what="an access review"
    )
    status = answer.get("status")
    return isinstance(status, dict) and status.get("allowed") is True and status.get("denied") is not True


def missing_permissions(client: KubeClient, rules: Iterable[Rule], namespace: str = "") -> list[str]:
    """ "get, list, watch rayjobs.ray.io" for each resource the identity lacks a verb of. Raises BotError."""
    missing = []
    for rule in rules:
        for resource in rule.resources:
            denied = [verb for verb in rule.verbs if not _allowed(client, verb, rule.group, resource, namespace)]
            if denied:
                missing.append(f"{', '.join(denied)} {resource}{'.' + rule.group if rule.group else ''}")
    return missing


def _count(rules: Iterable[Rule]) -> int:
    return sum(len(rule.resources) * len(rule.verbs) for rule in rules)


def check_cluster(client: KubeClient, *, namespace: str, leases: bool, configmaps: bool) -> list[Finding]:
    """Reachable? Kueue served? The ClusterRole's permissions (and the namespaced Role's, when the settings use
    Leases or ConfigMaps) held? Stops at the first finding the others depend on."""
    host = mask_url(client.host)
    try:
        version = client.get("/version", what="the API server's version")
    except BotError as error:
        return [
            (False, f"the Kubernetes API at {host} does not answer: {error}"),
            (None, "Kueue's API and the roles' permissions not checked: the API server did not answer"),
        ]
    findings: list[Finding] = [
        (True, f"the Kubernetes API at {host} answers (version {version.get('gitVersion', '?')})")
    ]
    try:
        served = client.served_version(KUEUE_GROUP, KUEUE_VERSIONS)
        findings.append(
            (True, f"Kueue's API is served ({KUEUE_GROUP}/{served})")
            if served
            else (False, f"Kueue's API ({KUEUE_GROUP}) is not served: is Kueue installed in this cluster?")
        )
        missing = [(item, "cluster-wide") for item in missing_permissions(client, CLUSTER_ROLE)]
        namespaced = [rule for rule, used in ((LEASES, leases), (CONFIGMAPS, configmaps)) if used]
        missing += [(item, f"in namespace {namespace}") for item in missing_permissions(client, namespaced, namespace)]
    except BotError as error:
        return [*findings, (False, f"the access reviews failed: {error}")]
    findings += [
        (False, f"this identity may not {item} ({where}); the bot's Role grants it") for item, where in missing
    ]
    if not missing:
        checked = _count(CLUSTER_ROLE) + _count(namespaced)
        findings.append((True, f"every permission the bot's roles grant is held ({checked} access reviews)"))
    return findings
