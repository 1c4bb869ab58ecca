"""The bare in-place rewrite of one lesson record, without a transaction: what the
concurrency harness races against agents appending to the same file (the app saves through
:func:`store.review.lessons.edit_lesson_tx`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import scan_jsonl
from store.review.lessons import LessonRef, lesson_line
from store.write.atomic import Guard
from store.write.jsonl_edit import prefix_digest, replace_span


def edit_lesson(ref: LessonRef, changes: dict[str, Any], *, guard: Guard) -> None:
    """Rewrite the lesson's record with ``changes`` (validated first); every other line of the
    file, broken ones included, stays byte for byte. A shorter line is padded with spaces
    before its line ending (a file other programs append to is never shortened: see
    :mod:`store.write.jsonl_edit`)."""
    line = lesson_line(ref, changes)
    old = ref.data[ref.record.start : ref.record.end]
    replace_span(
        ref.path,
        ref.record.start,
        ref.record.end,
        line,
        prefix_len=ref.complete_until,
        prefix_sha256=prefix_digest(ref.data, ref.complete_until),
        guard=guard,
        relocate=lambda now: relocate_record(now, ref.path, ref.record.data.get("id"), old),
    )


def relocate_record(
    data: bytes, path: Path, lesson_id: object, old: bytes
) -> tuple[int, int] | None:
    """Where the record read as ``old`` lies in the file as it is now (``data``, read under
    the write lock): found by its id, still byte for byte what was read, and the only
    record with that id. ``None`` (a conflict) otherwise. Another process editing a
    *different* lesson of the file meanwhile is then no conflict: each edit keeps the other."""
    if not isinstance(lesson_id, str):
        return None
    found = [
        r
        for r in scan_jsonl(data, DiagnosticSink(str(path))).records
        if r.data.get("id") == lesson_id
    ]
    if len(found) != 1 or data[found[0].start : found[0].end] != old:
        return None
    return found[0].start, found[0].end
