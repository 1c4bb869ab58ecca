"""Changing a try-item's persistence target in its report: only those lines change."""

from __future__ import annotations

from pathlib import Path

from store.ledger import Ledger
from store.models.kpt import TARGET_TYPES
from store.review.item_edit import index_of
from store.review.items import ItemRef, ReviewError
from store.review.promote import policy_refusal
from store.tx.journal import FileWrite
from store.tx.transactions import TxPlan, TxResult, apply
from store.workspace import Workspace
from store.write.policy import PathRefused, in_place, resolve_target
from store.write.roundtrip import YamlEditor


def _check(ws: Workspace, ref: ItemRef, type_: str, path: str) -> None:
    if ref.section != "try":
        raise ReviewError(f"{ref.key} is a {ref.section} item; only try-items have targets")
    if type_ not in TARGET_TYPES:
        raise ReviewError(f"target type '{type_}' is not one of {', '.join(TARGET_TYPES)}")
    try:
        resolved = resolve_target(ws, path)
    except PathRefused as exc:
        raise ReviewError(str(exc)) from exc
    problem = policy_refusal(ws, resolved, type_)
    if problem:  # what a promotion into it would refuse is refused now (#40)
        raise ReviewError(problem)


def _set_target(
    editor: YamlEditor, ref: ItemRef, type_: str, path: str, section: str | None
) -> None:
    i = index_of(editor, "try", ref.item_id)
    loc: list[str | int] = ["try", i, "persistence_target"]
    current = editor.get(loc)
    if isinstance(current, dict):
        editor.set([*loc, "type"], type_)
        editor.set([*loc, "path"], path)
        if section:
            editor.set([*loc, "section"], section)
        elif "section" in current:
            editor.delete([*loc, "section"])
    else:
        target = {"type": type_, "path": path}
        if section:
            target["section"] = section
        editor.set(loc, target)


def retarget_items(
    ws: Workspace,
    refs: list[ItemRef],
    type_: str,
    path: str,
    section: str | None,
    *,
    ledger: Ledger | None = None,
) -> TxResult | None:
    """Give every item the same target as one ``retarget`` transaction (``None``: unchanged);
    every item is checked before anything is written."""
    for ref in refs:
        _check(ws, ref, type_, path)
    editors: dict[Path, YamlEditor] = {}
    for ref in refs:
        editor = editors.get(ref.path)
        if editor is None:
            editor = editors[ref.path] = YamlEditor.open(ref.path)
        _set_target(editor, ref, type_, path, section)
    guard = in_place(ws, "kpt")
    files = [
        FileWrite(p, e.original_bytes, e.render(), guard)
        for p, e in editors.items()
        if e.render() != e.original_bytes
    ]
    if not files:
        return None
    note = f"{type_} {path}" + (f" {section}" if section else "")
    keys = list(dict.fromkeys(r.key for r in refs))
    return apply(ws, TxPlan("retarget", keys, files, note=note), ledger=ledger)


def target_headings(ws: Workspace, path: str) -> list[str]:
    """The headings of a Markdown target (for the section picker); empty when unreadable."""
    from store.write.markdown_edit import MarkdownDoc, MarkdownTarget

    try:
        p = resolve_target(ws, path)
        data = Path(p).read_bytes()
        return MarkdownTarget(MarkdownDoc.parse(data), None).heading_names()
    except (PathRefused, OSError, UnicodeDecodeError):
        return []
