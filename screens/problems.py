"""The workspace's files with their diagnostics (the first screen, until the review desk).

Every file of the workspace, grouped by kind, with error and warning counts; selecting one
shows its text and its diagnostics, and selecting a diagnostic moves to its line. Loading
runs in a thread worker so the screen paints at once and fills in with progress shown.
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, ProgressBar, Static, TextArea
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from store.diagnostics import DiagnosticSink
from store.kinds import Kind
from store.scan import FileReport, scan_workspace
from store.textio import read_text
from store.workspace import Workspace
from tui.widgets.literal import literal, visible

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


class WorkspaceFilesScreen(Screen[None]):
    """Files of the workspace and their problems."""

    BINDINGS = [
        Binding("p", "toggle_problems", "Only problems", id="files.only_problems"),
        Binding("r", "reload", "Reload", id="files.reload"),
        Binding("tab", "app.focus_next", "Next pane", show=False),
    ]

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace
        self.reports: list[FileReport] = []
        self.only_problems = False
        self._shown: dict[str, FileReport] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield ProgressBar(id="progress", show_eta=False)
        with Horizontal(id="panes"):
            yield OptionList(id="files")
            with Vertical(id="detail"):
                yield Static(id="file-title")
                yield TextArea(
                    id="file-text", read_only=True, show_line_numbers=True, soft_wrap=False
                )
                yield OptionList(id="diagnostics")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#files", OptionList).border_title = "Files"
        self.query_one("#diagnostics", OptionList).border_title = "Diagnostics"
        self.load()

    def action_reload(self) -> None:
        self.load()

    def action_toggle_problems(self) -> None:
        self.only_problems = not self.only_problems
        self.refresh_list()

    @work(thread=True, exclusive=True, group="scan")
    def load(self) -> None:
        worker = get_current_worker()
        bar = self.query_one("#progress", ProgressBar)

        def progress(done: int, total: int) -> None:
            self.app.call_from_thread(bar.update, total=total, progress=done)

        reports = []
        for report in scan_workspace(self.workspace, progress):
            if worker.is_cancelled:
                return
            reports.append(report)
        self.app.call_from_thread(self.show_reports, reports)

    def show_reports(self, reports: list[FileReport]) -> None:
        self.reports = reports
        self.query_one("#progress", ProgressBar).display = False
        errors = sum(r.errors for r in reports)
        warnings = sum(r.warnings for r in reports)
        self.sub_title = f"{len(reports)} files · {errors} errors · {warnings} warnings"
        self.refresh_list()

    def refresh_list(self) -> None:
        files = self.query_one("#files", OptionList)
        highlighted = files.highlighted_option.id if files.highlighted_option else None
        files.clear_options()
        self._shown.clear()
        options: list[Option | None] = []
        for kind, title in KIND_TITLES.items():
            group = [r for r in self.reports if r.kind is kind]
            if self.only_problems:
                group = [r for r in group if r.diagnostics]
            if not group:
                continue
            if options:
                options.append(None)
            options.append(Option(Content.styled(f"{title} ({len(group)})", "bold"), disabled=True))
            for r in group:
                key = str(r.path)
                self._shown[key] = r
                options.append(Option(self._label(r), id=key))
        files.add_options(options)
        if highlighted and highlighted in self._shown:
            files.highlighted = files.get_option_index(highlighted)
        elif self._shown:
            files.highlighted = files.get_option_index(next(iter(self._shown)))
        files.border_subtitle = "problems only" if self.only_problems else ""

    @staticmethod
    def _label(r: FileReport) -> Content:
        """The path below its group's directory: the group title says the rest."""
        rel = Path(r.display).parts
        parts = [literal(str(Path(*rel[1:])) if len(rel) > 1 else r.display)]
        if r.errors:
            parts.append(Content.styled(f"  ✗{r.errors}", "$error"))
        if r.warnings:
            parts.append(Content.styled(f"  ⚠{r.warnings}", "$warning"))
        return Content.assemble(*parts)

    @on(OptionList.OptionHighlighted, "#files")
    def file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        report = self._shown.get(event.option.id or "")
        if report is not None:
            self.show_file(report)

    @on(OptionList.OptionSelected, "#files")
    def file_selected(self, event: OptionList.OptionSelected) -> None:
        self.query_one("#diagnostics", OptionList).focus()

    def show_file(self, report: FileReport) -> None:
        self.query_one("#file-title", Static).update(literal(report.display, "bold"))
        raw = read_text(report.path, DiagnosticSink(report.display))
        text = raw.text if raw.text is not None else "(this file cannot be shown as text)"
        area = self.query_one("#file-text", TextArea)
        area.load_text(visible(text))
        diags = self.query_one("#diagnostics", OptionList)
        diags.clear_options()
        if not report.diagnostics:
            diags.add_option(
                Option(Content.styled("No problems in this file.", "$success"), disabled=True)
            )
        for i, d in enumerate(report.diagnostics):
            style = "$error" if d.severity == "error" else "$warning"
            where = f"line {d.line}" if d.line else "file"
            diags.add_option(
                Option(
                    Content.assemble(
                        Content.styled(f"{d.severity:<7} ", style),
                        Content.styled(f"{where:<9} ", "dim"),
                        literal(d.message, keep_newlines=False),
                        Content.styled(f"  [{d.code}]", "dim"),
                    ),
                    id=f"d{i}",
                )
            )
        if report.diagnostics:
            diags.highlighted = 0

    @on(OptionList.OptionSelected, "#diagnostics")
    def diagnostic_selected(self, event: OptionList.OptionSelected) -> None:
        files = self.query_one("#files", OptionList)
        opt = files.highlighted_option
        report = self._shown.get(opt.id or "") if opt else None
        if report is None or not event.option.id:
            return
        d = report.diagnostics[int(event.option.id[1:])]
        if d.line:
            area = self.query_one("#file-text", TextArea)
            area.move_cursor((d.line - 1, 0), center=True)
            area.focus()
