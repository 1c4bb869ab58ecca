"""Reviewing a session: every action, checked in the ledger and in the files."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, TextArea

from screens.dialogs.confirm import ConfirmScreen
from screens.dialogs.conflict import ConflictScreen
from screens.dialogs.item_form import ItemForm
from screens.dialogs.note_prompt import NotePrompt
from screens.session import SessionScreen
from screens.widgets.diff_view import DiffView
from screens.widgets.virtual_table import VirtualTable
from store.ledger import Ledger
from tests.tui.helpers import make_app, ready, until, watching

REPORT = "kpt-20261120-001"
SESSION = "sid:7d4a9e2c-1b86-4f3d-a5e0-c8b2f6d9e413"


async def _open(pilot, app) -> SessionScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app.push_screen(SessionScreen(app.index, SESSION))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    return screen


def _state(root: Path, item: str) -> tuple[str, str | None]:
    st = Ledger(root / ".hurikaeri").state(f"{REPORT}/{item}")
    return st.state, st.note


async def test_approve_moves_to_the_next_item(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        items = screen.query_one("#items", VirtualTable)
        assert items.cursor_key == f"{REPORT}/keep-001"
        await pilot.press("a")
        await pilot.pause()
        assert _state(demo_root, "keep-001") == ("approved", None)
        assert items.cursor_key == f"{REPORT}/keep-002"
        await pilot.press("a", "a", "a")
        await pilot.pause()
        assert {_state(demo_root, i)[0] for i in ("keep-002", "prob-001", "try-001")} == {
            "approved"
        }


async def test_reject_with_a_note(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, app)
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, NotePrompt)
        app.screen.query_one(Input).value = "根拠が弱い [bold]x[/]"
        await pilot.press("enter")
        await pilot.pause()
        assert _state(demo_root, "keep-001") == ("rejected", "根拠が弱い [bold]x[/]")
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("escape")  # cancelled: nothing recorded
        await pilot.pause()
        assert _state(demo_root, "keep-002") == ("pending", None)


async def test_undo_the_last_decision(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, app)
        await pilot.press("a", "a")
        await pilot.press(
            "u"
        )  # waits for both decisions, then undoes the second (no file: no question)
        await until(pilot, lambda: _state(demo_root, "keep-002") == ("pending", None))
        assert _state(demo_root, "keep-001") == ("approved", None)


async def test_approve_the_rest_of_a_section(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        screen.query_one("#items", VirtualTable).move_to_key(f"{REPORT}/keep-002")
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert _state(demo_root, "keep-001")[0] == "approved"
        assert _state(demo_root, "keep-002")[0] == "approved"
        assert _state(demo_root, "prob-001")[0] == "pending"


async def test_next_unreviewed_crosses_sessions(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        for _ in range(4):
            await pilot.press("a")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert screen.session_key != SESSION
        key = screen.query_one("#items", VirtualTable).cursor_key
        assert key is not None and app.index.ledger.state(key).state == "pending"


async def test_edit_in_the_form_changes_only_that_line(demo_root: Path) -> None:
    path = demo_root / "hurikaeri" / f"{REPORT}.yaml"
    before = path.read_text(encoding="utf-8")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, app)
        await pilot.press("e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ItemForm)
        form.query_one("#field-description", TextArea).text = "書き直した説明 — rewritten"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, ItemForm))
    after = path.read_text(encoding="utf-8")
    changed = [
        (a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b
    ]
    assert len(changed) == 1 and "書き直した説明 — rewritten" in changed[0][1]
    assert Ledger(demo_root / ".hurikaeri").folded[-1].op == "edit"


async def test_form_refuses_invalid_values(demo_root: Path) -> None:
    path = demo_root / "hurikaeri" / f"{REPORT}.yaml"
    before = path.read_bytes()
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, app)
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#field-description", TextArea).text = ""
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ItemForm)
        assert "description" in str(app.screen.query_one("#form-errors").render())
    assert path.read_bytes() == before


async def test_file_changed_under_an_open_edit_offers_the_choice(demo_root: Path) -> None:
    path = demo_root / "hurikaeri" / f"{REPORT}.yaml"
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, app)
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#field-description", TextArea).text = "mine"
        other = path.read_text(encoding="utf-8").replace("outcome: success", "outcome: partial")
        path.write_text(other, encoding="utf-8")  # another program edits the report
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("d")  # see the diff
        await pilot.pause()
        assert "+outcome: partial" in app.screen.query_one("#conflict-diff", DiffView).text
        await pilot.press("escape")  # back: nothing written
        await pilot.pause()
        assert path.read_text(encoding="utf-8") == other
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("k")  # keep mine, on top of theirs
        await until(pilot, lambda: 'description: "mine"' in path.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    assert "outcome: partial" in text and 'description: "mine"' in text


async def test_live_change_under_an_open_edit_is_announced(demo_root: Path) -> None:
    path = demo_root / "hurikaeri" / f"{REPORT}.yaml"
    app = make_app(demo_root, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, app)
        await watching(pilot)
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#field-description", TextArea).text = "mine"
        path.write_text(
            path.read_text(encoding="utf-8") + "# touched by an agent\n", encoding="utf-8"
        )
        await until(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("r")  # reload theirs: my edit is dropped
        await pilot.pause()
        assert not isinstance(app.screen, (ConflictScreen, ItemForm))
    assert '"mine"' not in path.read_text(encoding="utf-8")


async def test_edit_whole_file_in_editor(demo_root: Path, fake_editor) -> None:  # type: ignore[no-untyped-def]
    path = demo_root / "hurikaeri" / f"{REPORT}.yaml"
    fake_editor("outcome: success", "outcome: partial  # edited in $EDITOR")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, app)
        await pilot.press("E")
        await until(pilot, lambda: "edited in $EDITOR" in path.read_text(encoding="utf-8"))
    assert not list((demo_root / ".hurikaeri" / "edits").glob("*"))


async def test_invalid_editor_result_is_not_saved(demo_root: Path, fake_editor) -> None:  # type: ignore[no-untyped-def]
    path = demo_root / "hurikaeri" / f"{REPORT}.yaml"
    before = path.read_bytes()
    fake_editor("outcome: success", "outcome: [broken")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, app)
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")  # do not reopen: discard
        await pilot.pause()
    assert path.read_bytes() == before
    assert not list((demo_root / ".hurikaeri" / "edits").glob("*"))


async def test_markup_in_reports_is_shown_literally(demo_root: Path) -> None:
    path = demo_root / "hurikaeri" / f"{REPORT}.yaml"
    text = path.read_text(encoding="utf-8")
    hostile = "[bold red]boom[/] [@click=app.quit]quit[/] [link=http://x]l[/] \\e[31m"
    path.write_text(
        text.replace(
            "keep:\n  - id: keep-001\n    description:",
            f'keep:\n  - id: keep-001\n    description: "{hostile}"\n    x_old:',
            1,
        ),
        encoding="utf-8",
    )
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        detail = str(screen.query_one("#item-detail").render())
        assert "[bold red]boom[/]" in detail and "[@click=app.quit]quit[/]" in detail
        assert "\x1b" not in detail and "␛[31m" in detail
        await pilot.click("#item-detail")
        await pilot.pause()
        assert app.is_running
