"""The ground floor of `bot.kube.decode`: the error, `Parts` (how the bulky parts of a Workload are built
from their views), readers of raw values, and the decoders shared by several kinds (metadata, conditions,
selectors, tolerations and taints, containers and pod templates). See `bot.kube.decode` for the whole."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, TypeGuard, TypeVar

from bot.trace.model import (
    JOB_UID_LABEL,
    Condition,
    Container,
    LabelSelector,
    Meta,
    OwnerRef,
    PodTemplate,
    Requirement,
    Taint,
    Toleration,
)
from bot.trace.quantity import parse_map

KUEUE_GROUP = "kueue.x-k8s.io"
VISIBILITY_GROUP = "visibility.kueue.x-k8s.io"

Raw = Mapping[str, Any]
View = tuple[Any, ...]  # the raw values a part is built from, and nothing else
T = TypeVar("T")
_EMPTY: Raw = {}


class DecodeError(ValueError):
    """An object that cannot be read (wrong shape, missing name)."""


class Parts:
    """How decoding builds names and parts: afresh, as they are. `bot.kube.compact.Interner` shares them."""

    # A name or word many objects repeat (kind, namespace, queue, condition reason): as it is (`str` of a
    # str is that str, and a builtin is called faster than a method).
    text: Callable[[str], str] = staticmethod(str)

    def labels(self, value: object) -> Mapping[str, str]:
        """An object's labels or annotations."""
        return _strings(value)

    def words(self, value: object) -> Mapping[str, str]:
        """A mapping of names inside a part (an assignment's resource -> flavor)."""
        return _strings(value)

    def resource_version(self, value: str) -> str:
        return value

    def part(self, build: Callable[[View, Parts], T], view: View) -> T:
        """`build(view, self)`: the part of an object that `view` holds the raw values of."""
        return build(view, self)


PLAIN = Parts()


def _is_map(value: object) -> TypeGuard[Raw]:
    """A mapping (a dict, found without the abstract class's slower check)."""
    return type(value) is dict or isinstance(value, Mapping)


def _map(value: object) -> Raw:
    if type(value) is dict:
        return value
    if value is None:
        return _EMPTY
    return value if isinstance(value, Mapping) else _EMPTY


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: object, default: str = "") -> str:
    if type(value) is str:
        return value
    if value is None:
        return default
    return value if isinstance(value, str) else str(value)


def _int(value: object, default: int = 0) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return default


def _strings(value: object) -> dict[str, str]:
    return {str(k): _str(v) for k, v in _map(value).items()}


def parse_time(value: object) -> datetime | None:
    """An RFC 3339 timestamp as an aware datetime (UTC when no offset), None when absent or invalid."""
    if not isinstance(value, str) or not value:
        return None
    if value[-1] == "Z":  # as the API server writes it: Python reads RFC 3339's "Z" as UTC
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    text = value.strip().replace("z", "Z")
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def meta(raw: Raw, parts: Parts = PLAIN) -> Meta:
    metadata = _map(raw.get("metadata"))
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        raise DecodeError(f"a {raw.get('kind', 'object')} without metadata.name")
    text = parts.text
    labels = parts.labels(metadata.get("labels"))
    refs = metadata.get("ownerReferences")
    namespace = metadata.get("namespace")
    # Here, in _owners and in conditions, the fields in their order, by position (the same, faster).
    return Meta(
        text(_str(raw.get("kind"))),
        name,
        text(namespace) if isinstance(namespace, str) and namespace else None,
        text(_str(raw.get("apiVersion"))),
        _str(metadata.get("uid")),
        parse_time(metadata.get("creationTimestamp")),
        labels,
        parts.labels(metadata.get("annotations")),
        _owners(refs, labels.get(JOB_UID_LABEL), text) if isinstance(refs, list) and refs else (),
        parts.resource_version(_str(metadata.get("resourceVersion"))),
        bool(metadata.get("deletionTimestamp")),
    )


def _owners(refs: list[Any], job_uid: str | None, text: Callable[[str], str]) -> tuple[OwnerRef, ...]:
    """metadata.ownerReferences. An owner's name and uid are its own (not shared, so not interned); the job's uid
    is the job-uid label's (one string for both)."""
    owners = []
    for ref in map(_map, refs):
        uid = ref.get("uid")
        owners.append(
            OwnerRef(
                text(_str(ref.get("apiVersion"))),
                text(_str(ref.get("kind"))),
                _str(ref.get("name")),
                job_uid if job_uid is not None and job_uid == uid else _str(uid),
                ref.get("controller") is True,
            )
        )
    return tuple(owners)


def conditions(raw: object, parts: Parts = PLAIN) -> tuple[Condition, ...]:
    if not isinstance(raw, list) or not raw:
        return ()
    text = parts.text
    found = []
    stamp: object = None
    since: datetime | None = None
    for item in map(_map, raw):
        if item.get("lastTransitionTime") != stamp or since is None:  # conditions flipped together: one datetime
            stamp = item.get("lastTransitionTime")
            since = parse_time(stamp)
        found.append(
            Condition(
                text(_str(item.get("type"))),
                text(_str(item.get("status"))),
                text(_str(item.get("reason"))),
                text(_str(item.get("message"))),
                since,
            )
        )
    return tuple(found)


def _requirements(raw: object) -> tuple[Requirement, ...]:
    return tuple(
        Requirement(
            key=_str(item.get("key")),
            operator=_str(item.get("operator"), "In"),
            values=tuple(_str(v) for v in _list(item.get("values"))),
        )
        for item in map(_map, _list(raw))
    )


def label_selector(raw: object) -> LabelSelector | None:
    if not isinstance(raw, Mapping):
        return None
    return LabelSelector(
        match_labels=_strings(raw.get("matchLabels")), expressions=_requirements(raw.get("matchExpressions"))
    )


def _tolerations(raw: object) -> tuple[Toleration, ...]:
    return tuple(
        Toleration(
            key=_str(item.get("key")),
            operator=_str(item.get("operator"), "Equal") or "Equal",
            value=_str(item.get("value")),
            effect=_str(item.get("effect")),
        )
        for item in map(_map, _list(raw))
    )


def _taints(raw: object) -> tuple[Taint, ...]:
    return tuple(
        Taint(
            key=_str(item.get("key")),
            value=_str(item.get("value")),
            effect=_str(item.get("effect"), "NoSchedule"),
        )
        for item in map(_map, _list(raw))
    )


def _container_view(raw: object) -> View:
    raw = _map(raw)
    resources = _map(raw.get("resources"))
    return (raw.get("name"), resources.get("requests"), resources.get("limits"), raw.get("restartPolicy"))


def _container(view: View) -> Container:
    name, requests, limits, restart_policy = view
    return Container(
        name=_str(name),
        requests=parse_map(requests),
        limits=parse_map(limits),
        restart_policy=_str(restart_policy),
    )


def _pod_spec_view(spec: object) -> View:
    """What a PodTemplate is decoded from: the scheduling-relevant fields of a PodSpec, nothing else."""
    spec = _map(spec)
    affinity = spec.get("affinity")
    terms = (
        _map(_map(_map(affinity).get("nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution")).get(
            "nodeSelectorTerms"
        )
        if affinity
        else None
    )
    pod_resources = _map(spec.get("resources"))
    return (
        _containers_view(spec.get("containers")),
        _containers_view(spec.get("initContainers")),
        spec.get("overhead"),
        pod_resources.get("requests"),
        pod_resources.get("limits"),
        spec.get("nodeSelector"),
        terms,
        spec.get("tolerations"),
        spec.get("priorityClassName"),
        spec.get("schedulingGates"),
    )


def _containers_view(raw: object) -> View:
    return tuple(map(_container_view, raw)) if isinstance(raw, list) and raw else ()


def _pod_template(view: View, parts: Parts = PLAIN) -> PodTemplate:
    containers, init_containers, overhead, requests, limits, selector, node_terms, tolerations, priority, gates = view
    terms = tuple(_requirements(_map(term).get("matchExpressions")) for term in _list(node_terms))
    return PodTemplate(
        containers=tuple(map(_container, containers)),
        init_containers=tuple(map(_container, init_containers)),
        overhead=parse_map(overhead),
        pod_requests=parse_map(requests),
        pod_limits=parse_map(limits),
        node_selector=_strings(selector),
        affinity_terms=tuple(term for term in terms if term),
        tolerations=_tolerations(tolerations),
        priority_class_name=_str(priority),
        scheduling_gates=tuple(_str(_map(g).get("name")) for g in _list(gates)),
    )


def pod_template(spec: object) -> PodTemplate:
    """A PodSpec (the `spec` of a pod template or of a Pod)."""
    return _pod_template(_pod_spec_view(spec))


def _template_spec(template: object) -> PodTemplate:
    return pod_template(_map(template).get("spec"))
