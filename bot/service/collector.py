"""The garbage collector's young generations, collected between two questions rather than in one.

A question about a ClusterQueue or a namespace asked for the first time builds what later questions read (the
queue's ETA replay, its orders' running totals, the namespace's view): a few hundred tracked objects and tuples
of thousands of numbers. CPython collects its young generation every 700 allocations it still holds, wherever
they happen: the collection that follows walks what the last questions built once more (0.2-0.5 ms), and one
in ten also walks the older young generation (0.7-5 ms). At 50,000 Workloads those pauses fell inside 4 % of
the questions and made their p99 (1.45 ms in process against 1.06 without them; bench/README.md).

So once a question is explained, the collection is asked for at the event loop's next turn
(`loop.call_soon`): the answer's post is then on its way to Slack (the loop turns while its request is in
flight), and the collection walks only what that one question left (~10-50 us). The automatic collector stays
on as it was (thresholds untouched); it just seldom finds its young generation full in the middle of a
question.

The oldest generation: what the first questions of queues and cohort trees build lives as long as the view's
memos, and a full collection walks all of it: at 200,000 Workloads, 12 full collections of ~55 ms fell inside
1,000 questions (their p99 58 ms; bench/README.md). Where the process freezes the collector's view (`freeze`:
the production cache does once synced, the watcher at the end of each pass, `bot.notify.pacing`), the turn
that finds a full collection due (as many collections of the older young generation as its threshold) moves
what is alive out of the collector's sight instead, as they do: `gc.collect(1)` first (only what is alive is
frozen), `gc.freeze()`, then the full collection, over nothing old now. Frozen objects are still freed by
reference counting when let go; the views and the trace's memos make no reference cycle (tests/unit/
test_watcher.py fails on one). What else is alive at that turn (a request in flight) is frozen with them: a
cycle among those, let go later, would stay (the same bargain as the watcher's freeze at the end of a pass; one
freeze per ~110 questions at the default thresholds). Without `freeze` (a dump, the CLI, tests) full
collections stay the collector's.

`stats()` says how many such collections ran and how long they took (/metrics:
`kueue_bot_gc_between_questions_total`, `..._seconds_total`; the bench: `between_gc_*`).
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time

_scheduled = False
_freeze = False
_collections = 0
_freezes = 0
_seconds = 0.0
_longest = 0.0
_loop: asyncio.AbstractEventLoop | None = None  # the loop the last question ran in (`_running_loop`)


def freezes(source: object) -> bool:
    """Whether a snapshot source freezes the collector's view (the production cache does once synced)."""
    return bool(getattr(source, "freezes_gc", False))


def after_question(*, freeze: bool = False) -> None:
    """Collect the young generations at the event loop's next turn (once, however many questions ask before
    it comes); with `freeze`, freeze what is alive when a full collection is due. Outside a running loop (the
    CLI's one question) nothing is done: the process ends soon."""
    global _scheduled, _freeze
    if not gc.isenabled():
        return
    loop = _running_loop()
    if loop is None:
        return
    _freeze = _freeze or freeze  # any question of the turn whose source freezes
    if _scheduled:
        return
    _scheduled = True
    loop.call_soon(_collect)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """This thread's running loop, or None. `asyncio.get_running_loop` asks the kernel for the process id
    each time (its check for a fork), a system call that took ~7 us a question where system calls are slow
    (a sandboxed kernel; bench/README.md): the loop the last question ran in is this one as long as it runs
    in this thread (asyncio's loops say in which: `_thread_id`, set while they run). Others are asked."""
    global _loop
    known = _loop
    if known is not None and getattr(known, "_thread_id", None) == threading.get_ident():
        return known
    try:
        _loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return _loop


def _collect() -> None:
    global _scheduled, _freeze, _collections, _freezes, _seconds, _longest
    _scheduled = False
    freeze, _freeze = _freeze, False
    if not gc.isenabled():
        return
    count, threshold = gc.get_count(), gc.get_threshold()
    if threshold[0] == 0:  # automatic collection turned off some other way: leave it so
        return
    started = time.perf_counter()
    if freeze and count[2] >= threshold[2]:
        gc.collect(1)
        gc.freeze()
        gc.collect()  # the full collection that was due: nothing old to walk now, and its count starts again
        _freezes += 1
    else:
        # The generation the automatic collector would take next: the older young one once it is due (a
        # collection of the youngest counts towards it), else the youngest.
        gc.collect(1 if count[1] >= threshold[1] else 0)
    took = time.perf_counter() - started
    _collections += 1
    _seconds += took
    _longest = max(_longest, took)


def stats() -> dict[str, float]:
    """Collections run between questions so far (`freezes` of them froze what was alive), their seconds in all
    and the longest."""
    return {"collections": _collections, "freezes": _freezes, "seconds": _seconds, "longest_seconds": _longest}
