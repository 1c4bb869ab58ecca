"""Asks for an optional note (e.g. why an item is rejected)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static


class NotePrompt(ModalScreen[str | None]):
    """Dismissed with the note ("" for none) or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="note.cancel")]

    def __init__(self, title: Content, action: str = "Reject") -> None:
        super().__init__()
        self.title_content = title
        self.action_label = action

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_content, classes="dialog-text")
            yield Input(placeholder="Note (optional) — Enter to confirm", id="note")
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.action_label, variant="error", id="ok")
                yield Button("Cancel (Esc)", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#note", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self.dismiss(self.query_one("#note", Input).value.strip())
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
