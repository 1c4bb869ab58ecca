"""Full documents on demand behind a head (a record from its byte span); the last few kept
by size and mtime, so a screen asking many times per draw reads once."""

from __future__ import annotations

import json
import os
import threading
from array import array
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar, cast, overload

from store.index.heads import HeadTable, LessonHead, RecordSpan, ReportHead, SummaryHead
from store.read.diagnostics import DiagnosticSink
from store.read.kinds import Kind

if TYPE_CHECKING:  # the models are imported when a document is read, not for lists
    from pydantic import BaseModel

    from store.models import KptReport, Lesson

M = TypeVar("M", bound="BaseModel")
H = TypeVar("H")

KEEP = 256
_lock = threading.Lock()
_docs: OrderedDict[tuple[Path, int | None], tuple[tuple[int, int], BaseModel]] = OrderedDict()


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _cached(path: Path, line: int | None, ident: tuple[int, int]) -> BaseModel | None:
    with _lock:
        hit = _docs.get((path, line))
        if hit is None or hit[0] != ident:
            return None
        _docs.move_to_end((path, line))
        return hit[1]


def _keep(path: Path, line: int | None, ident: tuple[int, int], doc: BaseModel) -> None:
    with _lock:
        _docs[(path, line)] = (ident, doc)
        _docs.move_to_end((path, line))
        while len(_docs) > KEEP:
            _docs.popitem(last=False)


def forget(path: Path | None = None) -> None:
    """Drop what is kept (of ``path``, or everything)."""
    with _lock:
        for key in [k for k in _docs if path is None or k[0] == path]:
            del _docs[key]


def load_report(path: Path, head: ReportHead | None = None) -> KptReport:
    """An empty report (with the head's id) when it can't be read."""
    from store.models import KptReport
    from store.read.loader import load_file

    ident = _identity(path)
    if ident is not None and isinstance(hit := _cached(path, None, ident), KptReport):
        return hit
    doc = load_file(path, Kind.KPT).doc
    if not isinstance(doc, KptReport):
        return KptReport(id=head.id if head else None, session_id=head.session_id if head else None)
    if ident is not None:
        _keep(path, None, ident, doc)
    return doc


def load_record(path: Path, span: RecordSpan, model: type[M], want_id: str | None) -> M:
    """Empty when it is gone."""
    from store.read.validate import validate_tolerant

    ident = _identity(path)
    if ident is not None and isinstance(hit := _cached(path, span.line, ident), model):
        return hit
    data = _read_span(path, span, want_id)
    if data is None:
        data = _find_record(path, span.line, want_id)
    sink = DiagnosticSink(str(path))
    doc = validate_tolerant(model, data or {}, sink, what="record") or model()
    if ident is not None and data is not None:
        _keep(path, span.line, ident, doc)
    return doc


def _read_span(path: Path, span: RecordSpan, want_id: str | None) -> dict[str, object] | None:
    try:
        with open(path, "rb") as f:
            f.seek(span.offset)
            raw = f.read(span.length)
        data = json.loads(raw)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or (want_id is not None and data.get("id") != want_id):
        return None
    return data


def _find_record(path: Path, line: int, want_id: str | None) -> dict[str, object] | None:
    from store.read.loader import load_file

    loaded = load_file(path)
    for e in loaded.entries:
        if e.record.line == line and (want_id is None or e.record.data.get("id") == want_id):
            return e.record.data
    for e in loaded.entries:
        if want_id is not None and e.record.data.get("id") == want_id:
            return e.record.data
    return None


@dataclass(slots=True)
class ReportRef:
    head: ReportHead
    path: Path
    line: int | None = None

    @property
    def doc(self) -> KptReport:
        return load_report(self.path, self.head)


class RecordRef(Generic[H, M]):
    """A JSONL record of a session: its head and the full record, read when asked for."""

    __slots__ = ("_head", "_model", "index", "path", "table")

    def __init__(
        self,
        table: HeadTable | None,
        index: int,
        path: Path,
        model: type[M] | str,
        head: H | None = None,
    ) -> None:
        self.table = table
        self.index = index
        self.path = path
        #: the class or its name (imported when read: a start needs no model)
        self._model = model
        self._head = head

    @property
    def model(self) -> type[M]:
        model = self._model
        if isinstance(model, str):
            import store.models

            model = self._model = getattr(store.models, model)
        return cast("type[M]", model)

    @property
    def head(self) -> H:
        """The head given, else decoded from the table each time (not kept: a few rows on
        screen ask, tens of thousands of sessions hold the reference)."""
        head = self._head
        if head is None:
            assert self.table is not None
            head = cast("H", self.table[self.index])
        return head

    @property
    def project(self) -> str | None:
        """Without decoding the head (the table keeps its records' projects)."""
        head = self._head
        if head is None and self.table is not None:
            return self.table.project(self.index)
        return cast("LessonHead | SummaryHead", self.head).project

    @property
    def line(self) -> int:
        head = self.head
        assert isinstance(head, LessonHead | SummaryHead)
        return head.span.line

    @property
    def doc(self) -> M:
        head = self.head
        assert isinstance(head, LessonHead | SummaryHead)
        return load_record(self.path, head.span, self.model, head.id)


class LessonRun:
    """The lessons one file gives one session, as places in its head table (a run as the
    first and a count, else an array): bytes each, where a :class:`RecordRef` costs 100."""

    __slots__ = ("_at", "_n", "path", "table")

    def __init__(self, table: HeadTable, path: Path, indices: array[int]) -> None:
        self.table = table
        self.path = path
        n = len(indices)  # (in increasing order: following each other when the ends say so)
        self._at: int | array[int] = (
            indices[0] if n and indices[-1] - indices[0] == n - 1 else indices
        )
        self._n = n

    @property
    def indices(self) -> Sequence[int]:
        at = self._at
        return range(at, at + self._n) if isinstance(at, int) else at

    def refs(self) -> Iterator[RecordRef[LessonHead, Lesson]]:
        table, path = self.table, self.path
        return (RecordRef(table, i, path, "Lesson") for i in self.indices)


class Lessons(Sequence["RecordRef[LessonHead, Lesson]"]):
    """A session's lessons in order, each reference made when asked for."""

    __slots__ = ("_n", "_runs")

    def __init__(self, runs: tuple[LessonRun, ...] = ()) -> None:
        self._runs = runs
        self._n = sum(len(run.indices) for run in runs)

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[RecordRef[LessonHead, Lesson]]:
        for run in self._runs:
            yield from run.refs()

    @overload
    def __getitem__(self, i: int) -> RecordRef[LessonHead, Lesson]: ...
    @overload
    def __getitem__(self, i: slice) -> list[RecordRef[LessonHead, Lesson]]: ...
    def __getitem__(
        self, i: int | slice
    ) -> RecordRef[LessonHead, Lesson] | list[RecordRef[LessonHead, Lesson]]:
        if isinstance(i, slice):
            return list(self)[i]
        if i < 0:
            i += self._n
        if 0 <= i < self._n:
            for run in self._runs:
                if i < len(run.indices):
                    return RecordRef(run.table, run.indices[i], run.path, "Lesson")
                i -= len(run.indices)
        raise IndexError(i)

    def holds(self, path: str, line: int) -> bool:
        """Whether the lesson on ``line`` of ``path`` is one of these."""
        return any(
            ref.line == line for run in self._runs if str(run.path) == path for ref in run.refs()
        )

    def __repr__(self) -> str:
        return f"Lessons({self._n})"


def lesson_ref(head: LessonHead, path: Path) -> RecordRef[LessonHead, Lesson]:
    return RecordRef(None, 0, path, "Lesson", head)
