"""A session's transcript as numbered turns: search inside it, jump to a turn, see the
turns a KPT item cites. Read in a worker a batch at a time; a search reads the file again
(:func:`store.read.transcript.scan_for`) so it finds text past a row's preview."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from store.index.transcript_locator import TranscriptLocator
from store.read.counted import counted
from store.read.transcript import Transcript, TranscriptReader, full_text, scan_for
from store.workspace import Workspace

from .cjk_wrap import WrappedText
from .literal import literal
from .table_rows import Cell, LazyRows
from .transcript_cells import COLUMNS, holds, row_cells, row_detail, status_line
from .transcript_rows import ROW_TEXT_CAP, KeyIndex, PositionalKeys, TranscriptRow, TranscriptRows
from .virtual_table import VirtualTable

#: Lines read before the first rows are shown, then per later batch.
FIRST_BATCH_LINES = 200
BATCH_LINES = 5_000
BATCH_LINES_MAX = 80_000
#: Lines read between two hand-overs of blocks to the rows (bounds what is held twice).
STEP_LINES = 4_000


class TranscriptView(Vertical, can_focus=False):
    """The transcript of one session, read lazily. Mount it with the workspace and the
    session id (or a transcript's path); call :meth:`set_cited` with an item's turns."""

    DEFAULT_CSS = """
    TranscriptView {
        height: 1fr;
        #transcript-status {
            height: 1; padding: 0 1; color: $text-muted;
            text-wrap: nowrap; text-overflow: ellipsis;
        }
        #transcript-find, #transcript-goto { display: none; height: 3; }
        #transcript-find.-shown, #transcript-goto.-shown { display: block; }
        #transcript-rows { height: 2fr; }
        #transcript-detail-scroll { height: 1fr; padding: 0 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "find", "Find", id="transcript.find"),
        Binding("escape", "close_input", "Close", id="transcript.close_input", show=False),
        Binding("g", "go_to_turn", "Go to turn", id="transcript.go_to_turn"),
        Binding("c", "next_cited", "Cited turn", id="transcript.next_cited"),
        Binding("right_square_bracket", "next_match", "Next match", id="transcript.next_match"),
        Binding(
            "left_square_bracket",
            "previous_match",
            "Previous match",
            id="transcript.previous_match",
            show=False,
        ),
    ]

    def __init__(
        self,
        ws: Workspace,
        session_id: str | None,
        *,
        path: Path | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.ws = ws
        self.session_id = session_id
        self.path = path
        self.rows = TranscriptRows()
        self.turn_count = 0
        self.done = False
        self.problems = 0
        self.cited: set[int] = set()
        self.matches: list[int] = []
        #: a search is running
        self.searching = False
        self._query = ""
        self._pending_turn: int | None = None

    def compose(self) -> ComposeResult:
        yield Static(
            Content.styled("Looking for the transcript…", "$text-muted"), id="transcript-status"
        )
        yield Input(
            placeholder="find in the transcript (Enter: next, Esc: close)", id="transcript-find"
        )
        yield Input(placeholder="go to turn N (Enter)", id="transcript-goto", type="integer")
        yield VirtualTable(COLUMNS, id="transcript-rows", classes="list")
        with VerticalScroll(id="transcript-detail-scroll", classes="pane"):
            yield WrappedText(id="transcript-detail")

    def on_mount(self) -> None:
        self.load()

    @property
    def table(self) -> VirtualTable:
        return self.query_one("#transcript-rows", VirtualTable)

    # -- reading -------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="transcript-read")
    def load(self) -> None:
        """Find the transcript and read it, showing the rows after each batch (batches
        grow, so a long transcript costs few redraws). The reader streams: each row is
        kept as a few numbers and a preview (:class:`TranscriptRows`), its block forgotten."""
        path = self.path
        if path is None:
            locator = TranscriptLocator(self.ws)
            path = locator.find(self.session_id)
        if path is None:
            self.app.call_from_thread(self._no_transcript)
            return
        self.path = path
        rows = turns = 0
        with TranscriptReader(
            path, self.session_id, keep_turns=False, text_cap=ROW_TEXT_CAP
        ) as reader:
            batch = FIRST_BATCH_LINES
            while True:
                new = TranscriptRows(rows, turns)
                left, done = batch, False
                while left > 0 and not done:  # blocks become rows every few thousand lines
                    done = reader.read(min(left, STEP_LINES))
                    left -= STEP_LINES
                    for turn, block in reader.take_blocks():
                        new.add(turn, block)
                rows, turns = rows + len(new), turns + len(new.starts)
                self.app.call_from_thread(self._show, reader.transcript, new, done)
                if done:
                    return
                batch = min(BATCH_LINES_MAX, max(BATCH_LINES, batch * 2))

    def _no_transcript(self) -> None:
        self.done = True
        who = f"session {self.session_id}" if self.session_id else "this session (no session id)"
        text = f"No transcript of {who} in the transcripts location."
        self.query_one("#transcript-status", Static).update(
            literal(text, "$text-muted", keep_newlines=False)
        )
        self.table.set_rows([])

    def _show(self, t: Transcript, new: TranscriptRows, done: bool) -> None:
        self.rows.merge(new)
        self.turn_count = len(self.rows.starts)
        self.done = done
        self.problems = t.skipped  # lines, not warnings (one warning per unknown type)
        self._set_rows()
        self._status()
        if self._pending_turn is not None and self.jump_to_turn(self._pending_turn):
            self._pending_turn = None

    def row(self, index: int) -> TranscriptRow | None:
        """The row at ``index`` (``None``: no such row)."""
        return self.rows.row(index) if 0 <= index < len(self.rows) else None

    def first_row(self, number: int) -> int | None:
        """The index of turn ``number``'s first row (``None``: no such turn, yet)."""
        if 1 <= number <= len(self.rows.starts):
            return self.rows.starts[number - 1]
        return None

    def _set_rows(self) -> None:
        count = len(self.rows)
        self.table.set_rows(LazyRows(PositionalKeys(count), self._cells, KeyIndex(count)))

    def _cells(self, key: str) -> tuple[Cell, ...]:
        return row_cells(self.rows.row(int(key)), self.cited)

    def _status(self) -> None:
        found = counted(len(self.matches), "match", "matches") if self._query else ""
        self.query_one("#transcript-status", Static).update(
            status_line(
                turns=self.turn_count,
                done=self.done,
                problems=self.problems,
                cited=self.cited,
                found="searching…" if self.searching else found,
                where=self.ws.display(self.path) if self.path else "",
            )
        )

    # -- the highlighted row ---------------------------------------------------------------

    @on(VirtualTable.Highlighted, "#transcript-rows")
    def _highlighted(self, event: VirtualTable.Highlighted) -> None:
        event.stop()
        if event.key.isdigit() and int(event.key) < len(self.rows):
            self._detail(self.rows.row(int(event.key)))

    def _detail(self, row: TranscriptRow) -> None:
        if row.block.truncated:
            self._load_full(row)
        self.query_one("#transcript-detail", Static).update(row_detail(row))

    @work(exclusive=True, group="transcript-detail")
    async def _load_full(self, row: TranscriptRow) -> None:
        if self.path is None:
            return
        text = await asyncio.to_thread(full_text, self.path, row.block)
        if self.table.cursor_key == row.key:
            self.query_one("#transcript-detail", Static).update(row_detail(row, text))

    # -- turns -----------------------------------------------------------------------------

    def jump_to_turn(self, number: int) -> bool:
        """Highlight turn ``number``'s first row; ``False`` when there is no such turn
        (yet: while the file is being read, the jump happens once the turn is there)."""
        index = self.first_row(number)
        if index is None:
            if not self.done:
                self._pending_turn = number
            return False
        self.table.cursor_row = index
        self.table.scroll_to_cursor()
        return True

    def set_cited(self, turns: Iterable[int]) -> None:
        """Mark the turns an item cites (empty: none)."""
        cited = set(turns)
        if cited == self.cited:
            return
        self.cited = cited
        self._set_rows()
        self._status()

    def current_turn(self) -> int | None:
        row = self.row(self.table.cursor_row)
        return row.turn.number if row is not None and row.turn is not None else None

    def jump_to_cited(self) -> bool:
        """The next cited turn after the cursor's (the first again after the last)."""
        present = sorted(n for n in self.cited if self.first_row(n) is not None)
        if not present:
            return False
        now = self.current_turn() or 0
        later = [n for n in present if n > now]
        return self.jump_to_turn((later or present)[0])

    def action_next_cited(self) -> None:
        if not self.cited:
            self.notify("The item cites no turn.", timeout=2)
        elif not self.jump_to_cited():
            last = max(self.cited)
            self.notify(
                f"Turn {last} is not in this transcript ({counted(self.turn_count, 'turn')}).",
                severity="warning",
                timeout=3,
            )

    def action_go_to_turn(self) -> None:
        box = self.query_one("#transcript-goto", Input)
        box.add_class("-shown")
        box.value = ""
        box.focus()

    @on(Input.Submitted, "#transcript-goto")
    def _goto_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._close(event.input)
        try:
            number = int(event.value.strip())
        except ValueError:
            return
        if not self.jump_to_turn(number) and self.done:
            self.notify(
                f"There is no turn {number} ({counted(self.turn_count, 'turn')}).", timeout=3
            )

    # -- search ----------------------------------------------------------------------------

    def action_find(self) -> None:
        box = self.query_one("#transcript-find", Input)
        box.add_class("-shown")
        box.focus()

    def find(self, text: str) -> None:
        """Look for ``text`` (any case) in every row, the whole file read in a worker (a
        row keeps only a preview); the cursor goes to the first match after it."""
        self._query = needle = text.casefold().strip()
        self.matches = []
        self.searching = bool(needle)
        self._status()
        if needle:
            self._search(needle)

    @work(thread=True, exclusive=True, group="transcript-find")
    def _search(self, needle: str) -> None:
        worker = get_current_worker()
        count = len(self.rows)  # rows only ever grow: these are there throughout
        path = self.path
        found = scan_for(path, needle, lambda: worker.is_cancelled) if path else {}
        matches = [i for i in range(count) if holds(self.rows.row(i), needle, found)]
        if not worker.is_cancelled:
            self.app.call_from_thread(self._found, needle, matches)

    def _found(self, needle: str, matches: list[int]) -> None:
        if needle != self._query:
            return
        self.matches = matches
        self.searching = False
        self._status()
        if matches:
            self._to_match(+1, inclusive=True)
        else:
            self.notify("Not found in the transcript.", timeout=2)

    def _to_match(self, step: int, *, inclusive: bool = False) -> None:
        if not self.matches:
            return
        now = self.table.cursor_row
        if step > 0:
            after = [i for i in self.matches if i > now or (inclusive and i == now)]
            target = after[0] if after else self.matches[0]
        else:
            before = [i for i in self.matches if i < now]
            target = before[-1] if before else self.matches[-1]
        self.table.cursor_row = target
        self.table.scroll_to_cursor()

    def action_next_match(self) -> None:
        self._to_match(+1)

    def action_previous_match(self) -> None:
        self._to_match(-1)

    @on(Input.Submitted, "#transcript-find")
    def _find_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.casefold().strip() != self._query:
            self.find(event.value)
        else:
            self._to_match(+1)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close_input":  # otherwise Escape goes on to the screen (Back)
            return self._open_input() is not None
        return True

    def _open_input(self) -> Input | None:
        focused = self.screen.focused
        return focused if isinstance(focused, Input) and focused.parent is self else None

    def action_close_input(self) -> None:
        box = self._open_input()
        if box is not None:
            self._close(box)

    def _close(self, box: Input) -> None:
        box.remove_class("-shown")
        self.table.focus()
