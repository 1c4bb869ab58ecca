"""The session screen with KPT items that have no id: one row each, decisions refused with
a message, approve-section leaves them out, and the form can give them an id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input, Static

from screens.dialogs.confirm import ConfirmScreen
from screens.dialogs.item_form import ItemForm
from screens.session import SessionScreen
from screens.widgets.virtual_table import VirtualTable
from store.ledger import Ledger
from tests.id_less import ID_LESS_REPORT, RID
from tests.tui.helpers import make_app, ready, until

REPORT = ID_LESS_REPORT
MESSAGE = f"item 2 of keep in {RID} has no id; give it one (e: edit) — lint reports it"


def _root(tmp_path: Path) -> Path:
    (tmp_path / "hurikaeri").mkdir()
    (tmp_path / "hurikaeri" / f"{RID}.yaml").write_text(REPORT, encoding="utf-8")
    return tmp_path


async def _open(pilot: Any, app: Any) -> tuple[SessionScreen, list[str]]:
    await ready(pilot)
    session = app.index.find_report(RID)
    assert session is not None
    screen = SessionScreen(app.index, session.key)
    told: list[str] = []
    original = screen.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        told.append(str(message))
        original(message, *args, **kwargs)

    screen.notify = notify  # type: ignore[method-assign]
    app.push_screen(screen)
    await pilot.pause()
    assert app.screen is screen
    return screen, told


def _targets(root: Path) -> list[str]:
    return [e.target for e in Ledger(root / ".hurikaeri").folded]


async def test_id_less_items_each_have_a_row_and_refuse_decisions(tmp_path: Path) -> None:
    root = _root(tmp_path)
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, told = await _open(pilot, app)
        table = screen.query_one("#items", VirtualTable)
        assert list(screen.items) == [f"{RID}/keep-001", "#keep:2", "#keep:3", "#try:1"]
        head = str(screen.query_one("#session-head", Static).render())
        assert "reviewed 0/1" in head and "3 items without an id" in head
        assert table.move_to_key("#keep:2")
        await pilot.pause()
        assert MESSAGE in str(screen.query_one("#item-detail", Static).render())
        for key in ("a", "x", "o", "space", "p"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen, key  # no prompt, no promotion screen
        assert told.count(MESSAGE) == 3  # a, x, o; space and p are about try-items
        assert _targets(root) == []
        assert table.move_to_key("#try:1")
        await pilot.press("p")
        await pilot.pause()
        assert app.screen is screen
        assert told[-1] == MESSAGE.replace("item 2 of keep", "item 1 of try")
        assert _targets(root) == []


async def test_approve_section_leaves_id_less_items_out(tmp_path: Path) -> None:
    root = _root(tmp_path)
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, told = await _open(pilot, app)
        screen.query_one("#items", VirtualTable).move_to_key("#keep:3")
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert any("2 items without an id left out" in t for t in told)
        await pilot.press("y")
        await pilot.pause()
        assert _targets(root) == [f"{RID}/keep-001"]
        assert app.index.review_progress(app.index.find_report(RID)) == (1, 1)


async def test_the_form_gives_an_id_less_item_an_id(tmp_path: Path) -> None:
    root = _root(tmp_path)
    path = root / "hurikaeri" / f"{RID}.yaml"
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, _told = await _open(pilot, app)
        screen.query_one("#items", VirtualTable).move_to_key("#keep:3")
        await pilot.press("e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ItemForm)
        form.query_one("#field-id", Input).value = "keep-003"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, ItemForm))
    text = path.read_text(encoding="utf-8")
    assert text.count("id: keep-003") == 1
    # added to the third keep item (at the end of its fields), not the second
    assert text.index('"second without an id"') < text.index("keep-003") < text.index("try:")
    assert _targets(root) == [RID]  # the edit is recorded on the report, not on 'RID/'
