"""Undoing the last decision, whatever it was: promotions restore their files first."""

from __future__ import annotations

import difflib
from pathlib import Path

from .atomic import atomic_write, current_stamp
from .ledger import Entry, Ledger
from .promote import _sha
from .review import ReviewError
from .workspace import Workspace


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
    promos = [e for e in entries if e.op == "promote"]
    for e in reversed(promos):  # check everything before touching anything
        path = Path(str(e.data.get("path")))
        now = path.read_bytes() if path.exists() else None
        if _sha(now) != e.data.get("after_sha256"):
            backup_after = now or b""
            raise UndoRefused(
                f"refused: {path} changed since the promotion; undo would lose those changes",
                "".join(
                    difflib.unified_diff(
                        _restore_source(ws, e).decode("utf-8", "replace").splitlines(True),
                        backup_after.decode("utf-8", "replace").splitlines(True),
                        "before the promotion",
                        "now",
                    )
                ),
            )
    for e in reversed(promos):
        path = Path(str(e.data.get("path")))
        if e.data.get("created"):
            path.unlink(missing_ok=True)
        else:
            atomic_write(path, _restore_source(ws, e), current_stamp(path))
    ledger.mark_undone(entries)
    return entries


def _restore_source(ws: Workspace, e: Entry) -> bytes:
    backup = e.data.get("backup")
    if not backup:
        return b""
    return (ws.state_dir / str(backup)).read_bytes()
