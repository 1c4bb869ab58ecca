"""Lessons: edited in place (that record's line only), archived softly (review state in the
ledger; the agents' JSONL untouched), removed only on request; each a transaction."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store.errors import cannot_read
from store.ledger import Ledger
from store.models import Lesson
from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import JsonlRecord, encode_record, line_ending, scan_jsonl
from store.read.textio import MAX_JSONL_BYTES, NotReadable, looks_binary, read_regular
from store.read.validate import validate_tolerant
from store.review.items import ReviewError
from store.tx.journal import FileWrite
from store.tx.transactions import Effect, TxPlan, TxResult, apply
from store.workspace import Workspace
from store.write.policy import in_place


def lesson_key(lesson_id: str) -> str:
    return f"lesson:{lesson_id}"


@dataclass(slots=True)
class LessonRef:
    path: Path
    record: JsonlRecord
    data: bytes
    complete_until: int


def find_lesson(path: Path, lesson_id: str) -> LessonRef:
    try:
        data, _st = read_regular(path, MAX_JSONL_BYTES)
    except NotReadable as exc:
        raise ReviewError(f"{path}: {exc}") from exc
    except (OSError, ValueError) as exc:
        raise ReviewError(cannot_read(path, exc)) from exc
    scan = scan_jsonl(data, DiagnosticSink(str(path)))
    for rec in scan.records:
        if rec.data.get("id") == lesson_id:
            return LessonRef(path, rec, data, scan.complete_until)
    raise ReviewError(f"no lesson '{lesson_id}' in {path}")


def check_editable(path: Path, data: bytes) -> None:
    """Refuse to write a lesson file that is read-only as read: one with bytes that are not
    UTF-8 (the loader shows it with replacement characters) or a binary one (not parsed)."""
    if looks_binary(data):
        raise ReviewError(
            f"{path}: the file holds NUL bytes (binary) and is read-only; nothing written"
        )
    decoder = codecs.getincrementaldecoder("utf-8")()
    step = 1 << 20
    for at in range(0, len(data), step):
        held = len(decoder.getstate()[0])  # the start of a character cut by the last step
        try:
            decoder.decode(data[at : at + step], final=at + step >= len(data))
        except UnicodeDecodeError as exc:
            offset = at - held + exc.start
            line = data.count(b"\n", 0, offset) + 1
            raise ReviewError(
                f"{path}:{line}: byte 0x{data[offset]:02x} at offset {offset} is not valid "
                "UTF-8; the file is read-only; nothing written"
            ) from exc


def archive_lesson(
    ws: Workspace,
    lesson_id: str,
    archived: bool = True,
    note: str | None = None,
    *,
    ledger: Ledger | None = None,
) -> TxResult:
    """Archive (or restore) a lesson as a transaction of review state only."""
    op = "archive" if archived else "restore"
    key = lesson_key(lesson_id)
    plan = TxPlan(op, [key], effects=[Effect(op, key, note)], note=note)
    return apply(ws, plan, ledger=ledger)


def lesson_line(ref: LessonRef, changes: dict[str, Any]) -> bytes:
    """The lesson's record with ``changes``, validated, as the line that replaces it."""
    check_editable(ref.path, ref.data)
    new = {**ref.record.data, **changes}
    sink = DiagnosticSink(str(ref.path))
    validate_tolerant(Lesson, new, sink, what="lesson")
    errors = [d.message for d in sink.items if d.severity == "error"]
    if errors:
        raise ReviewError("; ".join(errors))
    old = ref.data[ref.record.start : ref.record.end]
    newline = line_ending(old) if old.endswith(b"\n") else b"\n"
    return encode_record(new, newline)


def _record_write(ws: Workspace, ref: LessonRef, new: bytes) -> FileWrite:
    """The record's bytes replaced by ``new`` (empty: removed), found again by its bytes
    and the line before it (see :mod:`store.tx.journal`)."""
    start, end = ref.record.start, ref.record.end
    first = start == 0 or (start == 3 and ref.data[:3] == b"\xef\xbb\xbf")
    anchor = b"" if first else ref.data[ref.data.rfind(b"\n", 0, start - 1) + 1 : start]
    return FileWrite(
        ref.path,
        ref.data[start:end],
        new,
        in_place(ws, "lessons_user", "lessons_ai"),
        "record",
        offset=start,
        anchor=anchor,
        record=str(ref.record.data.get("id")),
    )


def edit_lesson_tx(
    ws: Workspace,
    ref: LessonRef,
    changes: dict[str, Any],
    *,
    ledger: Ledger | None = None,
) -> TxResult | None:
    """Rewrite the record in place as an ``edit-lesson`` transaction (``None``: unchanged)."""
    line = lesson_line(ref, changes)
    if line == ref.data[ref.record.start : ref.record.end]:
        return None
    key = lesson_key(str(ref.record.data.get("id")))
    plan = TxPlan("edit-lesson", [key], [_record_write(ws, ref, line)], [Effect("edit", key)])
    return apply(ws, plan, ledger=ledger)


def remove_lesson(ws: Workspace, ledger: Ledger | None, ref: LessonRef) -> TxResult:
    """Blank the record's bytes (a file agents append to never shrinks) as a ``remove-lesson``
    transaction, only on an explicit request."""
    check_editable(ref.path, ref.data)
    key = lesson_key(str(ref.record.data.get("id")))
    plan = TxPlan("remove-lesson", [key], [_record_write(ws, ref, b"")])
    return apply(ws, plan, ledger=ledger)
