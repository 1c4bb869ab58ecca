"""The home screen: every session, those with items left to review first, newest first.
The evidence filter checks reports only when first chosen, in a worker (cached)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Header, Input, ProgressBar, Select, Static
from textual.worker import get_current_worker

from screens.messages import NextToReview, Open, ReviewChanged, SessionTarget, WorkspaceChanged
from screens.widgets.footer import KeysFooter
from screens.widgets.keys import HELP, open_key
from screens.widgets.literal import literal, short_project
from screens.widgets.session_rows import session_row
from screens.widgets.virtual_table import Column, LazyRows, Row, VirtualTable
from store.index import first_page
from store.index.order import SessionFilter, ordered, projects
from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex
from store.read.counted import counted
from store.read.isotime import parse_day
from store.read.kinds import Kind

if TYPE_CHECKING:  # imported with the first filter: the first list needs none of it
    from store.insight.evidence_cache import EvidenceStates

COLUMNS = [
    Column("date", "Date", 10),
    Column("project", "Project", 14, drop=3),
    Column("outcome", "Outcome", 8, drop=2),
    Column("kpto", "K/P/T/O", 9, drop=4),
    Column("review", "Review", 7, align="right", drop=1),
    Column("title", "Summary", None, min_width=20),
]
OUTCOMES = [("success", "success"), ("partial", "partial"), ("failure", "failure")]
#: (label, value): the values are :class:`SessionFilter`'s
REVIEW = [("to review", "unreviewed"), ("reviewed", "reviewed")]
EVIDENCE = [("evidence missing", "missing"), ("evidence found", "found"), ("no transcript", "none")]
#: How long the notice of sessions that arrived stays after the last of them (seconds).
ARRIVALS_SHOWN = 8.0


class SessionsScreen(Screen[None]):
    DEFAULT_CSS = """
    SessionsScreen {
        #filters { height: 1; margin: 0 1; }
        #filters Select { width: 1fr; margin-right: 1; }
        #filters Input { width: 12; margin-right: 1; }
        #filters Input.-invalid { color: $error; }
        #sessions { height: 1fr; }
        /* the workspace being read: shown until everything is in */
        #load-progress { height: 1; width: 100%; padding: 0 1; }
        #load-progress Bar { width: 1fr; }
        /* sessions that arrived while the app runs: one line, its count growing */
        #arrivals { height: 1; padding: 0 1; color: $success; text-style: bold; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("enter", "open", "Open", id="sessions.open", show=False),
        Binding("n", "next_unreviewed", "Next", id="sessions.next"),
        Binding("u", "app.undo", "Undo", id="sessions.undo"),
        Binding("f", "focus_filters", "Filter", id="sessions.filter"),
        Binding("escape", "clear_filters", "Clear filters", id="sessions.clear", show=False),
        *(
            open_key(name, "sessions", show=name not in ("knowledge", "stats"))
            for name in ("search", "inbox", "knowledge", "lessons", "stats", "problems")
        ),
    ]

    SHOWS = frozenset({Kind.KPT, Kind.SUMMARIES, Kind.LESSONS})
    SHOWS_REVIEW = True

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__()
        self.index = index
        self.order: list[Session] = []
        self.filter = SessionFilter()
        #: the first page as kept for the next start (written when it changes)
        self._kept_page: list[dict[str, str]] | None = None
        #: the sessions known once the workspace was read (to tell new ones)
        self._known: set[str] | None = None
        self._showing_kept = False
        #: a session opened on a row kept from last time, opened once the sessions are read
        self._pending_open: str | None = None
        #: reports checked so far while the evidence is being checked: (done, total)
        self._evidence_progress: tuple[int, int] | None = None
        #: the sessions told in the arrivals notice while it shows, and its timer
        self._arrived: set[str] = set()
        self._arrivals_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Horizontal(id="filters")  # filled once the sessions are listed
        yield VirtualTable(COLUMNS, id="sessions", classes="list")
        # shown while files are parsed (see show_progress); an indeterminate bar animating
        # meanwhile would only take time from the reading
        bar = ProgressBar(id="load-progress", show_eta=False)
        bar.display = False
        yield bar
        arrivals = Static(id="arrivals")
        arrivals.display = False
        yield arrivals
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#sessions", VirtualTable).focus()
        self.refresh_rows()

    # -- data --------------------------------------------------------------------

    def show_progress(self, done: int | None, total: int | None) -> None:
        """The workspace being read: ``done`` of ``total`` files (``None``: finished)."""
        bar = self.query_one("#load-progress", ProgressBar)
        if done is None or total is None:
            bar.display = False
            if self._showing_kept:  # nothing replaced it: the workspace has no session now
                self.refresh_rows()
            elif self.filter == SessionFilter() and self.order:
                self.keep_first_page()
            return
        bar.display = True
        bar.update(total=total, progress=done)

    def on_workspace_changed(self, _event: WorkspaceChanged) -> None:
        self.refresh_rows()
        # the project filter's choices (every session's project) once the rows are drawn
        self.call_after_refresh(self.refresh_projects)
        if self.filter.evidence is not None:
            self.check_evidence()  # a report edited: checked again (the rest: a stat)

    def on_review_changed(self, _event: ReviewChanged) -> None:
        self.refresh_rows()

    def on_screen_resume(self) -> None:
        self.refresh_rows()
        if self.filter.evidence is not None:
            self.check_evidence()  # transcripts are not watched: they may have grown

    async def mount_filters(self) -> None:
        """The filters, once the sessions are listed (before, ~0.1 s of a start: #47)."""
        row = self.query_one("#filters", Horizontal)
        if not row.children:
            await row.mount_all(
                [
                    Select(OUTCOMES, prompt="outcome", id="f-outcome", compact=True),
                    Select([], prompt="project", id="f-project", compact=True),
                    Input(placeholder="from date", id="f-since", compact=True),
                    Input(placeholder="to date", id="f-until", compact=True),
                    Select(REVIEW, prompt="review", id="f-review", compact=True),
                    Select(EVIDENCE, prompt="evidence", id="f-evidence", compact=True),
                ]
            )
            self.refresh_projects()

    def refresh_projects(self) -> None:
        for sel in self.query("#f-project").results(Select):  # (none before the list)
            current = sel.value
            names = projects(self.index)
            sel.set_options([(literal(short_project(p), keep_newlines=False), p) for p in names])
            if current in names:
                sel.value = current

    def refresh_rows(self) -> None:
        loaded = getattr(self.app, "loaded", None)
        reading = loaded is not None and not loaded.is_set()
        self._showing_kept = not self.index.sessions and reading and self.show_kept_page()
        if self._showing_kept:
            return
        self.order = ordered(self.index, self.filter)
        self.tell_new_sessions(reading)
        by_key = {s.key: s for s in self.order}
        rows = LazyRows(list(by_key), lambda key: self.row(by_key[key])[1])
        table = self.query_one("#sessions", VirtualTable)
        table.set_rows(rows)
        total = len(self.index.sessions)
        shown = counted(total, "session")
        shown = shown if len(rows) == total else f"{len(rows)} of {shown}"
        if not total and reading:
            shown = "reading the workspace…"
        if self.filter.evidence is not None and self.filter.evidence_states is None:
            done, of = self._evidence_progress or (0, 0)
            shown = "checking evidence…" + (f" {done}/{counted(of, 'report')}" if of else "")
        table.border_title = shown
        table.border_subtitle = "filtered — Esc clears" if self.filter != SessionFilter() else ""
        if total or not reading:  # (once the list drawn holds the sessions)
            self.call_after_refresh(self.mount_filters)
        if loaded is not None and loaded.is_set() and self.filter == SessionFilter():
            self.keep_first_page()
        if self._pending_open is not None:
            self.open_pending(reading)

    def tell_new_sessions(self, reading: bool) -> None:
        """Sessions that arrived while the app runs (not the first reading) are told in one
        notice under the list, wherever it is scrolled: arrivals a few seconds apart add to
        its count (twenty reports arriving one by one would stack twenty toasts)."""
        keys = set(self.index.sessions)
        known, self._known = self._known, (None if reading else keys)
        if known is None or reading:
            return
        new = keys - known
        self._arrived = (self._arrived | new) & keys
        if not new:
            return
        n = len(self._arrived)
        notice = self.query_one("#arrivals", Static)
        notice.update(f"{counted(n, 'new session')} arrived")
        notice.display = True
        if self._arrivals_timer is not None:
            self._arrivals_timer.stop()
        self._arrivals_timer = self.set_timer(ARRIVALS_SHOWN, self.arrivals_told)

    def arrivals_told(self) -> None:
        self._arrived.clear()
        self.query_one("#arrivals", Static).display = False

    # -- the first page, kept for the next start -----------------------------------

    def show_kept_page(self) -> bool:
        """Before the index has any session: the rows the list began with last time, so
        that a start draws them at once (replaced as soon as the sessions are read)."""
        kept = first_page.read(self.index.ws)
        if not kept:
            return False
        table = self.query_one("#sessions", VirtualTable)
        table.set_rows([session_row(f) for f in kept])
        table.border_title = "reading the workspace… (the list as it was last time)"
        return True

    def keep_first_page(self) -> None:
        page = [self.fields(s) for s in self.order[: first_page.ROWS]]
        if page != self._kept_page:
            self._kept_page = page
            first_page.write(self.index.ws, page)

    # -- rows ----------------------------------------------------------------------

    def fields(self, s: Session) -> dict[str, str]:
        """A row as plain text (what :func:`session_row` shows, and the kept first page)."""
        done, total = self.index.review_progress(s)
        c = s.counts()
        t = s.sort_time
        return {
            "key": s.key,
            "date": t.astimezone().strftime("%Y-%m-%d") if t.year > 1 else "—",
            "project": short_project(s.project) or "—",
            "outcome": s.outcome,
            "kpto": f"{c['keep']}/{c['problem']}/{c['try']}/{c['omission']}" if s.report else "—",
            "review": f"{done}/{total}" if total else "",
            "title": s.title,
        }

    def row(self, s: Session) -> Row:
        return session_row(self.fields(s))

    # -- actions -----------------------------------------------------------------

    def current(self) -> Session | None:
        key = self.query_one("#sessions", VirtualTable).cursor_key
        return self.index.sessions.get(key) if key else None

    @on(VirtualTable.Selected, "#sessions")
    def open_selected(self, event: VirtualTable.Selected) -> None:
        self.open_session(event.key)

    def action_open(self) -> None:
        key = self.query_one("#sessions", VirtualTable).cursor_key
        if key:
            self.open_session(key)

    def open_session(self, key: str) -> None:
        if key in self.index.sessions:
            self._pending_open = None
            self.post_message(Open(SessionTarget(key)))
        else:  # a row kept from last time: opened as soon as the sessions are read
            self._pending_open = key
            self.notify("Opening it once the workspace is read…", timeout=3, markup=False)

    def open_pending(self, reading: bool) -> None:
        key = self._pending_open
        if self.app.screen is not self:  # the person went elsewhere meanwhile: not now
            self._pending_open = None
            return
        if key is not None and key in self.index.sessions:
            self.open_session(key)
        elif not reading:  # everything is read and it is not there (deleted meanwhile)
            self._pending_open = None
            self.notify("That session is no longer in the workspace.", severity="warning")

    def action_next_unreviewed(self) -> None:
        s = self.current()
        self.post_message(Open(NextToReview(s.key if s else None)))

    def action_focus_filters(self) -> None:
        for sel in self.query("#f-outcome"):  # (none before the sessions are listed)
            sel.focus()

    def action_clear_filters(self) -> None:
        for sel in self.query("#filters Select").results(Select):
            sel.clear()
        for field in self.query("#filters Input").results(Input):
            field.value = ""
        self.query_one("#sessions", VirtualTable).focus()

    @on(Select.Changed)
    def filter_chosen(self, event: Select.Changed) -> None:
        """A value chosen in a filter: back to the list, where Enter opens a session (a
        value set by the screen itself, e.g. the project list refreshed, moves nothing)."""
        if event.select.has_focus_within:  # the dropdown, or the filter itself
            self.query_one("#sessions", VirtualTable).focus()
        self.filters_changed()

    @on(Input.Changed)
    def filters_changed(self) -> None:
        def sel(id_: str) -> str | None:
            v = self.query_one(id_, Select).value
            return v if isinstance(v, str) else None

        since_in = self.query_one("#f-since", Input)
        until_in = self.query_one("#f-until", Input)
        since, until = parse_day(since_in.value), parse_day(until_in.value)
        since_in.set_class(bool(since_in.value.strip()) and since is None, "-invalid")
        until_in.set_class(bool(until_in.value.strip()) and until is None, "-invalid")
        review = sel("#f-review")
        evidence = sel("#f-evidence")
        from store.insight.evidence_cache import evidence_for

        known = evidence_for(self.index).states
        asked = evidence is not None and evidence != self.filter.evidence
        self.filter = SessionFilter(
            outcome=sel("#f-outcome"),
            project=sel("#f-project"),
            since=since,
            until=until,
            review="unreviewed"
            if review == "unreviewed"
            else "reviewed"
            if review == "reviewed"
            else "all",
            evidence=evidence,
            evidence_states=known.session_states() if evidence and known else None,
        )
        self.refresh_rows()
        if asked:
            self.check_evidence()

    # -- evidence --------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="sessions-evidence", exit_on_error=False)
    def check_evidence(self) -> None:
        """Every report's evidence state, from the cache or read again where the report or
        its transcript changed (a thread: transcripts are read whole)."""
        from store.insight.evidence_cache import evidence_for

        worker = get_current_worker()
        progress = partial(self.app.call_from_thread, self.evidence_progress)
        states = evidence_for(self.index).update(progress, lambda: worker.is_cancelled)
        if states is not None and not worker.is_cancelled:
            self.app.call_from_thread(self.got_evidence, states)

    def evidence_progress(self, done: int, total: int) -> None:
        self._evidence_progress = (done, total)
        if self.filter.evidence is not None and self.filter.evidence_states is None:
            table = self.query_one("#sessions", VirtualTable)
            table.border_title = f"checking evidence… {done}/{counted(total, 'report')}"

    def got_evidence(self, states: EvidenceStates) -> None:
        self._evidence_progress = None
        if self.filter.evidence is not None:
            self.filter = replace(self.filter, evidence_states=states.session_states())
            self.refresh_rows()

    @on(Input.Submitted)
    def filter_submitted(self) -> None:
        self.query_one("#sessions", VirtualTable).focus()
