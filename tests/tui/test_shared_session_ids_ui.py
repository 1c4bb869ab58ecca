"""Two KPT reports naming one ``session_id``, in the app (issue 40, point 8): both are on
the Sessions list, the header counts both reports' items, and the second report's items
are reviewed on its own session."""

from __future__ import annotations

from pathlib import Path

from screens.session import SessionScreen
from screens.widgets.virtual_table import VirtualTable
from tests.store.test_shared_session_ids import FIRST, SECOND, write_report
from tests.tui.helpers import make_app, ready, until


async def test_both_reports_are_on_the_desk_and_reviewable(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write_report(root, FIRST, 1)
    write_report(root, SECOND, 2)
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        table = app.screen.query_one("#sessions", VirtualTable)
        keys = [table.row_key_at(i) or "" for i in range(len(table.rows))]
        assert sorted(app.index.sessions[k].report_id or "" for k in keys) == [FIRST, SECOND]
        assert "4 to review" in app.sub_title
        first = next(k for k in keys if app.index.sessions[k].report_id == FIRST)
        app.push_screen(SessionScreen(app.index, first))
        await until(
            pilot,
            lambda: isinstance(app.screen, SessionScreen) and bool(app.screen.query("#items")),
        )
        items = app.screen.query_one("#items", VirtualTable)
        await until(pilot, lambda: items.cursor_key == f"{FIRST}/keep-001")
        await pilot.press("a")
        await until(pilot, lambda: app.index.ledger.state(f"{FIRST}/keep-001").state == "approved")
        await until(pilot, lambda: "3 to review" in app.sub_title)
