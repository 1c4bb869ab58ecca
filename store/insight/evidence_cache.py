"""Each report's evidence state for the ``evidence:`` filters, kept in
``.hurikaeri/evidence-cache-v1.json`` by the identities of the report and its transcript:
a check reads the whole transcript."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.search.query import EVIDENCE
from store.write.state_file import read_state, write_state

if TYPE_CHECKING:
    from store.index.sessions import Session
    from store.index.workspace_index import WorkspaceIndex
    from store.workspace import Workspace

CACHE_NAME = "evidence-cache-v1.json"
CACHE_FORMAT = "hurikaeri-evidence"
CACHE_VERSION = 2  # raised when store.insight.evidence checks differently

#: An item's evidence state as the ``evidence:`` filter names it.
FILTER_VALUE: dict[str, str] = {
    "not_found": "missing",
    "found": "found",
    "partial": "partial",
    "no_transcript": "none",
    "unchecked": "unchecked",
}
assert set(FILTER_VALUE.values()) == set(EVIDENCE)


@dataclass(frozen=True, slots=True)
class ReportCheck:
    """One report's evidence, as the filters see it."""

    report_id: str  # its file name's stem when it has none, as search records it
    transcript: str | None  # None: the session has none
    #: (record id as search keys it, kpt-…/try-001; evidence state) per item with an id
    items: tuple[tuple[str, str], ...] = ()
    missing: int = 0  # items, with an id or not, whose evidence was not found

    @property
    def state(self) -> str:
        if self.missing:
            return "missing"
        return "none" if self.transcript is None else "found"


@dataclass(frozen=True)
class EvidenceStates:
    """Every report's evidence state at one moment (a new object after each update)."""

    sessions: dict[str, ReportCheck] = field(default_factory=dict)  # of those with a report
    checked: int = 0  # reports whose transcript was read for this update

    def session_states(self) -> dict[str, str]:
        return {key: check.state for key, check in self.sessions.items()}

    def record_values(self) -> dict[str, str]:
        """Search record id → its ``evidence:`` value."""
        out: dict[str, str] = {}
        for check in self.sessions.values():
            out[check.report_id] = check.state
            for rid, state in check.items:
                out[rid] = FILTER_VALUE.get(state, state)
        return out


def _ident(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


class EvidenceCache:
    """The on-disk cache: report path → its identity, its transcript's and its check."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._entries: dict[str, dict[str, Any]] | None = None
        self._dirty = False

    @property
    def path(self) -> Path:
        return self.ws.state_dir / CACHE_NAME

    def entries(self) -> dict[str, dict[str, Any]]:
        if self._entries is None:
            self._entries = read_state(self.path, CACHE_FORMAT, CACHE_VERSION)
        return self._entries

    def get(self, report: str, key: list[Any]) -> ReportCheck | None:
        """The check kept for ``report`` if it was made with these identities."""
        entry = self.entries().get(report)
        if entry is None or entry.get("key") != key:
            return None
        try:
            items = tuple((str(r), str(s)) for r, s in entry["items"])
            return ReportCheck(
                str(entry["id"]), entry.get("transcript"), items, int(entry["missing"])
            )
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, report: str, key: list[Any], check: ReportCheck) -> None:
        self.entries()[report] = {
            "key": key,
            "id": check.report_id,
            "transcript": check.transcript,
            "items": [list(x) for x in check.items],
            "missing": check.missing,
        }
        self._dirty = True

    def keep_only(self, reports: Iterable[str]) -> None:
        keep = set(reports)
        entries = self.entries()
        for k in [k for k in entries if k not in keep]:
            del entries[k]
            self._dirty = True

    def save(self) -> None:
        """Write the cache if it changed (a read-only workspace only checks again)."""
        if not self._dirty or self._entries is None:
            return
        if write_state(self.path, CACHE_FORMAT, CACHE_VERSION, self._entries):
            self._dirty = False


def _name(s: Session) -> str:
    """A report's cache key: its file, and its line in a file of several."""
    assert s.report is not None
    return f"{s.report.path}:{s.report.line}" if s.report.line else str(s.report.path)


def check_one(s: Session, transcript: Path | None) -> ReportCheck:
    """Read ``s``'s report and ``transcript`` (whole) and check the report's evidence."""
    from store.insight.evidence import check_report
    from store.read.transcript import read_transcript

    assert s.report is not None
    doc = s.report.doc
    t = read_transcript(transcript, doc.session_id) if transcript is not None else None
    ev = check_report(doc, t)
    rid = doc.id or s.report.head.id or s.report.path.stem
    items = tuple(
        (f"{rid}/{item.id}", check.state) for _s, item, check in ev.items.values() if item.id
    )
    shown = str(transcript) if transcript is not None else None
    return ReportCheck(rid, shown, items, len(ev.missing))


def without_transcript(s: Session) -> ReportCheck:
    """A report whose session has no transcript, from the index's head."""
    assert s.report is not None
    head = s.report.head
    rid = head.id or s.report.path.stem
    items = tuple((f"{rid}/{iid}", "no_transcript") for _sec, iid in head.items if iid)
    return ReportCheck(rid, None, items)


class WorkspaceEvidence:
    """The evidence states of an index's reports, one per index (:func:`evidence_for`)."""

    def __init__(self, wi: WorkspaceIndex) -> None:
        self.wi = wi
        self.cache = EvidenceCache(wi.ws)
        self._lock = threading.Lock()
        self.states: EvidenceStates | None = None  # the last update's

    def update(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> EvidenceStates | None:
        """Every report's state, those changed checked again (in a worker: it reads
        transcripts). ``None``: cancelled; ``progress`` at most every 0.1 s and at the end."""
        from store.index.transcript_locator import TranscriptLocator

        with self._lock:
            with self.wi.lock:
                sessions = [s for s in self.wi.sessions.values() if s.report is not None]
            transcripts = TranscriptLocator(self.wi.ws).files()
            out: dict[str, ReportCheck] = {}
            todo: list[tuple[Session, list[Any], Path]] = []
            for s in sessions:
                assert s.report is not None
                path = s.report.path
                sid = (s.report.head.session_id or "").strip()
                found = transcripts.get(sid) if sid else None
                transcript = found[0] if found else None
                if transcript is None:  # nothing to read: every item has no transcript
                    out[s.key] = without_transcript(s)
                    continue
                key = [_ident(path), s.report.line, str(transcript), _ident(transcript)]
                got = self.cache.get(_name(s), key)
                if got is not None:
                    out[s.key] = got
                else:
                    todo.append((s, key, transcript))
            shown = 0.0
            for n, (s, key, transcript) in enumerate(todo):
                if cancelled is not None and cancelled():
                    self.cache.save()
                    return None
                if progress is not None and time.monotonic() - shown >= 0.1:
                    shown = time.monotonic()
                    progress(n, len(todo))
                assert s.report is not None
                try:
                    check = check_one(s, transcript)
                except (OSError, ValueError):
                    continue  # unreadable now: checked again next time
                # a file that changed while it was read is read again next time
                if key[0] == _ident(s.report.path) and key[3] == _ident(transcript):
                    self.cache.put(_name(s), key, check)
                out[s.key] = check
            if progress is not None and todo:
                progress(len(todo), len(todo))
            self.cache.keep_only(_name(s) for s in sessions)
            self.cache.save()
            self.states = EvidenceStates(out, len(todo))
            return self.states


_HANDLES: weakref.WeakKeyDictionary[WorkspaceIndex, WorkspaceEvidence] = weakref.WeakKeyDictionary()
_HANDLES_LOCK = threading.Lock()


def evidence_for(wi: WorkspaceIndex) -> WorkspaceEvidence:
    """The one :class:`WorkspaceEvidence` of a workspace index (the list and search share it)."""
    with _HANDLES_LOCK:
        got = _HANDLES.get(wi)
        if got is None:
            got = _HANDLES[wi] = WorkspaceEvidence(wi)
        return got
