"""Promoting from the session screen: the diff first, a write on "y", undo with "u"."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Select

from screens.dialogs.confirm import ConfirmScreen
from screens.dialogs.promote import PromoteScreen
from screens.dialogs.retarget import RetargetScreen
from screens.session import SessionScreen
from screens.widgets.diff_view import DiffView
from screens.widgets.virtual_table import VirtualTable
from tests.tui.helpers import make_app, prompts, ready, until

SESSION = "sid:3f9c2a1e-8b4d-4c6f-9a2e-51d7c0b8e4a3"  # kpt-20261028-001
KEY = "kpt-20261028-001/try-001"


async def _at_try(pilot, app) -> SessionScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app.push_screen(SessionScreen(app.index, SESSION, item_key=KEY))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SessionScreen) and screen.current_key() == KEY
    return screen


async def test_promote_shows_the_diff_then_writes_and_undoes(demo_root: Path) -> None:
    claude = demo_root / "CLAUDE.md"
    original = claude.read_bytes()
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _at_try(pilot, app)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PromoteScreen) and bool(app.screen.plans))
        modal = app.screen
        diff = modal.query_one("#promote-diff", DiffView).text
        assert "+- 新パッケージ追加前にpackage.jsonの既存依存を確認する" in diff
        assert str(claude) in str(modal.query_one("#promote-head").render())
        assert claude.read_bytes() == original  # nothing written before "y"
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, PromoteScreen))
        assert b"package.json" in claude.read_bytes() and claude.read_bytes() != original
        st = app.index.ledger.state(KEY)
        assert st.state == "approved" and st.promoted
        assert "promoted" in str(screen.query_one("#item-detail").render())
        await pilot.press("u")  # says what it will do, and asks: a file changes
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = str(app.screen.query_one(".dialog-text").render())
        assert question.startswith("Undo: promote") and "restores CLAUDE.md" in question
        assert claude.read_bytes() != original  # nothing undone before "y"
        await pilot.press("y")
        await until(pilot, lambda: claude.read_bytes() == original)


async def test_cancel_writes_nothing(demo_root: Path) -> None:
    claude = demo_root / "CLAUDE.md"
    original = claude.read_bytes()
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _at_try(pilot, app)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PromoteScreen) and bool(app.screen.plans))
        await pilot.press("escape")
        await pilot.pause()
    assert claude.read_bytes() == original


async def test_near_duplicate_offers_a_choice(demo_root: Path) -> None:
    claude = demo_root / "CLAUDE.md"
    text = claude.read_text(encoding="utf-8").replace(
        "## パッケージ管理\n",
        "## パッケージ管理\n\n- 新パッケージ追加前に package.json の既存依存を確認すること\n",
        1,
    )
    claude.write_text(text, encoding="utf-8")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _at_try(pilot, app)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PromoteScreen) and bool(app.screen.plans))
        modal = app.screen
        assert modal.plans[0].status == "near-duplicate"
        assert "確認すること" in str(modal.query_one("#near-existing").render())
        await pilot.press("r")  # replace the similar bullet
        await until(pilot, lambda: modal.plans[0].status == "write")
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, PromoteScreen))
    after = claude.read_text(encoding="utf-8")
    assert (
        "確認すること" not in after
        and "- 新パッケージ追加前にpackage.jsonの既存依存を確認する" in after
    )


async def test_retarget_several_selected_items(demo_root: Path) -> None:
    report = demo_root / "hurikaeri" / "kpt-20261028-001.yaml"
    before = report.read_text(encoding="utf-8")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _at_try(pilot, app)
        await pilot.press("space")
        screen.query_one("#items", VirtualTable).move_to_key("kpt-20261028-001/try-002")
        await pilot.press("space", "t")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, RetargetScreen) and len(form.refs) == 2
        form.query_one("#rt-type", Select).value = "claude_md"
        form.query_one("#rt-path", Input).value = "CLAUDE.md"
        await until(
            pilot, lambda: "## Git Workflow" in prompts(form.query_one("#rt-section", Select))
        )
        form.query_one("#rt-section", Select).value = "## Git Workflow"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, RetargetScreen))
        # the selection stays for the promotion that usually follows
        assert screen.selected == {"kpt-20261028-001/try-001", "kpt-20261028-001/try-002"}
        text = report.read_text(encoding="utf-8")
        quoted = [f"section: {q}## Git Workflow{q}" for q in ('"', "'", "")]
        assert sum(text.count(s) for s in quoted) == 2
        # both items in one transaction: one undo puts the report back
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: report.read_text(encoding="utf-8") == before)
