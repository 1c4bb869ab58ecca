"""A `VirtualTable`'s columns, rows and cells, and how a cell becomes one line of a row.

Cells are literal: a ``str`` is never parsed as markup, and the control characters of any
cell are made visible one for one (:func:`store.read.textsafe.one_for_one`), so a styled
``Content`` keeps its spans.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeAlias, TypeVar, overload

from textual.content import Content
from textual.message import Message
from textual.widget import Widget

from store.read.textsafe import has_controls, one_for_one


@dataclass(frozen=True)
class Column:
    """One column of a `VirtualTable`."""

    key: str
    title: str
    width: int | None = None
    """Width in terminal cells; ``None`` shares the remaining width with the other
    flexible columns (each at least ``min_width``)."""
    align: str = "left"
    """``"left"`` or ``"right"``."""
    min_width: int = 4


Cell: TypeAlias = str | Content
"""A ``str`` is shown literally (never parsed as markup); a ``Content`` keeps its styles."""

Row: TypeAlias = tuple[str, tuple[Cell, ...]]
"""``(row key, cells in column order)``. Keys are expected to be unique."""

SEPARATOR = 1
"""Cells between two columns."""


class LazyRows(Sequence[Row]):
    """Rows given as their keys and a function that makes a row's cells from its key:
    only the rows that are drawn are ever made (ten thousand sessions, forty on screen).
    Made cells are kept until the next `VirtualTable.set_rows`."""

    def __init__(self, keys: Sequence[str], cells: Callable[[str], tuple[Cell, ...]]) -> None:
        self.keys = list(keys)
        self._cells = cells
        self._made: dict[int, Row] = {}

    def __len__(self) -> int:
        return len(self.keys)

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | Sequence[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        row = self._made.get(index)
        if row is None:
            key = self.keys[index]
            row = self._made[index] = (key, self._cells(key))
        return row


def as_content(cell: Cell) -> Content:
    """A cell as one line of literal content (a ``str`` is never parsed as markup)."""
    if isinstance(cell, Content):
        plain = cell.plain
        if not has_controls(plain):
            return cell
        return Content(one_for_one(plain), list(cell.spans), strip_control_codes=False)
    return Content(one_for_one(cell), strip_control_codes=False)


def fit(content: Content, width: int, align: str) -> Content:
    """``content`` truncated (with an ellipsis) or padded to exactly ``width`` cells."""
    if width <= 0:
        return Content("")
    if content.cell_length > width:
        content = content.truncate(width, ellipsis=True)
    space = width - content.cell_length
    if space <= 0:
        return content
    return content.pad_left(space) if align == "right" else content.pad_right(space)


def column_widths(columns: Sequence[Column], available: int) -> tuple[int, ...]:
    """Each column's width when ``available`` cells are there: fixed widths as given, the
    flexible columns sharing the rest (each at least its ``min_width``)."""
    widths = [column.width or 0 for column in columns]
    flexible = [i for i, column in enumerate(columns) if column.width is None]
    if flexible:
        rest = available - sum(widths) - SEPARATOR * max(0, len(columns) - 1)
        share, extra = divmod(max(0, rest), len(flexible))
        for n, i in enumerate(flexible):
            widths[i] = max(columns[i].min_width, share + (1 if n < extra else 0))
    return tuple(max(0, width) for width in widths)


T = TypeVar("T", bound=Widget)


class RowMessage(Message, Generic[T]):
    """About one row of a table: its key and its index."""

    def __init__(self, table: T, key: str, index: int) -> None:
        super().__init__()
        self.table = table
        self.key = key
        self.index = index

    @property
    def control(self) -> T:
        return self.table
