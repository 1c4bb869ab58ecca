"""The session screen's review keys: each acts on the item under the cursor (or the selected
try-items) through one store transaction in a worker; ``u`` undoes it."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.content import Content
from textual.screen import Screen

from screens.messages import FilesWritten, ReviewChanged
from screens.widgets.evidence_marks import evidence_detail
from screens.widgets.literal import literal
from screens.widgets.review_items import ReviewItems
from screens.widgets.virtual_table import VirtualTable
from screens.writing import start_write
from store.index.order import next_unreviewed
from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex
from store.insight.evidence import ReportEvidence
from store.ledger import Op
from store.models.kpt import SECTION_TITLES
from store.read.counted import counted
from store.read.kinds import Kind
from store.review.items import ItemRef, decide_keys


class ReviewKeys(Screen[None]):
    """The session screen's state and its review actions (the base of ``SessionScreen``)."""

    def __init__(
        self, index: WorkspaceIndex, session_key: str, item_key: str | None = None
    ) -> None:
        super().__init__()
        self.index = index
        self.session_key = session_key
        self.start_item = item_key
        self.pane = ReviewItems(index)
        #: the evidence checked for the session shown (None until the worker has read it)
        self.evidence: ReportEvidence | None = None
        #: items whose "evidence not found" the person has already waved through
        self.asked: set[str] = set()
        #: items whose decision is being written (the cursor does not come back to them)
        self.in_flight: set[str] = set()
        # the pane's own (they change in place): rows' items, rows without an id, selection
        self.items, self.no_id, self.selected = self.pane.items, self.pane.no_id, self.pane.selected

    @property
    def session(self) -> Session | None:
        return self.index.sessions.get(self.session_key)

    def refresh_items(self) -> None:
        if self.pane.show_items(self.session, self.start_item):
            self.start_item = None

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
        found = next_unreviewed(self.index, [s], s.key, after, skip=self.in_flight)
        if found is not None:
            self.query_one("#items", VirtualTable).move_to_key(found[1])
            return
        self.notify("Session reviewed. Press n for the next session.", title="Done", timeout=3)

    def decide(
        self,
        keys: list[str],
        op: Op,
        note: str | None = None,
        *,
        action: str | None = None,
        message: str | None = None,
        advance: bool = True,
    ) -> None:
        """Record a decision on ``keys`` as one transaction in a worker; the cursor moves on at
        once, the items are redrawn once written."""
        ws, led = self.index.ws, self.index.ledger
        s = self.session
        locs = self.index.report_loc(s) if s is not None else {}
        # until written, these items are skipped by the cursor and by approve-section
        self.in_flight.update(keys)
        if advance:  # at once: the next key acts on the next item while this one is written
            self.advance(keys[-1])

        def then(_result: object) -> None:
            self.refresh_items()
            self.decided(message)

        def always() -> None:
            self.in_flight.difference_update(keys)

        start_write(
            self,
            f"{action or op} {keys[0]}" + (f" +{len(keys) - 1}" if len(keys) > 1 else ""),
            lambda: decide_keys(ws, keys, op, note, action=action, ledger=led, locs=locs),
            then,
            always=always,
        )

    def action_approve(self) -> None:
        key = self.decision_key()
        if key is None:
            return
        check = self.pane.evidence.get(key)
        if check is None or not check.missing or key in self.asked:
            self.decide([key], "approve")
            return
        from screens.dialogs.confirm import ConfirmScreen

        def done(ok: bool | None) -> None:
            if ok:
                self.asked.add(key)
                self.decide([key], "approve")

        question = Content.assemble(
            Content.styled("Evidence not found for ", "bold $warning"),
            literal(key, "bold"),
            "\n",
            evidence_detail(check),
            "\n\nApprove anyway?",
        )
        self.app.push_screen(ConfirmScreen(question, "Approve anyway"), done)

    def action_reopen(self) -> None:
        key = self.decision_key()
        if key is not None:
            self.decide([key], "reopen", message=f"Reopened {key}", advance=False)

    def action_reject(self) -> None:
        key = self.decision_key()
        if key is None:
            return
        from screens.dialogs.note_prompt import NotePrompt

        def done(note: str | None) -> None:
            if note is not None:
                self.decide([key], "reject", note or None)

        self.app.push_screen(
            NotePrompt(Content.assemble("Reject ", literal(key, "bold"), "? Why (optional):")),
            done,
        )

    def action_approve_section(self) -> None:
        key = self.current_key()
        if key is None:
            return
        section, ledger = self.items[key][0], self.index.ledger
        in_section = [k for k, (sec, _i) in self.items.items() if sec == section]
        skip = self.no_id.keys() | self.in_flight
        pending = [k for k in in_section if k not in skip and ledger.state(k).state == "pending"]
        left_out = [k for k in in_section if k in self.no_id]
        if left_out:
            self.notify(
                f"{counted(len(left_out), 'item')} without an id left out: "
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
                self.decide(
                    pending,
                    "approve",
                    action="approve-section",
                    message=f"Approved {counted(len(pending), f'{SECTION_TITLES[section]} item')}",
                )

        question = Content.assemble(
            f"Approve the {counted(len(pending), f'remaining {SECTION_TITLES[section]} item')}?\n",
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
            doc, path = s.report.doc, s.report.path
            loc = self.index.ws.display(path)
            refs.append(ItemRef(doc.id or "", iid, section, item, doc, path, loc, "@" in rid))
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
            if saved:  # the selection stays: the next key is often p for the same items
                self.decided("Target saved.", written=frozenset(r.path for r in refs))

        self.app.push_screen(RetargetScreen(self.index, refs), done)

    @work(exclusive=True, group="export-feedback", exit_on_error=False)
    async def action_export_feedback(self) -> None:
        from screens.dialogs.export_flow import export_as_feedback

        s = self.session
        rkey = self.index.report_key(s) if s is not None else None
        if rkey:
            await export_as_feedback(self, self.index, rkey)

    def action_propose(self) -> None:
        key = self.current_key()
        s = self.session
        if key is None or s is None:
            return
        from screens.dialogs.propose import ProposeScreen

        section, item = self.items[key]
        note = self.index.ledger.state(key).note
        self.app.push_screen(ProposeScreen(self.index, s, section, item, note))

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
        rid = self.index.report_key(s)
        label = (
            f"{rid or self.index.ws.display(path)}: {section} item {place} (no id)"
            if place
            else key
        )
        # an item without a key is marked as an edit of the whole report
        subject = key if not place else rid
        form = ItemForm(self.index, path, section, item, label, subject, position=place)

        def done(saved: bool | None) -> None:
            if saved:
                self.decided(f"Saved {label} (u undoes)", written=frozenset({path}))

        self.app.push_screen(form, done)

    def action_edit_file(self) -> None:
        s = self.session
        if s is None or s.report is None:
            return
        from screens.dialogs.edit_flow import start_edit

        rid = self.index.report_key(s)
        start_edit(self, self.index, s.report.path, Kind.KPT, subject=rid or None)
