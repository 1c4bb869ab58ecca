"""Counts in the screens' titles read right for one (issue 42): ``1 error``,
``1 finding``, not ``1 errors``."""

from __future__ import annotations

from pathlib import Path

from screens.problems import ProblemsScreen
from screens.targets import TargetsScreen
from screens.widgets.virtual_table import VirtualTable
from tests.tui.helpers import make_app, ready, until


async def test_one_error_and_one_finding(tmp_path: Path) -> None:
    (tmp_path / "hurikaeri").mkdir()
    (tmp_path / "hurikaeri" / "kpt-20260101-001.yaml").write_text("keep: [\n")
    (tmp_path / "CLAUDE.md").write_text("- run `no-such-tool-xyz --all`\n")
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("P")
        await until(pilot, lambda: isinstance(app.screen, ProblemsScreen))
        assert app.screen.query_one("#files").border_title == "Files: 1 · 1 error · 0 warnings"
        await pilot.press("escape", "C")
        await until(pilot, lambda: isinstance(app.screen, TargetsScreen))
        screen = app.screen
        assert isinstance(screen, TargetsScreen)
        await until(pilot, lambda: screen.report is not None)
        title = screen.query_one("#targets-list", VirtualTable).border_title
        assert title == "Targets (1) · 1 finding · 0 duplicate groups"
