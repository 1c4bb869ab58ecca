"""Session id → transcript, found by listing directories (Claude Code's layout and the
skill's older ``<slug>/sessions/<dir>/``). An id from a report is only looked up among the
names found, never joined into a path: ``../x`` finds nothing."""

from __future__ import annotations

import os
from pathlib import Path

from store.read.kinds import ignored_name
from store.workspace import Workspace, walk_files


def _jsonl_in(directory: str) -> list[Path]:
    return list(walk_files(Path(directory), (".jsonl",), recursive=False))


def _older_layout(slug_dir: str) -> list[tuple[str, Path]]:
    """``<slug>/sessions/<dir>/*.jsonl``: each by its name, and by its directory's name
    when it is the only one there."""
    out: list[tuple[str, Path]] = []
    sessions = os.path.join(slug_dir, "sessions")
    try:
        dirs = sorted(os.scandir(sessions), key=lambda e: e.name)
    except OSError:
        return out
    for entry in dirs:
        if ignored_name(entry.name) or not entry.is_dir(follow_symlinks=False):
            continue
        files = _jsonl_in(entry.path)
        for path in files:
            out.append((path.stem, path))
        if len(files) == 1 and files[0].stem != entry.name:
            out.append((entry.name, files[0]))
    return out


def _scan(top: Path) -> list[tuple[str, Path]]:
    """The transcripts under ``top`` in both layouts, each with the id it is found by."""
    found: list[tuple[str, Path]] = []
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except OSError:
        return found
    for entry in entries:
        if ignored_name(entry.name):
            continue
        try:
            if entry.is_file() and entry.name.lower().endswith(".jsonl"):  # as walk_files
                found.append((entry.name[: -len(".jsonl")], Path(entry.path)))
            elif entry.is_dir(follow_symlinks=False):
                found.extend((path.stem, path) for path in _jsonl_in(entry.path))
                found.extend(_older_layout(entry.path))
        except OSError:
            continue
    return found


class TranscriptLocator:
    """Finds transcripts by session id. Thread-safe enough for one worker at a time."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._files: dict[str, list[Path]] | None = None

    # -- finding -----------------------------------------------------------------------

    def files(self, *, rescan: bool = False) -> dict[str, list[Path]]:
        """Session id → its transcript files (several when projects share a session id,
        the largest first)."""
        if self._files is None or rescan:
            files: dict[str, list[Path]] = {}
            for top in self.ws.locations.get("transcripts", []):  # (``projects/`` by default)
                for sid, path in _scan(top):
                    files.setdefault(sid, []).append(path)
            for paths in files.values():
                paths.sort(key=_size, reverse=True)
            self._files = files
        return self._files

    def find(self, session_id: str | None) -> Path | None:
        """The transcript of ``session_id`` (``None``: none, or no id)."""
        if not session_id:
            return None
        paths = self.files().get(session_id.strip())
        if not paths:
            paths = self.files(rescan=True).get(session_id.strip())
        return paths[0] if paths else None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
