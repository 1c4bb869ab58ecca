"""Asks for an optional note (e.g. why an item is rejected)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Input

from screens.dialogs.confirm import Ask


class NotePrompt(Ask[str | None]):
    """Dismissed with the note ("" for none) or None when cancelled."""

    BINDINGS = [Binding("escape", "answer('cancel')", "Cancel", id="note.cancel")]
    AUTO_FOCUS = "#note"

    def __init__(self, title: Content, action: str = "Reject") -> None:
        super().__init__(title, [("ok", action, "error"), ("cancel", "Cancel (Esc)", "default")])

    def body(self) -> ComposeResult:
        yield Input(placeholder="Note (optional) — Enter to confirm", id="note")

    def value(self, answer: str) -> str | None:
        return self.query_one("#note", Input).value.strip() if answer == "ok" else None

    def on_input_submitted(self) -> None:
        self.action_answer("ok")
