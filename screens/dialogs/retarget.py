"""Where try-items are promoted: type, path (checked, completed) and section (one of the
target's headings, or a new one); only the items' persistence_target lines are rewritten."""

from __future__ import annotations

import asyncio

from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label, Select, Static

from screens.dialogs.form import FormDialog, form_keys
from screens.widgets.literal import literal
from screens.writing import run_write
from store.index.workspace_index import WorkspaceIndex
from store.models.kpt import TARGET_TYPES
from store.read.counted import counted
from store.review.items import ItemRef, ReviewError
from store.review.retarget import retarget_items, target_headings
from store.write.policy import PathRefused, resolve_target, write_bases
from store.write.roundtrip import EditError

NEW_SECTION = "\x00new"


def candidate_paths(index: WorkspaceIndex, limit: int = 2000) -> list[str]:
    """Markdown and skill files under the allowed directories, for completion."""
    out: list[str] = []
    for base in write_bases(index.ws):
        for pattern in (
            "**/*.md",
            "knowledge_base/**/skills/*.yaml",
            "memory/*/project_memory.yaml",
        ):
            for p in base.glob(pattern):
                if any(part.startswith(".") for part in p.relative_to(base).parts):
                    continue
                try:
                    out.append(str(p.relative_to(index.ws.root)))
                except ValueError:
                    out.append(str(p))
                if len(out) >= limit:
                    return sorted(set(out))
    return sorted(set(out))


class RetargetScreen(FormDialog[bool]):
    BINDINGS = form_keys("retarget.save", "retarget.cancel")
    AUTO_FOCUS = "#rt-type"

    def __init__(self, index: WorkspaceIndex, refs: list[ItemRef]) -> None:
        super().__init__()
        self.index = index
        self.refs = refs
        first = refs[0].item
        t = getattr(first, "persistence_target", None)
        self.start_type = (t.type if t else None) or "claude_md"
        self.start_path = (t.path if t else None) or "CLAUDE.md"
        self.start_section = (t.section if t else None) or ""

    def heading(self) -> Content:
        names = ", ".join(r.key for r in self.refs)
        return Content.assemble(Content.styled("Persistence target for ", "bold"), literal(names))

    def body(self) -> ComposeResult:
        with VerticalScroll(id="rt-fields", classes="dialog-body"):
            yield Label("type", classes="form-label")
            yield Select(
                [(t, t) for t in TARGET_TYPES],
                value=self.start_type if self.start_type in TARGET_TYPES else "claude_md",
                id="rt-type",
                allow_blank=False,
            )
            yield Label("path (relative to the workspace root, or ~/…)", classes="form-label")
            yield Input(self.start_path, id="rt-path")
            yield Static(id="rt-resolved")
            yield Label("section", classes="form-label")
            yield Select([], id="rt-section", prompt="(no section)")
            yield Input(self.start_section, id="rt-new-section", placeholder="## New heading")

    def on_mount(self) -> None:
        self.check_path(self.start_path)
        self.find_candidates()

    @work(exclusive=True, group="rt-candidates", exit_on_error=False)
    async def find_candidates(self) -> None:
        """Completion for the path: found in a thread (it walks the allowed directories)."""
        found = await asyncio.to_thread(candidate_paths, self.index)
        self.query_one("#rt-path", Input).suggester = SuggestFromList(found, case_sensitive=False)

    @on(Input.Changed, "#rt-path")
    def path_changed(self, event: Input.Changed) -> None:
        self.check_path(event.value)

    def check_path(self, raw: str) -> None:
        box = self.query_one("#rt-resolved", Static)
        try:
            resolved = resolve_target(self.index.ws, raw)
        except PathRefused as exc:
            box.update(literal(str(exc), "$error"))
            return
        exists = "" if resolved.exists() else "  (new file)"
        box.update(
            Content.assemble(
                literal(str(resolved), "$text-muted"), Content.styled(exists, "$warning")
            )
        )
        self.load_headings(raw)

    @work(exclusive=True, group="retarget-headings", exit_on_error=False)
    async def load_headings(self, raw: str) -> None:
        """The target's headings (read in a thread; a newer path typed cancels this)."""
        headings = await asyncio.to_thread(target_headings, self.index.ws, raw)
        sel = self.query_one("#rt-section", Select)
        current = sel.value if isinstance(sel.value, str) else None
        wanted = current if current and current != NEW_SECTION else self.start_section
        sel.set_options(
            [(literal(h, keep_newlines=False), h) for h in headings]
            + [("New section…", NEW_SECTION)]
        )
        sel.value = wanted if wanted in headings else NEW_SECTION
        self.query_one("#rt-new-section", Input).display = wanted not in headings

    @on(Select.Changed, "#rt-section")
    def section_changed(self, event: Select.Changed) -> None:
        self.query_one("#rt-new-section", Input).display = event.value == NEW_SECTION

    def section(self) -> str | None:
        v = self.query_one("#rt-section", Select).value
        if v == NEW_SECTION or not isinstance(v, str):
            return self.query_one("#rt-new-section", Input).value.strip() or None
        return v

    def action_save(self) -> None:
        type_ = str(self.query_one("#rt-type", Select).value)
        path = self.query_one("#rt-path", Input).value.strip()
        self.save(type_, path, self.section())

    @work(exclusive=True, group="rt-save", exit_on_error=False)
    async def save(self, type_: str, path: str, section: str | None) -> None:
        """Every chosen item's target as one transaction (``u`` undoes the batch), in a
        thread; a refusal (a bad path, an item that changed) keeps the form open."""
        ws, led, refs = self.index.ws, self.index.ledger, list(self.refs)
        try:
            outcome = await run_write(
                self,
                f"retarget {counted(len(refs), 'item')}",
                lambda: retarget_items(ws, refs, type_, path, section, ledger=led),
                expect=(ReviewError, EditError),
            )
        except (ReviewError, EditError) as exc:
            self.show_error(str(exc))
            return
        if outcome.ok:
            self.dismiss(True)
