"""The demo cluster as a snapshot source: a sequence of dumps (bot/demo/cluster/*.yaml), one per moment of the
story, served one at a time with a clock that belongs to the story.

`advance()` moves the cluster to its next moment: the clock jumps to that moment's time, the new view is
served, and watchers hear of it, as a cluster cache tells them of a change: `changed` (an asyncio.Event) is
set, and every callback given to `add_listener` (the notifier's wake) is called. Nothing here reads the real
time except the clock in real-time mode.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources

from bot.copy import render
from bot.kube.dump import parse_text
from bot.service.ports import Source
from bot.trace.snapshot import MemorySnapshot, Snapshot

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Moment:
    """One moment of the story: its dump, its time, and what a person would notice had changed."""

    file: str
    at: datetime
    title: str  # in English, for the dumps' headers (tools/build_cluster.py)
    news: tuple[str, ...] = ()
    key: str = ""  # what a reader reads, in their language: `demo.story.KEY` and `demo.story.KEY.N` (bot.copy)

    def said(self, language: str) -> tuple[str, tuple[str, ...]]:
        """The title and the news in `language` (the English words when the catalogue has no such key)."""
        if not self.key:
            return self.title, self.news
        title = render(f"demo.story.{self.key}", None, language)
        news = tuple(render(f"demo.story.{self.key}.{n}", None, language) for n in range(1, len(self.news) + 1))
        return title, news


def _at(clock: str) -> datetime:
    return datetime.fromisoformat(f"2026-10-14T{clock}+00:00").astimezone(UTC)


MOMENTS = (
    Moment("00-start.yaml", _at("10:30:00"), "10:30: the start, four stories in four namespaces", key="start"),
    Moment(
        "10-gpu-frees.yaml",
        _at("10:45:00"),
        "10:45: yolo-nightly finished; detr-hotfix admitted; the second pod of llm-eval-70b found a node",
        (
            "ml-vision/yolo-nightly finished and gave back 4 GPUs.",
            "Kueue admitted ml-vision/detr-hotfix (priority 1000); ml-vision/vit-large-finetune moves up.",
            "The waiting pod of ml-nlp/llm-eval-70b got a node.",
        ),
        key="gpu-frees",
    ),
    Moment(
        "20-gpu-job-admitted.yaml",
        _at("11:00:00"),
        "11:00: llm-eval-70b finished; sam-distill and vit-large-finetune admitted, borrowing from ml-nlp",
        (
            "ml-nlp/llm-eval-70b finished: ml-nlp lends its 8 GPUs to the cohort ml-gpu-pool.",
            "Kueue admitted ml-vision/sam-distill and ml-vision/vit-large-finetune, borrowing from ml-nlp.",
        ),
        key="gpu-job-admitted",
    ),
)


class DemoClock:
    """The story's time: the current moment's time, plus (in real time) the seconds spent in it since."""

    def __init__(self, start: datetime, *, real_time: bool, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._base = start
        self._real_time = real_time
        self._monotonic = monotonic
        self._since = monotonic()

    def __call__(self) -> datetime:
        if not self._real_time:
            return self._base
        return self._base + timedelta(seconds=self._monotonic() - self._since)

    def jump(self, to: datetime) -> None:
        """The story moves on to `to` (never backwards)."""
        self._base = max(to, self())
        self._since = self._monotonic()


def load_moment(moment: Moment) -> MemorySnapshot:
    """A moment's dump, from the package's data. Raises DumpUnreadable (a broken installation)."""
    text = resources.files("bot.demo").joinpath("cluster", moment.file).read_text(encoding="utf-8")
    return parse_text(text, source=f"the demo cluster's {moment.file}", taken_at=moment.at).snapshot


class DemoSource(Source):
    """A SnapshotSource over the story's moments. Always ready; its view matches "the cluster" as of now."""

    tells_changes = True

    def __init__(self, moments: Sequence[Moment], snapshots: Sequence[MemorySnapshot], clock: DemoClock) -> None:
        if not moments or len(moments) != len(snapshots):
            raise ValueError("one snapshot per moment, and at least one moment")
        self.moments = tuple(moments)
        self._snapshots = tuple(snapshots)
        self.clock = clock
        self.index = 0
        self.version = 0  # how many times the view changed
        self.changed = asyncio.Event()  # set on every advance (and by announce()); its waiter clears it
        self._listeners: list[Callable[[], None]] = []

    @classmethod
    def load(cls, *, real_time: bool, moments: Sequence[Moment] = MOMENTS) -> DemoSource:
        return cls(moments, [load_moment(m) for m in moments], DemoClock(moments[0].at, real_time=real_time))

    @property
    def moment(self) -> Moment:
        return self.moments[self.index]

    @property
    def has_next(self) -> bool:
        return self.index + 1 < len(self.moments)

    def add_listener(self, callback: Callable[[], None]) -> None:
        """`callback()` is called whenever the view changes (the notifier's wake)."""
        self._listeners.append(callback)

    def advance(self) -> Moment | None:
        """Move the cluster to its next moment; None when the story is over."""
        if not self.has_next:
            return None
        self.index += 1
        self.clock.jump(self.moment.at)
        self.version += 1
        self._tell()
        return self.moment

    def announce(self) -> None:
        """Tell watchers the view is there to be looked at (at start, as a cache's first sync would)."""
        self._tell()

    def _tell(self) -> None:
        self.changed.set()
        for callback in self._listeners:
            try:
                callback()
            except Exception:  # a watcher's bug must not stop the story; it is logged
                log.exception("demo: a change listener failed")

    # --- SnapshotSource -----------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return True

    def taken_at(self) -> datetime | None:
        return self.clock()  # the demo cluster's view is always current

    async def snapshot_for(self, namespace: str, name: str, kind: str | None) -> Snapshot:
        return self._snapshots[self.index]

    async def snapshot(self) -> Snapshot:
        return self._snapshots[self.index]
