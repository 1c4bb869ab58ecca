"""Editing one lesson record in a dialog; only its line in the JSONL file is rewritten."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Input, Label, Select, TextArea

from screens.dialogs.form import FormDialog, form_keys
from screens.widgets.literal import literal
from screens.writing import run_write
from store.index.workspace_index import WorkspaceIndex
from store.models import Lesson
from store.models.lessons import LESSON_TYPES
from store.review.lessons import edit_lesson_tx, find_lesson


class LessonForm(FormDialog[bool]):
    BINDINGS = form_keys("lesson_form.save", "lesson_form.cancel")
    TEXT_FIELDS = ("title", "category", "detail_ref", "memory_ref")
    LONG_FIELDS = ("summary", "context")
    AUTO_FOCUS = "#lesson-title"

    def __init__(self, index: WorkspaceIndex, path: Path, lesson: Lesson) -> None:
        super().__init__()
        self.index = index
        self.path = path
        self.lesson = lesson

    def heading(self) -> Content:
        return Content.assemble(
            Content.styled("Edit lesson ", "bold"), literal(self.lesson.id or "")
        )

    def body(self) -> ComposeResult:
        les = self.lesson
        # the fields scroll; the heading, the errors and the buttons stay on screen
        with VerticalScroll(id="lesson-fields", classes="dialog-body"):
            yield Label("title", classes="form-label")
            yield Input(str(les.title or ""), id="lesson-title")
            yield Label("type", classes="form-label")
            options: list[tuple[str | Content, str]] = [(t, t) for t in LESSON_TYPES]
            if les.type and les.type not in LESSON_TYPES:
                options.append((literal(f"{les.type} (as written)", keep_newlines=False), les.type))
            yield Select(options, value=les.type or Select.NULL, id="lesson-type")
            for name in self.TEXT_FIELDS[1:]:  # the title comes first, focused
                yield Label(name, classes="form-label")
                yield Input(str(getattr(les, name) or ""), id=f"lesson-{name}")
            for name in self.LONG_FIELDS:
                yield Label(name, classes="form-label")
                yield TextArea(
                    str(getattr(les, name) or ""), id=f"lesson-{name}", classes="form-long"
                )
            yield Label("tags (comma-separated)", classes="form-label")
            yield Input(", ".join(les.tags or []), id="lesson-tags")

    def changes(self) -> dict[str, object]:
        les = self.lesson
        new: dict[str, object] = {}
        t = self.query_one("#lesson-type", Select).value
        if isinstance(t, str) and t != les.type:
            new["type"] = t
        for name in self.TEXT_FIELDS:
            v = self.query_one(f"#lesson-{name}", Input).value.strip()
            old = getattr(les, name)
            if v != (old or ""):
                new[name] = v if v or name == "detail_ref" else None
        for name in self.LONG_FIELDS:
            v = self.query_one(f"#lesson-{name}", TextArea).text.strip()
            if v != (getattr(les, name) or ""):
                new[name] = v
        tags = [
            x.strip() for x in self.query_one("#lesson-tags", Input).value.split(",") if x.strip()
        ]
        if tags != (les.tags or []):
            new["tags"] = tags
        return new

    def dirty(self) -> bool:
        return bool(self.changes())

    def action_save(self) -> None:
        changes = self.changes()
        if not changes:
            self.notify("Nothing changed; nothing was written.", timeout=2)
            self.dismiss(False)
            return
        self.save(changes)

    @work(exclusive=True, group="lesson-save", exit_on_error=False)
    async def save(self, changes: dict[str, object]) -> None:
        """Find the lesson's line again and rewrite it as one transaction, in a thread (the
        file may hold a hundred thousand lessons); a failure keeps the form and its text."""
        ws, led, lid = self.index.ws, self.index.ledger, self.lesson.id or ""
        outcome = await run_write(
            self,
            f"edit {lid}",
            lambda: edit_lesson_tx(ws, find_lesson(self.path, lid), changes, ledger=led),
        )
        if outcome.ok:
            self.dismiss(True)
