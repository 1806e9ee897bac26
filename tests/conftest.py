"""Shared pytest configuration."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite the golden files under tests/goldens from the current output (review the diff)",
    )


@pytest.fixture(autouse=True)
async def no_leaked_tasks(request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """Every background task a test starts has an owner that stops it: none may outlive the test."""
    before = set(asyncio.all_tasks())
    yield
    await asyncio.sleep(0)  # let tasks that are finishing finish
    leaked = [t for t in asyncio.all_tasks() - before if not t.done() and t is not asyncio.current_task()]
    for task in leaked:
        task.cancel()
    if leaked:
        pytest.fail(f"{request.node.name} leaked {len(leaked)} task(s): {[t.get_name() for t in leaked]}")
