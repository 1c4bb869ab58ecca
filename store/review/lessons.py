"""Lessons: edited in place (that record's line only), archived softly, removed on request.

Archiving is review metadata: it goes to the ledger (``archive`` / ``restore`` of
``lesson:<id>``), and the agents' JSONL stays untouched; archived lessons are kept out of lists
by default. Removing a line from the file happens only when the person asks for it, as a
journaled write that ``undo`` can restore.
"""

from __future__ import annotations

import codecs
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store.ledger import Entry, Ledger
from store.models import Lesson
from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import JsonlRecord, encode_record, line_ending, scan_jsonl
from store.read.textio import MAX_JSONL_BYTES, FileStamp, NotReadable, looks_binary, read_regular
from store.read.validate import validate_tolerant
from store.review.items import ReviewError
from store.review.journal import journaled_write
from store.workspace import Workspace
from store.write.atomic import Guard
from store.write.jsonl_edit import prefix_digest, replace_span
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
        raise ReviewError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from exc
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


def edit_lesson(ref: LessonRef, changes: dict[str, Any], *, guard: Guard) -> bytes:
    """Rewrite the lesson's record with ``changes`` (validated first); every other line of the
    file, broken ones included, stays byte for byte. Returns the new line."""
    check_editable(ref.path, ref.data)
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
        guard=guard,
    )
    return line


def archive(
    ledger: Ledger, lesson_id: str, archived: bool = True, note: str | None = None
) -> Entry:
    return ledger.record("archive" if archived else "restore", lesson_key(lesson_id), note)


def remove_lesson(ws: Workspace, ledger: Ledger, ref: LessonRef) -> Entry:
    """Physically remove the record's line(s) — only on an explicit request; undoable."""
    check_editable(ref.path, ref.data)
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
        guard=in_place(ws, "lessons_user", "lessons_ai"),
        removed_line=ref.record.line,
    )
    return entry
