"""``import-wrapup``: the wrap-up skill's save step, done safely (seed 001, wrap-up v1.4).

Invalid input writes nothing and names the field. A retried import (a hook run again) appends
nothing already there: same ``session_id`` and content, id aside. Ids take the next free
sequence among the ids already there, whatever dates those carry (a wrap-up bug once wrote ids
with wrong dates). Each file is checked again under our writers' lock before its lines are
appended, and a target that is not JSONL (a shell start-up file at a lesson path) is refused.
An input imported here before is first looked for where its lines were put or found
(:mod:`store.review.wrapup_marks`): still there, nothing is read or searched.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.check.secrets import check_write, warm_up
from store.errors import ReviewError, cannot_read
from store.read.diagnostics import Diagnostic, DiagnosticSink
from store.read.isotime import parse_time
from store.read.jsonl import UTF8_BOM, encode_record
from store.read.markers import dotted
from store.read.textio import MAX_JSONL_BYTES, MAX_RECORD_BYTES, NotReadable, check_regular
from store.read.textsafe import printable
from store.review import wrapup_marks
from store.review.wrapup_marks import Span
from store.tx.journal import FileWrite
from store.tx.transactions import TxPlan, TxResult, apply
from store.write.atomic import Guard, PathRefused, WriteError
from store.write.policy import in_place

if TYPE_CHECKING:  # the models load when an input is read (not for an import retried)
    from store.ledger import Ledger
    from store.models.lessons import WrapupInput
    from store.workspace import Workspace

_ID_SEQ = re.compile(r"^(?P<prefix>.+)-(?P<date>\d{8})-(?P<seq>\d+)$")
#: A longer sequence is another program's (agents write ids and file names): counting on
#: from it would give ids no file may be named after, or too long to be read back as ids.
MAX_SEQ_DIGITS = 9


def project_slug(project: str) -> str:
    return re.sub(r"[:/\\]", "-", project)


@dataclass(slots=True)
class WrapupImport:
    summary_path: Path
    user_path: Path
    ai_path: Path
    summary: dict[str, Any]
    user_lessons: list[dict[str, Any]] = field(default_factory=list)
    ai_lessons: list[dict[str, Any]] = field(default_factory=list)
    #: ids of the records that were already in their files (an import retried)
    present: set[str] = field(default_factory=set)
    #: the transaction that appended the lines (``None``: nothing was written)
    tx: TxResult | None = None
    #: where each record's line is, by id: found there, or appended
    spans: dict[str, Span] = field(default_factory=dict)

    def records(self) -> list[tuple[Path, str, dict[str, Any]]]:
        """Every record with its file and id prefix, in writing order."""
        out = [(self.summary_path, "ws", self.summary)]
        out += [(self.user_path, "ll-user", r) for r in self.user_lessons]
        out += [(self.ai_path, "ll-ai", r) for r in self.ai_lessons]
        return out

    def lines(self) -> list[tuple[Path, bytes]]:
        """The lines still to append."""
        return [
            (path, encode_record(r)) for path, _, r in self.records() if r["id"] not in self.present
        ]

    @property
    def already_imported(self) -> bool:
        return all(r["id"] in self.present for _, _, r in self.records())


@dataclass(slots=True)
class _Existing:
    """The ids a target file holds already, and one session's records there by content."""

    ids: set[str] = field(default_factory=set)
    same: dict[str, list[tuple[str, Span]]] = field(default_factory=dict)


def _content_key(rec: dict[str, Any]) -> str:
    """A record's content without its id, the same however its line is spaced."""
    rest = {k: v for k, v in rec.items() if k != "id"}
    return json.dumps(rest, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _scan(
    data: bytes,
    session_id: str | None,
    records: list[tuple[str, dict[str, Any]]],
    day: str,
) -> _Existing:
    """The records of ``session_id`` in ``data`` and the ids that begin with the stems of
    ``records`` (found with ``bytes.find``: 100,000 lessons in milliseconds)."""
    stems = {f"{prefix}-{day}-" for prefix, _ in records}  # what next_id's ids begin with
    ids = {i for stem in stems for i in _ids_with_stem(data, stem)}
    return _Existing(ids, _same_session(data, session_id))


def _same_session(data: bytes, session_id: str | None) -> dict[str, list[tuple[str, Span]]]:
    """The ids and lines of the one-line records of ``session_id`` in ``data``, by content."""
    same: dict[str, list[tuple[str, Span]]] = {}
    if not session_id:
        return same
    starts: set[int] = set()
    # the value in its quotes, as written or escaped: a longer needle is searched faster
    needles = {b'"' + session_id.encode("utf-8") + b'"', json.dumps(session_id).encode("ascii")}
    for needle in needles:
        at = data.find(needle)
        while at >= 0:
            starts.add(data.rfind(b"\n", 0, at) + 1)
            at = data.find(needle, at + len(needle))
    for start in sorted(starts):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        if end - start > MAX_RECORD_BYTES:
            continue
        try:
            rec = json.loads(data[start:end])
        except (ValueError, RecursionError):
            continue
        if isinstance(rec, dict) and rec.get("session_id") == session_id:
            line = data[start : end + 1]
            same.setdefault(_content_key(rec), []).append((str(rec.get("id")), _span(start, line)))
    return same


def _assign(
    records: list[tuple[str, dict[str, Any]]], existing: _Existing, day: str, plan: WrapupImport
) -> None:
    """Give each record of one file its id: the id of the same record already there (then
    it is present, its line in ``spans``), else the next free one."""
    same = {k: list(v) for k, v in existing.same.items()}
    taken = set(existing.ids)
    for prefix, rec in records:
        plan.present.discard(rec["id"])
        there = same.get(_content_key(rec))
        if there:
            rec["id"], span = there.pop(0)
            plan.spans[rec["id"]] = span
            plan.present.add(rec["id"])
        else:
            rec["id"] = next_id(prefix, day, taken)
            taken.add(rec["id"])


def _ids_with_stem(data: bytes, stem: str) -> set[str]:
    out: set[str] = set()
    needle = b'"' + stem.encode("utf-8")
    at = data.find(needle)
    while at >= 0:
        value = _ID_VALUE.match(data, at, at + 203)
        if value is not None and _id_key_before(data, at):
            out.add(value.group(1).decode("utf-8", "replace"))
        at = data.find(needle, at + 1)
    return out


def _id_key_before(data: bytes, at: int) -> bool:
    """Whether ``"id"``, a colon and any whitespace come right before ``at``."""
    for want in (b":", b'"id"'):
        while at > 0 and data[at - 1] in _SPACE:
            at -= 1
        if at < len(want) or data[at - len(want) : at] != want:
            return False
        at -= len(want)
    return True


#: An id's value, from its opening quote: ``"id": "…"`` is a pair ``"id"\s*:\s*"…"`` (a
#: pretty-printed one too) whose value is 1–200 bytes without quotes, backslashes or line ends.
_ID_VALUE = re.compile(rb'"([^"\\\r\n]{1,200})"')
#: What ``\s`` matches in bytes: JSON allows any run of it around the colon.
_SPACE = b" \t\n\r\x0b\x0c"
#: Nesting deeper than this in a wrap-up input is refused.
MAX_INPUT_DEPTH = 64


@contextlib.contextmanager
def _target(path: Path) -> Iterator[tuple[int, int] | None]:
    """A file lines are appended to, after checking it can take a line, as its descriptor
    and size (``None``: absent or empty). Read with ``pread``, never mapped: a mapping dies
    of SIGBUS when an agent truncates the file meanwhile."""
    try:
        st = os.stat(path)
        check_regular(st, MAX_JSONL_BYTES)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        yield None
        return
    except NotReadable as exc:
        raise ReviewError(f"{path}: {exc}; nothing written") from exc
    except (OSError, ValueError) as exc:
        raise ReviewError(f"{cannot_read(path, exc)}; nothing written") from exc
    try:
        st = os.fstat(fd)
        check_regular(st, MAX_JSONL_BYTES)
        if st.st_size == 0:
            yield None
            return
        _check_appendable(path, fd, st.st_size)
        yield fd, st.st_size
    except NotReadable as exc:
        raise ReviewError(f"{path}: {exc}; nothing written") from exc
    except OSError as exc:
        raise ReviewError(f"{cannot_read(path, exc)}; nothing written") from exc
    finally:
        os.close(fd)


def _check_appendable(path: Path, fd: int, size: int) -> None:
    """Refuse a file whose last line is unfinished or whose first and last lines are not JSON
    objects (or a pretty-printed record's lone ``{`` / ``}``); only those lines are read."""
    if os.pread(fd, 1, size - 1) != b"\n":
        raise ReviewError(f"{path}: the last line is unfinished; nothing written")
    first = _first_line(fd, size)
    if first is None:
        return  # blank lines only
    last = _last_line(fd, size)
    for what, line, opener in (("first", first, b"{"), ("last", last, b"}")):
        if line != opener and not _is_json_object(line):
            raise ReviewError(
                f"{path} does not look like a JSONL file (its {what} line is not a JSON "
                "object); nothing appended"
            )


def _first_line(fd: int, size: int) -> bytes | None:
    """The first line that is not blank, stripped (a line too long for a record: its first
    bound and a byte); read 64 KiB at a time, more for a longer line."""
    pos, window = 0, 1 << 16
    while pos < size:
        chunk = os.pread(fd, window, pos)
        if not chunk:  # truncated meanwhile
            break
        lines = chunk.split(b"\n")
        if len(lines) == 1 and len(chunk) == window:  # the line goes on past the window
            if window > MAX_RECORD_BYTES:
                return chunk[: MAX_RECORD_BYTES + 1]
            window = min(window * 4, MAX_RECORD_BYTES + 2)
            continue
        lines = lines[:-1] if len(lines) > 1 else lines  # the last may go on past it
        for k, raw in enumerate(lines):
            line = raw.removeprefix(UTF8_BOM if pos == 0 and k == 0 else b"").strip()
            if line:
                return line
        pos += sum(map(len, lines)) + len(lines)
    return None


def _last_line(fd: int, size: int) -> bytes:
    """The last line that is not blank, stripped (see :func:`_first_line`)."""
    end, window = size, 1 << 16
    while end > 0:
        lo = max(0, end - window)
        chunk = os.pread(fd, end - lo, lo)
        lines = chunk.split(b"\n")
        if lo and len(lines) == 1:  # the line begins before the window
            if window > MAX_RECORD_BYTES:
                return chunk[-MAX_RECORD_BYTES - 1 :]
            window = min(window * 4, MAX_RECORD_BYTES + 2)
            continue
        for k in range(len(lines) - 1, 0 if lo else -1, -1):  # the first may begin before
            line = lines[k].removeprefix(UTF8_BOM if lo == 0 and k == 0 else b"").strip()
            if line:
                return line
        if not lo:
            break
        end = lo + len(lines[0])
    return b""


def _is_json_object(line: bytes) -> bool:
    if len(line) > MAX_RECORD_BYTES or not line.startswith(b"{"):
        return False
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def next_id(prefix: str, day: str, taken: Iterable[str]) -> str:
    """``PREFIX-DAY-NNN`` after the highest sequence ``taken`` holds for that prefix and day
    (the first free one when that would be too long)."""
    seqs = {
        int(m.group("seq"))
        for t in taken
        if (m := _ID_SEQ.match(t))
        and (m.group("prefix"), m.group("date")) == (prefix, day)
        and len(m.group("seq")) <= MAX_SEQ_DIGITS
    }
    n = max(seqs, default=0) + 1
    if n >= 10**MAX_SEQ_DIGITS:
        n = min(set(range(1, len(seqs) + 2)) - seqs)
    return f"{prefix}-{day}-{n:03d}"


def parse_input(text: str, source: str) -> tuple[WrapupInput | None, list[Diagnostic]]:
    from store.models.lessons import AI_LESSON_TYPES, USER_LESSON_TYPES, WrapupInput
    from store.read.validate import validate_tolerant

    sink = DiagnosticSink(source)
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        sink.error("invalid-json", f"not valid JSON: {exc}", getattr(exc, "lineno", None))
        return None, sink.items
    except RecursionError:
        sink.error("too-deep", "not read: the JSON is nested too deeply")
        return None, sink.items
    if not _check_values(data, sink):
        return None, sink.items
    model = validate_tolerant(WrapupInput, data, sink, what="wrap-up input")
    if model is not None:
        for key, allowed in (("user_lessons", USER_LESSON_TYPES), ("ai_lessons", AI_LESSON_TYPES)):
            for i, les in enumerate(getattr(model, key) or []):
                if les.type and les.type not in allowed:
                    sink.warning(
                        "lesson-type-side",
                        f"{key}[{i}].type '{les.type}' is not a {key.split('_')[0]} lesson type",
                    )
        if not isinstance(model.session_id, str) or not model.session_id.strip():
            sink.error(
                "missing-field",
                "required field 'session_id' is missing or empty (it joins the session's "
                "summary, lessons and report)",
            )
        for key in ("user_lessons", "ai_lessons"):
            for i, les in enumerate(getattr(model, key) or []):
                if isinstance(les.title, str) and not les.title.strip():
                    sink.error("missing-field", f"required field '{key}[{i}].title' is empty")
        if model.date is not None and _day(model.date) is None:
            sink.error("bad-date", f"date '{model.date}' is not an ISO 8601 time")
        if model.project is not None:
            _check_project(model.project, sink)
    return model, sink.items


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _check_values(data: Any, sink: DiagnosticSink) -> bool:
    """Report what a JSONL line cannot hold: lone surrogates, infinities, deep nesting."""
    ok = True
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while stack:
        loc, value = stack.pop()
        if len(loc) > MAX_INPUT_DEPTH:
            sink.error("too-deep", f"{dotted(loc[:3])}…: nested over {MAX_INPUT_DEPTH} levels deep")
            return False
        if isinstance(value, dict):
            for k, v in value.items():
                if not _encodable(k):
                    sink.error("bad-text", f"{dotted(loc)}: a field name {_surrogate(k)}")
                    ok = False
                stack.append(((*loc, k), v))
        elif isinstance(value, list):
            stack.extend(((*loc, i), v) for i, v in enumerate(value))
        elif isinstance(value, str) and not _encodable(value):
            sink.error("bad-text", f"{dotted(loc)}: the text {_surrogate(value)}")
            ok = False
        elif isinstance(value, float) and not math.isfinite(value):
            sink.error("bad-number", f"{dotted(loc)}: the number is too large")
            ok = False
    return ok


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _surrogate(text: str) -> str:
    bad = next(c for c in text if 0xD800 <= ord(c) <= 0xDFFF)
    return f"holds an unpaired surrogate (\\u{ord(bad):04x}), which UTF-8 cannot encode"


def _day(date: str) -> str | None:
    """``YYYYMMDD`` of an ISO 8601 date or time, as written (no zone conversion)."""
    t = parse_time(date)
    return None if t is None else f"{t.year:04d}{t.month:02d}{t.day:02d}"


def _check_project(project: str, sink: DiagnosticSink) -> None:
    """The project's slug names the summaries folder: it must make one folder name."""
    slug = project_slug(project)
    shown = printable(project, keep_newlines=False)
    why = ""
    if not slug.strip():
        why = "it is empty"
    elif slug.strip() in (".", ".."):
        why = f"'{slug}' would name a folder outside session-summaries/"
    elif any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in slug):
        why = "it holds control characters"
    elif len(slug.encode("utf-8")) > 255:
        why = "it is too long for a folder name (over 255 bytes)"
    if why:
        sink.error("bad-project", f"project '{shown}' cannot name the summaries folder: {why}")


def plan_import(ws: Workspace, model: WrapupInput, *, scan: bool = False) -> WrapupImport:
    """The records and their ids; ``scan``: a record to write starts loading the secret
    scanner's rules (~0.3 s of a core, wasted on an import retried) while the rest is planned."""
    from store.models.lessons import WrapupSummary

    day = _day(model.date or "")
    if not model.project or day is None:  # parse_input reported it
        raise ReviewError("invalid wrap-up input, nothing written: project or date is missing")
    summary_path = ws.loc("summaries") / project_slug(model.project) / "summaries.jsonl"
    user_path, ai_path = ws.loc("lessons_user"), ws.loc("lessons_ai")
    base = {
        "date": model.date,
        "session_id": model.session_id,
        "session_name": model.session_name,
        "project": model.project,
    }
    s = model.summary or WrapupSummary()
    summary: dict[str, Any] = {
        "id": "",  # given by _assign: the one already there, or the next free one
        **base,
        "info_summary": list(s.info or []),
        "qa_pairs": [q.model_dump(exclude_none=True) for q in (s.qa or [])],
        "conclusions": [c.model_dump(exclude_none=True) for c in (s.conclusions or [])],
        "work_done": list(s.done) if s.done is not None else None,
        "action_items": [
            {"title": a.title, "priority": a.priority, "registered_todo": a.registered_todo}
            for a in (s.actions or [])
        ],
    }
    if model.evaluation is not None:
        summary["evaluation"] = model.evaluation.model_dump(exclude_none=True)
    _add_extras(summary, model.model_extra)
    plan = WrapupImport(summary_path, user_path, ai_path, summary)
    for lessons, out in (
        (model.user_lessons, plan.user_lessons),
        (model.ai_lessons, plan.ai_lessons),
    ):
        for les in lessons or []:
            record = {
                "id": "",
                **base,
                "type": les.type,
                "category": les.category,
                "title": les.title,
                "summary": les.summary,
                "context": les.context,
                "detail_ref": les.detail_ref if les.detail_ref is not None else "",
                "tags": list(les.tags or []),
                "memory_ref": les.memory_ref,
            }
            _add_extras(record, les.model_extra)
            out.append(record)
    # once a file has a record to write, the secret rules load while the rest is searched
    # (an import retried writes nothing: no scan)
    writes = False
    for path, records in _by_file(plan).items():
        with _target(path) as got:  # refused when it cannot take a line
            data = os.pread(got[0], got[1], 0) if got else b""  # searched whole
            existing = _scan(data, model.session_id, records, day) if got else _Existing()
        _assign(records, existing, day, plan)
        if not writes and not all(r["id"] in plan.present for _, r in records):
            writes = True
            if scan:
                warm_up()
    return plan


def _add_extras(record: dict[str, Any], extras: dict[str, Any] | None) -> None:
    """Newer input fields (``timing``, …) kept after the record's own, never over them."""
    for key, value in (extras or {}).items():
        record.setdefault(key, value)


def _by_file(plan: WrapupImport) -> dict[Path, list[tuple[str, dict[str, Any]]]]:
    out: dict[Path, list[tuple[str, dict[str, Any]]]] = {}
    for path, prefix, rec in plan.records():
        out.setdefault(path, []).append((prefix, rec))
    return out


def import_wrapup(
    ws: Workspace,
    text: str,
    source: str = "<input>",
    *,
    ledger: Ledger | None = None,
    allow_secrets: bool = False,
) -> WrapupImport:
    """Validate, then append as one ``import-wrapup`` transaction; :class:`ReviewError` before
    any write when the input is invalid or a target cannot take a line."""
    key = wrapup_marks.input_key(text)
    again = _imported_before(ws, key)
    if again is not None:
        return again
    model, diags = parse_input(text, source)
    errors = [d for d in diags if d.severity == "error"]
    if model is None or errors:
        reasons = "; ".join(printable(d.message, keep_newlines=False) for d in errors)
        raise ReviewError(f"invalid wrap-up input, nothing written: {reasons}")
    plan = plan_import(ws, model, scan=not allow_secrets)  # refuses files that cannot take a line
    for path, line in plan.lines():
        if len(line) > MAX_RECORD_BYTES:
            raise ReviewError(
                f"{path}: the new record would be {len(line):,} bytes, over the "
                f"{MAX_RECORD_BYTES:,}-byte limit for a JSONL record; nothing written"
            )
    if not allow_secrets:  # agent text: a key in a lesson is refused like one in a target
        for path, line in plan.lines():
            check_write(None, line, str(path), f"the wrap-up input ({source})")
    guards = _guarded(ws, plan)
    day = _day(model.date or "") or ""
    files: list[FileWrite] = []
    for path, records in _by_file(plan).items():

        def compose(
            fd: int,
            records: list[tuple[str, dict[str, Any]]] = records,
            path: Path = path,
        ) -> bytes:
            # the file as it is now, under the lock: another import may have appended
            size = os.fstat(fd).st_size if fd >= 0 else 0
            if size:
                existing = _scan(os.pread(fd, size, 0), model.session_id, records, day)
            else:
                existing = _Existing()
            _assign(records, existing, day, plan)
            out = bytearray()
            for _, r in records:
                if r["id"] not in plan.present:
                    line = encode_record(r)
                    plan.spans[r["id"]] = _span(size + len(out), line)
                    out += line
            return bytes(out)

        if not all(r["id"] in plan.present for _, r in records):
            files.append(
                FileWrite(path, None, None, guards[path], "append", "wrapup", compose=compose)
            )
    if files:
        subjects = [str(r["id"]) for _, _, r in plan.records()]
        tx = TxPlan("import-wrapup", subjects, files, note=source)
        try:
            result = apply(ws, tx, ledger=ledger)
            plan.tx = result if result.recorded else None
        except WriteError as exc:
            raise ReviewError(f"{exc}; nothing was appended") from exc
    _remember(ws, plan, key)
    return plan


def _guarded(ws: Workspace, plan: WrapupImport) -> dict[Path, Guard]:
    """The guards of the three files, each checked before anything is appended."""
    guards = {
        plan.summary_path: in_place(ws, "summaries"),
        plan.user_path: in_place(ws, "lessons_user"),
        plan.ai_path: in_place(ws, "lessons_ai"),
    }
    for path, guard in guards.items():
        try:
            guard(path)
        except PathRefused as exc:
            raise ReviewError(f"{exc}; nothing written") from exc
    return guards


def _remember(ws: Workspace, plan: WrapupImport, key: str) -> None:
    groups = [plan.summary], plan.user_lessons, plan.ai_lessons
    at = {
        loc: [plan.spans[r["id"]] for r in records if r["id"] in plan.spans]
        for loc, records in zip(_LOCATIONS, groups, strict=True)
        if records
    }
    if sum(map(len, at.values())) == len(plan.records()):
        wrapup_marks.remember(ws.state_dir, key, plan.summary_path.parent.name, at)


#: where a plan's summary, user lessons and AI lessons go
_LOCATIONS = ("summaries", "lessons_user", "lessons_ai")


def _imported_before(ws: Workspace, key: str) -> WrapupImport | None:
    """The import of an input imported here before whose lines are each still where they
    were, byte for byte (``None``: anything else: the input is read and searched for)."""
    mark = wrapup_marks.recall(ws.state_dir, key)
    if mark is None:
        return None
    summaries = ws.loc("summaries") / mark["slug"] / "summaries.jsonl"
    plan = WrapupImport(summaries, ws.loc("lessons_user"), ws.loc("lessons_ai"), {})
    paths = dict(zip(_LOCATIONS, (summaries, plan.user_path, plan.ai_path), strict=True))
    found: dict[str, list[dict[str, Any]]] = {}
    for loc, spans in mark["at"].items():
        with _target(paths[loc]) as got:  # refused as an import of it would be
            lines = [_line_at(got[0], *span) if got else None for span in spans]
        if any(line is None for line in lines):
            return None
        found[loc] = recs = [json.loads(line) for line in lines if line is not None]
        for rec in recs:
            rec["id"] = str(rec.get("id"))
            plan.present.add(rec["id"])
    (plan.summary,) = found["summaries"]
    plan.user_lessons, plan.ai_lessons = found.get("lessons_user", []), found.get("lessons_ai", [])
    _guarded(ws, plan)  # a file now a link out of its location is refused as on an import
    return plan


def _line_at(fd: int, offset: int, length: int, sha256: str) -> bytes | None:
    """The line at ``offset`` if it is still the one put there (and begins a line)."""
    if offset < 0 or not 0 < length <= MAX_RECORD_BYTES + 1:  # (a mark tampered with)
        return None
    before = os.pread(fd, 1, offset - 1) if offset else b"\n"
    line = os.pread(fd, length, offset) if before == b"\n" else b""
    return line if line.endswith(b"\n") and _span(offset, line)[2] == sha256 else None


def _span(offset: int, line: bytes) -> Span:
    return offset, len(line), hashlib.sha256(line).hexdigest()
