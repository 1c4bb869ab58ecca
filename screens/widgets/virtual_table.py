"""A table that draws only the rows on screen (Textual's Line API), for lists of tens of
thousands of rows: ``DataTable`` measures every cell when rows are added. Line 0 is the
header; line ``y > 0`` shows row ``scroll_y + y - 1``. Cells are literal (:mod:`.table_rows`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar, NamedTuple

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style

from .row_painter import RowPainter
from .table_rows import Cell, Column, LazyRows, Row, RowMessage, column_widths, total_width

__all__ = ["Cell", "Column", "LazyRows", "Row", "VirtualTable"]


class _Frame(NamedTuple):
    """What the lines of one frame share."""

    width: int
    widths: tuple[int, ...]
    top: int
    cursor: int
    style: Style
    cursor_style: Style


class VirtualTable(ScrollView, can_focus=True):
    """A table of rows keyed by strings, rendering only the visible lines."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="virtual_table.cursor_up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="virtual_table.cursor_down"),
        Binding("pageup", "page_up", "Page up", show=False, id="virtual_table.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="virtual_table.page_down"),
        Binding("home", "first", "First", show=False, id="virtual_table.first"),
        Binding("end", "last", "Last", show=False, id="virtual_table.last"),
        Binding("enter", "select", "Select", show=False, id="virtual_table.select"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-table--header",
        "virtual-table--cursor",
        "virtual-table--empty",
    }

    DEFAULT_CSS = """
    VirtualTable {
        width: 1fr;
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
        background: $surface;
        color: $foreground;

        & > .virtual-table--header {
            text-style: bold;
            color: $foreground-muted;
            background: $panel;
        }
        & > .virtual-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .virtual-table--empty {
            color: $text-muted;
            text-style: italic;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .virtual-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    cursor_row: reactive[int] = reactive(0, repaint=False, init=False)
    """Index of the highlighted row (0 when the table is empty)."""

    class Highlighted(RowMessage["VirtualTable"]):
        """The highlighted row changed (keys, mouse, `set_rows`, `move_to_key`)."""

    class Selected(RowMessage["VirtualTable"]):
        """A row was chosen: Enter, or a click on the highlighted row."""

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._columns: tuple[Column, ...] = tuple(columns)
        self._rows: Sequence[Row] = []
        self._index: Mapping[str, int] = {}
        self._highlighted_key: str | None = None
        self._follow_cursor = True
        self._widths: tuple[int, ...] = ()
        self._widths_for = -1
        #: rows and cells drawn, kept when the rows are replaced
        self._painter = RowPainter(self._columns)
        self._frame: _Frame | None = None
        self._painted: Sequence[Row] | None = None

    # -- data ---------------------------------------------------------------------------

    @property
    def rows(self) -> Sequence[Row]:
        """The rows as last set, in display order (``(key, cells)``)."""
        return self._rows

    @property
    def drawn(self) -> bool:
        """Whether a frame has painted the rows as last set."""
        return self._painted is self._rows

    @property
    def cursor_key(self) -> str | None:
        """Key of the highlighted row, or ``None`` when the table is empty."""
        return self.row_key_at(self.cursor_row)

    def row_key_at(self, index: int) -> str | None:
        """Key of the row at ``index``, or ``None`` if there is no such row."""
        if 0 <= index < len(self._rows):
            rows = self._rows
            return rows.keys[index] if isinstance(rows, LazyRows) else rows[index][0]
        return None

    def set_rows(self, rows: Sequence[Row], *, top: bool = False) -> None:
        """Replace all rows. The cursor stays on its row key (the view moving with it), else
        on its index; with ``top``, on the first row. `Highlighted` only for a new key."""
        old_key = None if top else self.cursor_key
        old_index = self.cursor_row
        self._rows = rows if isinstance(rows, LazyRows) else list(rows)
        keys = rows.keys if isinstance(rows, LazyRows) else [row[0] for row in self._rows]
        index = rows.key_index if isinstance(rows, LazyRows) else None
        self._index = index if index is not None else {key: pos for pos, key in enumerate(keys)}
        self._update_virtual_size()

        new_index = self._index.get(old_key) if old_key is not None else None
        self._follow_cursor = False
        try:
            if top:
                if self.scroll_y and self.is_mounted:
                    self.scroll_to(y=0, animate=False, force=True)
                self.cursor_row = 0
            elif new_index is not None:
                shift = new_index - old_index
                # at the top, rows inserted above stay in sight (the cursor keeps its row)
                # while the cursor's row is still on screen; else the view moves with it
                at_top = self.scroll_y == 0 and shift > 0 and new_index < self._page_rows
                if shift and self.is_mounted and not at_top:
                    self.scroll_to(y=self.scroll_y + shift, animate=False, force=True)
                self.cursor_row = new_index
            else:
                # Re-validate: the old index may be past the new end.
                self.cursor_row = old_index
        finally:
            self._follow_cursor = True
        self._announce_highlight()
        # the rows' area only: the scroll bar redraws itself when what it shows changes
        # (the rows' number, the scroll), not at every new set of as many rows
        self.refresh(Region(0, 0, *self.scrollable_content_region.size))

    def move_to_key(self, key: str) -> bool:
        """Highlight the row with ``key`` and scroll it into view; ``False`` if absent."""
        index = self._index.get(key)
        if index is None:
            return False
        self.cursor_row = index
        self.scroll_to_cursor()
        return True

    # -- cursor ---------------------------------------------------------------------------

    def validate_cursor_row(self, value: int) -> int:
        return max(0, min(value, len(self._rows) - 1))

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._refresh_row(old)
        self._refresh_row(new)
        if self._follow_cursor:
            self.scroll_to_cursor()
        self._announce_highlight()

    def _announce_highlight(self) -> None:
        key = self.cursor_key
        if key == self._highlighted_key:
            return
        self._highlighted_key = key
        if key is not None:
            self.post_message(self.Highlighted(self, key, self.cursor_row))

    @property
    def _page_rows(self) -> int:
        """How many rows fit under the header."""
        return max(1, self.scrollable_content_region.height - 1)

    def scroll_to_cursor(self) -> None:
        """Scroll as little as needed to show the highlighted row."""
        height = self.scrollable_content_region.height - 1
        if height < 1 or not self._rows or not self.is_mounted:
            return
        row = self.cursor_row
        top = round(self.scroll_y)
        if row < top:
            target = row
        elif row >= top + height:
            target = row - height + 1
        else:
            return
        self.scroll_to(y=target, animate=False, force=True)

    def action_cursor_up(self) -> None:
        self.cursor_row -= 1

    def action_cursor_down(self) -> None:
        self.cursor_row += 1

    def action_page_up(self) -> None:
        self._move_page(-self._page_rows)

    def action_page_down(self) -> None:
        self._move_page(self._page_rows)

    def _move_page(self, delta: int) -> None:
        """Move the cursor a page, keeping it on the same screen line where possible."""
        if not self._rows:
            return
        target = self.validate_cursor_row(self.cursor_row + delta)
        self.scroll_to(y=self.scroll_y + (target - self.cursor_row), animate=False, force=True)
        self.cursor_row = target
        self.scroll_to_cursor()

    def action_first(self) -> None:
        self.cursor_row = 0
        self.scroll_to_cursor()

    def action_last(self) -> None:
        self.cursor_row = len(self._rows) - 1
        self.scroll_to_cursor()

    def action_select(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.Selected(self, key, self.cursor_row))

    async def _on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        index = round(self.scroll_y) + offset.y - 1
        if not 0 <= index < len(self._rows):
            return
        event.stop()
        if index == self.cursor_row:
            self.action_select()
        else:
            self.cursor_row = index

    # -- layout ---------------------------------------------------------------------------

    def _column_widths(self) -> tuple[int, ...]:
        """Widths of the columns for the current content width (cached per width)."""
        available = self.scrollable_content_region.width
        if available != self._widths_for:
            self._widths_for = available
            self._widths = column_widths(self._columns, available)
        return self._widths

    def _update_virtual_size(self) -> None:
        width = total_width(self._column_widths())
        size = Size(width, len(self._rows) + 1)
        if size != self.virtual_size:
            self.virtual_size = size
            self._fit_scrollbars(size)

    def _fit_scrollbars(self, size: Size) -> None:
        """The scroll bars in step with ``size`` now: a table whose size the CSS fixes (the
        search screen's) skips the layout that would do it."""
        width, height = self.container_size
        if self.show_vertical_scrollbar:
            bar = self.vertical_scrollbar
            bar.window_virtual_size = size.height
            bar.window_size = height - self.scrollbar_size_horizontal
        if self.show_horizontal_scrollbar:
            bar = self.horizontal_scrollbar
            bar.window_virtual_size = size.width
            bar.window_size = width - self.scrollbar_size_vertical
        self.scroll_x = self.validate_scroll_x(self.scroll_x)
        self.scroll_y = self.validate_scroll_y(self.scroll_y)

    def _on_resize(self, event: events.Resize) -> None:
        self._update_virtual_size()

    def notify_style_update(self) -> None:
        self._painter.clear()  # a theme's variables ($success, …) may mean other colours
        super().notify_style_update()

    def _refresh_row(self, index: int) -> None:
        """Repaint the line of row ``index`` (virtual line ``index + 1``)."""
        self.refresh_line(index + 1)

    # -- rendering --------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        # what every line of the frame shares is looked up once, not once a line
        frame = self._frame = self._frame_state()
        try:
            if total_width(frame.widths) != self.virtual_size.width:
                self.call_after_refresh(self._update_virtual_size)
            return super().render_lines(crop)
        finally:
            self._frame = None
            self._painted = self._rows

    def _frame_state(self) -> _Frame:
        if self._frame is not None:
            return self._frame
        return _Frame(
            self.scrollable_content_region.width,
            self._column_widths(),
            round(self.scroll_y),
            self.cursor_row,
            self.visual_style,
            self.get_visual_style("virtual-table--cursor"),
        )

    def render_line(self, y: int) -> Strip:
        frame = self._frame_state()
        width = frame.width
        if y == 0:
            titles = tuple(column.title for column in self._columns)
            header = self.get_visual_style("virtual-table--header")
            return self._painter.row(titles, header, width, frame.widths)
        index = frame.top + y - 1
        if not self._rows:
            if y == 1:
                style = self.get_visual_style("virtual-table--empty")
                return self._painter.line(Content("No rows"), style, width)
            return Strip.blank(width, frame.style.rich_style)
        if index >= len(self._rows):
            return Strip.blank(width, frame.style.rich_style)
        style = frame.cursor_style if index == frame.cursor else frame.style
        return self._painter.row(self._rows[index][1], style, width, frame.widths)
