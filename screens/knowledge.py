"""The knowledge base: skills, patterns, anti-patterns and project memories in a tree that
follows the directories on disk, the highlighted document in full with its diagnostics first."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header, Markdown, OptionList, Static, TextArea, Tree
from textual.widgets.tree import TreeNode

from screens.messages import WorkspaceChanged
from screens.widgets.diagnostics import counts_for_rich
from screens.widgets.document import heading, lines
from screens.widgets.kb_document import (
    anti_after,
    diagnostics_view,
    evidence_view,
    extra_fields,
    memory_view,
    pattern_fields,
    related_options,
    skill_after,
    skill_fields,
)
from screens.widgets.keys import HELP
from screens.widgets.literal import file_text, literal, visible
from store.index.knowledge_tree import KIND_NAMES, KbFolder, doc_id, knowledge_tree
from store.index.workspace_index import IndexedFile, WorkspaceIndex
from store.models.knowledge import AntiPattern, Pattern, ProjectMemory, Skill
from store.read.counted import counted
from store.read.kinds import Kind

MEMORY_KEY = "memory"

NodeData = Path | str
"""A leaf holds the file's path; a directory node a key (``dir:a/b``) kept across rebuilds."""


class KnowledgeScreen(Screen[None]):
    TITLE = "Knowledge base"

    DEFAULT_CSS = """
    KnowledgeScreen {
        #kb-panes { height: 1fr; }
        #kb-tree {
            width: 1fr;
            min-width: 30;
            max-width: 46;
            height: 1fr;
            overflow-x: hidden;
        }
        #kb-detail { width: 2fr; height: 1fr; padding: 0 1; }
        #kb-head { margin-bottom: 1; }
        #kb-diags {
            height: auto;
            padding: 0 1;
            margin-bottom: 1;
            border-left: thick $error;
            background: $error 10%;
        }
        #kb-md, #kb-bad, #kb-good { height: auto; margin: 0; padding: 0; }
        #kb-compare { height: auto; margin-top: 1; }
        .kb-side { width: 1fr; height: auto; padding: 0 1; }
        /* the two approaches are read side by side: their code wraps instead of scrolling */
        #kb-compare MarkdownFence { margin: 1 0 0 0; overflow-x: hidden; }
        #kb-compare MarkdownFence > Label { width: 1fr; padding: 0 1; }
        #kb-compare Markdown { padding: 0; }
        #kb-bad-side { border: round $error 60%; margin-right: 1; }
        #kb-good-side { border: round $success 60%; }
        #kb-after { height: auto; margin-top: 1; }
        #kb-related-title { margin-top: 1; }
        #kb-related { height: auto; max-height: 8; border: none; padding: 0; }
        #kb-raw { height: 20; margin-top: 1; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("E", "edit_file", "Edit file", id="kb.edit"),
        Binding("escape", "back", "Back", id="kb.back"),
    ]

    SHOWS = frozenset({Kind.SKILL, Kind.PATTERN, Kind.ANTI_PATTERN, Kind.MEMORY, None})

    def __init__(self, index: WorkspaceIndex, select: Path | None = None) -> None:
        super().__init__()
        self.index = index
        self.current: Path | None = select
        self._leaves: dict[Path, TreeNode[NodeData]] = {}
        self._collapsed: set[str] = set()
        self._skills: dict[str, Path] = {}
        self._related: list[Path | None] = []
        self._shown_stamp: object = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="kb-panes"):
            tree: Tree[NodeData] = Tree("knowledge", id="kb-tree", classes="list")
            tree.show_root = False
            tree.guide_depth = 2
            yield tree
            with VerticalScroll(id="kb-detail", classes="pane"):
                yield Static(id="kb-head")
                yield Static(id="kb-diags")
                yield Static(id="kb-fields")
                yield Markdown(id="kb-md", open_links=False)
                with Horizontal(id="kb-compare"):
                    with Vertical(classes="kb-side", id="kb-bad-side"):
                        yield Static(
                            Content.styled("✗ bad_approach", "bold $error"), classes="kb-side-title"
                        )
                        yield Markdown(id="kb-bad", open_links=False)
                    with Vertical(classes="kb-side", id="kb-good-side"):
                        yield Static(
                            Content.styled("✓ correct_approach", "bold $success"),
                            classes="kb-side-title",
                        )
                        yield Markdown(id="kb-good", open_links=False)
                yield Static(id="kb-after")
                yield Static(heading("Related skills"), id="kb-related-title")
                yield OptionList(id="kb-related")
                yield TextArea(id="kb-raw", read_only=True, show_line_numbers=True, soft_wrap=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#kb-tree", Tree).border_title = "Knowledge base"
        self.rebuild()
        self.query_one("#kb-tree", Tree).focus()

    # -- the tree ----------------------------------------------------------------

    def rebuild(self) -> None:
        """(Re)build the tree from the index, keeping the selection and collapsed folders."""
        tree: Tree[NodeData] = self.query_one("#kb-tree", Tree)
        theme = self.app.theme_variables
        kb = knowledge_tree(self.index)
        self._leaves = {}
        self._skills = kb.skills()
        # Drop the cursor without a highlight event, so that moving it onto the new node
        # below is a change the tree reports (its old node object is gone).
        tree.unselect()
        tree.clear()

        def add_leaf(parent: TreeNode[NodeData], f: IndexedFile, tag: bool) -> None:
            parts: list[tuple[str, str] | str] = [(visible(doc_id(f), keep_newlines=False), "")]
            parts += counts_for_rich(f.errors, f.warnings, theme)
            if tag and f.kind in KIND_NAMES:
                parts.append((f" {KIND_NAMES[f.kind]}", theme.get("accent", "cyan")))
            elif f.kind is None:
                parts.append((" unrecognised", theme.get("warning", "yellow")))
            name = getattr(f.doc, "name", None)
            if isinstance(name, str) and name:
                parts.append(("  " + visible(name, keep_newlines=False), "dim"))
            self._leaves[f.path] = parent.add_leaf(Text.assemble(*parts), data=f.path)

        def add_dir(parent: TreeNode[NodeData], d: KbFolder) -> None:
            label = Text.assemble((visible(d.name) + "/", "bold"), (f" {d.count()}", "dim"))
            node = parent.add(label, data=f"dir:{d.key}", expand=d.key not in self._collapsed)
            for sub in d.folders:
                add_dir(node, sub)
            for f in d.files:
                add_leaf(node, f, d.tagged)

        root = tree.root
        for d in kb.root.folders:
            add_dir(root, d)
        for f in kb.root.files:
            add_leaf(root, f, True)
        mem = root.add(
            Text.assemble(("memory/", "bold"), (f" {len(kb.memories)}", "dim")),
            data=f"dir:{MEMORY_KEY}",
            expand=MEMORY_KEY not in self._collapsed,
        )
        for f in kb.memories:
            add_leaf(mem, f, False)

        total = len(self._leaves)
        errors = sum(f.errors for f in kb.files())
        tree.border_subtitle = counted(total, "file") + (
            f" · {counted(errors, 'error')}" if errors else ""
        )
        # keep the selection: the same file, else the first document
        target = self.current if self.current in self._leaves else None
        if target is None and self._leaves:
            target = next(iter(self._leaves))
        if target is not None:
            self.select_path(target, focus_detail=False)
        else:
            self.current = None
            self.show_detail(None)

    def select_path(self, path: Path, *, focus_detail: bool = False) -> bool:
        """Move the tree's cursor to a file (opening its folders) and show it."""
        node = self._leaves.get(path)
        if node is None:
            return False
        parent = node.parent
        while parent is not None:
            parent.expand()
            parent = parent.parent
        tree: Tree[NodeData] = self.query_one("#kb-tree", Tree)
        self.show_detail(path)
        _ = tree.last_line  # lays out the tree's lines now, so the node knows its line
        tree.move_cursor(node)
        if focus_detail:
            self.query_one("#kb-detail", VerticalScroll).focus()
        return True

    @on(Tree.NodeHighlighted, "#kb-tree")
    def highlighted(self, event: Tree.NodeHighlighted[NodeData]) -> None:
        if isinstance(event.node.data, Path):
            self.show_detail(event.node.data)

    @on(Tree.NodeSelected, "#kb-tree")
    def node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        if isinstance(event.node.data, Path):
            self.show_detail(event.node.data)
            self.query_one("#kb-detail", VerticalScroll).focus()

    @on(Tree.NodeCollapsed, "#kb-tree")
    def node_collapsed(self, event: Tree.NodeCollapsed[NodeData]) -> None:
        if isinstance(event.node.data, str):
            self._collapsed.add(event.node.data.removeprefix("dir:"))

    @on(Tree.NodeExpanded, "#kb-tree")
    def node_expanded(self, event: Tree.NodeExpanded[NodeData]) -> None:
        if isinstance(event.node.data, str):
            self._collapsed.discard(event.node.data.removeprefix("dir:"))

    def on_workspace_changed(self, _event: WorkspaceChanged) -> None:
        self._shown_stamp = None  # the document may have changed: redraw it
        self.rebuild()

    # -- the detail --------------------------------------------------------------

    def show_detail(self, path: Path | None) -> None:
        f = self.index.files.get(path) if path is not None else None
        stamp = (path, id(f), id(f.doc) if f else None)
        if stamp == self._shown_stamp:
            return
        self._shown_stamp = stamp
        self.current = path
        head = self.query_one("#kb-head", Static)
        diags = self.query_one("#kb-diags", Static)
        fields = self.query_one("#kb-fields", Static)
        md = self.query_one("#kb-md", Markdown)
        compare = self.query_one("#kb-compare", Horizontal)
        after = self.query_one("#kb-after", Static)
        rel_title = self.query_one("#kb-related-title", Static)
        related = self.query_one("#kb-related", OptionList)
        raw = self.query_one("#kb-raw", TextArea)
        for w in (md, compare, after, rel_title, related, raw):
            w.display = False
        self.query_one("#kb-detail", VerticalScroll).scroll_home(animate=False)
        if f is None:
            head.update(
                Content.styled(
                    "The knowledge base is empty." if path is None else "This file is gone.",
                    "$text-muted",
                )
            )
            diags.display = fields.display = False
            return
        doc = f.doc
        name = getattr(doc, "name", None)
        kind = KIND_NAMES.get(f.kind, "unrecognised") if f.kind else "unrecognised"
        head.update(
            Content.assemble(
                literal(name if isinstance(name, str) and name else doc_id(f), "bold"),
                Content("\n"),
                Content.styled(f"{kind} ", "$accent"),
                literal(doc_id(f), "bold $text-secondary"),
                Content("  "),
                literal(f.display, "dim"),
            )
        )
        diags.display = bool(f.diagnostics)
        diags.update(diagnostics_view(f.diagnostics))
        fields.display = True
        if isinstance(doc, Skill):
            fields.update(skill_fields(doc))
            self._markdown(md, doc.content)
            after.update(skill_after(doc))
            after.display = True
            self._show_related(doc.related_skills or [])
        elif isinstance(doc, AntiPattern):
            fields.update(pattern_fields(doc))
            compare.display = True
            self._markdown(self.query_one("#kb-bad", Markdown), doc.bad_approach)
            self._markdown(self.query_one("#kb-good", Markdown), doc.correct_approach)
            after.update(anti_after(doc))
            after.display = True
        elif isinstance(doc, Pattern):
            fields.update(lines([pattern_fields(doc), Content(""), heading("Solution")]))
            self._markdown(md, doc.solution)
            after.update(lines([*evidence_view(doc.evidence), *extra_fields(doc)]))
            after.display = True
        elif isinstance(doc, ProjectMemory):
            fields.update(memory_view(doc))
        else:
            fields.update(
                Content.styled(
                    "This file could not be read as a knowledge-base document"
                    + (" — its text is below; E opens it in $EDITOR." if f.errors else "."),
                    "$text-muted",
                )
            )
            raw.display = True
            raw.load_text("")
            self.load_raw(f.path, f.display)

    @staticmethod
    def _markdown(widget: Markdown, text: str | None) -> None:
        widget.display = True
        widget.update(visible(text) if text else "*—*")

    def _show_related(self, ids: list[str]) -> None:
        title = self.query_one("#kb-related-title", Static)
        related = self.query_one("#kb-related", OptionList)
        title.display = True
        related.clear_options()
        self._related = [self._skills.get(str(sid)) for sid in ids]
        related.add_options(related_options(ids, self._related, self.index.files))
        related.display = True

    @on(OptionList.OptionSelected, "#kb-related")
    def related_selected(self, event: OptionList.OptionSelected) -> None:
        oid = event.option.id or ""
        if not oid.startswith("rel-"):
            return
        i = int(oid[4:])
        path = self._related[i] if i < len(self._related) else None
        if path is not None:
            self.select_path(path, focus_detail=True)

    @work(exclusive=True, group="kb-raw", exit_on_error=False)
    async def load_raw(self, path: Path, display: str) -> None:
        text = await asyncio.to_thread(file_text, path, display)
        if path == self.current:
            self.query_one("#kb-raw", TextArea).load_text(text)

    # -- actions -----------------------------------------------------------------

    def action_back(self) -> None:
        """From the detail back to the tree; from the tree back to the previous screen."""
        tree = self.query_one("#kb-tree", Tree)
        if self.focused is not None and self.focused is not tree:
            tree.focus()
        else:
            self.app.pop_screen()

    def action_edit_file(self) -> None:
        path = self.current
        if path is None or path not in self.index.files:
            self.notify("Select a file to edit.", timeout=2)
            return
        from screens.dialogs.edit_flow import start_edit

        start_edit(self, self.index, path, self.index.files[path].kind)
