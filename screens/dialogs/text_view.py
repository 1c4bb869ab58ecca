"""A message with a block of text in a modal (Esc, Enter or q closes it): a unified diff in a
:class:`DiffView`, other text read-only in a ``TextArea``."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static, TextArea

from screens.widgets.diff_view import DiffView, looks_like_diff
from screens.widgets.literal import literal, visible


class TextView(ModalScreen[None]):
    """A long text to read, such as the diff of what undo restores."""

    BINDINGS = [Binding("escape,enter,q", "close", "Close", id="text_view.close")]

    def __init__(self, message: str, text: str, title: str = "") -> None:
        super().__init__()
        self.message = message
        self.text = text
        self.heading = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            parts = [Content.styled(f"{self.heading}\n", "bold $warning")] if self.heading else []
            yield Static(Content.assemble(*parts, literal(self.message)), classes="dialog-text")
            if self.text and looks_like_diff(self.text):
                yield DiffView(self.text, id="text-view-body", classes="dialog-body")
            elif self.text:
                area = TextArea(
                    visible(self.text), read_only=True, id="text-view-body", classes="dialog-body"
                )
                area.can_focus = False
                yield area
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close (Esc)", variant="primary", id="close")
        yield Footer()

    def on_mount(self) -> None:
        for diff in self.query(DiffView):
            diff.focus()

    def on_button_pressed(self, _event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
