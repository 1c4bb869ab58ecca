"""Enter on a row of the list kept from last time opens that session once the workspace
is read (issue 47, point 2): the kept page is drawn before anything is read, and Enter on
it did nothing, then or later."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from screens.session import SessionScreen
from store.index.workspace_index import WorkspaceIndex
from tests.tui.helpers import kept_page_then_held_reading, make_app, ready, until


async def test_enter_on_a_kept_row_opens_it_once_read(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = await kept_page_then_held_reading(demo_root, monkeypatch)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.screen.query_one("#sessions")
        await until(pilot, lambda: "as it was last time" in str(table.border_title))
        await pilot.press("down", "enter")
        wanted = table.cursor_key  # type: ignore[attr-defined]
        assert wanted and not app.index.sessions
        release.set()
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        assert app.screen.session_key == wanted  # type: ignore[attr-defined]
        await ready(pilot)  # the session drawn before the app closes


async def test_a_kept_row_asked_for_is_not_opened_over_another_screen(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by review: Enter on a kept row, then I (the inbox) before the reading ended,
    opened the session over the inbox, where the next keys went to it unasked."""
    from screens.inbox import InboxScreen

    async with make_app(demo_root).run_test() as pilot:
        await ready(pilot)
    release = threading.Event()
    load_all = WorkspaceIndex.load_all

    def held(self: WorkspaceIndex, *args: object, **kwargs: object) -> None:
        release.wait(60)
        load_all(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(WorkspaceIndex, "load_all", held)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.screen.query_one("#sessions")
        await until(pilot, lambda: "as it was last time" in str(table.border_title))
        await pilot.press("enter", "I")
        await until(pilot, lambda: isinstance(app.screen, InboxScreen))
        release.set()
        await until(pilot, lambda: app.loaded.is_set())
        await ready(pilot)
        assert isinstance(app.screen, InboxScreen)
        assert not any(isinstance(s, SessionScreen) for s in app.screen_stack)
