"""Editing one KPT item in its report file, changing only the edited fields' lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .atomic import ConflictError, current_stamp
from .diagnostics import Diagnostic, DiagnosticSink
from .models.kpt import KeepItem, KptItem, OmissionItem, ProblemItem, TryItem
from .roundtrip import EditError, YamlEditor
from .textdiff import bytes_diff
from .textio import FileStamp
from .validate import validate_tolerant

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


def _index_of(editor: YamlEditor, section: str, item_id: str) -> int:
    items = editor.get([section])
    if isinstance(items, list):
        for i, item in enumerate(items):
            if isinstance(item, dict) and str(item.get("id")) == item_id:
                return i
    raise EditError(f"{editor.path}: item '{item_id}' is no longer in '{section}'")


def apply_item_changes(
    path: Path,
    section: str,
    item_id: str,
    changes: dict[str, Any],
    base: FileStamp | None,
) -> tuple[FileStamp | None, bytes, bytes]:
    """Write ``changes`` (field → value; ``None`` removes the field) into the item.

    ``base`` is the stamp of the file the person started from: when the file differs now,
    :class:`ConflictError` is raised and nothing is written (pass ``None`` to apply the
    changes on top of whatever the file is now: "keep mine"). Returns the new stamp and the
    bytes before and after.
    """
    editor = YamlEditor.open(path)
    if base is not None and editor.stamp is not None and editor.stamp.sha256 != base.sha256:
        raise ConflictError(path, base, editor.stamp)
    i = _index_of(editor, section, item_id)
    for key, value in changes.items():
        if value is None:
            editor.delete([section, i, key])
        else:
            editor.set([section, i, key], value)
    before = editor.original_bytes
    after = editor.render()
    stamp = editor.save()
    return stamp, before, after


def disk_diff(path: Path, base_bytes: bytes, label: str) -> str:
    """What changed on disk since ``base_bytes`` was read, as a unified diff."""
    try:
        now = path.read_bytes()
    except OSError:
        now = b""
    return bytes_diff(base_bytes, now, f"{label} (when you opened it)", f"{label} (on disk now)")


def stamp_of(path: Path) -> FileStamp | None:
    return current_stamp(path)
