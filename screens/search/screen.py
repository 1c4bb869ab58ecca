"""Search: "where did we learn that?", answered as you type.

Every change of the query starts an exclusive thread worker, which cancels the one before;
one search runs at a time and its answer comes back as a message (dropped when the box holds
a newer query). The exact count and the preview wait until the typing pauses. A malformed
query shows its error in place of the count; the last good results stay.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Static
from textual.worker import get_current_worker

from screens.messages import EVERY_KIND, HitTarget, Open, ReviewChanged, WorkspaceChanged
from screens.search.evidence import EvidenceFilter
from screens.widgets.cjk_wrap import WrappedText
from screens.widgets.fixed_size import QueryInput, ResultsTable
from screens.widgets.hits import (
    COLUMNS,
    count_line,
    hit_key,
    hit_preview,
    hit_project,
    hit_row,
    hit_state,
)
from screens.widgets.literal import literal
from screens.widgets.table_rows import LazyRows
from screens.widgets.virtual_table import Row, VirtualTable
from store.gc_pause import HeldCollection
from store.index.workspace_index import WorkspaceIndex
from store.models.kpt_terms import SECTIONS
from store.search.engine import Hit, SearchResult
from store.search.facade import WorkspaceSearch, resolve_line, search_for

LIMIT = 50  # hits listed per query, the best
#: seconds of quiet before the preview is drawn (laying out a long text delays a key's frame)
PREVIEW_PAUSE = 0.3
#: seconds of quiet before the garbage left by typing is collected (:class:`HeldCollection`)
COLLECT_PAUSE = 1.0
WAIT_STEP = 0.01  # how often a worker waiting for its turn looks whether it was cancelled
PLACEHOLDER = 'search: words, "a phrase", kind:try project:api tag:jwt after:2026-01 -kind:lesson'


class SearchScreen(EvidenceFilter, Screen[None]):
    """Fuzzy search across every record of the workspace."""

    SHOWS = EVERY_KIND
    SHOWS_REVIEW = True

    DEFAULT_CSS = """
    SearchScreen {
        layout: horizontal;
        #search-input { margin: 0 1; }
        #search-status { height: 1; padding: 0 2; color: $text-muted; }
        #search-status.-error { color: $error; text-style: bold; }
        #search-left { width: 7fr; }
        #search-preview-scroll { width: 3fr; max-width: 27; border-left: vkey $panel; padding: 0 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="search.back"),
        Binding("down", "move(1)", "Next hit", show=False, id="search.down"),
        Binding("up", "move(-1)", "Previous hit", show=False, id="search.up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="search.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="search.page_up"),
        Binding("ctrl+l", "focus_query", "Query", id="search.focus_query"),
    ]

    class Answered(Message):
        """A query's results, posted by the search thread."""

        def __init__(self, seq: int, result: SearchResult) -> None:
            super().__init__()
            self.seq, self.result = seq, result

    def __init__(self, index: WorkspaceIndex, query: str = "") -> None:
        super().__init__()
        self.index = index
        self.search: WorkspaceSearch = search_for(index)
        self.initial = query
        self.hits: dict[str, Hit] = {}
        self.result: SearchResult | None = None
        #: the number of the query that counts the shown results' matches, once typing paused
        self._counting = 0
        #: the cursor's row when the query first changed since results were shown: moves
        #: made before the new results come are kept (from their first row)
        self._row_at_change: int | None = None
        #: one search at a time
        self._searching = threading.Lock()
        self._seq = 0
        self._ready = False
        self._preview_timer: Timer | None = None
        #: no cycle collection in a keystroke's frame: it waits for a pause in the typing
        self._collection = HeldCollection()
        self._collect_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        # what changes at a key (the query, the count, the rows) is in the left column: the
        # frame redraws what lies around the changes, and the preview stays out of it
        with Vertical(id="search-left"):
            yield QueryInput(value=self.initial, placeholder=PLACEHOLDER, id="search-input")
            yield Static(
                Content.styled("reading the search index…", "$text-muted"), id="search-status"
            )
            yield ResultsTable(COLUMNS, id="search-results")
        with VerticalScroll(id="search-preview-scroll"):
            yield WrappedText(id="search-preview")
        yield Footer()

    def on_mount(self) -> None:
        box = self.query_one("#search-input", Input)
        box.focus()
        # called as the value changes (typed, cut, or set), before the box is drawn again
        self.watch(box, "value", self._query_typed, init=False)
        self.prepare()

    def on_unmount(self) -> None:
        self._collect()

    def on_screen_suspend(self) -> None:
        self._collect()

    # -- one frame per key ----------------------------------------------------------

    def _query_typed(self, value: str) -> None:
        """Search for the new query at once (``Input.Changed`` takes a few hops), uncounted
        until the typing pauses."""
        if self._row_at_change is None:
            self._row_at_change = self.query_one("#search-results", VirtualTable).cursor_row
        self.submit(value, count=False)
        if self._preview_timer is not None:
            self.preview_later()  # still typing: the preview waits
        self._collection.hold()
        if self._collect_timer is not None:
            self._collect_timer.stop()
        self._collect_timer = self.set_timer(COLLECT_PAUSE, self._collect, name="search-collect")

    def _collect(self) -> None:
        """The typing paused (or the screen went): collection on again, and done now."""
        if self._collect_timer is not None:
            self._collect_timer.stop()
            self._collect_timer = None
        self._collection.release()

    # -- the index ---------------------------------------------------------------

    @work(thread=True, exclusive=True, group="search-prepare")
    def prepare(self, paths: frozenset[Path] | None = None) -> None:
        """Load or build the index, and bring it in step with the workspace (a thread)."""
        if self.search.index is None:
            self.app.call_from_thread(self._status_text, "building the search index…")
        if paths:
            self.search.sync(paths)
        elif self.search.ensure() is None:
            self.app.call_from_thread(self._status_text, "reading the workspace…")
            return
        self._ready = True
        self.app.call_from_thread(self.rerun)

    def on_workspace_changed(self, event: WorkspaceChanged) -> None:
        self._evidence_asked = False  # an evidence: query checks the reports again
        if event.initial or self.search.index is None:
            self.prepare()
        else:
            self.prepare(frozenset(event.changed | event.removed))

    def on_review_changed(self, _event: ReviewChanged) -> None:
        self.rerun()

    # -- searching ---------------------------------------------------------------

    def submit(self, text: str, count: bool = True) -> int:
        """Search for ``text`` in a worker (cancelling the one before); its number."""
        self._seq += 1
        if self._ready:  # (until then, the index's preparation searches when it is done)
            self.search_for(self._seq, text, count)
        return self._seq

    def rerun(self) -> None:
        self.submit(self.query_one("#search-input", Input).value)

    def _my_turn(self) -> bool:
        """Wait for the search (a thread): ``False`` when this worker was cancelled first."""
        worker = get_current_worker()
        while not self._searching.acquire(timeout=WAIT_STEP):
            if worker.is_cancelled:
                return False
        if worker.is_cancelled:
            self._searching.release()
            return False
        return True

    @work(thread=True, exclusive=True, group="search")
    def search_for(self, seq: int, text: str, count: bool) -> None:
        """One query's search, its results posted back (a thread)."""
        if not self._my_turn():
            return  # a newer query came first
        try:
            query = self.with_evidence(text)
            if query is None:
                return  # the evidence is being checked: searched again when it is in
            result = self.search.search(query, LIMIT, count=count)
        finally:
            self._searching.release()
        if not get_current_worker().is_cancelled:
            self.post_message(self.Answered(seq, result))

    def on_search_screen_answered(self, event: Answered) -> None:
        self.show_results(event.seq, event.result)

    def show_results(self, seq: int, result: SearchResult) -> None:
        if seq != self._seq:
            return  # an answer to a query the box no longer holds
        if seq == self._counting and self._same_hits(result):
            self.result = result  # the count of the results shown: the rows stay
            self._show_count(result)
        else:
            self._show_results(result)
        self.query_one("#search-input", QueryInput).let_go()  # (after the results' repaints)

    def _show_results(self, result: SearchResult) -> None:
        status = self.query_one("#search-status", Static)
        if result.error is not None:
            self._row_at_change = None  # the rows stay: moves made are moves in them
            status.set_class(True, "-error")
            status.update(literal(result.error.message, keep_newlines=False), layout=False)
            return
        status.set_class(False, "-error")
        # another query's results start at the top, on the best hit (moved down from it
        # as far as the cursor was moved since the query changed); the same query's
        # again (counted, the workspace changed) keep the row the person is on
        top = self.result is None or self.result.text != result.text
        table = self.query_one("#search-results", VirtualTable)
        since, self._row_at_change = self._row_at_change, None
        moved = table.cursor_row - since if top and since is not None else 0
        self.result = result
        hits = self.hits = {hit_key(h): h for h in result.hits}
        # only the rows in sight are made (of the 50, about 30 on a screen)
        table.set_rows(LazyRows(list(hits), lambda key: self.row(hits[key])[1]), top=top)
        if moved > 0:
            table.cursor_row = moved
        self._show_count(result)
        self.preview_later()

    def _same_hits(self, result: SearchResult) -> bool:
        """The rows shown are ``result``'s: the same hits, each standing for as many
        records (counted after a word just begun, a group's "×N" may be smaller)."""
        last = self.result
        return (
            result.error is None
            and last is not None
            and last.text == result.text
            and [(hit_key(h), h.count) for h in result.hits]
            == [(key, hit.count) for key, hit in self.hits.items()]
        )

    def _show_count(self, result: SearchResult) -> None:
        # one line, always: no layout of the screen
        self.query_one("#search-status", Static).update(count_line(result), layout=False)

    def row(self, hit: Hit) -> Row:
        project = hit_project(hit, self.search.index, self.index)
        return hit_row(hit, project, hit_state(hit, self.index))

    # -- the preview --------------------------------------------------------------

    @on(VirtualTable.Highlighted, "#search-results")
    def hit_highlighted(self, event: VirtualTable.Highlighted) -> None:
        if self._preview_timer is not None:
            self.preview_later()  # new results while typing: drawn when it pauses
        else:
            self.show_preview(event.key)

    def preview_later(self) -> None:
        """Draw the preview of the highlighted hit once nothing new came for a moment."""
        if self._preview_timer is not None:
            self._preview_timer.stop()
        self._preview_timer = self.set_timer(PREVIEW_PAUSE, self._preview_now)

    def _preview_now(self) -> None:
        """The typing paused: the preview drawn, and the matches counted if they were not."""
        self._preview_timer = None
        self.show_preview(self.query_one("#search-results", VirtualTable).cursor_key)
        result, box = self.result, self.query_one("#search-input", Input)
        if result is not None and not result.counted and result.text == box.value:
            # (not while a newer query is still being searched: it would be dropped)
            self._counting = self.submit(result.text)

    def show_preview(self, key: str | None) -> None:
        preview = self.query_one("#search-preview", Static)
        hit = self.hits.get(key or "")
        if hit is None:
            preview.update(Content.styled("No record.", "$text-muted"))
            return
        rec, index = hit.record, self.search.index
        preview.update(
            hit_preview(
                hit,
                name=self.index.located_key(rec.id, rec.path) if rec.kind in SECTIONS else rec.id,
                where=f"{self.index.ws.display(Path(rec.path))}:{resolve_line(rec)}",
                project=hit_project(hit, index, self.index),
                state=hit_state(hit, self.index),
                terms=list(self.result.query.terms) if self.result and self.result.query else [],
                others=index.group_records(hit, 20) if hit.count > 1 and index else None,
            )
        )

    # -- moving and opening --------------------------------------------------------

    def action_move(self, delta: int) -> None:
        table = self.query_one("#search-results", VirtualTable)
        table.cursor_row += delta

    def action_page(self, delta: int) -> None:
        table = self.query_one("#search-results", VirtualTable)
        table.action_page_down() if delta > 0 else table.action_page_up()

    def action_focus_query(self) -> None:
        self.query_one("#search-input", Input).focus()

    def action_back(self) -> None:
        self.app.pop_screen()

    @on(Input.Submitted, "#search-input")
    def query_submitted(self, _event: Input.Submitted) -> None:
        self.open_current()

    @on(VirtualTable.Selected, "#search-results")
    def hit_selected(self, event: VirtualTable.Selected) -> None:
        self.open_current(event.key)

    def open_current(self, key: str | None = None) -> None:
        key = key or self.query_one("#search-results", VirtualTable).cursor_key
        hit = self.hits.get(key or "")
        if hit is not None:
            self.post_message(Open(HitTarget(hit)))
