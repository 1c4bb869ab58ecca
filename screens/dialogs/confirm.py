"""A yes/no question in a modal dialog, with the diff of what "yes" writes when there is one."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from screens.widgets.diff_view import DiffView


class ConfirmScreen(ModalScreen[bool]):
    """Dismissed with True (confirmed) or False; ``diff``: shown (scrollable, coloured)
    between the question and the buttons, before anything is written."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: Content, yes: str = "Yes", *, diff: str | None = None) -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.diff = diff

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide" if self.diff is not None else "dialog"):
            yield Static(self.question, classes="dialog-text")
            if self.diff is not None:
                yield DiffView(self.diff, id="confirm-diff", classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes} (y)", variant="primary", id="yes")
                yield Button("Cancel (n)", id="no")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
