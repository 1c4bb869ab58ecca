"""Writes that can be undone: a backup of the old bytes and a ledger entry naming both states.

Every file hurikaeri changes on a person's decision (a promotion, an approved proposal, the
decision written into a proposal) goes through :func:`journaled_write`. The ledger entry
holds the path, the SHA-256 of the bytes before and after, and where the backup is, so that
:func:`store.review.undo.undo_last` can restore the file byte for byte — but only while it is still
exactly what we wrote.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from store.ledger import Entry, Ledger, Op
from store.read.textio import FileStamp
from store.workspace import Workspace
from store.write.atomic import Guard, WriteError, atomic_write
from store.write.policy import state


def sha256(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def journaled_write(
    ws: Workspace,
    ledger: Ledger,
    *,
    op: Op,
    target: str,
    batch: str,
    path: Path,
    before: bytes | None,
    after: bytes,
    expected: FileStamp | None,
    guard: Guard,
    **data: Any,
) -> tuple[Entry, FileStamp]:
    """Back up ``before``, write ``after`` atomically (if the file is still ``expected``) and
    record the write in the ledger. Nothing is recorded when the write fails, or when
    ``guard`` refuses the path (:class:`~store.write.atomic.PathRefused`, a ``WriteError``)."""
    guard(path)
    backups = ws.state_dir / "backups"
    backups.mkdir(parents=True, exist_ok=True)
    n = sum(1 for _ in backups.glob(f"{batch}-*.after"))
    backup: Path | None = None
    own = state(ws)
    if before is not None:
        backup = backups / f"{batch}-{n:02d}-{path.name}"
        atomic_write(backup, before, None, guard=own)
    written = backups / f"{batch}-{n:02d}-{path.name}.after"  # to show what changed since
    atomic_write(written, after, None, guard=own)
    try:
        stamp = atomic_write(path, after, expected, guard=guard, create=True)
    except WriteError:
        for p in (backup, written):
            if p is not None:
                p.unlink(missing_ok=True)
        raise
    entry = ledger.record(
        op,
        target,
        batch=batch,
        path=ws.display(path),  # relative to the root when inside it: workspaces move
        created=before is None,
        before_sha256=sha256(before),
        after_sha256=sha256(after),
        backup=str(backup.relative_to(ws.state_dir)) if backup else None,
        written=str(written.relative_to(ws.state_dir)),
        **data,
    )
    return entry, stamp


def entry_path(ws: Workspace, e: Entry) -> Path:
    """The absolute path a journaled entry wrote (stored relative to the root when inside)."""
    p = Path(str(e.data.get("path")))
    return p if p.is_absolute() else ws.root / p


def is_file_write(e: Entry) -> bool:
    return "path" in e.data and "after_sha256" in e.data
