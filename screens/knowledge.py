"""The knowledge base: every skill, pattern, anti-pattern and project memory, read whole.

The tree on the left follows the directories on disk (``global/``, ``groups/``,
``projects/<id>/learned/``) plus ``memory/`` for the project memories; the inbox has its
own screen. The detail on the right shows the highlighted document with its diagnostics
first: a skill's triggers, its content as Markdown, stats and related skills (``enter``
on one jumps to it); a pattern's solution; an anti-pattern's bad and correct approaches
side by side; a memory's preferences, learned behaviours and known issues.

``E`` edits the file in ``$EDITOR``, checked against its format before anything is
written. Everything shown comes from the index (already parsed), except the raw text of a
file that could not be read, which is loaded in a thread worker.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header, Markdown, OptionList, Static, TextArea, Tree
from textual.widgets.option_list import Option
from textual.widgets.tree import TreeNode
from textual.worker import get_current_worker

from store.index.workspace_index import IndexedFile, WorkspaceIndex
from store.models.knowledge import AntiPattern, Evidence, Pattern, ProjectMemory, Skill
from store.read.diagnostics import Diagnostic, DiagnosticSink
from store.read.kinds import Kind
from store.read.textio import read_text
from tui.messages import WorkspaceChanged
from tui.widgets.document import field as field_line
from tui.widgets.document import heading, label, lines, value_text
from tui.widgets.literal import literal, visible

KB_KINDS = (Kind.SKILL, Kind.PATTERN, Kind.ANTI_PATTERN, Kind.MEMORY)
KIND_NAMES = {
    Kind.SKILL: "skill",
    Kind.PATTERN: "pattern",
    Kind.ANTI_PATTERN: "anti-pattern",
    Kind.MEMORY: "memory",
}
# Directories whose name already says what their files are: no kind tag on the leaves.
KIND_DIRS = {"skills": Kind.SKILL, "patterns": Kind.PATTERN, "anti_patterns": Kind.ANTI_PATTERN}
TOP_ORDER = {"global": 0, "groups": 1, "projects": 2}
GLOBAL_ORDER = {"skills": 0, "patterns": 1, "anti_patterns": 2}
MEMORY_KEY = "memory"

NodeData = Path | str
"""A leaf holds the file's path; a directory node a key (``dir:a/b``) kept across rebuilds."""


@dataclass
class _Dir:
    """A directory of the tree being built: subdirectories and files as found on disk."""

    name: str
    dirs: dict[str, _Dir] = field(default_factory=dict)
    files: list[IndexedFile] = field(default_factory=list)

    def count(self) -> int:
        return len(self.files) + sum(d.count() for d in self.dirs.values())


def doc_id(f: IndexedFile) -> str:
    """What a document is called in the tree: its id, else its file name."""
    doc = f.doc
    for attr in ("skill_id", "pattern_id", "project_id"):
        value = getattr(doc, attr, None)
        if isinstance(value, str) and value.strip():
            return value
    if f.kind is Kind.MEMORY and f.path.parent.name:
        return f.path.parent.name
    return f.path.stem


def _counts(f: IndexedFile, theme: dict[str, str]) -> list[tuple[str, str]]:
    parts = []
    if f.errors:
        parts.append((f" ✗{f.errors}", f"bold {theme.get('error', 'red')}"))
    if f.warnings:
        parts.append((f" ⚠{f.warnings}", theme.get("warning", "yellow")))
    return parts


def diagnostics_view(diags: list[Diagnostic]) -> Content:
    out = []
    for d in diags:
        style = "$error" if d.severity == "error" else "$warning"
        mark = "✗" if d.severity == "error" else "⚠"
        where = f"line {d.line}" if d.line else "file"
        out.append(
            Content.assemble(
                Content.styled(f"{mark} {d.severity:<7} ", f"bold {style}"),
                Content.styled(f"{where:<9} ", "dim"),
                literal(d.message),
                Content.styled(f"  [{d.code}]", "dim"),
            )
        )
    return lines(out)


def _bullets(items: Iterable[Any]) -> list[Content]:
    return [literal(f"• {value_text(x)}") for x in items]


def _text_block(title: str, text: str | None) -> list[Content]:
    return [Content(""), heading(title), literal(text.rstrip("\n")) if text else Content("—")]


def evidence_view(evidence: list[Evidence] | None) -> list[Content]:
    out: list[Content] = [Content(""), heading("Evidence")]
    if not evidence:
        return [*out, Content.styled("none recorded", "$text-muted")]
    for ev in evidence:
        where = " · ".join(x for x in (ev.project, ev.task) if x) or "?"
        parts = [Content("• "), literal(where, "bold")]
        if ev.result:
            parts += [Content(" → "), literal(ev.result, "$success")]
        if ev.error:
            parts += [Content(" → "), literal(ev.error, "$error")]
        extra = ev.model_extra or {}
        if extra:
            parts += [Content("  "), literal(value_text(extra), "dim")]
        out.append(Content.assemble(*parts))
    return out


def extra_fields(doc: BaseModel) -> list[Content]:
    extra = doc.model_extra or {}
    if not extra:
        return []
    return [Content(""), heading("Other fields"), *(field_line(k, v) for k, v in extra.items())]


def skill_fields(s: Skill) -> Content:
    out = [
        field_line("version", s.version),
        field_line("created_at", s.created_at),
        field_line("updated_at", s.updated_at),
        Content(""),
        heading("Triggers"),
    ]
    t = s.triggers
    out += [
        field_line("keywords", t.keywords if t else None),
        field_line("file_patterns", t.file_patterns if t else None),
        field_line("task_types", t.task_types if t else None),
    ]
    if t is not None and t.model_extra:
        out += [field_line(k, v) for k, v in t.model_extra.items()]
    out += [Content(""), heading("Content")]
    return lines(out)


def skill_after(s: Skill) -> Content:
    st = s.stats
    rate = st.success_rate if st else None
    rate_text = f"{rate:g} ({rate:.0%})" if isinstance(rate, (int, float)) else "—"
    out = [
        heading("Stats"),
        field_line("times_loaded", st.times_loaded if st else None),
        Content.assemble(label("success_rate"), literal(rate_text)),
        field_line("avg_tokens_saved", st.avg_tokens_saved if st else None),
    ]
    if st is not None and st.model_extra:
        out += [field_line(k, v) for k, v in st.model_extra.items()]
    out += extra_fields(s)
    return lines(out)


def pattern_fields(p: Pattern | AntiPattern) -> Content:
    out = [field_line("type", p.type)]
    if p.tags:
        out.append(field_line("tags", p.tags))
    out += _text_block("Context", p.context)
    return lines(out)


def anti_after(a: AntiPattern) -> Content:
    out = _text_block("Why it is bad", a.why_bad)[1:]
    out += evidence_view(a.evidence)
    out += extra_fields(a)
    return lines(out)


def memory_view(m: ProjectMemory) -> Content:
    out = [field_line("last_updated", m.last_updated), Content(""), heading("Preferences")]
    if m.preferences:
        for cat, values in m.preferences.items():
            out.append(Content.assemble(literal(str(cat), "bold $text-secondary")))
            if isinstance(values, list):
                out += [literal(f"  • {value_text(v)}") for v in values]
            else:
                out.append(literal(f"  {value_text(values)}"))
    else:
        out.append(Content.styled("none", "$text-muted"))
    out += [Content(""), heading("Learned behaviors")]
    for b in m.learned_behaviors or []:
        out.append(
            Content.assemble(
                Content("• "),
                literal(b.trigger or "?", "bold"),
                Content.styled(" → ", "$accent"),
                literal(b.behavior or "?"),
            )
        )
        if b.reason:
            out.append(Content.assemble(Content("  "), literal(f"reason: {b.reason}", "dim")))
        if b.model_extra:
            out.append(Content.assemble(Content("  "), literal(value_text(b.model_extra), "dim")))
    if not m.learned_behaviors:
        out.append(Content.styled("none", "$text-muted"))
    out += [Content(""), heading("Known issues")]
    for issue in m.known_issues or []:
        out.append(Content.assemble(Content("• "), literal(issue.description or "?")))
        if issue.workaround:
            out.append(
                Content.assemble(
                    Content("  "), label("workaround"), literal(issue.workaround, "$success")
                )
            )
    if not m.known_issues:
        out.append(Content.styled("none", "$text-muted"))
    out += extra_fields(m)
    return lines(out)


class KnowledgeScreen(Screen[None]):
    """Browse and edit the knowledge base and the project memories."""

    TITLE = "Knowledge base"

    BINDINGS = [
        Binding("E", "edit_file", "Edit file", id="kb.edit"),
        Binding("escape", "back", "Back", id="kb.back"),
    ]

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
            tree: Tree[NodeData] = Tree("knowledge", id="kb-tree")
            tree.show_root = False
            tree.guide_depth = 2
            yield tree
            with VerticalScroll(id="kb-detail"):
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

    def _files(self) -> tuple[_Dir, list[IndexedFile]]:
        """The knowledge-base files as a directory tree, and the project memories."""
        ws = self.index.ws
        kb_dirs = ws.locations.get("knowledge_base", [ws.loc("knowledge_base")])
        mem_dirs = ws.locations.get("memory", [ws.loc("memory")])
        top = _Dir("")
        memories: list[IndexedFile] = []
        with self.index.lock:
            files = list(self.index.files.values())
        for f in files:
            if f.kind is not None and f.kind not in KB_KINDS:
                continue
            rel = _relative(f.path, kb_dirs)
            if rel is not None:
                if not rel.parts or rel.parts[0] == "inbox":
                    continue
                node = top
                for part in rel.parts[:-1]:
                    node = node.dirs.setdefault(part, _Dir(part))
                node.files.append(f)
            elif _relative(f.path, mem_dirs) is not None:
                memories.append(f)
        return top, memories

    def rebuild(self) -> None:
        """(Re)build the tree from the index, keeping the selection and collapsed folders."""
        tree: Tree[NodeData] = self.query_one("#kb-tree", Tree)
        theme = self.app.theme_variables
        top, memories = self._files()
        self._leaves = {}
        self._skills = {}
        # Drop the cursor without a highlight event, so that moving it onto the new node
        # below is a change the tree reports (its old node object is gone).
        tree.unselect()
        tree.clear()

        def add_leaf(parent: TreeNode[NodeData], f: IndexedFile, tag: bool) -> None:
            parts: list[tuple[str, str] | str] = [(visible(doc_id(f), keep_newlines=False), "")]
            parts += _counts(f, theme)
            if tag and f.kind in KIND_NAMES:
                parts.append((f" {KIND_NAMES[f.kind]}", theme.get("accent", "cyan")))
            elif f.kind is None:
                parts.append((" unrecognised", theme.get("warning", "yellow")))
            name = getattr(f.doc, "name", None)
            if isinstance(name, str) and name:
                parts.append(("  " + visible(name, keep_newlines=False), "dim"))
            self._leaves[f.path] = parent.add_leaf(Text.assemble(*parts), data=f.path)
            if isinstance(f.doc, Skill) and f.doc.skill_id:
                self._skills.setdefault(f.doc.skill_id, f.path)

        def add_dir(parent: TreeNode[NodeData], d: _Dir, key: str, order: dict[str, int]) -> None:
            label = Text.assemble((visible(d.name) + "/", "bold"), (f" {d.count()}", "dim"))
            node = parent.add(label, data=f"dir:{key}", expand=key not in self._collapsed)
            sub_order = GLOBAL_ORDER if key == "global" else {}
            for name in sorted(d.dirs, key=lambda n: (sub_order.get(n, 99), n)):
                add_dir(node, d.dirs[name], f"{key}/{name}", {})
            tag = d.name not in KIND_DIRS
            for f in sorted(d.files, key=lambda f: f.path.name):
                add_leaf(node, f, tag)

        root = tree.root
        for name in sorted(top.dirs, key=lambda n: (TOP_ORDER.get(n, 99), n)):
            add_dir(root, top.dirs[name], name, {})
        for f in sorted(top.files, key=lambda f: f.path.name):
            add_leaf(root, f, True)
        mem = root.add(
            Text.assemble(("memory/", "bold"), (f" {len(memories)}", "dim")),
            data=f"dir:{MEMORY_KEY}",
            expand=MEMORY_KEY not in self._collapsed,
        )
        for f in sorted(memories, key=doc_id):
            add_leaf(mem, f, False)

        total = len(self._leaves)
        errors = sum(self.index.files[p].errors for p in self._leaves if p in self.index.files)
        tree.border_subtitle = f"{total} file{'s' if total != 1 else ''}" + (
            f" · {errors} error{'s' if errors != 1 else ''}" if errors else ""
        )
        # keep the selection: the same file, else the first document
        target = self.current if self.current in self._leaves else None
        if target is None and self._leaves:
            target = next(iter(self._leaves))
        if target is not None:
            self.select_path(target, focus_detail=False)
        else:
            self.current = None
            self.show(None)

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
        self.show(path)
        _ = tree.last_line  # lays out the tree's lines now, so the node knows its line
        tree.move_cursor(node)
        if focus_detail:
            self.query_one("#kb-detail", VerticalScroll).focus()
        return True

    @on(Tree.NodeHighlighted, "#kb-tree")
    def node_highlighted(self, event: Tree.NodeHighlighted[NodeData]) -> None:
        if isinstance(event.node.data, Path):
            self.show(event.node.data)

    @on(Tree.NodeSelected, "#kb-tree")
    def node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        if isinstance(event.node.data, Path):
            self.show(event.node.data)
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

    def show(self, path: Path | None) -> None:
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
        self._related = []
        if not ids:
            related.add_option(Option(Content.styled("none", "$text-muted"), disabled=True))
        for i, sid in enumerate(ids):
            path = self._skills.get(str(sid))
            self._related.append(path)
            if path is None:
                prompt = Content.assemble(
                    literal(str(sid), "dim"),
                    Content.styled("  (not in the knowledge base)", "dim italic"),
                )
                related.add_option(Option(prompt, id=f"rel-{i}", disabled=True))
            else:
                target = self.index.files.get(path)
                name = getattr(target.doc, "name", None) if target else None
                prompt = Content.assemble(
                    Content.styled("→ ", "$accent"),
                    literal(str(sid), "bold"),
                    literal(f"  {name}", "dim") if isinstance(name, str) else Content(""),
                )
                related.add_option(Option(prompt, id=f"rel-{i}"))
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

    @work(thread=True, exclusive=True, group="kb-raw")
    def load_raw(self, path: Path, display: str) -> None:
        raw = read_text(path, DiagnosticSink(display))
        text = raw.text if raw.text is not None else "(this file cannot be shown as text)"
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._raw_loaded, path, visible(text))

    def _raw_loaded(self, path: Path, text: str) -> None:
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
        self.edit_externally(path)

    @work(exclusive=True, group="external-edit")
    async def edit_externally(self, path: Path) -> None:
        from screens.edit_flow import edit_in_editor

        entry = self.index.files.get(path)
        await edit_in_editor(self, self.index.ws, path, entry.kind if entry is not None else None)


def _relative(path: Path, tops: Iterable[Path]) -> Path | None:
    for top in tops:
        try:
            return path.relative_to(top)
        except ValueError:
            continue
    return None
