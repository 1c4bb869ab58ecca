"""``import-wrapup``: the wrap-up skill's save step, done safely (seed 001, wrap-up v1.4).

The input JSON is validated first — invalid input writes nothing and says what is wrong —
then one summary line is appended to ``session-summaries/<slug>/summaries.jsonl`` and one
line per lesson to the user and AI lesson files, each line in a single write; existing bytes
are never touched. The slug is the project path with ``:`` and ``/`` (and ``\\``) replaced by
``-``, as the upstream script makes it. Ids are the prefix, the record's date and the next
free sequence for that prefix and date among the records already there — whatever dates
those records carry (a wrap-up bug once wrote ids with wrong dates).

Before anything is appended every target is checked: a regular file (a FIFO is never
opened), within the JSONL size limit (checked before reading), ending with a whole line,
and starting and ending with JSON objects — a lesson path that leads to a shell start-up
file never receives a line. Input that JSON allows but a JSONL line must not hold (lone
surrogates, infinite numbers, deep nesting) and a project that cannot name one folder
(empty, ``..``, control characters, too long) are refused naming the field.
"""

from __future__ import annotations

import json
import math
import mmap
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from store.models.lessons import AI_LESSON_TYPES, USER_LESSON_TYPES, WrapupInput
from store.read.diagnostics import Diagnostic, DiagnosticSink
from store.read.jsonl import encode_record
from store.read.textio import MAX_JSONL_BYTES, MAX_RECORD_BYTES, NotReadable, check_regular
from store.read.textsafe import printable
from store.read.validate import dotted, validate_tolerant
from store.review.items import ReviewError
from store.workspace import Workspace
from store.write.atomic import PathRefused, WriteError, append_bytes
from store.write.policy import in_place

_ID_SEQ = re.compile(r"^(?P<prefix>.+)-(?P<date>\d{8})-(?P<seq>\d+)$")


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

    def lines(self) -> list[tuple[Path, bytes]]:
        out = [(self.summary_path, encode_record(self.summary))]
        out += [(self.user_path, encode_record(r)) for r in self.user_lessons]
        out += [(self.ai_path, encode_record(r)) for r in self.ai_lessons]
        return out


#: An ``"id": "…"`` pair anywhere in a record (a pretty-printed one too).
_ID_FIELD = re.compile(rb'"id"\s*:\s*"([^"\\\r\n]{1,200})"')
#: Nesting deeper than this in a wrap-up input is refused.
MAX_INPUT_DEPTH = 64


def _existing_ids(path: Path) -> set[str]:
    """The ids of the records in a file lines are appended to (empty when it does not
    exist), after checking that it can take a line: a regular file (never opened when it
    is a FIFO or a device), within the JSONL size limit (checked before reading), ending
    with a whole line, and looking like JSONL. The file is mapped, not read: a file of a
    gigabyte costs page cache, not memory."""
    try:
        st = os.stat(path)
        check_regular(st, MAX_JSONL_BYTES)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return set()
    except NotReadable as exc:
        raise ReviewError(f"{path}: {exc}; nothing written") from exc
    except (OSError, ValueError) as exc:
        raise ReviewError(
            f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}; nothing written"
        ) from exc
    try:
        st = os.fstat(fd)
        check_regular(st, MAX_JSONL_BYTES)
        if st.st_size == 0:
            return set()
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as data:
            _check_appendable(path, data)
            return {m.group(1).decode("utf-8", "replace") for m in _ID_FIELD.finditer(data)}
    except NotReadable as exc:
        raise ReviewError(f"{path}: {exc}; nothing written") from exc
    except OSError as exc:
        raise ReviewError(f"{path}: cannot read: {exc.strerror or exc}; nothing written") from exc
    finally:
        os.close(fd)


def _check_appendable(path: Path, data: mmap.mmap) -> None:
    """Refuse a file whose last line is unfinished, or whose first and last lines are not
    JSON objects (a shell start-up file at a lesson path must never receive a line). Only
    those two lines are looked at; a pretty-printed record (a wrap-up bug) may begin with
    a line holding just ``{`` and end with one holding ``}``."""
    size = len(data)
    if data[size - 1 : size] != b"\n":
        raise ReviewError(f"{path}: the last line is unfinished; nothing written")
    lines = _nonblank_lines(data)
    first = next(lines, None)
    if first is None:
        return  # blank lines only
    last = _last_nonblank_line(data)
    for what, line, opener in (("first", first, b"{"), ("last", last, b"}")):
        if line != opener and not _is_json_object(line):
            raise ReviewError(
                f"{path} does not look like a JSONL file (its {what} line is not a JSON "
                "object); nothing appended"
            )


def _nonblank_lines(data: mmap.mmap) -> Iterator[bytes]:
    pos, size = 0, len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        end = size if nl < 0 else nl
        if end - pos > MAX_RECORD_BYTES:
            yield data[pos : pos + MAX_RECORD_BYTES + 1]
            return
        line = data[pos:end].removeprefix(b"\xef\xbb\xbf" if pos == 0 else b"").strip()
        if line:
            yield line
        pos = end + 1


def _last_nonblank_line(data: mmap.mmap) -> bytes:
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end - 1) + 1 if end > 1 else 0
        if end - start > MAX_RECORD_BYTES:
            return data[end - MAX_RECORD_BYTES - 1 : end]
        line = data[start:end].removeprefix(b"\xef\xbb\xbf" if start == 0 else b"").strip()
        if line:
            return line
        end = start
    return b""


def _is_json_object(line: bytes) -> bool:
    if len(line) > MAX_RECORD_BYTES or not line.startswith(b"{"):
        return False
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def next_id(prefix: str, day: str, taken: set[str]) -> str:
    seqs = [
        int(m.group("seq"))
        for t in taken
        if (m := _ID_SEQ.match(t)) and m.group("prefix") == prefix and m.group("date") == day
    ]
    return f"{prefix}-{day}-{max(seqs, default=0) + 1:03d}"


def parse_input(text: str, source: str) -> tuple[WrapupInput | None, list[Diagnostic]]:
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
        if model.date is not None and _day(model.date) is None:
            sink.error("bad-date", f"date '{model.date}' is not an ISO 8601 time")
        if model.project is not None:
            _check_project(model.project, sink)
    return model, sink.items


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _check_values(data: Any, sink: DiagnosticSink) -> bool:
    """Report what JSON allows but a JSONL line must not hold: text with an unpaired
    surrogate (``"\\ud800"``: not encodable as UTF-8), numbers too large for a float,
    nesting deeper than :data:`MAX_INPUT_DEPTH`. False when anything was found."""
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
    """``YYYYMMDD`` of an ISO 8601 date or time, as written (no time zone conversion)."""
    try:
        t = datetime.fromisoformat(date.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return f"{t.year:04d}{t.month:02d}{t.day:02d}"


def _check_project(project: str, sink: DiagnosticSink) -> None:
    """The project names the summaries folder (its slug): it must make one folder name."""
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
        sink.error(
            "bad-project",
            f"project '{shown}' cannot name the summaries folder: {why}",
        )


def plan_import(ws: Workspace, model: WrapupInput) -> WrapupImport:
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
    s = model.summary
    summary: dict[str, Any] = {
        "id": next_id("ws", day, _existing_ids(summary_path)),
        **base,
        "info_summary": list(s.info or []) if s else [],
        "qa_pairs": [q.model_dump(exclude_none=True) for q in (s.qa or [])] if s else [],
        "conclusions": [c.model_dump(exclude_none=True) for c in (s.conclusions or [])]
        if s
        else [],
        "work_done": list(s.done) if s and s.done is not None else None,
        "action_items": [
            {"title": a.title, "priority": a.priority, "registered_todo": a.registered_todo}
            for a in (s.actions or [])
        ]
        if s
        else [],
    }
    if model.evaluation is not None:
        summary["evaluation"] = model.evaluation.model_dump(exclude_none=True)
    for key, value in (model.model_extra or {}).items():  # newer fields (timing, …) kept
        summary[key] = value
    plan = WrapupImport(summary_path, user_path, ai_path, summary)
    for prefix, lessons, out, path in (
        ("ll-user", model.user_lessons, plan.user_lessons, user_path),
        ("ll-ai", model.ai_lessons, plan.ai_lessons, ai_path),
    ):
        taken = _existing_ids(path)
        for les in lessons or []:
            rid = next_id(prefix, day, taken)
            taken.add(rid)
            out.append(
                {
                    "id": rid,
                    **base,
                    "type": les.type,
                    "category": les.category,
                    "title": les.title,
                    "summary": les.summary,
                    "context": les.context,
                    "detail_ref": les.detail_ref if les.detail_ref is not None else "",
                    "tags": list(les.tags or []),
                    "memory_ref": les.memory_ref,
                    **(les.model_extra or {}),
                }
            )
    return plan


def import_wrapup(ws: Workspace, text: str, source: str = "<input>") -> WrapupImport:
    """Validate, then append. Raises :class:`ReviewError` (with every problem) before any
    write when the input is invalid or a target file cannot take a line right now."""
    model, diags = parse_input(text, source)
    errors = [d for d in diags if d.severity == "error"]
    if model is None or errors:
        reasons = "; ".join(printable(d.message, keep_newlines=False) for d in errors)
        raise ReviewError(f"invalid wrap-up input, nothing written: {reasons}")
    plan = plan_import(ws, model)  # refuses target files that cannot take a line
    for path, line in plan.lines():
        if len(line) > MAX_RECORD_BYTES:
            raise ReviewError(
                f"{path}: the new record would be {len(line):,} bytes, over the "
                f"{MAX_RECORD_BYTES:,}-byte limit for a JSONL record; nothing written"
            )
    guards = {
        plan.summary_path: in_place(ws, "summaries"),
        plan.user_path: in_place(ws, "lessons_user"),
        plan.ai_path: in_place(ws, "lessons_ai"),
    }
    for path, guard in guards.items():  # refused before anything is appended
        try:
            guard(path)
        except PathRefused as exc:
            raise ReviewError(f"{exc}; nothing written") from exc
    written: list[Path] = []
    try:
        for path, line in plan.lines():
            append_bytes(path, line, guard=guards[path])
            written.append(path)
    except WriteError as exc:
        raise ReviewError(f"{exc} ({len(written)} line(s) were already appended)") from exc
    return plan
