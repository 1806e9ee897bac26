"""How a watcher pass shares the process: it yields to the event loop every few milliseconds of work (`Pause`),
and the garbage collector's full collections wait until it ends (`full_collections_wait`)."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")
U = TypeVar("U")

_YIELD_EVERY = 0.005  # seconds of work between two yields to the event loop


class Pause:
    """Yield to the event loop when the pass has held it for _YIELD_EVERY seconds."""

    def __init__(self) -> None:
        self._since = time.perf_counter()
        self._count = 0

    def traced(self) -> None:
        self._count = 63  # a trace is long: look at the time at the next visit

    async def maybe(self) -> None:
        self._count += 1
        if self._count < 64:
            return
        self._count = 0
        if time.perf_counter() - self._since >= _YIELD_EVERY:
            if _passes_running:
                young()
            await asyncio.sleep(0)
            self._since = time.perf_counter()


def young() -> None:
    """Collect the young generations now, while what they hold is a few milliseconds' work. A pass renews the
    memos of every queue that changed, and frees the old ones as it allocates: the freed objects count against
    the allocations that trigger a young collection, so one came only after ~24,000 survivors and took 20-30 ms
    of the loop (the watcher's worst hold after 1 % of 50,000 Workloads changed)."""
    gc.collect(1)


async def paced(function: Callable[[T], U], items: Iterable[T]) -> list[U]:
    """`[function(item) for item in items]`, yielding to the event loop as `Pause` does (a pass's 2,000
    decisions made slim at once held the loop 130 ms at 50,000 Workloads)."""
    pause = Pause()
    found = []
    for item in items:
        found.append(function(item))
        await pause.maybe()
    return found


# A pass holds many objects for a while (the Explanations of what it traced, until it has decided and acted): a
# full collection in the middle walked them all, holding the event loop up to 1.7 s at 50,000 Workloads
# (bench/README.md). So full collections wait while any pass of this process runs; the young generations are
# collected as usual, and full collections resume when the last pass ends, its Explanations let go. Only the
# oldest generation's threshold is touched (the cache's sync sets the others), by the first pass in.
#
# The first pass also leaves what the watcher keeps of every Workload it may tell about (its inputs and Brief,
# ~300,000 objects at 50,000 Workloads): a full collection over them held the loop ~330 ms. With `freeze`, as
# the cache does once synced (ClusterCache freeze_gc), the end of that pass moves every object alive out of the
# collector's sight (gc.freeze()). Frozen objects are still freed by reference counting when let go; a
# reference cycle among them would never be: the views, the trace's memos and the watcher make none (a test
# fails on one, tests/unit/test_watcher.py), and what else is alive at that moment is frozen once, as at sync.
_FULL_COLLECTIONS_WAIT = 1 << 30
_passes_running = 0
_oldest_threshold = 0


@contextmanager
def full_collections_wait(*, freeze: bool = False) -> Iterator[None]:
    global _passes_running, _oldest_threshold
    if _passes_running == 0:
        first, second, _oldest_threshold = gc.get_threshold()
        gc.set_threshold(first, second, _FULL_COLLECTIONS_WAIT)
    _passes_running += 1
    try:
        yield
    finally:
        _passes_running -= 1
        if freeze:
            gc.collect(1)  # the young generations' garbage first: only what is alive is frozen
            gc.freeze()
        if _passes_running == 0:
            first, second, _ = gc.get_threshold()
            gc.set_threshold(first, second, _oldest_threshold)
