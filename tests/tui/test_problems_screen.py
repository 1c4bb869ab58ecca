"""The Problems screen: a file shown with its problems opens at the first one's line."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import TextArea

from screens.problems import ProblemsScreen
from tests.tui.helpers import make_app, ready, until


async def test_a_file_opens_at_its_first_problem(tmp_path: Path) -> None:
    (tmp_path / "hurikaeri").mkdir()
    lines = ["# a report with a long head", *(f"# note {n}" for n in range(60))]
    lines += ["id: kpt-20260101-001", "keep: 5", ""]
    (tmp_path / "hurikaeri" / "kpt-20260101-001.yaml").write_text("\n".join(lines))
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("P")
        await until(pilot, lambda: isinstance(app.screen, ProblemsScreen))
        area = app.screen.query_one("#file-text", TextArea)
        await until(pilot, lambda: area.text.startswith("# a report"))
        await until(pilot, lambda: area.cursor_location == (62, 0))  # line 63: "keep: 5"
        assert area.scroll_offset.y > 0
