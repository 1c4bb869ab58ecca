"""Shared helpers for driving the app in tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.worker import WorkerState

from tui.app import HurikaeriApp, create_app

#: How many frames ``until`` waits before it fails (a hang, not a wait: it returns as soon as
#: the condition holds). A frame (``pilot.pause()``) lasts from 20 ms, while the app's process
#: is idle, to a second, while it works; work in other processes (the search index's build
#: for the command palette) leaves it idle, so the bound is two minutes of idle frames
FRAMES = 6000


def make_app(root: Path, *, watch: bool = False) -> HurikaeriApp:
    return create_app(root, watch=watch)


async def ready(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, HurikaeriApp)
    await until(pilot, app.loaded.is_set)
    await pilot.pause()
    await pilot.pause()


async def until(pilot: Pilot[None], cond: Callable[[], bool], *, frames: int = FRAMES) -> None:
    """Wait frame by frame until ``cond()`` holds; fail after ``frames`` frames."""
    for _ in range(frames):
        if cond():
            return
        await pilot.pause()
    if not cond():
        raise AssertionError(f"condition not reached in {frames} frames")


async def watching(pilot: Pilot[None]) -> None:
    """Wait until the app's watcher is in place (what is written from now on is seen)."""
    app = pilot.app
    assert isinstance(app, HurikaeriApp)
    await until(pilot, app.watching.is_set)


async def settled(pilot: Pilot[None]) -> None:
    """Wait until no worker of the app is pending or running (the watcher's aside: it runs
    for as long as the app), then one frame more for what they posted."""
    app = pilot.app
    busy = (WorkerState.PENDING, WorkerState.RUNNING)
    await until(pilot, lambda: not any(w.state in busy and w.group != "watch" for w in app.workers))
    await pilot.pause()
