"""A person's proposal drafted from a reviewed item (a skill from a try-item, an anti-pattern
from a problem, a pattern from a keep-item): edited as YAML, validated, then in the inbox."""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Input, Label, Select, TextArea

from screens.dialogs.form import FormDialog, form_keys
from screens.messages import FilesWritten
from screens.writing import run_write
from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex
from store.models import Proposal
from store.models.kpt import KptItem
from store.read.diagnostics import DiagnosticSink
from store.read.yamlload import load_yaml
from store.review.inbox import check_payload, propose
from store.review.propose import KIND_DIRS, draft_proposal
from store.write.policy import PathRefused, resolve_target
from store.write.roundtrip import new_yaml_document


class ProposeScreen(FormDialog[bool]):
    # the fields scroll (the YAML editor takes the height that is left, at least 8 rows);
    # the heading, the errors and the buttons stay on screen
    DEFAULT_CSS = """
    ProposeScreen {
        #pr-fields { height: 1fr; min-height: 6; }
        #pr-first { height: auto; }
        #pr-kind-box { width: 26; height: auto; margin-right: 1; }
        #pr-title-box { width: 1fr; height: auto; }
        .pr-label { color: $text-muted; }
        #pr-rationale { height: 4; }
        #pr-payload { height: 1fr; min-height: 8; }
    }
    """

    BINDINGS = form_keys("propose.save", "propose.cancel")
    SAVE_LABEL = "Add to inbox"
    AUTO_FOCUS = "#pr-title"

    def __init__(
        self, index: WorkspaceIndex, session: Session, section: str, item: KptItem, note: str | None
    ) -> None:
        super().__init__()
        self.index = index
        self.session = session
        self.section = section
        self.item = item
        self.note = note
        self.draft = draft_proposal(session, section, item, note=note)

    def heading(self) -> Content:
        return Content.styled("New proposal from this review", "bold")

    def body(self) -> ComposeResult:
        d = self.draft
        with VerticalScroll(id="pr-fields"):
            with Horizontal(id="pr-first"):
                with Vertical(id="pr-kind-box"):
                    yield Label("kind", classes="pr-label")
                    yield Select(
                        [(k, k) for k in KIND_DIRS],
                        value=d["kind"],
                        allow_blank=False,
                        id="pr-kind",
                    )
                with Vertical(id="pr-title-box"):
                    yield Label("title", classes="pr-label")
                    yield Input(d["title"], id="pr-title")
            yield Label("target (inside the workspace)", classes="pr-label")
            yield Input(d["target"], id="pr-target")
            yield Label("rationale", classes="pr-label")
            yield TextArea(d["rationale"], id="pr-rationale")
            yield Label("proposed document (YAML)", classes="pr-label")
            yield TextArea(new_yaml_document(d["payload"]).decode(), id="pr-payload", language=None)

    @on(Select.Changed, "#pr-kind")
    def kind_changed(self, event: Select.Changed) -> None:
        if not isinstance(event.value, str) or event.value == self.draft["kind"]:
            return
        self.draft = draft_proposal(self.session, self.section, self.item, event.value, self.note)
        self.query_one("#pr-target", Input).value = self.draft["target"]
        self.query_one("#pr-payload", TextArea).load_text(
            new_yaml_document(self.draft["payload"]).decode()
        )

    def action_save(self) -> None:
        sink = DiagnosticSink("payload")
        doc = load_yaml(self.query_one("#pr-payload", TextArea).text, sink)
        if doc is None or not isinstance(doc.data, dict):
            msgs = [d.format() for d in sink.items] or [
                "the proposed document must be a YAML mapping"
            ]
            self.show_error("\n".join(msgs))
            return
        target = self.query_one("#pr-target", Input).value.strip()
        try:
            resolve_target(self.index.ws, target)
        except PathRefused as exc:
            self.show_error(str(exc))
            return
        data = {
            **self.draft,
            "kind": str(self.query_one("#pr-kind", Select).value),
            "title": self.query_one("#pr-title", Input).value.strip(),
            "target": target,
            "rationale": self.query_one("#pr-rationale", TextArea).text.strip(),
            "payload": doc.data,
        }
        problems = check_payload(Proposal.model_validate(data))
        if problems:
            self.show_error("\n".join(problems))
            return
        self.write(data)

    @work(exclusive=True, group="propose-write", exit_on_error=False)
    async def write(self, data: dict[str, Any]) -> None:
        """The new proposal file as one transaction (``u`` removes it again), in a thread;
        a failure keeps the form and what was typed."""
        ws, led = self.index.ws, self.index.ledger
        outcome = await run_write(
            self,
            f"propose {data.get('title') or ''}".strip(),
            lambda: propose(ws, data, ledger=led),
        )
        if not outcome.ok or outcome.value is None:
            return
        path, _result = outcome.value
        self.app.post_message(FilesWritten(frozenset({path})))
        self.notify(f"Proposal {path.stem} is in the inbox (I). u undoes.", markup=False, timeout=3)
        self.dismiss(True)
