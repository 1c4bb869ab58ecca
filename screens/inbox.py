"""The inbox: proposals waiting for a person, newest first, with what approving would write.
Decisions are written into the proposal files; ``u`` undoes them."""

from __future__ import annotations

import asyncio

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Header, Static

from screens.dialogs.budget_prompt import (
    budget_checks,
    confirm_budgets,
    merge_writes,
)
from screens.dialogs.secret_prompt import confirm_secret_override
from screens.list_screen import ListScreen
from screens.messages import FilesWritten, ReviewChanged
from screens.widgets.cjk_wrap import WrappedText
from screens.widgets.diff_view import DiffView
from screens.widgets.document import field, heading, label, lines, value_text
from screens.widgets.keys import HELP
from screens.widgets.literal import literal
from screens.widgets.table_rows import cut_path
from screens.widgets.virtual_table import Column, Row, VirtualTable
from screens.writing import run_write
from store.index.workspace_index import WorkspaceIndex
from store.read.counted import counted
from store.read.kinds import Kind
from store.review.inbox import (
    Decision,
    InboxPlan,
    ProposalRef,
    check_payload,
    decide_proposals,
    known_proposals,
    plan_decision,
)
from store.tx.transactions import TxResult

COLUMNS = [
    Column("created", "Created", 11),
    Column("kind", "Kind", 12),
    Column("status", "Status", 8),
    Column("title", "Title", None, min_width=16),
]
FILTERS = ("pending", "decided", "all")
STATUS_STYLE = {"pending": "$warning", "approved": "$success", "rejected": "$error"}


def proposal_row(r: ProposalRef, selected: bool) -> Row:
    d = r.doc
    created = literal((d.created_at or "")[5:16].replace("T", " "))
    status = Content.styled(r.status, STATUS_STYLE.get(r.status, ""))
    mark = Content.styled("> ", "bold $accent") if selected else Content("")
    title = Content.assemble(mark, literal(d.title or r.id, keep_newlines=False))
    return r.id, (created, literal(d.kind or "?"), status, title)


class InboxScreen(ListScreen):
    DEFAULT_CSS = """
    InboxScreen {
        #inbox-list { height: 2fr; min-height: 5; }
        #inbox-side { height: 3fr; }
        #inbox-detail-scroll { width: 1fr; height: 1fr; padding: 0 1; }
        #inbox-diff { width: 1fr; height: 1fr; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("a", "decide('approve')", "Approve", id="inbox.approve"),
        Binding("x", "decide('reject')", "Reject", id="inbox.reject"),
        Binding("u", "app.undo", "Undo", id="inbox.undo"),
        Binding("o", "decide('reopen')", "Reopen", id="inbox.reopen"),
        Binding("E", "edit", "Edit", id="inbox.edit"),
        Binding("space", "toggle_select", "Select", id="inbox.select"),
        Binding("f", "cycle_filter", "Pending/decided/all", id="inbox.filter"),
        Binding("escape", "app.pop_screen", "Back", id="inbox.back"),
    ]

    SHOWS = frozenset({Kind.PROPOSAL, Kind.SKILL, Kind.PATTERN, Kind.ANTI_PATTERN, Kind.MEMORY})
    SHOWS_REVIEW = True
    LIST = "inbox-list"

    def __init__(self, index: WorkspaceIndex, select: str | None = None) -> None:
        super().__init__(index)
        self.current = select  # the proposal (by id) to put the cursor on once listed
        self.proposals: dict[str, ProposalRef] = {}
        self.filter = "pending"
        self.selected: set[str] = set()

    def compose(self) -> ComposeResult:
        yield Header()
        # the list across the whole width (its titles have the room), the proposal and
        # what approving it writes side by side below
        with Vertical():
            yield VirtualTable(COLUMNS, id="inbox-list", classes="list")
            with Horizontal(id="inbox-side"):
                with VerticalScroll(id="inbox-detail-scroll", classes="pane"):
                    yield WrappedText(id="inbox-detail")
                yield DiffView(id="inbox-diff", classes="pane")
        yield Footer()

    def on_review_changed(self, _event: ReviewChanged) -> None:
        self.reload()

    @work(exclusive=True, group="inbox-load", exit_on_error=False)
    async def reload(self) -> None:
        self.show_list(await asyncio.to_thread(known_proposals, self.index))

    def show_list(self, refs: list[ProposalRef]) -> None:
        self.proposals = {r.id: r for r in refs}
        shown = [
            r
            for r in refs
            if self.filter == "all" or (r.status == "pending") == (self.filter == "pending")
        ]
        rows = [proposal_row(r, r.id in self.selected) for r in shown]
        pending = sum(1 for r in refs if r.status == "pending")
        self.show_rows(rows, f"Inbox: {pending} pending of {len(refs)} ({self.filter})")

    def show_detail(self, pid: str | None) -> None:
        detail = self.query_one("#inbox-detail", Static)
        diff = self.query_one("#inbox-diff", DiffView)
        if pid != self.current:
            # another proposal is read from its title, not from where the last one was left
            self.query_one("#inbox-detail-scroll", VerticalScroll).scroll_home(animate=False)
        ref = self.proposals.get(pid or "")
        if ref is None:
            detail.update(Content.styled("No proposals here. f shows decided ones.", "$text-muted"))
            diff.load_text("")
            return
        self.plan_preview(ref)
        d = ref.doc
        out = [
            Content.assemble(
                literal(d.title or ref.id, "bold"),
                "  ",
                literal(ref.status, STATUS_STYLE.get(ref.status, ""), keep_newlines=False),
            ),
            field("id", ref.id),
            field("kind", d.kind),
            field("proposed by", d.proposed_by),
            field("created", d.created_at),
            field("session", d.session_id),
            field("target", d.target),
        ]
        if d.base_version is not None:
            out.append(field("base version", d.base_version))
        if d.decided_at:
            out += [field("decided", d.decided_at), field("note", d.decision_note)]
        errors = check_payload(d)
        if errors:
            out += [Content(""), Content.styled("The payload is not valid:", "bold $error")]
            out += [literal(f"• {e}", "$error") for e in errors[:6]]
        out += [Content(""), heading("Rationale"), literal(d.rationale or "—")]
        if d.evidence:
            out += [Content(""), heading("Evidence")]
            out += [literal(f"• {value_text(e)}") for e in d.evidence]
        if d.payload:
            out += [Content(""), heading(f"Proposed {d.kind or 'document'}")]
            for key, value in d.payload.items():
                if isinstance(value, str) and "\n" in value:
                    out += [label(str(key)), literal(value)]
                else:
                    out.append(field(str(key), value))
        detail.update(lines(out))

    def show_budget(self, pid: str, sizes: list[str]) -> None:
        """The target's size before → after approving, against its budget (the pane's
        title: cut with an ellipsis when the pane is narrower still)."""
        if self.table.cursor_key == pid:
            scroll = self.query_one("#inbox-detail-scroll")
            scroll.border_title = literal(" · ".join(sizes), keep_newlines=False) if sizes else ""

    @work(thread=True, exclusive=True, group="inbox-preview", exit_on_error=False)
    def plan_preview(self, ref: ProposalRef) -> None:
        plan = plan_decision(self.index.ws, ref, "approve")
        self.app.call_from_thread(self.show_preview, ref.id, plan)
        writes = merge_writes([(plan.target, plan.before, plan.after)])
        # the one target's name is the diff pane's title: the budget's figures alone here,
        # so that a narrow pane still shows them whole
        sizes = [c.figures for c in budget_checks(self.index.ws, writes) if c.budget is not None]
        self.app.call_from_thread(self.show_budget, ref.id, sizes)

    def show_preview(self, pid: str, plan: InboxPlan) -> None:
        if self.table.cursor_key != pid:
            return
        diff = self.query_one("#inbox-diff", DiffView)
        label = self.index.ws.display(plan.target) if plan.target else "target"
        head = ""
        if plan.refused:
            head = f"# approving is refused: {plan.refused.removeprefix('refused: ')}\n"
        elif plan.stale:
            head = f"# STALE: {plan.stale}\n"
        text = plan.diff(label) or "(approving would not change the target)"
        diff.load_text(head + text)
        room = diff.outer_size.width - 6 - len("approve → ")  # the corners and spaces
        shown = literal(label, keep_newlines=False)
        diff.border_title = Content.assemble(
            "approve → ", cut_path(shown, room) if room > 8 else shown
        )

    # -- decisions ---------------------------------------------------------------

    def chosen(self) -> list[ProposalRef]:
        keys = [k for k in self.proposals if k in self.selected]
        if not keys:
            key = self.table.cursor_key
            keys = [key] if key else []
        return [self.proposals[k] for k in keys if k in self.proposals]

    def action_toggle_select(self) -> None:
        key = self.table.cursor_key
        if key:
            self.selected ^= {key}
            self.show_list(list(self.proposals.values()))

    def action_cycle_filter(self) -> None:
        self.filter = FILTERS[(FILTERS.index(self.filter) + 1) % len(FILTERS)]
        self.show_list(list(self.proposals.values()))  # (kept newest first, as listed)

    def action_decide(self, decision: Decision) -> None:
        refs = self.chosen()
        if refs:
            self.decide(refs, decision)

    @work(exclusive=True, group="inbox-decide", exit_on_error=False)
    async def decide(self, refs: list[ProposalRef], decision: Decision) -> None:
        from screens.dialogs.note_prompt import NotePrompt

        ws, led = self.index.ws, self.index.ledger
        plans = await asyncio.to_thread(lambda: [plan_decision(ws, r, decision) for r in refs])
        refused = [p for p in plans if p.refused]
        allow = False  # the secret scan overridden, explicitly
        if refused and decision == "approve" and all(p.secrets for p in refused):
            hits = [h for p in refused for h in p.secrets]
            if not await confirm_secret_override(self, hits, "the proposal's payload"):
                return
            allow = True
            plans = await asyncio.to_thread(
                lambda: [plan_decision(ws, r, decision, allow_secrets=True) for r in refs]
            )
            refused = [p for p in plans if p.refused]
        if refused:
            self.notify(
                f"{refused[0].ref.id}: {refused[0].refused}", severity="error", markup=False
            )
            return
        names = ", ".join(r.id for r in refs)
        note: str | None = None
        if decision == "approve":
            stale = [p for p in plans if p.stale]
            text = Content.assemble(
                f"Approve {counted(len(plans), 'proposal')}? This writes:\n",
                literal("\n".join(f"• {ws.display(p.target) if p.target else '?'}" for p in plans)),
                "\nA note for the proposer (optional):",
            )
            if stale:
                text = Content.assemble(
                    Content.styled("Stale: ", "bold $warning"),
                    literal("\n".join(f"{p.ref.id}: {p.stale}" for p in stale)),
                    "\n\n",
                    text,
                )
            note = await self.app.push_screen_wait(NotePrompt(text, "Approve"))
        elif decision == "reject":
            note = await self.app.push_screen_wait(
                NotePrompt(Content.assemble("Reject ", literal(names, "bold"), "? Why (optional):"))
            )
        else:
            note = ""
        if note is None:
            return
        if decision == "approve" and not await confirm_budgets(
            self, ws, merge_writes((p.target, p.before, p.after) for p in plans)
        ):
            return

        def write() -> TxResult:
            # planned again with the note (it goes into each proposal file), from the
            # files as they are now; the transaction checks them once more under its lock
            final = [
                plan_decision(ws, r, decision, note or None, allow_secrets=allow) for r in refs
            ]
            return decide_proposals(ws, final, allow_stale=True, ledger=led)

        outcome = await run_write(self, f"{decision} {names}", write)
        if not outcome.ok or outcome.value is None:
            return
        self.selected.clear()
        self.app.post_message(FilesWritten(frozenset(outcome.value.paths), review=True))
        verb = {"approve": "Approved", "reject": "Rejected", "reopen": "Reopened"}[decision]
        self.notify(f"{verb} {counted(len(plans), 'proposal')}. u undoes.", timeout=3)

    def action_edit(self) -> None:
        refs = self.chosen()
        if refs:
            from screens.dialogs.edit_flow import start_edit

            start_edit(self, self.index, refs[0].path, Kind.PROPOSAL)
