"""One session: its KPT report item by item (the review happens here), the session summary,
the lessons and the transcript."""

from __future__ import annotations

import asyncio

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Header, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from screens.messages import NextToReview, Open, ReviewChanged, WorkspaceChanged
from screens.session.review_keys import ReviewKeys
from screens.widgets.cjk_wrap import WrappedText
from screens.widgets.document import lessons_view, report_overview, session_head, summary_view
from screens.widgets.evidence_marks import metrics_comparison
from screens.widgets.keys import HELP
from screens.widgets.transcript_view import TranscriptView
from screens.widgets.virtual_table import VirtualTable
from store.insight.turn_numbering import SHORT
from store.read.kinds import Kind


class SessionScreen(ReviewKeys):
    DEFAULT_CSS = """
    SessionScreen {
        #session-head { height: auto; padding: 0 1; }
        #tabs { height: 1fr; }
        #report-view, #summary-view, #lessons-view { padding: 0 1; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("a", "approve", "Approve", id="review.approve"),
        Binding("x", "reject", "Reject", id="review.reject"),
        Binding("n", "next_unreviewed", "Next", id="review.next"),
        Binding("u", "app.undo", "Undo", id="review.undo"),
        Binding("e", "edit", "Edit", id="review.edit"),
        Binding("E", "edit_file", "Edit file", id="review.edit_file", show=False),
        Binding("A", "approve_section", "Approve section", id="review.approve_section", show=False),
        Binding("p", "promote", "Promote", id="review.promote"),
        Binding("t", "retarget", "Target", id="review.retarget"),
        Binding("R", "propose", "Propose", id="review.propose", show=False),
        Binding("F", "export_feedback", "Export feedback", id="review.export_feedback", show=False),
        Binding("space", "toggle_select", "Select", id="review.select", show=False),
        Binding("o", "reopen", "Reopen", id="review.reopen", show=False),
        Binding("escape", "app.pop_screen", "Back", id="review.back"),
        Binding("1", "tab('review')", "Items", id="review.tab_items", show=False),
        Binding("2", "tab('report')", "Report", id="review.tab_report", show=False),
        Binding("3", "tab('summary')", "Summary", id="review.tab_summary", show=False),
        Binding("4", "tab('lessons')", "Lessons", id="review.tab_lessons", show=False),
        Binding("5", "tab('transcript')", "Transcript", id="review.tab_transcript", show=False),
        Binding("v", "evidence", "Evidence", id="review.evidence", show=False),
    ]

    #: the keys that act on the item under the cursor: only while the items are on show
    ITEM_ACTIONS = frozenset(
        {
            "approve",
            "reject",
            "edit",
            "approve_section",
            "promote",
            "retarget",
            "propose",
            "toggle_select",
            "reopen",
            "evidence",
        }
    )

    SHOWS = frozenset({Kind.KPT, Kind.SUMMARIES, Kind.LESSONS})
    SHOWS_REVIEW = True
    #: the session's files were removed while a dialog was on top: close when back on top
    vanished = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield WrappedText(id="session-head")
        with TabbedContent(id="tabs", initial="review"):
            with TabPane("Items (1)", id="review"):
                yield self.pane
            with TabPane("Report (2)", id="report"), VerticalScroll():
                yield WrappedText(id="report-view")
            with TabPane("Summary (3)", id="summary"), VerticalScroll():
                yield WrappedText(id="summary-view")
            with TabPane("Lessons (4)", id="lessons"), VerticalScroll():
                yield WrappedText(id="lessons-view")
            with TabPane("Transcript (5)", id="transcript"):
                yield Vertical(id="transcript-pane")
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
        self.show_report()
        self.query_one("#summary-view", Static).update(
            summary_view(s.summary.doc if s.summary else None)
        )
        self.query_one("#lessons-view", Static).update(lessons_view(s))
        self.refresh_items()
        if self.evidence is None or self.evidence.report_id != s.report_id:
            self.check_evidence(s.key)
        promoted = [k for k in self.pane.items if self.index.ledger.state(k).promoted]
        if promoted:
            self.measure_usage(s.key, promoted)

    def on_workspace_changed(self, event: WorkspaceChanged) -> None:
        s = self.session
        if s is None:
            if self.app.screen is not self:  # a dialog on top (typed text in a form) stays;
                self.vanished = True  # this screen closes once it is back on top
                return
            self.close_vanished()
            return
        self.vanished = False
        self.show_session()

    def on_screen_resume(self) -> None:
        if self.vanished and self.session is None:
            self.close_vanished()

    def close_vanished(self) -> None:
        self.vanished = False
        self.notify("This session's files were removed.", severity="warning")
        if self.app.screen is self:
            self.app.pop_screen()

    def on_review_changed(self, _event: ReviewChanged) -> None:
        self.show_session()

    async def action_tab(self, tab: str) -> None:
        # Focus leaves the old pane first: otherwise Textual re-activates the pane that
        # holds the focused widget (Textual issue #4955).
        self.set_focus(None)
        self.query_one("#tabs", TabbedContent).active = tab
        if tab == "review":
            self.query_one("#items", VirtualTable).focus()
        elif tab == "transcript":
            (await self.transcript_view()).table.focus()
        else:
            self.query_one(f"#{tab} VerticalScroll", VerticalScroll).focus()

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "transcript":
            await self.transcript_view()
        self.refresh_bindings()  # the item keys act only while the items are on show

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # the item keys are hidden off the items tab: they would act on an item not on screen
        return not (
            action in self.ITEM_ACTIONS
            and self.is_mounted
            and self.query_one("#tabs", TabbedContent).active != "review"
        )

    # -- transcript and evidence -------------------------------------------------------

    async def transcript_view(self) -> TranscriptView:
        """The session's transcript, read when first wanted (a new one for a new session),
        mounted before it is returned."""
        s = self.session
        sid = s.session_id if s is not None else None
        holder = self.query_one("#transcript-pane", Vertical)
        views = list(holder.query(TranscriptView))
        if views and views[0].session_id == sid:
            return views[0]
        for v in views:
            await v.remove()
        view = TranscriptView(self.index.ws, sid, id="transcript-view")
        key = self.current_key()
        check = self.pane.evidence.get(key) if key else None
        if check is not None:
            view.cited = set(check.view_turns)  # drawn with the rows once read
        await holder.mount(view)
        return view

    @work(exclusive=True, group="evidence", exit_on_error=False)
    async def check_evidence(self, session_key: str) -> None:
        """Check every item's evidence against the session's transcript (read whole, in a
        thread); the rows show the states when done."""
        from store.insight.evidence import check_session

        s = self.index.sessions.get(session_key)
        if s is None or s.report is None:
            return
        rkey = self.index.report_key(s)
        result = await asyncio.to_thread(check_session, self.index.ws, s.report.doc, rkey=rkey)
        if session_key != self.session_key:
            return
        self.evidence = result
        self.pane.show_evidence({k: c for k, (_s, _i, c) in result.items.items()})
        self.show_report()

    @work(exclusive=True, group="usage", exit_on_error=False)
    async def measure_usage(self, session_key: str, keys: list[str]) -> None:
        """How the rules its promoted items became fared since (reads the transcripts
        incrementally, in a thread: the first time can take a while)."""
        from store.insight.usage import usage_report

        worker = get_current_worker()
        report = await asyncio.to_thread(
            usage_report, self.index.ws, progress=lambda _d, _t: not worker.is_cancelled
        )
        if report.complete and session_key == self.session_key:
            self.pane.show_usage(
                {k: u.summary() for k in keys if (u := report.for_item(k)) is not None}
            )

    def show_report(self) -> None:
        """The Report tab: the report, and its metrics beside the transcript's once checked."""
        s, ev, view = self.session, self.evidence, self.query_one("#report-view", Static)
        if s is None:
            return
        if s.report is None:
            view.update(
                Content.styled("No KPT report was written for this session.", "$text-muted")
            )
            return
        overview = report_overview(s.report.doc, self.index.ws.display(s.report.path))
        if ev is None or ev.report_id != s.report_id:  # not checked yet (or another report's)
            view.update(overview)
            return
        numbering = f" ({SHORT[ev.numbering]})" if ev.checked else ""
        metrics = Content.styled(f"\n\nMetrics against the transcript{numbering}\n", "bold")
        view.update(Content.assemble(overview, metrics, metrics_comparison(ev.metrics)))

    @on(VirtualTable.Highlighted, "#items")
    def item_highlighted(self, event: VirtualTable.Highlighted) -> None:
        check = self.pane.evidence.get(event.key)
        for view in self.query(TranscriptView):
            view.set_cited(check.view_turns if check is not None else ())

    async def action_evidence(self) -> None:
        """Show the turns the item under the cursor cites, in the transcript."""
        key = self.current_key()
        check = self.pane.evidence.get(key) if key else None
        if check is None:
            self.notify("The evidence is still being checked.", timeout=2)
            return
        if check.state == "no_transcript":
            self.notify("No transcript of this session was found.", timeout=3)
            return
        if not check.cited:
            self.notify("This item cites no turn.", timeout=2)
            return
        view = await self.transcript_view()
        view.set_cited(check.view_turns)
        await self.action_tab("transcript")
        if check.view_turns:
            view.jump_to_turn(min(check.view_turns))

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
