"""The bounds an object must keep to be read: those Kueue's CRDs and the API server set (the Workload's pod
sets, conditions and checks; a ClusterQueue's resource groups, flavors and resources; the length of a name,
a condition's reason and message), so that a dump or a non-validating server cannot hand the engine an object
no Kueue would hold (and no answer would come in time). An object beyond them raises DecodeError saying which
bound; `unreadable` records it by name, for the answer that needs it to say it could not be read.

The figures are the CRDs' maxItems and maxLength (../shared/kueue/crds, v1beta1 and v1beta2 alike) and
Kubernetes' own (the length of a name, the size of an object's annotations together)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from bot.kube.decode_parts import DecodeError, Raw, _is_map
from bot.trace.model import JOB_UID_LABEL
from bot.trace.unreadable import Unreadable

MAX_NAME = 253
MAX_POD_SETS = 18  # Workload spec.podSets and status.admission.podSetAssignments, resourceRequests
MAX_CONDITIONS = 16
MAX_CHECKS = 8  # a Workload's status.admissionChecks
MAX_MESSAGE = 32768  # a condition's or an admission check's message
MAX_REASON = 1024
MAX_RESOURCE_GROUPS = 16
MAX_FLAVORS = 64  # per resource group; also resources per flavor and covered resources
MAX_ANNOTATIONS = 256 * 1024  # bytes of keys and values together (Kubernetes' TotalAnnotationSizeLimitB)

_SURROGATE = re.compile("[\ud800-\udfff]")


def _items(raw: object, field: str, limit: int) -> list[Any]:
    value = raw.get(field) if _is_map(raw) else None
    if isinstance(value, list):
        if len(value) > limit:
            raise DecodeError(f"{field} has {len(value)} items; Kueue allows at most {limit}")
        return value
    return []


def _texts(items: list[Any]) -> None:
    for item in items:
        if not _is_map(item):
            continue
        _at_most("message", item.get("message"), MAX_MESSAGE)
        _at_most("reason", item.get("reason"), MAX_REASON)


def _at_most(field: str, value: object, limit: int) -> None:
    """A text field within its length (what is not text is another reader's business)."""
    if isinstance(value, str) and len(value) > limit:
        raise DecodeError(f"a {field} of {len(value)} characters; Kubernetes allows at most {limit}")


def _metadata(raw: Raw) -> None:
    metadata = raw.get("metadata")
    if not _is_map(metadata):
        return
    _at_most("name", metadata.get("name"), MAX_NAME)
    _at_most("namespace", metadata.get("namespace"), MAX_NAME)
    annotations = metadata.get("annotations")
    if annotations and _is_map(annotations):
        size = sum(len(str(k)) + len(str(v)) for k, v in annotations.items())
        if size > MAX_ANNOTATIONS:
            raise DecodeError(f"annotations of {size} characters; Kubernetes allows at most {MAX_ANNOTATIONS}")


def _workload(raw: Raw) -> None:
    spec, status = raw.get("spec"), raw.get("status")
    _items(spec, "podSets", MAX_POD_SETS)
    _items(status, "resourceRequests", MAX_POD_SETS)
    _items(status, "reclaimablePods", MAX_POD_SETS)
    _texts(_items(status, "admissionChecks", MAX_CHECKS))
    _texts(_items(status, "conditions", MAX_CONDITIONS))
    _items(status.get("admission") if _is_map(status) else None, "podSetAssignments", MAX_POD_SETS)


def _queue(raw: Raw) -> None:
    status = raw.get("status")
    _texts(_items(status, "conditions", MAX_CONDITIONS))
    for group in _items(raw.get("spec"), "resourceGroups", MAX_RESOURCE_GROUPS):
        _items(group, "coveredResources", MAX_FLAVORS)
        for flavor in _items(group, "flavors", MAX_FLAVORS):
            _items(flavor, "resources", MAX_FLAVORS)


_BY_KIND = {"Workload": _workload, "ClusterQueue": _queue, "LocalQueue": _queue}


def check_bounds(raw: Raw, kind: str) -> None:
    """Raise DecodeError when the object is beyond the bounds the API server and Kueue keep (see the module)."""
    _metadata(raw)
    check = _BY_KIND.get(kind)
    if check is not None:
        check(raw)


def unreadable(raw: object, reason: str, *, kind: str = "") -> Unreadable:
    """The record of an object the bot could not read: its kind, namespace and name (as far as they can be
    read), the reason, and what ties it to its job (owner names, the job-uid label)."""
    item = raw if isinstance(raw, Mapping) else {}
    metadata = item.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    owners = metadata.get("ownerReferences")
    labels = metadata.get("labels")
    uid = labels.get(JOB_UID_LABEL) if isinstance(labels, Mapping) else None
    return Unreadable(
        kind=_word(item.get("kind")) or kind,
        namespace=_word(metadata.get("namespace")),
        name=_word(metadata.get("name")) or "(no name)",
        reason=_word(reason, 300),
        owners=tuple(_word(o.get("name")) for o in owners[:MAX_CONDITIONS] if isinstance(o, Mapping))
        if isinstance(owners, list)
        else (),
        job_uid=_word(uid),
    )


def _word(value: object, limit: int = MAX_NAME) -> str:
    """A string as it can be shown: cut, its lone surrogates replaced (as the API server does)."""
    if not isinstance(value, str):
        return ""
    return _SURROGATE.sub("\ufffd", value[:limit])


def readable_text(raw: object) -> bool:
    """Every string of `raw` is valid Unicode text (no lone surrogate): it can be shown, logged and posted."""
    try:
        json.dumps(raw, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError, TypeError, RecursionError):
        return False
    return True
