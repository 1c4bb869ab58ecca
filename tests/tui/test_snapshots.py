"""Snapshots of every screen at 120×40 and 80×24, on Japanese and Korean sessions.

The demo is copied to a fixed path (the header shows the workspace root), theme and
colours are pinned in conftest, and the clock zone is UTC.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from screens.problems import ProblemsScreen
from screens.session import SessionScreen
from tests.conftest import DEMO
from tests.tui.helpers import make_app, ready, until
from tui.app import HurikaeriApp

SNAP_ROOT = Path("/tmp/hurikaeri-snapshot/demo")
JA_SESSION = "sid:3f9c2a1e-8b4d-4c6f-9a2e-51d7c0b8e4a3"  # kpt-20261028-001, Japanese
KO_SESSION = "sid:9e3c1a7b-6f52-4d8e-b094-3a7e5c2d1f86"  # kpt-20261118-001, Korean
SIZES = [(120, 40), (80, 24)]


def _app() -> HurikaeriApp:
    if SNAP_ROOT.exists():
        shutil.rmtree(SNAP_ROOT)
    shutil.copytree(DEMO, SNAP_ROOT)
    return make_app(SNAP_ROOT)


def _session(key: str, tab: str = "review"):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        app = pilot.app
        app.push_screen(SessionScreen(app.index, key))
        await pilot.pause()
        # the evidence is checked in a worker: the picture waits for its marks
        await until(pilot, lambda: app.screen.evidence is not None)
        if tab != "review":
            await app.screen.action_tab(tab)
        await pilot.pause()
        await pilot.press("down")
        await pilot.pause()

    return run_before


async def _home(pilot) -> None:  # type: ignore[no-untyped-def]
    await ready(pilot)


async def _problems(pilot) -> None:  # type: ignore[no-untyped-def]
    await ready(pilot)
    pilot.app.push_screen(ProblemsScreen(pilot.app.index))
    await pilot.pause()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_sessions_screen(snap_compare, size) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_app(), terminal_size=size, run_before=_home)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_session_screen_japanese(snap_compare, size) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_app(), terminal_size=size, run_before=_session(JA_SESSION))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_session_screen_korean(snap_compare, size) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_app(), terminal_size=size, run_before=_session(KO_SESSION))


@pytest.mark.parametrize("tab", ["report", "summary", "lessons"])
def test_session_tabs(snap_compare, tab: str) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_app(), terminal_size=(120, 40), run_before=_session(KO_SESSION, tab))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_problems_screen(snap_compare, size) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_app(), terminal_size=size, run_before=_problems)


async def _promote(pilot) -> None:  # type: ignore[no-untyped-def]
    from screens.dialogs.promote import PromoteScreen
    from tests.tui.helpers import until

    await ready(pilot)
    app = pilot.app
    app.push_screen(SessionScreen(app.index, JA_SESSION, item_key="kpt-20261028-001/try-001"))
    await pilot.pause()
    await until(pilot, lambda: app.screen.evidence is not None)  # its marks, behind the dialog
    await pilot.press("p")
    await until(pilot, lambda: isinstance(app.screen, PromoteScreen) and bool(app.screen.plans))
    await pilot.pause()


async def _inbox(pilot) -> None:  # type: ignore[no-untyped-def]
    from screens.inbox import InboxScreen
    from tests.tui.helpers import until

    await ready(pilot)
    app = pilot.app
    await pilot.press("I")
    await until(pilot, lambda: isinstance(app.screen, InboxScreen) and app.screen.proposals != {})
    diff = app.screen.query_one("#inbox-diff")
    await until(pilot, lambda: "+skill_id" in diff.text)  # type: ignore[attr-defined]
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_promote_dialog(snap_compare, size) -> None:  # type: ignore[no-untyped-def]
    """The diff coloured and focused, the heading as written, the actions and the dialog's
    own keys on screen."""
    assert snap_compare(_app(), terminal_size=size, run_before=_promote)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_inbox_screen(snap_compare, size, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Whole titles above, the proposal and its coloured diff side by side below."""
    import store.review.inbox as inbox_mod

    monkeypatch.setattr(inbox_mod, "now_iso", lambda: "2026-11-22T10:00:00+09:00")
    assert snap_compare(_app(), terminal_size=size, run_before=_inbox)
