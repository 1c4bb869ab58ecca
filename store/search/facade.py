"""Search across a workspace (docs/search.md), and :class:`WorkspaceSearch`, the app's handle."""

from __future__ import annotations

import contextlib
import re
import threading
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from store.gc_pause import give_back_freed
from store.search.engine import Engine, Hit, SearchResult
from store.search.index import (
    Change,
    IndexBusy,
    SearchIndex,
    digest,
    identity,
    open_workspace_index,
)
from store.search.model import SearchRecord
from store.search.query import Query
from store.search.scan import Progress, Scan, iter_parsed, scan_workspace

if TYPE_CHECKING:
    from store.index.workspace_index import WorkspaceIndex
    from store.workspace import Workspace


def resolve_line(rec: SearchRecord) -> int:
    """The 1-based line where ``rec`` starts in its file (read on demand for YAML items)."""
    if rec.line or not rec.anchor:
        return rec.line or 1
    name, _, value = rec.anchor.partition(": ")
    # the indent is spaces and tabs: ``^\s*`` ran over blank lines (quadratic) to the first
    pattern = re.compile(
        rf"^[ \t]*(?:-\s+)?{re.escape(name)}:\s*[\"']?{re.escape(value[:40])}", re.MULTILINE
    )
    try:
        with open(rec.path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(8 * 1024 * 1024)
    except OSError:
        return 1
    m = pattern.search(text)
    return 1 if m is None else text.count("\n", 0, m.start()) + 1


def open_index(ws: Workspace, *, progress: Progress = None) -> tuple[Engine, dict[str, int]]:
    """The index of ``ws`` brought in step with its files (built, or changed files re-read).
    While another process writes it, waits, then reads it as is (or builds one in memory)."""
    files = scan_workspace(ws)
    index = open_workspace_index(ws)
    try:
        stats = sync_workspace(index, ws, files, progress)
    except IndexBusy:
        stats = {"files": len(files.stamps), "busy": 1}
        if not index.ident:
            index = SearchIndex.open(None)  # in memory
            stats.update(sync_workspace(index, ws, files, progress))
    finally:
        index.close_writer()
    return Engine(index), stats


class WorkspaceSearch:
    """The search index of a :class:`WorkspaceIndex`, kept in step with its files, then as the
    watcher reports changes. Thread-safe; ``ensure`` and ``sync`` may take long (a worker)."""

    def __init__(self, wi: WorkspaceIndex) -> None:
        self.wi = wi
        self.index: Engine | None = None
        self._lock = threading.RLock()

    def ensure(self) -> Engine | None:
        """The index, opened (built or brought in step with the files)."""
        with self._lock:
            if self.index is None:
                self.index, _stats = open_index(self.wi.ws)
                self.index.vocabulary()  # read here, in the worker, not at the first key
                give_back_freed()  # what the build freed, or RSS stays at its peak
            return self.index

    def sync(self, paths: Iterable[Path]) -> None:
        """Re-read into the index those of ``paths`` whose identity changed, or drop them."""
        with self._lock:
            if self.index is None:
                return
            index = self.index.index
            with self.wi.lock:
                files = {str(p): self.wi.files.get(p) for p in paths}
            found = Scan({}, {}, {})
            for p, f in files.items():
                if f is not None:  # (0, 0): not readable
                    found.stamps[p] = (f.stamp.size, f.stamp.mtime_ns) if f.stamp else (0, 0)
                    found.kinds[p] = f.kind
            gone = [p for p, f in files.items() if f is None and p in index.stamps]
            with contextlib.suppress(IndexBusy):  # another process writes: read at the next sync
                reread(index, self.wi.ws, found, gone)
            index.close_writer()

    def search(self, text: str | Query, limit: int = 100, *, count: bool = True) -> SearchResult:
        """See :meth:`Engine.search`."""
        engine = self.index
        if engine is None:
            return SearchResult(None, text=text if isinstance(text, str) else text.text)
        return engine.search(text, limit, ledger=self.wi.ledger, count=count)


_HANDLES: weakref.WeakKeyDictionary[WorkspaceIndex, WorkspaceSearch] = weakref.WeakKeyDictionary()
_HANDLES_LOCK = threading.Lock()


def search_for(wi: WorkspaceIndex) -> WorkspaceSearch:
    """The one :class:`WorkspaceSearch` of a workspace index (screen and palette share it)."""
    with _HANDLES_LOCK:  # (a handle made for nothing costs a lock)
        return _HANDLES.setdefault(wi, WorkspaceSearch(wi))


def session_key_for(index: WorkspaceIndex, hit: Hit) -> str | None:
    """The session a KPT record, summary or lesson belongs to, if it is listed."""
    rec = hit.record
    in_report = rec.kind in ("report", "keep", "problem", "try", "omission")
    if in_report:
        s = index.find_report(rec.id.split("/", 1)[0], Path(rec.path))
        if s is not None:
            return s.key
    if rec.session_id and f"sid:{rec.session_id}" in index.sessions:
        return f"sid:{rec.session_id}"
    for s in index.sessions.values():
        if (
            rec.kind == "summary"
            and s.summary is not None
            and (str(s.summary.path), s.summary.line) == (rec.path, rec.line)
        ):
            return s.key
        if rec.kind == "lesson" and s.lessons.holds(rec.path, rec.line):
            return s.key
        if in_report and s.report is not None and str(s.report.path) == rec.path:
            return s.key
    return None


def sync_workspace(
    index: SearchIndex, ws: Workspace, files: Scan, progress: Progress = None
) -> dict[str, int]:
    """Bring ``index`` in step with ``files``: built when new or foreign, else the changed
    files re-read (a big file's records in parts). What was done."""
    ident = identity(ws)
    stamps = files.stamps
    stats = {"files": len(stamps), "parsed": 0, "removed": 0, "rebuilt": 0}
    if index.digest == [digest(ident, stamps)]:
        return stats
    if index.ident != ident:
        index.rebuild(ident, iter_parsed(ws, files, sorted(stamps), progress), stamps)
        stats.update(parsed=len(stamps), rebuilt=1)
        return stats
    if index.stamps == stamps:  # in another order (the watcher's) or digest: put in step
        index.write_manifest(stamps)
        return stats
    removed = [p for p in index.stamps if p not in stamps]
    stats.update(parsed=reread(index, ws, files, removed, progress), removed=len(removed))
    return stats


def reread(
    index: SearchIndex, ws: Workspace, files: Scan, removed: list[str], progress: Progress = None
) -> int:
    """Re-read into ``index`` the files whose identity changed and drop the ``removed``, in
    one commit (``files`` first in its manifest); how many were re-read."""
    stamps = files.stamps
    changed = sorted(p for p, st in stamps.items() if index.stamps.get(p) != st)
    updates: list[Change] = [(p, None, None) for p in removed]
    updates += iter_parsed(ws, files, changed, progress)
    index.update_files(updates, stamps)
    return len(changed)
