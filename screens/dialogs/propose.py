"""A person's proposal drafted from a reviewed item: edit it, then it joins the inbox.

The draft is prefilled from the item (a skill from a try-item, an anti-pattern from a
problem and its root cause, a pattern from a keep-item); the payload is edited as YAML and
validated as its kind before the proposal file is written.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from screens.messages import FilesWritten
from screens.widgets.literal import literal
from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex
from store.models import Proposal
from store.models.kpt import KptItem
from store.read.diagnostics import DiagnosticSink
from store.read.yamlload import load_yaml
from store.review.inbox import check_payload, write_new_proposal
from store.review.propose import KIND_DIRS, draft_proposal
from store.write.atomic import WriteError
from store.write.roundtrip import new_yaml_document
from store.write.target_paths import PathRefused, resolve_target


class ProposeScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="propose.save"),
        Binding("escape", "cancel", "Cancel", id="propose.cancel"),
    ]

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

    def compose(self) -> ComposeResult:
        d = self.draft
        with Vertical(classes="dialog wide"):
            yield Static(
                Content.styled("New proposal from this review", "bold"), classes="dialog-text"
            )
            yield Label("kind", classes="form-label")
            yield Select(
                [(k, k) for k in KIND_DIRS], value=d["kind"], allow_blank=False, id="pr-kind"
            )
            yield Label("title", classes="form-label")
            yield Input(d["title"], id="pr-title")
            yield Label("target (inside the workspace)", classes="form-label")
            yield Input(d["target"], id="pr-target")
            yield Label("rationale", classes="form-label")
            yield TextArea(d["rationale"], id="pr-rationale", classes="form-long")
            yield Label("proposed document (YAML)", classes="form-label")
            yield TextArea(new_yaml_document(d["payload"]).decode(), id="pr-payload", language=None)
            yield Static(id="pr-errors")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Add to inbox (Ctrl+S)", variant="primary", id="save")
                yield Button("Cancel (Esc)", id="cancel")

    @on(Select.Changed, "#pr-kind")
    def kind_changed(self, event: Select.Changed) -> None:
        if not isinstance(event.value, str) or event.value == self.draft["kind"]:
            return
        self.draft = draft_proposal(self.session, self.section, self.item, event.value, self.note)
        self.query_one("#pr-target", Input).value = self.draft["target"]
        self.query_one("#pr-payload", TextArea).load_text(
            new_yaml_document(self.draft["payload"]).decode()
        )

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        errors = self.query_one("#pr-errors", Static)
        sink = DiagnosticSink("payload")
        doc = load_yaml(self.query_one("#pr-payload", TextArea).text, sink)
        if doc is None or not isinstance(doc.data, dict):
            msgs = [d.format() for d in sink.items] or [
                "the proposed document must be a YAML mapping"
            ]
            errors.update(literal("\n".join(msgs), "$error"))
            return
        target = self.query_one("#pr-target", Input).value.strip()
        try:
            resolve_target(self.index.ws, target)
        except PathRefused as exc:
            errors.update(literal(str(exc), "$error"))
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
            errors.update(literal("\n".join(problems), "$error"))
            return
        try:
            path = write_new_proposal(self.index.ws, data)
        except WriteError as exc:
            errors.update(literal(str(exc), "$error"))
            return
        self.app.post_message(FilesWritten(frozenset({path})))
        self.notify(f"Proposal {path.stem} is in the inbox (I).", markup=False, timeout=3)
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)
