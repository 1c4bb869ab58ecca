"""Shared helpers for driving the app in tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from tui.app import HurikaeriApp, create_app


def make_app(root: Path, *, watch: bool = False) -> HurikaeriApp:
    return create_app(root, watch=watch)


async def ready(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, HurikaeriApp)
    await asyncio.wait_for(app.loaded.wait(), 30)
    await pilot.pause()
    await pilot.pause()


async def until(pilot: Pilot[None], cond: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait (in app time) until ``cond()`` holds, or fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.05)
