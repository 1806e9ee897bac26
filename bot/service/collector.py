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
question. `stats()` says how many such collections ran and how long they took (/metrics:
`kueue_bot_gc_between_questions_total`, `..._seconds_total`; the bench: `between_gc_*`).
"""

from __future__ import annotations

import asyncio
import gc
import time

_scheduled = False
_collections = 0
_seconds = 0.0
_longest = 0.0


def after_question() -> None:
    """Collect the young generations at the event loop's next turn (once, however many questions ask before
    it comes). Outside a running loop (the CLI's one question) nothing is done: the process ends soon."""
    global _scheduled
    if _scheduled or not gc.isenabled():
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    _scheduled = True
    loop.call_soon(_collect)


def _collect() -> None:
    global _scheduled, _collections, _seconds, _longest
    _scheduled = False
    if not gc.isenabled():
        return
    count, threshold = gc.get_count(), gc.get_threshold()
    if threshold[0] == 0:  # automatic collection turned off some other way: leave it so
        return
    # The generation the automatic collector would take next: the older young one once it is due (a collection
    # of the youngest counts towards it), else the youngest.
    generation = 1 if count[1] >= threshold[1] else 0
    started = time.perf_counter()
    gc.collect(generation)
    took = time.perf_counter() - started
    _collections += 1
    _seconds += took
    _longest = max(_longest, took)


def stats() -> dict[str, float]:
    """Young collections run between questions so far, their seconds in all and the longest."""
    return {"collections": _collections, "seconds": _seconds, "longest_seconds": _longest}
