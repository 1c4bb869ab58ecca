"""Finding anything by the id ``hurikaeri search`` prints, other than KPT reports and items.

Search gives every thing a person looks for an id (:mod:`store.search.records`): lessons
(``ll-…``), session summaries (``ws-…``), proposals (``prop-…``), feedback (``fb-…``),
skills, patterns and anti-patterns (their ``skill_id`` / ``pattern_id``), project memory
entries (``PROJECT/behavior-N``, ``PROJECT/issue-N``, ``PROJECT/preferences``), pieces
(their name) and their movements (``PIECE/MOVEMENT``), discussions (their path as shown,
``discussions/…/x.md``), and records without an id (``lessons.jsonl:LINE``).
:func:`find_thing` turns such an id back into the same record search built, plus the part
of the file it came from, as it is written there. KPT reports and items are found by
:mod:`store.review.items`.

The id's shape says where to look first (a lesson only among the lessons); ids without a
prefix are looked for in files named after them first, then in every file of the kinds
that have such ids. A JSONL file is parsed only when the id's text is in it, and only the
matching record is validated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store.read.kinds import Kind
from store.search.model import SearchRecord
from store.workspace import Workspace

#: What :func:`find_thing` can find, as search names the kinds (for messages).
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

_NO_ID_RECORD = re.compile(r"(?P<name>[^/\\]+\.jsonl):(?P<line>[1-9]\d*)")
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
)


@dataclass(frozen=True, slots=True)
class Thing:
    """One found thing: its search record, and the part of its file it was built from."""

    record: SearchRecord
    line: int
    """1-based line where it starts (1 for a whole file)."""
    data: Any
    """As written in the file: a JSONL record, a YAML document or the part of one (a
    memory entry, a movement); a discussion's body and metadata block."""
    status: str | None = None
    """A proposal's decision state (``pending`` when it has none)."""

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
    if _NO_ID_RECORD.fullmatch(ident):
        return (Kind.LESSONS, Kind.SUMMARIES)
    return None


def find_thing(ws: Workspace, ident: str) -> Thing | None:
    """The thing search lists under ``ident`` (``None`` when there is none)."""
    ident = ident.strip()
    if not ident:
        return None
    for path, kind in _candidates(ws, ident):
        if kind in (Kind.LESSONS, Kind.SUMMARIES):
            got = _in_jsonl(ws, path, kind, ident)
        else:
            got = _in_document(ws, path, kind, ident)
        if got is not None:
            return got
    return None


def _candidates(ws: Workspace, ident: str) -> Iterator[tuple[Path, Kind | None]]:
    kinds = id_kinds(ident)
    direct = [ws.root / ident, Path(ident)]
    for p in direct:  # a discussion (or any document) named by its path
        found = ws.found(p) if p.suffix else None
        if found is not None and found.kind is not None:
            yield found.path, found.kind
    files = [f for f in ws.discover() if f.kind in (kinds or _UNPREFIXED)]
    no_id = _NO_ID_RECORD.fullmatch(ident)
    if no_id:
        files = [f for f in files if f.path.name == no_id["name"]]
    stem = ident.split("/", 1)[0]
    named = [f for f in files if f.path.stem == stem]
    order = (kinds or _UNPREFIXED).index
    rest = sorted((f for f in files if f.path.stem != stem), key=lambda f: order(f.kind))
    for f in [*named, *rest]:
        yield f.path, f.kind


def _in_jsonl(ws: Workspace, path: Path, kind: Kind, ident: str) -> Thing | None:
    from store.models import Lesson, SessionSummary
    from store.read.diagnostics import DiagnosticSink
    from store.read.jsonl import scan_jsonl
    from store.read.textio import MAX_JSONL_BYTES, read_text
    from store.read.validate import validate_tolerant
    from store.search.records import lesson_record, summary_record

    sink = DiagnosticSink(ws.display(path))
    raw = read_text(path, sink, MAX_JSONL_BYTES)
    no_id = _NO_ID_RECORD.fullmatch(ident)
    if raw.text is None or (not no_id and ident.encode("utf-8") not in raw.data):
        return None
    for rec in scan_jsonl(raw.data, sink).records:
        rid = rec.data.get("id")
        if no_id:
            if rec.line != int(no_id["line"]) or (isinstance(rid, str) and rid):
                continue
        elif rid != ident:
            continue
        if kind is Kind.LESSONS:
            lesson = validate_tolerant(Lesson, rec.data, sink, what="record")
            if lesson is None:
                continue
            record = lesson_record(str(path), rec.line, lesson)
        else:
            summary = validate_tolerant(SessionSummary, rec.data, sink, what="record")
            if summary is None:
                continue
            record = summary_record(str(path), rec.line, summary)
        return Thing(record, rec.line, rec.data)
    return None


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
    for rec in records_for(path, loaded.kind, loaded.doc):
        if rec.id != ident:
            continue
        status = None
        if isinstance(loaded.doc, Proposal):
            status = (loaded.doc.status or "pending").lower()
        part, line = _part(loaded.data, rec)
        return Thing(rec, line or resolve_line(rec), part, status)
    return None


def _part(data: Any, rec: SearchRecord) -> tuple[Any, int]:
    """The part of a document a record stands for (the whole of it for most)."""
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
