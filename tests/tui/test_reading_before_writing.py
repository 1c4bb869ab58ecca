"""What a person reads before a write: the promote and inbox diffs scroll from the keyboard,
the inbox shows each proposal from its top and its titles whole, the promote header names
the heading as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from screens.dialogs.promote import PromoteScreen
from screens.inbox import InboxScreen
from screens.session import SessionScreen
from screens.widgets.diff_view import DiffView
from screens.widgets.virtual_table import VirtualTable
from tests.tui.helpers import make_app, ready, until

SESSION = "sid:3f9c2a1e-8b4d-4c6f-9a2e-51d7c0b8e4a3"  # kpt-20261028-001
KEY = "kpt-20261028-001/try-001"
SIZES = [(80, 24), (120, 40)]


async def _inbox(pilot) -> InboxScreen:  # type: ignore[no-untyped-def]
    app = pilot.app
    await ready(pilot)
    await pilot.press("I")
    await until(pilot, lambda: isinstance(app.screen, InboxScreen) and app.screen.proposals != {})
    return app.screen  # type: ignore[no-any-return]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_promote_diff_takes_focus_and_scrolls(demo_root: Path, size) -> None:  # type: ignore[no-untyped-def]
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        app.push_screen(SessionScreen(app.index, SESSION, item_key=KEY))
        await pilot.pause()
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PromoteScreen) and bool(app.screen.plans))
        modal = app.screen
        diff = modal.query_one("#promote-diff", DiffView)
        assert app.focused is diff
        added = [r for r in diff.rows if r.kind == "added"]
        assert added and all(r.gutter == "+" for r in added)
        assert "+- 新パッケージ追加前にpackage.jsonの既存依存を確認する" in diff.text
        if diff.max_scroll_y:  # a scroll is drawn with the next frame: waited for
            await pilot.press("end")
            await until(pilot, lambda: diff.scroll_y == diff.max_scroll_y)
            await pilot.press("home")
            await until(pilot, lambda: diff.scroll_y == 0)
        # the section as the heading is written, not "#パッケージ管理"
        head = str(modal.query_one("#promote-head").render())
        assert "## パッケージ管理" in head and "#パッケージ管理" not in head
        await pilot.press("y")  # the diff has focus, and y still writes
        await until(pilot, lambda: not isinstance(app.screen, PromoteScreen))
    assert "新パッケージ追加前に" in (demo_root / "CLAUDE.md").read_text(encoding="utf-8")


async def test_promote_diff_scrolls_at_80x24(demo_root: Path) -> None:
    """At 80×24 the CLAUDE.md diff is longer than its pane: the keys reach its end."""
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.push_screen(SessionScreen(app.index, SESSION, item_key=KEY))
        await pilot.pause()
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PromoteScreen) and bool(app.screen.plans))
        diff = app.screen.query_one("#promote-diff", DiffView)
        await pilot.pause()
        assert diff.max_scroll_y > 0
        await pilot.press("pagedown")
        await until(pilot, lambda: diff.scroll_y > 0)
        await pilot.press("j", "k", "end")
        await until(pilot, lambda: diff.scroll_y == diff.max_scroll_y)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_inbox_titles_are_whole(demo_root: Path, size) -> None:  # type: ignore[no-untyped-def]
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        screen = await _inbox(pilot)
        table = screen.query_one("#inbox-list", VirtualTable)
        await pilot.pause()
        lines = [table.render_line(y).text for y in range(1, 4)]
        assert any("DuckDB for larger-than-memory aggregations" in line for line in lines)
        if size[0] >= 120:
            assert any("harbor-api: snapshot only persisted audit rows" in line for line in lines)
            assert any("JWKS ローテーション手順を追加" in line for line in lines)


async def test_inbox_detail_starts_at_the_top_of_each_proposal(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _inbox(pilot)
        scroll = screen.query_one("#inbox-detail-scroll")
        await pilot.pause()
        scroll.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert scroll.scroll_y > 0
        table = screen.query_one("#inbox-list", VirtualTable)
        await pilot.press("down")
        await until(pilot, lambda: table.cursor_row == 1)
        await pilot.pause()
        assert scroll.scroll_y == 0


async def test_inbox_diff_takes_focus_and_scrolls(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _inbox(pilot)
        diff = screen.query_one("#inbox-diff", DiffView)
        await until(pilot, lambda: "+skill_id: duckdb_larger_than_memory" in diff.text)
        diff.focus()
        await pilot.pause()
        assert app.focused is diff
        await pilot.press("pagedown")
        assert diff.scroll_y > 0
        await pilot.press("end")
        assert diff.scroll_y == diff.max_scroll_y > 10
        # another proposal's diff is read from its first line
        screen.query_one("#inbox-list", VirtualTable).move_to_key("prop-20261118-001")
        await until(pilot, lambda: "version: 3" in diff.text)
        assert diff.scroll_y == 0
