"""The background tasks a component owns (the notifier, the ETA warmer, the admins' digest): how one is stopped."""

from __future__ import annotations

import asyncio
import contextlib


async def stop_task(task: asyncio.Task[None] | None) -> None:
    """Cancel `task` and wait until it has ended (None: nothing runs). Its owner then forgets it."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
