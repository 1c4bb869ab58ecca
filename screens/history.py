"""History: every transaction, newest first, its state (done, undone, blocked, aborted,
open), its diff, undo and redo."""

from __future__ import annotations

import asyncio

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Header, Static

from screens.list_screen import ListScreen
from screens.messages import EVERY_KIND, ReviewChanged
from screens.widgets.keys import HELP
from screens.widgets.literal import literal
from screens.widgets.virtual_table import Column, Row, VirtualTable
from store.errors import ReviewError
from store.index.workspace_index import WorkspaceIndex
from store.read.counted import counted
from store.read.isotime import parse_time
from store.tx import transactions as tx
from store.tx.transactions import TxView

COLUMNS = [
    Column("at", "When (local)", 16),
    Column("who", "Who", 10, drop=2),
    Column("action", "Action", 14),
    Column("subjects", "Subjects", None, min_width=16),
    Column("files", "Files", 5, align="right", drop=1),
    Column("state", "State", 8),
]
STATE_STYLE = {
    "done": "$success",
    "undone": "$text-muted",
    "blocked": "$warning",
    "aborted": "$error",
    "open": "$error",
}
#: How many transactions the list shows (the newest); the CLI's ``history`` shows all.
LIMIT = 2000


def when(at: str) -> str:
    """``2026-11-24T05:12:33+00:00`` → ``2026-11-24 14:12`` in a +09:00 zone: one column,
    one zone (the ledger keeps the writer's zone). Text that is no time is shown as it is."""
    t = parse_time(at)
    return t.astimezone().strftime("%Y-%m-%d %H:%M") if t else at[:16]


def subjects(view: TxView) -> str:
    more = f" +{len(view.subjects) - 3}" if len(view.subjects) > 3 else ""
    return ", ".join(view.subjects[:3]) + more


def row(view: TxView) -> Row:
    files = str(len(view.files)) if view.files else ""
    state = Content.styled(view.state, STATE_STYLE.get(view.state, ""))
    return view.id, (when(view.at), view.who or "", view.action, subjects(view), files, state)


def detail(view: TxView) -> Content:
    """The transaction in full: its id, who and when, every file and review change, and
    why it cannot be undone when it cannot."""
    parts: list[Content | str] = [
        Content.styled(view.title, "bold"),
        "\n",
        literal(f"{view.id} · {view.at}" + (f" · by {view.who}" if view.who else ""), "dim"),
        "\n",
        Content.styled(view.state, STATE_STYLE.get(view.state, "")),
    ]
    if view.reason:
        parts += [": ", literal(view.reason)]
    if view.undoes:
        parts += ["\n", literal(f"undoes {view.undoes}", "dim")]
    if view.redoes:
        parts += ["\n", literal(f"redoes {view.redoes}", "dim")]
    if view.note:
        parts += ["\nnote: ", literal(view.note)]
    if view.files:
        parts.append(Content.styled("\n\nFiles\n", "bold"))
        for f in view.files:
            record = f" ({f.record})" if f.record else ""
            parts += [literal(f"  {f.change:<10} ", "dim"), literal(f.path + record), "\n"]
    if view.effects:
        parts.append(Content.styled("\nReview state\n", "bold"))
        for op, target in view.effects:
            parts += [literal(f"  {op:<10} ", "dim"), literal(target), "\n"]
    keys = "enter diff · u undo" if view.undoable or view.state == "blocked" else "enter diff"
    if view.state == "undone" or (view.action == "undo" and view.state == "done"):
        keys += " · r redo"
    parts += ["\n", Content.styled(keys, "$text-muted")]
    return Content.assemble(*parts)


class HistoryScreen(ListScreen):
    DEFAULT_CSS = """
    HistoryScreen {
        #history-list { height: 2fr; }
        #history-detail-scroll { height: 1fr; min-height: 6; padding: 0 1; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("enter", "diff", "Diff", id="history.diff", priority=True),
        Binding("u", "turn('undo')", "Undo this", id="history.undo"),
        Binding("r", "turn('redo')", "Redo this", id="history.redo"),
        Binding("escape", "app.pop_screen", "Back", id="history.back"),
    ]

    SHOWS = EVERY_KIND  # a file changed anywhere may block (or free) an undo
    SHOWS_REVIEW = True
    LIST = "history-list"

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__(index)
        self.views: dict[str, TxView] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield VirtualTable(COLUMNS, id="history-list", classes="list")
            with VerticalScroll(id="history-detail-scroll", classes="pane"):
                yield Static(id="history-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.table.border_title = "History: reading…"

    def on_review_changed(self, _event: ReviewChanged) -> None:
        self.reload()

    @work(exclusive=True, group="history-load", exit_on_error=False)
    async def reload(self) -> None:
        ix = self.index
        views = await asyncio.to_thread(tx.history, ix.ws, limit=LIMIT, ledger=ix.ledger)
        self.views = {v.id: v for v in views}
        done = sum(1 for v in views if v.state == "done")
        title = f"History: {counted(len(views), 'transaction')} · {done} done (newest first)"
        self.show_rows([row(v) for v in views], title)

    def show_detail(self, key: str | None) -> None:
        view = self.views.get(key or "")
        box = self.query_one("#history-detail", Static)
        if view is None:
            box.update(Content.styled("Nothing has been written yet.", "$text-muted"))
            return
        box.update(detail(view))
        self.query_one("#history-detail-scroll", VerticalScroll).scroll_home(animate=False)

    def at_cursor(self) -> TxView | None:
        return self.views.get(self.table.cursor_key or "")

    @work(exclusive=True, group="history-diff", exit_on_error=False)
    async def action_diff(self) -> None:
        from screens.dialogs.text_view import TextView

        view = self.at_cursor()
        if view is None:
            return
        try:
            text = await asyncio.to_thread(
                tx.tx_diff, self.index.ws, view.id, ledger=self.index.ledger
            )
        except (OSError, ReviewError) as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.app.push_screen(TextView(view.title, text, title=f"{view.state} · {view.id}"))

    async def action_turn(self, verb: str) -> None:
        """Undo (or redo) the highlighted transaction, as the app's ``u`` does the last one."""
        view = self.at_cursor()
        if view is not None:
            await self.app.run_action(f"{verb}({view.id!r})")
