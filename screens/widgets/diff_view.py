"""A unified diff to read before anything is written: focusable, coloured, long lines wrapped
under their ``+``/``-`` marker. Line kinds follow the hunk counts (a removed ``--`` line is no
header); the text is agent-written, shown literally."""

from __future__ import annotations

import re
from typing import ClassVar, Literal, NamedTuple, get_args

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from store.read.textsafe import printable

Kind = Literal["file", "hunk", "added", "removed", "context", "note"]

_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_LOOKS_LIKE_DIFF = re.compile(r"^(@@ -\d|--- \S|\+\+\+ \S)", re.MULTILINE)
_FILE_HEADS = ("--- ", "+++ ", "diff ", "index ", "new file", "deleted file", "rename ")
_MARKERS: dict[str, Kind] = {"+": "added", "-": "removed", " ": "context"}
#: A tab's width in the pane.
TAB = 4


class DiffLine(NamedTuple):
    """One line of the diff: its kind, its marker (one character or empty) and its text."""

    kind: Kind
    marker: str
    body: str


class Row(NamedTuple):
    """One screen line: a diff line's marker column (blank for headers) and a part of it."""

    kind: Kind
    gutter: str
    text: str


def parse_diff(text: str) -> list[DiffLine]:
    """The lines of a unified diff, each with its kind. Lines inside a hunk are counted
    against the hunk header, so the hunk ends exactly where its header says."""
    out: list[DiffLine] = []
    old = new = 0
    loose = False  # inside a hunk whose header gave no counts: go by the first character
    raw_lines = text.split("\n")
    if raw_lines and raw_lines[-1] == "":
        raw_lines.pop()
    for raw in raw_lines:
        first = raw[:1]
        if old > 0 or new > 0 or loose:
            if loose and raw.startswith(("@@", "--- ", "diff ")):
                loose = False
            elif first in _MARKERS or raw == "":
                kind = _MARKERS.get(first, "context")
                out.append(DiffLine(kind, first or " ", raw[1:]))
                old -= kind != "added"
                new -= kind != "removed"
                continue
            elif first == "\\":  # "\ No newline at end of file"
                out.append(DiffLine("note", "", raw))
                continue
            else:
                old = new = 0
                loose = False
        if raw.startswith("@@"):
            m = _HUNK.match(raw)
            if m:
                old = int(m.group(1) or 1)
                new = int(m.group(2) or 1)
            else:
                loose = True
            out.append(DiffLine("hunk", "", raw))
        elif raw.startswith(_FILE_HEADS):
            out.append(DiffLine("file", "", raw))
        else:
            out.append(DiffLine("note", "", raw))
    return out


def looks_like_diff(text: str) -> bool:
    """Whether ``text`` holds a unified diff (a file header or a hunk header)."""
    return _LOOKS_LIKE_DIFF.search(text) is not None


def fold(text: str, width: int) -> list[str]:
    """``text`` cut into pieces of at most ``width`` cells (wide characters count two),
    breaking after a space when there is one in the second half of the piece."""
    width = max(1, width)
    if cell_len(text) <= width:
        return [text]
    out: list[str] = []
    cur: list[str] = []
    used = 0
    for ch in text:
        size = get_character_cell_size(ch)
        if used + size > width and cur:
            cut = len(cur)
            space = "".join(cur).rfind(" ")
            if space >= len(cur) // 2:
                cut = space + 1
            out.append("".join(cur[:cut]))
            cur = cur[cut:]
            used = cell_len("".join(cur))
        cur.append(ch)
        used += size
    out.append("".join(cur))
    return out


class DiffView(ScrollView, can_focus=True):
    """A read-only unified diff; ``load_text`` replaces it and scrolls back to the top."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "scroll_up", "Up", show=False, id="diff_view.up"),
        Binding("down,j", "scroll_down", "Down", show=False, id="diff_view.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="diff_view.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="diff_view.page_down"),
        Binding("home", "scroll_home", "Top", show=False, id="diff_view.top"),
        Binding("end", "scroll_end", "Bottom", show=False, id="diff_view.bottom"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"diff-view--{kind}" for kind in get_args(Kind)}

    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
        background: $surface;
        border: round $border-blurred;
        &:focus { border: round $border; }
        & > .diff-view--added { color: $text-success; background: $success 15%; }
        & > .diff-view--removed { color: $text-error; background: $error 15%; }
        & > .diff-view--context { color: $foreground; }
        & > .diff-view--hunk { color: $text-accent; text-style: bold; }
        & > .diff-view--file { color: $foreground; text-style: bold; }
        & > .diff-view--note { color: $text-muted; }
    }
    """

    def __init__(
        self,
        text: str = "",
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._text = ""
        self._lines: list[DiffLine] = []
        self._rows: list[Row] = []
        self._rows_width = -1
        self.load_text(text)

    @property
    def text(self) -> str:
        """The diff as shown (control characters made visible)."""
        return self._text

    @property
    def lines(self) -> list[DiffLine]:
        """The diff's lines with their kinds."""
        return list(self._lines)

    @property
    def rows(self) -> list[Row]:
        """The screen lines for the current width (long lines wrapped)."""
        return list(self._rows)

    def load_text(self, text: str) -> None:
        """Show another diff from its first line; the same diff again stays where it is
        scrolled (a dialog planning again must not throw the reader back to the top)."""
        if self.is_mounted and printable(text) == self._text and self._lines:
            return
        self._text = printable(text)
        self._lines = parse_diff(self._text)
        self._rows_width = -1
        if self.is_mounted:
            self._rewrap()
            self.scroll_to(0, 0, animate=False, immediate=True)
            self.refresh()

    # -- layout -----------------------------------------------------------------------------

    def _rewrap(self) -> None:
        width = self.scrollable_content_region.width
        if width == self._rows_width:
            return
        self._rows_width = width
        rows: list[Row] = []
        room = max(1, width - 1)
        for line in self._lines:
            gutter = line.marker or " "
            for piece in fold(line.body.expandtabs(TAB), room):
                rows.append(Row(line.kind, gutter, piece))
        self._rows = rows
        size = Size(width, len(rows))
        if size != self.virtual_size:
            self.virtual_size = size  # (its layout puts the scroll bars in step)

    def on_mount(self) -> None:
        self._rewrap()

    def _on_resize(self, event: events.Resize) -> None:
        self._rewrap()

    def render_lines(self, crop: Region) -> list[Strip]:
        if self.scrollable_content_region.width != self._rows_width:
            self.call_after_refresh(self._rewrap)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = round(self.scroll_y) + y
        if index >= len(self._rows):
            return Strip.blank(width, self.visual_style.rich_style)
        row = self._rows[index]
        style = self.get_visual_style(f"diff-view--{row.kind}").rich_style
        segments = [Segment(row.gutter, style), Segment(row.text, style)]
        return Strip(segments).adjust_cell_length(width, style)
