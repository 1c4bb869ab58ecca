"""The wording a promotion writes, as fields the person edits (#41): one line per try-item,
or a memory entry's trigger, behavior and reason."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Input, Label, Static

from store.review.items import ItemRef
from store.review.promote import memory_prefill, prefill
from store.write.policy import promotion_kind

MEMORY_FIELDS = ("trigger", "behavior", "reason")


def _is_memory(ref: ItemRef) -> bool:
    target = getattr(ref.item, "persistence_target", None)
    return target is not None and promotion_kind(target.type) == "memory"


def _has_target(ref: ItemRef) -> bool:
    target = getattr(ref.item, "persistence_target", None)
    return ref.section == "try" and target is not None and bool(target.path)


#: what the fields hold: per item, the text (``None`` for a memory target) and the entry
Wording = tuple[tuple[str | None, dict[str, str] | None], ...]


class PromoteFields(Vertical):
    """One editable line per try-item (three for a memory entry)."""

    DEFAULT_CSS = """
    PromoteFields {
        height: auto;
        max-height: 8;
        overflow-y: auto;
        .pf-row { height: 1; }
        .pf-label { width: 10; color: $text-muted; }
        Input { width: 1fr; }
    }
    """

    def __init__(self, refs: list[ItemRef], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.refs = refs

    def compose(self) -> ComposeResult:
        if any(_has_target(r) for r in self.refs):
            yield Static(
                Content.styled("e edit the text · enter done · ctrl+s write it", "$text-muted"),
                classes="pf-hint",
            )
        for i, ref in enumerate(self.refs):
            if not _has_target(ref):
                continue
            if _is_memory(ref):
                entry = memory_prefill(ref)
                for name in MEMORY_FIELDS:
                    with Horizontal(classes="pf-row"):
                        yield Label(name, classes="pf-label")
                        yield Input(
                            entry[name], id=f"pf-{name}-{i}", compact=True, select_on_focus=False
                        )
            else:
                with Horizontal(classes="pf-row"):
                    label = "writes" if len(self.refs) == 1 else f"#{i + 1}"
                    yield Label(label, classes="pf-label")
                    yield Input(
                        prefill(ref), id=f"pf-text-{i}", compact=True, select_on_focus=False
                    )

    def wording(self) -> Wording:
        """What every item's fields hold now (``(None, None)``: an item without fields)."""
        out: list[tuple[str | None, dict[str, str] | None]] = []
        for i, ref in enumerate(self.refs):
            if not _has_target(ref):
                out.append((None, None))
            elif _is_memory(ref):
                entry = {n: self.query_one(f"#pf-{n}-{i}", Input).value for n in MEMORY_FIELDS}
                out.append((entry["behavior"], entry))
            else:
                out.append((self.query_one(f"#pf-text-{i}", Input).value, None))
        return tuple(out)
