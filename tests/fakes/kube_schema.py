"""Validation of Kueue objects against the openAPIV3Schema of the real CRDs.

As in `shared/tools/validate-dump`: Draft 4, fields the schema does not declare are errors (a real
server prunes them, so the bot never sees them), `x-kubernetes-*` rules are not evaluated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from jsonschema import Draft4Validator, FormatChecker

from tests.fakes.kube_registry import CRDS_DIR

RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_FORMATS = FormatChecker(formats=())


def _is_date_time(value: object) -> bool:
    return not isinstance(value, str) or bool(RFC3339.match(value))


_FORMATS.checks("date-time", raises=())(_is_date_time)


@dataclass(frozen=True)
class FieldError:
    """One field error, as the API server lists them in an Invalid Status (`details.causes`)."""

    field: str
    reason: str  # FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, ...
    detail: str

    def __str__(self) -> str:
        return f"{self.field}: {self.detail}"


class InvalidObjectError(ValueError):
    """The object does not validate: `<Kind>.<group> "<name>" is invalid: ...`, as the API server says."""

    def __init__(self, group: str, kind: str, name: str, errors: Sequence[FieldError]) -> None:
        listed = str(errors[0]) if len(errors) == 1 else "[" + ", ".join(map(str, errors)) + "]"
        group_kind = f"{kind}.{group}" if group else kind
        super().__init__(f'{group_kind} "{name}" is invalid: {listed}')
        self.group = group
        self.kind = kind
        self.name = name
        self.errors = tuple(errors)


def _strict(schema: Any) -> Any:
    """A copy of a CRD schema where objects with declared properties refuse undeclared fields."""
    if isinstance(schema, list):
        return [_strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("properties", "patternProperties", "definitions"):
            out[key] = {name: _strict(sub) for name, sub in value.items()}
        elif key == "description" or key.startswith("x-kubernetes-validations"):
            continue
        elif key == "pattern" and isinstance(value, str):
            # Go's RE2 accepts "^(?i)..."; Python wants global flags first.
            out[key] = re.sub(r"^\^\(\?([a-zA-Z]+)\)", r"(?\1)^", value)
        else:
            out[key] = _strict(value)
    if (
        "properties" in schema
        and "additionalProperties" not in schema
        and not schema.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    if schema.get("nullable") and isinstance(schema.get("type"), str):
        out["type"] = [schema["type"], "null"]
    return out


@cache
def crd_validators(crds_dir: Path = CRDS_DIR) -> dict[tuple[str, str, str], Draft4Validator]:
    """(group, kind, version) -> a validator of that version's schema, for every CRD in the folder."""
    validators = {}
    for path in sorted(crds_dir.glob("*.yaml")):
        crd = yaml.load(path.read_text(), Loader=yaml.CSafeLoader)
        spec = crd["spec"]
        for version in spec["versions"]:
            schema = _strict(version["schema"]["openAPIV3Schema"])
            key = (spec["group"], spec["names"]["kind"], version["name"])
            validators[key] = Draft4Validator(schema, format_checker=_FORMATS)
    return validators


def _field(path: Iterable[str | int]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<root>"


def _short(value: object) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _field_errors(error: jsonschema.ValidationError) -> list[FieldError]:
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        declared = error.schema.get("properties", {}) if isinstance(error.schema, Mapping) else {}
        return [
            FieldError(_field([*path, name]), "FieldValueForbidden", "Forbidden: unknown field")
            for name in sorted(error.instance)
            if name not in declared
        ]
    if error.validator == "required":
        missing = re.findall(r"'([^']+)' is a required property", error.message)
        return [FieldError(_field([*path, *missing[:1]]), "FieldValueRequired", "Required value")]
    if error.validator == "enum" and isinstance(error.validator_value, list):
        supported = ", ".join(_short(v) for v in error.validator_value)
        detail = f"Unsupported value: {_short(error.instance)}: supported values: {supported}"
        return [FieldError(_field(path), "FieldValueNotSupported", detail)]
    if error.validator == "type":
        detail = f"Invalid value: {_short(error.instance)}: must be of type {error.validator_value}"
        return [FieldError(_field(path), "FieldValueTypeInvalid", detail)]
    detail = f"Invalid value: {_short(error.instance)}: {error.validator} {_short(error.validator_value)}"
    return [FieldError(_field(path), "FieldValueInvalid", detail)]


def validate_crd_object(obj: Mapping[str, Any], group: str, kind: str, version: str) -> list[FieldError]:
    """Every schema error of a Kueue object, sorted by field; [] when it is valid."""
    validator = crd_validators()[(group, kind, version)]
    errors = {e for error in validator.iter_errors(obj) for e in _field_errors(error)}
    return sorted(errors, key=lambda e: (e.field, e.detail))


def dump_problems(text: str) -> list[str]:
    """What the API server would refuse in a dump (YAML documents, items of `*List`s): every Kueue object
    checked against its version's CRD schema, one line per field error; [] when the whole dump is valid."""
    problems = []
    for doc in yaml.load_all(text, Loader=yaml.CSafeLoader):
        items = doc.get("items") if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List") else [doc]
        for obj in items or []:
            if not isinstance(obj, dict):
                continue
            group, _, version = str(obj.get("apiVersion", "")).rpartition("/")
            if group != "kueue.x-k8s.io":
                continue
            name = (obj.get("metadata") or {}).get("name")
            if (group, obj.get("kind"), version) not in crd_validators():
                problems.append(f"{obj.get('kind')} {name}: no CRD serves {group}/{version} {obj.get('kind')}")
                continue
            problems += [f"{obj['kind']} {name}: {e}" for e in validate_crd_object(obj, group, obj["kind"], version)]
    return problems
