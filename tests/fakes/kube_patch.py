"""PATCH bodies: JSON merge patch (RFC 7386; strategic merge is treated as it) and JSON patch (RFC 6902)."""

from __future__ import annotations

import copy
from typing import Any

MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"


class PatchError(ValueError):
    pass


def merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"invalid JSON pointer {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _parent(document: Any, parts: list[str]) -> tuple[Any, str]:
    if not parts:
        raise PatchError("the whole document cannot be the target of this operation")
    node = document
    for part in parts[:-1]:
        try:
            node = node[int(part)] if isinstance(node, list) else node[part]
        except (KeyError, IndexError, ValueError) as e:
            raise PatchError(f"path /{'/'.join(parts)} does not exist") from e
    return node, parts[-1]


def _get(document: Any, parts: list[str]) -> Any:
    node, last = _parent(document, parts)
    try:
        return node[int(last)] if isinstance(node, list) else node[last]
    except (KeyError, IndexError, ValueError) as e:
        raise PatchError(f"path /{'/'.join(parts)} does not exist") from e


def json_patch(target: Any, operations: Any) -> Any:
    """Apply add/remove/replace/test/copy/move operations to a copy of target."""
    if not isinstance(operations, list):
        raise PatchError("a JSON patch is a list of operations")
    document = copy.deepcopy(target)
    for operation in operations:
        op, parts = operation.get("op"), _pointer(operation.get("path", ""))
        if op == "test":
            if _get(document, parts) != operation.get("value"):
                raise PatchError(f"testing value {operation.get('path')} failed")
            continue
        if op in ("remove", "replace", "move"):
            source = _pointer(operation["from"]) if op == "move" else parts
            node, last = _parent(document, source)
            value = _get(document, source)
            del node[int(last) if isinstance(node, list) else last]
        if op in ("add", "replace", "move", "copy"):
            if op in ("add", "replace"):
                value = copy.deepcopy(operation.get("value"))
            elif op == "copy":
                value = copy.deepcopy(_get(document, _pointer(operation["from"])))
            node, last = _parent(document, parts)
            if isinstance(node, list):
                node.insert(len(node) if last == "-" else int(last), value)
            else:
                node[last] = value
        elif op != "remove":
            raise PatchError(f"unknown JSON patch operation {op!r}")
    return document
