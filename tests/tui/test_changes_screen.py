"""The Changes screen (issue #45): ``W`` opens it; a change made while the app is open shows
in the list and in the header's count without any key; ``a`` keeps it, ``r`` reverts it."""

from __future__ import annotations

from pathlib import Path

from screens.changes import ChangesScreen
from screens.widgets.virtual_table import VirtualTable
from tests.tui.helpers import make_app, ready, until

TEXT = "# Rules\n- one\n"


async def test_a_change_shows_live_and_is_kept_then_reverted(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    root.mkdir()
    claude = root / "CLAUDE.md"
    claude.write_text(TEXT)
    app = make_app(root, watch=True)
    index = root / ".hurikaeri" / "reviewed" / "index.json"
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await until(pilot, index.exists, timeout=20)  # the first start, taken silently
        await pilot.press("W")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ChangesScreen)
        table = screen.query_one("#changes-list", VirtualTable)
        await until(pilot, lambda: "Changes since your last review: 0" in str(table.border_title))
        claude.write_text(TEXT + "- two\n")  # an agent writes while the app is open
        await until(pilot, lambda: list(screen.changes) == ["CLAUDE.md"], timeout=20)
        await until(pilot, lambda: "1 changed file ·" in app.sub_title)
        await pilot.press("a")
        await until(pilot, lambda: not screen.changes and app.changed_count == 0, timeout=20)
        assert "changed file" not in app.sub_title
        claude.write_text(TEXT + "- three\n")
        await until(pilot, lambda: list(screen.changes) == ["CLAUDE.md"], timeout=20)
        await pilot.press("r")
        await until(pilot, lambda: claude.read_text() == TEXT + "- two\n", timeout=20)
        await until(pilot, lambda: not screen.changes, timeout=20)
