"""Identities with RBAC PolicyRules, evaluated as Kubernetes' RBAC authorizer does."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

SUPERUSER_GROUP = "system:masters"


@dataclass(frozen=True)
class Attributes:
    """What a request asks to do: the authorizer's view of it."""

    user: str
    verb: str
    api_group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""

    @property
    def combined_resource(self) -> str:
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource


@dataclass(frozen=True)
class PolicyRule:
    """An rbac.authorization.k8s.io/v1 PolicyRule (resource rules; nonResourceURLs are always allowed here)."""

    verbs: tuple[str, ...]
    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, rule: Mapping[str, Any]) -> PolicyRule:
        return cls(
            verbs=tuple(rule.get("verbs", ())),
            api_groups=tuple(rule.get("apiGroups", ())),
            resources=tuple(rule.get("resources", ())),
            resource_names=tuple(rule.get("resourceNames", ())),
        )

    def allows(self, attrs: Attributes) -> bool:
        return (
            ("*" in self.verbs or attrs.verb in self.verbs)
            and ("*" in self.api_groups or attrs.api_group in self.api_groups)
            and any(self._resource_matches(r, attrs) for r in self.resources)
            and (not self.resource_names or attrs.name in self.resource_names)
        )

    @staticmethod
    def _resource_matches(resource: str, attrs: Attributes) -> bool:
        if resource in ("*", attrs.combined_resource):
            return True
        return bool(attrs.subresource) and resource == f"*/{attrs.subresource}"


@dataclass(frozen=True)
class Identity:
    """Who a bearer token is. `rules` None means all-powerful (a cluster admin)."""

    user: str
    groups: tuple[str, ...] = ()
    rules: tuple[PolicyRule, ...] | None = None
    # Roles bound in one namespace (RoleBindings): namespace -> rules, which allow nothing elsewhere
    namespaced: tuple[tuple[str, tuple[PolicyRule, ...]], ...] = ()

    def allows(self, attrs: Attributes) -> bool:
        if self.rules is None or SUPERUSER_GROUP in self.groups:
            return True
        if any(rule.allows(attrs) for rule in self.rules):
            return True
        return any(ns == attrs.namespace and any(r.allows(attrs) for r in rules) for ns, rules in self.namespaced)


def as_rules(rules: Iterable[PolicyRule | Mapping[str, Any]]) -> tuple[PolicyRule, ...]:
    return tuple(r if isinstance(r, PolicyRule) else PolicyRule.from_dict(r) for r in rules)


def rules_from_cluster_role(source: str | Path | Mapping[str, Any]) -> list[PolicyRule]:
    """The rules of a ClusterRole (or Role): a dict, or a YAML file holding one or more of them
    (every ClusterRole/Role document of the file contributes, e.g. a Helm-rendered deploy/ file)."""
    if isinstance(source, Mapping):
        documents: list[Any] = [source]
    else:
        documents = list(yaml.safe_load_all(Path(source).read_text()))
    roles = [d for d in documents if isinstance(d, Mapping) and d.get("kind") in ("ClusterRole", "Role")]
    if not roles:
        raise ValueError(f"no ClusterRole or Role in {source!r}")
    return [PolicyRule.from_dict(rule) for role in roles for rule in role.get("rules") or ()]


def forbidden_reason(attrs: Attributes) -> str:
    """`User "u" cannot get resource "jobs" in API group "batch" in the namespace "ns"`."""
    what = f'User "{attrs.user}" cannot {attrs.verb} resource "{attrs.combined_resource}"'
    where = f'in the namespace "{attrs.namespace}"' if attrs.namespace else "at the cluster scope"
    return f'{what} in API group "{attrs.api_group}" {where}'
