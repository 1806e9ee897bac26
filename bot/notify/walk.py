"""The watcher's walk over the Workloads: every one somebody may be told about, or with an open DM.

A Workload is traced again only when an input of its last trace changed (bot.notify.inputs); and a namespace is
not walked at all when what its walk read is what the last pass read: its Workloads and jobs (the very
sequences: the source hands out the same one while none of them changed), its LocalQueues (by value), the
quota token and the order of every ClusterQueue its Workloads wait in, who watches its jobs, its open DMs; and
before the first moment one of its Workloads' time-bound inputs changes (one becomes due, a trace is to be
renewed). Its candidates are then the last pass's: a pass with nothing changed costs what changed, not the
cluster.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bot.forecast.eta import Eta
from bot.notify.inputs import (
    QuotaStamps,
    Seen,
    cluster_queue_of,
    due_at,
    lq_value,
    might_be_due,
    still_valid,
)
from bot.notify.owners import Audience
from bot.notify.policy import Candidate, JobFacts
from bot.notify.ports import job_of, split_key, workload_key
from bot.notify.state import State
from bot.pacing import Pacer
from bot.trace.explain import Query
from bot.trace.explanation import Explanation
from bot.trace.model import Job, Workload
from bot.trace.resolve import known_namespaces
from bot.trace.snapshot import Snapshot

# A namespace is walked again at least this often, whatever its inputs: what no snapshot shows changing (the
# owners a live cluster reads on demand, remembered as long by bot.kube.ondemand) is read again.
RECHECK = timedelta(minutes=10)

Explain = Callable[[Query, datetime], Awaitable[tuple[Explanation, Eta | None]]]


def _same(one: Sequence[object], other: Sequence[object]) -> bool:
    """The same sequence (two empty ones are)."""
    return one is other or (not one and not other)


@dataclass(slots=True)
class NamespaceInputs:
    """What a namespace's walk read that the cluster or the store can change."""

    workloads: Sequence[Workload]
    jobs: Sequence[Job]
    queues: tuple[object, ...]  # its LocalQueues, by value
    watchers: tuple[tuple[str, str], ...]  # (job, user) of its subscriptions
    open_keys: frozenset[str]  # its Workloads with an open DM

    def same_as(self, last: NamespaceInputs, found: Sequence[Candidate]) -> bool:
        """The same as `last`, but for DMs opened since about Workloads `found` then (an open DM changes the
        walk only of a Workload that was not a candidate: it makes it one)."""
        return (
            _same(self.workloads, last.workloads)
            and _same(self.jobs, last.jobs)
            and self.queues == last.queues
            and self.watchers == last.watchers
            and (self.open_keys == last.open_keys or _opened_about(last.open_keys, self.open_keys, found))
        )


def _opened_about(before: frozenset[str], now: frozenset[str], found: Sequence[Candidate]) -> bool:
    """No DM closed, and those opened are about candidates."""
    return before <= now and now - before <= {candidate.key for candidate in found}


@dataclass(slots=True)
class Walked:
    """One namespace's walk: what it read, its Workloads' last traces and its candidates (on their JobFacts),
    valid until `until` while its inputs and the ClusterQueues it read are the same."""

    inputs: NamespaceInputs
    until: datetime
    read: dict[str, tuple[object, Sequence[Workload]]] = field(default_factory=dict)  # per ClusterQueue read:
    # its quota token and its pending Workloads in order
    seen: dict[str, Seen] = field(default_factory=dict)
    found: list[Candidate] = field(default_factory=list)

    def expires(self, moment: datetime | None) -> None:
        if moment is not None and moment < self.until:
            self.until = moment


class Orders:
    """Each waiting Workload's place in its ClusterQueue's order, kept per ClusterQueue while the snapshot hands
    out the same sequence of its pending Workloads."""

    def __init__(self) -> None:
        self._places: dict[str, tuple[Sequence[Workload], dict[str, int]]] = {}

    async def read(self, snapshot: Snapshot, pause: Pacer) -> None:
        places: dict[str, tuple[Sequence[Workload], dict[str, int]]] = {}
        for cq in snapshot.cluster_queues():
            await pause.step()
            pending = snapshot.pending_in(cq.meta.name)
            last = self._places.get(cq.meta.name)
            if last is not None and _same(last[0], pending):
                places[cq.meta.name] = last
            else:
                places[cq.meta.name] = (pending, {workload_key(w): i for i, w in enumerate(pending)})
        self._places = places

    def pending(self, cluster_queue: str) -> Sequence[Workload]:
        found = self._places.get(cluster_queue)
        return found[0] if found is not None else ()

    def place(self, cluster_queue: str, key: str) -> int | None:
        found = self._places.get(cluster_queue)
        return found[1].get(key) if found is not None else None


@dataclass(slots=True)
class Pass:
    """What one pass reads once, for every namespace."""

    snapshot: Snapshot
    now: datetime
    tokens: Mapping[str, object]
    watchers: Mapping[str, Mapping[str, tuple[str, ...]]]  # namespace -> job -> users, sorted
    open_keys: Mapping[str, frozenset[str]]  # namespace -> its open DMs' Workload keys
    explained: dict[str, tuple[Explanation, Eta | None]]
    pause: Pacer
    found: list[Candidate] = field(default_factory=list)


class Walker:
    """The candidates of a pass, from the last pass's where nothing they rest on changed."""

    def __init__(self, audience: Audience, namespace_notify: Mapping[str, str], notify_after: timedelta) -> None:
        self.audience = audience
        self.namespace_notify = namespace_notify
        self.notify_after = notify_after
        self._quota = QuotaStamps()
        self._orders = Orders()
        self._walked: dict[str, Walked] = {}
        self.namespaces_walked = 0  # namespaces walked, not taken from the last pass (for tests and the bench)

    def seen(self, key: str) -> Seen | None:
        """A Workload's last trace (this pass's, once the pass walked its namespace)."""
        walked = self._walked.get(split_key(key)[0])
        return walked.seen.get(key) if walked is not None else None

    def kept(self) -> Iterator[Seen]:
        return (seen for walked in self._walked.values() for seen in walked.seen.values())

    async def candidates(
        self,
        snapshot: Snapshot,
        state: State,
        now: datetime,
        explain: Explain,
        explained: dict[str, tuple[Explanation, Eta | None]],
    ) -> list[Candidate]:
        """Every Workload somebody may be told about (or with an open DM); `explain` traces one again, and what
        it traced is kept in `explained` for the rest of the pass."""
        pause = Pacer(every=64)
        tokens = await self._quota.tokens(snapshot, pause)
        await self._orders.read(snapshot, pause)
        open_keys = await asyncio.to_thread(_open_keys, state)  # every delivery read: in a worker thread
        run = Pass(snapshot, now, tokens, _watchers(state), open_keys, explained, pause)
        walked: dict[str, Walked] = {}
        for namespace in known_namespaces(snapshot):
            await pause.step()
            inputs = self._inputs(run, namespace)
            last = self._walked.get(namespace)
            if last is not None and self._holds(last, inputs, run):
                last.inputs = inputs
                run.found += last.found
            else:
                last = await self._walk(run, namespace, inputs, explain)
                self.namespaces_walked += 1
            walked[namespace] = last
        self._walked = walked  # what left the cluster is forgotten with it
        return run.found

    def _inputs(self, run: Pass, namespace: str) -> NamespaceInputs:
        snapshot = run.snapshot
        watchers = run.watchers.get(namespace, {})
        return NamespaceInputs(
            snapshot.workloads_in(namespace),
            snapshot.jobs_in(namespace),
            tuple(lq_value(lq) for lq in snapshot.local_queues_in(namespace)),
            tuple((job, user) for job in sorted(watchers) for user in watchers[job]),
            run.open_keys.get(namespace, frozenset()),
        )

    def _holds(self, last: Walked, inputs: NamespaceInputs, run: Pass) -> bool:
        return (
            run.now < last.until
            and inputs.same_as(last.inputs, last.found)
            and all(
                run.tokens.get(cq) is token and _same(self._orders.pending(cq), pending)
                for cq, (token, pending) in last.read.items()
            )
        )

    async def _walk(self, run: Pass, namespace: str, inputs: NamespaceInputs, explain: Explain) -> Walked:
        walked = Walked(inputs, run.now + RECHECK)
        mapped = self.namespace_notify.get(namespace)
        for workload in inputs.workloads:
            await run.pause.step()
            await self._consider(run, walked, namespace, mapped, workload, explain)
        return walked

    async def _consider(
        self, run: Pass, walked: Walked, namespace: str, mapped: str | None, workload: Workload, explain: Explain
    ) -> None:
        """One Workload: skipped when nobody can be told, its last JobFacts when its inputs hold, else traced
        again. The namespace keeps its candidates on their JobFacts (no Explanation outlives its pass)."""
        key = workload_key(workload)
        is_open = key in walked.inputs.open_keys
        if workload.finished and not is_open:
            return
        name, kind = job_of(workload)
        subscribers = run.watchers.get(namespace, {}).get(name, ())
        told = is_open or bool(subscribers) or bool(mapped)
        if not (told or might_be_due(workload, run.now, self.notify_after)):
            walked.expires(due_at(workload, self.notify_after))
            return
        jobs = tuple(run.snapshot.jobs_named(namespace, name)) if kind != "Workload" else ()
        values = await self.audience.owner_values(namespace, name, kind, workload, jobs)
        if not (told or values):
            return  # nobody to tell: not traced at all
        local_queue = run.snapshot.local_queue(namespace, workload.queue_name) if workload.queue_name else None
        queue = lq_value(local_queue) if local_queue is not None else None
        cq = cluster_queue_of(workload, local_queue)
        quota = run.tokens.get(cq)
        walked.read[cq] = (quota, self._orders.pending(cq))
        inputs = (workload, *jobs, queue, quota, subscribers, values, mapped)
        place = self._orders.place(cq, key)
        seen = still_valid(self.seen(key), inputs, place, run.now)
        fresh = None
        if seen is None:
            explanation, eta = run.explained[key] = await explain(Query(namespace, name, kind), run.now)
            run.pause.look_soon()
            targets = await self.audience.targets(namespace, subscribers, values)
            seen = Seen(inputs, JobFacts.of(explanation), targets, run.now, place)
            fresh = Candidate(key, explanation, targets, explanation.waiting_since, eta)
        walked.seen[key] = seen
        walked.expires(seen.renew_at())
        if seen.targets or is_open:
            kept = Candidate(key, seen.facts, seen.targets, seen.facts.waiting_since)
            walked.found.append(kept)
            run.found.append(fresh if fresh is not None else kept)


def _watchers(state: State) -> dict[str, dict[str, tuple[str, ...]]]:
    """Who watches which job, per namespace (users sorted)."""
    found: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for subscription in state.subscriptions:
        found[subscription.namespace][subscription.name].append(subscription.user)
    return {ns: {job: tuple(sorted(users)) for job, users in jobs.items()} for ns, jobs in found.items()}


def _open_keys(state: State) -> dict[str, frozenset[str]]:
    """The Workloads with an open DM, per namespace."""
    found: dict[str, set[str]] = defaultdict(set)
    for delivery in state.deliveries:
        if delivery.closed_at is None:
            found[delivery.key.partition("/")[0]].add(delivery.key)
    return {namespace: frozenset(keys) for namespace, keys in found.items()}
