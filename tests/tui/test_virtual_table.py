"""VirtualTable: a table that draws only the visible rows, driven through a tiny host app."""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.content import Content

from screens.widgets.virtual_table import Column, Row, VirtualTable

COLUMNS = [
    Column("id", "ID", width=6, align="right"),
    Column("title", "タイトル"),
    Column("state", "State", width=10),
]


def make_rows(count: int, prefix: str = "r") -> list[Row]:
    return [
        (
            f"{prefix}{i}",
            (str(i), f"振り返り 회고 {i} 長い長いタイトル", Content.styled("approved", "$success")),
        )
        for i in range(count)
    ]


class Host(App[None]):
    """Composes one table and records the messages it posts."""

    def __init__(self, rows: list[Row] | None = None) -> None:
        super().__init__()
        self.rows = rows
        self.highlighted: list[tuple[str, int]] = []
        self.selected: list[tuple[str, int]] = []

    def compose(self) -> ComposeResult:
        table = VirtualTable(COLUMNS, id="table")
        if self.rows is not None:
            table.set_rows(self.rows)  # before mounting
        yield table

    def on_mount(self) -> None:
        self.query_one(VirtualTable).focus()

    def on_virtual_table_highlighted(self, message: VirtualTable.Highlighted) -> None:
        assert message.control is message.table
        self.highlighted.append((message.key, message.index))

    def on_virtual_table_selected(self, message: VirtualTable.Selected) -> None:
        assert message.control is message.table
        self.selected.append((message.key, message.index))


def screen_line(table: VirtualTable) -> int:
    """The widget line the cursor row is drawn on (line 0 is the header)."""
    return table.cursor_row - round(table.scroll_y) + 1


def cursor_visible(table: VirtualTable) -> bool:
    return 1 <= screen_line(table) < table.scrollable_content_region.height


async def test_keys_move_and_scroll_through_ten_thousand_rows() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        table.set_rows(make_rows(10_000))
        await pilot.pause()
        assert len(table.rows) == 10_000 and table.cursor_row == 0
        assert table.virtual_size.height == 10_001
        for _ in range(50):
            await pilot.press("down")
        assert table.cursor_row == 50 and table.cursor_key == "r50"
        assert table.scroll_y > 0 and cursor_visible(table)
        assert "振り返り 회고 50 " in table.render_line(screen_line(table)).text
        await pilot.press("up", "k", "j")
        assert table.cursor_row == 49
        await pilot.press("end")
        assert table.cursor_row == 9_999 and table.cursor_key == "r9999"
        assert table.scroll_y == table.max_scroll_y and cursor_visible(table)
        await pilot.press("home")
        assert table.cursor_row == 0 and table.scroll_y == 0
        await pilot.press("pagedown")
        page = table.scrollable_content_region.height - 1
        assert table.cursor_row == page and cursor_visible(table)
        await pilot.press("pageup")
        assert table.cursor_row == 0 and cursor_visible(table)


async def test_header_stays_on_top_while_scrolling() -> None:
    app = Host(make_rows(1_000))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.press("end")
        await pilot.pause()
        assert table.scroll_y > 0
        assert table.render_line(0).text.split() == ["ID", "タイトル", "State"]
        assert "振り返り 회고 999 " in table.render_line(23).text


async def test_highlighted_and_selected_messages() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        table.set_rows(make_rows(100))
        await pilot.pause()
        assert app.highlighted == [("r0", 0)]
        await pilot.press("down", "down")
        assert app.highlighted[-2:] == [("r1", 1), ("r2", 2)]
        await pilot.press("enter")
        assert app.selected == [("r2", 2)]
        assert table.move_to_key("r70")
        await pilot.pause()
        assert app.highlighted[-1] == ("r70", 70) and cursor_visible(table)
        assert not table.move_to_key("missing")
        assert table.row_key_at(99) == "r99" and table.row_key_at(100) is None
        assert table.row_key_at(-1) is None


async def test_set_rows_keeps_the_cursor_row_in_place() -> None:
    app = Host(make_rows(1_000))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        for _ in range(40):
            await pilot.press("down")
        await pilot.pause()
        before_scroll, before_line = table.scroll_y, screen_line(table)
        assert before_scroll > 0
        seen = len(app.highlighted)

        table.set_rows(make_rows(7, prefix="new") + make_rows(1_000))
        await pilot.pause()
        assert table.cursor_key == "r40" and table.cursor_row == 47
        assert table.scroll_y == before_scroll + 7 and screen_line(table) == before_line
        assert "振り返り 회고 40 " in table.render_line(before_line).text
        assert len(app.highlighted) == seen  # same key: no message

        # The highlighted key disappears: the index is kept, clamped to the new length.
        table.set_rows(make_rows(10, prefix="other"))
        await pilot.pause()
        assert table.cursor_row == 9 and table.cursor_key == "other9"
        assert app.highlighted[-1] == ("other9", 9)

        table.set_rows([])
        await pilot.pause()
        assert len(table.rows) == 0 and table.cursor_row == 0 and table.cursor_key is None
        assert table.render_line(1).text.strip() == "No rows"


async def test_set_rows_from_the_top_puts_the_cursor_on_the_first_row() -> None:
    """``top``: other rows altogether (a new query's, best first): the cursor on the first
    row and the view at the top, even when the highlighted key is among the new rows."""
    app = Host(make_rows(1_000))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        table.cursor_row = 40  # scrolled down to it
        await pilot.pause()
        assert table.scroll_y > 0 and table.cursor_key == "r40"

        table.set_rows(make_rows(7, prefix="new") + make_rows(1_000), top=True)
        await pilot.pause()
        assert table.cursor_row == 0 and table.cursor_key == "new0"
        assert table.scroll_y == 0 and screen_line(table) == 1
        assert app.highlighted[-1] == ("new0", 0)


async def test_cells_are_literal() -> None:
    rows: list[Row] = [
        ("a", ("1", "[bold]x[/] [@click=app.quit]y[/]", "[red]z")),
        ("b", ("2", "esc \x1b[31mred\x1b[0m\nnext\tline", "\u202eevil")),
        ("c", ("3", Content.styled("bell\x07 esc\x1b[2J", "$error"), "\x9b2J")),
    ]
    app = Host(rows)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        first = table.render_line(1).text
        assert "[bold]x[/] [@click=app.quit]y[/]" in first and "[red]z" in first
        assert all(not segment.style or not segment.style.meta for segment in table.render_line(1))
        second = table.render_line(2).text
        assert "\x1b" not in second and "\n" not in second and "\t" not in second
        assert "\u202e" not in second and "␛[31mred␛[0m↵next line" in second
        third = table.render_line(3).text
        assert "\x1b" not in third and "\x9b" not in third and "esc␛[2J" in third
        await pilot.press("enter")  # nothing was turned into an action
        assert app.selected == [("a", 0)] and app.is_running


async def test_cjk_cells_keep_columns_aligned() -> None:
    rows: list[Row] = [
        ("ja", ("1", "日本語のとても長いタイトルがここに続いて列幅を超えてしまう" * 3, "承認済み")),
        ("ko", ("22", "한국어 제목도 아주 길어서 잘려야 합니다 " * 3, "거절됨거절됨거절됨")),
        ("emoji", ("333", "🎉 party 🎉" * 10, "✅")),
        ("short", ("4", "x", "y")),
    ]
    app = Host(rows)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        width = table.scrollable_content_region.width
        strips = [table.render_line(y) for y in range(5)]
        lines = [strip.text for strip in strips]
        for line in lines:
            assert cell_len(line) == width
        state = width - 10  # the fixed State column takes the last 10 cells
        for strip in strips:
            assert strip.crop(6, 7).text == " " and strip.crop(state - 1, state).text == " "
        assert [strip.crop(0, 6).text for strip in strips] == [
            "    ID",
            "     1",
            "    22",
            "   333",
            "     4",
        ]
        assert [strip.crop(state, width).text for strip in strips] == [
            "State     ",
            "承認済み  ",
            "거절됨거 …",  # a wide character does not fit in the last cell
            "✅        ",
            "y         ",
        ]
        assert "…" in lines[1] and "…" in lines[2]


async def test_content_styles_survive_the_cursor() -> None:
    app = Host(make_rows(5))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()

        def approved_style(y: int):  # type: ignore[no-untyped-def]
            return next(s.style for s in table.render_line(y) if "approved" in s.text)

        under_cursor, plain = approved_style(1), approved_style(2)
        assert under_cursor.color == plain.color
        assert under_cursor.bgcolor != plain.bgcolor
        app.set_focus(None)
        await pilot.pause()
        blurred = approved_style(1)
        assert blurred.color == plain.color and blurred.bgcolor != under_cursor.bgcolor


async def test_click_highlights_then_selects() -> None:
    app = Host(make_rows(100))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        await pilot.click(VirtualTable, offset=(10, 3))
        assert table.cursor_row == 2 and app.highlighted[-1] == ("r2", 2)
        assert app.selected == []
        await pilot.pause()
        painted = [app.screen.get_style_at(10, y).bgcolor for y in range(1, 5)]
        assert painted[2] != painted[0] and painted[0] == painted[1] == painted[3]
        await pilot.click(VirtualTable, offset=(10, 3))
        assert app.selected == [("r2", 2)]
        await pilot.click(VirtualTable, offset=(10, 0))  # the header does nothing
        assert table.cursor_row == 2 and app.selected == [("r2", 2)]


async def test_flexible_columns_follow_the_width() -> None:
    app = Host(make_rows(3))
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        assert table.virtual_size.width == table.scrollable_content_region.width
        await pilot.resize_terminal(100, 10)
        await pilot.pause()
        assert cell_len(table.render_line(1).text) == table.scrollable_content_region.width
        assert table.virtual_size.width == table.scrollable_content_region.width


async def test_rows_set_before_mounting() -> None:
    app = Host(make_rows(3))
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        assert table.cursor_key == "r0" and app.highlighted == [("r0", 0)]
        assert "振り返り 회고 2 " in table.render_line(3).text
        assert table.render_line(4).text.strip() == ""


def test_columns_give_way_whole_in_their_order_and_never_cut_a_date() -> None:
    from screens.widgets.table_rows import Column, column_widths, total_width

    cols = [
        Column("date", "Date", 10),
        Column("project", "Project", 14, drop=2),
        Column("kind", "Kind", 8, drop=1),
        Column("title", "Title", None, min_width=20),
    ]
    assert column_widths(cols, 80) == (10, 14, 8, 45)
    # 10 + 14 + 8 + 20 + 3 separators = 55: one cell less and the project goes first
    assert column_widths(cols, 54) == (10, 0, 8, 34)
    assert column_widths(cols, 40) == (10, 0, 8, 20)
    assert column_widths(cols, 39) == (10, 0, 0, 28)
    # the date is never cut; nothing left to give way, the title takes what is there (cut
    # with its ellipsis in sight, not at the table's edge)
    assert column_widths(cols, 30) == (10, 0, 0, 19)
    assert total_width(column_widths(cols, 30)) == 30


async def test_rows_inserted_above_never_push_the_cursor_off_screen() -> None:
    rows = [(f"k{i}", (f"row {i}",)) for i in range(50)]

    class Small(App[None]):
        def compose(self) -> ComposeResult:
            yield VirtualTable([Column("t", "T", None)], id="t")

    app = Small()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(VirtualTable)
        table.set_rows(rows)
        table.move_to_key("k7")
        await pilot.pause()
        assert table.scroll_y == 0
        table.set_rows([(f"n{i}", (f"new {i}",)) for i in range(50)] + rows)
        await pilot.pause()
        assert table.cursor_key == "k7"
        top = round(table.scroll_y)
        assert top <= table.cursor_row < top + table.size.height - 1  # still on screen
