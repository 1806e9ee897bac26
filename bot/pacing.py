"""The one pacer: how long pure work shares the event loop, and how the garbage collector is paced around it.
No other module of the bot imports `gc` (tests/unit/test_pacing.py checks it).

The loop. The bot is one asyncio process; some of its work is pure and long (a watcher pass over every
Workload, the ETA warmer's pass over every queue, a queue's calibration). `Pacer` runs such work in slices: after
each step it looks at the clock (every `every` steps, where a step is cheap), and once the slice has run
`seconds` the loop gets its turn, so that a question, a Slack ack or a watch event goes first.

The collector's young generations. A question, or a slice of long work, builds what later questions read (a
queue's replay, its orders' totals, the namespace's view). CPython collects its young generation after a number
of allocations, wherever they happen: inside the next question. So the collection is asked for at the loop's
next turn (`collect_soon`), where it walks only what the last piece of work left; every turn of a `Pacer` asks
for it. The automatic collector stays on, thresholds untouched; it just seldom finds its young generation full
in the middle of a question.

The oldest generation. What a process keeps for long (the synced cache, the views' memos, what the watcher keeps of
every Workload) would be walked by every full collection. Where the process freezes the collector's view (`freeze`:
the production cache does as its first sync goes and once synced, `FirstSync`), the turn that finds a full
collection due moves what is alive out of the collector's sight instead (`gc.collect(1)`, `gc.freeze()`, then the
full collection over nothing old). Frozen objects are still freed by reference counting when let go; a reference
cycle among them would never be: the cache, the views, the engine's memos and the watcher make none
(tests/unit/test_watcher.py fails on one). While a watcher pass runs (`full_collections_wait`), full collections
wait until it ends, its Explanations let go, and its turns collect both young generations; where the view is frozen,
each pass freezes what it leaves (and the full collection that waited is due no more).

`stats()` says how many collections ran at the loop's turns and how long they took (/metrics:
`kueue_bot_gc_between_questions_total`, `..._seconds_total`; the bench: `between_gc_*`). bench/README.md has the
figures that made each of these choices.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")
U = TypeVar("U")

SLICE_SECONDS = 0.005  # work between two turns of the event loop
SYNC_YOUNG_THRESHOLD = 200_000  # the young generation's threshold during a cache's first sync (CPython's: 700)
_FULL_COLLECTIONS_WAIT = 1 << 30  # the oldest generation's threshold while a watcher pass runs


class Pacer:
    """Steps run back to back for `seconds`, then the loop's turn, where the young garbage is collected
    (`collect_soon`, with `freeze` when the source freezes the collector's view). What ran is counted: the CPU
    time of the slices (not what ran between them), the longest slice and the turns taken. `every`: the clock is
    read every that many steps (for steps far shorter than a slice)."""

    def __init__(
        self,
        seconds: float = SLICE_SECONDS,
        *,
        freeze: bool = False,
        every: int = 1,
        timer: Callable[[], float] = time.perf_counter,
        cpu_timer: Callable[[], float] = time.process_time,
    ) -> None:
        self.seconds = seconds
        self.freeze = freeze
        self.every = every
        self._timer = timer
        self._cpu_timer = cpu_timer
        self.cpu_seconds = 0.0
        self.longest_seconds = 0.0
        self.turns = 0
        self._count = 0
        self._started = timer()
        self._cpu = cpu_timer()

    async def step(self) -> None:
        """A step ended: the loop turns if the slice has run its time."""
        self._count += 1
        if self._count < self.every:
            return
        self._count = 0
        if self._timer() - self._started >= self.seconds:
            self.end()
            collect_soon(freeze=self.freeze)  # the slice's young garbage, at the turn, not inside the next slice
            await asyncio.sleep(0)
            self.turns += 1
            self._started, self._cpu = self._timer(), self._cpu_timer()

    def look_soon(self) -> None:
        """The last step was a long one: the clock is read at the next step."""
        self._count = self.every - 1

    async def run(self, steps: Iterable[Iterator[None]]) -> int:
        """Run each piece of work of `steps` to its end, `step` after each of its steps; how many there were."""
        count = 0
        for work in steps:
            for _ in work:
                await self.step()
                count += 1
        return count

    def end(self) -> None:
        """The slice running now ends (counted); a next `step` starts the next one."""
        now = self._timer()
        self.longest_seconds = max(self.longest_seconds, now - self._started)
        self.cpu_seconds += self._cpu_timer() - self._cpu
        self._started, self._cpu = now, self._cpu_timer()


async def paced(function: Callable[[T], U], items: Iterable[T], pacer: Pacer | None = None) -> list[U]:
    """`[function(item) for item in items]`, the loop turning between slices (`pacer`: a cheap step's)."""
    pacer = pacer or Pacer(every=64)
    found = []
    for item in items:
        found.append(function(item))
        await pacer.step()
    return found


# --- the collector at the loop's turns ---------------------------------------------------------------------

_scheduled = False
_freeze = False
_collections = 0
_freezes = 0
_seconds = 0.0
_longest = 0.0
_passes_running = 0
_oldest_threshold = 0
_loop: asyncio.AbstractEventLoop | None = None  # the loop of the last request (`_running_loop`)
_loop_thread = 0  # the thread it ran in then


def collect_soon(*, freeze: bool = False) -> None:
    """Collect the young generations at the event loop's next turn (once, however many ask before it comes);
    with `freeze`, freeze what is alive when a full collection is due. Outside a running loop (the CLI's one
    question) nothing is done: the process ends soon."""
    global _scheduled, _freeze
    if not gc.isenabled():
        return
    loop = _running_loop()
    if loop is None:
        return
    _freeze = _freeze or freeze  # any request of the turn whose source freezes
    if _scheduled:
        return
    _scheduled = True
    loop.call_soon(_collect)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """This thread's running loop, or None. `asyncio.get_running_loop` makes a system call each time (its
    check for a fork), slow where system calls are (a sandboxed kernel): the loop of the last request is this
    one while it runs and this is the thread it ran in. Others are asked."""
    global _loop, _loop_thread
    known, thread = _loop, threading.get_ident()
    if known is not None and _loop_thread == thread and known.is_running():
        return known
    try:
        _loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    _loop_thread = thread
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
        # The generation the automatic collector would take next (the older young one once it is due), and both
        # young ones while a pass runs: it frees old memos as it builds new ones, which delays the collections.
        gc.collect(1 if _passes_running or count[1] >= threshold[1] else 0)
    took = time.perf_counter() - started
    _collections += 1
    _seconds += took
    _longest = max(_longest, took)


def restart_longest() -> None:
    """The longest collection is counted again from now (a phase of a benchmark reads its own)."""
    global _longest
    _longest = 0.0


def stats() -> dict[str, float]:
    """Collections run at the loop's turns so far (`freezes` of them froze what was alive), their seconds in
    all and the longest."""
    return {"collections": _collections, "freezes": _freezes, "seconds": _seconds, "longest_seconds": _longest}


@contextmanager
def full_collections_wait(*, freeze: bool = False) -> Iterator[None]:
    """While a watcher pass runs: full collections wait (any pass of the process holds them; the first in sets
    the oldest threshold, the last out puts it back). With `freeze` (the source freezes the collector's view),
    what is alive at its end is frozen, which starts the full collections' count again: the one that waited does
    not come at the next allocation of any thread (an informer's), over everything the passes kept."""
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


class FirstSync:
    """The collector during a cache's first sync, where every decoded object survives: the young generation is
    collected far less often (`hold`), and what each batch of the sync built is frozen as it is applied (`settle`:
    a young collection never walks it), until the cache is ready; then what is alive is frozen (`freeze`) and the
    thresholds are put back (`release`, also when the cache stops first)."""

    def __init__(self) -> None:
        self._thresholds: tuple[int, int, int] | None = None
        self._frozen_before = 0
        self.frozen = 0  # objects `settle` and `freeze` took out of the collector's sight

    def hold(self) -> None:
        self._thresholds = gc.get_threshold()
        self._frozen_before = gc.get_freeze_count()
        first, second, third = self._thresholds
        gc.set_threshold(max(first, SYNC_YOUNG_THRESHOLD), second, third)

    def settle(self) -> None:
        if self._thresholds is not None:
            gc.freeze()

    def release(self) -> None:
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def freeze(self) -> None:
        before = self._frozen_before if self._thresholds is not None else gc.get_freeze_count()
        gc.freeze()
        self.frozen = gc.get_freeze_count() - before
        self.release()
