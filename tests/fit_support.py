"""Jobs taken out of a scenario cluster: the job as its owner would `kubectl apply` it (no uid, no status) and the
cluster without it and its Workload, for `fit` to predict the verdict the job got once in."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.builders import Raw, flatten
from tests.paths import SCENARIOS

# The scenarios whose verdict a job gets while it waits for admission: what a dry run predicts. The others
# (admitted, finished, in backoff, past its admission checks) are about what happened to the job after.
PENDING_VERDICTS = frozenset(
    {
        "exceeds-max-quota",
        "waiting-for-quota",
        "no-matching-flavor",
        "local-queue-missing",
        "namespace-not-allowed",
        "queue-stopped",
        "queue-inactive",
        "not-managed",
        "cluster-queue-missing",
    }
)


@dataclass(frozen=True)
class TakenOut:
    name: str
    expect: dict[str, Any]
    job: Raw  # as applied: name, namespace, labels, annotations and spec
    cluster: list[Raw]  # every other object

    @property
    def now(self) -> str:
        return str(self.expect["now"])


def as_applied(job: Raw) -> Raw:
    meta = {k: v for k, v in job["metadata"].items() if k in ("name", "namespace", "labels", "annotations")}
    return {"apiVersion": job["apiVersion"], "kind": job["kind"], "metadata": meta, "spec": job.get("spec", {})}


def take_out(name: str) -> TakenOut:
    folder = SCENARIOS / name
    expect = yaml.safe_load((folder / "expect.yaml").read_text())
    query, workload = expect["query"], expect.get("workload")
    kind = query.get("kind", "Job")
    found: Raw | None = None
    kept: list[Raw] = []
    for item in flatten(yaml.safe_load_all((folder / "cluster.yaml").read_text())):
        meta = item.get("metadata", {})
        if item.get("kind") == kind and (meta.get("namespace"), meta.get("name")) == (
            query["namespace"],
            query["name"],
        ):
            found = item
        elif not (item.get("kind") == "Workload" and workload and meta.get("name") == workload):
            kept.append(item)
    assert found is not None, f"{name}: the asked job is not in its cluster"
    return TakenOut(name, expect, as_applied(found), kept)


def pending_scenarios() -> list[str]:
    names = sorted(p.parent.name for p in SCENARIOS.glob("*/expect.yaml"))
    return [
        n for n in names if yaml.safe_load((SCENARIOS / n / "expect.yaml").read_text())["verdict"] in PENDING_VERDICTS
    ]


def write(taken: TakenOut, folder: Path) -> tuple[Path, Path]:
    """The job file and the dump, written in `folder`."""
    from tests.builders import as_yaml

    job_file, dump = folder / f"{taken.name}-job.yaml", folder / f"{taken.name}-cluster.yaml"
    job_file.write_text(yaml.safe_dump(taken.job, sort_keys=False))
    dump.write_text(as_yaml(taken.cluster))
    return job_file, dump
