"""A session's KPT items beside the highlighted item's detail. An item without an id is keyed
by its place (``"#keep:2"``: never a ledger key) and cannot be decided on."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex
from store.insight.evidence import EvidenceCheck
from store.ledger import item_key
from store.models.kpt import SECTION_TITLES, KptItem
from store.review.items import missing_id

from .cjk_wrap import WrappedText
from .document import item_detail, label, state_content
from .evidence_marks import evidence_detail, evidence_mark
from .literal import literal
from .virtual_table import Column, Row, VirtualTable

ITEM_COLUMNS = [
    Column("state", "State", 12),
    Column("section", "Section", 8, drop=1),
    Column("id", "Id", 9),
    Column("description", "Description", None, min_width=40),
]


class ReviewItems(Horizontal):
    """The items (``#items``) and the highlighted one's detail (``#item-detail``)."""

    DEFAULT_CSS = """
    ReviewItems {
        #items { width: 3fr; height: 1fr; }
        #item-detail-scroll { width: 2fr; height: 1fr; padding: 0 1; }
    }
    """

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__()
        self.index = index
        self.session: Session | None = None
        #: every row's item: key → (section, item)
        self.items: dict[str, tuple[str, KptItem]] = {}
        #: the rows of items that cannot be decided on → their place in the section
        self.no_id: dict[str, int] = {}
        #: the try-items selected for promotion or retargeting
        self.selected: set[str] = set()
        #: each row's evidence check, once the session screen has made them (see
        #: :meth:`show_evidence`); rows without one show no mark
        self.evidence: dict[str, EvidenceCheck] = {}
        #: a promoted item's rule in use since (see :meth:`show_usage`), by row key
        self.usage: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield VirtualTable(ITEM_COLUMNS, id="items", classes="list")
        with VerticalScroll(id="item-detail-scroll", classes="pane"):
            yield WrappedText(id="item-detail")

    def show_items(self, s: Session | None, start: str | None = None) -> bool:
        """Show the session's items; ``True`` when the cursor could move to ``start``."""
        self.session = s
        table = self.query_one("#items", VirtualTable)
        rows: list[Row] = []
        self.items.clear()
        self.no_id.clear()
        if s is not None and s.report is not None:
            rid = self.index.report_key(s) or ""
            places: dict[str, int] = {}
            for section, item in s.report.doc.items():
                places[section] = place = places.get(section, 0) + 1
                key = item_key(rid, item.id)
                if key is None:  # decisions are refused: the row is known by its place
                    key = f"#{section}:{place}"
                    self.no_id[key] = place
                self.items[key] = (section, item)
                mark = Content.styled("> " if key in self.selected else "", "bold $accent")
                cells = (
                    state_content(self.index.ledger.state(key)),
                    SECTION_TITLES.get(section, section),
                    Content.assemble(mark, literal(item.id or "?")),
                    Content.assemble(
                        evidence_mark(self.evidence.get(key)),
                        literal(item.description or "", keep_newlines=False),
                    ),
                )
                rows.append((key, cells))
        table.set_rows(rows)
        moved = bool(start) and table.move_to_key(start or "")
        self.show_detail(table.cursor_key)
        return moved

    def show_detail(self, key: str | None) -> None:
        detail = self.query_one("#item-detail", Static)
        s = self.session
        if key is None or key not in self.items or s is None or s.report is None:
            detail.update(Content.styled("This session has no KPT items to review.", "$text-muted"))
            return
        section, item = self.items[key]
        rkey = self.index.report_key(s) or s.report.doc.id or ""  # located when shared
        shown = item_detail(section, item, self.index.ledger.state(key), rkey)
        if key in self.no_id:
            shown = Content.assemble(
                Content.styled("No decisions: ", "bold $warning"),
                literal(self.missing_id_message(key)),
                "\n\n",
                shown,
            )
        if key in self.evidence:
            shown = Content.assemble(shown, "\n\n", evidence_detail(self.evidence[key]))
        if key in self.usage:
            shown = Content.assemble(shown, "\n\n", label("in use"), literal(self.usage[key]))
        detail.update(shown)

    def show_usage(self, usage: dict[str, str]) -> None:
        """Show each promoted item's rule's usage since (store.insight.usage), by item key."""
        self.usage = dict(usage)
        self.show_detail(self.query_one("#items", VirtualTable).cursor_key)

    def show_evidence(self, checks: dict[str, EvidenceCheck]) -> None:
        """Show each row's evidence state (keys as the rows': ``KPT_ID/ITEM_ID``)."""
        self.evidence = dict(checks)
        self.show_items(self.session)

    @on(VirtualTable.Highlighted, "#items")
    def highlighted(self, event: VirtualTable.Highlighted) -> None:
        self.show_detail(event.key)

    def current_key(self) -> str | None:
        key = self.query_one("#items", VirtualTable).cursor_key
        return key if key in self.items else None

    def missing_id_message(self, key: str) -> str:
        s = self.session
        if s is None or s.report is None:
            return "the item has no id"
        section, item = self.items[key]
        return missing_id(s.report.doc, section, item, self.index.ws.display(s.report.path))
