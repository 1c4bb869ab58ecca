"""One session: its KPT report item by item, the session summary and the lessons.

The review happens here: ``a`` approves and moves to the next item to review, ``x``
rejects (with an optional note), ``e`` edits the item in a form, ``E`` opens the whole
report in ``$EDITOR``, ``A`` approves what is left of a section, ``n`` goes to the next
item to review in any session and ``u`` undoes the last decision.
"""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, TabbedContent, TabPane

from screens.messages import FilesWritten, NextToReview, Open, ReviewChanged, WorkspaceChanged
from screens.widgets.document import lessons_view, report_overview, session_head, summary_view
from screens.widgets.literal import literal
from screens.widgets.review_items import ReviewItems
from screens.widgets.virtual_table import VirtualTable
from store.index.order import next_unreviewed
from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex
from store.models.kpt import SECTION_TITLES
from store.read.kinds import Kind
from store.review.items import ItemRef
from store.write.policy import in_place


class SessionScreen(Screen[None]):
    """The review of one session."""

    DEFAULT_CSS = """
    SessionScreen {
        #session-head { height: auto; padding: 0 1; }
        #tabs { height: 1fr; }
        #report-view, #summary-view, #lessons-view { padding: 0 1; }
    }
    """

    BINDINGS = [
        Binding("a", "approve", "Approve", id="review.approve"),
        Binding("x", "reject", "Reject", id="review.reject"),
        Binding("e", "edit", "Edit", id="review.edit"),
        Binding("E", "edit_file", "Edit file", id="review.edit_file"),
        Binding("A", "approve_section", "Approve section", id="review.approve_section"),
        Binding("p", "promote", "Promote", id="review.promote"),
        Binding("t", "retarget", "Target", id="review.retarget"),
        Binding("R", "propose", "Propose", id="review.propose"),
        Binding("F", "export_feedback", "Export feedback", id="review.export_feedback", show=False),
        Binding("space", "toggle_select", "Select", id="review.select", show=False),
        Binding("o", "reopen", "Reopen", id="review.reopen", show=False),
        Binding("n", "next_unreviewed", "Next", id="review.next"),
        Binding("u", "app.undo", "Undo", id="review.undo"),
        Binding("escape", "app.pop_screen", "Back", id="review.back"),
        Binding("1", "tab('review')", "Items", id="review.tab_items", show=False),
        Binding("2", "tab('report')", "Report", id="review.tab_report", show=False),
        Binding("3", "tab('summary')", "Summary", id="review.tab_summary", show=False),
        Binding("4", "tab('lessons')", "Lessons", id="review.tab_lessons", show=False),
    ]

    SHOWS = frozenset({Kind.KPT, Kind.SUMMARIES, Kind.LESSONS})
    SHOWS_REVIEW = True

    def __init__(
        self, index: WorkspaceIndex, session_key: str, item_key: str | None = None
    ) -> None:
        super().__init__()
        self.index = index
        self.session_key = session_key
        self.start_item = item_key
        self.pane = ReviewItems(index)
        # the pane's own (they change in place): rows' items, rows without an id, selection
        self.items, self.no_id, self.selected = self.pane.items, self.pane.no_id, self.pane.selected

    @property
    def session(self) -> Session | None:
        return self.index.sessions.get(self.session_key)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="session-head")
        with TabbedContent(id="tabs", initial="review"):
            with TabPane("Items (1)", id="review"):
                yield self.pane
            with TabPane("Report (2)", id="report"), VerticalScroll():
                yield Static(id="report-view")
            with TabPane("Summary (3)", id="summary"), VerticalScroll():
                yield Static(id="summary-view")
            with TabPane("Lessons (4)", id="lessons"), VerticalScroll():
                yield Static(id="lessons-view")
        yield Footer()

    def on_mount(self) -> None:
        self.show_session()
        self.query_one("#items", VirtualTable).focus()

    # -- showing -----------------------------------------------------------------

    def show_session(self) -> None:
        s = self.session
        if s is None:
            return
        done, total = self.index.review_progress(s)
        self.query_one("#session-head", Static).update(session_head(s, done, total))
        if s.report is not None:
            display = self.index.ws.display(s.report.path)
            self.query_one("#report-view", Static).update(report_overview(s.report.doc, display))
        else:
            self.query_one("#report-view", Static).update(
                Content.styled("No KPT report was written for this session.", "$text-muted")
            )
        self.query_one("#summary-view", Static).update(
            summary_view(s.summary.doc if s.summary else None)
        )
        self.query_one("#lessons-view", Static).update(lessons_view(s))
        self.refresh_items()

    def refresh_items(self) -> None:
        if self.pane.show_items(self.session, self.start_item):
            self.start_item = None

    def on_workspace_changed(self, event: WorkspaceChanged) -> None:
        s = self.session
        if s is None:
            self.notify("This session's files were removed.", severity="warning")
            self.app.pop_screen()
            return
        self.show_session()

    def on_review_changed(self, _event: ReviewChanged) -> None:
        self.show_session()

    def action_tab(self, tab: str) -> None:
        # Focus leaves the old pane first: otherwise Textual re-activates the pane that
        # holds the focused widget (Textual issue #4955).
        self.set_focus(None)
        self.query_one("#tabs", TabbedContent).active = tab
        if tab == "review":
            self.query_one("#items", VirtualTable).focus()
        else:
            self.query_one(f"#{tab} VerticalScroll", VerticalScroll).focus()

    # -- review ------------------------------------------------------------------

    def current_key(self) -> str | None:
        return self.pane.current_key()

    def decision_key(self) -> str | None:
        """The item under the cursor, to decide on; ``None`` (and the person told why) for
        an item without an id: its decisions would be every id-less item's."""
        key = self.current_key()
        if key is not None and key in self.no_id:
            self.notify(self.pane.missing_id_message(key), severity="warning", markup=False)
            return None
        return key

    def decided(self, message: str | None = None, written: frozenset[Path] | None = None) -> None:
        """Tell the app (counts, other screens), with the files ``written`` along with the
        decision in the same message; the state column already shows the rest."""
        self.app.post_message(
            ReviewChanged() if written is None else FilesWritten(written, review=True)
        )
        if message:
            self.notify(message, timeout=2, markup=False)

    def advance(self, after: str) -> None:
        """Move to the next item to review in this session (after a decision)."""
        s = self.session
        if s is None:
            return
        found = next_unreviewed(self.index, [s], s.key, after)
        if found is not None:
            self.query_one("#items", VirtualTable).move_to_key(found[1])
            return
        self.notify("Session reviewed. Press n for the next session.", title="Done", timeout=3)

    def action_approve(self) -> None:
        key = self.decision_key()
        if key is None:
            return
        self.index.ledger.record("approve", key)
        self.refresh_items()
        self.advance(key)
        self.decided()

    def action_reopen(self) -> None:
        key = self.decision_key()
        if key is not None:
            self.index.ledger.record("reopen", key)
            self.refresh_items()
            self.decided(f"Reopened {key}")

    def action_reject(self) -> None:
        key = self.decision_key()
        if key is None:
            return
        from screens.dialogs.note_prompt import NotePrompt

        def done(note: str | None) -> None:
            if note is None:
                return
            self.index.ledger.record("reject", key, note or None)
            self.refresh_items()
            self.advance(key)
            self.decided()

        self.app.push_screen(
            NotePrompt(Content.assemble("Reject ", literal(key, "bold"), "? Why (optional):")),
            done,
        )

    def action_approve_section(self) -> None:
        key = self.current_key()
        if key is None:
            return
        section = self.items[key][0]
        pending = [
            k
            for k, (sec, _i) in self.items.items()
            if sec == section
            and k not in self.no_id
            and self.index.ledger.state(k).state == "pending"
        ]
        left_out = [k for k, (sec, _i) in self.items.items() if sec == section and k in self.no_id]
        if left_out:
            self.notify(
                f"{len(left_out)} item(s) without an id left out: "
                + self.pane.missing_id_message(left_out[0]),
                severity="warning",
                markup=False,
            )
        if not pending:
            self.notify(f"Nothing left to review in {SECTION_TITLES[section]}.")
            return
        from screens.dialogs.confirm import ConfirmScreen

        def done(ok: bool | None) -> None:
            if ok:
                self.index.ledger.decide(pending, "approve")
                self.refresh_items()
                self.advance(pending[-1])
                self.decided(f"Approved {len(pending)} {SECTION_TITLES[section]} items")

        question = Content.assemble(
            f"Approve the {len(pending)} remaining {SECTION_TITLES[section]} item(s)?\n",
            literal(", ".join(k.split("/", 1)[1] for k in pending), "dim"),
        )
        self.app.push_screen(ConfirmScreen(question, "Approve all"), done)

    # -- promotion ---------------------------------------------------------------

    def action_toggle_select(self) -> None:
        key = self.current_key()
        if key is None or self.items[key][0] != "try":
            self.notify("Only try-items are selected for promotion or retargeting.", timeout=2)
            return
        if key in self.no_id:
            self.notify(self.pane.missing_id_message(key), severity="warning", markup=False)
            return
        self.selected ^= {key}
        self.refresh_items()

    def chosen_try_items(self) -> list[ItemRef]:
        """The selected try-items, else the one under the cursor."""
        s = self.session
        if s is None or s.report is None:
            return []
        keys = [k for k in self.items if k in self.selected] or [self.current_key() or ""]
        refs = []
        for k in keys:
            if k not in self.items:
                continue
            section, item = self.items[k]
            if section != "try":
                continue
            if k in self.no_id:
                self.notify(self.pane.missing_id_message(k), severity="warning", markup=False)
                return []
            rid, _, iid = k.partition("/")
            refs.append(ItemRef(rid, iid, section, item, s.report.doc, s.report.path))
        if not refs:
            self.notify("Promotion and targets apply to try-items.", timeout=2)
        return refs

    def action_promote(self) -> None:
        refs = self.chosen_try_items()
        if not refs:
            return
        from screens.dialogs.promote import PromoteScreen

        def done(written: bool | None) -> None:
            if written:
                self.selected.clear()
                self.decided("Promoted. Press u to undo.", written=frozenset())

        self.app.push_screen(PromoteScreen(self.index, refs), done)

    def action_retarget(self) -> None:
        refs = self.chosen_try_items()
        if not refs:
            return
        from screens.dialogs.retarget import RetargetScreen

        def done(saved: bool | None) -> None:
            if saved:
                self.selected.clear()
                self.decided("Target saved.", written=frozenset(r.path for r in refs))

        self.app.push_screen(RetargetScreen(self.index, refs), done)

    @work(exclusive=True, group="export-feedback")
    async def action_export_feedback(self) -> None:
        from screens.dialogs.export_flow import export_as_feedback

        s = self.session
        if s is not None and s.report is not None and s.report.doc.id:
            await export_as_feedback(self, self.index.ws, s.report.doc.id)

    def action_propose(self) -> None:
        key = self.current_key()
        s = self.session
        if key is None or s is None:
            return
        from screens.dialogs.propose import ProposeScreen

        section, item = self.items[key]
        note = self.index.ledger.state(key).note
        self.app.push_screen(ProposeScreen(self.index, s, section, item, note))

    def action_next_unreviewed(self) -> None:
        self.post_message(Open(NextToReview(self.session_key, self.current_key())))

    def go_to(self, session_key: str, item: str) -> None:
        """Show ``item`` of session ``session_key`` here (the router's next item to review)."""
        if session_key != self.session_key:
            self.session_key = session_key
            self.start_item = item
            self.show_session()
        else:
            self.query_one("#items", VirtualTable).move_to_key(item)

    # -- editing -----------------------------------------------------------------

    def action_edit(self) -> None:
        key = self.current_key()
        s = self.session
        if key is None or s is None or s.report is None:
            return
        from screens.dialogs.item_form import ItemForm

        section, item = self.items[key]
        path = s.report.path
        place = self.no_id.get(key, 0)  # an item without an id is found by its place
        rid = s.report.doc.id
        label = (
            f"{rid or self.index.ws.display(path)}: {section} item {place} (no id)"
            if place
            else key
        )
        form = ItemForm(
            path,
            self.index.ws.display(path),
            section,
            item,
            label,
            in_place(self.index.ws, "kpt"),
            position=place,
        )

        def done(saved: bool | None) -> None:
            if saved:
                if not place:
                    self.index.ledger.record("edit", key)
                elif rid:  # as an edit of the whole file: the item had no key
                    self.index.ledger.record("edit", rid)
                self.decided(f"Saved {label}", written=frozenset({path}))

        self.app.push_screen(form, done)

    def action_edit_file(self) -> None:
        s = self.session
        if s is None or s.report is None:
            return
        self.edit_externally(s.report.path)

    @work(exclusive=True, group="external-edit")
    async def edit_externally(self, path: Path) -> None:
        from screens.dialogs.edit_flow import edit_in_editor

        if await edit_in_editor(self, self.index.ws, path, Kind.KPT):
            s = self.session
            if s is not None and s.report is not None and s.report.doc.id:
                self.index.ledger.record("edit", s.report.doc.id)
