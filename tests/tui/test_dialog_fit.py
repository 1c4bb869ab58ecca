"""Every modal fits a small terminal with its actions on screen, and its footer shows its
own keys (not the keys of the screen under it)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Footer

from screens.dialogs.confirm import ConfirmScreen
from screens.dialogs.conflict import ConflictScreen
from screens.dialogs.item_form import ItemForm
from screens.dialogs.lesson_form import LessonForm
from screens.dialogs.note_prompt import NotePrompt
from screens.dialogs.person_report import PersonReportDialog
from screens.dialogs.promote import PromoteScreen
from screens.dialogs.propose import ProposeScreen
from screens.dialogs.retarget import RetargetScreen
from screens.dialogs.text_view import TextView
from screens.session import SessionScreen
from screens.widgets.diff_view import DiffView
from store.models import Lesson
from tests.tui.helpers import make_app, ready, until

SESSION = "sid:3f9c2a1e-8b4d-4c6f-9a2e-51d7c0b8e4a3"  # kpt-20261028-001
KEY = "kpt-20261028-001/try-001"
DIFF = "--- a/x.md\n+++ b/x.md\n@@ -1,30 +1,30 @@\n" + "".join(
    f"-old line {n}\n+new line {n}\n" for n in range(30)
)


def _push(make: Callable[[Any], Screen[Any]]):  # type: ignore[no-untyped-def]
    async def open_(pilot) -> None:  # type: ignore[no-untyped-def]
        pilot.app.push_screen(make(pilot.app))

    return open_


def _key(key: str):  # type: ignore[no-untyped-def]
    async def open_(pilot) -> None:  # type: ignore[no-untyped-def]
        app = pilot.app
        app.push_screen(SessionScreen(app.index, SESSION, item_key=KEY))
        await pilot.pause()
        await pilot.press(key)

    return open_


def _lesson(app: Any) -> LessonForm:
    lesson = Lesson.model_validate(
        {"id": "ll-user-20261028-001", "title": "t", "type": "user_fact", "summary": "s"}
    )
    return LessonForm(app.index, app.index.ws.root / "lessons/user/lessons.jsonl", lesson)


# (name, how to open it, its type, buttons that must be on screen, keys its footer shows)
DIALOGS = [
    ("promote", _key("p"), PromoteScreen, ["write", "cancel"], {"y", "escape"}),
    ("item form", _key("e"), ItemForm, ["save", "cancel"], {"ctrl+s", "escape"}),
    ("retarget", _key("t"), RetargetScreen, ["save", "cancel"], {"ctrl+s", "escape"}),
    ("propose", _key("R"), ProposeScreen, ["save", "cancel"], {"ctrl+s", "escape"}),
    ("note prompt", _key("x"), NotePrompt, ["ok", "cancel"], {"escape"}),
    ("lesson form", _push(_lesson), LessonForm, ["save", "cancel"], {"ctrl+s", "escape"}),
    (
        "person report",
        _push(
            lambda app: PersonReportDialog(
                app.index, "kpt-20261201-001", "keep: []\n" * 40, "discussions/x.md"
            )
        ),
        PersonReportDialog,
        ["save", "cancel"],
        {"ctrl+s", "escape"},
    ),
    (
        "confirm",
        _push(lambda app: ConfirmScreen(Content("Discard?\n" * 4))),
        ConfirmScreen,
        ["yes", "no"],
        {"y", "n"},
    ),
    (
        "text view",
        _push(lambda app: TextView("Undo refused", DIFF, title="Not done")),
        TextView,
        ["close"],
        {"escape"},
    ),
    (
        "conflict",
        _push(lambda app: ConflictScreen("CLAUDE.md", "changed on disk", DIFF)),
        ConflictScreen,
        ["reload", "keep", "diff", "cancel"],
        {"r", "k", "d", "escape"},
    ),
]


def _on_screen(screen: Screen[Any], widget: Widget) -> bool:
    """The widget's whole region is drawn: nothing covers or clips its corners."""
    region = widget.region
    if region.height == 0 or region.bottom > screen.size.height - 1:
        return False  # the last line is the footer's
    corners = [(region.x + 1, region.y), (region.right - 2, region.bottom - 1)]
    for x, y in corners:
        try:
            found, _ = screen.get_widget_at(x, y)
        except Exception:  # noqa: BLE001 - off screen
            return False
        if found is not widget and widget not in found.ancestors:
            return False
    return True


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize(
    ("name", "open_", "kind", "buttons", "keys"), DIALOGS, ids=[d[0] for d in DIALOGS]
)
async def test_every_dialog_fits_and_shows_its_own_keys(  # type: ignore[no-untyped-def]
    demo_root: Path, size, name, open_, kind, buttons, keys
) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await open_(pilot)
        await until(pilot, lambda: isinstance(app.screen, kind))
        if kind is PromoteScreen:
            await until(pilot, lambda: bool(app.screen.plans))
        if kind is ConflictScreen:
            await pilot.press("d")
        screen = app.screen

        def laid_out() -> bool:
            footers = list(screen.query(Footer))
            if not all(screen.query(f"#{bid}") for bid in buttons):
                return False  # still being composed
            return all(
                _on_screen(screen, screen.query_one(f"#{bid}", Button)) for bid in buttons
            ) and bool(footers and keys <= {fk.key for fk in footers[0].query("FooterKey")})

        # laid out and drawn (on a loaded machine this takes a while): then each part is
        # checked on its own below, naming what does not fit
        with contextlib.suppress(AssertionError):
            await until(pilot, laid_out)
        for bid in buttons:
            button = screen.query_one(f"#{bid}", Button)
            assert _on_screen(screen, button), f"{name}: {bid} is not on screen at {size}"
        footers = list(screen.query(Footer))
        assert footers, f"{name} has no footer of its own"
        shown = {fk.key for fk in footers[0].query("FooterKey")}
        assert keys <= shown, f"{name}: footer shows {shown}"
        assert "a" not in shown and "p" not in shown  # not the review screen's keys


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_proposed_document_editor_is_usable(demo_root: Path, size) -> None:  # type: ignore[no-untyped-def]
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await _key("R")(pilot)
        await until(pilot, lambda: isinstance(app.screen, ProposeScreen))
        payload = app.screen.query_one("#pr-payload")
        payload.focus()
        tall = 10 if size[1] >= 40 else 6
        with contextlib.suppress(AssertionError):
            await until(
                pilot, lambda: payload.size.height >= tall and _on_screen(app.screen, payload)
            )
        assert payload.size.height >= (10 if size[1] >= 40 else 6)
        assert _on_screen(app.screen, payload)


async def test_the_conflict_diff_scrolls_and_k_still_keeps_mine(demo_root: Path) -> None:
    app = make_app(demo_root)
    answers: list[str | None] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.push_screen(ConflictScreen("CLAUDE.md", "changed on disk", DIFF), answers.append)
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        diff = app.screen.query_one("#conflict-diff", DiffView)
        assert app.focused is diff
        await pilot.press("end")
        assert diff.scroll_y > 0
        await pilot.press("k")
        await until(pilot, lambda: answers == ["keep"])


async def test_a_diff_in_the_text_view_is_a_diff_view(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.push_screen(TextView("history", DIFF, title="done"))
        await pilot.pause()
        diff = app.screen.query_one("#text-view-body", DiffView)
        assert app.focused is diff and "+new line 29" in diff.text
        await pilot.press("pagedown")
        assert diff.scroll_y > 0


async def test_closing_the_propose_form_with_typed_text_asks_first(demo_root: Path) -> None:
    from textual.widgets import Input

    from screens.dialogs.confirm import ConfirmScreen
    from screens.dialogs.propose import ProposeScreen
    from screens.session import SessionScreen
    from tests.tui.helpers import make_app, ready, until

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(
            SessionScreen(
                app.index,
                "sid:3f9c2a1e-8b4d-4c6f-9a2e-51d7c0b8e4a3",
                item_key="kpt-20261028-001/try-001",
            )
        )
        await pilot.pause()
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ProposeScreen))
        form = app.screen
        await pilot.pause()
        form.query_one("#pr-title", Input).value = "typed by hand"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")  # keep editing: the text is still there
        await until(pilot, lambda: app.screen is form)
        assert form.query_one("#pr-title", Input).value == "typed by hand"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
