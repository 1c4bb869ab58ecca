"""The reviewed state of the files agents load (docs/changes.md): what the person last saw
of each, as copies under ``reviewed/blobs/`` and ``reviewed/index.json`` (path → hash, time);
our own writes move it as they commit (:func:`store.tx.transactions.follow`)."""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.ledger import now_iso
from store.write.atomic import replace_file
from store.write.state_file import read_state, write_state

if TYPE_CHECKING:
    from store.ledger import Ledger
    from store.workspace import Workspace

DIR_NAME = "reviewed"
INDEX_NAME = "index.json"
FORMAT = "hurikaeri-reviewed"
VERSION = 1
#: ``keep`` moves the reviewed state by its effect, ``revert`` never does
KEEP = "keep"
REVERT = "revert"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def key_of(ws: Workspace, path: Path) -> str:
    """How the index names ``path``: relative to the root when inside it, else absolute."""
    full = Path(os.path.abspath(path))
    try:
        return str(full.relative_to(ws.root))
    except ValueError:
        return str(full)


def path_of(ws: Workspace, key: str) -> Path:
    return ws.root / key  # (an absolute key stays as it is)


@dataclass(slots=True)
class Reviewed:
    """The index as read (``exists``: the workspace's first start has been taken)."""

    top: Path
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    exists: bool = False

    @classmethod
    def load(cls, ws: Workspace) -> Reviewed:
        top = ws.state_dir / DIR_NAME
        index = top / INDEX_NAME
        return cls(top, read_state(index, FORMAT, VERSION), index.is_file())

    def sha(self, key: str, name: str = "sha256") -> str | None:
        """The hash ``key`` was reviewed at (``name``: another field of its entry)."""
        value = self.entries.get(key, {}).get(name)
        return value if isinstance(value, str) else None

    def at(self, key: str) -> str | None:
        return self.sha(key, "at")

    def blob_path(self, digest: str) -> Path:
        return self.top / "blobs" / digest[:2] / digest

    def blob(self, digest: str | None) -> bytes | None:
        """The reviewed copy with this hash (``None``: no copy, or it is damaged)."""
        if not digest or len(digest) != 64 or not digest.isalnum():
            return None
        try:
            data = self.blob_path(digest).read_bytes()
        except OSError:
            return None
        return data if sha256(data) == digest else None

    def put_blob(self, data: bytes) -> str:
        digest = sha256(data)
        path = self.blob_path(digest)
        if self.blob(digest) is None:
            replace_file(path, [data])
        return digest

    def set(self, key: str, data: bytes | None) -> None:
        """``key`` reviewed as ``data`` (``None``: as absent, so the entry goes)."""
        self.point(key, None if data is None else self.put_blob(data))

    def point(self, key: str, digest: str | None, at: str | None = None) -> None:
        if digest is None:
            self.entries.pop(key, None)
        else:
            self.entries[key] = {"sha256": digest, "at": at or now_iso()}

    def save(self, ledger: Ledger | None = None) -> None:
        """Write the index (atomically) and remove the copies nothing needs any more."""
        self.top.mkdir(parents=True, exist_ok=True)
        self.entries = dict(sorted(self.entries.items()))  # the same state, the same bytes
        ok = write_state(self.top / INDEX_NAME, FORMAT, VERSION, self.entries)
        self.exists = self.exists or ok
        if ok:
            self.prune(ledger)

    def prune(self, ledger: Ledger | None = None) -> None:
        """Remove the copies no path points at and no keep of the history needs (to be
        undone or redone)."""
        needed = {self.sha(k) for k in self.entries}
        if ledger is not None:
            with ledger.lock:
                records = [r for r in ledger.txs.values() if r.action == KEEP]
            for rec in records:
                for eff in rec.effects:
                    needed.update((eff.get("from"), eff.get("to")))
        for sub in (self.top / "blobs").glob("*/*"):
            if sub.name not in needed and not sub.name.startswith("."):
                with contextlib.suppress(OSError):
                    sub.unlink()


def target_like(ws: Workspace, path: Path) -> bool:
    """A file a write of ours may make a target: Markdown, or a skill or project memory
    YAML (anything else hurikaeri writes — reports, lessons, the inbox — is not loaded)."""
    name = path.name.lower()
    if name.endswith((".md", ".markdown")):
        return True
    return name.startswith("project_memory.") or (
        name.endswith((".yaml", ".yml")) and "skills" in path.parts and "inbox" not in path.parts
    )
