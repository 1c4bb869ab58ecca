"""Undoing the last decision, whatever it was: decisions that wrote files restore them first."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from store.ledger import Entry, Ledger
from store.review.items import ReviewError
from store.review.journal import entry_path, is_file_write, sha256
from store.workspace import Workspace
from store.write.atomic import PathRefused, atomic_write, current_stamp
from store.write.policy import any_action, created_by_an_action
from store.write.textdiff import bytes_diff


class UndoRefused(ReviewError):
    def __init__(self, message: str, diff: str = "") -> None:
        super().__init__(message)
        self.diff = diff


def undo_last(ws: Workspace, ledger: Ledger) -> list[Entry]:
    """Undo the last decision (a whole batch); promotions restore their files byte for byte,
    or nothing happens when a promoted file changed since (:class:`UndoRefused`)."""
    ledger.refresh()
    entries = ledger.undoable_batch()
    if not entries:
        return []
    promos = [e for e in entries if is_file_write(e)]
    guard, creatable = any_action(ws), created_by_an_action(ws)
    for e in reversed(promos):  # check everything before touching anything
        path = entry_path(ws, e)
        try:  # the ledger lies in the workspace: its paths are not trusted blindly
            guard(path)
            if e.data.get("created"):
                # only what an action creates is ever deleted: a promotion's or an approved
                # proposal's new target, a person's new report — never an agent's file
                creatable(path, person=e.data.get("created_by") == "person")
        except PathRefused as exc:
            raise UndoRefused(f"{exc}; nothing was restored") from exc
        written = _kept(ws, e, "written")
        if e.data.get("created") and not (
            written is not None and sha256(_state_file(ws, e, "written")) == sha256(_read(path))
        ):
            raise UndoRefused(
                f"refused: {path} is not the file hurikaeri created (its copy under "
                f"{ws.state_dir / 'backups'} is missing or differs); nothing was deleted"
            )
        now = _read(path)
        if sha256(now) != e.data.get("after_sha256"):
            raise UndoRefused(
                f"refused: {path} changed since hurikaeri wrote it; undo would lose those changes",
                bytes_diff(
                    _state_file(ws, e, "written"),
                    now,
                    f"{path.name} as hurikaeri wrote it",
                    f"{path.name} now",
                ),
            )
        backup = _kept(ws, e, "backup")
        if not e.data.get("created") and not (backup and backup.is_file()):
            raise UndoRefused(f"refused: the backup of {path} is missing; nothing was restored")
    for e in reversed(promos):
        path = entry_path(ws, e)
        guard(path)
        if e.data.get("created"):
            path.unlink(missing_ok=True)
        else:
            atomic_write(path, _state_file(ws, e, "backup"), current_stamp(path), guard=guard)
    ledger.mark_undone(entries)
    return entries


def _read(path: Path) -> bytes | None:
    """A regular file's bytes (``None`` when there is none; never opens a FIFO or device)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        return path.read_bytes()
    except OSError:
        return None


def _kept(ws: Workspace, e: Entry, key: str) -> Path | None:
    """Where a journaled entry's ``backup`` (before) or ``written`` (after) copy is: only
    ever inside the state directory's backups (``None`` otherwise, or when there is none)."""
    name = e.data.get(key)
    if not name:
        return None
    backups = os.path.realpath(ws.state_dir / "backups")
    path = os.path.realpath(ws.state_dir / str(name))
    return Path(path) if os.path.dirname(path) == backups else None


def _state_file(ws: Workspace, e: Entry, key: str) -> bytes:
    """The bytes of a copy kept under the state directory (empty when there is none)."""
    path = _kept(ws, e, key)
    return (_read(path) or b"") if path is not None else b""
