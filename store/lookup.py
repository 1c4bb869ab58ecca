"""Finding anything but KPT reports and items by the id ``hurikaeri search`` prints: its
record and its part of the file. A JSONL file is parsed only when the id's text is in it; an
id two records carry is :class:`AmbiguousId`, never the first."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store.read.kinds import Kind
from store.search.model import SearchRecord, place_id
from store.workspace import Workspace

KINDS_FOUND = (
    "lesson",
    "summary",
    "proposal",
    "feedback",
    "skill",
    "pattern",
    "anti_pattern",
    "memory",
    "piece",
    "movement",
    "discussion",
)

_PLACE = re.compile(r"(?P<path>.+\.jsonl):(?P<line>[1-9]\d*)")
_JSONL = (Kind.LESSONS, Kind.SUMMARIES)
_PREFIXES: tuple[tuple[str, tuple[Kind, ...]], ...] = (
    ("ll-", (Kind.LESSONS,)),
    ("ws-", (Kind.SUMMARIES,)),
    ("prop-", (Kind.PROPOSAL,)),
    ("fb-", (Kind.FEEDBACK,)),
)
#: The kinds whose ids carry no prefix, in the order they are looked through.
_UNPREFIXED: tuple[Kind | None, ...] = (
    Kind.SKILL,
    Kind.PATTERN,
    Kind.ANTI_PATTERN,
    None,  # knowledge-base files told apart by their content (groups/, projects/)
    Kind.MEMORY,
    Kind.PIECE,
    Kind.PROPOSAL,
    Kind.FEEDBACK,
    Kind.DISCUSSION,
    *_JSONL,
)


class AmbiguousId(LookupError):
    """An id several records carry, or a place several files fit; ``places`` name each."""

    def __init__(self, ident: str, places: list[str]) -> None:
        super().__init__(ident, places)
        self.ident = ident
        self.places = places

    def __str__(self) -> str:
        what = (
            f"'{quoted_id(self.ident)}' fits {len(self.places)} records"
            if _PLACE.fullmatch(self.ident)
            else f"{len(self.places)} records have the id '{quoted_id(self.ident)}'"
        )
        return f"{what}: {', '.join(self.places)}; name one by its place"


def quoted_id(ident: str, width: int = 80) -> str:
    """An id as a message repeats it: one line, cut in the middle to ``width`` (both ends of
    a long id tell it)."""
    from store.read.textsafe import printable

    text = printable(ident, keep_newlines=False)
    if len(text) <= width:
        return text
    half = (width - 1) // 2
    return f"{text[:half]}…{text[len(text) - (width - 1 - half) :]}"


@dataclass(frozen=True, slots=True)
class Thing:
    """One found thing: its search record, and the part of its file it was built from."""

    record: SearchRecord
    line: int  # where it starts (1 for a whole file)
    data: Any  # as written: a record, a document or part of one, a discussion's body+block
    status: str | None = None  # a proposal's decision state

    def as_json(self) -> dict[str, Any]:
        r = self.record
        labels, values = r.fields[0::2], r.fields[1::2]
        out: dict[str, Any] = {
            "kind": r.kind,
            "id": r.id,
            "path": r.path,
            "line": self.line,
            "title": r.title,
            "date": r.date or None,
            "project": r.project or None,
            "session_id": r.session_id or None,
        }
        if self.status is not None:
            out["status"] = self.status
        out["fields"] = dict(zip(labels, values, strict=True))
        out["document"] = self.data
        return out


def id_kinds(ident: str) -> tuple[Kind | None, ...] | None:
    """The kinds an id of this shape can name (``None``: any kind without a prefix)."""
    for prefix, kinds in _PREFIXES:
        if ident.startswith(prefix):
            return kinds
    if _PLACE.fullmatch(ident):
        return _JSONL
    return None


def find_thing(ws: Workspace, ident: str) -> Thing | None:
    """The thing search lists under ``ident``; :class:`AmbiguousId` when several have it."""
    ident = ident.strip()
    if not ident:
        return None
    place = _PLACE.fullmatch(ident)
    if place:
        return _at_place(ws, place["path"], int(place["line"]), ident)
    found: list[Thing] = []
    for path, kind in _candidates(ws, ident):
        if kind in _JSONL:
            assert kind is not None
            found += _in_jsonl(ws, path, kind, ident)
        elif not found and (got := _in_document(ws, path, kind, ident)) is not None:
            return got
    if len(found) > 1:
        raise AmbiguousId(ident, [place_id(ws.display(Path(t.record.path)), t.line) for t in found])
    return found[0] if found else None


def _at_place(ws: Workspace, where: str, line: int, ident: str) -> Thing | None:
    """The record at ``line`` of the one JSONL file ``where`` names (its path as shown, or
    the end of it in whole names: ``user/lessons.jsonl``)."""
    want = Path(where).parts
    files = [f for f in ws.discover() if f.kind in _JSONL]
    fit = [
        f
        for f in files
        if f.path.parts[-len(want) :] == want or Path(ws.display(f.path)).parts == want
    ]
    found = [t for f in fit if f.kind is not None for t in _in_jsonl(ws, f.path, f.kind, line=line)]
    if len(found) > 1:
        raise AmbiguousId(ident, [place_id(ws.display(Path(t.record.path)), t.line) for t in found])
    return found[0] if found else None


def _candidates(ws: Workspace, ident: str) -> Iterator[tuple[Path, Kind | None]]:
    kinds = id_kinds(ident)
    direct = [ws.root / ident, Path(ident)]
    given: set[Path] = set()
    for p in direct:  # a discussion (or any document) named by its path
        try:
            found = ws.found(p) if p.suffix else None
        except OSError:  # no such file can be (a name too long for the file system)
            found = None
        if found is not None and found.kind is not None and found.path not in given:
            given.add(found.path)
            yield found.path, found.kind
    files = [f for f in ws.discover() if f.kind in (kinds or _UNPREFIXED) and f.path not in given]
    stem = ident.split("/", 1)[0]
    named = [f for f in files if f.path.stem == stem]
    order = (kinds or _UNPREFIXED).index
    rest = sorted((f for f in files if f.path.stem != stem), key=lambda f: order(f.kind))
    for f in [*named, *rest]:
        yield f.path, f.kind


def _in_jsonl(ws: Workspace, path: Path, kind: Kind, ident: str = "", line: int = 0) -> list[Thing]:
    """The records of ``path`` that carry the id ``ident``, or the one at ``line``."""
    from store.models import Lesson, SessionSummary
    from store.read.diagnostics import DiagnosticSink
    from store.read.jsonl import scan_jsonl
    from store.read.textio import MAX_JSONL_BYTES, read_text
    from store.read.validate import validate_tolerant
    from store.search.records import lesson_record, summary_record

    display = ws.display(path)
    sink = DiagnosticSink(display)
    raw = read_text(path, sink, MAX_JSONL_BYTES)
    if raw.text is None or (not line and ident.encode("utf-8") not in raw.data):
        return []
    lessons = kind is Kind.LESSONS
    build: Callable[..., SearchRecord] = lesson_record if lessons else summary_record
    out = []
    for rec in scan_jsonl(raw.data, sink).records:
        if (rec.line != line) if line else (rec.data.get("id") != ident):
            continue
        doc = validate_tolerant(
            Lesson if lessons else SessionSummary, rec.data, sink, what="record"
        )
        if doc is not None:
            out.append(Thing(build(str(path), rec.line, doc, display), rec.line, rec.data))
    return out


def _in_document(ws: Workspace, path: Path, kind: Kind | None, ident: str) -> Thing | None:
    from store.models import Proposal
    from store.read.loader import load_file
    from store.search.facade import resolve_line
    from store.search.records import discussion_record, records_for

    loaded = load_file(path, kind, ws.display(path))
    if loaded.kind is Kind.DISCUSSION and loaded.reply is not None:
        reply = loaded.reply
        rec = discussion_record(path, loaded.display, reply.body, reply.block)
        if rec.id != ident:
            return None
        block = reply.block.model_dump(exclude_none=True) if reply.block else None
        return Thing(rec, 1, {"body": reply.body, "metadata": block})
    for rec in records_for(path, loaded.doc):
        if rec.id != ident:
            continue
        status = None
        if isinstance(loaded.doc, Proposal):
            status = (loaded.doc.status or "pending").lower()
        part, line = _part(loaded.data, rec)
        return Thing(rec, line or resolve_line(rec), part, status)
    return None


def _part(data: Any, rec: SearchRecord) -> tuple[Any, int]:
    """The part of a document a record stands for (the whole for most)."""
    if not isinstance(data, dict):
        return data, 1
    if rec.kind == "memory":
        _, _, which = rec.id.rpartition("/")
        if which == "preferences":
            return data.get("preferences"), 0
        name, _, n = which.rpartition("-")
        key = {"behavior": "learned_behaviors", "issue": "known_issues"}.get(name)
        entries = data.get(key) if key else None
        if isinstance(entries, list) and n.isdigit() and 0 < int(n) <= len(entries):
            return entries[int(n) - 1], 0
    if rec.kind == "movement":
        _, _, name = rec.id.partition("/")
        for step in _movements(data):
            if step.get("name") == name:
                return step, 0
    return data, 1


def _movements(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for key in ("movements", "steps"):
        for step in data.get(key) or []:
            if isinstance(step, dict):
                yield step
                yield from (s for s in step.get("parallel") or [] if isinstance(s, dict))
