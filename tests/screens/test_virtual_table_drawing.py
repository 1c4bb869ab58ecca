"""The table draws a row's cells once for what they show: a new list of rows (the next
key's search results) reuses what was drawn, and never shows a row as it was drawn for
other spans, styles or widths."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.content import Content, Span

from screens.widgets.table_rows import Column
from screens.widgets.virtual_table import VirtualTable

COLUMNS = [Column("title", "Title", None), Column("state", "State", 9)]


class TableHost(App[None]):
    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS)


def _title(spans: list[Span]) -> Content:
    return Content("rate limit on the API", spans)


async def test_rows_drawn_before_are_reused_and_changed_spans_drawn_again() -> None:
    app = TableHost()
    async with app.run_test(size=(60, 8)) as pilot:
        table = app.query_one(VirtualTable)
        bold = [Span(0, 4, "bold")]
        table.set_rows([("a", (_title(bold), "pending")), ("b", ("other", "approved"))])
        await pilot.pause()
        first = [table.render_line(y) for y in (1, 2)]
        # the same cells in a new list, at other places: the lines drawn before
        table.set_rows([("c", ("third", "")), ("b", ("other", "approved")), ("a2", ("x", ""))])
        table.cursor_row = 0
        await pilot.pause()
        assert table.render_line(2) is first[1]  # "other"/"approved", not the cursor's row
        # the same text with other spans: drawn anew, with the new span's style
        table.set_rows([("z", ("x", "")), ("a", (_title([Span(5, 10, "italic")]), "pending"))])
        await pilot.pause()
        line = table.render_line(2)
        assert line is not first[0]
        assert line.text == first[0].text
        italic = "".join(seg.text for seg in line if seg.style is not None and seg.style.italic)
        bold = "".join(seg.text for seg in line if seg.style is not None and seg.style.bold)
        assert italic == "limit" and bold == ""
        # a narrower table: the row is fitted again, not the wider line reused
        await pilot.resize_terminal(40, 8)
        await pilot.pause()
        narrow = table.render_line(2)
        assert narrow.cell_length == table.scrollable_content_region.width < line.cell_length


async def test_a_span_past_its_cells_text_is_cut_to_the_cell() -> None:
    """A caller's span that runs past its text styles that text only: not the space after
    it, not the next cell, and drawing never fails."""
    app = TableHost()
    async with app.run_test(size=(60, 8)) as pilot:
        table = app.query_one(VirtualTable)
        past = Content("abc", [Span(1, 40, "bold")])
        beyond = Content("xyz", [Span(10, 20, "bold")])  # wholly past the text
        rows = [("a", (past, "pending")), ("b", (beyond, "")), ("c", ("x", past))]
        table.set_rows([("cursor", ("", "")), *rows])  # the cursor's row is drawn bold
        await pilot.pause()
        for y in (2, 3, 4):
            line = table.render_line(y)
            bold = "".join(s.text for s in line if s.style is not None and s.style.bold)
            assert bold == ("" if y == 3 else "bc"), (y, bold)


async def test_neighbours_of_one_style_are_one_segment() -> None:
    """A line is written out a segment at a time, each with its style: plain cells, the
    space between them and the padding after them are one segment, not five."""
    app = TableHost()
    async with app.run_test(size=(60, 8)) as pilot:
        table = app.query_one(VirtualTable)
        table.set_rows([("a", ("plain title", "plain")), ("b", (_title([Span(0, 4, "bold")]), ""))])
        table.cursor_row = 0
        await pilot.pause()
        plain = table.render_line(1)  # the cursor's row: one style all along
        assert plain.text.startswith("plain title") and len(list(plain)) == 1
        styles = [seg.style for seg in plain]
        assert len(styles) == len(set(styles))
        marked = table.render_line(2)  # the bold word, then the rest in the row's style
        assert [seg.text for seg in marked][:1] == ["rate"] and len(list(marked)) == 2
