"""The loaded workspace: every file's document and diagnostics, and the sessions they form.

Built in a worker thread and updated file by file when the watcher reports changes. The
index keeps the models that lists and review need; the text and node tree of a file are
dropped after checking and read again only for the file being shown or edited.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from .atomic import sweep_temp_files
from .diagnostics import Diagnostic
from .kinds import Kind
from .ledger import Ledger
from .lint import check_loaded
from .loader import load_file
from .models import KptReport, Lesson, Proposal, SessionSummary
from .sessions import Located, Session, session_key
from .textio import FileStamp
from .workspace import Workspace


@dataclass(slots=True)
class IndexedFile:
    path: Path
    display: str
    kind: Kind | None
    stamp: FileStamp | None
    doc: BaseModel | None = None
    records: list[tuple[int, BaseModel]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning")


def index_file(ws: Workspace, path: Path, kind: Kind | None) -> IndexedFile:
    loaded = load_file(path, kind, ws.display(path))
    diags = check_loaded(loaded, finished=False)
    records = [(e.record.line, e.model) for e in loaded.entries if e.model is not None]
    return IndexedFile(path, loaded.display, loaded.kind, loaded.stamp, loaded.doc, records, diags)


class WorkspaceIndex:
    """Everything hurikaeri knows about one workspace, safe to read from the UI thread."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.files: dict[Path, IndexedFile] = {}
        self.kinds: dict[Path, Kind | None] = {}
        self.sessions: dict[str, Session] = {}
        self.by_report: dict[str, Session] = {}
        self.ledger = Ledger(ws.state_dir)
        self.lock = threading.Lock()

    # -- building ----------------------------------------------------------------

    def load_all(self, progress: Callable[[int, int], None] | None = None) -> None:
        found = list(self.ws.discover())
        dirs = {f.path.parent for f in found} | {self.ws.state_dir}
        sweep_temp_files(sorted(dirs))
        files: dict[Path, IndexedFile] = {}
        for i, f in enumerate(found):
            files[f.path] = index_file(self.ws, f.path, f.kind)
            if progress is not None and (i % 25 == 0 or i + 1 == len(found)):
                progress(i + 1, len(found))
        with self.lock:
            self.kinds = {f.path: f.kind for f in found}
            self.files = files
            self._join()

    def update(self, paths: Iterable[Path]) -> tuple[set[Path], set[Path]]:
        """Re-read changed files; returns (changed or added, removed) paths."""
        known = {f.path: f.kind for f in self.ws.discover()}
        changed: set[Path] = set()
        removed: set[Path] = set()
        new_files: dict[Path, IndexedFile] = {}
        for path in set(paths):
            if path not in known:
                if path in self.files:
                    removed.add(path)
                continue
            cur = self.files.get(path)
            entry = index_file(self.ws, path, known[path])
            if cur is None or cur.stamp != entry.stamp:
                new_files[path] = entry
                changed.add(path)
        with self.lock:
            for p in removed:
                self.files.pop(p, None)
            self.files.update(new_files)
            self.kinds = known
            if changed or removed:
                self._join()
        return changed, removed

    def _join(self) -> None:
        sessions: dict[str, Session] = {}

        def get(sid: str | None, fallback: str) -> Session:
            key = session_key(sid, fallback)
            s = sessions.get(key)
            if s is None:
                s = sessions[key] = Session(key, sid)
            return s

        for f in self.files.values():
            doc = f.doc
            if isinstance(doc, KptReport):
                s = get(doc.session_id, f"kpt:{doc.id or f.path.stem}")
                if s.report is None or (doc.id or "") > (s.report.doc.id or ""):
                    s.report = Located(doc, f.path)
            elif isinstance(doc, Proposal):
                get(doc.session_id, f"prop:{doc.id or f.path.stem}").proposals.append(
                    Located(doc, f.path)
                )
            for line, rec in f.records:
                if isinstance(rec, SessionSummary):
                    s = get(rec.session_id, f"ws:{rec.id or f.path}:{line}")
                    if s.summary is None:
                        s.summary = Located(rec, f.path, line)
                elif isinstance(rec, Lesson):
                    get(rec.session_id, f"ll:{rec.id or f.path}:{line}").lessons.append(
                        Located(rec, f.path, line)
                    )
        # a session is worth listing when a report or a summary describes it
        self.sessions = {k: s for k, s in sessions.items() if s.report or s.summary}
        self.by_report = {s.report_id: s for s in self.sessions.values() if s.report_id}

    # -- questions ---------------------------------------------------------------

    def review_progress(self, s: Session) -> tuple[int, int]:
        keys = s.item_keys()
        done = sum(1 for k in keys if self.ledger.state(k).state != "pending")
        return done, len(keys)

    def unreviewed_count(self) -> int:
        return sum(t - d for d, t in (self.review_progress(s) for s in self.sessions.values()))

    def inbox_pending(self) -> int:
        return sum(
            1
            for f in self.files.values()
            if isinstance(f.doc, Proposal) and (f.doc.status or "pending").lower() == "pending"
        )

    def problem_files(self) -> list[IndexedFile]:
        return [f for f in self.files.values() if f.errors]

    def ordered_sessions(self) -> list[Session]:
        """Newest first."""
        return sorted(self.sessions.values(), key=lambda s: (s.sort_time, s.key), reverse=True)

    def find_report(self, report_id: str) -> Session | None:
        return self.by_report.get(report_id)
