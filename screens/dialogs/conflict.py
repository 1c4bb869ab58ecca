"""A file changed on disk during an edit: reload theirs, keep mine (the edited fields on top
of the new file), or see the diff first. Nothing is overwritten silently."""

from __future__ import annotations

from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from screens.widgets.diff_view import DiffView
from screens.widgets.literal import literal

Choice = Literal["reload", "keep", "cancel"]


class ConflictScreen(ModalScreen[Choice]):
    # priority: "k" means "Keep mine" even while the diff (where k scrolls) has focus
    BINDINGS = [
        Binding("r", "choose('reload')", "Reload", id="conflict.reload", priority=True),
        Binding("k", "choose('keep')", "Keep mine", id="conflict.keep", priority=True),
        Binding("d", "diff", "Show diff", id="conflict.diff"),
        Binding("escape", "choose('cancel')", "Back to editing", id="conflict.cancel"),
    ]

    def __init__(self, display: str, reason: str, diff: str) -> None:
        super().__init__()
        self.display_path = display
        self.reason = reason
        self.diff = diff

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Static(
                Content.assemble(
                    Content.styled("Changed on disk: ", "bold $warning"),
                    literal(self.display_path, "bold"),
                    "\n",
                    literal(self.reason),
                    "\nYour edit is not saved yet. What should happen?",
                ),
                classes="dialog-text",
            )
            area = DiffView(
                self.diff or "(no difference)", id="conflict-diff", classes="dialog-body"
            )
            area.display = False
            yield area
            with Horizontal(classes="dialog-buttons"):
                yield Button("Reload theirs (r)", id="reload")
                yield Button("Keep mine (k)", variant="warning", id="keep")
                yield Button("Show diff (d)", id="diff")
                yield Button("Back (Esc)", id="cancel")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "diff":
            self.action_diff()
        elif event.button.id in ("reload", "keep", "cancel"):
            self.dismiss(event.button.id)  # type: ignore[arg-type]

    def action_diff(self) -> None:
        area = self.query_one("#conflict-diff", DiffView)
        area.display = True
        area.focus()  # to scroll it; r / k / Esc still answer (the dialog's keys)

    def action_choose(self, choice: Choice) -> None:
        self.dismiss(choice)
