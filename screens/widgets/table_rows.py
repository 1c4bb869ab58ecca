"""A `VirtualTable`'s columns, rows and cells. Cells are literal: a ``str`` is never parsed
as markup; control characters are made visible one for one, so a ``Content`` keeps its spans."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeAlias, TypeVar, overload

from textual.content import Content, Span
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
    drop: int = 0
    """When the table is too narrow for every column: the order in which columns give way
    (the highest first; ``0``: never — the title, a date). A dropped column is not drawn
    at all, rather than cut."""
    path: bool = False
    """The cells are paths: a long one is cut in the middle, keeping its file name
    (:func:`cut_path`), not at the end (where five paths would read the same)."""


Cell: TypeAlias = str | Content
"""A ``str`` is shown literally (never parsed as markup); a ``Content`` keeps its styles."""

Row: TypeAlias = tuple[str, tuple[Cell, ...]]
"""``(row key, cells in column order)``. Keys are expected to be unique."""

SEPARATOR = 1
"""Cells between two columns."""


class LazyRows(Sequence[Row]):
    """Rows as their keys and a function making a row's cells: only the rows drawn are made
    (ten thousand sessions, forty on screen)."""

    def __init__(
        self,
        keys: Sequence[str],
        cells: Callable[[str], tuple[Cell, ...]],
        key_index: Mapping[str, int] | None = None,
    ) -> None:
        self.keys = keys
        #: key → position when the keys bring one (a hundred thousand keys need no dict)
        self.key_index = key_index
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
        spans = cell.spans
        if any(span.end > len(plain) for span in spans):  # cut to the cell: never past it
            spans = [
                Span(span.start, min(span.end, len(plain)), span.style)
                for span in spans
                if span.start < min(span.end, len(plain))
            ]
        elif not has_controls(plain):
            return cell
        return Content(one_for_one(plain), list(spans), strip_control_codes=False)
    return Content(one_for_one(cell), strip_control_codes=False)


#: Characters kept past a cell's width before measuring a long text: marks of no width
#: (combining accents, joiners) after the cut stay with the character they follow.
HEAD_SLACK = 8


def cut_path(content: Content, width: int) -> Content:
    """A path too wide for ``width`` cut in the middle, its last part whole, and its folder
    where it fits (``knowledge_base/glo…/debugging.yaml``, ``/src/a…/kiro-impl/SKILL.md``)."""
    plain = content.plain
    if content.cell_length <= width:
        return content
    cut = max(plain.rfind("/"), plain.rfind("\\"))
    if cut <= 0:
        return content
    # its folder too where it fits: every skill's file is SKILL.md (…/kiro-impl/SKILL.md)
    up = max(plain.rfind("/", 0, cut), plain.rfind("\\", 0, cut))
    if up > 0 and content[up + 1 :].cell_length + 6 <= width:  # and four cells of the start
        cut = up
    name = content[cut + 1 :]
    room = width - name.cell_length - 2  # "…/"
    head = content[:cut] if room >= 1 else Content("")
    while head.plain and head.cell_length > room:  # by cells: a wide character takes two
        head = head[: max(0, len(head.plain) - max(1, (head.cell_length - room + 1) // 2))]
    return Content.assemble(head, "…/", name)


def fit(content: Content, width: int, align: str, *, path: bool = False) -> Content:
    """``content`` truncated (with an ellipsis) or padded to exactly ``width`` cells; a
    ``path`` is cut in the middle (:func:`cut_path`)."""
    if width <= 0:
        return Content("")
    if path and len(content.plain) > width:
        content = cut_path(content, width)
    head_size = width + 1 + HEAD_SLACK
    if len(content.plain) > head_size:
        # a long text (a title and its snippet) already too wide at its head is cut there:
        # the same cut, and the rest is never measured
        head = content[:head_size]
        if head.cell_length > width:
            content = head
    if content.cell_length > width:
        content = content.truncate(width, ellipsis=True)
    space = width - content.cell_length
    if space <= 0:
        return content
    return content.pad_left(space) if align == "right" else content.pad_right(space)


def total_width(widths: Sequence[int]) -> int:
    """The cells a row of these column widths takes (dropped columns take none)."""
    shown = [w for w in widths if w]
    return sum(shown) + SEPARATOR * max(0, len(shown) - 1)


def column_widths(columns: Sequence[Column], available: int) -> tuple[int, ...]:
    """Each column's width in ``available`` cells: fixed ones as given, flexible ones sharing
    the rest; when too narrow, columns give way whole in their ``drop`` order (width 0)."""
    kept = list(range(len(columns)))

    def needed() -> int:
        return sum(columns[i].width or columns[i].min_width for i in kept) + SEPARATOR * max(
            0, len(kept) - 1
        )

    while needed() > available:
        droppable = [i for i in kept if columns[i].drop > 0]
        if not droppable:
            break
        kept.remove(max(droppable, key=lambda i: (columns[i].drop, i)))
    widths = [0] * len(columns)
    for i in kept:
        widths[i] = columns[i].width or 0
    flexible = [i for i in kept if columns[i].width is None]
    if flexible:
        rest = available - sum(widths) - SEPARATOR * max(0, len(kept) - 1)
        share, extra = divmod(max(0, rest), len(flexible))
        # nothing left to drop and still too narrow: the flexible columns take what is
        # there (a title wider than the table would be cut at the table's edge, unseen)
        squeezed = needed() > available
        for n, i in enumerate(flexible):
            low = 1 if squeezed else columns[i].min_width
            widths[i] = max(low, share + (1 if n < extra else 0))
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
