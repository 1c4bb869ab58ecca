"""A file changed on disk during an edit: reload theirs, keep mine (the edited fields on top
of the new file), or see the diff first. Nothing is overwritten silently."""

from __future__ import annotations

from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets.button import ButtonVariant

from screens.dialogs.confirm import Ask
from screens.widgets.diff_view import DiffView
from screens.widgets.literal import literal

Choice = Literal["reload", "keep", "cancel"]


class ConflictScreen(Ask[Choice]):
    # priority: "k" means "Keep mine" even while the diff (where k scrolls) has focus
    BINDINGS = [
        Binding("r", "answer('reload')", "Reload", id="conflict.reload", priority=True),
        Binding("k", "answer('keep')", "Keep mine", id="conflict.keep", priority=True),
        Binding("d", "answer('diff')", "Show diff", id="conflict.diff"),
        Binding("escape", "answer('cancel')", "Back to editing", id="conflict.cancel"),
    ]

    def __init__(self, display: str, reason: str, diff: str) -> None:
        question = Content.assemble(
            Content.styled("Changed on disk: ", "bold $warning"),
            literal(display, "bold"),
            "\n",
            literal(reason),
            "\nYour edit is not saved yet. What should happen?",
        )
        answers: list[tuple[str, str, ButtonVariant]] = [
            ("reload", "Reload theirs (r)", "default"),
            ("keep", "Keep mine (k)", "warning"),
            ("diff", "Show diff (d)", "default"),
            ("cancel", "Back (Esc)", "default"),
        ]
        super().__init__(question, answers, wide=True)
        self.diff = diff

    def body(self) -> ComposeResult:
        area = DiffView(self.diff or "(no difference)", id="conflict-diff", classes="dialog-body")
        area.display = False
        yield area

    def action_answer(self, answer: str) -> None:
        if answer != "diff":
            self.dismiss(answer)  # type: ignore[arg-type]
            return
        area = self.query_one("#conflict-diff", DiffView)
        area.display = True
        area.focus()  # to scroll it; r / k / Esc still answer (the dialog's keys)
