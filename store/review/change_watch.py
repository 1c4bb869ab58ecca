"""Whether anything a change to review depends on moved: cheap enough to poll every second
(#45), from ``stat`` only; when a directory moved, the tracked files are listed again."""

from __future__ import annotations

import os
from pathlib import Path

from store.ledger import Ledger
from store.review.changes import tracked
from store.tx.reviewed import DIR_NAME, INDEX_NAME
from store.workspace import Workspace

Stamp = tuple[int, int, int]


def _stamp(path: Path) -> Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class ChangeWatch:
    """Answers "did anything move since the last poll?" (the first poll: yes)."""

    def __init__(self, ws: Workspace, ledger: Ledger | None = None) -> None:
        self.ws = ws
        self.ledger = ledger
        self.files: list[Path] = []
        self._dirs: dict[Path, Stamp | None] | None = None
        self._seen: tuple[object, ...] | None = None

    def _places(self) -> list[Path]:
        root = self.ws.root
        out = {root, root / "projects", root / "rules", root / "skills"}
        out |= {p.parent for p in self.files}
        try:
            slugs = os.listdir(root / "projects")
        except OSError:
            slugs = []
        out |= {root / "projects" / s / "memory" for s in slugs}
        return sorted(out)

    def poll(self) -> bool:
        dirs = {d: _stamp(d) for d in self._places()}
        if dirs != self._dirs:
            self.files = list(tracked(self.ws, self.ledger).values())
            dirs = {d: _stamp(d) for d in self._places()}
            self._dirs = dirs
        index = self.ws.state_dir / DIR_NAME / INDEX_NAME
        seen = (tuple(sorted(dirs.items())), _stamp(index), *(_stamp(p) for p in self.files))
        moved = seen != self._seen
        self._seen = seen
        return moved
