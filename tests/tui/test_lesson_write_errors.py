"""A lesson save or removal that cannot be written (a conflict with another program, a
read-only disk) is told on screen; the app keeps running and the file stays as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

import screens.dialogs.lesson_form as lesson_form
import screens.lessons as lessons_screen
from screens.dialogs.confirm import ConfirmScreen
from screens.dialogs.lesson_form import LessonForm
from screens.lessons import LessonsScreen
from screens.widgets.virtual_table import VirtualTable
from store.write.atomic import ConflictError, WriteError
from tests.tui.helpers import make_app, ready, told, until

LESSON = "ll-ai-20261028-001"


def _conflict(*_args: Any, **_kw: Any) -> Any:
    raise ConflictError(Path("lessons.jsonl"), None, None)


async def _open(pilot, app) -> LessonsScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    await pilot.press("L")
    await until(pilot, lambda: isinstance(app.screen, LessonsScreen))
    screen = app.screen
    table = screen.query_one("#lessons-list", VirtualTable)
    table.move_to_key(next(k for k, r in screen.rows.items() if r.lesson.id == LESSON))
    return screen


async def test_a_conflicting_lesson_save_is_told_in_the_form(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = demo_root / "lessons" / "ai" / "lessons.jsonl"
    before = path.read_bytes()
    monkeypatch.setattr(lesson_form, "edit_lesson_tx", _conflict)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, app)
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, LessonForm))
        app.screen.query_one("#lesson-title", Input).value = "changed"
        await pilot.press("ctrl+s")
        # told in one line by the app's one write-failure handler; the form and its text stay
        await until(
            pilot,
            lambda: any(
                "Not done: edit ll-ai-20261028-001" in n.message and "deleted or moved" in n.message
                for n in told(app)
            ),
        )
        assert isinstance(app.screen, LessonForm) and app.is_running
        assert app.screen.query_one("#lesson-title", Input).value == "changed"
    assert path.read_bytes() == before
    assert app.return_code in (None, 0)


async def test_a_failing_lesson_removal_is_told(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = demo_root / "lessons" / "ai" / "lessons.jsonl"
    before = path.read_bytes()

    def read_only(*_args: Any, **_kw: Any) -> Any:
        raise WriteError(f"{path}: the filesystem is read-only; nothing was changed")

    monkeypatch.setattr(lessons_screen, "remove_lesson", read_only)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        await pilot.press("X")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: any("read-only" in n.message for n in told(app)))
        assert app.screen is screen and app.is_running
    assert path.read_bytes() == before
