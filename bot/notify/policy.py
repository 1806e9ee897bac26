"""Who gets told what, and when: `decide(state, candidates, now, config) -> decisions`. Pure, clock injected.

- A Workload not admitted for longer than NOTIFY_AFTER is told to its owner once, by DM. What waiting will
  never fix (a queue that does not exist, a request larger than the queue can ever give...) is told at once.
- The DM is updated in place when the verdict or the position changes meaningfully, never posted again.
- When the Workload is admitted, finishes or disappears, the DM says so and the watch ends.
- Several new DMs for one person in one pass become one digest.
- Snoozes, mutes and quiet hours (in the user's own timezone) hold; what quiet hours held back is sent after.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from bot.forecast.eta import Eta
from bot.forecast.outlook import eta_moved
from bot.notify.state import Delivery, State, job_key
from bot.trace.codes import Verdict
from bot.trace.explanation import Explanation, JobRef, Text

# Told at once: waiting will never fix these (Verdict.tells_at_once, defined once in bot.trace.codes).
IMMEDIATE = frozenset(verdict for verdict in Verdict if verdict.tells_at_once)
# Not a wait for admission: nothing to tell (admitted; the scheduler's side is for a question, not a DM).
NOT_WAITING = frozenset(verdict for verdict in Verdict if not verdict.waits_for_admission)


@dataclass(frozen=True)
class PolicyConfig:
    notify_after: timedelta = timedelta(minutes=15)
    quiet_hours: tuple[tuple[int, int], tuple[int, int]] | None = None
    digest_threshold: int = 3  # this many new DMs for one target in one pass become one digest


@dataclass(frozen=True, slots=True)
class JobFacts:
    """What the policy needs of an Explanation, kept by the watcher between passes instead of the whole
    Explanation (a Workload unchanged since its last trace is decided on its JobFacts)."""

    job: JobRef
    verdict: Verdict
    position: int | None  # in the ClusterQueue, 1-based
    headline: Text
    queued_since: datetime | None
    admitted_at: datetime | None
    waiting_since: datetime | None

    @classmethod
    def of(cls, explanation: Explanation) -> JobFacts:
        position = explanation.position
        return cls(
            explanation.job, explanation.verdict, position.cluster_queue if position is not None else None,
            explanation.headline, explanation.queued_since, explanation.admitted_at, explanation.waiting_since,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Candidate:
    """A Workload the watcher looked at, with who should hear about it: its Explanation when it was traced in
    this pass, else the JobFacts of its last trace."""

    key: str  # namespace/workload/uid
    explanation: Explanation | JobFacts
    targets: tuple[str, ...]  # Slack user IDs (U.../W...) or channel IDs (C.../G...)
    waiting_since: datetime | None
    eta: Eta | None = None  # with an Explanation: when it will likely run (bot.forecast.outlook)

    @property
    def verdict(self) -> Verdict:
        return self.explanation.verdict

    def slim(self) -> Candidate:
        """The same with the JobFacts of its Explanation: what is kept once the pass has acted on it."""
        if isinstance(self.explanation, JobFacts):
            return self
        return replace(self, explanation=JobFacts.of(self.explanation), eta=None)

    @property
    def job_label(self) -> str:
        return f"{self.explanation.job.namespace}/{self.explanation.job.name}"

    @property
    def position(self) -> int | None:
        if isinstance(self.explanation, JobFacts):
            return self.explanation.position
        position = self.explanation.position
        return position.cluster_queue if position is not None else None


@dataclass(frozen=True)
class Send:
    target: str
    items: tuple[Candidate, ...]  # one: a DM; several: a digest


@dataclass(frozen=True)
class Update:
    target: str
    delivery: Delivery
    candidate: Candidate


@dataclass(frozen=True)
class Close:
    target: str
    delivery: Delivery
    outcome: str  # admitted | finished | deleted
    waited_seconds: int
    candidate: Candidate | None = None


@dataclass(frozen=True)
class Reconcile:
    """An intent recorded before a crash, with no confirmed message: look for it in Slack before resending."""

    target: str
    delivery: Delivery
    candidate: Candidate


Decision = Send | Update | Close | Reconcile


def position_moved(before: int | None, after: int | None) -> bool:
    """A change worth an update: into or out of the queue, to the head, or by a quarter (at least 2)."""
    if before == after:
        return False
    if before is None or after is None:
        return True
    if after == 1:
        return True
    return abs(before - after) >= max(2, -(-before // 4))  # at least a quarter (rounded up), at least 2


def in_quiet_hours(
    now: datetime, offset: timedelta | None, quiet: tuple[tuple[int, int], tuple[int, int]] | None
) -> bool:
    """Whether `now`, in the user's timezone (UTC offset), falls in the quiet window (which may span midnight)."""
    if quiet is None or offset is None:
        return False
    local = now + offset
    minute = local.hour * 60 + local.minute
    start = quiet[0][0] * 60 + quiet[0][1]
    end = quiet[1][0] * 60 + quiet[1][1]
    if start == end:
        return False
    if start < end:
        return start <= minute < end
    return minute >= start or minute < end


def _is_user(target: str) -> bool:
    return target[:1] in ("U", "W")


def _job(candidate: Candidate) -> str:
    return job_key(candidate.explanation.job.namespace, candidate.explanation.job.name)


def _due(candidate: Candidate, now: datetime, config: PolicyConfig) -> bool:
    if candidate.verdict in NOT_WAITING:
        return False
    if candidate.verdict in IMMEDIATE:
        return True
    since = candidate.waiting_since
    return since is not None and now - since >= config.notify_after


def _closing(candidate: Candidate | None) -> str | None:
    if candidate is None:
        return "deleted"
    if candidate.verdict == Verdict.FINISHED:
        return "finished"
    if candidate.verdict in (Verdict.RUNNING, Verdict.PODS_PENDING):
        return "admitted"
    if candidate.verdict == Verdict.JOB_NOT_FOUND:
        return "deleted"
    return None


def _waited(candidate: Candidate | None, delivery: Delivery, now: datetime) -> int:
    """How long the job waited: from its last queueing to its admission when both are known, else until now
    (from when the wait began, as known now or as recorded with the DM; at least from the first DM)."""
    explanation = candidate.explanation if candidate is not None else None
    if explanation is not None and explanation.queued_since is not None:
        end = explanation.admitted_at or now
        return max(0, int((end - explanation.queued_since).total_seconds()))
    if candidate is not None and candidate.waiting_since is not None:
        return max(0, int((now - candidate.waiting_since).total_seconds()))
    start = delivery.since or delivery.sent_at  # gone: from the queueing recorded with the DM
    return max(0, int((now - start).total_seconds()))


def decide(
    state: State,
    candidates: Sequence[Candidate],
    now: datetime,
    config: PolicyConfig,
    *,
    utc_offsets: Mapping[str, timedelta] | None = None,
) -> list[Decision]:
    """What to send, update and close now. `candidates` are every Workload that has someone to tell, or
    that has an open DM; an open DM whose Workload is absent from `candidates` is closed as deleted."""
    by_key = {candidate.key: candidate for candidate in candidates}
    open_deliveries = [d for d in state.deliveries if d.closed_at is None]
    decisions = [
        decision
        for delivery in open_deliveries
        if (decision := _follow_up(state, delivery, by_key.get(delivery.key), now)) is not None
    ]
    delivered = {(d.key, d.target) for d in open_deliveries}
    fresh = _fresh(state, candidates, delivered, now, config, utc_offsets or {})
    for target, items in fresh.items():
        ordered = sorted(items, key=lambda c: c.key)
        if len(ordered) >= config.digest_threshold:
            decisions.append(Send(target, tuple(ordered)))
        else:
            decisions.extend(Send(target, (item,)) for item in ordered)
    return decisions


def _follow_up(state: State, delivery: Delivery, candidate: Candidate | None, now: datetime) -> Decision | None:
    """What becomes of an open DM: closed (its Workload admitted, finished or gone), reconciled (never
    confirmed), updated (it says something else now), or nothing."""
    outcome = _closing(candidate)
    if outcome is not None:
        return Close(delivery.target, delivery, outcome, _waited(candidate, delivery, now), candidate)
    assert candidate is not None
    if delivery.ts is None:
        return Reconcile(delivery.target, delivery, candidate)
    snoozed = state.is_snoozed(delivery.target, delivery.key, now, job=_job(candidate))
    if _changed(delivery, candidate) and not state.is_muted(delivery.target) and not snoozed:
        return Update(delivery.target, delivery, candidate)
    return None


def _changed(delivery: Delivery, candidate: Candidate) -> bool:
    return (
        candidate.verdict.value != delivery.verdict
        or position_moved(delivery.position, candidate.position)
        or (  # the ETA moved meaningfully (a JobFacts means the Workload did not change)
            isinstance(candidate.explanation, Explanation) and eta_moved(delivery.eta, candidate.eta)
        )
    )


def _fresh(
    state: State,
    candidates: Sequence[Candidate],
    delivered: set[tuple[str, str]],
    now: datetime,
    config: PolicyConfig,
    offsets: Mapping[str, timedelta],
) -> dict[str, list[Candidate]]:
    """The new DMs due now, by target: not sent yet, nobody muted or snoozed, no user in quiet hours."""
    fresh: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        if not _due(candidate, now, config):
            continue
        for target in candidate.targets:
            if (candidate.key, target) in delivered:
                continue
            if state.is_muted(target) or state.is_snoozed(target, candidate.key, now, job=_job(candidate)):
                continue
            if _is_user(target) and in_quiet_hours(now, offsets.get(target), config.quiet_hours):
                continue  # held back; sent on the first pass after the quiet hours
            fresh[target].append(candidate)
    return fresh


def slim(decision: Decision) -> Decision:
    """A decision carried out, with Briefs in place of its Explanations (a broadcast's 30,000 Explanations are
    not kept alive past their pass: alive, every full collection of the cyclic GC scanned them)."""
    if isinstance(decision, Send):
        return replace(decision, items=tuple(candidate.slim() for candidate in decision.items))
    if isinstance(decision, Update):
        return replace(decision, candidate=decision.candidate.slim())
    if isinstance(decision, Close) and decision.candidate is not None:
        return replace(decision, candidate=decision.candidate.slim())
    return decision
