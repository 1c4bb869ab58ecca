"""Shared helpers for driving the app in tests."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from textual.app import App
from textual.notifications import SeverityLevel
from textual.pilot import Pilot
from textual.widgets import OptionList, Select
from textual.worker import WorkerState

from tui.app import HurikaeriApp, create_app

#: How many frames ``until`` waits before it fails (a hang, not a wait: it returns as soon as
#: the condition holds). A frame (``pilot.pause()``) lasts from 20 ms, while the app's process
#: is idle, to a second, while it works; work in other processes (the search index's build
#: for the command palette) leaves it idle, so the bound is two minutes of idle frames
FRAMES = 6000


AppT = TypeVar("AppT", bound=App[Any])


class Told(NamedTuple):
    """A notification the app was asked to show."""

    message: str
    title: str
    severity: SeverityLevel


_TOLD: weakref.WeakKeyDictionary[App[Any], list[Told]] = weakref.WeakKeyDictionary()


def telling(app: AppT) -> AppT:
    """``app``, keeping every notification it is asked to show for :func:`told` (Textual's
    own list is private and drops them as they time out)."""
    kept = _TOLD.setdefault(app, [])
    notify = app.notify

    def note(
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        kept.append(Told(str(message), title, severity))
        notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    app.notify = note  # type: ignore[method-assign]
    return app


def told(app: App[Any]) -> list[Told]:
    """The notifications ``app`` (made by :func:`make_app` or :func:`telling`) was asked for."""
    return _TOLD[app]


def prompts(select: Select[Any]) -> list[str]:
    """The options of ``select`` as its list shows them."""
    return [str(o.prompt) for o in select.query_one(OptionList).options]


def make_app(root: Path, *, watch: bool = False) -> HurikaeriApp:
    return telling(create_app(root, watch=watch))


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


async def kept_page_then_held_reading(root: Path, monkeypatch: Any) -> threading.Event:
    """Run the app once (it keeps its first page), then hold the next app's reading of the
    workspace until the returned event is set: the kept page shows meanwhile."""
    from store.index.workspace_index import WorkspaceIndex

    async with make_app(root).run_test() as pilot:
        await ready(pilot)
    release = threading.Event()
    load_all = WorkspaceIndex.load_all

    def held(self: WorkspaceIndex, *args: Any, **kwargs: Any) -> None:
        release.wait(60)  # the reading starts when the test says so
        load_all(self, *args, **kwargs)

    monkeypatch.setattr(WorkspaceIndex, "load_all", held)
    return release
