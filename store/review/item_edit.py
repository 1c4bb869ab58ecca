"""Editing one KPT item in its report file, changing only the edited fields' lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from store.ledger import Ledger
from store.located import loc_record
from store.models.kpt import KeepItem, KptItem, OmissionItem, ProblemItem, TryItem
from store.read.diagnostics import Diagnostic, DiagnosticSink
from store.read.textio import FileStamp
from store.read.validate import validate_tolerant
from store.tx.journal import FileWrite
from store.tx.transactions import Effect, TxPlan, TxResult, apply
from store.workspace import Workspace
from store.write.atomic import ConflictError
from store.write.policy import in_place
from store.write.roundtrip import EditError, YamlEditor
from store.write.textdiff import bytes_diff

ITEM_MODELS: dict[str, type[KptItem]] = {
    "keep": KeepItem,
    "problem": ProblemItem,
    "try": TryItem,
    "omission": OmissionItem,
}
#: Fields a person edits in the form, per section (persistence targets have their own form).
FORM_FIELDS: dict[str, tuple[str, ...]] = {
    "keep": ("description", "evidence", "category", "reusability"),
    "problem": ("description", "impact", "evidence", "category", "root_cause", "turn_range"),
    "try": ("description", "addresses", "scope"),
    "omission": (
        "description",
        "reasoning",
        "risk_level",
        "counterfactual_prompt",
        "recommended_action",
    ),
}


def validate_item(section: str, data: dict[str, Any], display: str) -> list[Diagnostic]:
    sink = DiagnosticSink(display)
    validate_tolerant(ITEM_MODELS[section], data, sink, what=f"{section} item")
    return sink.items


def index_of(editor: YamlEditor, section: str, item_id: str) -> int:
    items = editor.get([section])
    if isinstance(items, list):
        for i, item in enumerate(items):
            if isinstance(item, dict) and str(item.get("id")) == item_id:
                return i
    raise EditError(f"{editor.path}: item '{item_id}' is no longer in '{section}'")


def _index_at(editor: YamlEditor, section: str, position: int) -> int:
    """The list index of the ``position``-th item (from 1) of ``section``, one without an id."""
    items = editor.get([section])
    n = 0
    for i, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict):
            n += 1
            if n == position:
                if _has_id(item.get("id")):
                    break
                return i
    raise EditError(
        f"{editor.path}: item {position} of '{section}' (without an id) is no longer there"
    )


def _has_id(value: Any) -> bool:
    """What the model reads as an id: text or a number, not empty."""
    return isinstance(value, (str, int, float)) and not isinstance(value, bool) and value != ""


def _edited(
    path: Path,
    section: str,
    item_id: str,
    position: int,
    changes: dict[str, Any],
    base: FileStamp | None,
) -> YamlEditor:
    """The report opened and the changes applied in memory (field → value; ``None``
    removes it); :class:`ConflictError` when the file is no longer ``base``."""
    editor = YamlEditor.open(path)
    if base is not None and editor.stamp is not None and editor.stamp.sha256 != base.sha256:
        raise ConflictError(path, base, editor.stamp)
    i = index_of(editor, section, item_id) if item_id else _index_at(editor, section, position)
    for key, value in changes.items():
        if value is None:
            editor.delete([section, i, key])
        else:
            editor.set([section, i, key], value)
    return editor


def edit_item(
    ws: Workspace,
    path: Path,
    section: str,
    item_id: str,
    changes: dict[str, Any],
    base: FileStamp | None,
    *,
    position: int = 0,
    subject: str | None = None,
    ledger: Ledger | None = None,
) -> TxResult | None:
    """Write ``changes`` (``None`` removes a field) into the item as an ``edit`` transaction
    (``None``: nothing changes). An item without an id is found by its ``position``;
    ``base``: the stamp the person started from (``None``: "keep mine")."""
    editor = _edited(path, section, item_id, position, changes, base)
    before, after = editor.original_bytes, editor.render()
    if before == after:
        return None
    fw = FileWrite(path, before, after, in_place(ws, "kpt"))
    label = subject or ws.display(path)
    effects = [Effect("edit", subject, data=loc_record(ws.display(path)))] if subject else []
    plan = TxPlan("edit", [label], [fw], effects)
    return apply(ws, plan, ledger=ledger)


def disk_diff(path: Path, base_bytes: bytes, label: str) -> str:
    """What changed on disk since ``base_bytes`` was read, as a unified diff."""
    try:
        now = path.read_bytes()
    except OSError:
        now = b""
    return bytes_diff(base_bytes, now, f"{label} (when you opened it)", f"{label} (on disk now)")
