"""How often the event loop ran other work while a coroutine was awaited: a probe task counts its turns."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def turns_during(work: Awaitable[T]) -> tuple[T, int]:
    """`work`'s result, and how many times a probe task ran while it was awaited (0: it held the loop)."""
    turns = 0
    done = False

    async def probe() -> None:
        nonlocal turns
        while not done:
            turns += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(probe())
    await asyncio.sleep(0)
    before = turns
    try:
        result = await work
    finally:
        done = True
        await task
    return result, turns - before
