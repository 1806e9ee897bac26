"""Kueue's CRDs with v1beta1 as the only, stored version: `python -m tests.real.crds SRC DST`.

For the v1beta1 run of test_real_scenarios.py: a server that stores v1beta1 with the schema of a Kueue that
already knows v1beta2's field values (as a v0.15+ Kueue still serving v1beta1 does), and serves no v1beta2,
so nothing is read back through a conversion that no webhook performs here."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml


def v1beta1_only(crd: dict[str, object]) -> dict[str, object]:
    spec = crd["spec"]
    assert isinstance(spec, dict)
    versions = [v for v in spec["versions"] if v["name"] == "v1beta1"] or spec["versions"][:1]
    versions[0].update(storage=True, served=True)
    spec["versions"] = versions[:1]
    return crd


def main(source: str, target: str) -> None:
    Path(target).mkdir(parents=True, exist_ok=True)
    for path in sorted(Path(source).glob("*.yaml")):
        documents = [v1beta1_only(d) for d in yaml.safe_load_all(path.read_text()) if d]
        (Path(target) / path.name).write_text(yaml.safe_dump_all(documents))


if __name__ == "__main__":
    main(*sys.argv[1:3])
