"""Editing one KPT item, validated by its model; only the changed fields' lines are written,
and a report changed on disk meanwhile brings the conflict choice (nothing overwritten)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Input, Label, Select, TextArea

from screens.dialogs.form import FormDialog, form_keys
from screens.messages import WorkspaceChanged
from screens.widgets.literal import literal
from screens.writing import run_write
from store.index.workspace_index import WorkspaceIndex
from store.models.base import Choice
from store.models.kpt import KptItem
from store.read.textio import FileStamp
from store.review.item_edit import (
    FORM_FIELDS,
    ITEM_MODELS,
    disk_diff,
    edit_item,
    validate_item,
)
from store.write.atomic import ConflictError
from store.write.roundtrip import EditError

LONG_FIELDS = {
    "description",
    "evidence",
    "reasoning",
    "root_cause",
    "counterfactual_prompt",
    "recommended_action",
}
LIST_FIELDS = {"addresses"}


def _choices(section: str, name: str) -> tuple[str, ...] | None:
    field = ITEM_MODELS[section].model_fields.get(name)
    for m in field.metadata if field else []:
        if isinstance(m, Choice):
            return m.values
    return None


class ItemForm(FormDialog[bool]):
    """Dismissed with True when the item was saved."""

    BINDINGS = form_keys("form.save", "form.cancel")

    def __init__(
        self,
        index: WorkspaceIndex,
        path: Path,
        section: str,
        item: KptItem,
        key: str,
        subject: str | None,
        position: int = 0,
    ) -> None:
        """``position``: the item's place in its section (from 1), how an item without an
        id is found; ``subject``: what the edit marks edited (the item's or report's key)."""
        super().__init__()
        self.index = index
        self.position = position
        self.fields = ("id", *FORM_FIELDS[section]) if not item.id else FORM_FIELDS[section]
        self.path = path
        self.subject = subject
        self.display_path = index.ws.display(path)
        self.section = section
        self.item = item
        self.key = key
        self.original = item.model_dump(by_alias=True)
        self.base_bytes = path.read_bytes() if path.exists() else b""
        st = path.stat() if path.exists() else None
        self.base: FileStamp | None = FileStamp.of_bytes(self.base_bytes, st) if st else None
        self.conflict_open = False

    def heading(self) -> Content:
        return Content.assemble(Content.styled("Edit ", "bold"), literal(self.key, "bold"))

    def body(self) -> ComposeResult:
        with VerticalScroll(id="form-fields", classes="dialog-body"):
            for name in self.fields:
                value = self.original.get(name)
                yield Label(name, classes="form-label")
                choices = _choices(self.section, name)
                wid = f"field-{name}"
                if choices is not None:
                    options: list[tuple[str | Content, str]] = [(c, c) for c in choices]
                    if isinstance(value, str) and value not in choices:
                        options.append(
                            (literal(f"{value} (as written)", keep_newlines=False), value)
                        )
                    yield Select(
                        options, value=value if value else Select.NULL, id=wid, allow_blank=True
                    )
                elif name in LIST_FIELDS:
                    yield Input(", ".join(value or []), id=wid, placeholder="comma-separated ids")
                elif name in LONG_FIELDS:
                    yield TextArea(str(value or ""), id=wid, soft_wrap=True, classes="form-long")
                else:
                    yield Input(str(value or ""), id=wid)

    def on_mount(self) -> None:
        self.query_one(f"#field-{self.fields[0]}").focus()

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.fields:
            w = self.query_one(f"#field-{name}")
            if isinstance(w, Select):
                v = w.value
                out[name] = v if isinstance(v, str) else None
            elif isinstance(w, TextArea):
                out[name] = w.text.strip("\n") or None
            elif isinstance(w, Input):
                if name in LIST_FIELDS:
                    out[name] = [x.strip() for x in w.value.split(",") if x.strip()]
                else:
                    out[name] = w.value.strip() or None
        return out

    def changes(self) -> dict[str, Any]:
        new = self.values()
        return {k: v for k, v in new.items() if v != self.original.get(k)}

    def dirty(self) -> bool:
        return bool(self.changes())

    def action_save(self) -> None:
        self.save(base=self.base)

    def save(self, base: FileStamp | None) -> None:
        changes = self.changes()
        if not changes:
            self.notify("Nothing changed; nothing was written.", timeout=2)
            self.dismiss(False)
            return
        data = {**self.original, **self.values()}
        diags = validate_item(self.section, data, self.display_path)
        errors = [d for d in diags if d.severity == "error"]
        if errors:
            self.show_error("\n".join(d.message for d in errors))
            return
        self.write(changes, base)

    @work(exclusive=True, group="form-write", exit_on_error=False)
    async def write(self, changes: dict[str, Any], base: FileStamp | None) -> None:
        """The round-trip edit and the write as one transaction, in a thread; a failure
        keeps the form open with what was typed."""
        ws, led = self.index.ws, self.index.ledger

        def edit() -> object:
            return edit_item(
                ws,
                self.path,
                self.section,
                self.item.id or "",
                changes,
                base,
                position=self.position,
                subject=self.subject,
                ledger=led,
            )

        try:
            outcome = await run_write(
                self, f"edit {self.key}", edit, expect=(ConflictError, EditError)
            )
        except ConflictError as exc:
            self.ask_conflict(str(exc))
            return
        except EditError as exc:
            self.show_error(str(exc))
            return
        if outcome.ok:
            self.dismiss(True)

    @work(exclusive=True, group="form-conflict", exit_on_error=False)
    async def ask_conflict(self, reason: str) -> None:
        from screens.dialogs.conflict import ConflictScreen

        if self.conflict_open:
            return
        self.conflict_open = True
        try:
            choice = await self.app.push_screen_wait(
                ConflictScreen(
                    self.display_path,
                    reason,
                    disk_diff(self.path, self.base_bytes, self.display_path),
                )
            )
        finally:
            self.conflict_open = False
        if choice == "reload":
            self.notify("Reloaded: the item shows what is on disk now; your edit was dropped.")
            self.dismiss(False)
        elif choice == "keep":
            self.save(base=None)

    def on_workspace_changed(self, event: WorkspaceChanged) -> None:
        """The report changed on disk while the form is open: say so at once."""
        if self.path not in event.changed and self.path not in event.removed:
            return
        try:
            now = self.path.read_bytes()
        except OSError:
            now = b""
        if now != self.base_bytes and self.changes():
            self.ask_conflict("the report was changed by another program while you were editing it")
