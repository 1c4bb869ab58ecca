"""Problems: the workspace files with diagnostics (``a``: all files) by kind, a file's text,
and its problems, each moving to its line. A workspace full of broken files works here."""

from __future__ import annotations

import asyncio
from contextlib import suppress
from dataclasses import replace
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static, TextArea
from textual.widgets.option_list import Option, OptionDoesNotExist

from screens.messages import EVERY_KIND, WorkspaceChanged
from screens.widgets.diagnostics import counts, diagnostic_line
from screens.widgets.keys import HELP
from screens.widgets.literal import file_text, literal
from store.index.workspace_index import IndexedFile, WorkspaceIndex
from store.read.counted import counted
from store.read.diagnostics import Diagnostic
from store.read.kinds import Kind

KIND_TITLES: dict[Kind | None, str] = {
    Kind.KPT: "KPT reports",
    Kind.SUMMARIES: "Session summaries",
    Kind.LESSONS: "Lessons",
    Kind.PROPOSAL: "Inbox proposals",
    Kind.SKILL: "Skills",
    Kind.PATTERN: "Patterns",
    Kind.ANTI_PATTERN: "Anti-patterns",
    Kind.MEMORY: "Project memory",
    Kind.FEEDBACK: "Feedback",
    Kind.DISCUSSION: "Discussions",
    Kind.PIECE: "TAKT pieces",
    Kind.WRAPUP: "Wrap-up input",
    None: "Unrecognised",
}


class ProblemsScreen(Screen[None]):
    DEFAULT_CSS = """
    ProblemsScreen {
        #panes { height: 1fr; }
        #files { width: 2fr; height: 1fr; min-width: 30; }
        #detail { width: 3fr; }
        #file-title { height: 1; padding: 0 1; color: $text-muted; }
        #file-text { height: 2fr; }
        #diagnostics { height: 1fr; min-height: 5; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("a", "toggle_all", "All files", id="problems.all_files"),
        Binding("escape", "app.pop_screen", "Back", id="problems.back"),
    ]

    SHOWS = EVERY_KIND

    def __init__(self, index: WorkspaceIndex, select: Path | None = None) -> None:
        super().__init__()
        self.index = index
        self.select = select
        self.all_files = False
        self._shown: dict[str, IndexedFile] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="panes"):
            yield OptionList(id="files", classes="list")
            with Vertical(id="detail"):
                yield Static(id="file-title")
                yield TextArea(
                    id="file-text", read_only=True, show_line_numbers=True, soft_wrap=False
                )
                yield OptionList(id="diagnostics", classes="list")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#diagnostics", OptionList).border_title = "Diagnostics"
        self.refresh_list()
        if self.select is not None:
            self.show_path(self.select)
        self.query_one("#files", OptionList).focus()

    def on_workspace_changed(self, _event: WorkspaceChanged) -> None:
        self.refresh_list()

    def show_path(self, path: Path) -> None:
        """Put the cursor on ``path`` in the file list (all files, if it has no problem)."""
        if str(path) not in self._shown:
            self.action_toggle_all()
        files = self.query_one("#files", OptionList)
        with suppress(OptionDoesNotExist):  # the file may have gone meanwhile
            files.highlighted = files.get_option_index(str(path))

    def action_toggle_all(self) -> None:
        self.all_files = not self.all_files
        self.refresh_list()

    def refresh_list(self) -> None:
        files = self.query_one("#files", OptionList)
        highlighted = files.highlighted_option.id if files.highlighted_option else None
        files.clear_options()
        self._shown.clear()
        reports = sorted(self.index.files.values(), key=lambda f: f.display)
        with_problems = {id(f) for f in self.index.problem_files()}  # as the header counts
        errors = sum(r.errors for r in reports)
        warnings = sum(r.warnings for r in reports)
        files.border_title = (
            f"Files: {len(reports)} · {counted(errors, 'error')} · {counted(warnings, 'warning')}"
        )
        options: list[Option | None] = []
        for kind, title in KIND_TITLES.items():
            group = [r for r in reports if r.kind is kind]
            if not self.all_files:
                group = [r for r in group if id(r) in with_problems]
            if not group:
                continue
            if options:
                options.append(None)
            options.append(Option(Content.styled(f"{title} ({len(group)})", "bold"), disabled=True))
            for r in group:
                key = str(r.path)
                self._shown[key] = r
                options.append(Option(self._label(r), id=key))
        if not options:
            options.append(
                Option(Content.styled("No problems in this workspace.", "$success"), disabled=True)
            )
        files.add_options(options)
        if highlighted and highlighted in self._shown:
            files.highlighted = files.get_option_index(highlighted)
        elif self._shown:
            files.highlighted = files.get_option_index(next(iter(self._shown)))
        files.border_subtitle = (
            "all files (a)" if self.all_files else "files with problems (a: all)"
        )

    @staticmethod
    def _label(r: IndexedFile) -> Content:
        """The path below its group's directory: the group title says the rest."""
        rel = Path(r.display).parts
        return Content.assemble(
            literal(str(Path(*rel[1:])) if len(rel) > 1 else r.display),
            counts(r.errors, r.warnings, lead="  "),
        )

    @on(OptionList.OptionHighlighted, "#files")
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        report = self._shown.get(event.option.id or "")
        if report is not None:
            self.show_detail(report)

    @on(OptionList.OptionSelected, "#files")
    def file_selected(self, _event: OptionList.OptionSelected) -> None:
        self.query_one("#diagnostics", OptionList).focus()

    def show_detail(self, report: IndexedFile) -> None:
        self.query_one("#file-title", Static).update(literal(report.display, "bold"))
        self.load_file_text(report)
        diags = self.query_one("#diagnostics", OptionList)
        diags.clear_options()
        for i, d in enumerate(report.diagnostics):
            line = diagnostic_line(as_shown_for(d, report), columns=True, mark=False)
            diags.add_option(Option(line, id=f"d{i}"))
        if report.diagnostics:
            diags.highlighted = 0
        else:
            none = Content.styled("No problems in this file.", "$success")
            diags.add_option(Option(none, disabled=True))

    @work(exclusive=True, group="file-text", exit_on_error=False)
    async def load_file_text(self, report: IndexedFile) -> None:
        """The file's text (read in a thread: a file may be megabytes), at its first problem."""
        text = await asyncio.to_thread(file_text, report.path, report.display)
        area = self.query_one("#file-text", TextArea)
        area.load_text(text)
        lines = (as_shown_for(d, report).line for d in report.diagnostics)
        first = next((n for n in lines if n), None)
        if first:
            area.move_cursor((first - 1, 0), center=True)

    @on(OptionList.OptionSelected, "#diagnostics")
    def diagnostic_selected(self, event: OptionList.OptionSelected) -> None:
        files = self.query_one("#files", OptionList)
        opt = files.highlighted_option
        report = self._shown.get(opt.id or "") if opt else None
        if report is None or not event.option.id:
            return
        d = as_shown_for(report.diagnostics[int(event.option.id[1:])], report)
        if d.line:
            area = self.query_one("#file-text", TextArea)
            area.move_cursor((d.line - 1, 0), center=True)
            area.focus()


def as_shown_for(d: Diagnostic, report: IndexedFile) -> Diagnostic:
    """A diagnostic of another file that this one's check made (a TAKT facet's, found by a
    piece using it): named with its file and line, and no line of this file."""
    if d.path == report.display:
        return d
    return replace(
        d, path=report.display, line=None, message=f"{d.path} line {d.line}: {d.message}"
    )
