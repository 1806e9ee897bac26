"""Discovery documents (/api, /apis, /apis/<group>[/<version>], /version) for what a fake server serves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.fakes.kube_registry import ALL_VERBS, AUTHORIZATION_GROUP, VISIBILITY_GROUP, Registry

# (name, kind, namespaced, verbs) of the groups that are not made of stored kinds
_VISIBILITY_RESOURCES = (
    ("clusterqueues", "ClusterQueue", False, ()),
    ("clusterqueues/pendingworkloads", "PendingWorkloadsSummary", False, ("get",)),
    ("localqueues", "LocalQueue", True, ()),
    ("localqueues/pendingworkloads", "PendingWorkloadsSummary", True, ("get",)),
)
_AUTHORIZATION_RESOURCES = (
    ("subjectaccessreviews", "SubjectAccessReview", False, ("create",)),
    ("selfsubjectaccessreviews", "SelfSubjectAccessReview", False, ("create",)),
)


def _resource(
    name: str, kind: str, namespaced: bool, verbs: tuple[str, ...], short_names: tuple[str, ...] = ()
) -> dict[str, Any]:
    singular = "" if "/" in name else kind.lower()
    resource: dict[str, Any] = {
        "name": name,
        "singularName": singular,
        "namespaced": namespaced,
        "kind": kind,
        "verbs": list(verbs),
    }
    if short_names:
        resource["shortNames"] = list(short_names)
    return resource


def _api_group(group: str, versions: list[str]) -> dict[str, Any]:
    listed = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": listed, "preferredVersion": listed[0]}


@dataclass(frozen=True)
class Discovery:
    registry: Registry
    visibility_versions: tuple[str, ...]
    server_version: str

    def groups(self) -> dict[str, list[str]]:
        """Served group -> versions, preferred first ("" is the core group)."""
        groups = self.registry.group_versions()
        if self.visibility_versions:
            groups[VISIBILITY_GROUP] = list(self.visibility_versions)
        groups[AUTHORIZATION_GROUP] = ["v1"]
        return groups

    def document(self, path: str, address: str) -> dict[str, Any] | None:
        """The discovery document at `path`, or None when the path is not a discovery one."""
        groups = self.groups()
        parts = path.strip("/").split("/")
        match parts:
            case ["api"]:
                cidr = {"clientCIDR": "0.0.0.0/0", "serverAddress": address}
                return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [cidr]}
            case ["api", "v1"]:
                return self._resource_list("", "v1")
            case ["apis"]:
                listed = [_api_group(g, v) for g, v in groups.items() if g]
                return {"kind": "APIGroupList", "apiVersion": "v1", "groups": listed}
            case ["apis", group] if group in groups:
                return {"kind": "APIGroup", "apiVersion": "v1", **_api_group(group, groups[group])}
            case ["apis", group, version] if version in groups.get(group, ()):
                return self._resource_list(group, version)
            case ["version"]:
                major, minor = self.server_version.lstrip("v").split(".")[:2]
                return {"major": major, "minor": minor, "gitVersion": self.server_version, "platform": "linux/amd64"}
            case ["healthz"] | ["readyz"] | ["livez"]:
                return {"status": "ok"}
        return None

    def _resource_list(self, group: str, version: str) -> dict[str, Any]:
        fixed = {VISIBILITY_GROUP: _VISIBILITY_RESOURCES, AUTHORIZATION_GROUP: _AUTHORIZATION_RESOURCES}
        resources = [_resource(*r) for r in fixed.get(group, ())]
        for rt in self.registry:
            if rt.group == group and version in rt.versions:
                resources.append(_resource(rt.plural, rt.kind, rt.namespaced, ALL_VERBS, rt.short_names))
                if rt.has_status:
                    status_verbs = ("get", "patch", "update")
                    resources.append(_resource(f"{rt.plural}/status", rt.kind, rt.namespaced, status_verbs))
        group_version = f"{group}/{version}" if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources}
