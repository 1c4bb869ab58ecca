"""Discussions: agents' replies and their seed-002 metadata block (``*``: a fallback value).

``p`` drafts a person's KPT report and ``R`` a proposal from the picked entries; both are
checked and written only when saved, never into the agent's files."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Header, Markdown, OptionList, Static

from screens.dialogs.person_report import PersonReportDialog
from screens.list_screen import ListScreen
from screens.widgets.keys import HELP
from screens.widgets.literal import visible
from screens.widgets.reply import discussion_cells, entry_options, head_view
from screens.widgets.virtual_table import Column, Row, VirtualTable
from store.index.discussions import Discussion, read_discussions
from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex
from store.read.kinds import Kind
from store.review.person_report import (
    Pick,
    PickKind,
    draft_person_report,
    render_report,
)
from store.review.propose import REPLY_ENTRIES, item_from_reply

COLUMNS = [
    Column("status", "Status", 9, drop=1),
    Column("verdict", "Verdict", 7, drop=2),
    Column("findings", "Findings", 9, drop=4),
    Column("blockers", "Block", 5, drop=3),
    Column("open", "Open", 4, drop=5),
    Column("decisions", "Dec.", 4, drop=6),
    Column("next", "Next", 4, drop=7),
    Column("name", "Discussion", None, min_width=16, path=True),
]
#: Option id prefix → what ``p`` makes of it.
PICKABLE: dict[str, PickKind] = {
    "finding": "finding",
    "blocker": "blocker",
    "next_step": "next_step",
}


class DiscussionsScreen(ListScreen):
    TITLE = "Discussions"

    DEFAULT_CSS = """
    DiscussionsScreen {
        #disc-list { height: 35%; min-height: 6; }
        #disc-head { height: auto; max-height: 10; padding: 0 1; }
        #disc-detail { height: 1fr; }
        #disc-items { width: 1fr; height: 1fr; }
        #disc-body-scroll { width: 1fr; height: 1fr; padding: 0 1; }
        #disc-body { height: auto; margin: 0; padding: 0; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("p", "to_kpt", "To KPT report", id="discussions.to_kpt"),
        Binding("R", "propose", "Propose", id="discussions.propose"),
        Binding("space", "toggle_pick", "Pick", id="discussions.pick"),
        Binding("u", "app.undo", "Undo", id="discussions.undo", show=False),
        Binding("escape", "back", "Back", id="discussions.back"),
    ]

    SHOWS = frozenset({Kind.DISCUSSION, Kind.KPT})
    LIST = "disc-list"

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__(index)
        self.discussions: dict[str, Discussion] = {}
        self.picked: dict[str, set[str]] = {}
        self._cache: dict[Path, Discussion] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield VirtualTable(COLUMNS, id="disc-list", classes="list")
        yield Static(id="disc-head")
        with Horizontal(id="disc-detail"):
            yield OptionList(id="disc-items", classes="pane")
            with VerticalScroll(id="disc-body-scroll", classes="pane"):
                yield Markdown(id="disc-body", open_links=False)
        yield Footer()

    def on_mount(self) -> None:
        self.table.border_title = "Discussions"
        self.table.border_subtitle = "* fallback value (no readable block)"
        self.query_one("#disc-items", OptionList).border_title = "Metadata"
        self.query_one("#disc-body-scroll", VerticalScroll).border_title = "Reply"

    def on_resize(self, _event: events.Resize) -> None:
        self.call_after_refresh(self.refresh_entries)

    # -- loading -------------------------------------------------------------------

    @work(exclusive=True, group="discussions-load", exit_on_error=False)
    async def reload(self) -> None:
        found, self._cache = await asyncio.to_thread(read_discussions, self.index, self._cache)
        self.discussions = {str(d.path): d for d in found}
        rows: list[Row] = [(str(d.path), discussion_cells(d)) for d in found]
        self.show_rows(rows, f"Discussions ({len(rows)})")

    # -- showing -------------------------------------------------------------------

    @on(VirtualTable.Selected, "#disc-list")
    def row_selected(self, _event: VirtualTable.Selected) -> None:
        self.query_one("#disc-items", OptionList).focus()

    def show_detail(self, key: str | None) -> None:
        self.current = key  # (the entries are drawn for it)
        head = self.query_one("#disc-head", Static)
        body = self.query_one("#disc-body", Markdown)
        d = self.discussions.get(key or "")
        if d is None:
            head.update(
                Content.styled(
                    "No discussions here yet. Agents' replies go under discussions/.",
                    "$text-muted",
                )
            )
            self.refresh_entries()
            body.update("")
            return
        head.update(head_view(d))
        self.refresh_entries()
        self.query_one("#disc-body-scroll", VerticalScroll).scroll_home(animate=False)
        text = d.reply.body if d.reply is not None else ""
        body.update(visible(text) if text.strip() else "*The reply has no text besides its block.*")

    def refresh_entries(self) -> None:
        items = self.query_one("#disc-items", OptionList)
        before = items.highlighted
        d = self.discussions.get(self.current or "")
        items.clear_options()
        if d is None:
            return
        width = items.scrollable_content_region.width - 2
        items.add_options(
            entry_options(
                d.reply, self.picked.get(self.current or "", set()), width if width > 20 else None
            )
        )
        if before is not None and before < items.option_count:
            items.highlighted = before
        else:
            items.action_first()

    # -- acting --------------------------------------------------------------------

    def action_back(self) -> None:
        if self.focused is self.query_one("#disc-items", OptionList):
            self.query_one("#disc-list", VirtualTable).focus()
        else:
            self.app.pop_screen()

    def highlighted_entry(self) -> str | None:
        items = self.query_one("#disc-items", OptionList)
        opt = items.highlighted_option
        return opt.id if opt is not None and not opt.disabled else None

    def action_toggle_pick(self) -> None:
        key = self.highlighted_entry()
        if key is None or key.split(":", 1)[0] not in PICKABLE or self.current is None:
            self.notify(
                "Pick findings, blockers and next steps (move to them with enter or tab).",
                timeout=3,
            )
            return
        picked = self.picked.setdefault(self.current, set())
        picked ^= {key}
        self.refresh_entries()

    def _picks(self) -> list[Pick]:
        keys = sorted(self.picked.get(self.current or "", set()), key=_entry_order)
        if not keys:
            key = self.highlighted_entry()
            keys = [key] if key and key.split(":", 1)[0] in PICKABLE else []
        return [Pick(PICKABLE[k.split(":")[0]], int(k.split(":")[1])) for k in keys]

    def action_to_kpt(self) -> None:
        d = self.discussions.get(self.current or "")
        if d is None or d.reply is None:
            return
        picks = self._picks()
        if not picks:
            self.notify(
                "Highlight a finding, blocker or next step (enter moves to them), "
                "or pick several with space.",
                title="Nothing to write",
                timeout=4,
            )
            return
        rid, data = draft_person_report(self.index.ws, d.reply, d.display, picks)
        key = self.current

        def done(path: Path | None) -> None:
            if path is not None and key is not None:
                self.picked.pop(key, None)
                self.refresh_entries()

        self.app.push_screen(
            PersonReportDialog(self.index, rid, render_report(data), d.display), done
        )

    def action_propose(self) -> None:
        d = self.discussions.get(self.current or "")
        key = self.highlighted_entry()
        if d is None or d.reply is None or key is None:
            self.notify("Highlight a finding, blocker, decision or next step first.", timeout=3)
            return
        kind, _, num = key.partition(":")
        if kind not in REPLY_ENTRIES:
            self.notify("Proposals are drafted from findings, blockers, decisions and next steps.")
            return
        section, item, note = item_from_reply(d.reply, d.display, kind, int(num))
        from screens.dialogs.propose import ProposeScreen

        session = Session(f"discussion:{d.display}")
        self.app.push_screen(ProposeScreen(self.index, session, section, item, note))


def _entry_order(key: str) -> tuple[int, int]:
    kind, _, num = key.partition(":")
    order = {"finding": 0, "blocker": 1, "next_step": 2}
    return order.get(kind, 9), int(num) if num.isdigit() else 0
