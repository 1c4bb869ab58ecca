"""Heads: the few fields of a record lists and statistics need (100,000 full models would
cost hundreds of MB), named as the models' fields, repeated values interned."""

from __future__ import annotations

import json
import mmap
import re
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from store.gc_pause import give_back
from store.read.textsafe import cut_title, first_line

if TYPE_CHECKING:  # the models are imported when a file is parsed, not for lists
    from store.models import KptReport, Lesson, SessionSummary
    from store.read.jsonl import JsonlRecord


def _i(text: str | None) -> str | None:
    return sys.intern(text) if text is not None else None


#: Tuples many heads hold alike, one object each (bounded).
_SHARED: dict[tuple[Any, ...], tuple[Any, ...]] = {}
_SHARED_MAX = 200_000


_LETTER = {"keep": "k", "problem": "p", "try": "t", "omission": "o"}
_SECTION = {letter: section for section, letter in _LETTER.items()}
_ITEMS, _JOINED = object(), object()


def _dump_items(items: tuple[tuple[str, str], ...]) -> list[Any]:
    """Sections as a string of letters and ids joined by spaces (two strings to decode, not
    a list per item); pairs when a section has no letter or an id a space."""
    letters = "".join([_LETTER.get(sec, "?") for sec, _id in items])
    if "?" in letters:
        return [list(x) for x in items]
    ids = [item_id for _sec, item_id in items]
    return [letters, ids if any(" " in i for i in ids) else " ".join(ids)]


def _items(raw: list[Any]) -> tuple[tuple[str, str], ...]:
    """The pairs from :func:`_dump_items`' form: shared with a report that has the same."""
    lettered = len(raw) == 2 and isinstance(raw[0], str)
    if lettered:
        letters, ids = raw
        # (keyed apart: a tuple of texts could be a try's addresses, which agents write)
        key: tuple[Any, ...] = (
            (_JOINED, letters, ids) if isinstance(ids, str) else (_ITEMS, letters, *ids)
        )
    else:
        key = tuple(map(tuple, raw))
    got = _SHARED.get(key)
    if got is None:
        pairs: Any = key
        if lettered:
            if isinstance(ids, str):
                ids = ids.split(" ") if letters else []
            if not isinstance(ids, list) or len(ids) != len(letters):
                raise ValueError("a report head's items do not match their sections")
            pairs = zip([_SECTION[c] for c in letters], ids, strict=True)
        got = _t(tuple([_t((_i(a) or "", _i(b) or "")) for a, b in pairs]))
        if len(_SHARED) < _SHARED_MAX:
            _SHARED[key] = got
    return cast("tuple[tuple[str, str], ...]", got)


def _t(value: tuple[Any, ...]) -> Any:
    got = _SHARED.get(value)
    if got is None:
        if len(_SHARED) >= _SHARED_MAX:
            return value
        got = _SHARED[value] = value
    return got


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(slots=True)
class ProblemHead:
    id: str
    description: str
    category: str | None
    impact: str | None


@dataclass(slots=True)
class TryHead:
    id: str
    addresses: tuple[str, ...]


#: A report head's problems and tries as JSON: bytes, or (buffer, start, end) mapped.
Rest = bytes | tuple[Any, int, int]


@dataclass(slots=True, eq=False)
class ReportHead:
    """A KPT report as lists, review progress and statistics see it. Its problems and
    tries (statistics only) stay as JSON (``rest``) until first asked for."""

    id: str | None
    session_id: str | None
    created_at: str | None
    outcome: str | None
    title: str
    items: tuple[tuple[str, str], ...]
    counts: tuple[int, int, int, int]
    _problems: tuple[ProblemHead, ...] | None  # None until read from ``rest``
    _tries: tuple[TryHead, ...] | None
    rest: Rest | None = None
    backtracks: int | None = None
    corrections: int | None = None

    @classmethod
    def of(cls, doc: KptReport) -> ReportHead:
        from store.models.kpt import ProblemItem, TryItem

        problems = tuple(
            ProblemHead(_i(p.id) or "", p.description or "", _i(p.category), _i(p.impact))
            for p in doc.section("problem")
            if isinstance(p, ProblemItem)
        )
        tries = tuple(
            TryHead(_i(t.id) or "", tuple(_i(a) or "" for a in t.addresses or []))
            for t in doc.section("try")
            if isinstance(t, TryItem)
        )
        return cls(
            _i(doc.id),
            _i(doc.session_id),
            doc.created_at,
            _i(doc.outcome),
            first_line(doc.session_summary),
            tuple((_i(sec) or "", _i(item.id) or "") for sec, item in doc.items() if item.id),
            (
                len(doc.section("keep")),
                len(doc.section("problem")),
                len(doc.section("try")),
                len(doc.section("omission")),
            ),
            problems,
            tries,
            None,
            _count(doc.metrics.backtrack_count if doc.metrics else None),
            _count(doc.metrics.correction_count if doc.metrics else None),
        )

    @property
    def problems(self) -> tuple[ProblemHead, ...]:
        return self._problems if self._problems is not None else self._read()[0]

    @property
    def tries(self) -> tuple[TryHead, ...]:
        return self._tries if self._tries is not None else self._read()[1]

    def _read(self) -> tuple[tuple[ProblemHead, ...], tuple[TryHead, ...]]:
        """Decoded from ``rest`` and kept (none when malformed: not a crash)."""
        try:
            problems, tries = json.loads(self.rest_json())
        except (TypeError, ValueError):
            problems, tries = (), ()
        try:
            ps = tuple(ProblemHead(_i(a) or "", b, _i(c), _i(d)) for a, b, c, d in problems)
        except (TypeError, ValueError):
            ps = ()
        try:
            ts = tuple(TryHead(_i(a) or "", _t(tuple(_i(x) or "" for x in b))) for a, b in tries)
        except (TypeError, ValueError):
            ts = ()
        self._problems, self._tries = ps, ts
        return ps, ts

    def rest_json(self) -> bytes:
        rest = self.rest
        if isinstance(rest, bytes):
            return rest
        if rest is not None:
            return read_mapped(*rest)
        return json.dumps(
            [
                [[p.id, p.description, p.category, p.impact] for p in self.problems],
                [[t.id, list(t.addresses)] for t in self.tries],
            ],
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode("utf-8", "surrogatepass")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ReportHead):
            return NotImplemented
        return (self.dump(), self.problems, self.tries) == (
            other.dump(),
            other.problems,
            other.tries,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it was

    def dump(self) -> list[Any]:
        return [
            self.id,
            self.session_id,
            self.created_at,
            self.outcome,
            self.title,
            _dump_items(self.items),
            list(self.counts),
            self.backtracks,
            self.corrections,
        ]

    @classmethod
    def load(cls, raw: list[Any], rest: Rest | None) -> ReportHead:
        rid, sid, created, outcome, title, items, counts, bt, corr = raw
        if rest is not None and not isinstance(rest, bytes | tuple):
            raise ValueError("a report head's problems and tries are not where they should be")
        return cls(
            _i(rid),  # a team's reports share ids (each author counts from 001)
            _i(sid),
            created,
            _i(outcome),
            title,
            _items(items),
            _t((counts[0], counts[1], counts[2], counts[3])),
            None,
            None,
            rest or b"[[],[]]",
            _count(bt),
            _count(corr),
        )


@dataclass(slots=True)
class RecordSpan:
    line: int
    offset: int
    length: int

    @classmethod
    def of(cls, rec: JsonlRecord) -> RecordSpan:
        return cls(rec.line, rec.start, rec.end - rec.start)


@dataclass(slots=True)
class SummaryHead:
    span: RecordSpan
    id: str | None
    date: str | None
    session_id: str | None
    session_name: str | None
    project: str | None
    title: str
    evaluated: bool
    ai_mean: float | None
    user_score: int | None

    @classmethod
    def of(cls, span: RecordSpan, doc: SessionSummary) -> SummaryHead:
        ev = doc.evaluation
        scores = (
            [s.score for s in (ev.ai.sub_scores or {}).values() if s.score is not None]
            if ev and ev.ai
            else []
        )
        title = doc.session_name or (doc.info_summary[0] if doc.info_summary else "")
        return cls(
            span,
            doc.id,
            doc.date,
            _i(doc.session_id),
            doc.session_name,
            _i(doc.project),
            first_line(title),
            ev is not None,
            round(sum(scores) / len(scores), 2) if scores else None,
            ev.user.score if ev and ev.user else None,
        )


@dataclass(slots=True)
class LessonHead:
    span: RecordSpan
    id: str | None
    date: str | None
    session_id: str | None
    project: str | None
    type: str | None
    category: str | None
    title: str | None
    tags: tuple[str, ...] | None

    @classmethod
    def of(cls, span: RecordSpan, doc: Lesson) -> LessonHead:
        return cls(
            span,
            doc.id,
            doc.date,
            _i(doc.session_id),
            _i(doc.project),
            _i(doc.type),
            _i(doc.category),
            cut_title(doc.title) if doc.title else first_line(doc.shown_title()) or None,
            tuple(_i(t) or "" for t in doc.tags) if doc.tags is not None else None,
        )


RecordHead = SummaryHead | LessonHead


def head_of(span: RecordSpan, model: object) -> RecordHead | None:
    """``None`` for anything but a lesson or a session summary."""
    from store.models import Lesson, SessionSummary

    if isinstance(model, Lesson):
        return LessonHead.of(span, model)
    if isinstance(model, SessionSummary):
        return SummaryHead.of(span, model)
    return None


def dump_record(head: RecordHead) -> list[Any]:
    span = [head.span.line, head.span.offset, head.span.length]
    if isinstance(head, LessonHead):
        tags = list(head.tags) if head.tags is not None else None
        return ["L", span, head.id, head.date, head.session_id, head.project, head.type,
                head.category, head.title, tags]  # fmt: skip
    return ["S", span, head.id, head.date, head.session_id, head.session_name, head.project,
            head.title, head.evaluated, head.ai_mean, head.user_score]  # fmt: skip


def load_record(raw: list[Any]) -> RecordHead:
    tag, (line, offset, length), *rest = raw
    span = RecordSpan(line, offset, length)
    if tag == "L":
        rid, date, sid, project, type_, category, title, tags = rest
        return LessonHead(
            span, rid, date, _i(sid), _i(project), _i(type_), _i(category), title,
            tuple(_i(t) or "" for t in tags) if tags is not None else None,
        )  # fmt: skip
    if tag == "S":
        rid, date, sid, name, project, title, evaluated, ai_mean, user = rest
        return SummaryHead(
            span, rid, date, _i(sid), name, _i(project), title, evaluated, ai_mean, user
        )
    raise ValueError(f"unknown record head {tag!r}")


READ_BACK = 4 << 20
_read_since = [0]


def read_mapped(mapped: bytes | mmap.mmap, lo: int, hi: int) -> bytes:
    """A copy of ``mapped[lo:hi]``; every :data:`READ_BACK` bytes read, the mapping's pages
    are given back (statistics read every report's problems)."""
    data = bytes(mapped[lo:hi])
    if isinstance(mapped, bytes):
        return data
    _read_since[0] += hi - lo
    if _read_since[0] >= READ_BACK:
        _read_since[0] = 0
        give_back(mapped)
    return data


#: The buffer, where the lines start and end in it, and where each ends.
_Lines = tuple["bytes | mmap.mmap", int, int, "array[int]"]


DECODE_BATCH = 4096
#: A mapped table is scanned this much at a time, each part's pages given back.
SCAN_WINDOW = 8 << 20


def _ends(hi: int) -> array[int]:
    return array("I" if hi < 1 << 32 else "Q")


def _line_ends(buf: bytes | mmap.mmap, lo: int, hi: int, count: int) -> array[int]:
    """Where each of the ``count`` lines between ``lo`` and ``hi`` ends."""
    ends = _ends(hi)
    find, add = buf.find, ends.append
    mapped = not isinstance(buf, bytes)
    start = lo
    while start < hi:
        stop = min(hi, start + SCAN_WINDOW)
        pos = find(b"\n", start, stop)
        while pos >= 0:
            add(pos)
            pos = find(b"\n", pos + 1, stop)
        if mapped:
            give_back(cast("mmap.mmap", buf), start, stop)
        start = stop
    if len(ends) != count or (ends and ends[-1] != hi - 1) or (not ends and hi > lo):
        raise ValueError("a head table's parts disagree")
    return ends


class HeadTable:
    """The record heads of one JSONL file as JSON lines in one buffer, decoded when asked
    (tens of MB for 100,000 lessons, not hundreds). Readable while another thread
    :meth:`extend` s it: the buffer's state is replaced at once, the kinds grow last."""

    __slots__ = ("_lines", "_projects", "kinds", "sids")

    def __init__(
        self,
        blob: bytes | mmap.mmap,
        sids: list[str | None],
        kinds: str,
        projects: list[str | None] | None = None,
        *,
        lo: int = 0,
        hi: int | None = None,
    ) -> None:
        hi = len(blob) if hi is None else hi
        if len(kinds) != len(sids) or (projects is not None and len(projects) != len(sids)):
            raise ValueError("a head table's parts disagree")
        self._lines: _Lines = (blob, lo, hi, _line_ends(blob, lo, hi, len(kinds)))
        self.sids = [_i(s) for s in sids]
        self.kinds = kinds
        #: kept with the session ids where sessions show them (a table with summaries)
        self._projects = [_i(p) for p in projects] if projects is not None else None
        self.release()  # the pages just read to find the lines (a mapped table)

    @property
    def blob(self) -> bytes:
        buf, lo, hi, _ends = self._lines
        if isinstance(buf, bytes) and lo == 0 and hi == len(buf):
            return buf
        return buf[lo:hi]

    def release(self) -> None:
        """Give back the mapped pages read so far."""
        buf, lo, hi, _ends = self._lines
        if not isinstance(buf, bytes):
            give_back(buf, lo, hi)

    @classmethod
    def of(cls, heads: list[RecordHead]) -> HeadTable:
        blob = b"".join(
            json.dumps(dump_record(h), ensure_ascii=False, separators=(",", ":")).encode(
                "utf-8", "backslashreplace"
            )
            + b"\n"
            for h in heads
        )
        kinds = "".join("L" if isinstance(h, LessonHead) else "S" for h in heads)
        projects = [h.project for h in heads] if "S" in kinds else None
        return cls(blob, [h.session_id for h in heads], kinds, projects)

    def __len__(self) -> int:
        return len(self.kinds)

    def extend(self, more: HeadTable) -> None:
        """Append ``more``'s records (readers see the old lines or the new, whole)."""
        _buf, lo, _hi, ends = self._lines
        _more, more_lo, _more_hi, more_ends = more._lines
        blob, added = self.blob, more.blob
        base = len(blob)
        new_ends = _ends(base + len(added))
        new_ends.extend(e - lo for e in ends)  # (an array of another width: item by item)
        new_ends.extend(base + e - more_lo for e in more_ends)
        self._lines = (blob + added, 0, base + len(added), new_ends)
        self.sids.extend(more.sids)
        self.kinds += more.kinds

    def search(self, pattern: re.Pattern[bytes]) -> re.Match[bytes] | None:
        buf, lo, hi, _ends = self._lines
        return pattern.search(buf, lo, hi)

    def _span(self, start: int, stop: int) -> bytes:
        buf, lo, _hi, ends = self._lines  # one value: never the buffer of one, ends of another
        first = ends[start - 1] + 1 if start else lo
        return buf[first : ends[stop - 1]]

    def __getitem__(self, i: int) -> RecordHead:
        if not 0 <= i < len(self.kinds):
            raise IndexError(i)
        raw = json.loads(self._span(i, i + 1))
        if not isinstance(raw, list):
            raise ValueError("a record head is a list")
        return load_record(raw)

    def __iter__(self) -> Iterator[RecordHead]:
        return iter(self.heads(0, len(self.kinds)))

    def project(self, i: int) -> str | None:
        """The project of record ``i``: at the first ask every record's is decoded (in
        batches) and kept, since the sessions list shows every session's."""
        projects = self._projects
        if projects is None or i >= len(projects):  # none yet, or the table grew since
            n = len(self.kinds)
            projects = [*(projects or ())]  # (a new list: a reader may hold the old one)
            for at in range(len(projects), n, DECODE_BATCH):
                projects.extend(_i(h.project) for h in self.heads(at, min(n, at + DECODE_BATCH)))
            self._projects = projects
        return projects[i]

    def heads(self, start: int, stop: int) -> list[RecordHead]:
        """The heads ``start`` to ``stop`` (clamped), decoded in one pass (no raw newline
        occurs inside a JSON line: joined by commas they are one array)."""
        stop = min(stop, len(self.kinds))
        if start >= stop:
            return []
        part = self._span(start, stop)
        return [load_record(r) for r in json.loads(b"[" + part.replace(b"\n", b",") + b"]")]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HeadTable) and self.blob == other.blob

    __hash__ = None  # type: ignore[assignment]

    def snapshot(self) -> tuple[list[Any], bytes]:
        """The session ids, kinds and (with summaries) projects, and the lines, of the same
        records (a cache write while another thread appends: the kinds grow last)."""
        kinds = self.kinds
        n = len(kinds)
        buf, lo, _hi, ends = self._lines
        projects = [self.project(i) for i in range(n)] if "S" in kinds else None
        meta = [self.sids[:n], kinds, projects]
        return meta, (read_mapped(buf, lo, ends[n - 1] + 1) if n else b"")
