"""How a table's rows become lines: each cell fitted to its column and drawn once for what it
shows (kept by text, width, alignment and style: a refreshed list draws few cells anew)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from rich.segment import Segment
from textual.cache import LRUCache
from textual.content import Content
from textual.strip import Strip
from textual.style import Style

from .table_rows import SEPARATOR, Cell, Column, as_content, fit


def _shown(cell: Cell) -> object:
    """What a cell shows, as a key: its text, and a ``Content``'s spans (a ``Content``
    compares by its text alone)."""
    return cell if isinstance(cell, str) else (cell.plain, tuple(cell.spans))


class RowPainter:
    """The lines of a table of ``columns``: :meth:`row` for a row, :meth:`line` for one
    line of content."""

    def __init__(self, columns: Sequence[Column]) -> None:
        self.columns = tuple(columns)
        self._cells: LRUCache[tuple[object, int, str, Style, bool], tuple[Segment, ...]] = LRUCache(
            4096
        )
        self._rows: LRUCache[tuple[tuple[object, ...], Style, int], Strip] = LRUCache(1024)

    def clear(self) -> None:
        """Forget what was drawn (the styles changed)."""
        self._cells.clear()
        self._rows.clear()

    def row(
        self, cells: Sequence[Cell], style: Style, width: int, widths: tuple[int, ...]
    ) -> Strip:
        """One row's line: each cell fitted to its column's width in ``widths`` (0: left
        out), drawn once for the same cells, style and width."""
        shown = tuple(map(_shown, cells))
        row_key = (shown, style, width)
        try:
            strip = self._rows.get(row_key)
        except TypeError:  # a span's style that cannot be hashed: drawn every time
            strip = None
        if strip is not None:
            return strip
        base = style.rich_style
        segments: list[Segment] = []
        length = 0
        for position, (column, cell_width) in enumerate(zip(self.columns, widths, strict=True)):
            if not cell_width:  # a column that gave way (see Column.drop)
                continue
            if length:
                segments.append(Segment(" " * SEPARATOR, base))
                length += SEPARATOR
            if position < len(cells):
                cell, key = cells[position], shown[position]
            else:
                cell = key = ""
            segments += self._cell(cell, key, cell_width, column.align, style, path=column.path)
            length += cell_width
        if length < width:  # padded here: one strip made, not a second one to pad it
            segments.append(Segment(" " * (width - length), base))
            length = width
        # neighbours of one style joined (a plain cell, the space after it, the padding):
        # every segment is written out with its style, for each frame the line is in
        segments = list(Segment.simplify(segments))
        strip = Strip(segments, length).adjust_cell_length(width, base)
        with contextlib.suppress(TypeError):
            self._rows[row_key] = strip
        return strip

    def _cell(
        self, cell: Cell, shown: object, width: int, align: str, style: Style, *, path: bool
    ) -> tuple[Segment, ...]:
        """One cell fitted to ``width`` on ``style``, drawn once for what it shows (``shown``)."""
        key = (shown, width, align, style, path)
        try:
            drawn = self._cells.get(key)
            keep = True
        except TypeError:  # a span's style that cannot be hashed: drawn every time
            drawn, keep = None, False
        if drawn is None:
            drawn = tuple(self.segments(fit(as_content(cell), width, align, path=path), style))
            if keep:
                self._cells[key] = drawn
        return drawn

    def line(self, content: Content, style: Style, width: int) -> Strip:
        """Render one line of content on ``style``, cropped or padded to ``width``."""
        segments = self.segments(content, style)
        return Strip(segments, content.cell_length).adjust_cell_length(width, style.rich_style)

    def segments(self, content: Content, style: Style) -> list[Segment]:
        """``content`` on one line, drawn on ``style``."""
        return [
            Segment(text, (style + text_style).rich_style)
            for text, text_style in content.render(style, end="")
        ]
