"""A KPT report made by the person from a discussion: shown as YAML, edited, written only
on confirmation."""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static, TextArea

from screens.dialogs.confirm import close_form, typed
from screens.messages import FilesWritten
from screens.widgets.literal import literal
from screens.writing import run_write
from store.index.workspace_index import WorkspaceIndex
from store.review.person_report import (
    check_person_report,
    report_path,
    write_person_report,
)


class PersonReportDialog(ModalScreen[Path | None]):
    """The KPT report a person is about to write, as YAML: edit, then write or cancel."""

    DEFAULT_CSS = """
    PersonReportDialog {
        #disc-kpt-yaml { height: 1fr; min-height: 5; }
    }
    """

    BINDINGS = [
        Binding("ctrl+s", "save", "Write", id="discussions.kpt_write"),
        Binding("escape", "cancel", "Cancel", id="discussions.kpt_cancel"),
    ]

    def __init__(self, index: WorkspaceIndex, report_id: str, text: str, source: str) -> None:
        super().__init__()
        self.index = index
        self.report_id = report_id
        self.text = text
        self.source = source

    def compose(self) -> ComposeResult:
        ws = self.index.ws
        target = ws.display(report_path(ws, self.report_id))
        with Vertical(classes="dialog wide", id="disc-kpt-dialog"):
            yield Static(
                Content.assemble(
                    Content.styled("A KPT report made by you\n", "bold"),
                    Content("From "),
                    literal(self.source, "bold"),
                    Content(". It will be written to "),
                    literal(target, "bold $accent"),
                    Content(
                        " exactly as below (edit it if you like); its items then wait in "
                        "Sessions for review. The discussion itself is not changed."
                    ),
                ),
                classes="dialog-text",
            )
            yield TextArea(self.text, id="disc-kpt-yaml", language=None, soft_wrap=False)
            yield Static(id="disc-kpt-errors")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Write report (Ctrl+S)", variant="primary", id="save")
                yield Button("Cancel (Esc)", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#disc-kpt-yaml", TextArea).focus()
        self.at_open = typed(self)  # closing with other text asks first

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        ws = self.index.ws
        errors = self.query_one("#disc-kpt-errors", Static)
        text = self.query_one("#disc-kpt-yaml", TextArea).text
        diags = check_person_report(ws, self.report_id, text)
        bad = [d for d in diags if d.severity == "error"]
        if bad:
            errors.update(
                literal("Not written:\n" + "\n".join(d.format() for d in bad[:8]), "$error")
            )
            return
        self.write(text)

    @work(exclusive=True, group="person-report-write", exit_on_error=False)
    async def write(self, text: str) -> None:
        """The new report as one transaction (``u`` removes it again), in a thread."""
        ws, led, rid = self.index.ws, self.index.ledger, self.report_id
        outcome = await run_write(
            self, f"write {rid}", lambda: write_person_report(ws, led, rid, text)
        )
        if not outcome.ok or outcome.value is None:
            return
        path = outcome.value
        self.app.post_message(FilesWritten(frozenset({path}), review=True))
        self.notify(
            f"Wrote {ws.display(path)}: its items are in Sessions for review (u undoes).",
            markup=False,
            timeout=4,
        )
        self.dismiss(path)

    @on(Button.Pressed, "#cancel")
    @work(exclusive=True, group="form-cancel", exit_on_error=False)
    async def action_cancel(self) -> None:
        await close_form(self, self.at_open, None)
