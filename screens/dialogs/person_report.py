"""A KPT report made by the person from a discussion: shown as YAML, edited, written only
on confirmation."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import TextArea

from screens.dialogs.form import FormDialog, form_keys
from screens.messages import FilesWritten
from screens.widgets.literal import literal
from screens.writing import run_write
from store.index.workspace_index import WorkspaceIndex
from store.review.person_report import (
    check_person_report,
    report_path,
    write_person_report,
)


class PersonReportDialog(FormDialog[Path | None]):
    """The KPT report a person is about to write, as YAML: edit, then write or cancel."""

    DEFAULT_CSS = """
    PersonReportDialog {
        #disc-kpt-yaml { height: 1fr; min-height: 5; }
    }
    """

    BINDINGS = form_keys("discussions.kpt_write", "discussions.kpt_cancel", "Write")
    SAVE_LABEL = "Write report"
    ERRORS_ID = "disc-kpt-errors"
    CANCELLED = None
    AUTO_FOCUS = "#disc-kpt-yaml"

    def __init__(self, index: WorkspaceIndex, report_id: str, text: str, source: str) -> None:
        super().__init__()
        self.index = index
        self.report_id = report_id
        self.text = text
        self.source = source

    def heading(self) -> Content:
        ws = self.index.ws
        return Content.assemble(
            Content.styled("A KPT report made by you\n", "bold"),
            Content("From "),
            literal(self.source, "bold"),
            Content(". It will be written to "),
            literal(ws.display(report_path(ws, self.report_id)), "bold $accent"),
            Content(
                " exactly as below (edit it if you like); its items then wait in "
                "Sessions for review. The discussion itself is not changed."
            ),
        )

    def body(self) -> ComposeResult:
        yield TextArea(self.text, id="disc-kpt-yaml", language=None, soft_wrap=False)

    def action_save(self) -> None:
        text = self.query_one("#disc-kpt-yaml", TextArea).text
        diags = check_person_report(self.index.ws, self.report_id, text)
        bad = [d for d in diags if d.severity == "error"]
        if bad:
            self.show_error("Not written:\n" + "\n".join(d.format() for d in bad[:8]))
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
