"""Fuzzy search across everything a workspace holds: "where did we learn that?"

The pieces, each in its own module:

- :mod:`store.search.query` — the query language (words, ``"phrases"``, ``name:value``
  filters, ``-`` negation) and :class:`QueryError` for what cannot be meant;
- :mod:`store.search.records` — one compact :class:`SearchRecord` per KPT report and item,
  summary, lesson, skill, pattern, anti-pattern, memory entry, proposal, feedback,
  discussion, piece and movement;
- :mod:`store.search.text` — normal form (NFKC, casefold), tokens (words, CJK characters,
  compounds such as ``kpt-20260208-001``), highlight spans;
- :mod:`store.search.segment` / :mod:`store.search.match` — the inverted index in rank
  order and the tiers: exact phrase, word prefix, inside a word, fuzzy;
- :mod:`store.search.engine` — :class:`SearchIndex`: segment + delta + tombstones,
  ``update_file``, ``search`` → :class:`SearchResult` of grouped :class:`Hit` s;
- :mod:`store.search.cache` — the on-disk cache and :func:`open_index` (CLI: warm start
  parses nothing).

This module adds :class:`WorkspaceSearch`, the app's handle: one per
:class:`~store.index.workspace_index.WorkspaceIndex`, fed from the records the app has already parsed.
"""

from __future__ import annotations

import re
import threading
import time
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from store.search.cache import CacheError, load_index, open_index, save_index, scan_workspace
from store.search.engine import TIER_NAMES, Hit, SearchIndex, SearchResult
from store.search.model import SearchRecord, Stamp
from store.search.query import FILTERS, KINDS, Filter, Query, QueryError, parse_query

if TYPE_CHECKING:
    from store.index.workspace_index import IndexedFile, WorkspaceIndex

__all__ = [
    "FILTERS",
    "KINDS",
    "TIER_NAMES",
    "CacheError",
    "Filter",
    "Hit",
    "Query",
    "QueryError",
    "SearchIndex",
    "SearchRecord",
    "SearchResult",
    "WorkspaceSearch",
    "open_index",
    "parse_query",
    "resolve_line",
    "scan_workspace",
    "search_for",
    "session_key_for",
]

_ANCHOR_CACHE: dict[tuple[str, str], int] = {}


def resolve_line(rec: SearchRecord) -> int:
    """The 1-based line where ``rec`` starts in its file (read on demand for YAML items)."""
    if rec.line:
        return rec.line
    if not rec.anchor:
        return 1
    key = (rec.path, rec.anchor)
    got = _ANCHOR_CACHE.get(key)
    if got is not None:
        return got
    name, _, value = rec.anchor.partition(": ")
    # the indent is spaces and tabs only: ``^\s*`` ran on over blank lines, from each of
    # them (quadratic in a run of blank lines) and matched at the first of them
    pattern = re.compile(
        rf"^[ \t]*(?:-\s+)?{re.escape(name)}:\s*[\"']?{re.escape(value[:40])}", re.MULTILINE
    )
    line = 1
    try:
        with open(rec.path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(8 * 1024 * 1024)
        m = pattern.search(text)
        if m is not None:
            line = text.count("\n", 0, m.start()) + 1
    except OSError:
        pass
    if len(_ANCHOR_CACHE) > 4096:
        _ANCHOR_CACHE.clear()
    _ANCHOR_CACHE[key] = line
    return line


def _stamp(f: IndexedFile) -> Stamp | None:
    return (f.stamp.size, f.stamp.mtime_ns) if f.stamp is not None else None


class WorkspaceSearch:
    """The search index of a :class:`WorkspaceIndex`, kept in step with it.

    Thread-safe; every method that may take long (``ensure``, ``sync``, ``save``) is meant
    for a worker thread. The index comes from the on-disk cache when there is one (usable
    before the workspace has finished loading) and is then synchronised file by file with
    what the workspace index holds, comparing file identities.
    """

    def __init__(self, wi: WorkspaceIndex) -> None:
        self.wi = wi
        self.ws = wi.ws
        self.index: SearchIndex | None = None
        self._lock = threading.RLock()
        self._dirty = False
        self._full = False
        self._saved = 0.0

    def ensure(self, loaded: bool) -> SearchIndex | None:
        """The index, loaded or built; ``None`` while there is neither a cache nor a loaded
        workspace to build it from (``loaded``: the workspace index has been read)."""
        with self._lock:
            if self.index is None:
                try:
                    self.index = load_index(self.ws)
                    # texts stay in the mapped file, read as they are needed
                    self.index.warm()
                except CacheError:
                    if not loaded:
                        return None
                    self._build()
            if loaded:
                self.sync()
            return self.index

    def _build(self, *, save: bool = True) -> SearchIndex:
        """Every file parsed for its texts (the workspace index holds heads, not texts),
        into the cache file when it can be written (in bounded memory), else (or without
        ``save``) in memory."""
        from store.search.cache import build_index

        with self.wi.lock:
            files = dict(self.wi.files)
        stamps = {str(p): _stamp(f) for p, f in files.items()}
        items = [(str(p), f.kind) for p, f in sorted(files.items()) if _stamp(f) is not None]
        index, saved = build_index(self.ws, items, stamps, save=save)
        index.warm()
        self.index = index
        self._dirty = self._full = not saved
        return index

    def sync(self, paths: Iterable[Path] | None = None) -> bool:
        """Re-read into the index the files whose identity changed (all, or ``paths``)."""
        with self._lock:
            index = self.index
            if index is None:
                return False
            with self.wi.lock:
                files = {str(p): f for p, f in self.wi.files.items()}
            targets = set(files) | set(index.stamps) if paths is None else {str(p) for p in paths}
            changed = False
            from store.search.records import load_records

            for p in sorted(targets):
                f = files.get(p)
                if f is None:
                    if p in index.stamps:
                        changed |= index.update_file(p, None, None)
                    continue
                st = _stamp(f)
                if st is not None and index.stamps.get(p) == st:
                    continue
                read, recs = load_records(Path(p), f.kind, f.display)
                changed |= index.update_file(p, read or st, recs)
            if index.needs_compaction:
                compacted = index.compacted()
                # a new segment: its vocabulary's index made before a keystroke needs it
                # (not the whole of ``warm``: freezing every object alive now would keep
                # the app's discarded cycles from ever being collected)
                compacted.main.vocab_index()
                self.index = compacted
                self._full = True
                changed = True
            self._dirty |= changed
            return changed

    def save(self, min_interval: float = 0.0) -> bool:
        """Write the cache if anything changed (at most every ``min_interval`` seconds)."""
        with self._lock:
            if self.index is None or not self._dirty:
                return False
            if time.monotonic() - self._saved < min_interval:
                return False
            try:
                save_index(self.ws, self.index, full=self._full or None)
            except OSError:
                return False
            self._dirty = self._full = False
            self._saved = time.monotonic()
            return True

    def search(self, text: str | Query, limit: int = 100, *, count: bool = True) -> SearchResult:
        """See :meth:`SearchIndex.search` (``count`` False: a query being typed)."""
        index = self.index
        if index is None:
            return SearchResult(None, text=text if isinstance(text, str) else text.text)
        try:
            return index.search(text, limit, ledger=self.wi.ledger, count=count)
        except CacheError:
            # a part of the cache file read only now failed its check: build it again
            with self._lock:
                if self.index is index:  # in memory: a file that fails again is not read
                    self._build(save=False)
            return self.search(text, limit, count=count)

    def prepare_next(self) -> None:
        """See :meth:`SearchIndex.prepare_next`: while the typing pauses between keys."""
        index = self.index
        if index is not None:
            try:
                index.prepare_next()
            except CacheError:
                # a postings block failed its check: the next search reads it again (and
                # the cache is built again), never narrowing from what was half made
                index.forget_narrowing()


_HANDLES: weakref.WeakKeyDictionary[WorkspaceIndex, WorkspaceSearch] = weakref.WeakKeyDictionary()
_HANDLES_LOCK = threading.Lock()


def search_for(wi: WorkspaceIndex) -> WorkspaceSearch:
    """The one :class:`WorkspaceSearch` of a workspace index (the screen and the command
    palette share it)."""
    with _HANDLES_LOCK:
        got = _HANDLES.get(wi)
        if got is None:
            got = _HANDLES[wi] = WorkspaceSearch(wi)
        return got


def session_key_for(index: WorkspaceIndex, hit: Hit) -> str | None:
    """The session a KPT record, summary or lesson belongs to, if it is listed."""
    rec = hit.record
    if rec.kind in ("report", "keep", "problem", "try", "omission"):
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
        if rec.kind == "report" and s.report is not None and str(s.report.path) == rec.path:
            return s.key
    return None
