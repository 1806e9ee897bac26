"""The event loop's turns, counted while a piece of work runs on it (the warmer's pass, a sliced calibration)."""

from __future__ import annotations

import asyncio
import contextlib


class Turns:
    """Counts the loop's turns while in its context: a coroutine that adds one and yields, again and again."""

    def __init__(self) -> None:
        self.count = 0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            self.count += 1
            await asyncio.sleep(0)

    async def __aenter__(self) -> Turns:
        self._task = asyncio.create_task(self._run())
        await asyncio.sleep(0)
        self.count = 0
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
