"""Changes: what was written into the files agents load since the person last looked (#45):
each file that differs from its reviewed state, who made it, and its diff. Keep, edit then
keep, revert, or revert one hunk: each one transaction. The list follows the disk."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Footer, Header, Static

from screens.dialogs.budget_prompt import confirm_budgets
from screens.dialogs.edit_flow import edit_copy
from screens.dialogs.secret_prompt import confirm_secret_override
from screens.list_screen import ListScreen
from screens.messages import FilesWritten, Open, SessionTarget
from screens.widgets.diff_view import DiffView
from screens.widgets.keys import HELP
from screens.widgets.literal import literal
from screens.widgets.virtual_table import Column, Row, VirtualTable
from screens.writing import run_write
from store.check.secrets import scan_added
from store.index.workspace_index import WorkspaceIndex
from store.insight.change_git import Commit
from store.read.kinds import Kind
from store.review.changes import (
    Change,
    first_start_line,
    keep,
    keep_edited,
    list_changes,
    revert,
)
from store.tx.transactions import TxResult

COLUMNS = [
    Column("path", "File", None, min_width=20),
    Column("status", "Change", 9),
    Column("lines", "Lines", 9, align="right", drop=2),
    Column("source", "Made by", 34, drop=1),
    Column("marks", "Marks", 16, drop=3),
]
STATUS_STYLE = {"modified": "$warning", "new": "$success", "deleted": "$error"}


def row(ch: Change) -> Row:
    added, removed = ch.counts()
    status = Content.styled(ch.status, STATUS_STYLE.get(ch.status, ""))
    source = ch.source.describe() if ch.source is not None else "unknown"
    marks = Content.styled(", ".join(ch.marks), "$error") if ch.marks else ""
    return ch.key, (ch.key, status, f"+{added} −{removed}", source, marks)


def detail(ch: Change, hunk: int) -> Content:
    """Who made the change, its marks, and the keys."""
    parts: list[Content | str] = [literal(ch.key, "bold"), "  ", literal(ch.status, "dim")]
    if ch.source is not None:
        src = ch.source
        parts += ["\n", literal(f"{src.describe()} · {src.at or ''}", "dim")]
    else:
        parts += ["\n", Content.styled("made by: unknown (no tool call named this file)", "dim")]
    for hit in ch.secrets[:3]:
        parts += ["\n", Content.styled("secret: ", "$error"), literal(hit.describe())]
    if ch.budget is not None and ch.budget.crosses:
        parts += ["\n", Content.styled("budget: ", "$error"), literal(ch.budget.summary)]
    keys = "a keep · E edit, keep · r revert"
    if ch.hunks > 1:
        keys += f" · [ ] hunk {hunk} of {ch.hunks} · h revert this hunk"
    parts += ["\n", Content.styled(keys, "$text-muted")]
    return Content.assemble(*parts)


class ChangesScreen(ListScreen):
    DEFAULT_CSS = """
    ChangesScreen {
        #changes-list { height: 1fr; }
        #changes-detail { height: auto; max-height: 6; padding: 0 1; }
        #changes-diff { height: 2fr; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("a", "keep", "Keep", id="changes.keep"),
        Binding("E", "edit_keep", "Edit, keep", id="changes.edit_keep"),
        Binding("r", "revert", "Revert", id="changes.revert"),
        Binding("h", "revert_hunk", "Revert hunk", id="changes.revert_hunk"),
        Binding("right_square_bracket", "hunk(1)", "Next hunk", id="changes.next_hunk"),
        Binding("left_square_bracket", "hunk(-1)", "Previous hunk", id="changes.prev_hunk"),
        Binding("enter", "open_session", "Session", id="changes.session", priority=True),
        Binding("u", "app.undo", "Undo", id="changes.undo"),
        Binding("escape", "app.pop_screen", "Back", id="changes.back"),
    ]

    #: told of nothing by the index: the app calls :meth:`changes_moved` when the disk moves
    SHOWS: frozenset[Kind | None] = frozenset()
    LIST = "changes-list"

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__(index)
        self.changes: dict[str, Change] = {}
        self.hunk = 1

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield VirtualTable(COLUMNS, id="changes-list", classes="list")
            yield Static(id="changes-detail")
            yield DiffView(id="changes-diff", classes="pane")
        yield Footer()

    def on_mount(self) -> None:
        self.table.border_title = "Changes since your last review: reading…"

    def changes_moved(self) -> None:
        """A tracked file or the reviewed state moved (the app's poll)."""
        self.reload()

    @work(exclusive=True, group="changes-load", exit_on_error=False)
    async def reload(self) -> None:
        ix = self.index
        found, recorded = await asyncio.to_thread(list_changes, ix.ws, ledger=ix.ledger)
        self.changes = {c.key: c for c in found}
        title = f"Changes since your last review: {len(found)}"
        if recorded is not None:
            title = first_start_line(recorded)
        self.show_rows([row(c) for c in found], title)

    def at_cursor(self) -> Change | None:
        return self.changes.get(self.table.cursor_key or "")

    def show_detail(self, key: str | None) -> None:
        if key != self.current:
            self.hunk = 1
        ch = self.changes.get(key or "")
        box = self.query_one("#changes-detail", Static)
        diff = self.query_one("#changes-diff", DiffView)
        if ch is None:
            box.update(Content.styled("Nothing changed since your last review.", "$text-muted"))
            diff.load_text("")
            return
        self.hunk = min(max(self.hunk, 1), max(ch.hunks, 1))
        box.update(detail(ch, self.hunk))
        diff.load_text(ch.diff())

    def action_hunk(self, step: int) -> None:
        ch = self.at_cursor()
        if ch is not None and ch.hunks > 1:
            self.hunk = (self.hunk - 1 + step) % ch.hunks + 1
            self.query_one("#changes-detail", Static).update(detail(ch, self.hunk))

    async def _write(self, what: str, fn: Callable[[], TxResult]) -> None:
        outcome = await run_write(self, what, fn)
        if not outcome.ok or outcome.value is None:
            return
        self.app.post_message(FilesWritten(frozenset(outcome.value.paths), review=True))
        self.notify(f"{what}. u undoes.", timeout=3, markup=False)
        self.reload()

    @work(exclusive=True, group="changes-write", exit_on_error=False)
    async def action_keep(self) -> None:
        ch = self.at_cursor()
        if ch is not None:
            ws, led = self.index.ws, self.index.ledger
            await self._write(f"Kept {ch.key}", lambda: keep(ws, [ch], ledger=led))

    @work(exclusive=True, group="changes-write", exit_on_error=False)
    async def action_edit_keep(self) -> None:
        ch = self.at_cursor()
        if ch is None:
            return
        ws, led = self.index.ws, self.index.ledger
        shown = ch.current if ch.current is not None else ch.reviewed or b""
        after = await edit_copy(self, ws, ch.path, shown)
        if after is None:
            return
        hits = await asyncio.to_thread(scan_added, ch.reviewed, after, ch.key)
        if hits and not await confirm_secret_override(self, hits, f"the edited {ch.key}"):
            return
        if not await confirm_budgets(self, ws, [(ch.path, ch.reviewed, after)]):
            return
        allow = bool(hits)
        await self._write(
            f"Edited and kept {ch.key}",
            lambda: keep_edited(ws, ch, after, allow_secrets=allow, ledger=led),
        )

    @work(exclusive=True, group="changes-write", exit_on_error=False)
    async def action_revert(self) -> None:
        ch = self.at_cursor()
        if ch is not None:
            ws, led = self.index.ws, self.index.ledger
            await self._write(f"Reverted {ch.key}", lambda: revert(ws, ch, ledger=led))

    @work(exclusive=True, group="changes-write", exit_on_error=False)
    async def action_revert_hunk(self) -> None:
        ch, n = self.at_cursor(), self.hunk
        if ch is not None:
            ws, led = self.index.ws, self.index.ledger
            what = f"Reverted hunk {n} of {ch.key}"
            await self._write(what, lambda: revert(ws, ch, n, ledger=led))

    def action_open_session(self) -> None:
        ch = self.at_cursor()
        src = ch.source if ch is not None else None
        if src is None:
            self.notify("No session is known to have made this change.", severity="warning")
        elif isinstance(src, Commit):
            self.notify(f"Brought by git: {src.describe()} ({src.at})", markup=False)
        elif f"sid:{src.session}" not in self.index.sessions:
            self.notify(
                f"{src.transcript}:{src.line} (turn {src.turn}) — no report lists this session",
                markup=False,
            )
        else:
            self.post_message(Open(SessionTarget(f"sid:{src.session}", turn=src.turn)))
