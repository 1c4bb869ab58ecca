"""Lessons and statistics screens."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import Input, Select

from screens.dialogs.confirm import ConfirmScreen
from screens.dialogs.lesson_form import LessonForm
from screens.lessons import LessonsScreen
from screens.session import SessionScreen
from screens.stats import StatsScreen
from screens.widgets.virtual_table import VirtualTable
from store.ledger import Ledger
from tests.conftest import DEMO
from tests.tui.helpers import make_app, ready, until

LESSON = "ll-ai-20261028-001"


async def _lessons(pilot, app) -> LessonsScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    await pilot.press("L")
    await pilot.pause()
    assert isinstance(app.screen, LessonsScreen)
    return app.screen


def _key(screen: LessonsScreen, lesson_id: str) -> str:
    return next(k for k, r in screen.rows.items() if r.lesson.id == lesson_id)


async def test_filters_and_grouping(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _lessons(pilot, app)
        table = screen.query_one("#lessons-list", VirtualTable)
        assert len(table.rows) == 89
        screen.query_one("#lf-type", Select).value = "ai_user_guided"
        await pilot.pause()
        assert len(table.rows) and all(
            r.lesson.type == "ai_user_guided" for r in screen.rows.values()
        )
        screen.query_one("#lf-type", Select).clear()
        screen.query_one("#lf-tag", Input).value = "jwt"
        await pilot.pause()
        assert all(
            any("jwt" in t.casefold() for t in r.lesson.tags or []) for r in screen.rows.values()
        )
        screen.query_one("#lf-tag", Input).value = ""
        await pilot.press("g")  # group by tag
        await pilot.pause()
        assert (table.row_key_at(0) or "").startswith("group:")


async def test_edit_archive_and_remove(demo_root: Path) -> None:
    path = demo_root / "lessons" / "ai" / "lessons.jsonl"
    before = path.read_text(encoding="utf-8").splitlines()
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _lessons(pilot, app)
        table = screen.query_one("#lessons-list", VirtualTable)
        table.move_to_key(_key(screen, LESSON))
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, LessonForm)
        app.screen.query_one("#lesson-title", Input).value = "編集したタイトル"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, LessonForm))
        after = path.read_text(encoding="utf-8").splitlines()
        changed = [a for a, b in zip(before, after, strict=True) if a != b]
        assert len(changed) == 1 and LESSON in changed[0]
        await until(
            pilot, lambda: any(r.lesson.title == "編集したタイトル" for r in screen.rows.values())
        )
        table.move_to_key(_key(screen, LESSON))
        await pilot.press("z")
        await until(pilot, lambda: all(r.lesson.id != LESSON for r in screen.rows.values()))
        assert Ledger(demo_root / ".hurikaeri").state(f"lesson:{LESSON}").archived
        assert path.read_text(encoding="utf-8").splitlines() == after  # archiving leaves the file
        await pilot.press("h")  # show archived
        await until(pilot, lambda: any(r.lesson.id == LESSON for r in screen.rows.values()))
        table.move_to_key(_key(screen, LESSON))
        await pilot.press("X")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: LESSON not in path.read_text(encoding="utf-8"))
        # the record's line is left blank (a file agents append to never shrinks)
        now = path.read_text(encoding="utf-8").splitlines()
        assert len(now) == len(after) and sum(1 for x in now if not x.strip()) == 1
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "puts" in str(app.screen.query_one(".dialog-text").render())
        await pilot.press("y")
        await until(pilot, lambda: LESSON in path.read_text(encoding="utf-8"))


async def test_stats_screen_opens_a_recurring_problem(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("S")
        await until(pilot, lambda: isinstance(app.screen, StatsScreen) and bool(app.screen.figures))
        table = app.screen.query_one("#stats-clusters", VirtualTable)
        assert len(table.rows) == 1
        table.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen)
        assert app.screen.current_key() == "kpt-20261119-001/prob-003"


SNAP = Path("/tmp/hurikaeri-snapshot-ls/demo")


def _snap_app():  # type: ignore[no-untyped-def]
    if SNAP.exists():
        shutil.rmtree(SNAP)
    shutil.copytree(DEMO, SNAP)
    return make_app(SNAP)


def test_lessons_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _lessons(pilot, pilot.app)
        await pilot.press("g", "down")
        await pilot.pause()

    assert snap_compare(_snap_app(), terminal_size=(120, 40), run_before=run_before)


def test_stats_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        await pilot.press("S")
        await until(
            pilot,
            lambda: isinstance(pilot.app.screen, StatsScreen) and bool(pilot.app.screen.figures),
        )
        await pilot.pause()

    assert snap_compare(_snap_app(), terminal_size=(120, 40), run_before=run_before)
