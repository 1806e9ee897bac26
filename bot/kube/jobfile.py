"""A job file, as a user would `kubectl apply` it (one object, YAML or JSON), as a `bot.fit.draft.Draft`: the
decoded job and the pod sets Kueue would make of it (FACTS §2.2). Raises JobFileInvalid with one clear line."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from bot.errors import DumpUnreadable, JobFileInvalid
from bot.fit.draft import Draft
from bot.kube.decode import JOB_KINDS, job
from bot.kube.decode_parts import _int, _map, _str, pod_template
from bot.kube.dump import _NoAliasLoader
from bot.trace.model import Container, Job, JobTemplate, PodSet, PodTemplate
from bot.trace.quantity import parse_map

MAX_JOB_FILE_BYTES = 4 * 1024 * 1024
KINDS = sorted(JOB_KINDS | {"Pod"})
# KubeRay's submitter Job when the RayJob gives no submitterPodTemplate (GetDefaultSubmitterTemplate).
_RAY_SUBMITTER = {
    "containers": [{"name": "ray-job-submitter", "resources": {"requests": {"cpu": "500m", "memory": "200Mi"}}}]
}


def _documents(text: str, source: str) -> list[object]:
    try:
        return [document for document in yaml.load_all(text, Loader=_NoAliasLoader) if document is not None]
    except (yaml.YAMLError, RecursionError) as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise JobFileInvalid(f"{source} is not valid YAML or JSON{where}") from error


def _one_object(text: str, source: str) -> Mapping[str, Any]:
    documents = _documents(text, source)
    if not documents:
        raise JobFileInvalid(f"{source} is empty: give the one job you would kubectl apply")
    if len(documents) > 1:
        raise JobFileInvalid(f"{source} holds {len(documents)} documents: give one job at a time")
    raw = documents[0]
    if not isinstance(raw, Mapping) or not raw.get("kind") or not isinstance(raw.get("metadata"), Mapping):
        raise JobFileInvalid(f"{source} is not a Kubernetes object (no kind or metadata)")
    if str(raw.get("kind")).endswith("List"):
        raise JobFileInvalid(f"{source} is a {raw.get('kind')}: give one job at a time")
    return raw


def _submitter(spec: Mapping[str, Any]) -> list[PodSet]:
    """A RayJob in K8sJobMode (the default) runs a submitter Job, which Kueue counts as the pod set `submitter`."""
    if _str(spec.get("submissionMode"), "K8sJobMode") != "K8sJobMode":
        return []
    given = _map(spec.get("submitterPodTemplate")).get("spec")
    return [PodSet("submitter", 1, pod_template(given if isinstance(given, Mapping) else _RAY_SUBMITTER))]


def _train_job(spec: Mapping[str, Any]) -> list[PodSet]:
    """A TrainJob's nodes as its trainer asks for them (numNodes x resourcesPerNode, limits standing in for
    requests); the runtime's other steps (initializers) are not in the file."""
    trainer = _map(spec.get("trainer"))
    resources = _map(trainer.get("resourcesPerNode"))
    requests, limits = parse_map(resources.get("requests")), parse_map(resources.get("limits"))
    container = Container("node", requests=requests, limits=limits)
    return [PodSet("node", max(1, _int(trainer.get("numNodes"), 1)), PodTemplate(containers=(container,)))]


def _leader_worker(spec: Mapping[str, Any]) -> list[PodSet]:
    """One LeaderWorkerSet group (Kueue makes a Workload per group): a leader and size-1 workers."""
    template = _map(spec.get("leaderWorkerTemplate"))
    size = max(1, _int(template.get("size"), 1))
    worker = _map(template.get("workerTemplate")).get("spec")
    leader = _map(template.get("leaderTemplate")).get("spec") or worker
    sets = [PodSet("leader", 1, pod_template(leader))]
    if size > 1:
        sets.append(PodSet("worker", size - 1, pod_template(worker)))
    return sets


def _pod_sets(decoded: Job, raw: Mapping[str, Any]) -> tuple[PodSet, ...]:
    kind, spec = decoded.meta.kind, _map(raw.get("spec"))
    if kind == "TrainJob":
        return tuple(_train_job(spec))
    if kind == "LeaderWorkerSet":
        return tuple(_leader_worker(spec))
    sets = [_pod_set(template) for template in decoded.templates]
    if kind == "Deployment":
        sets = [PodSet(s.name, 1, s.template) for s in sets]
    if kind == "RayJob":
        sets.extend(_submitter(spec))
    return tuple(sets)


def _pod_set(template: JobTemplate) -> PodSet:
    return PodSet(template.name, template.count, template.template)


def draft_of(raw: Mapping[str, Any], source: str = "the job file") -> Draft:
    """One job object -> its Draft. Raises JobFileInvalid."""
    kind = str(raw.get("kind"))
    if kind not in JOB_KINDS and kind != "Pod":
        known = ", ".join(KINDS)
        raise JobFileInvalid(f"{source} is a {kind}, not a job kind the bot knows ({known})")
    if not _str(_map(raw.get("metadata")).get("name")):
        raise JobFileInvalid(f"{source}: the {kind} has no metadata.name (generateName is not supported)")
    if kind == "Pod":
        decoded = Job(meta=job(raw).meta, templates=(JobTemplate("main", 1, pod_template(raw.get("spec"))),))
    else:
        decoded = job(raw)
    pod_sets = _pod_sets(decoded, raw)
    if not pod_sets:
        raise JobFileInvalid(f"{source}: the {kind} has no pod template the bot can read")
    replicas = _int(_map(raw.get("spec")).get("replicas"), 1) if kind == "Deployment" else 1
    return Draft(decoded, pod_sets, per_pod=kind == "Deployment", replicas=replicas)


def parse_job_text(text: str, source: str = "the job file") -> Draft:  # a bot.service.ports.JobReader
    """A job file's text (YAML or JSON, one document) -> its Draft. Raises JobFileInvalid."""
    return draft_of(_one_object(text, source), source)


def read_job_file(path: str) -> Draft:
    """`path` (`-` is stdin) -> its Draft. Raises DumpUnreadable (cannot read it), JobFileInvalid (not a job)."""
    import sys

    if path == "-":
        return parse_job_text(sys.stdin.read(MAX_JOB_FILE_BYTES + 1)[:MAX_JOB_FILE_BYTES], "stdin")
    file = Path(path)
    try:
        if file.stat().st_size > MAX_JOB_FILE_BYTES:
            raise DumpUnreadable(f"{path} is larger than a job file ({MAX_JOB_FILE_BYTES} bytes at most)")
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise DumpUnreadable(f"{path}: no such file") from error
    except IsADirectoryError as error:
        raise DumpUnreadable(f"{path} is a directory, not a job file") from error
    except UnicodeDecodeError as error:
        raise DumpUnreadable(f"{path} is not UTF-8 text") from error
    except OSError as error:
        raise DumpUnreadable(f"{path}: {error.strerror or error}") from error
    return parse_job_text(text, path)
