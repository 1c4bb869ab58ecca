"""A message with a block of text in a modal (Esc, Enter or q closes it): a unified diff in a
:class:`DiffView`, other text read-only in a ``TextArea``."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import TextArea

from screens.dialogs.confirm import Ask
from screens.widgets.diff_view import DiffView, looks_like_diff
from screens.widgets.literal import literal, visible


class TextView(Ask[None]):
    """A long text to read, such as the diff of what undo restores."""

    BINDINGS = [Binding("escape,enter,q", "answer('close')", "Close", id="text_view.close")]
    AUTO_FOCUS = "DiffView, Button"  # a diff scrolls with the keys

    def __init__(self, message: str, text: str, title: str = "") -> None:
        parts = [Content.styled(f"{title}\n", "bold $warning")] if title else []
        question = Content.assemble(*parts, literal(message))
        super().__init__(question, [("close", "Close (Esc)", "primary")], wide=True)
        self.text = text

    def body(self) -> ComposeResult:
        if self.text and looks_like_diff(self.text):
            yield DiffView(self.text, id="text-view-body", classes="dialog-body")
        elif self.text:
            area = TextArea(
                visible(self.text), read_only=True, id="text-view-body", classes="dialog-body"
            )
            area.can_focus = False
            yield area

    def value(self, answer: str) -> None:
        return None
