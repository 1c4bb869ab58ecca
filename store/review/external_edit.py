"""Editing a whole file in the person's ``$EDITOR`` on a private copy: only a result without
errors is written back, and only if the original is still what the editor opened."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from store.check.files import check_loaded
from store.ledger import Ledger
from store.located import loc_record
from store.read.diagnostics import Diagnostic
from store.read.kinds import Kind
from store.read.loader import load_file
from store.read.textio import FileStamp
from store.tx.journal import FileWrite
from store.tx.transactions import Effect, TxPlan, TxResult, apply
from store.workspace import Workspace
from store.write.atomic import Guard


@dataclass(slots=True)
class ExternalEdit:
    path: Path
    kind: Kind | None
    base: FileStamp | None
    original: bytes
    work: Path
    guard: Guard

    @classmethod
    def start(
        cls,
        path: Path,
        kind: Kind | None,
        state_dir: Path,
        guard: Guard,
        original: bytes | None = None,
    ) -> ExternalEdit:
        """A private copy of ``path`` to edit (``original``: of these bytes instead, as they
        were shown; the caller's write then checks the file against them)."""
        base = None
        if original is None:
            original = path.read_bytes()
            base = FileStamp.of_bytes(original, path.stat())
        state_dir.mkdir(parents=True, exist_ok=True)
        # in a private folder under the file's own name: its checks (an id is its file's
        # name) and the editor's syntax see the file as it is named
        work = Path(tempfile.mkdtemp(prefix="edit-", dir=state_dir)) / path.name
        work.write_bytes(original)
        return cls(path, kind, base, original, work, guard)

    def run_editor(self) -> int:
        """Run the editor in the foreground (the caller suspends the UI around it)."""
        cmd = shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
        if not shutil.which(cmd[0]):
            raise FileNotFoundError(f"editor '{cmd[0]}' not found (set $EDITOR)")
        return subprocess.call([*cmd, str(self.work)])

    @property
    def result(self) -> bytes:
        return self.work.read_bytes()

    @property
    def changed(self) -> bool:
        return self.result != self.original

    def problems(self) -> list[Diagnostic]:
        """Errors in the edited copy (warnings are allowed through)."""
        loaded = load_file(self.work, self.kind, str(self.path))
        return [d for d in check_loaded(loaded) if d.severity == "error"]

    def discard(self) -> None:
        self.work.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # an editor's backup left in it keeps it
            self.work.parent.rmdir()


def save_external_edit(
    ws: Workspace,
    edit: ExternalEdit,
    *,
    force: bool = False,
    subject: str | None = None,
    ledger: Ledger | None = None,
) -> TxResult | None:
    """Write the edited copy over the file as an ``edit-file`` transaction, only if the file is
    still what the editor opened (``force``: whatever it is now); ``None`` when unchanged."""
    after = edit.result
    before: bytes | None = edit.original
    if force:
        try:
            before = edit.path.read_bytes()
        except FileNotFoundError:
            before = None
    if after == before:
        edit.discard()
        return None
    fw = FileWrite(edit.path, before, after, edit.guard)
    effects = [Effect("edit", subject, data=loc_record(ws.display(edit.path)))] if subject else []
    plan = TxPlan("edit-file", [subject or ws.display(edit.path)], [fw], effects)
    result = apply(ws, plan, ledger=ledger)
    edit.discard()
    return result
