"""Editing one lesson record in a dialog; only its line in the JSONL file is rewritten."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from screens.widgets.literal import literal
from store.models import Lesson
from store.models.lessons import LESSON_TYPES
from store.review.items import ReviewError
from store.review.lessons import edit_lesson, find_lesson
from store.write.atomic import Guard, WriteError


class LessonForm(ModalScreen[bool]):
    """Editing one lesson record; only its line in the JSONL file is rewritten."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="lesson_form.save"),
        Binding("escape", "cancel", "Cancel", id="lesson_form.cancel"),
    ]
    TEXT_FIELDS = ("title", "category", "detail_ref", "memory_ref")
    LONG_FIELDS = ("summary", "context")

    def __init__(self, path: Path, lesson: Lesson, guard: Guard) -> None:
        super().__init__()
        self.path = path
        self.lesson = lesson
        self.guard = guard

    def compose(self) -> ComposeResult:
        les = self.lesson
        with VerticalScroll(classes="dialog wide"):
            yield Static(
                Content.assemble(Content.styled("Edit lesson ", "bold"), literal(les.id or "")),
                classes="dialog-text",
            )
            yield Label("type", classes="form-label")
            options: list[tuple[str | Content, str]] = [(t, t) for t in LESSON_TYPES]
            if les.type and les.type not in LESSON_TYPES:
                options.append((literal(f"{les.type} (as written)", keep_newlines=False), les.type))
            yield Select(options, value=les.type or Select.NULL, id="lesson-type")
            for name in self.TEXT_FIELDS:
                yield Label(name, classes="form-label")
                yield Input(str(getattr(les, name) or ""), id=f"lesson-{name}")
            for name in self.LONG_FIELDS:
                yield Label(name, classes="form-label")
                yield TextArea(
                    str(getattr(les, name) or ""), id=f"lesson-{name}", classes="form-long"
                )
            yield Label("tags (comma-separated)", classes="form-label")
            yield Input(", ".join(les.tags or []), id="lesson-tags")
            yield Static(id="lesson-errors")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save (Ctrl+S)", variant="primary", id="save")
                yield Button("Cancel (Esc)", id="cancel")

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

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        changes = self.changes()
        if not changes:
            self.dismiss(False)
            return
        self.save(changes)

    @work(exclusive=True, group="lesson-save")
    async def save(self, changes: dict[str, object]) -> None:
        """Find the lesson's line again and rewrite it, in a thread (the file may hold a
        hundred thousand lessons)."""

        def write() -> None:
            edit_lesson(find_lesson(self.path, self.lesson.id or ""), changes, guard=self.guard)

        try:
            await asyncio.to_thread(write)
        except (ReviewError, WriteError, OSError) as exc:
            self.query_one("#lesson-errors", Static).update(literal(str(exc), "$error"))
            return
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)
