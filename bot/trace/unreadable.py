"""Objects the bot could not read (an object beyond the bounds the API server and Kueue set, text the JSON
decoder refuses, a field of a wrong shape), kept by name so that an answer says so instead of answering as
if they did not exist ("no Job named...", "Kueue has created no Workload for it")."""

from __future__ import annotations

from dataclasses import dataclass

from bot.trace.model import JOB_UID_LABEL, Job


@dataclass(frozen=True, slots=True)
class Unreadable:
    kind: str
    namespace: str
    name: str
    reason: str  # one line: what the bot could not read
    owners: tuple[str, ...] = ()  # the names of its owner references
    job_uid: str = ""  # its kueue.x-k8s.io/job-uid label (a Workload)


def unreadable_job(found: tuple[Unreadable, ...], name: str, kind: str | None) -> Unreadable | None:
    """The job asked about, when it is one of the unreadable objects of its namespace (`kind` None: any)."""
    return next((u for u in found if u.name == name and u.kind != "Workload" and kind in (None, u.kind)), None)


def unreadable_workload(found: tuple[Unreadable, ...], job: Job | None, name: str) -> Unreadable | None:
    """The unreadable Workload of a job (by its uid label, an owner reference, or its name)."""
    uid = job.meta.uid if job is not None else ""
    for item in found:
        if item.kind != "Workload":
            continue
        if (uid and item.job_uid == uid) or name in item.owners or item.name == name:
            return item
    return None


__all__ = ["JOB_UID_LABEL", "Unreadable", "unreadable_job", "unreadable_workload"]
