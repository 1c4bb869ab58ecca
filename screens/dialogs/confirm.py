"""A question in a modal dialog, answered by a key or a button: yes/no, with the diff of
what "yes" writes when there is one."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static
from textual.widgets.button import ButtonVariant

from screens.widgets.diff_view import DiffView

T = TypeVar("T")


class Ask(ModalScreen[T]):
    """The question, what it is about (:meth:`body`), and its answers as buttons
    (``answers``: id, label, variant); a button, or a key's ``answer('id')``, dismisses
    the dialog with :meth:`value` of its id."""

    QUESTION_ID: ClassVar[str | None] = None

    def __init__(
        self,
        question: Content,
        answers: list[tuple[str, str, ButtonVariant]],
        *,
        wide: bool = False,
    ) -> None:
        super().__init__()
        self.question = question
        self.answers = answers
        self.wide = wide

    def body(self) -> ComposeResult:
        yield from ()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide" if self.wide else "dialog"):
            yield Static(self.question, classes="dialog-text", id=self.QUESTION_ID)
            yield from self.body()
            with Horizontal(classes="dialog-buttons"):
                for bid, label, variant in self.answers:
                    yield Button(label, variant=variant, id=bid)
        yield Footer()

    def value(self, answer: str) -> Any:
        return answer

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id or "")

    def action_answer(self, answer: str) -> None:
        self.dismiss(self.value(answer))


class ConfirmScreen(Ask[bool]):
    """Dismissed with True (confirmed) or False; ``diff``: shown (scrollable, coloured)
    between the question and the buttons, before anything is written."""

    BINDINGS = [
        Binding("y", "answer('yes')", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer('no')", "No", id="confirm.no"),
    ]
    AUTO_FOCUS = "#yes"  # (Enter presses it)
    YES_VARIANT: ClassVar[ButtonVariant] = "primary"

    def __init__(
        self, question: Content, yes: str = "Yes", *, diff: str | None = None, wide: bool = False
    ) -> None:
        answers = [("yes", f"{yes} (y)", self.YES_VARIANT), ("no", "Cancel (n)", "default")]
        super().__init__(question, answers, wide=wide or diff is not None)
        self.diff = diff

    def body(self) -> ComposeResult:
        if self.diff is not None:
            yield DiffView(self.diff, id="confirm-diff", classes="dialog-body")

    def value(self, answer: str) -> bool:
        return answer == "yes"
