"""Lists you can read (issue 39, point 5; issue 44, point 2): paths cut in the middle keeping
their file name, titles given the width before lesser columns, and an ellipsis wherever text
is cut (the transcript's "cited" line still says which turns lie past the end, the inbox's
budget whole in a narrow pane), at 120×40 and 80×24 on the demo."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widget import Widget

from screens.inbox import InboxScreen
from screens.session import SessionScreen
from screens.targets import TargetsScreen
from screens.widgets.hits import COLUMNS as SEARCH_COLUMNS
from screens.widgets.transcript_view import TranscriptView
from screens.widgets.virtual_table import VirtualTable
from tests.transcript_lines import TranscriptWriter
from tests.tui.helpers import make_app, ready, until

SIZES = [(120, 40), (80, 24)]


def drawn(widget: Widget) -> list[str]:
    """The lines ``widget`` shows, as text."""
    return [widget.render_line(y).text for y in range(widget.size.height)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_target_paths_keep_their_file_names(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, TargetsScreen))
        screen = app.screen
        assert isinstance(screen, TargetsScreen)
        await until(pilot, lambda: screen.report is not None)
        table = screen.query_one("#targets-list", VirtualTable)
        await until(pilot, lambda: len(table.rows) == 8)
        rows = [line for line in drawn(table)[1:] if line.strip()]  # under the header
        names = [p.name for p in (demo_root / "knowledge_base" / "global" / "skills").iterdir()]
        skills = [r for r in rows if r.startswith("know")]
        assert len(skills) >= min(4, len(rows) - 2)  # those shown of the four
        for row in skills:  # the start, an ellipsis, the file name whole (its folder if room)
            assert any(f"…/{name} " in row or f"…/skills/{name} " in row for name in names), row
        assert len({r.split()[0] for r in rows}) == len(rows)  # eight names, told apart


async def test_search_drops_the_kind_before_it_cuts_a_title(demo_root: Path) -> None:
    from screens.widgets.table_rows import column_widths

    by_key = {c.key: i for i, c in enumerate(SEARCH_COLUMNS)}
    for available in range(40, 121):
        widths = column_widths(SEARCH_COLUMNS, available)
        if widths[by_key["kind"]]:  # the kind is shown only beside a wide title
            assert widths[by_key["title"]] >= 36, available
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("slash")
        await pilot.press(*"rate limit")
        table = app.screen.query_one("#search-results", VirtualTable)
        await until(pilot, lambda: len(table.rows) > 0)
        header = drawn(table)[0]
        assert "Kind" not in header and header.startswith("Title")
        assert header.index("Date") >= 40  # a title of forty cells, not twenty-eight


async def test_lesson_titles_and_item_descriptions_get_the_width(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("L")
        table = app.screen.query_one("#lessons-list", VirtualTable)
        await until(pilot, lambda: len(table.rows) > 0)
        header = drawn(table)[0]
        assert "Type" in header and len(header) - header.index("Title") >= 34 + 2  # a scrollbar
        await pilot.press("escape")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        items = app.screen.query_one("#items", VirtualTable)
        await until(pilot, lambda: len(items.rows) > 0)
        header = drawn(items)[0]
        assert len(header) - header.index("Description") >= 40 + 2


SID = "7d4a9e2c-1b86-4f3d-a5e0-c8b2f6d9e413"  # kpt-20261120-001


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_cited_line_says_which_turns_lie_past_the_end(
    demo_root: Path, size: tuple[int, int]
) -> None:
    w = TranscriptWriter(SID)
    for n in range(3):
        w.user(f"prompt {n}")
        w.assistant(f"answer {n}")
    w.write(demo_root, "-work-takt")
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        app.push_screen(SessionScreen(app.index, f"sid:{SID}"))
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        await pilot.press("5")
        await until(pilot, lambda: bool(app.screen.query(TranscriptView)))
        view = app.screen.query_one(TranscriptView)
        await until(pilot, lambda: view.done and 2 <= view.turn_count < 23)
        view.set_cited([2, *range(23, 30)])
        status = view.query_one("#transcript-status")
        await until(pilot, lambda: "past the end" in drawn(status)[0])
        line = drawn(status)[0].rstrip()
        assert "cited 23–29 past the end" in line
        assert line.endswith("…") or line.endswith(".jsonl")  # cut with an ellipsis, or whole


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_inbox_budget_title_is_whole(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await pilot.press("I")
        await until(
            pilot, lambda: isinstance(app.screen, InboxScreen) and app.screen.proposals != {}
        )
        pane = app.screen.query_one("#inbox-detail-scroll")
        await until(pilot, lambda: "budget" in str(pane.border_title or ""))
        top = pane.render_lines(Region(0, 0, pane.outer_size.width, 1))[0].text  # the border
        assert "budget" in top and "…" not in top, top
