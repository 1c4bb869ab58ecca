"""Where each session's transcript is: session id → file, with its first and last time,
turn count and working directory, cached under the workspace's state directory.

Claude Code names a transcript ``<transcripts>/<project-slug>/<session-id>.jsonl``; the
session id of a KPT report, a summary or a lesson is that file's name. The older layout the
hurikaeri skill also looks in, ``<transcripts>/<project-slug>/sessions/<dir>/<name>.jsonl``,
is found too: by the file's name, and by its directory's name when the directory holds one
transcript. Sub-agents' own files (``<session-id>/subagents/agent-*.jsonl``) are not
sessions. Finding a file is a
directory listing (no file is opened); the details need the whole file read, so they are
computed on demand and kept in ``.hurikaeri/transcripts-cache-v1.json``, keyed by the
file's identity (size, mtime, inode): a transcript that grew is read again. The cache is
our own file: corrupt, foreign or from another version, it is ignored and rewritten.

A session id from a report is never joined into a path: it is looked up among the names
the listing found, so ``../x`` finds nothing.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from store.read.kinds import ignored_name
from store.read.transcript import read_transcript
from store.workspace import Workspace
from store.write.state_file import read_state, write_state

CACHE_NAME = "transcripts-cache-v1.json"
CACHE_FORMAT = "hurikaeri-transcripts"
CACHE_VERSION = 1


@dataclass(frozen=True, slots=True)
class TranscriptInfo:
    """What the locator knows of one transcript."""

    session_id: str
    path: str
    project: str
    size: int
    mtime_ns: int
    first_timestamp: str | None
    last_timestamp: str | None
    turns: int
    cwd: str | None


def transcript_dirs(ws: Workspace) -> list[Path]:
    """The transcripts location's directories (``projects/`` under the root by default)."""
    return list(ws.locations.get("transcripts", []))


def _jsonl_in(directory: str) -> list[Path]:
    """The ``*.jsonl`` files directly in ``directory``, by name (dot-names and droppings
    skipped)."""
    found: list[Path] = []
    try:
        with os.scandir(directory) as inner:
            for sub in sorted(inner, key=lambda e: e.name):
                if not ignored_name(sub.name) and sub.name.endswith(".jsonl") and sub.is_file():
                    found.append(Path(sub.path))
    except OSError:
        pass
    return found


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
    """``top/*.jsonl``, ``top/<slug>/*.jsonl`` and ``top/<slug>/sessions/<dir>/*.jsonl``,
    each with the session id it is found by (dot-names, droppings and linked directories
    skipped)."""
    found: list[tuple[str, Path]] = []
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except OSError:
        return found
    for entry in entries:
        if ignored_name(entry.name):
            continue
        try:
            if entry.is_file() and entry.name.endswith(".jsonl"):
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
        self._cache: dict[str, dict[str, Any]] | None = None
        self._dirty = False

    # -- finding -----------------------------------------------------------------------

    def files(self, *, rescan: bool = False) -> dict[str, list[Path]]:
        """Session id → its transcript files (several when projects share a session id,
        the largest first)."""
        if self._files is None or rescan:
            files: dict[str, list[Path]] = {}
            for top in transcript_dirs(self.ws):
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

    # -- details -----------------------------------------------------------------------

    def info(self, session_id: str | None) -> TranscriptInfo | None:
        """First/last timestamp, turns and cwd of the session's transcript (read once,
        then cached while the file is unchanged); ``None`` without a transcript."""
        path = self.find(session_id)
        if path is None or not session_id:
            return None
        return self._info(session_id.strip(), path)

    def all(self) -> list[TranscriptInfo]:
        """Every transcript's details (reads the ones not cached: can take a while)."""
        out = []
        for sid, paths in sorted(self.files(rescan=True).items()):
            for path in paths:
                found = self._info(sid, path)
                if found is not None:
                    out.append(found)
        return out

    def _info(self, session_id: str, path: Path) -> TranscriptInfo | None:
        try:
            st = path.stat()
        except OSError:
            return None
        cache = self._load()
        key = str(path)
        entry = cache.get(key)
        ident = [st.st_size, st.st_mtime_ns, st.st_ino]
        if entry is not None and entry.get("ident") == ident:
            with contextlib.suppress(TypeError):
                return TranscriptInfo(**entry["info"])
        t = read_transcript(path, session_id)
        info = TranscriptInfo(
            session_id=session_id,
            path=key,
            project=path.parent.name,
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            first_timestamp=t.first_timestamp,
            last_timestamp=t.last_timestamp,
            turns=len(t.turns),
            cwd=t.cwd,
        )
        cache[key] = {"ident": ident, "info": asdict(info)}
        self._dirty = True
        return info

    # -- the cache ---------------------------------------------------------------------

    @property
    def cache_path(self) -> Path:
        return self.ws.state_dir / CACHE_NAME

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._cache is None:
            self._cache = {
                k: v
                for k, v in read_state(self.cache_path, CACHE_FORMAT, CACHE_VERSION).items()
                if isinstance(v.get("info"), dict)
            }
        return self._cache

    def save(self) -> None:
        """Write the cache if anything was read since (errors ignored: a read-only
        workspace only reads again next time)."""
        if not self._dirty or self._cache is None:
            return
        live = {k: v for k, v in self._cache.items() if Path(k).exists()}
        if write_state(self.cache_path, CACHE_FORMAT, CACHE_VERSION, live):
            self._dirty = False


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
