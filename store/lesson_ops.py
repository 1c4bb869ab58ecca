"""Lessons: edited in place (that record's line only), archived softly, removed on request.

Archiving is review metadata: it goes to the ledger (``archive`` / ``restore`` of
``lesson:<id>``), and the agents' JSONL stays untouched; archived lessons are kept out of lists
by default. Removing a line from the file happens only when the person asks for it, as a
journaled write that ``undo`` can restore.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .diagnostics import DiagnosticSink
from .journal import journaled_write
from .jsonl import JsonlRecord, encode_record, line_ending, scan_jsonl
from .jsonl_edit import prefix_digest, replace_span
from .ledger import Entry, Ledger
from .models import Lesson
from .review import ReviewError
from .textio import FileStamp
from .validate import validate_tolerant
from .workspace import Workspace


def lesson_key(lesson_id: str) -> str:
    return f"lesson:{lesson_id}"


@dataclass(slots=True)
class LessonRef:
    path: Path
    record: JsonlRecord
    data: bytes
    complete_until: int


def find_lesson(path: Path, lesson_id: str) -> LessonRef:
    data = path.read_bytes()
    scan = scan_jsonl(data, DiagnosticSink(str(path)))
    for rec in scan.records:
        if rec.data.get("id") == lesson_id:
            return LessonRef(path, rec, data, scan.complete_until)
    raise ReviewError(f"no lesson '{lesson_id}' in {path}")


def edit_lesson(ref: LessonRef, changes: dict[str, Any]) -> bytes:
    """Rewrite the lesson's record with ``changes`` (validated first); every other line of the
    file, broken ones included, stays byte for byte. Returns the new line."""
    new = {**ref.record.data, **changes}
    sink = DiagnosticSink(str(ref.path))
    validate_tolerant(Lesson, new, sink, what="lesson")
    errors = [d.message for d in sink.items if d.severity == "error"]
    if errors:
        raise ReviewError("; ".join(errors))
    old = ref.data[ref.record.start : ref.record.end]
    newline = line_ending(old) if old.endswith(b"\n") else b"\n"
    line = encode_record(new, newline)
    replace_span(
        ref.path,
        ref.record.start,
        ref.record.end,
        line,
        prefix_len=ref.complete_until,
        prefix_sha256=prefix_digest(ref.data, ref.complete_until),
    )
    return line


def archive(
    ledger: Ledger, lesson_id: str, archived: bool = True, note: str | None = None
) -> Entry:
    return ledger.record("archive" if archived else "restore", lesson_key(lesson_id), note)


def remove_lesson(ws: Workspace, ledger: Ledger, ref: LessonRef) -> Entry:
    """Physically remove the record's line(s) — only on an explicit request; undoable."""
    after = ref.data[: ref.record.start] + ref.data[ref.record.end :]
    stamp = FileStamp.of_bytes(ref.data, ref.path.stat())
    entry, _ = journaled_write(
        ws,
        ledger,
        op="write",
        target=lesson_key(str(ref.record.data.get("id"))),
        batch=secrets.token_hex(6),
        path=ref.path,
        before=ref.data,
        after=after,
        expected=stamp,
        removed_line=ref.record.line,
    )
    return entry
