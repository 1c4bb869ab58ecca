"""The inbox: proposals waiting for a person, newest first, with what approving would write.

Each proposal shows who proposed it and when, the rationale and evidence, the proposed
document, and — where the target exists — a diff of current → proposed. ``a`` approves
(a stale proposal asks first), ``x`` rejects with a note, ``E`` edits the proposal (and its
payload) in ``$EDITOR``, ``o`` reopens a decided one, ``space`` selects several for one
decision, ``f`` switches between pending, decided and all. Decisions are written into the
proposal files, and ``u`` undoes them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, TextArea

from screens.messages import FilesWritten, ReviewChanged, WorkspaceChanged
from screens.widgets.document import field, heading, label, lines, value_text
from screens.widgets.literal import literal, visible
from screens.widgets.virtual_table import Column, Row, VirtualTable
from store.index.workspace_index import WorkspaceIndex
from store.read.kinds import Kind
from store.review.inbox import (
    Decision,
    InboxPlan,
    ProposalRef,
    apply_decisions,
    check_payload,
    list_proposals,
    plan_decision,
)
from store.review.items import ReviewError
from store.write.atomic import WriteError

COLUMNS = [
    Column("created", "Created", 11),
    Column("kind", "Kind", 12),
    Column("status", "Status", 8),
    Column("title", "Title", None, min_width=16),
]
FILTERS = ("pending", "decided", "all")
STATUS_STYLE = {"pending": "$warning", "approved": "$success", "rejected": "$error"}


class InboxScreen(Screen[None]):
    """Proposals waiting in the inbox, and their review."""

    DEFAULT_CSS = """
    InboxScreen {
        #inbox-list { width: 1fr; border: round $primary 50%; }
        #inbox-list:focus { border: round $primary; }
        #inbox-side { width: 1fr; }
        #inbox-detail-scroll { height: 1fr; padding: 0 1; border: round $secondary 50%; }
        #inbox-diff { height: 1fr; border: round $secondary 50%; }
    }
    """

    BINDINGS = [
        Binding("a", "decide('approve')", "Approve", id="inbox.approve"),
        Binding("x", "decide('reject')", "Reject", id="inbox.reject"),
        Binding("o", "decide('reopen')", "Reopen", id="inbox.reopen"),
        Binding("E", "edit", "Edit", id="inbox.edit"),
        Binding("space", "toggle_select", "Select", id="inbox.select"),
        Binding("f", "cycle_filter", "Pending/decided/all", id="inbox.filter"),
        Binding("u", "app.undo", "Undo", id="inbox.undo"),
        Binding("escape", "app.pop_screen", "Back", id="inbox.back"),
    ]

    SHOWS = frozenset({Kind.PROPOSAL, Kind.SKILL, Kind.PATTERN, Kind.ANTI_PATTERN, Kind.MEMORY})
    SHOWS_REVIEW = True

    def __init__(self, index: WorkspaceIndex, select: str | None = None) -> None:
        super().__init__()
        self.index = index
        #: the proposal (by id) to put the cursor on once listed
        self.start = select
        self.proposals: dict[str, ProposalRef] = {}
        self.filter = "pending"
        self.selected: set[str] = set()

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield VirtualTable(COLUMNS, id="inbox-list")
            with Vertical(id="inbox-side"):
                with VerticalScroll(id="inbox-detail-scroll"):
                    yield Static(id="inbox-detail")
                diff = TextArea("", read_only=True, id="inbox-diff", soft_wrap=False)
                diff.can_focus = False
                yield diff
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#inbox-list", VirtualTable).focus()
        self.reload()

    def on_workspace_changed(self, _event: WorkspaceChanged) -> None:
        self.reload()

    def on_review_changed(self, _event: ReviewChanged) -> None:
        self.reload()

    @work(thread=True, exclusive=True, group="inbox-load")
    def reload(self) -> None:
        refs = list_proposals(self.index.ws)
        self.app.call_from_thread(self.show_list, refs)

    def show_list(self, refs: list[ProposalRef]) -> None:
        self.proposals = {r.id: r for r in refs}
        table = self.query_one("#inbox-list", VirtualTable)
        shown = [
            r
            for r in refs
            if self.filter == "all" or (r.status == "pending") == (self.filter == "pending")
        ]
        rows: list[Row] = []
        for r in shown:
            d = r.doc
            mark = Content.styled("> ", "bold $accent") if r.id in self.selected else Content("")
            rows.append(
                (
                    r.id,
                    (
                        literal((d.created_at or "")[5:16].replace("T", " ")),
                        literal(d.kind or "?"),
                        Content.styled(r.status, STATUS_STYLE.get(r.status, "")),
                        Content.assemble(mark, literal(d.title or r.id, keep_newlines=False)),
                    ),
                )
            )
        table.set_rows(rows)
        if self.start is not None:
            table.move_to_key(self.start)
            self.start = None
        pending = sum(1 for r in refs if r.status == "pending")
        table.border_title = f"Inbox: {pending} pending of {len(refs)} ({self.filter})"
        self.show_detail(table.cursor_key)

    @on(VirtualTable.Highlighted, "#inbox-list")
    def highlighted(self, event: VirtualTable.Highlighted) -> None:
        self.show_detail(event.key)

    def show_detail(self, pid: str | None) -> None:
        detail = self.query_one("#inbox-detail", Static)
        diff = self.query_one("#inbox-diff", TextArea)
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

    @work(thread=True, exclusive=True, group="inbox-preview")
    def plan_preview(self, ref: ProposalRef) -> None:
        plan = plan_decision(self.index.ws, ref, "approve")
        self.app.call_from_thread(self.show_preview, ref.id, plan)

    def show_preview(self, pid: str, plan: InboxPlan) -> None:
        if self.query_one("#inbox-list", VirtualTable).cursor_key != pid:
            return
        diff = self.query_one("#inbox-diff", TextArea)
        label = self.index.ws.display(plan.target) if plan.target else "target"
        head = ""
        if plan.refused:
            head = f"# approving is refused: {plan.refused.removeprefix('refused: ')}\n"
        elif plan.stale:
            head = f"# STALE: {plan.stale}\n"
        text = plan.diff(label) or "(approving would not change the target)"
        diff.load_text(visible(head + text))
        diff.border_title = Content.assemble("approve → ", literal(label, keep_newlines=False))

    # -- decisions ---------------------------------------------------------------

    def chosen(self) -> list[ProposalRef]:
        keys = [k for k in self.proposals if k in self.selected]
        if not keys:
            key = self.query_one("#inbox-list", VirtualTable).cursor_key
            keys = [key] if key else []
        return [self.proposals[k] for k in keys if k in self.proposals]

    def action_toggle_select(self) -> None:
        key = self.query_one("#inbox-list", VirtualTable).cursor_key
        if key:
            self.selected ^= {key}
            self.show_list(list(self.proposals.values()))

    def action_cycle_filter(self) -> None:
        self.filter = FILTERS[(FILTERS.index(self.filter) + 1) % len(FILTERS)]
        self.show_list(
            sorted(
                self.proposals.values(), key=lambda r: (r.doc.created_at or "", r.id), reverse=True
            )
        )

    def action_decide(self, decision: Decision) -> None:
        refs = self.chosen()
        if refs:
            self.decide(refs, decision)

    @work(exclusive=True, group="inbox-decide")
    async def decide(self, refs: list[ProposalRef], decision: Decision) -> None:
        from screens.dialogs.confirm import ConfirmScreen
        from screens.dialogs.note_prompt import NotePrompt

        note: str | None = None
        if decision == "reject":
            names = ", ".join(r.id for r in refs)
            note = await self.app.push_screen_wait(
                NotePrompt(Content.assemble("Reject ", literal(names, "bold"), "? Why (optional):"))
            )
            if note is None:
                return
        ws = self.index.ws
        plans = await asyncio.to_thread(
            lambda: [plan_decision(ws, r, decision, note) for r in refs]
        )
        refused = [p for p in plans if p.refused]
        if refused:
            self.notify(
                f"{refused[0].ref.id}: {refused[0].refused}", severity="error", markup=False
            )
            return
        stale = [p for p in plans if p.stale]
        if decision == "approve":
            text = Content.assemble(
                f"Approve {len(plans)} proposal(s)? This writes:\n",
                literal(
                    "\n".join(
                        f"• {self.index.ws.display(p.target) if p.target else '?'}" for p in plans
                    )
                ),
            )
            if stale:
                text = Content.assemble(
                    Content.styled("Stale: ", "bold $warning"),
                    literal("\n".join(f"{p.ref.id}: {p.stale}" for p in stale)),
                    "\n\n",
                    text,
                )
            if not await self.app.push_screen_wait(ConfirmScreen(text, "Approve")):
                return
        try:
            await asyncio.to_thread(
                apply_decisions, self.index.ws, self.index.ledger, plans, allow_stale=True
            )
        except (ReviewError, WriteError) as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.selected.clear()
        written = {p.ref.path for p in plans} | {
            p.target for p in plans if p.target and decision == "approve"
        }
        self.app.post_message(FilesWritten(frozenset(written), review=True))
        verb = {"approve": "Approved", "reject": "Rejected", "reopen": "Reopened"}[decision]
        self.notify(f"{verb} {len(plans)} proposal(s). u undoes.", timeout=3)

    def action_edit(self) -> None:
        refs = self.chosen()
        if refs:
            self.edit_externally(refs[0].path)

    @work(exclusive=True, group="inbox-edit")
    async def edit_externally(self, path: Path) -> None:
        from screens.dialogs.edit_flow import edit_in_editor

        await edit_in_editor(self, self.index.ws, path, Kind.PROPOSAL)
