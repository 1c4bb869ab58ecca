"""The frame every form shares: a heading, its fields, an error line, Save and Cancel. Ctrl+S
saves; Esc cancels, asking first when something typed would be lost."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static, TextArea

from screens.dialogs.confirm import ConfirmScreen
from screens.widgets.literal import literal

T = TypeVar("T")


def form_keys(save_id: str, cancel_id: str, save: str = "Save") -> list[BindingType]:
    """A form's two keys, under the ids a keymap names them by."""
    return [
        Binding("ctrl+s", "save", save, id=save_id),
        Binding("escape", "cancel", "Cancel", id=cancel_id),
    ]


class FormDialog(ModalScreen[T]):
    """A subclass gives :meth:`heading`, :meth:`body` and ``action_save``."""

    SAVE_LABEL: ClassVar[str] = "Save"
    ERRORS_ID: ClassVar[str] = "form-errors"
    #: what the form is dismissed with when cancelled
    CANCELLED: ClassVar[Any] = False

    def heading(self) -> Content:
        raise NotImplementedError

    def body(self) -> ComposeResult:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Static(self.heading(), classes="dialog-text")
            yield from self.body()
            yield Static(id=self.ERRORS_ID)
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.SAVE_LABEL} (Ctrl+S)", variant="primary", id="save")
                yield Button("Cancel (Esc)", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        # (after a subclass's own on_mount: Textual calls both)
        self.at_open = self.typed()

    def typed(self) -> tuple[str, ...]:
        """Every input's and text area's text."""
        return tuple(i.value for i in self.query(Input)) + tuple(
            t.text for t in self.query(TextArea)
        )

    def dirty(self) -> bool:
        """Whether cancelling loses something: text typed since the form opened."""
        return self.typed() != self.at_open

    def show_error(self, text: str) -> None:
        self.query_one(f"#{self.ERRORS_ID}", Static).update(literal(text, "$error"))

    def action_save(self) -> None:
        raise NotImplementedError

    @on(Button.Pressed, "#save")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#cancel")
    @work(exclusive=True, group="form-cancel", exit_on_error=False)
    async def action_cancel(self) -> None:
        if self.dirty() and not await ask_discard(self):
            return
        self.dismiss(self.CANCELLED)


async def ask_discard(screen: ModalScreen[Any]) -> bool:
    """Whether to close a form that holds unsaved changes (asked; never assumed)."""
    question = Content.assemble(
        Content.styled("Discard your changes?\n", "bold $warning"),
        "What you typed in this form has not been saved.",
    )
    answer = await screen.app.push_screen_wait(ConfirmScreen(question, "Discard"))
    return bool(answer)
