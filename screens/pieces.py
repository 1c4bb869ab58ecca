"""TAKT pieces: the movement graph (rules, loops, monitors, lint under its movement), every
facet a piece refers to resolved as TAKT does, and the YAML. Read and linted in a worker."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import (
    Footer,
    Header,
    Markdown,
    OptionList,
    Static,
    TabbedContent,
    TabPane,
    TextArea,
)

from screens.list_screen import ListScreen
from screens.widgets.keys import HELP
from screens.widgets.literal import literal, visible
from screens.widgets.piece import (
    as_markdown,
    facet_options,
    facet_title,
    graph_view,
    head_view,
    lint_cell,
)
from screens.widgets.virtual_table import Column, Row, VirtualTable
from store.check.piece_lint import FacetRef
from store.check.piece_view import PieceView, load_piece_view
from store.index.workspace_index import IndexedFile, WorkspaceIndex, index_file, index_pieces
from store.models import Piece
from store.read.counted import counted
from store.read.diagnostics import DiagnosticSink
from store.read.kinds import Kind
from store.read.textio import read_text

DEFAULT_TAKT_PIECES = Path("~/.takt/pieces")

COLUMNS = [
    Column("name", "Piece", None, min_width=12),  # the name first: cut at its end
    Column("movements", "Mv", 3, drop=1),
    Column("lint", "Lint", 5),
]


class PiecesScreen(ListScreen):
    TITLE = "Pieces"

    DEFAULT_CSS = """
    PiecesScreen {
        #piece-panes { height: 1fr; }
        #piece-list {
            width: 1fr;
            min-width: 22;
            max-width: 48;
            height: 1fr;
        }
        #piece-side { width: 3fr; height: 1fr; }
        #piece-head { height: auto; max-height: 6; padding: 0 1; }
        #piece-tabs { height: 1fr; }
        #piece-graph-scroll { height: 1fr; padding: 0 1; }
        #piece-facets-panes { height: 1fr; }
        #piece-facets { width: 2fr; height: 1fr; }
        #piece-facet-scroll { width: 3fr; height: 1fr; padding: 0 1; }
        #piece-facet-md { height: auto; margin: 0; padding: 0; }
        #piece-yaml { height: 1fr; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("1", "tab('piece-graph-tab')", "Graph", id="pieces.tab_graph"),
        Binding("2", "tab('piece-facets-tab')", "Facets", id="pieces.tab_facets"),
        Binding("3", "tab('piece-yaml-tab')", "YAML", id="pieces.tab_yaml"),
        Binding("E", "edit_file", "Edit file", id="pieces.edit"),
        Binding("o", "add_takt_home", "Show ~/.takt/pieces", id="pieces.add_takt_home"),
        Binding("escape", "app.pop_screen", "Back", id="pieces.back"),
    ]

    SHOWS = frozenset({Kind.PIECE, None})
    LIST = "piece-list"

    def __init__(self, index: WorkspaceIndex, takt_home: Path | None = DEFAULT_TAKT_PIECES) -> None:
        super().__init__(index)
        self.files: dict[str, IndexedFile] = {}
        self._facet_path: Path | None = None
        self.extra: dict[Path, IndexedFile] = {}
        self.view: PieceView | None = None
        self.offer: Path | None = None
        self.offer_taken = False
        if takt_home is not None:
            home = takt_home.expanduser()
            configured = {os.path.realpath(p) for p in index.ws.locations.get("pieces", [])}
            if home.is_dir() and os.path.realpath(home) not in configured:
                self.offer = home

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="piece-panes"):
            yield VirtualTable(COLUMNS, id="piece-list", classes="list")
            with Vertical(id="piece-side"):
                yield Static(id="piece-head")
                with TabbedContent(id="piece-tabs", initial="piece-graph-tab"):
                    with (
                        TabPane("Graph (1)", id="piece-graph-tab"),
                        VerticalScroll(id="piece-graph-scroll", classes="pane"),
                    ):
                        yield Static(id="piece-graph")
                    with (
                        TabPane("Facets (2)", id="piece-facets-tab"),
                        Horizontal(id="piece-facets-panes"),
                    ):
                        yield OptionList(id="piece-facets", classes="pane")
                        with VerticalScroll(id="piece-facet-scroll", classes="pane"):
                            yield Static(id="piece-facet-title")
                            yield Markdown(id="piece-facet-md", open_links=False)
                    with TabPane("YAML (3)", id="piece-yaml-tab"):
                        yield TextArea(
                            id="piece-yaml", read_only=True, show_line_numbers=True, soft_wrap=False
                        )
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "add_takt_home":
            return self.offer is not None and not self.offer_taken
        return True

    def reload(self) -> None:
        self.refresh_list(reload=True)

    # -- the list ------------------------------------------------------------------

    def _all_files(self) -> list[IndexedFile]:
        with self.index.lock:
            files = [f for f in self.index.files.values() if f.kind is Kind.PIECE]
        return sorted(files, key=lambda f: f.display) + sorted(
            self.extra.values(), key=lambda f: f.display
        )

    def refresh_list(self, *, reload: bool = False) -> None:
        files = self._all_files()
        self.files = {str(f.path): f for f in files}
        several_dirs = len({f.path.parent for f in files}) > 1
        rows = [piece_row(f, several_dirs) for f in files]
        table = self.table
        table.set_rows(rows)
        table.border_title = f"Pieces ({len(rows)})"
        if self.offer is not None and not self.offer_taken:
            table.border_subtitle = f"o: show {_home(self.offer)}"
        elif self.offer_taken and self.offer is not None:
            table.border_subtitle = f"{_home(self.offer)}: this session only"
        else:
            table.border_subtitle = ""
        if self.current:
            table.move_to_key(self.current)
        self.show_key(table.cursor_key, force=reload or self.view is None)

    @on(VirtualTable.Selected, "#piece-list")
    def row_selected(self, _event: VirtualTable.Selected) -> None:
        self.query_one("#piece-graph-scroll", VerticalScroll).focus()

    # -- one piece -----------------------------------------------------------------

    def show_detail(self, key: str | None) -> None:
        f = self.files.get(key or "")
        if f is None:
            self.view = None
            self.query_one("#piece-head", Static).update(
                Content.styled(
                    "No pieces here. TAKT pieces go under pieces/ (or a directory the config "
                    "adds to [paths] pieces).",
                    "$text-muted",
                )
            )
            self.query_one("#piece-graph", Static).update("")
            self.query_one("#piece-facets", OptionList).clear_options()
            self.query_one("#piece-yaml", TextArea).load_text("")
            return
        self.query_one("#piece-head", Static).update(
            Content.assemble(literal(f.display, "bold"), Content.styled("  reading…", "dim"))
        )
        self.load_view(f.path, f.display)

    @work(exclusive=True, group="piece-view", exit_on_error=False)
    async def load_view(self, path: Path, display: str) -> None:
        view = await asyncio.to_thread(load_piece_view, path, display)
        if str(view.path) != self.current:
            return
        self.view = view
        self.query_one("#piece-head", Static).update(head_view(view))
        self.query_one("#piece-graph", Static).update(graph_view(view))
        self.query_one("#piece-graph-scroll", VerticalScroll).scroll_home(animate=False)
        facets = self.query_one("#piece-facets", OptionList)
        facets.clear_options()
        facets.add_options(facet_options(view))
        facets.action_first()
        if facets.highlighted is None:
            self.show_facet(None)
        self.query_one("#piece-yaml", TextArea).load_text(visible(view.text))

    @on(OptionList.OptionHighlighted, "#piece-facets")
    def facet_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        oid = event.option.id or ""
        if self.view is None or not oid.startswith("facet:"):
            return
        self.show_facet(self.view.facets[int(oid.split(":", 1)[1])])

    def show_facet(self, ref: FacetRef | None) -> None:
        title = self.query_one("#piece-facet-title", Static)
        md = self.query_one("#piece-facet-md", Markdown)
        # a file still being read for the facet shown before must not replace this one
        self._facet_path = ref.path if ref is not None and ref.inline is None else None
        if ref is None:
            title.update("")
            md.update("")
            return
        title.update(facet_title(ref))
        if ref.inline is not None:
            md.update(as_markdown(ref.inline))
        elif ref.path is None:
            md.update("")
        else:
            self.load_facet(ref.path)

    @work(exclusive=True, group="piece-facet", exit_on_error=False)
    async def load_facet(self, path: Path) -> None:
        raw = await asyncio.to_thread(read_text, path, DiagnosticSink(str(path)))
        text = raw.text if raw.text is not None else "*This file cannot be shown as text.*"
        if path != self._facet_path:
            return
        md = self.query_one("#piece-facet-md", Markdown)
        md.update(visible(text) if path.suffix.lower() == ".md" else as_markdown(text))
        self.query_one("#piece-facet-scroll", VerticalScroll).scroll_home(animate=False)

    # -- actions -------------------------------------------------------------------

    def action_tab(self, tab: str) -> None:
        # focus leaves the old pane first (Textual issue #4955, as on the session screen)
        self.set_focus(None)
        self.query_one("#piece-tabs", TabbedContent).active = tab
        target = {
            "piece-graph-tab": "#piece-graph-scroll",
            "piece-facets-tab": "#piece-facets",
            "piece-yaml-tab": "#piece-yaml",
        }[tab]
        self.query_one(target).focus()

    def action_add_takt_home(self) -> None:
        if self.offer is None or self.offer_taken:
            return
        self.offer_taken = True
        self.refresh_bindings()
        self.load_extra(self.offer)

    @work(exclusive=True, group="piece-extra", exit_on_error=False)
    async def load_extra(self, top: Path) -> None:
        self.extra = found = await asyncio.to_thread(index_pieces, self.index.ws, top)
        self.refresh_list()
        self.notify(
            f"Showing {counted(len(found), 'piece')} from {_home(top)} for this session. "
            "To keep them, "
            f'add it to the config: [paths] pieces = ["pieces", "{_home(top)}"]',
            timeout=6,
            markup=False,
        )

    def action_edit_file(self) -> None:
        f = self.files.get(self.current or "")
        if f is None:
            return
        from screens.dialogs.edit_flow import start_edit

        def written() -> None:
            if f.path in self.extra:
                self.extra[f.path] = index_file(self.index.ws, f.path, Kind.PIECE)
                self.refresh_list(reload=True)

        start_edit(self, self.index, f.path, Kind.PIECE, then=written)


def piece_row(f: IndexedFile, several_dirs: bool) -> Row:
    """A piece's name (its directory too when there are several), movements and lint."""
    doc = f.doc if isinstance(f.doc, Piece) else None
    name = doc.name if doc is not None and doc.name else f.path.stem
    title = literal(name, "bold" if doc is not None else "$error", keep_newlines=False)
    if several_dirs:
        where = literal(_shown_dir(f.display), "$text-muted", keep_newlines=False)
        title = Content.assemble(title, "  ", where)
    count = str(len(doc.movements or [])) if doc is not None else "?"
    return str(f.path), (title, count, lint_cell(f.errors, f.warnings))


def _shown_dir(display: str) -> str:
    parent = str(Path(display).parent)
    return "" if parent == "." else _home(Path(parent))


def _home(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if home and text.startswith(home + os.sep) else text
