"""A job said in a few words, as `/kueue fit` takes it: `team-a/default 4 pods × (cpu 8, memory 32Gi,
nvidia.com/gpu 2)` (`x` or `*` for ×; `cpu=8` or `cpu: 8`; no count: one pod; no namespace: the asker's) as
the Draft of a batch Job of that many pods, each asking for that much. Pure and total: None when not understood."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from bot.fit.draft import Draft
from bot.trace.model import QUEUE_NAME_LABEL, Container, Job, JobTemplate, Meta, PodSet, PodTemplate
from bot.trace.quantity import parse_or_none

SPEC_JOB_NAME = "your-job"
_NAME = r"[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?"
_SPEC = re.compile(
    rf"^\s*(?:(?P<ns>{_NAME})/)?(?P<queue>{_NAME})\s+"
    r"(?:(?P<count>\d{1,6})\s*(?:pods?|pod\(s\))?\s*[×x*]?\s*)?"
    r"\(?(?P<resources>[^()]*)\)?\s*$",
    re.IGNORECASE,
)
_PAIR = re.compile(r"^\s*(?P<name>[a-zA-Z0-9][-a-zA-Z0-9./]*)\s*[:= ]\s*(?P<amount>[0-9.]+[a-zA-Z]*)\s*$")
MAX_PODS = 100_000


@dataclass(frozen=True)
class Spec:
    namespace: str | None
    queue: str
    count: int
    requests: dict[str, Decimal]


def parse_spec(text: str) -> Spec | None:
    """`ns/queue N pods × (resource amount, ...)` -> Spec; None when it does not read as one."""
    found = _SPEC.match(text.replace("×", " x ").replace("\u00a0", " "))
    if found is None:
        return None
    requests: dict[str, Decimal] = {}
    for part in filter(None, (p.strip() for p in found["resources"].split(","))):
        pair = _PAIR.match(part)
        amount = parse_or_none(pair["amount"]) if pair is not None else None
        if pair is None or amount is None or amount < 0:
            return None
        requests[pair["name"].lower()] = amount
    count = int(found["count"]) if found["count"] else 1
    if not requests or not 1 <= count <= MAX_PODS:
        return None
    return Spec(found["ns"], found["queue"], count, requests)


def draft_of_spec(spec: Spec, namespace: str) -> Draft:
    """The batch Job that spec says, in `namespace` when the spec names none."""
    meta = Meta(
        kind="Job",
        name=SPEC_JOB_NAME,
        namespace=spec.namespace or namespace,
        api_version="batch/v1",
        labels={QUEUE_NAME_LABEL: spec.queue},
    )
    template = PodTemplate(containers=(Container("main", requests=dict(spec.requests)),))
    job = Job(meta=meta, suspended=True, templates=(JobTemplate("main", spec.count, template),))
    return Draft(job, (PodSet("main", spec.count, template),))
