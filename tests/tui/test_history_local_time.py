"""The History screen shows every time in the local zone and says so (issue 44: the demo's
+09:00 lines and this machine's UTC ones were mixed in one column, unmarked)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from screens.history import HistoryScreen
from screens.widgets.virtual_table import VirtualTable
from tests.tui.helpers import make_app, ready, until


@pytest.fixture
def zone_minus_3(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "<-03>3")  # UTC-3, no summer time
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def test_history_times_are_local_and_the_header_says_so(
    demo_root: Path, zone_minus_3: None
) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("H")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        table = app.screen.query_one("#history-list", VirtualTable)
        await until(pilot, lambda: len(table.rows) > 0)
        await pilot.pause()
        lines = [table.render_line(y).text for y in range(table.size.height)]
        assert "When (local)" in lines[0]
        # the newest demo transaction, 2026-11-11T09:05:00+09:00, is 21:05 the day before
        assert lines[1].lstrip().startswith("2026-11-10 21:05")
